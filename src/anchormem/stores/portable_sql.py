"""Exact row import for the SQL stores (``Store.import_rows``), mixed into :class:`.sqlite.SQLiteStore` and
:class:`.postgres.PostgresStore`; used by :mod:`anchormem.portable` to read an export back losslessly.

Unlike ``write``, rows go in exactly as given: ids, timestamps, ``updated_at``, ``access_count``, validity,
``superseded_by`` and the history rows of the export (no ``ADD`` row is made up). The derived indexes are built
as a write builds them: the keyword index (FTS5 row / ``tsv``) from ``NewMemory.index_text``, the entity table,
``metadata_keys``, and the scope generation (SQLite: the per-scope vector cache follows it; saved HNSW files
become stale and are rebuilt).

Conflicts: a memory id the target tenant already holds (a stored memory, or the history of a deleted one), a
message id it already holds, or a memory that duplicates a *current* memory of the user (same text, kind,
source and speaker: the stores' dedupe index). ``on_conflict="error"`` raises InvalidInputError naming the
first one and writes nothing; ``"skip"`` leaves those rows (and a skipped memory's history) out. On SQLite ids
are unique across the whole file, so an id held by another tenant of the same file is a conflict too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from ..timeutil import to_epoch, utcnow
from ..types import HistoryEntry, MemoryItem, ReviewItem
from .context_vectors import context_blob
from .protocol import REVIEW_COLUMNS, NewMemory, StoredMessage, review_row
from .schema import MEMORY_COLS, PG_JSON, SQLITE_JSON, json_text, memory_values, scope_token

__all__ = ["SQLitePortableMixin", "PostgresPortableMixin", "ON_CONFLICT"]

ON_CONFLICT = ("error", "skip")


def _check(tenant: str, messages: list[StoredMessage], memories: list[NewMemory], history: list[HistoryEntry],
           on_conflict: str) -> dict[str, list[HistoryEntry]]:
    """Validate the batch (tenant, unique ids, history of listed memories, unique versions); history by id."""
    if on_conflict not in ON_CONFLICT:
        raise InvalidInputError(f"on_conflict must be 'error' or 'skip', not {on_conflict!r}")
    seen: set[str] = set()
    for m in messages:
        if m.scope.tenant != tenant:
            raise InvalidInputError(f"message {m.id!r} is of tenant {m.scope.tenant!r}, not {tenant!r}")
        if m.id in seen:
            raise InvalidInputError(f"message id {m.id!r} is listed twice")
        seen.add(m.id)
    users: dict[str, str] = {}
    for nm in memories:
        if nm.item.tenant != tenant:
            raise InvalidInputError(f"memory {nm.item.id!r} is of tenant {nm.item.tenant!r}, not {tenant!r}")
        if nm.item.id in users:
            raise InvalidInputError(f"memory id {nm.item.id!r} is listed twice")
        if nm.supersedes:
            raise InvalidInputError(f"memory {nm.item.id!r}: import_rows takes validity as given, not supersedes")
        users[nm.item.id] = nm.item.user_id
    by_id: dict[str, list[HistoryEntry]] = {}
    for h in history:
        if h.memory_id not in users:
            raise InvalidInputError(f"history row of memory {h.memory_id!r}, which is not imported")
        rows = by_id.setdefault(h.memory_id, [])
        if any(r.version == h.version for r in rows):
            raise InvalidInputError(f"memory {h.memory_id!r} has version {h.version} twice in its history")
        rows.append(h)
    return by_id


_SKIP = "use on_conflict='skip', in the CLI --on-conflict skip, to leave existing ids as they are"


def _first_clash(messages: list[StoredMessage], memories: list[NewMemory], taken_msgs: set[str],
                 taken_mems: set[str]) -> None:
    for nm in memories:
        if nm.item.id in taken_mems:
            raise InvalidInputError(f"memory id {nm.item.id!r} already exists in the target store (nothing was "
                                    f"imported; {_SKIP})")
    for m in messages:
        if m.id in taken_msgs:
            raise InvalidInputError(f"message id {m.id!r} already exists in the target store (nothing was "
                                    f"imported; {_SKIP})")


def _duplicate(item: MemoryItem, existing: str | None) -> InvalidInputError:
    other = f"current memory {existing!r}" if existing else "another current memory"
    return InvalidInputError(f"memory {item.id!r} duplicates {other} of user {item.user_id!r} (same text, kind, "
                             f"source and speaker); nothing was imported ({_SKIP})")


def _import_reviews(c: Any, ph: str, tenant: str, reviews: list[ReviewItem], on_conflict: str,
                    counts: dict[str, int]) -> None:
    """Inside the import's transaction (``c``: a sqlite3 or psycopg connection, ``ph`` its placeholder): insert
    the review items as given (status, resolution and targets kept). An id the tenant already holds is a conflict
    (``"error"``: InvalidInputError, nothing written; ``"skip"``: left out and counted in ``skipped_reviews``),
    so importing the same export twice never queues a change twice."""
    counts["reviews"] = counts["skipped_reviews"] = 0
    seen: set[str] = set()
    for r in reviews:
        if r.tenant != tenant:
            raise InvalidInputError(f"review item {r.id!r} is of tenant {r.tenant!r}, not {tenant!r}")
        if r.id in seen:
            raise InvalidInputError(f"review item id {r.id!r} is listed twice")
        seen.add(r.id)
    for r in reviews:
        if c.execute(f"SELECT 1 FROM review_queue WHERE tenant={ph} AND id={ph}", (tenant, r.id)).fetchone():
            if on_conflict == "error":
                raise InvalidInputError(f"review item {r.id!r} already exists in the target store (nothing was "
                                        f"imported; {_SKIP})")
            counts["skipped_reviews"] += 1
            continue
        c.execute(f"INSERT INTO review_queue ({REVIEW_COLUMNS}) VALUES ({','.join([ph] * 11)})", review_row(r))
        counts["reviews"] += 1


def _chunks(ids: list[str], n: int = 900) -> list[list[str]]:
    return [ids[i : i + n] for i in range(0, len(ids), n)]


class SQLitePortableMixin:
    """``import_rows`` for the SQLite store (needs ``_tx``, ``_vec_blob``, ``_bump``, ``vectors``)."""

    _tx: Any
    _vec_blob: Callable[[np.ndarray], bytes]
    _bump: Callable[..., int]
    vectors: Any

    def import_rows(self, tenant: str, messages: list[StoredMessage], memories: list[NewMemory],
                    history: list[HistoryEntry], *, on_conflict: str = "error",
                    reviews: list[ReviewItem] | None = None) -> dict[str, int]:
        """Insert messages, memories (with vectors, keyword index, entities, metadata keys) and history rows
        exactly as given, and the review items ``reviews``, in one transaction. Returns counts: ``messages``,
        ``memories``, ``history``, ``entities``, ``reviews`` inserted; ``skipped_messages``, ``skipped_memories``,
        ``skipped_reviews``. Raises InvalidInputError (a conflict
        with ``on_conflict="error"``, a malformed batch), StoreError."""
        hist = _check(tenant, messages, memories, history, on_conflict)
        blobs = [self._vec_blob(nm.vector) for nm in memories]
        ctx = [context_blob(nm.context_vector, getattr(self, "dim", None)) for nm in memories]
        counts = dict.fromkeys(("messages", "memories", "history", "entities", "skipped_messages",
                                "skipped_memories"), 0)
        added: dict[tuple[str, str], list[tuple[int, np.ndarray]]] = {}
        gens: dict[tuple[str, str], int] = {}
        cols = MEMORY_COLS
        with self._tx() as c:
            taken_mems: set[str] = set()
            for ch in _chunks([nm.item.id for nm in memories]):
                ph = ",".join("?" * len(ch))
                taken_mems |= {r[0] for r in c.execute(f"SELECT id FROM memories WHERE id IN ({ph})", ch)}
                taken_mems |= {r[0] for r in c.execute(
                    f"SELECT memory_id FROM memory_history WHERE tenant=? AND memory_id IN ({ph})", [tenant, *ch])}
            taken_msgs: set[str] = set()
            for ch in _chunks([m.id for m in messages]):
                taken_msgs |= {r[0] for r in c.execute(
                    f"SELECT id FROM messages WHERE id IN ({','.join('?' * len(ch))})", ch)}
            if on_conflict == "error":
                _first_clash(messages, memories, taken_msgs, taken_mems)
            _import_reviews(c, "?", tenant, list(reviews or []), on_conflict, counts)
            now = utcnow().timestamp()
            for msg in messages:
                if msg.id in taken_msgs:
                    counts["skipped_messages"] += 1
                    continue
                s = msg.scope
                c.execute("INSERT INTO messages (id, tenant, user_id, agent_id, session_id, role, name, content, ts, "
                          "created_at, metadata) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                          (msg.id, s.tenant, s.user_id, s.agent_id, s.session_id, msg.role, msg.name, msg.content,
                           to_epoch(msg.ts), now, json_text(msg.metadata)))
                counts["messages"] += 1
            for nm, blob, cblob in zip(memories, blobs, ctx):
                it = nm.item
                if it.id in taken_mems:
                    counts["skipped_memories"] += 1
                    continue
                cur = c.execute(
                    f"INSERT OR IGNORE INTO memories ({cols}, content_hash, embedding, context_vec) "
                    f"VALUES ({','.join('?' * 32)})",
                    memory_values(it, SQLITE_JSON, imported=True) + (nm.content_hash, blob, cblob))
                if cur.rowcount == 0:  # the dedupe index: an identical current memory exists
                    if on_conflict == "error":
                        row = c.execute("SELECT id FROM memories WHERE tenant=? AND user_id=? AND "
                                        "ifnull(agent_id,'')=? AND kind=? AND source=? AND content_hash=? AND "
                                        "valid_to IS NULL",
                                        (it.tenant, it.user_id, it.agent_id or "", it.kind, it.source,
                                         nm.content_hash)).fetchone()
                        raise _duplicate(it, row[0] if row else None)
                    counts["skipped_memories"] += 1
                    continue
                rowid = cur.lastrowid
                counts["memories"] += 1
                c.execute("INSERT INTO memories_fts (rowid, scope, body) VALUES (?, ?, ?)",
                          (rowid, scope_token(it.tenant, it.user_id), nm.index_text))
                c.executemany("INSERT INTO memory_entities VALUES (?,?,?,?,?,?)",
                              [(rowid, it.tenant, it.user_id, e.type, e.value, e.normalized) for e in it.entities])
                counts["entities"] += len(it.entities)
                self._claims.insert(c, it)
                c.executemany("INSERT OR IGNORE INTO metadata_keys VALUES (?,?,?)",
                              [(it.tenant, it.user_id, k) for k in it.metadata])
                rows = sorted(hist.get(it.id, []), key=lambda h: h.version)
                c.executemany("INSERT INTO memory_history (memory_id, tenant, user_id, version, event, old_text, "
                              "new_text, actor, reason, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                              [(h.memory_id, tenant, it.user_id, h.version, h.event, h.old_text, h.new_text, h.actor,
                                h.reason, h.created_at.timestamp()) for h in rows])
                counts["history"] += len(rows)
                key = (it.tenant, it.user_id)
                if key not in gens:
                    gens[key] = self._bump(c, *key)
                if it.valid_to is None and it.tier == "warm":  # the cached vectors: current, warm rows
                    added.setdefault(key, []).append((rowid, np.asarray(nm.vector, dtype=np.float32), it.id))
        if self.vectors:
            for key, gen in gens.items():
                rows_ = added.get(key, [])
                self.vectors.apply(key, gen - 1, gen,
                                   added=(np.array([r[0] for r in rows_], dtype=np.int64),
                                          np.vstack([r[1] for r in rows_]), [r[2] for r in rows_]) if rows_ else None)
        return counts


class PostgresPortableMixin:
    """``import_rows`` for the PostgreSQL store (needs ``_run``, ``_vec``, ``_bump``, ``_TSV``)."""

    _run: Any
    _vec: Callable[[np.ndarray], np.ndarray]
    _bump: Callable[..., int]
    _TSV: str

    def import_rows(self, tenant: str, messages: list[StoredMessage], memories: list[NewMemory],
                    history: list[HistoryEntry], *, on_conflict: str = "error",
                    reviews: list[ReviewItem] | None = None) -> dict[str, int]:
        """Insert messages, memories (with vectors, ``tsv``, entities, metadata keys) and history rows exactly as
        given, and the review items ``reviews``, in one transaction. Returns counts: ``messages``, ``memories``,
        ``history``, ``entities``, ``reviews`` inserted; ``skipped_messages``, ``skipped_memories``,
        ``skipped_reviews``. Raises InvalidInputError (a conflict with
        ``on_conflict="error"``, a malformed batch), StoreError."""
        _json = PG_JSON.dump
        hist = _check(tenant, messages, memories, history, on_conflict)
        vecs = [self._vec(nm.vector) for nm in memories]
        ctx = [context_blob(nm.context_vector, getattr(self, "dim", None)) for nm in memories]

        def run(conn: Any) -> dict[str, int]:
            counts = dict.fromkeys(("messages", "memories", "history", "entities", "skipped_messages",
                                    "skipped_memories"), 0)
            for key in sorted({(nm.item.tenant, nm.item.user_id) for nm in memories}):  # writers' lock order
                self._bump(conn, *key)
            mem_ids = [nm.item.id for nm in memories]
            taken_mems = {r[0] for r in conn.execute(
                "SELECT id FROM memories WHERE tenant = %s AND id = ANY(%s) UNION "
                "SELECT memory_id FROM memory_history WHERE tenant = %s AND memory_id = ANY(%s)",
                (tenant, mem_ids, tenant, mem_ids)).fetchall()} if mem_ids else set()
            msg_ids = [m.id for m in messages]
            taken_msgs = {r[0] for r in conn.execute("SELECT id FROM messages WHERE tenant = %s AND id = ANY(%s)",
                                                     (tenant, msg_ids)).fetchall()} if msg_ids else set()
            if on_conflict == "error":
                _first_clash(messages, memories, taken_msgs, taken_mems)
            _import_reviews(conn, "%s", tenant, list(reviews or []), on_conflict, counts)
            now = utcnow().timestamp()
            for msg in messages:
                if msg.id in taken_msgs:
                    counts["skipped_messages"] += 1
                    continue
                s = msg.scope
                conn.execute(
                    "INSERT INTO messages (tenant, user_id, id, agent_id, session_id, role, name, content, ts, "
                    "created_at, metadata) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                    (s.tenant, s.user_id, msg.id, s.agent_id, s.session_id, msg.role, msg.name, msg.content,
                     to_epoch(msg.ts), now, _json(msg.metadata)))
                counts["messages"] += 1
            for nm, vec, cblob in zip(memories, vecs, ctx):
                it = nm.item
                if it.id in taken_mems:
                    counts["skipped_memories"] += 1
                    continue
                row = conn.execute(
                    f"INSERT INTO memories ({MEMORY_COLS}, content_hash, tsv, embedding, context_vec) VALUES "
                    f"({', '.join(['%s'] * 30)}, {self._TSV}, %s, %s) ON CONFLICT DO NOTHING RETURNING id",
                    memory_values(it, PG_JSON, imported=True) + (nm.content_hash, nm.index_text, nm.index_text, vec,
                                                                 cblob)).fetchone()
                if row is None:  # the dedupe index: an identical current memory exists
                    if on_conflict == "error":
                        other = conn.execute(
                            "SELECT id FROM memories WHERE tenant = %s AND user_id = %s AND coalesce(agent_id, '') = "
                            "%s AND kind = %s AND source = %s AND content_hash = %s AND valid_to IS NULL",
                            (it.tenant, it.user_id, it.agent_id or "", it.kind, it.source, nm.content_hash)
                        ).fetchone()
                        raise _duplicate(it, other[0] if other else None)
                    counts["skipped_memories"] += 1
                    continue
                counts["memories"] += 1
                self._claims.insert(conn, it)
                with conn.cursor() as cur:
                    if it.entities:
                        cur.executemany(
                            "INSERT INTO memory_entities (tenant, user_id, memory_id, type, value, normalized) "
                            "VALUES (%s,%s,%s,%s,%s,%s)",
                            [(it.tenant, it.user_id, it.id, e.type, e.value, e.normalized) for e in it.entities])
                        counts["entities"] += len(it.entities)
                    if it.metadata:
                        cur.executemany("INSERT INTO metadata_keys VALUES (%s,%s,%s) ON CONFLICT DO NOTHING",
                                        [(it.tenant, it.user_id, k) for k in it.metadata])
                    rows = sorted(hist.get(it.id, []), key=lambda h: h.version)
                    if rows:
                        cur.executemany(
                            "INSERT INTO memory_history (tenant, user_id, memory_id, version, event, old_text, "
                            "new_text, actor, reason, created_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                            [(tenant, it.user_id, h.memory_id, h.version, h.event, h.old_text, h.new_text, h.actor,
                              h.reason, h.created_at.timestamp()) for h in rows])
                        counts["history"] += len(rows)
            return counts

        return self._run(run)
