"""Value shapes: a question asking for a value of a known shape is answered only by a memory holding one.

"What is my email address?" asks for an email address: a memory answers it only when it holds one (``x@y.z``) or
states a claim on the user's email slot ("I stopped using my Gmail": a statement about that slot). A postal
address, a subscription or a courier preference shares words or meaning with the question but answers nothing,
so ``ask`` abstains instead of quoting it. The kinds and their patterns are language data:

- ``shape_questions`` of ``data/lang/<lang>/answers.json``: {kind: question patterns, case-insensitive} (``email``,
  ``phone`` for a phone number, ``address`` for a postal address, ``self_name`` for the asker's own name: "Who am
  I?", 我叫什么？);
- ``value_shapes`` of the same files: {kind: value patterns, case-sensitive (a ``(?i:...)`` part is case-free)}:
  ``a@b.co``, seven or more digits, "12 Oak Street", 文三路88号, "I'm Carol", 我叫王芳;
- ``shape_slots`` of ``data/slot_concepts.json`` (language-neutral): {kind: slot attributes, regular expressions
  matched whole}: a memory whose fact, or one of its current claims, is on such a slot is about that slot.

The patterns of every language are joined (a question in Chinese may be answered by an English memory). A question
asking for several kinds is answered by a memory holding any of them.

    asked_shapes("What is my email address?")          # -> frozenset({"email"})
    holds_asked_shape({"email"}, memory)               # -> False for "My shipping address is 12 Oak Street"
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from .. import langdata

__all__ = ["asked_shapes", "holds_shape", "about_shape_slot", "holds_asked_shape", "in_shape", "shape_covers"]


def _joined(pats: list[str], flags: int) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in pats) or "(?!)", flags)


@lru_cache(maxsize=1)
def _data() -> tuple[dict[str, re.Pattern[str]], dict[str, re.Pattern[str]], dict[str, re.Pattern[str]]]:
    """(question patterns, value patterns, slot patterns) per kind, every language joined."""
    asks: dict[str, list[str]] = {}
    shapes: dict[str, list[str]] = {}
    for lang in langdata.LANGUAGES:
        data = langdata.load("answers", lang)
        for kind, ps in (data.get("shape_questions") or {}).items():
            asks.setdefault(kind, []).extend(ps)
        for kind, ps in (data.get("value_shapes") or {}).items():
            shapes.setdefault(kind, []).extend(ps)
    concepts = json.loads(resources.files("anchormem.data").joinpath("slot_concepts.json").read_text("utf-8"))
    slots = {k: re.compile("|".join(f"(?:{p})" for p in ps) or "(?!)")
             for k, ps in (concepts.get("shape_slots") or {}).items()}
    return ({k: _joined(ps, re.I) for k, ps in asks.items()}, {k: _joined(ps, 0) for k, ps in shapes.items()}, slots)


def asked_shapes(question: str) -> frozenset[str]:
    """The value shapes ``question`` asks for (``shape_questions``): "What's my phone number?" -> {"phone"},
    我的收货地址是什么？ -> {"address"}, "Who am I?" -> {"self_name"}; empty for most questions ("Where do I live?")."""
    return frozenset(k for k, rx in _data()[0].items() if rx.search(question))


def holds_shape(kind: str, text: str) -> bool:
    """``text`` holds a value of shape ``kind`` (``value_shapes``); False for a kind without patterns."""
    rx = _data()[1].get(kind)
    return rx is not None and bool(rx.search(text))


def about_shape_slot(kind: str, memory: Any) -> bool:
    """``memory``'s fact, or one of its current claims, is on a slot of ``kind`` (``shape_slots``): a statement
    about that slot, whatever its words."""
    rx = _data()[2].get(kind)
    if rx is None:
        return False
    attrs = [memory.fact.attribute] if getattr(memory, "fact", None) is not None else []
    attrs += [c.slot.partition("|")[2] for c in getattr(memory, "claims", ()) or () if c.valid_to is None]
    return any(rx.fullmatch(a.partition(":")[0]) for a in attrs)


def holds_asked_shape(kinds: frozenset[str] | set[str], memory: Any, stated: str | None = None) -> bool:
    """``memory`` answers a question asking for ``kinds`` (:func:`asked_shapes`) by shape: it holds a value of one
    of them (in ``stated``, the words it states, default its text) or is about one of their slots. True when
    ``kinds`` is empty (the question asks for no shape)."""
    if not kinds:
        return True
    text = memory.text if stated is None else stated
    return any(holds_shape(k, text) or about_shape_slot(k, memory) for k in kinds)


def in_shape(ans: Any, question: str) -> Any:
    """``ans`` (an :class:`~anchormem.types.Answer`) citing only the memories that hold a value of the shape
    ``question`` asks for, or are about its slot (:func:`holds_asked_shape`), whichever path cited them (the
    evidence test, the slot's claims, the latest statement, the successor of a change); an abstention when none
    does ("What is my email address?" with only a postal address on record: no record). ``ans`` unchanged when the
    question asks for no shape, it abstained, or every citation holds one; the kept citations re-quoted otherwise."""
    kinds = asked_shapes(question)
    if not kinds or ans.abstained:
        return ans
    kept = [c for c in ans.citations if holds_asked_shape(kinds, c)]
    from .extractive import with_citations

    return with_citations(ans, question, kept)


def shape_covers(question: str, term: str, stated: str) -> bool:
    """The question's key ``term`` is one of the words that ask for a shape ("email", "phone", "number", "address",
    "name", 邮箱, 地址: inside a ``shape_questions`` match) and ``stated`` holds a value of that shape: "Reach me at
    carol@example.org" covers "email" and "address" of "What is my email address?", whatever its words, as an
    amount covers "cost" (:mod:`.amounts`)."""
    t = term.casefold()
    for kind, rx in _data()[0].items():
        if any(t in m.group(0).casefold() for m in rx.finditer(question)) and holds_shape(kind, stated):
            return True
    return False
