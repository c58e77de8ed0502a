"""Self-corrections: the user says a value, then takes it back in the next clause or turn (issue #22).

"I live in Boston, sorry, I mean Denver", "Sorry, not Boston, Denver.", "我住在杭州，不是，是苏州。", "说错了，不是阿里，
是腾讯。", "不叫咪咪，叫花花。". The ways of saying it are language data (``corrections`` of data/lang/<lang>/changes.json:
one regex per way, over the sentence; group ``y`` the value said instead, ``x`` the value corrected when it is named).

A correction is a change of the SAME slot whose old value is the corrected one, dated when that value was said: the
old value never held. :func:`corrected` applies the corrections of one user turn to the facts its readers found:

- within the turn ("I live in Boston, sorry, I mean Denver"): the fact of the turn the correction takes back (the
  one whose value is ``x``, else the last one said before it) is read with the value said instead; the corrected
  value is never a claim;
- across turns ("Sorry, not Boston, Denver."): the user's current claim whose value is ``x`` (else, with ``x`` not
  named, the one said last, when it is one) gives the slot; the correction is a fact of that slot with
  ``corrects`` = that claim's memory id. Reconciliation (:mod:`.reconcile`) closes that memory at its own
  ``valid_from`` (an empty validity: it never held) and dates the new value from then.

Facts read from the correction's own words ("not Boston" as a negated home) are dropped. Nothing is read before
first use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk
from .model import Fact, normalize_object

__all__ = ["Correction", "corrections", "corrected"]


@dataclass(frozen=True)
class Correction:
    """One self-correction in a text: ``right`` the value said instead, ``wrong`` the value corrected ("" when not
    named), ``start`` / ``end`` the character offsets of the correction's words."""

    right: str
    wrong: str
    start: int
    end: int


@lru_cache(maxsize=2)
def _patterns(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, 0 if lang == "zh" else re.I) for p in langdata.load("changes", lang).get("corrections", []))


_TAIL = re.compile(r"[\s.!?。！？~…,，;；:：'\"“”]+$")
_ZH_TAIL = re.compile(r"(?:了|啦|的|呢|吧|啊|哈|哦)+$")
_EN_TAIL = re.compile(r"\s+(?:actually|instead|sorry|now|then|not\s+.*)$", re.I)


def _clean(v: str | None) -> str:
    v = _TAIL.sub("", (v or "").strip())
    v = _ZH_TAIL.sub("", v) if has_cjk(v) else _EN_TAIL.sub("", v)
    return v.strip()


def corrections(text: str) -> list[Correction]:
    """The self-corrections of ``text`` in order (:class:`Correction`); [] when there is none. "I live in Boston,
    sorry, I mean Denver." -> ``[Correction("Denver", "", 16, 38)]``; "说错了，不是阿里，是腾讯。" -> right 腾讯, wrong 阿里."""
    langs = ("zh", "en") if has_cjk(text) else ("en",)
    found: list[Correction] = []
    for lang in langs:
        for rx in _patterns(lang):
            for m in rx.finditer(text):
                right = _clean(m.group("y"))
                wrong = _clean(m.groupdict().get("x"))
                if not right or normalize_object(right) == normalize_object(wrong):
                    continue
                if any(c.start < m.end() and m.start() < c.end for c in found):
                    continue  # (one correction per stretch of words: the first pattern that reads it)
                found.append(Correction(right, wrong, m.start(), m.end()))
    return sorted(found, key=lambda c: c.start)


def _at(text: str, f: Fact) -> int:
    """Where ``f``'s words start in ``text`` (its value, else its span), -1 when not found."""
    for piece in (f.value, f.clause, f.source_span):
        if piece:
            i = text.find(piece)
            if i < 0:
                i = text.casefold().find(piece.casefold())
            if i >= 0:
                return i
    return -1


def _same(a: str, b: str) -> bool:
    a, b = normalize_object(a), normalize_object(b)
    return bool(a) and (a == b or a in b.split() or b in a.split())


def corrected(facts: list[Fact], text: str, current: Callable[[], list[Any]]) -> list[Fact]:
    """The facts of one user turn (``text``) with its self-corrections applied (see the module doc): a fact taken
    back within the turn gets the value said instead; a correction of an earlier turn's claim (``current()``: the
    user's current fact memories, read only when the turn takes back nothing of its own) is a fact of that claim's
    slot with ``corrects`` set. Facts read from the correction's words are dropped. Never raises; ``facts`` as they
    are when the turn has no correction."""
    found = corrections(text)
    if not found:
        return facts
    out = list(facts)
    for c in found:
        inside = [f for f in out if c.start <= _at(text, f) < c.end or (c.wrong and _same(f.value, c.wrong))]
        before = [f for f in out if f not in inside and 0 <= _at(text, f) < c.start]
        took = ([f for f in before if c.wrong and _same(f.value, c.wrong)] or
                ([] if c.wrong else sorted(before, key=lambda f: _at(text, f))[-1:]))
        if took:  # within the turn: the value said instead replaces the one taken back
            f = took[-1]
            out = [x for x in out if x not in inside]  # (what the correction's own words were read as)
            start = _at(text, f)
            span = text[text.rfind("\n", 0, start) + 1:c.end].strip() if start >= 0 else f.source_span
            out[out.index(f)] = Fact.model_validate({**f.model_dump(), "value": c.right, "polarity": 1,
                                                     "source_span": span, "clause": span, "previous_value": f.value})
            continue
        claims = [m for m in current() if m.fact is not None and m.fact.polarity > 0 and m.valid_to is None and
                  not m.fact.attribute.startswith(("gone", "parted"))]
        if c.wrong:
            hit = [m for m in claims if _same(m.fact.value, c.wrong)]
        else:  # not named: the claim said last, when one was
            last = max((m.valid_from for m in claims), default=None)
            hit = [m for m in claims if m.valid_from == last]
        if len({m.fact.slot for m in hit}) != 1:
            continue  # none, or several slots: which one is taken back is not said
        old = max(hit, key=lambda m: m.valid_from)
        out = [x for x in out if x not in inside]
        said = text[c.start:c.end].strip(" ,，;；")
        words = next((s for s in split_sentences(text) if said in s), said)  # the sentence that says it
        out.append(Fact(entity=old.fact.entity, attribute=old.fact.attribute,
                        value=c.right, source_span=words, clause=words,
                        language="zh" if has_cjk(words) else "en", extractor="correction",
                        previous_value=old.fact.value, corrects=old.id))
    return out
