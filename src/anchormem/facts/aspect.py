"""The aspect of a clause: does it say a state of the speaker's ended, or began in place of another?

A change is said far more ways than any list of slot patterns holds ("烟终于戒了！", "not vegetarian anymore",
"keto is dead to me", "不开出租了，改跑滴滴了"), but the ways of saying *that* something ended or began are few: a
small closed class of grammar and aspect words per language. This module reads only those; *what* ended or began is
resolved by meaning against the user's open claims (:mod:`.relative`), and the scene gate (:mod:`.stance`) still
decides whether the clause is about the speaker now at all.

- **terminative**: the state ended ("quit", "no longer", "not … anymore", "gave up", "done with", 戒, 不再, 不…了,
  退了, 放弃);
- **inchoative**: a state holds from now on, in place of another ("now", "switched", "moved", "became", 现在, 改,
  换成, 转行).

The markers are data: ``terminative``, ``terminative_patterns`` (discontinuous markers as regexes: "not vegetarian
anymore", 不开出租了), ``not_terminative`` (phrases holding a marker that end nothing: 不行了, 受不了) and
``inchoative`` of ``data/lang/<lang>/aspect.json``. Both languages are looked up in a clause with Chinese in it (a
mixed clause says its aspect in either).

    terminative("烟终于戒了！")                   # -> "戒"
    terminative("not vegetarian anymore")        # -> "not vegetarian anymore"
    terminative("I don't like the office coffee")  # -> ""
    inchoative("we're in Raleigh now")           # -> "now"

Nothing is read before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["terminative", "inchoative", "episodic", "lasting", "aspect", "reads_as_change", "without_markers"]


@lru_cache(maxsize=8)
def _matcher(lang: str, key: str) -> tuple[re.Pattern | None, tuple[str, ...]]:
    """The entries of ``key`` for ``lang``: Latin ones as whole words (case-insensitive), CJK ones anywhere."""
    ws = list(dict.fromkeys(langdata.load("aspect", lang).get(key, [])))
    latin = sorted((w for w in ws if not has_cjk(w)), key=len, reverse=True)
    rx = re.compile(r"(?<![\w'’])(?:" + "|".join(re.escape(w) for w in latin) + r")(?![\w'’])", re.I) if latin else None
    return rx, tuple(sorted((w for w in ws if has_cjk(w)), key=len, reverse=True))


@lru_cache(maxsize=4)
def _patterns(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.I) for p in langdata.load("aspect", lang).get("terminative_patterns", []))


def _langs(text: str) -> tuple[str, ...]:
    return ("zh", "en") if has_cjk(text) else ("en",)


def _find(text: str, lang: str, key: str) -> str:
    rx, cjk = _matcher(lang, key)
    hit = next((w for w in cjk if w in text), "")
    if hit:
        return hit
    m = rx.search(text) if rx is not None else None
    return m.group(0) if m else ""


def _masked(text: str, lang: str) -> str:
    """``text`` with its ``not_terminative`` phrases blanked ("胃不行了" holds 不…了 and ends nothing)."""
    rx, cjk = _matcher(lang, "not_terminative")
    for w in cjk:
        text = text.replace(w, " " * len(w))
    return rx.sub(lambda m: " " * len(m.group(0)), text) if rx is not None else text


def _term(clause: str) -> tuple[str, int, int, str]:
    """(marker, start, end, what): the terminative marker of ``clause``, where it is, and the words inside a
    discontinuous marker (the ``what`` group of a pattern: "not *vegetarian* anymore", 不*开出租*了)."""
    for lang in _langs(clause):
        text = _masked(clause, lang)
        for rx in _patterns(lang):  # (a discontinuous marker first: "not vegetarian anymore" holds "anymore")
            m = rx.search(text)
            if m:
                return m.group(0), m.start(), m.end(), m.groupdict().get("what") or ""
        hit = _find(text, lang, "terminative")
        if hit:
            at = text.casefold().find(hit.casefold())
            return hit, at, at + len(hit), ""
    return "", -1, -1, ""


def terminative(clause: str) -> str:
    """The terminative marker of ``clause`` (the words saying a state of the speaker's ended: "quit", "no longer",
    "not vegetarian anymore", 戒, 不再, 不开出租了, 退了), or "" when it holds none. Only the marker is read: whose
    state and which one are for the callers (:mod:`.stance`, :mod:`.relative`)."""
    return _term(clause)[0]


@lru_cache(maxsize=4)
def _lasting_patterns(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.I) for p in langdata.load("aspect", lang).get("lasting_patterns", []))


def lasting(clause: str) -> bool:
    """``clause`` says a span of time has passed since a state ended (``lasting_patterns`` of aspect.json: "three
    months without a cigarette", "day 40 without", 一个月没喝了): a lasting state, not one occasion."""
    return any(rx.search(clause) for lang in _langs(clause) for rx in _lasting_patterns(lang))


def episodic(clause: str) -> bool:
    """``clause`` is bounded to one occasion (``episodic`` of aspect.json: "today", "this week", 今天, 这周): "no
    tennis this week", "今天下雨，不跑了" end an occasion, not a state; not when it says a span has passed since the
    state ended (:func:`lasting`: "Three months without a cigarette today!")."""
    return any(_find(clause, lang, "episodic") for lang in _langs(clause)) and not lasting(clause)


def inchoative(clause: str) -> str:
    """The inchoative marker of ``clause`` (a state holds from now on, in place of another: "now", "switched",
    "moved", "became", 现在, 换, 转), or ""."""
    for lang in _langs(clause):
        hit = _find(clause, lang, "inchoative")
        if hit:
            return hit
    return ""


def aspect(clause: str) -> str:
    """"terminative", "inchoative" or "" (a terminative marker wins: "不开出租了，改跑滴滴了" ends one state and begins
    another; the caller reads the new value of the second clause on its own)."""
    return "terminative" if terminative(clause) else "inchoative" if inchoative(clause) else ""


def reads_as_change(clause: str) -> bool:
    """``clause`` says a state ended or began in place of another (:func:`aspect` is not ""): "I moved to Rome.",
    "rent went up to 1,400", 我搬到了广州, but not "I live in Paris.". Two statements of one slot said at the same
    instant are ordered by it: a change presupposes the state it ends, so it goes after one that reads as none."""
    return bool(aspect(clause))


def without_markers(clause: str) -> str:
    """``clause`` with its terminative marker removed, the words inside a discontinuous one kept ("day 30 without
    a cigarette" -> "day 30 a cigarette"; "not vegetarian anymore" -> "vegetarian"; "烟终于戒了" -> "烟终于"): what
    ended, to state as the ending's value and to compare by meaning with what the user said before."""
    hit, start, end, what = _term(clause)
    if not hit:
        return clause
    return " ".join((clause[:start] + " " + what + " " + clause[end:]).split())
