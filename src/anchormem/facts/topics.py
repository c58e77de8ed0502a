"""Content words of the relative change reader (:mod:`.relative`): the topic words of a clause and the longest word
two clauses share ("gym" ~ "puregym", 钢琴 ~ 钢琴课). Stop words: ``stop`` of data/lang/{en,zh}/relative.json."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import content_words, has_cjk

__all__ = ["topic_words", "shared"]


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
