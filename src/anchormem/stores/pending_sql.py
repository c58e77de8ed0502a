"""The deferred-enrichment queue: its schema on both engines (:func:`queue_ddl`) and the SQLite store's side of it
(the PostgreSQL store's: :mod:`.pending_pg`) (``Memory.add_many(enrich="later")``, :mod:`anchormem.enrich`).

A row stored with its enrichment deferred (its facts not yet extracted and reconciled) has a marker in
``enrich_queue``, written in the same transaction as the row, holding the turn's time as said (ISO 8601 with the
speaker's own UTC offset, which relative dates need and the stored UTC instant has lost). Enrichment later settles
markers in one transaction with its writes: the rows its plan keeps lose their marker, the rows it replaces (by
fact memories, or by the current memory a restatement matched) are deleted with their marker and their ``ADD``
history (they were never an event of the store's history: an eager ``add`` would not have written them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

__all__ = ["QUEUE_DDL", "SQLitePendingMixin", "carry_pending", "check_pending", "mark_pending", "queue_ddl",
           "settle_pending", "start_settle"]

def queue_ddl(dialect: str) -> list[str]:
    """The ``enrich_queue`` table and its indexes for ``dialect`` (``"sqlite"`` or ``"postgres"``): one marker per
    pending memory, going with its memory (``ON DELETE CASCADE``: a deleted or purged row, or a deleted user, takes
    its marker along), holding the user, the time said (ISO 8601, the speaker's offset) and the write's batch id.
    What differs: SQLite keys a marker by the memory's rowid; PostgreSQL by (tenant, user_id, memory id), with
    ``body``, the row's keyword-index text (its ``tsvector`` keeps only the lexemes, and the enrichment's fact
    memories reuse the text of the turn they repeat), and ``seq`` (write order), so its rows are distributable
    with the memories (Citus, :mod:`.pg_migrations`)."""
    if dialect == "sqlite":
        return [
            """CREATE TABLE enrich_queue (
        memory_rowid INTEGER PRIMARY KEY REFERENCES memories(rowid) ON DELETE CASCADE,
        tenant TEXT NOT NULL, user_id TEXT NOT NULL, said_at TEXT NOT NULL, batch TEXT NOT NULL)""",
            "CREATE INDEX ix_enrich_scope ON enrich_queue(tenant, user_id)",
            "CREATE INDEX ix_enrich_batch ON enrich_queue(batch)",
        ]
    return [
        """CREATE TABLE enrich_queue (
        tenant text NOT NULL, user_id text NOT NULL, memory_id text NOT NULL,
        said_at text NOT NULL, batch text NOT NULL, body text NOT NULL DEFAULT '',
        seq bigint GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (tenant, user_id, memory_id),
        FOREIGN KEY (tenant, user_id, memory_id) REFERENCES memories (tenant, user_id, id) ON DELETE CASCADE)""",
        "CREATE INDEX ix_enrich_batch ON enrich_queue (tenant, user_id, batch)",
    ]


QUEUE_DDL = queue_ddl("sqlite")  # SQLite v9 (released: never edit)


def mark_pending(c: sqlite3.Connection, rowid: int, tenant: str, user_id: str, said_at: str, batch: str) -> None:
    """The marker of one just-inserted row (in the writer's transaction); ``batch``: the write it came from (the
    rows of one ``add`` call are enriched together, as that call would have planned and labelled them)."""
    c.execute("INSERT OR REPLACE INTO enrich_queue VALUES (?,?,?,?,?)", (rowid, tenant, user_id, said_at, batch))


def check_pending(c: sqlite3.Connection, tenant: str, user_id: str, ids: list[str]) -> None:
    """First in an enrichment's write transaction (``BEGIN IMMEDIATE``: no writer between this and the commit):
    raise StaleWriteError unless every row of the batch (``ids``) is still pending: another worker settled it
    since, or it was deleted, and the batch is planned again from the queue as it is (each row enriched once)."""
    from ..errors import StaleWriteError

    want = sorted(set(ids))
    for i in range(0, len(want), 900):
        part = want[i:i + 900]
        n = c.execute(f"SELECT count(*) FROM enrich_queue q JOIN memories m ON m.rowid = q.memory_rowid WHERE "
                      f"m.tenant=? AND m.user_id=? AND m.id IN ({','.join('?' * len(part))})",
                      (tenant, user_id, *part)).fetchone()[0]
        if n != len(part):
            raise StaleWriteError(f"user {user_id!r}: rows of this enrichment batch were settled or deleted since "
                                  "it was planned")


def carry_pending(c: sqlite3.Connection, claims: Any, carriers: list[Any]) -> list[int]:
    """In the writer's transaction, before its new memories: the claims the plan made pending rows it keeps carry
    (:func:`anchormem.facts.claims.carry`: a kept turn carries its facts' claims, as ``add`` writes it), and the
    kept rows it closed (every claim closed, nothing else said) closed. Returns the closed rows' rowids."""
    closed: list[int] = []
    for it in carriers:
        claims.insert(c, it)
        if it.valid_to is not None:
            row = c.execute("SELECT rowid FROM memories WHERE tenant=? AND user_id=? AND id=? AND valid_to IS NULL",
                            (it.tenant, it.user_id, it.id)).fetchone()
            if row is not None:
                c.execute("UPDATE memories SET valid_to=?, superseded_by=? WHERE rowid=?",
                          (it.valid_to.timestamp(), it.superseded_by, row[0]))
                closed.append(row[0])
    return closed


def start_settle(c: sqlite3.Connection, claims: Any, settle: tuple) -> list[int]:
    """First in an enrichment's write transaction, ``settle`` as the write takes it (tenant, user_id, kept ids,
    retired ids, carriers, labels): :func:`check_pending` on its rows, then :func:`carry_pending`."""
    check_pending(c, settle[0], settle[1], list(settle[2]) + list(settle[3]))
    return carry_pending(c, claims, settle[4])


def settle_pending(c: sqlite3.Connection, tenant: str, user_id: str, kept: list[str], retired: list[str],
                   carriers: Any = (), labels: dict[str, list[Any]] | None = None) -> list[int]:
    """In the writer's transaction, after its new memories: ``kept`` rows lose their marker and take ``labels``
    (id → labels: as the eager add labels them, beside its fact memories); ``retired`` rows (still pending) are
    deleted with their marker, keyword entries, entities and ADD history (``carriers``: written by
    :func:`carry_pending`). Returns the deleted rowids."""
    from .schema import json_text

    c.executemany("UPDATE memories SET labels=? WHERE tenant=? AND user_id=? AND id=?",
                  [(json_text([lb.model_dump() for lb in labs]), tenant, user_id, mid)
                   for mid, labs in (labels or {}).items()])
    for ids in (kept, retired):
        for i in range(0, len(ids), 900):
            part = ids[i:i + 900]
            c.execute(f"DELETE FROM enrich_queue WHERE memory_rowid IN (SELECT rowid FROM memories WHERE tenant=? "
                      f"AND user_id=? AND id IN ({','.join('?' * len(part))}))", (tenant, user_id, *part))
    gone: list[int] = []
    for i in range(0, len(retired), 900):
        part = retired[i:i + 900]
        ph = ",".join("?" * len(part))
        gone += [r[0] for r in c.execute(f"SELECT rowid FROM memories WHERE tenant=? AND user_id=? AND id IN ({ph})",
                                         (tenant, user_id, *part))]
        c.execute(f"DELETE FROM memory_history WHERE tenant=? AND user_id=? AND event='ADD' AND memory_id IN ({ph})",
                  (tenant, user_id, *part))
    for i in range(0, len(gone), 900):
        part = gone[i:i + 900]
        ph = ",".join("?" * len(part))
        c.execute(f"DELETE FROM memory_entities WHERE memory_rowid IN ({ph})", part)
        c.execute(f"DELETE FROM memories_fts WHERE rowid IN ({ph})", part)
        c.execute(f"DELETE FROM memories WHERE rowid IN ({ph})", part)
    return gone


def pending_rows(c: sqlite3.Connection, cols: str, tenant: str, user_id: str, limit: int
                 ) -> list[tuple[tuple, str, str, datetime, bytes]]:
    """The pending rows of the user's write said first (the batch of its oldest pending row: created_at, then write
    order), in write order, at most ``limit``: each (memory row as ``cols`` selects it, its content hash, its
    keyword-index text, its time as said, its vector)."""
    mcols = ", ".join("m." + col.strip() for col in cols.split(","))
    first = c.execute("SELECT q.batch FROM enrich_queue q JOIN memories m ON m.rowid = q.memory_rowid WHERE "
                      "q.tenant=? AND q.user_id=? ORDER BY m.created_at, m.rowid LIMIT 1", (tenant, user_id)).fetchone()
    if first is None:
        return []
    rows = c.execute(
        f"SELECT {mcols}, m.content_hash, ifnull(f.body, ''), q.said_at, m.embedding FROM enrich_queue q "
        "JOIN memories m ON m.rowid = q.memory_rowid LEFT JOIN memories_fts f ON f.rowid = m.rowid "
        "WHERE q.batch=? AND q.tenant=? AND q.user_id=? ORDER BY m.rowid LIMIT ?",
        (first[0], tenant, user_id, limit)).fetchall()
    return [(r[:-4], r[-4], r[-3], datetime.fromisoformat(r[-2]), r[-1], first[0]) for r in rows]


def pending_counts(c: sqlite3.Connection, tenant: str, user_id: str | None) -> dict[str, int]:
    """{user_id: pending rows} of the tenant (of one user when given; users with none left out)."""
    if user_id is not None:
        n = c.execute("SELECT count(*) FROM enrich_queue WHERE tenant=? AND user_id=?", (tenant, user_id)).fetchone()
        return {user_id: n[0]} if n[0] else {}
    return {u: n for u, n in c.execute("SELECT user_id, count(*) FROM enrich_queue WHERE tenant=? GROUP BY user_id",
                                       (tenant,))}


class SQLitePendingMixin:
    """The store's reads of the queue (``SQLiteStore``)."""

    @contextmanager
    def enrich_lock(self, tenant: str, user_id: str, *, wait: bool = True) -> Iterator[bool]:
        """The enrichment's hold on the user's queue (:mod:`.pending_pg` has a lock): yields True. On SQLite the
        writers of a file serialise, and a batch another process settled first fails the generation check of the
        write, whose replan reads the queue as that process left it."""
        yield True

    def pending_rows(self, tenant: str, user_id: str, limit: int) -> list[tuple[Any, str, str, datetime, Any]]:
        """The pending rows of the user's write said first, at most ``limit``: (MemoryItem, content hash,
        keyword-index text, time as said, (dim,) float32 vector, the write's batch id)."""
        import numpy as np

        with self._tx(write=False) as c:  # type: ignore[attr-defined]
            rows = pending_rows(c, self._ROW_COLS, tenant, user_id, limit)  # type: ignore[attr-defined]
        items = self._items([r[0] for r in rows])  # type: ignore[attr-defined]
        return [(it, h, body, said, np.frombuffer(v, dtype=np.float32).copy(), batch)
                for it, (_, h, body, said, v, batch) in zip(items, rows)]

    def settled_recent(self, scope: Any, limit: int) -> list[Any]:
        """``recent_memories`` without the rows still pending: the newest current memories of a scope as an eager
        add would have left them before the batch being enriched (newest first)."""
        sql, params = self._filters.where(scope, None, None, live=True)  # type: ignore[attr-defined]
        return self._items(self._read(  # type: ignore[attr-defined]
            f"SELECT {self._ROW_COLS} FROM memories m WHERE {sql} AND m.rowid NOT IN "  # type: ignore[attr-defined]
            "(SELECT memory_rowid FROM enrich_queue) ORDER BY m.created_at DESC, m.rowid DESC LIMIT ?",
            params + [limit]))

    def warm_vectors(self, tenant: str, user_id: str) -> None:
        """Load the scope's vectors into the cache (HNSW past the threshold) so that the writes that follow keep
        them, and its index, in step (saved on close): a bulk import that searches nothing would otherwise leave
        the whole index to be built by the first search after it (minutes at 1M rows)."""
        if self.vectors is not None:  # type: ignore[attr-defined]
            key = (tenant, user_id)
            self.vectors.get(key, self._generation(*key), lambda: self._load_scope(*key))  # type: ignore

    def index_vectors(self, tenant: str, user_id: str) -> None:
        """Insert the scope's rows still queued for its HNSW index (the background indexer's backlog) now: the end of
        a bulk import, so that the index holds every row when it returns."""
        if self.vectors is not None:  # type: ignore[attr-defined]
            self.vectors.wait_indexed((tenant, user_id))  # type: ignore[attr-defined]

    def pending_counts(self, tenant: str, user_id: str | None = None) -> dict[str, int]:
        """{user_id: rows whose enrichment is pending} (users with none left out)."""
        with self._tx(write=False) as c:  # type: ignore[attr-defined]
            return pending_counts(c, tenant, user_id)

    def pending_ids(self, tenant: str, user_id: str) -> frozenset[str]:
        """The ids of the user's memories whose enrichment is pending."""
        return frozenset(r[0] for r in self._read(  # type: ignore[attr-defined]
            "SELECT m.id FROM enrich_queue q JOIN memories m ON m.rowid = q.memory_rowid WHERE q.tenant=? AND "
            "q.user_id=?", (tenant, user_id)))

    def has_pending(self, tenant: str, user_id: str) -> bool:
        """Whether the user has a row whose enrichment is pending (one indexed probe)."""
        return bool(self._read("SELECT 1 FROM enrich_queue WHERE tenant=? AND user_id=? LIMIT 1",  # type: ignore
                               (tenant, user_id)))
