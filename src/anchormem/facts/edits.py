"""The fact an edited fact memory states: ``Memory.update`` re-reads the new text with the readers ``add`` uses.

A fact memory's slot follows its text. When its text is replaced (``Memory.update``), the new text is read by the
same offline readers a user turn goes through on ``add`` (:mod:`.rules` with the place reader, the job reader
:mod:`.jobs`, the quantity reader :mod:`.quantities`), each reading checked against the new text
(:func:`~anchormem.facts.grounding.check_support`), with the memory's own old claim as the context a bare value is
read against. The slot kept is the old one when the new text still states it, else the first stated. When no reader
finds a slot, a new text holding one value of the old value's type (:func:`~anchormem.facts.typed_values.clause_values`:
an amount of the same unit class, a count of the same thing, a name) keeps the old slot with that value: a value read
by the change reader on ``add`` ("健身房涨价了，现在一个月399" after "我的健身房月费是299块") is edited the same way
("健身房现在一个月459了": the gym fee, now 459). None when the new text states no fact (what the memory had superseded
may then hold again: the store's ``set_fact``).
"""

from __future__ import annotations

from ..types import FactSlot, MemoryItem
from .jobs import job_facts, merge_job_facts
from .model import Fact
from .places import with_places
from .quantities import merge_quantity_facts, quantity_facts
from .turn_readers import grounded, grounded_jobs
from .rules import extract_from_text
from .typed_values import clause_values

__all__ = ["edited_fact"]


def edited_fact(text: str, old: MemoryItem) -> FactSlot | None:
    """The slot ``text`` states as the new text of the fact memory ``old`` (module doc); None when it states none.
    Never raises for text ``Memory.update`` accepted."""
    entity = old.fact.entity if old.fact else (old.speaker or "user")
    found: list[Fact] = with_places(extract_from_text)(text, entity=entity)
    own = [old] if old.fact is not None else []
    jobs = job_facts(text, entity=entity, current=lambda a: [o for o in own if o.fact.attribute == a])
    found = merge_job_facts(found, grounded_jobs(jobs, text, old.speaker))  # the checks add applies
    found = merge_quantity_facts(found, grounded(quantity_facts(text, entity=entity, claims=lambda: own), text,
                                                 old.speaker))
    pick = next((f for f in found if old.fact and f.attribute == old.fact.attribute), found[0] if found else None)
    if pick is None:
        return _same_kind(text, old.fact)
    return FactSlot(entity=pick.entity, attribute=pick.attribute, value=pick.value, polarity=pick.polarity,
                    extractor=pick.extractor or "rules")


def _same_kind(text: str, fact: FactSlot | None) -> FactSlot | None:
    """``fact``'s slot with the one value of ``text`` of its value's type, or None (none, or several)."""
    if fact is None:
        return None
    was = clause_values(fact.value)
    if len(was) != 1:
        return None
    now = [v for v in clause_values(text) if v.compatible(was[0])]
    if len(now) != 1:
        return None
    return fact.model_copy(update={"value": now[0].value})
