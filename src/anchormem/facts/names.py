"""One name said in two scripts: "Bristol" and 布里斯托, "Toronto" and 多伦多, "Berlin" and 柏林.

A restatement in the other language must not read as a change ("I live in Bristol" then 我住在布里斯托 is no move).
The test is by sound, not by a list of cities: the Chinese name is romanised (``pypinyin``), both names are reduced
to a skeleton of consonant classes, and every consonant class of the Chinese one must be heard, in order, in the
Latin one, covering most of it (``data/lang/zh/transliteration.json``:
the classes, the least skeleton length, the threshold). Only a Latin name against a Chinese one is tested. A Latin
name that is the Chinese one's pinyin (杭州 = Hangzhou, 上海 = Shanghai) is the same name, and so is a name translated
by meaning or by an older romanisation (东京 = Tokyo, 香港 = Hong Kong: ``translated_names`` in the same file).

    same_name("Bristol", "布里斯托")   # -> True
    same_name("Berlin", "巴黎")        # -> False
    same_name("Tokyo", "东京")          # -> True (translated_names)

Nothing is imported or read before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["same_name", "skeleton"]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    d = dict(langdata.load("transliteration", "zh"))
    d["_classes"] = sorted(d.get("classes", {}).items(), key=lambda kv: -len(kv[0]))
    return d


def skeleton(name: str) -> str:
    """The consonant-class skeleton of ``name`` (a Chinese name romanised first): "Bristol" -> "BLSTL", 布里斯托 ->
    "BLST"."""
    d = _data()
    if has_cjk(name):
        from pypinyin import lazy_pinyin  # lazy: the dictionary loads on first use

        text = " ".join(lazy_pinyin(re.sub(r"[^\u4e00-\u9fff]", "", name)))
        soft = ""
    else:
        text = name.casefold()
        soft = d.get("english_c_soft", "")
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "c" and soft and text[i + 1:i + 2] in tuple(soft) and text[i + 1:i + 2]:
            cls, n = "S", 1
        else:
            hit = next(((k, v) for k, v in d["_classes"] if text.startswith(k, i)), None)
            cls, n = (hit[1], len(hit[0])) if hit else ("", 1)
        if text[i] == " ":
            out.append(" ")  # a syllable boundary: a class repeated across syllables is said twice (字节: S S)
        elif cls and (not out or out[-1] != cls):
            out.append(cls)
        i += n
    return "".join(out).replace(" ", "")


def same_name(a: str, b: str) -> bool:
    """``a`` and ``b`` are one name in two scripts (one Latin, one Chinese) by sound (see the module doc); False for
    two names of one script, or when either has too short a skeleton."""
    a, b = a.strip(), b.strip()
    if not a or not b or has_cjk(a) == has_cjk(b) or (re.search(r"[A-Za-z]", a) and has_cjk(a)) or \
            (re.search(r"[A-Za-z]", b) and has_cjk(b)):
        return False
    d = _data()
    han, lat = (b, a) if has_cjk(b) else (a, b)
    if _folded(lat) in {_folded(n) for n in d.get("translated_names", {}).get(han, ())} or _folded(lat) == _pinyin(han):
        return True  # 东京 = Tokyo (by meaning: data), 杭州 = Hangzhou (the pinyin itself)
    latin, zh = (skeleton(a), skeleton(b)) if has_cjk(b) else (skeleton(b), skeleton(a))
    least = int(d.get("min_skeleton", 3))
    if len(latin) < least or len(zh) < least or latin[0] != zh[0]:
        return False
    common = _lcs(latin, zh)  # a transliteration adds vowels, not consonants: all of the Chinese one's are heard
    return common == len(zh) and common / len(latin) >= float(d.get("threshold", 0.8))


def _folded(name: str) -> str:
    """A Latin name without case, spaces, hyphens and apostrophes ("Xi'an" -> "xian", "Hong Kong" -> "hongkong")."""
    return re.sub(r"[\s'’\-.]+", "", name).casefold()


def _pinyin(name: str) -> str:
    """The toneless pinyin of a Chinese name, run together (杭州 -> "hangzhou"); "" when it has no Chinese."""
    han = re.sub(r"[^\u4e00-\u9fff]", "", name)
    if not han:
        return ""
    from pypinyin import lazy_pinyin  # lazy: the dictionary loads on first use

    return "".join(lazy_pinyin(han)).casefold()


def _lcs(x: str, y: str) -> int:
    """The length of the longest common subsequence of ``x`` and ``y``."""
    row = [0] * (len(y) + 1)
    for cx in x:
        prev = 0
        for j, cy in enumerate(y):
            cur = row[j + 1]
            row[j + 1] = prev + 1 if cx == cy else max(row[j + 1], row[j])
            prev = cur
    return row[-1]
