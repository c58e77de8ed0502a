"""Values of the past told as a state: they replace nothing (read by :mod:`.reconcile`).

"Before Shanghai I lived in Nanjing", "rent was 3500 there", 以前在南京的时候房租才3500 state a value that already
ended (:func:`~anchormem.facts.aspect.past_state`), unlike a change told in the past ("I moved to Berlin", "My rent
went up to 1400", 搬到了杭州): such a fact is stored already closed, held until the oldest current value of its slot,
and a turn telling a past state besides a value it restates keeps its words.

    past_value(Fact(..., value="3500", clause="rent was 3500 there."), slot)   # -> True
"""

from __future__ import annotations

from ..text.clause_time import split_clauses
from ..types import FactSlot
from .aspect import past_state
from .model import Fact

__all__ = ["past_value", "past_besides"]


def past_value(f: Fact, slot: FactSlot) -> bool:
    """Fact ``f`` (of ``slot``) states a value of the past as a state: the clause of its words holding the value
    (:attr:`Fact.clause`, else its sentence) reads as one (:func:`~anchormem.facts.aspect.past_state`) with the value
    after its state verb. False for a change told in the past, an ending (polarity -1, ``ends``) and for a present
    statement."""
    if slot.polarity < 0 or f.ends:  # an ending ("Friday was my last shift") is a change
        return False
    said = f.clause or f.source_span
    pieces = [p for p in split_clauses(said) if slot.value.casefold() in p.casefold()] or [said]
    return past_state(pieces[0], sentence=f.source_span, value=slot.value)


def past_besides(f: Fact, slot: FactSlot) -> bool:
    """The words of fact ``f`` tell a past state that does not govern ``f``'s value ("I lived in Nanjing for three
    years before moving to Hangzhou" restating Hangzhou): the turn says more than the value it restates."""
    said = f.clause or f.source_span
    return past_state(said, sentence=f.source_span) and not past_state(said, sentence=f.source_span, value=slot.value)
