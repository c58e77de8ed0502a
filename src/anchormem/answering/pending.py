"""Changes held for review, shown where the value they would change is shown (``ask``, ``context()``).

A change to a sensitive slot (a phone number, an address) or one whose confidence differs is held for review
(:mod:`anchormem.facts.reconcile`): the current value stays current until it is approved. It is not hidden from
the reader, though: a memory that a pending review item targets (its own id, or a claim it carries) is shown with
a note, worded per language in ``data/lang/<lang>/answers.json`` ``pending_change`` ("a change to 555-0199 is
pending review", "改为555-0199的更改待审核").

Only where that slot is what is read: an answer to a question naming slots (:func:`asked_for`: "Where do I live?"
-> home_city) shows the note of a review of one of them; a memory cited for another slot that happens to carry the
reviewed claim too ("我住在杭州，在网易工作。" cited for the home, a change of the employer pending) shows none. With no
slot named (or for ``context()`` lines), a memory shows the note when the reviewed slot is all it states (a fact memory
of that slot, or a turn whose current claims are all of it).
"""

from __future__ import annotations

from typing import Any

from .. import langdata
from ..facts.addresses import is_address_slot
from ..text.tokenize import has_cjk
from ..types import Answer, MemoryItem, ReviewItem, as_citation

__all__ = ["pending_changes", "pending_note", "with_pending", "asked_for"]


def pending_changes(store: Any, tenant: str, user_id: str) -> list[ReviewItem]:
    """The user's pending review items (oldest first; every store keeps a review queue: ``Store.list_reviews``)."""
    return list(store.list_reviews(tenant, user_id, "pending"))


def asked_for(question: str) -> tuple[str, ...]:
    """The slot attributes ``question`` names (its own question words, or the user's slots it asks:
    :func:`~.slot_evidence.asked_user_slots`; "Where do I live?" -> ("home_city",)); () when it names none."""
    from .slot_evidence import asked_user_slots
    from .slot_questions import asked_slots

    return tuple(dict.fromkeys(asked_slots(question) + asked_user_slots(question)))


def _about(r: ReviewItem, m: MemoryItem, asked: tuple[str, ...]) -> bool:
    """Review item ``r`` is about what ``m`` is read for: its slot is one ``asked`` names; with none asked, its slot
    is all ``m`` states (``m``'s fact, or every current claim ``m`` carries). An item with no fact: always. An
    address (a move's new address targets the shipping and delivery addresses too) is about any address slot."""
    f = r.proposed.fact
    if f is None:
        return True
    if is_address_slot(f.attribute):  # a move's new address is held against every address slot it targets: the
        # note goes where an address is asked, or on a memory whose current words are an address only
        return any(is_address_slot(a) for a in asked) or \
            (m.fact is not None and is_address_slot(m.fact.attribute)) or \
            bool(m.claims) and all(is_address_slot(c.slot.split("|", 1)[-1]) for c in m.claims if c.valid_to is None)
    if asked:  # (a keyed slot by its head: allergy:peanut is read for "allergy"; a person's: sister_home_city)
        heads = {f.attribute, f.attribute.partition(":")[0]}
        return bool(heads & set(asked)) or any(h.endswith("_" + a) for h in heads for a in asked)
    if m.fact is not None:
        return m.fact.attribute == f.attribute
    return all(c.slot == f.slot for c in m.claims if c.valid_to is None)


def pending_note(m: MemoryItem, pending: list[ReviewItem], *, zh: bool,
                 asked: tuple[str, ...] = ()) -> str | None:
    """The note for ``m`` when a pending item targets it or a claim it carries (the newest such item's proposed
    value), in Chinese when ``zh``; None when none does, or none of those is about the slot read (``asked``: the
    question's slot attributes, :func:`asked_for`; see the module doc)."""
    ids = {m.id} | {c.fact_id for c in m.claims if c.valid_to is None}
    hit = [r for r in pending if ids & set(r.targets) and _about(r, m, asked)]
    if not hit:
        return None
    p = hit[-1].proposed  # a value, or for an ending ("I'm not allergic to peanuts any more") the words saying it
    value = p.fact.value if p.fact is not None and p.fact.value and p.fact.polarity > 0 else \
        (f"“{p.text}”" if zh else f'"{p.text}"')
    tpl = langdata.load("answers", "zh" if zh else "en").get("pending_change") or "{value}?"
    return tpl.format(value=value)


def with_pending(ans: Answer, store: Any, tenant: str, user_id: str, question: str) -> Answer:
    """``ans`` with the note of each cited memory a pending change of the slot asked targets appended to its text
    (" (a change to 555-0199 is pending review)", "（改为555-0199的更改待审核）") and to that citation's ``note``;
    ``ans`` itself when there is none or it abstained."""
    if ans.abstained or not ans.citations:
        return ans
    pending = pending_changes(store, tenant, user_id)
    if not pending:
        return ans
    zh = has_cjk(question)
    asked = asked_for(question)
    each = [pending_note(m, pending, zh=zh, asked=asked) for m in ans.citations]
    notes = list(dict.fromkeys(n for n in each if n))
    if not notes:
        return ans
    tail = "".join(f"（{n}）" for n in notes) if zh else "".join(f" ({n})" for n in notes)
    cites = [as_citation(m, "; ".join(x for x in (getattr(m, "note", None), n) if x)) if n else m
             for m, n in zip(ans.citations, each)]  # each citation's note says its pending change too
    return ans.model_copy(update={"text": ans.text + tail, "citations": cites})
