"""The text a memory had at an earlier instant, read back from ``memory_history`` (both SQL stores).

``update`` rewrites a memory's row in place (text, embedding, keyword index) and records an ``UPDATE`` history
version with ``old_text``/``new_text`` and the instant of the edit (``created_at``). The text valid at ``as_of`` is
therefore the ``old_text`` of the first ``UPDATE`` after ``as_of``, or the current text when there is none. The
version also keeps the structured fields the memory had before the edit (``old_state``: fact slot, entities,
labels), so an ``as_of`` read shows that time's fields with that time's text (:meth:`PastTextMixin.past_states`);
metadata and the context vector are the current ones.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..filters import FilterNode
from ..types import Entity, FactSlot, Label, MemoryItem, Scope

__all__ = ["PastTextMixin", "memory_state", "state_fields", "BLANK_HISTORY"]

BLANK_HISTORY = "old_text = NULL, new_text = NULL, reason = NULL, old_state = NULL"  # what a purge blanks


def memory_state(fact: Any, labels: Any, entities: list[Entity]) -> str:
    """The JSON kept as ``old_state`` by an edit: a memory's fact slot, labels and entities before it."""
    to = (lambda x: json.loads(x) if isinstance(x, str) else x)
    return json.dumps({"fact": to(fact) if fact else None, "labels": to(labels) or [],
                       "entities": [e.model_dump() for e in entities]}, ensure_ascii=False)


def state_fields(state: dict[str, Any]) -> dict[str, Any]:
    """``old_state`` as :class:`~anchormem.types.MemoryItem` fields."""
    return {"fact": FactSlot.model_validate(state["fact"]) if state.get("fact") else None,
            "labels": [Label(**x) for x in state.get("labels") or []],
            "entities": [Entity(**x) for x in state.get("entities") or []]}


class PastTextMixin:
    """For a store with ``self._filters`` (a :class:`.sqlfilter.SQLiteFilterCompiler`) and ``self._read``."""

    def _edits_after(self, scope: Scope, where: FilterNode | None, as_of: datetime, column: str) -> list[Any]:
        """(memory id, ``memory_history.<column>``) of every UPDATE after ``as_of`` to a memory of ``scope`` visible
        at ``as_of``, by memory then version (oldest edit first)."""
        sql, params = self._filters.where(scope, where, as_of)  # type: ignore[attr-defined]
        ph = self._filters.param  # type: ignore[attr-defined]
        return self._read(  # type: ignore[attr-defined]
            f"SELECT m.id, h.{column} FROM memories m JOIN memory_history h ON h.tenant = m.tenant AND "
            f"h.memory_id = m.id WHERE {sql} AND h.event = 'UPDATE' AND h.created_at > {ph} "
            "ORDER BY m.id, h.version", [*params, as_of.timestamp()])

    def past_texts(self, scope: Scope, where: FilterNode | None, as_of: datetime) -> dict[str, str | None]:
        """{memory id: its text at ``as_of``} for the memories of ``scope`` visible at ``as_of`` (the rows
        ``list_memories(scope, where, as_of=as_of)`` returns) whose text was edited after ``as_of``; memories not
        edited since are left out. The value is None when that text was blanked by a purge or an import without
        history text. One query; cost grows with the scope's memories visible at ``as_of``. Raises StoreError."""
        rows = self._edits_after(scope, where, as_of, "old_text")
        out: dict[str, str | None] = {}
        for mid, old in rows:
            out.setdefault(mid, old)  # the first edit after as_of holds the text valid at as_of
        return out

    def past_states(self, scope: Scope, where: FilterNode | None, as_of: datetime) -> dict[str, dict[str, Any]]:
        """{memory id: the structured fields it had at ``as_of``} (``fact``, ``entities``, ``labels``, as
        :meth:`MemoryItem` fields) for the memories of ``scope`` edited after ``as_of`` whose edit kept them."""
        rows = self._edits_after(scope, where, as_of, "old_state")
        out: dict[str, dict[str, Any]] = {}
        first: set[str] = set()
        for mid, raw in rows:
            if mid in first:
                continue
            first.add(mid)
            if raw:
                out[mid] = state_fields(raw if isinstance(raw, dict) else json.loads(raw))
        return out

    def _keep_state(self, conn: Any, tenant: str, user_id: str, memory_id: str, before: MemoryItem) -> None:
        """Record on the memory's latest history version (the ``UPDATE`` just written) the structured fields it had
        before the edit (``before``), and its entities with their validity (``memory_entities_past``: entity
        filters ``as_of`` an earlier instant match them, :meth:`.sqlfilter.SQLiteFilterCompiler.entity_as_of`)."""
        ph = self._filters.param  # type: ignore[attr-defined]
        conn.execute(f"UPDATE memory_history SET old_state = {ph}{'::jsonb' if ph == '%s' else ''} WHERE tenant = "
                     f"{ph} AND user_id = {ph} AND memory_id = {ph} AND version = (SELECT max(version) FROM "
                     f"memory_history WHERE tenant = {ph} AND user_id = {ph} AND memory_id = {ph})",
                     (memory_state(before.fact and before.fact.model_dump(), [lb.model_dump() for lb in before.labels],
                                   before.entities), tenant, user_id, memory_id, tenant, user_id, memory_id))
        edits = [r[0] for r in conn.execute(
            f"SELECT created_at FROM memory_history WHERE tenant = {ph} AND user_id = {ph} AND memory_id = {ph} AND "
            "event = 'UPDATE' ORDER BY version DESC LIMIT 2", (tenant, user_id, memory_id)).fetchall()]
        for e in before.entities:  # valid from the previous edit (None: since written) to this one
            conn.execute(f"INSERT INTO memory_entities_past (tenant, user_id, memory_id, type, value, normalized, "
                         f"valid_from, valid_to) VALUES ({', '.join([ph] * 8)})",
                         (tenant, user_id, memory_id, e.type, e.value, e.normalized,
                          edits[1] if len(edits) > 1 else None, edits[0]))

    def _with_past_texts(self, items: list[MemoryItem], scope: Scope, where: FilterNode | None,
                         as_of: datetime) -> list[MemoryItem]:
        """``items`` (read with ``as_of``) with the text each had at ``as_of``; a memory whose text then is
        unknown (blanked) is left out."""
        past = self.past_texts(scope, where, as_of)
        if not past:
            return items
        states = self.past_states(scope, where, as_of)
        return [it if it.id not in past else it.model_copy(update={"text": past[it.id], "updated_at": None,
                                                                   **states.get(it.id, {})})
                for it in items if past.get(it.id, "") is not None]
