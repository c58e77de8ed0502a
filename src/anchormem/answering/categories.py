"""Category words and their kinds, in every language: "What pets do I have?" is answered by "I have two cats",
"我有什么宠物？" by "We adopted a greyhound", "Do I play any instruments?" by "我会弹钢琴".

A question word that names a category (``pets``, 宠物, ``instruments``, 乐器, ``sports``, 运动...) shares no word with
a memory that names one of its kinds, and the default embedder does not tell kinds from neighbours (measured,
``/work/wt/briefs/askq_bench.md``: "pets"~"greyhound" and "pets"~"vegetarian" sit within 0.02 of each other above
their background), so the hierarchy is language data: ``data/lang/<lang>/categories.json``, ``categories`` {id:
{names, kinds}} and ``is_a`` {id: [broader ids]} (merged over languages; the ids are shared by every language, so a
category named in one language is covered by a kind said in the other). A kind of a narrower category is a kind of
the broader one (a greyhound is a dog, a dog a pet).

    asked_categories("pets")                              # -> frozenset({"pet"})
    names_kind(frozenset({"pet"}), "i have two cats.", ["two", "cats"])   # -> True

Matching: in a question, a category name by its noun lemma (English: "pets" is "pet", "care" is not "car") or as the whole word (Chinese); in a memory, an English
name or kind as whole words (plural -s/-es allowed), a Chinese one as a substring of two or more characters, or a
single character as a word of its own or the head (last character) of one ("小猫" is a cat, "猫毛" is not).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata
from ..text.tokenize import has_cjk, noun_lemma

__all__ = ["asked_categories", "kind_words", "names_kind"]


@lru_cache(maxsize=1)
def _data() -> tuple[dict[str, frozenset[str]], dict[str, tuple[re.Pattern[str] | None, tuple[str, ...], frozenset[str]]]]:
    """(question word -> category ids it names, category id -> (English pattern, Chinese phrases of 2+ characters,
    single Chinese characters) of its names and kinds and those of every narrower category)."""
    cats: dict[str, dict[str, set[str]]] = {}
    is_a: dict[str, set[str]] = {}
    for lang in langdata.LANGUAGES:
        data = langdata.load("categories", lang)
        for cid, spec in (data.get("categories") or {}).items():
            entry = cats.setdefault(cid, {"names": set(), "kinds": set()})
            entry["names"].update(spec.get("names", []))
            entry["kinds"].update(spec.get("kinds", []))
        for cid, parents in (data.get("is_a") or {}).items():
            is_a.setdefault(cid, set()).update(parents)

    def ancestors(cid: str, seen: frozenset[str] = frozenset()) -> set[str]:
        out: set[str] = set()
        for p in is_a.get(cid, ()):
            if p not in seen:
                out |= {p} | ancestors(p, seen | {cid})
        return out

    below: dict[str, set[str]] = {cid: {cid} for cid in cats}
    for cid in cats:
        for a in ancestors(cid):
            below.setdefault(a, {a}).add(cid)
    asked: dict[str, set[str]] = {}
    for cid, entry in cats.items():
        for n in entry["names"]:
            asked.setdefault(n if has_cjk(n) else noun_lemma(n), set()).add(cid)
    said: dict[str, tuple[re.Pattern[str] | None, tuple[str, ...], frozenset[str]]] = {}
    for cid, narrower in below.items():
        phrases = {w for c in narrower for w in (*cats.get(c, {}).get("names", ()), *cats.get(c, {}).get("kinds", ()))}
        en = sorted((w.lower() for w in phrases if not has_cjk(w)), key=lambda w: (-len(w), w))
        pat = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w).replace(r"\ ", r"[\s-]+") for w in en)
                         + r")(?:s|es)?(?![\w-])") if en else None
        zh = tuple(w for w in phrases if has_cjk(w) and len(w) >= 2)
        said[cid] = (pat, zh, frozenset(w for w in phrases if has_cjk(w) and len(w) == 1))
        _PHRASES[cid] = tuple(sorted(phrases))
    return {k: frozenset(v) for k, v in asked.items()}, said


_PHRASES: dict[str, tuple[str, ...]] = {}  # category id -> its names and kinds and those of narrower ones (_data)


def kind_words(categories: frozenset[str]) -> list[str]:
    """The names and kinds of ``categories`` and of every narrower category, in every language, sorted and
    deduplicated ("pet" -> ["bunny", "cat", ..., "greyhound", ..., "金毛", ...]); empty for unknown ids."""
    _data()
    return sorted({w for cid in categories for w in _PHRASES.get(cid, ())})


def asked_categories(term: str) -> frozenset[str]:
    """The category ids a question's key term names ("pets" -> {"pet"}, 乐器 -> {"instrument"}); empty for any
    other word ("care" names no "car": English terms meet by noun lemma, not by stem)."""
    asked, _ = _data()
    return asked.get(term if has_cjk(term) else noun_lemma(term), frozenset())


def names_kind(categories: frozenset[str], text: str, words: list[str]) -> bool:
    """The memory (its lower-cased stated ``text`` and its ``words``: tokens and slot words) names one of
    ``categories`` or a kind of it, in any language."""
    _, said = _data()
    for cid in categories:
        pat, zh, chars = said.get(cid, (None, (), frozenset()))
        if pat is not None and (pat.search(text) or any(pat.fullmatch(w.lower()) for w in words if w.isascii())):
            return True
        if any(p in text for p in zh):
            return True
        if chars and any(w and has_cjk(w) and w[-1] in chars for w in words):
            return True
    return False
