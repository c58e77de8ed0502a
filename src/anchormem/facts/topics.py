"""Content words of the relative change reader (:mod:`.relative`): the topic words of a clause, the longest word
two clauses share ("gym" ~ "puregym", 钢琴 ~ 钢琴课), and a topic two clauses name in other words ("without a
cigarette" ~ "I smoke", "Quit bubble tea" ~ 我每天喝奶茶: ``topic_synonyms`` of data/lang/*/slots.json). Stop words:
``stop`` of data/lang/{en,zh}/relative.json."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import content_words, has_cjk

__all__ = ["topic_words", "shared", "same_topic", "many_in_other_words"]


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """``stop`` of data/lang/{en,zh}/relative.json, case-folded (built once, not per clause)."""
    return frozenset(w.casefold() for lg in ("en", "zh") for w in langdata.load("relative", lg).get("stop", []))


def topic_words(text: str, values: list[Any]) -> set[str]:
    """The content words of ``text`` (stop words, numbers and the words of ``values`` left out; Latin words of 3+
    letters, CJK words of 2+ characters), case-folded."""
    stop = _stop_words()
    said = " ".join(v.value for v in values).casefold()
    return {w.casefold() for w in content_words(text) if w.casefold() not in stop and not re.fullmatch(r"[\d.,]+", w)
            and w.casefold() not in said and (len(w) >= 3 or has_cjk(w) and len(w) >= 2)}


def shared(a: set[str], b: set[str], a_text: str = "", b_text: str = "") -> str:
    """The longest content word the two clauses share ("gym" ~ "puregym": one inside the other; a Chinese word of
    one inside the other's text, however the segmenter cut it: 抖音 ~ 刷抖音刷到半夜), or ""."""
    hits: list[str] = [w for w, text in [(w, b_text) for w in a] + [(w, a_text) for w in b]
                       if has_cjk(w) and len(w) >= 2 and w in text]
    for x in sorted(a):
        for y in b:
            least = 2 if has_cjk(x + y) else 3  # 钢琴 ~ 钢琴课, gym ~ puregym
            if x == y or (len(x) >= least and len(y) >= least and (x in y or y in x)):
                hits.append(x if len(x) <= len(y) else y)
    return max(hits, key=len) if hits else ""


@lru_cache(maxsize=1)
def _topic_rx() -> re.Pattern | None:
    """Every word of ``topic_synonyms`` (and every topic key they point to), longest first: Latin ones as whole
    words, case-insensitive; Chinese ones anywhere."""
    table = langdata.mapping("slots", "topic_synonyms")
    words = sorted(set(table) | set(table.values()), key=len, reverse=True)
    if not words:
        return None
    return re.compile("|".join(re.escape(w) if has_cjk(w) else r"(?<![\w-])" + re.escape(w) + r"(?![\w-])"
                               for w in words), re.I)


def same_topic(a_text: str, b_text: str) -> str:
    """The word of ``a_text`` naming a topic ``b_text`` names in other words or the other language ("cigarette" of
    "day 30 without a cigarette" against "I smoke", 奶茶 ~ "bubble tea": one :func:`~anchormem.facts.keys.topic_root`),
    or "" (a word both say is :func:`shared`'s)."""
    from .keys import topic_root

    rx = _topic_rx()
    if rx is None:
        return ""
    theirs = {topic_root(m.group(0).casefold() if not has_cjk(m.group(0)) else m.group(0)) for m in rx.finditer(b_text)}
    if not theirs:
        return ""
    for m in rx.finditer(a_text):
        w = m.group(0)
        if topic_root(w.casefold() if not has_cjk(w) else w) in theirs:
            return w
    return ""


def many_in_other_words(row: tuple, rows: list[tuple], bridged: set[int]) -> bool:
    """The relative reader's ending pair ``row`` (sim, word, value, old clause, pair index) names its topic in other
    words (its index in ``bridged``), as another clause of the same old memory does ("咖啡彻底戒了" ~ "我每天早上一杯
    美式，…，中午再来杯拿铁"): what ended is that sentence, read by meaning, not one of its clauses."""
    if row[4] not in bridged or row[3].whole:
        return False
    return sum(1 for r in rows if r[4] in bridged and not r[3].whole and r[3].memory.id == row[3].memory.id) > 1
