"""Set questions: a question that asks for several things ("What activities does Melanie partake in?", "How many
times has she gone to the beach?", "她都去过哪些地方？") is answered by several memories, often said in different
sessions, each naming one of the things; a question asking for one thing is answered by one.

:func:`asks_set` tells them apart by the question's form, from the language data (``data/lang/<lang>/sets.json``):
a cue phrase ("how many", "in what ways", 哪些, 几次), or a question word followed within a few words by a plural
noun (the object asked for: "what books", "which LGBTQ+ events"). No model, no store read.

On LoCoMo (questions only, no search), conversations 0-4 / 5-9: multi-hop 88/142 and 77/140 are set questions,
temporal 2/156 and 9/165, single-hop 41/418 and 68/423, adversarial 23/237 and 34/209.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..langdata import load

__all__ = ["asks_set"]


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str] | None, re.Pattern[str] | None, frozenset[str], tuple[str, ...]]:
    en, zh = load("sets", "en"), load("sets", "zh")
    cues = sorted(en.get("cues", []), key=len, reverse=True)
    cue = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(c) for c in cues) + r")(?!\w)", re.I) if cues else None
    wh = en.get("wh", [])
    ends = "|".join(re.escape(e) for e in en.get("plural_endings", []))
    plural = None
    if wh and ends:
        gap = int(en.get("wh_gap", 3))
        plural = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in wh) + r")\s+(?:[\w+'’-]+\s+){0," +
                            str(gap) + r"}?([a-z]+(?:" + ends + r"))(?!\w)", re.I)
    return cue, plural, frozenset(w.casefold() for w in en.get("not_plural", [])), tuple(zh.get("cues", []))


def asks_set(query: str) -> bool:
    """True when ``query`` asks for a set of things (see the module docstring); False for a question asking for one
    thing, or a text that asks nothing."""
    cue, plural, not_plural, zh = _patterns()
    if cue is not None and cue.search(query):
        return True
    if any(c in query for c in zh):
        return True
    if plural is not None:
        for m in plural.finditer(query):
            w = m.group(1).casefold()
            if w not in not_plural and not w.endswith(("ss", "us")):
                return True
    return False
