"""Ids that start with a given prefix, for the command line's shortened ids (``anchormem get 3193c6aa``).

Works on both SQL stores through their ``_read`` and ``_filters.param`` (the dialect's placeholder), as
:class:`.review_sql.ReviewReadMixin` does. Memory ids are looked up among stored memories and the history of
deleted ones (``anchormem history`` reads those); review ids in the review queue. Always within one tenant.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["ids_with_prefix", "all_ids"]

_PREFIX = " AND substr({col}, 1, length({ph})) = {ph}"
_SOURCES = {  # (sql, id column)
    "memory": (("SELECT id FROM memories WHERE tenant = {ph}", "id"),
               ("SELECT DISTINCT memory_id FROM memory_history WHERE tenant = {ph}", "memory_id")),
    "review": (("SELECT id FROM review_queue WHERE tenant = {ph}", "id"),),
}


def ids_with_prefix(store: Any, tenant: str, kind: Literal["memory", "review"], prefix: str,
                    limit: int = 20) -> list[str]:
    """The distinct ids of ``kind`` (``"memory"`` or ``"review"``) in ``tenant`` that start with ``prefix``,
    sorted, at most ``limit`` of them. Compares the exact characters (no wildcards, case-sensitive)."""
    ph = store._filters.param
    found: set[str] = set()
    for sql, col in _SOURCES[kind]:
        found |= {r[0] for r in store._read((sql + _PREFIX).format(ph=ph, col=col), (tenant, prefix, prefix))}
    return sorted(found)[:limit]


def all_ids(store: Any, tenant: str, kind: Literal["memory", "review"]) -> list[str]:
    """Every id of ``kind`` in ``tenant`` (memories: stored ones and deleted ones with history), sorted."""
    ph = store._filters.param
    found: set[str] = set()
    for sql, _ in _SOURCES[kind]:
        found |= {r[0] for r in store._read(sql.format(ph=ph), (tenant,))}
    return sorted(found)
