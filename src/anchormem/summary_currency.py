"""Summaries hold the current state: summary lines checked against the claims of the memories they quote.

Summary lines are verbatim sentences of stored turns (:mod:`anchormem.summaries`). A turn can be partly superseded
("I live in Lisbon and I work as a nurse…" after "I moved to Berlin."): its line keeps only the words that still
hold (:func:`anchormem.facts.claims.strip_spans`; a line with nothing left goes). The line of the turn that made
the change reads as a change: ``"I moved to Berlin last month. [Lisbon → Berlin, 2024-03]"`` (old value, new value,
the month it changed; a change scheduled for a date still ahead says so: ``[Leeds → Vancouver, planned: from
2024-04-01]``). The line of a turn the user answered again later with a new value of a slot it holds,
when the write path closed nothing (:func:`~anchormem.answering.recency.later_by_slot`), is marked as earlier:
``"earlier, before 2024-05-30: I live in Leeds."``. Used by session summaries and the user's rolled-up summary
(:mod:`anchormem.consolidate`).
"""

from __future__ import annotations

from typing import Any

from .answering.recency import earlier_line, later_by_slot
from .facts.claims import closed_claims, closing_words, month, schedule_note, strip_spans
from .text.tokenize import has_cjk
from .filters import parse_filters
from .types import MemoryItem, Scope

__all__ = ["current_lines", "closed_facts", "held_now"]


def held_now(store: Any, scope: Scope, now: Any) -> list[MemoryItem]:
    """The memories of ``scope`` that hold at ``now`` as search and ask read them: the current ones, and while a
    value is scheduled for a date still ahead (:func:`anchormem.facts.claims.scheduled_ahead`) also those it
    replaces (closed at that date, current until then)."""
    from .facts.claims import scheduled_ahead

    if not scheduled_ahead(store, scope, now):
        return store.list_memories(scope, None)
    return [m for m in store.list_memories(scope, None, include_superseded=True) if m.valid_to is None or
            m.valid_to > now]


def closed_facts(store: Any, scope: Scope) -> list[MemoryItem]:
    """The user's superseded fact memories (``kind="fact"`` with ``superseded_by`` set), oldest first."""
    user = Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id)
    rows = store.list_memories(user, parse_filters({"kind": "fact", "valid_to": {"exists": True}}),
                               include_superseded=True)
    return [m for m in rows if m.superseded_by]


def current_lines(lines: list[Any], items: list[MemoryItem], closed: list[MemoryItem]) -> list[Any]:
    """``lines`` (:class:`~anchormem.summaries.SummaryLine`) as the current state: each without the words of the
    closed claims of the current ``items`` quoting its message (dropped when nothing is left); the line quoting the
    memory that superseded a fact of ``closed`` marked with the change (``[old → new, YYYY-MM]``)."""
    cut: dict[str, list[str]] = {}
    for it in items:
        held = {c.span for c in it.claims if c.valid_to is None}
        for c in closed_claims(it):
            if c.span not in held:
                for mid in it.source_message_ids:
                    cut.setdefault(mid, []).append(closing_words(c))  # as every read path cuts it
    by_id = {it.id: it for it in items}
    change: dict[str, list[str]] = {}  # message id -> change notes
    for old in closed:
        new = by_id.get(old.superseded_by or "")
        if new is None or new.fact is None or old.fact is None or not new.source_message_ids:
            continue
        before = old.fact.value if old.fact.polarity > 0 else f"not {old.fact.value}"
        after = new.fact.value if new.fact.polarity > 0 else f"not {new.fact.value}"
        if before != after:  # (a change scheduled ahead: "[Leeds → Vancouver, planned: from 2024-04-01]")
            note = f"[{before} → {after}, {schedule_note(new, zh=has_cjk(new.text)) or month(new.valid_from)}]"
            notes = change.setdefault(new.source_message_ids[0], [])
            if note not in notes:
                notes.append(note)
    later: dict[str, MemoryItem] = {}  # message id -> the user's statement that answers its slot later
    for oid, n in later_by_slot(items).items():
        for mid in by_id[oid].source_message_ids:
            if mid not in n.source_message_ids and (mid not in later or n.created_at > later[mid].created_at):
                later[mid] = n
    out = []
    for ln in lines:
        text = strip_spans(ln.text, cut[ln.message_id]) if cut.get(ln.message_id) else ln.text
        if text is None:
            continue
        if ln.message_id in later and ln.message_id not in change:
            text = earlier_line(text, later[ln.message_id])  # never shown as current
        notes = [n for n in change.pop(ln.message_id, []) if n not in text]
        if notes:
            text = f"{text} {' '.join(notes)}"
        out.append(ln if text == ln.text else type(ln)(ln.section, text, ln.message_id, ln.speaker))
    return out
