"""Changes held for review, shown where the value they would change is shown (``ask``, ``context()``).

A change to a sensitive slot (a phone number, an address) or one whose confidence differs is held for review
(:mod:`anchormem.facts.reconcile`): the current value stays current until it is approved. It is not hidden from
the reader, though: a memory that a pending review item targets (its own id, or a claim it carries) is shown with
a note, worded per language in ``data/lang/<lang>/answers.json`` ``pending_change`` ("a change to 555-0199 is
pending review", "改为555-0199的更改待审核").
"""

from __future__ import annotations

from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk
from ..types import Answer, MemoryItem, ReviewItem

__all__ = ["pending_changes", "pending_note", "with_pending"]


def pending_changes(store: Any, tenant: str, user_id: str) -> list[ReviewItem]:
    """The user's pending review items (oldest first; every store keeps a review queue: ``Store.list_reviews``)."""
    return list(store.list_reviews(tenant, user_id, "pending"))


def pending_note(m: MemoryItem, pending: list[ReviewItem], *, zh: bool) -> str | None:
    """The note for ``m`` when a pending item targets it or a claim it carries (the newest such item's proposed
    value), in Chinese when ``zh``; None when none does."""
    ids = {m.id} | {c.fact_id for c in m.claims if c.valid_to is None}
    hit = [r for r in pending if ids & set(r.targets)]
    if not hit:
        return None
    p = hit[-1].proposed  # a value, or for an ending ("I'm not allergic to peanuts any more") the words saying it
    value = p.fact.value if p.fact is not None and p.fact.value and p.fact.polarity > 0 else \
        (f"“{p.text}”" if zh else f'"{p.text}"')
    tpl = langdata.load("answers", "zh" if zh else "en").get("pending_change") or "{value}?"
    return tpl.format(value=value)


def with_pending(ans: Answer, store: Any, tenant: str, user_id: str, question: str) -> Answer:
    """``ans`` with the note of each cited memory a pending change targets appended to its text (" (a change to
    555-0199 is pending review)", "（改为555-0199的更改待审核）"); ``ans`` itself when there is none or it
    abstained."""
    if ans.abstained or not ans.citations:
        return ans
    pending = pending_changes(store, tenant, user_id)
    if not pending:
        return ans
    zh = has_cjk(question)
    notes = list(dict.fromkeys(n for m in ans.citations if (n := pending_note(m, pending, zh=zh))))
    if not notes:
        return ans
    tail = "".join(f"（{n}）" for n in notes) if zh else "".join(f" ({n})" for n in notes)
    return ans.model_copy(update={"text": ans.text + tail})
