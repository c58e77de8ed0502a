"""The deferred-enrichment queue of the PostgreSQL store (``Memory.add_many(enrich="later")``, :mod:`anchormem.enrich`;
the table: :func:`.pending_sql.queue_ddl`, PostgreSQL schema v10). Same semantics as the SQLite store's
(:mod:`.pending_sql`): a marker written in the row's transaction, settled in the enrichment's; what differs is the
key (tenant, user, memory id) and the keyword-index text the marker keeps (``body``).

Concurrent enrichment (two workers, processes or hosts, draining one store): the rows of one user are enriched in
the order said, a write's batch after the batches said before it (its fact plan reads their facts), so the unit a
worker takes is the user, not the row: :meth:`PostgresPendingMixin.enrich_lock` holds a session advisory lock on
the user from before a batch's rows are read until its write has committed. A second worker's batch of that user
waits for it, then reads the queue as the first left it, so each row is enriched once. ``SKIP LOCKED`` on queue rows
would let the second worker plan the next batch before the facts of the first exist. ``wait=False`` returns at
once when another worker holds the user (``Memory.enrich`` over every user passes it by: that worker drains it).
A worker that dies releases the lock with its connection; its uncommitted batch stays queued.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import numpy as np

from .schema import json_text, memory_cols

__all__ = ["SETTLED", "PostgresPendingMixin", "carry_pending", "check_pending", "mark_pending", "settle_pending",
           "start_settle"]

_MCOLS = memory_cols("m")
SETTLED = (" AND NOT EXISTS (SELECT 1 FROM enrich_queue q WHERE q.tenant = m.tenant AND q.user_id = m.user_id AND "
           "q.memory_id = m.id)")  # a condition on ``memories m``: the row is not pending
_JOIN = "JOIN memories m ON m.tenant = q.tenant AND m.user_id = q.user_id AND m.id = q.memory_id"
# the user's advisory lock key: 64 bits of a hash of (tenant, user); a collision only makes two users' enrichments
# wait for each other
_HELD = threading.local()  # (store, tenant, user) locks this thread holds
_LOCK = "hashtextextended(%s, hashtextextended(%s, 7302770))"  # parameters: (user_id, tenant)


def mark_pending(conn: Any, marks: list[tuple[str, str, str, str, str, str]]) -> None:
    """The markers of just-inserted rows (in the writer's transaction, after the rows): each (tenant, user_id,
    memory id, time said, batch id, keyword-index text)."""
    if marks:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO enrich_queue (tenant, user_id, memory_id, said_at, batch, body) VALUES "
                "(%s,%s,%s,%s,%s,%s) ON CONFLICT (tenant, user_id, memory_id) DO UPDATE SET said_at = "
                "excluded.said_at, batch = excluded.batch, body = excluded.body", marks)


def check_pending(conn: Any, tenant: str, user_id: str, ids: list[str]) -> None:
    """First in an enrichment's write transaction: lock the markers of the batch's rows (``ids``) until the commit
    (a concurrent delete of one waits), and raise StaleWriteError unless every one is still pending (settled by
    another worker, or deleted, since the batch was planned: it is planned again from the queue as it is)."""
    from ..errors import StaleWriteError

    want = sorted(set(ids))
    got = conn.execute("SELECT memory_id FROM enrich_queue WHERE tenant = %s AND user_id = %s AND memory_id = "
                       "ANY(%s) ORDER BY memory_id FOR UPDATE", (tenant, user_id, want)).fetchall()
    if len(got) != len(want):
        raise StaleWriteError(f"user {user_id!r}: rows of this enrichment batch were settled or deleted since it "
                              "was planned")


def carry_pending(conn: Any, claims: Any, carriers: list[Any]) -> list[str]:
    """In the writer's transaction, before its new memories: the claims of the kept pending rows the plan made
    carry them, and those it closed closed (as :func:`.pending_sql.carry_pending`). Returns the closed ids."""
    closed: list[str] = []
    for it in carriers:
        claims.insert(conn, it)
        if it.valid_to is not None and conn.execute(
                "UPDATE memories SET valid_to = %s, superseded_by = %s WHERE tenant = %s AND user_id = %s AND id = %s "
                "AND valid_to IS NULL", (it.valid_to.timestamp(), it.superseded_by, it.tenant, it.user_id, it.id)
        ).rowcount:
            closed.append(it.id)
    return closed


def start_settle(conn: Any, claims: Any, settle: tuple) -> list[str]:
    """First in an enrichment's write transaction, ``settle`` as the write takes it (tenant, user_id, kept ids,
    retired ids, carriers, labels): :func:`check_pending` on its rows, then :func:`carry_pending`."""
    check_pending(conn, settle[0], settle[1], list(settle[2]) + list(settle[3]))
    return carry_pending(conn, claims, settle[4])


def settle_pending(conn: Any, tenant: str, user_id: str, kept: list[str], retired: list[str],
                   carriers: Any = (), labels: dict[str, list[Any]] | None = None,
                   context: dict[str, bytes | None] | None = None) -> set[str]:
    """In the writer's transaction, after its new memories: ``kept`` rows lose their marker and take ``labels``
    (and their stored ``context`` vector, when given: one new row version, one statement); ``retired`` rows are
    deleted with their marker, entities, claims and ADD history (as :func:`.pending_sql.settle_pending`). Returns
    the ids of ``context`` written."""
    ctx = context or {}
    ids = list(labels or {})
    if ids:
        conn.execute("UPDATE memories m SET labels = v.l::jsonb, context_vec = CASE WHEN v.c THEN v.b ELSE "
                     "m.context_vec END FROM unnest(%s::text[], %s::text[], %s::bool[], %s::bytea[]) AS v(id, l, c, b) "
                     "WHERE m.tenant = %s AND m.user_id = %s AND m.id = v.id",
                     (ids, [json_text([lb.model_dump() for lb in labels[i]]) for i in ids],  # type: ignore[index]
                      [i in ctx for i in ids], [ctx.get(i) for i in ids], tenant, user_id))
    conn.execute("DELETE FROM enrich_queue WHERE tenant = %s AND user_id = %s AND memory_id = ANY(%s)",
                 (tenant, user_id, list(kept) + list(retired)))
    if retired:
        _retire(conn, tenant, user_id, list(retired))
    return {i for i in ids if i in ctx}


def _retire(conn: Any, tenant: str, user_id: str, retired: list[str]) -> None:
    """Delete the retired pending rows with their history of being added, entities (claims and marker cascade)."""
    conn.execute("DELETE FROM memory_history WHERE tenant = %s AND user_id = %s AND event = 'ADD' AND "
                 "memory_id = ANY(%s)", (tenant, user_id, list(retired)))
    conn.execute("DELETE FROM memory_entities WHERE tenant = %s AND user_id = %s AND memory_id = ANY(%s)",
                 (tenant, user_id, list(retired)))
    conn.execute("DELETE FROM memories WHERE tenant = %s AND user_id = %s AND id = ANY(%s)",
                 (tenant, user_id, list(retired)))


class PostgresPendingMixin:
    """The store's reads of the queue and the enrichment's user lock (``PostgresStore``; needs ``_conn``,
    ``_read``, ``_items``, ``_select``, ``_filters``)."""

    def pending_rows(self, tenant: str, user_id: str, limit: int
                     ) -> list[tuple[Any, str, str, datetime, np.ndarray, str]]:
        """The pending rows of the user's write said first (the batch of its oldest pending row: created_at, then
        write order), in write order, at most ``limit``: (MemoryItem, content hash, keyword-index text, time as
        said, (dim,) float32 vector, the write's batch id)."""
        with self._conn() as conn:  # type: ignore[attr-defined]
            first = conn.execute(f"SELECT q.batch FROM enrich_queue q {_JOIN} WHERE q.tenant = %s AND q.user_id = %s "
                                 "ORDER BY m.created_at, m.seq LIMIT 1", (tenant, user_id)).fetchone()
            if first is None:
                return []
            rows = conn.execute(
                f"SELECT {_MCOLS}, m.content_hash, q.body, q.said_at, m.embedding FROM enrich_queue q {_JOIN} "
                "WHERE q.tenant = %s AND q.user_id = %s AND q.batch = %s ORDER BY m.seq LIMIT %s",
                (tenant, user_id, first[0], limit)).fetchall()
            items = self._items(conn, [r[:-4] for r in rows])  # type: ignore[attr-defined]
        return [(it, r[-4], r[-3], datetime.fromisoformat(r[-2]), np.asarray(
            r[-1].to_numpy() if hasattr(r[-1], "to_numpy") else r[-1], dtype=np.float32), first[0])
            for it, r in zip(items, rows)]

    def settled_recent(self, scope: Any, limit: int) -> list[Any]:
        """``recent_memories`` without the rows still pending (newest first)."""
        sql, params = self._filters.where(scope, None, None, live=True)  # type: ignore[attr-defined]
        return self._select(  # type: ignore[attr-defined]
            f"SELECT {_MCOLS} FROM memories m WHERE {sql}{SETTLED} ORDER BY m.created_at DESC, m.seq DESC LIMIT %s",
            params + [limit])

    def settled_dense_search(self, scope: Any, query: Any, k: int, where: Any, as_of: Any = None
                             ) -> list[tuple[str, float]]:
        """``dense_search`` without the rows still pending (an enrichment's fact plan: the turns of its batch and
        those said after them are never read against it)."""
        return self.dense_search(scope, query, k, where, as_of, settled=True)  # type: ignore[attr-defined]

    def pending_counts(self, tenant: str, user_id: str | None = None) -> dict[str, int]:
        """{user_id: rows whose enrichment is pending} (users with none left out)."""
        if user_id is not None:
            n = self._read("SELECT count(*) FROM enrich_queue WHERE tenant = %s AND user_id = %s",  # type: ignore
                           (tenant, user_id))[0][0]
            return {user_id: n} if n else {}
        return dict(self._read("SELECT user_id, count(*) FROM enrich_queue WHERE tenant = %s "  # type: ignore
                               "GROUP BY user_id", (tenant,)))

    def pending_ids(self, tenant: str, user_id: str) -> frozenset[str]:
        """The ids of the user's memories whose enrichment is pending."""
        return frozenset(r[0] for r in self._read(  # type: ignore[attr-defined]
            "SELECT memory_id FROM enrich_queue WHERE tenant = %s AND user_id = %s", (tenant, user_id)))

    def has_pending(self, tenant: str, user_id: str) -> bool:
        """Whether the user has a row whose enrichment is pending (one index probe)."""
        return bool(self._read("SELECT 1 FROM enrich_queue WHERE tenant = %s AND user_id = %s "  # type: ignore
                               "LIMIT 1", (tenant, user_id)))

    @contextmanager
    def enrich_lock(self, tenant: str, user_id: str, *, wait: bool = True) -> Iterator[bool]:
        """Hold the user's enrichment lock (module doc) for the block: yields True; with ``wait=False``, yields
        False at once (holding nothing) when another worker holds it. Re-entrant in one thread (the lock is a
        connection's: a nested hold on another connection would wait for itself). Raises StoreError."""
        held = _HELD.__dict__.setdefault("keys", set())
        key = (id(self), tenant, user_id)
        if key in held:
            yield True
            return
        with self._conn() as conn:  # type: ignore[attr-defined]  # a session lock: this connection, held
            got = conn.execute(f"SELECT {'pg_advisory_lock' if wait else 'pg_try_advisory_lock'}({_LOCK})",
                               (user_id, tenant)).fetchone()[0]
            if got is False:
                yield False
                return
            held.add(key)
            try:
                yield True
            finally:
                held.discard(key)
                conn.execute(f"SELECT pg_advisory_unlock({_LOCK})", (user_id, tenant))
