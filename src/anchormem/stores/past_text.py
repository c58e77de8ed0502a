"""The text a memory had at an earlier instant, read back from ``memory_history`` (both SQL stores).

``update`` rewrites a memory's row in place (text, embedding, keyword index) and records an ``UPDATE`` history
version with ``old_text``/``new_text`` and the instant of the edit (``created_at``). The text valid at ``as_of`` is
therefore the ``old_text`` of the first ``UPDATE`` after ``as_of``, or the current text when there is none. Only
the text is historical: labels, entities, the fact slot, metadata and the context vector are the current ones.
"""

from __future__ import annotations

from datetime import datetime

from ..filters import FilterNode
from ..types import MemoryItem, Scope

__all__ = ["PastTextMixin"]


class PastTextMixin:
    """For a store with ``self._filters`` (a :class:`.sqlfilter.SQLiteFilterCompiler`) and ``self._read``."""

    def past_texts(self, scope: Scope, where: FilterNode | None, as_of: datetime) -> dict[str, str | None]:
        """{memory id: its text at ``as_of``} for the memories of ``scope`` visible at ``as_of`` (the rows
        ``list_memories(scope, where, as_of=as_of)`` returns) whose text was edited after ``as_of``; memories not
        edited since are left out. The value is None when that text was blanked by a purge or an import without
        history text. One query; cost grows with the scope's memories visible at ``as_of``. Raises StoreError."""
        sql, params = self._filters.where(scope, where, as_of)  # type: ignore[attr-defined]
        ph = self._filters.param  # type: ignore[attr-defined]
        rows = self._read(  # type: ignore[attr-defined]
            f"SELECT m.id, h.old_text FROM memories m JOIN memory_history h ON h.tenant = m.tenant AND "
            f"h.memory_id = m.id WHERE {sql} AND h.event = 'UPDATE' AND h.created_at > {ph} "
            "ORDER BY m.id, h.version", [*params, as_of.timestamp()])
        out: dict[str, str | None] = {}
        for mid, old in rows:
            out.setdefault(mid, old)  # the first edit after as_of holds the text valid at as_of
        return out

    def _with_past_texts(self, items: list[MemoryItem], scope: Scope, where: FilterNode | None,
                         as_of: datetime) -> list[MemoryItem]:
        """``items`` (read with ``as_of``) with the text each had at ``as_of``; a memory whose text then is
        unknown (blanked) is left out."""
        past = self.past_texts(scope, where, as_of)
        if not past:
            return items
        return [it if it.id not in past else it.model_copy(update={"text": past[it.id], "updated_at": None})
                for it in items if past.get(it.id, "") is not None]
