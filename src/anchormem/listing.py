"""``get_all(by_turn=True)``: one row per utterance, the facts drawn from it folded under it.

A turn that says more than one fact is kept verbatim (``kind="utterance"``) beside the fact memories drawn from
it (``kind="fact"``, each its own clause: the slot records that currency works on, :mod:`anchormem.facts.claims`).
Both are real memories, so a plain listing shows the sentence and its clauses. With ``by_turn`` a fact memory
that an utterance of the same listing carries (its id among the utterance's ``claims[].fact_id``) is left out of
the rows: it is still reachable from that utterance (``claims``, then ``Memory.get(fact_id)``), so nothing is
lost. A fact memory without such an utterance (a one-sentence turn stating one fact) is its own row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .types import MemoryItem, Scope

__all__ = ["fold_facts", "list_by_turn"]


def fold_facts(items: list[MemoryItem]) -> list[MemoryItem]:
    """``items`` (in order) without the fact memories a listed utterance carries."""
    carried = {c.fact_id for m in items if m.kind == "utterance" for c in m.claims}
    return [m for m in items if not (m.kind == "fact" and m.id in carried)]


def list_by_turn(store: Any, scope: Scope, where: Any, limit: int | None, offset: int, include_superseded: bool,
                 by_turn: bool, now: datetime | None = None) -> list[MemoryItem]:
    """``store.list_memories`` as :meth:`anchormem.Memory.get_all` pages it; with ``by_turn`` the whole listing is
    read, folded (:func:`fold_facts`), then paged (``offset``, ``limit`` count the folded rows). With ``now`` (a
    value is scheduled for a time still ahead: :func:`anchormem.facts.claims.scheduled_ahead`) the listing is read
    as of ``now``, as search and ask read it: a memory closed at a time still ahead (what a scheduled value
    replaces) is listed, current until then; the scheduled one is listed with ``state`` ``"scheduled"``."""
    if now is None and not by_turn:
        return store.list_memories(scope, where, limit=limit, offset=offset, include_superseded=include_superseded)
    rows = store.list_memories(scope, where, include_superseded=include_superseded or now is not None)
    if now is not None and not include_superseded:
        rows = [m for m in rows if m.valid_to is None or m.valid_to > now]
    rows = fold_facts(rows) if by_turn else rows
    return rows[offset:] if limit is None else rows[offset:offset + limit]
