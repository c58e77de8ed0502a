"""The embedded store: one SQLite file in WAL mode holding messages, memories (text, float32 vector blobs,
labels, metadata, provenance), entities, history and an FTS5 keyword index (Chinese pre-segmented by jieba).

Vector search runs over a per-scope in-memory matrix kept in step with writes (see :mod:`.vectors`).
Each thread gets its own connection; writers serialise with ``BEGIN IMMEDIATE``; exact duplicates are stopped
by a unique index, so concurrent identical adds yield one row. ``":memory:"`` is a named ``memdb`` database
(one per store, shared by its connections, at most 1 GiB) with ordinary file locks, so a busy connection waits
(``busy_timeout``) as on a file.

Forgetting (``purge=True``): every connection runs with ``PRAGMA secure_delete = ON`` (deleted rows and freed
pages are overwritten with zeros); a purge also merges the FTS5 index into one segment (``'optimize'``; FTS5
keeps deleted terms in old segments until they are merged), deletes the scope's saved HNSW index file (rebuilt from
the database on the next search) and then checkpoints the WAL with ``TRUNCATE``. Once
that checkpoint completes, the purged text (and the vault rows deleted with ``vault_delete``) is in neither the
database file nor its ``-wal`` file. If another connection holds a read transaction the checkpoint cannot
finish; a warning is logged and the old pages stay in the WAL until the next checkpoint. Copies outside the file
(backups, file-system snapshots, a disk's remapped sectors) are out of reach.

Reads of a plaintext file go through a memory map (``PRAGMA mmap_size``, :data:`MMAP_BYTES`): a search reads a few
hundred scattered rows, each a page the small page cache rarely holds; mapped, a page costs no ``read()`` and copy
(the operating system's shared, evictable file cache). Not for an encrypted file (SQLCipher decrypts each page).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..tracing import staged
from ..errors import ConfigError, ConflictError, EmbedderMismatchError, InvalidInputError, NotFoundError, StoreError
from ..filters import FilterNode, names_field, without_any_validity
from ..timeutil import to_epoch, utcnow
from ..validate import unstorable
from ..types import Entity, FactSlot, Label, MemoryItem, Scope
from .context_vectors import SQLiteContextMixin, blob_vector, context_blob
from .claims_sql import ClaimsSQL, SQLiteRetractMixin
from .sessions_sql import keep_restated
from .pending_sql import SQLitePendingMixin, mark_pending, settle_pending, start_settle
from .migrations import LATEST, MIGRATIONS
from .pii_vault import SQLiteVaultMixin
from .portable_sql import SQLitePortableMixin
from .review_sql import SQLiteReviewMixin
from .row_reads import SQLiteRowReadsMixin
from .protocol import (MESSAGE_COLUMNS, NewMemory, StoredMessage, WriteResult, cite_turn, message_dicts,
                       restating_turns)
from .schema import (MEMORY_COLS, SQLITE_JSON, correction_mark, correction_note, epoch as _ep, json_text, memory_item,
                     memory_values, scope_token)
from .sql_common import SQLCommonMixin
from . import sqlcipher
from .sqlcipher import EncryptionKey
from .sqlite_conn import MMAP_BYTES, open_connection  # noqa: F401  (MMAP_BYTES: named in the module doc)
from .generation import SQLiteGenerationMixin
from .keyword_sqlite import SQLiteKeywordMixin
from .past_text import BLANK_HISTORY, PastTextMixin
from .sqlfilter import SQLiteFilterCompiler
from .tiers_sql import SQLiteTierMixin
from .vectors import DEFAULT_ANN_THRESHOLD, VectorCache
from .durability import sqlite_synchronous
from .store_secret import SQLiteSecretMixin
from .touches import SQLiteTouchMixin, pending_for
from ..private_files import check_folder, private_file

__all__ = ["SQLiteStore"]

log = logging.getLogger(__name__)

# cite a turn (parameters of protocol.cite_turn): append its id unless the memory cites it already
_CITE = ("UPDATE memories SET source_message_ids=json_insert(source_message_ids, '$[#]', ?) WHERE tenant=? AND "
         "user_id=? AND id=? AND NOT EXISTS (SELECT 1 FROM json_each(memories.source_message_ids) WHERE value=?)")
_COLS = "rowid, " + MEMORY_COLS  # a memory row (schema.MEMORY_COLUMNS) led by its rowid


class SQLiteStore(SQLiteVaultMixin, SQLitePortableMixin, SQLiteTierMixin, SQLiteGenerationMixin, SQLiteContextMixin,
                  PastTextMixin, SQLiteReviewMixin, SQLiteSecretMixin, SQLiteKeywordMixin, SQLiteRowReadsMixin,
                  SQLitePendingMixin, SQLCommonMixin, SQLiteRetractMixin, SQLiteTouchMixin):
    """Embedded store. ``path``: a file path or ``":memory:"``. ``dim`` is fixed by the embedder.
    ``encryption_key``: open the file with SQLCipher (str passphrase, 64 hex characters or 32 bytes; see
    :mod:`.sqlcipher`); needs ``anchormem[encryption]`` and a file path. Saved HNSW index files (plaintext) are
    not written for an encrypted store. ``durability``: ``"full"`` or ``"normal"`` (:mod:`.durability`).

    Raises StoreError when the file cannot be opened or migrated, ConfigError for a key on a plaintext file, no
    key or a wrong key on an encrypted one, a missing SQLCipher binding, or a folder that does not exist
    (:func:`~anchormem.private_files.check_folder`: only the default database's folder is created).
    """

    _P, _SEQ, _SAME = "?", "rowid", "IS"  # the dialect of .sql_common
    _ROW_COLS = _COLS  # a memory row led by its rowid (.row_reads)

    def __init__(self, path: str | Path, *, ann_threshold: int = DEFAULT_ANN_THRESHOLD,
                 encryption_key: EncryptionKey | str | bytes | None = None, durability: str = "full") -> None:
        self.path, self._sync = str(path), sqlite_synchronous(durability)
        self._memory = self.path == ":memory:"
        self._key = None if encryption_key is None else EncryptionKey(encryption_key)
        self._db_errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
        if self._key is not None:
            if self._memory:
                raise ConfigError("encryption at rest needs a database file, not ':memory:'")
            self._db_errors += sqlcipher.errors()  # ConfigError naming the extra when the binding is missing
        if not self._memory:
            sqlcipher.check_file(self.path, self._key)
        if self._memory and sqlite3.sqlite_version_info >= (3, 36):
            # memdb, not shared cache: its table locks fail at once (SQLITE_LOCKED, no busy wait)
            self._uri = f"file:/anchormem-{uuid.uuid4().hex}?vfs=memdb"
        elif self._memory:  # SQLite before 3.36 has no memdb VFS: shared cache (threads may lose access counts)
            self._uri = f"file:anchormem-{uuid.uuid4().hex}?mode=memory&cache=shared"
        else:
            p = Path(self.path).expanduser()
            check_folder(p)
            try:
                private_file(p)  # 0600 (its -wal/-shm get the same mode), new folders 0700
            except OSError as exc:
                raise StoreError(f"cannot create SQLite database {self.path!r}: {exc}") from exc
            self._uri = p.resolve().as_uri() + "?mode=rwc"
        self._touches = pending_for(self._uri)  # searches' access-count bumps, written in batches (.touches)
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()
        self._closed = False
        self._ann_threshold = ann_threshold
        self.vectors: VectorCache | None = None
        self.dim: int | None = None
        self._filters = SQLiteFilterCompiler()
        self._claims = ClaimsSQL("?")
        self._rowid_ids: dict[tuple[str, str], tuple[int, dict[int, str]]] = {}  # .row_reads
        self._recent_rowids: dict[str | None, int] = {}  # .row_reads: id -> rowid hints for get_many
        self._rank_cache: dict[tuple[str, str], tuple[int, dict]] = {}  # .row_reads: rank rows kept per scope
        self._keepalive = self._conn()  # keeps a shared in-memory database alive
        self._migrate()
        self._open_keywords(self.path, self.store_id, self._memory, self._key is not None)

    # ---------------------------------------------------------------- connections and transactions
    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError("the store is closed")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = open_connection(self._uri, self.path, self._key, self._memory, self._sync, self._db_errors)
            self._local.conn = conn
            with self._conns_lock:
                self._conns.append(conn)
        return conn

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        if self._touches:  # the searches' pending access counts go first (.touches)
            self._flush_touches()
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except self._db_errors as exc:
            raise StoreError(f"SQLite error: {exc}") from exc
        except (UnicodeEncodeError, OverflowError) as exc:  # a value the driver cannot bind: the caller's input
            raise unstorable(exc) from exc

    def _read(self, sql: str, params: Any = (), *, overlay: bool = False) -> list[sqlite3.Row]:
        """The rows of one query. A query naming the access columns writes the pending access counts first
        (:mod:`.touches`), unless ``overlay``: the caller adds them itself (:meth:`_pending_counts`)."""
        if not overlay and self._touches:
            self._flush_for(sql)
        try:
            return self._conn().execute(sql, params).fetchall()
        except self._db_errors as exc:
            raise StoreError(f"SQLite error: {exc}") from exc
        except (UnicodeEncodeError, OverflowError) as exc:
            raise unstorable(exc) from exc

    def _migrate(self) -> None:
        with self._tx() as c:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if version > LATEST:
                raise StoreError(f"database schema v{version} is newer than this anchormem (v{LATEST}); upgrade")
            for v, statements in MIGRATIONS:
                if v > version:
                    for sql in statements:
                        c.execute(sql)
                    c.execute(f"PRAGMA user_version = {v}")
            c.execute("INSERT OR IGNORE INTO meta VALUES ('store_id', ?)", (uuid.uuid4().hex,))
            self.store_id = c.execute("SELECT value FROM meta WHERE key='store_id'").fetchone()[0]
            row = c.execute("SELECT value FROM meta WHERE key='embedder_dim'").fetchone()
        if row:
            self._set_dim(int(row[0]))

    def _set_dim(self, dim: int) -> None:
        self.dim = dim
        index_dir = None if self._memory or self._key is not None else Path(self.path + ".vec")
        self.vectors = VectorCache(dim, ann_threshold=self._ann_threshold, index_dir=index_dir,
                                   store_id=self.store_id, marks=(self._index_mark, self._index_mark))

    def _index_mark(self, name: str, token: str | None = None) -> str | None:
        """Read (no ``token``) or write the token of the saved vector index file ``name`` (stores/vectors.py)."""
        key, sql = f"vector_index_token:{name}", "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"
        if token is None:
            return next((r[0] for r in self._read("SELECT value FROM meta WHERE key = ?", (key,))), None)
        if self._conn().in_transaction:  # saved during a search or a write: the mark joins that transaction
            self._conn().execute(sql, (key, token))
        else:
            with self._tx() as c:
                c.execute(sql, (key, token))

    def close(self) -> None:
        if not self._closed:
            self._flush_touches()  # the searches' pending access counts (.touches)
        if self.vectors and not self._closed:  # HNSW indexes changed by writes: saved, so a reopen restores them
            self.vectors.close()  # the background indexer stopped; persist inserts what it left queued
            self.vectors.persist(lambda key: self._generation(*key))
        if not self._closed:
            self._close_keywords()  # the keyword index too (saved with its watermark)
        with self._conns_lock:
            conns, self._conns = self._conns, []
        for c in conns:
            try:
                c.close()
            except self._db_errors:
                pass
        self._closed = True
        if self.vectors:
            self.vectors.clear()

    # ---------------------------------------------------------------- embedder bookkeeping
    def check_embedder(self, name: str, dim: int) -> None:
        with self._tx() as c:
            rows = dict(c.execute("SELECT key, value FROM meta WHERE key IN ('embedder','embedder_dim')").fetchall())
            if not rows:
                c.execute("INSERT INTO meta VALUES ('embedder', ?), ('embedder_dim', ?)", (name, str(dim)))
            elif rows.get("embedder") != name or int(rows.get("embedder_dim", -1)) != dim:
                raise EmbedderMismatchError(
                    f"this store was built with embedder {rows.get('embedder')!r} (dim {rows.get('embedder_dim')}), "
                    f"not {name!r} (dim {dim}); open it with that embedder or run `anchormem reindex`"
                )
        if self.dim != dim:
            self._set_dim(dim)

    def set_embedder(self, name: str, dim: int) -> None:
        """Record a new embedder (used by reindex after every vector was rewritten)."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES ('embedder', ?), ('embedder_dim', ?)", (name, str(dim)))
        self._set_dim(dim)

    # ---------------------------------------------------------------- row conversion
    def _items(self, rows: list[tuple], entities: bool = True) -> list[MemoryItem]:
        """Rows of ``_COLS`` as items, with their claims and (``entities``) their entities; without, ``entities``
        is left empty (:meth:`with_entities` loads them)."""
        if not rows:
            return []
        ents = self._entities([r[0] for r in rows]) if entities else {}
        claims = self._claims.load(self._read, {t: [r[1] for r in rows if r[2] == t] for t in {r[2] for r in rows}})
        return [memory_item(r[1:], SQLITE_JSON, ents.get(r[0], []), claims.get((r[2], r[1]), [])) for r in rows]

    # ---------------------------------------------------------------- writes
    def _bump(self, c: sqlite3.Connection, tenant: str, user_id: str) -> int:
        return c.execute(
            "INSERT INTO scope_state VALUES (?, ?, 1) ON CONFLICT(tenant, user_id) "
            "DO UPDATE SET generation = generation + 1 RETURNING generation", (tenant, user_id)).fetchone()[0]

    def _vec_blob(self, v: np.ndarray) -> bytes:
        v = np.asarray(v, dtype="<f4").reshape(-1)
        if self.dim is not None and v.shape[0] != self.dim:
            raise InvalidInputError(f"embedding has dimension {v.shape[0]}, the store expects {self.dim}")
        return v.tobytes()

    def _history(self, c, item_id: str, tenant: str, user_id: str, event: str, old: str | None, new: str | None,
                 actor: str, reason: str | None) -> None:
        ver = c.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM memory_history WHERE memory_id=?",
                        (item_id,)).fetchone()[0]
        c.execute("INSERT INTO memory_history (memory_id, tenant, user_id, version, event, old_text, new_text, "
                  "actor, reason, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                  (item_id, tenant, user_id, ver, event, old, new, actor, reason, utcnow().timestamp()))

    @staged("write")
    def write(self, messages: list[StoredMessage], memories: list[NewMemory], *, actor: str,
              context_updates: dict[str, np.ndarray] | None = None, restated: dict[str, list[str]] | None = None,
              expect_generation: dict[tuple[str, str], int] | None = None, pending: dict[str, str] | None = None,
              settle: tuple[str, str, list[str], list[str], list[MemoryItem], dict[str, list[Label]]] | None = None
              ) -> list[WriteResult]:
        blobs = [self._vec_blob(m.vector) for m in memories]
        ctx = [context_blob(m.context_vector, self.dim) for m in memories]
        updates = self._context_blobs(context_updates or {})  # checked before anything is written
        results: list[WriteResult] = []
        added: dict[tuple[str, str], list[tuple[int, np.ndarray]]] = {}
        removed: dict[tuple[str, str], list[int]] = {}
        gens: dict[tuple[str, str], int] = {}
        with self._tx() as c:
            self._expect(c, expect_generation)  # planned against the store as it still is, or StaleWriteError
            shut = start_settle(c, self._claims, settle) if settle else []  # an enrichment (.pending_sql)
            def cite(tenant: str, user_id: str, memory_id: str, message_ids: list[str]) -> bool:
                changed = [m for m in message_ids if cite_turn(c, _CITE, self._history, tenant, user_id, memory_id,
                                                               m, actor)]
                if changed and (tenant, user_id) not in gens:
                    gens[(tenant, user_id)] = self._bump(c, tenant, user_id)
                return bool(changed)

            now = utcnow().timestamp()
            for msg in messages:
                s = msg.scope
                c.execute("INSERT OR IGNORE INTO messages (id, tenant, user_id, agent_id, session_id, role, name, "
                          "content, ts, created_at, metadata) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                          (msg.id, s.tenant, s.user_id, s.agent_id, s.session_id, msg.role, msg.name, msg.content,
                           to_epoch(msg.ts), now, json_text(msg.metadata)))
            for nm, blob, cblob in zip(memories, blobs, ctx):
                it = nm.item
                late = self._claims.recheck_into(c, nm)  # BEGIN IMMEDIATE: read-decide-write is one serialised step
                cur = c.execute(
                    f"INSERT OR IGNORE INTO memories ({MEMORY_COLS}, content_hash, embedding, "
                    f"context_vec) VALUES ({','.join('?' * 32)})",
                    memory_values(it, SQLITE_JSON) + (nm.content_hash, blob, cblob))
                if cur.rowcount == 0:
                    row = c.execute(
                        f"SELECT {_COLS} FROM memories WHERE tenant=? AND user_id=? AND ifnull(agent_id,'')=? AND "
                        "kind=? AND source=? AND content_hash=? AND valid_to IS NULL",
                        (it.tenant, it.user_id, it.agent_id or "", it.kind, it.source, nm.content_hash)).fetchone()
                    if cite(it.tenant, it.user_id, row[1], it.source_message_ids):  # the duplicate's turns
                        row = c.execute(f"SELECT {_COLS} FROM memories WHERE rowid=?", (row[0],)).fetchone()
                    results.append(WriteResult("NOOP", self._items_conn(c, [row])[0]))
                    continue
                rowid = cur.lastrowid
                if pending and it.id in pending:  # enrichment deferred: its marker in this transaction (.pending_sql)
                    mark_pending(c, rowid, it.tenant, it.user_id, pending[it.id], pending[""])
                c.execute("INSERT INTO memories_fts (rowid, scope, body) VALUES (?, ?, ?)",
                          (rowid, scope_token(it.tenant, it.user_id), nm.index_text))
                c.executemany("INSERT INTO memory_entities VALUES (?,?,?,?,?,?)",
                              [(rowid, it.tenant, it.user_id, e.type, e.value, e.normalized) for e in it.entities])
                c.executemany("INSERT OR IGNORE INTO metadata_keys VALUES (?,?,?)",
                              [(it.tenant, it.user_id, k) for k in it.metadata])
                self._claims.insert(c, it, nm.carried_by)
                self._history(c, it.id, it.tenant, it.user_id, "ADD", None, it.text, actor, None)
                key = (it.tenant, it.user_id)
                if key not in gens:
                    gens[key] = self._bump(c, *key)
                if it.valid_to is None and it.tier == "warm":
                    added.setdefault(key, []).append((rowid, np.asarray(nm.vector, dtype=np.float32), cblob, it.id))
                results.append(WriteResult("ADD" if it.valid_to is None else "ADD_SUPERSEDED", it))
                def close_one(old_id: str, when: float, by: str, it: MemoryItem = it, key: Any = key) -> bool:
                    row = c.execute("SELECT rowid FROM memories WHERE id=? AND tenant=? AND user_id=? AND "
                                    "valid_to IS NULL", (old_id, it.tenant, it.user_id)).fetchone()
                    if row is None:
                        return False
                    c.execute("UPDATE memories SET valid_to=?, superseded_by=?, updated_at=?, metadata=json_patch("
                              "metadata, ?) WHERE rowid=?", (when, by, now, json_text(correction_mark(it, old_id, by)),
                                                            row[0]))  # (a correction marks what it took back)
                    self._history(c, old_id, it.tenant, it.user_id, "SUPERSEDE", None, None, actor,
                                  f"superseded by {by}{correction_note(it, old_id)}")
                    removed.setdefault(key, []).append(row[0])
                    closed = c.execute(f"SELECT {_COLS} FROM memories WHERE rowid=?", (row[0],)).fetchall()
                    results.append(WriteResult("SUPERSEDE", self._items(closed)[0]))
                    return True
                self._claims.supersede(c, it, nm.supersedes, late, close_one)  # then carriers with no current claim
            for tenant, user_id, memory_id, message_id in restating_turns(messages, restated):
                cite(tenant, user_id, memory_id, [message_id])
            gone = settle_pending(c, *settle) if settle else []  # after the inserts: no rowid of these reused
            if settle and settle[:2] not in gens:  # (a settle changes labels and markers at least)
                gens[settle[:2]] = self._bump(c, *settle[:2])
            removed.setdefault(settle[:2], []).extend(gone + shut) if gone or shut else None  # type: ignore[index]
            refreshed: dict[tuple[str, str], dict[int, np.ndarray | None]] = {}
            if updates and gens and (memories or settle):  # the scope's generation moved with the rows above
                self._put_context(c, memories[0].item.tenant if memories else settle[0], updates)  # type: ignore
                refreshed = self._context_rowids(c, memories[0].item.tenant if memories else settle[0], updates)  # type: ignore
        self._keep_row_ids(gens) if not gone else self._forget_row_ids(settle[:2])  # type: ignore[index]
        if self.vectors:
            for key in gens:
                gone = set(removed.get(key, []))
                rows = [r for r in added.get(key, []) if r[0] not in gone]
                ids = np.array([r[0] for r in rows], dtype=np.int64)  # (rowid, vector, context blob, memory id)
                self.vectors.apply(key, gens[key] - 1, gens[key], removed=removed.get(key) or None,
                                   added=(ids, np.vstack([r[1] for r in rows]), [r[3] for r in rows]) if rows else None,
                                   added_contexts=[blob_vector(r[2]) for r in rows],
                                   contexts=refreshed.get(key))
        return results

    def _items_conn(self, c: sqlite3.Connection, rows: list[tuple]) -> list[MemoryItem]:
        return self._items(rows)

    def update(self, tenant: str, memory_id: str, *, text: str, vector: np.ndarray, index_text: str,
               content_hash: str, actor: str, reason: str | None = None, entities: list[Entity] | None = None
               ) -> MemoryItem:
        blob = self._vec_blob(vector)
        with self._tx() as c:
            row = c.execute("SELECT rowid, user_id, text FROM memories WHERE id=? AND tenant=?",
                            (memory_id, tenant)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            rowid, user_id, old = row
            dup = c.execute(  # the same key as ux_mem_dedupe: a conflict to report, not an integrity error
                "SELECT o.id FROM memories m JOIN memories o ON o.tenant=m.tenant AND o.user_id=m.user_id AND "
                "ifnull(o.agent_id, '')=ifnull(m.agent_id, '') AND o.kind=m.kind AND o.source=m.source AND "
                "o.valid_to IS NULL AND o.rowid<>m.rowid WHERE m.rowid=? AND m.valid_to IS NULL AND o.content_hash=?",
                (rowid, content_hash)).fetchone()
            if dup is not None:
                raise ConflictError(f"memory {memory_id!r} would duplicate current memory {dup[0]!r} of the same "
                                    f"user (same text, kind and source): update or delete that one instead")
            before = self._items(c.execute(f"SELECT {_COLS} FROM memories WHERE rowid=?", (rowid,)).fetchall())[0]
            c.execute("UPDATE memories SET text=?, content_hash=?, embedding=?, updated_at=? WHERE rowid=?",
                      (text, content_hash, blob, utcnow().timestamp(), rowid))
            c.execute("DELETE FROM memories_fts WHERE rowid=?", (rowid,))
            c.execute("INSERT INTO memories_fts (rowid, scope, body) VALUES (?,?,?)",
                      (rowid, scope_token(tenant, user_id), index_text))
            if entities is not None:
                c.execute("DELETE FROM memory_entities WHERE memory_rowid=?", (rowid,))
                c.executemany("INSERT INTO memory_entities VALUES (?,?,?,?,?,?)",
                              [(rowid, tenant, user_id, e.type, e.value, e.normalized) for e in entities])
            self._history(c, memory_id, tenant, user_id, "UPDATE", old, text, actor, reason)
            self._keep_state(c, tenant, user_id, memory_id, before)
            if self._claims.edited(self, c, tenant, user_id, memory_id, text, utcnow().timestamp(), actor):
                self._bump(c, tenant, user_id)  # its carrying turn changed: the cached vector sets reload
            gen = self._bump(c, tenant, user_id)
        if self.vectors:
            self.vectors.apply((tenant, user_id), gen - 1, gen, removed=[rowid],
                               added=(np.array([rowid], np.int64), np.asarray(vector, np.float32).reshape(1, -1),
                                      [memory_id]))
        return self.get(tenant, memory_id)

    def delete(self, tenant: str, memory_id: str, *, purge: bool = False, actor: str) -> dict[str, int]:
        with self._tx() as c:
            row = c.execute("SELECT rowid, user_id, text, source_message_ids FROM memories WHERE id=? AND tenant=?",
                            (memory_id, tenant)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            rowid, user_id, text, src_ids = row
            self._claims.reopen_for(self, c, tenant, user_id, [memory_id], actor, keep_closed=True)  # stays closed
            counts = self._delete_rows(c, [rowid])
            if purge:
                counts["history"] = c.execute(
                    f"UPDATE memory_history SET {BLANK_HISTORY} WHERE memory_id=? AND "
                    "tenant=?",
                    (memory_id, tenant)).rowcount
                # the verbatim source turn holds the same text: drop it unless another memory still cites it
                counts["messages"] = sum(c.execute(
                    "DELETE FROM messages WHERE id=? AND tenant=? AND user_id=? AND NOT EXISTS (SELECT 1 FROM "
                    "memories m, json_each(m.source_message_ids) j WHERE m.tenant=? AND m.user_id=? AND j.value=?)",
                    (mid, tenant, user_id, tenant, user_id, mid)).rowcount for mid in json.loads(src_ids or "[]"))
                counts["review"] = self._purge_reviews(c, tenant, user_id, [memory_id], json.loads(src_ids or "[]"))
                self._history(c, memory_id, tenant, user_id, "DELETE", None, None, actor, "purge")
                self._merge_fts(c)
            else:
                self._history(c, memory_id, tenant, user_id, "DELETE", text, None, actor, None)
            gen = self._bump(c, tenant, user_id)
        if self.vectors:
            self.vectors.apply((tenant, user_id), gen - 1, gen, removed=[rowid])
        if purge:
            self._after_purge(tenant, user_id)
        return counts

    @staticmethod
    def _merge_fts(c: sqlite3.Connection) -> None:
        """Merge the FTS5 index into one segment: deleted rows' terms leave the index (a purge needs this; FTS5
        otherwise keeps them in older segments behind delete markers). Cost grows with the whole index."""
        c.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")

    def _after_purge(self, tenant: str, user_id: str) -> None:
        """A purge also reaches derived files: the scope's saved HNSW index (it still holds the purged vectors) is
        deleted, and so is its loaded copy (removed entries may keep their bytes; it would be saved on close), to be
        rebuilt from the database on the next search; then the WAL is checkpointed. The keyword index is dropped
        (its file too) and rebuilt on the next keyword search."""
        if self.keywords is not None:
            self.keywords.drop()
        self._forget_row_ids((tenant, user_id))
        if self.vectors is not None:
            key = (tenant, user_id)
            path = self.vectors._path(key)
            if (path is not None and path.exists()) or self.vectors.has_ann(key):
                self.vectors.drop(key)
        self.checkpoint()

    def checkpoint(self) -> bool:
        """Copy the WAL into the database file and truncate it to zero bytes (``wal_checkpoint(TRUNCATE)``), so
        pages overwritten by a purge leave the ``-wal`` file too. Returns False (and logs a warning) when another
        connection's read transaction kept the checkpoint from finishing."""
        if self._memory:
            return True
        try:
            busy = self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except self._db_errors as exc:
            raise StoreError(f"SQLite error: {exc}") from exc
        if busy:
            log.warning("anchormem: WAL checkpoint after a purge could not finish (a reader is active); purged "
                        "pages stay in %s-wal until the next checkpoint", self.path)
        return not busy

    def _delete_rows(self, c: sqlite3.Connection, rowids: list[int]) -> dict[str, int]:
        counts = {"memories": 0, "fts": 0, "entities": 0}
        for i in range(0, len(rowids), 900):
            chunk = rowids[i : i + 900]
            ph = ",".join("?" * len(chunk))
            counts["entities"] += c.execute(f"DELETE FROM memory_entities WHERE memory_rowid IN ({ph})", chunk).rowcount
            counts["fts"] += c.execute(f"DELETE FROM memories_fts WHERE rowid IN ({ph})", chunk).rowcount
            counts["memories"] += c.execute(f"DELETE FROM memories WHERE rowid IN ({ph})", chunk).rowcount
        return counts

    def delete_scope(self, scope: Scope, *, purge: bool = False, actor: str) -> dict[str, int]:
        base, params = self._filters.scope_sql(scope)
        with self._tx() as c:
            rows = c.execute(f"SELECT rowid, id, text, source_message_ids FROM memories m WHERE {base}",
                             params).fetchall()
            shared = keep_restated(c, "?", scope, [(r[1], json.loads(r[3] or "[]")) for r in rows], self._history,
                                   actor, json.dumps)  # restated in another session: it stays there
            rows = [r for r in rows if r[1] not in shared]
            self._claims.reopen_for(self, c, scope.tenant, scope.user_id, [r[1] for r in rows], actor, keep_closed=True)
            counts = self._delete_rows(c, [r[0] for r in rows])
            msg_sql = "FROM messages WHERE tenant=? AND user_id=?"
            mparams: list[Any] = [scope.tenant, scope.user_id]
            for col in ("agent_id", "session_id"):
                if getattr(scope, col) is not None:
                    msg_sql += f" AND {col}=?"
                    mparams.append(getattr(scope, col))
            if purge and (scope.agent_id is not None or scope.session_id is not None):  # the scope's review items
                turns = {r[0] for r in c.execute("SELECT id " + msg_sql, mparams)}
                turns |= {m for r in rows for m in json.loads(r[3] or "[]")}
                counts["review"] = self._purge_reviews(c, scope.tenant, scope.user_id, [r[1] for r in rows], turns)
            counts["messages"] = c.execute("DELETE " + msg_sql, mparams).rowcount
            if purge and scope.agent_id is None and scope.session_id is None:  # the whole user: every history
                # row, also those of memories deleted earlier without purge (their DELETE row kept the text)
                counts["history"] = c.execute(
                    f"UPDATE memory_history SET {BLANK_HISTORY} WHERE tenant=? AND "
                    "user_id=?", (scope.tenant, scope.user_id)).rowcount
            elif purge:
                ids = [r[1] for r in rows]
                counts["history"] = 0
                for i in range(0, len(ids), 900):
                    chunk = ids[i : i + 900]
                    counts["history"] += c.execute(
                        f"UPDATE memory_history SET {BLANK_HISTORY} WHERE tenant=? AND "
                        f"memory_id IN ({','.join('?' * len(chunk))})", [scope.tenant, *chunk]).rowcount
            if purge:
                self._merge_fts(c)
            for _, mid, text, _ in rows:
                self._history(c, mid, scope.tenant, scope.user_id, "DELETE", None if purge else text, None, actor,
                              "delete_all" + (" purge" if purge else ""))
            if scope.agent_id is None and scope.session_id is None:
                c.execute("DELETE FROM metadata_keys WHERE tenant=? AND user_id=?", (scope.tenant, scope.user_id))
                counts["review"] = c.execute("DELETE FROM review_queue WHERE tenant=? AND user_id=?",
                                             (scope.tenant, scope.user_id)).rowcount
            gen = self._bump(c, scope.tenant, scope.user_id)
        if self.vectors:
            self.vectors.apply((scope.tenant, scope.user_id), gen - 1, gen, removed=[r[0] for r in rows])
        if purge:
            self._after_purge(scope.tenant, scope.user_id)
        return counts

    def set_expiry(self, tenant: str, expiries: dict[str, datetime | None]) -> int:
        if not expiries:
            return 0
        with self._tx() as c:
            gens = self._bump_ids(c, tenant, list(expiries))
            n = sum(c.execute("UPDATE memories SET expires_at=? WHERE id=? AND tenant=?", (_ep(when), mid, tenant)
                              ).rowcount for mid, when in expiries.items())
        self._advance(gens)
        return n

    def purge_expired(self, tenant: str, before: datetime, *, user_id: str | None = None, purge: bool = False,
                      actor: str = "gc") -> dict[str, int]:
        sql, params = "tenant=? AND expires_at <= ?", [tenant, before.timestamp()]
        if user_id is not None:
            sql, params = sql + " AND user_id=?", params + [user_id]
        counts = {"memories": 0, "fts": 0, "entities": 0}
        gens: dict[str, int] = {}
        with self._tx() as c:
            rows = c.execute(f"SELECT rowid, id, user_id, text, source_message_ids FROM memories WHERE {sql} "
                             "ORDER BY rowid", params).fetchall()
            for uid in sorted({r[2] for r in rows}):  # what an expired memory superseded holds again (see delete)
                self._claims.reopen_for(self, c, tenant, uid, [r[1] for r in rows if r[2] == uid], actor)
            counts.update(self._delete_rows(c, [r[0] for r in rows]))
            if purge:
                counts["history"] = counts["messages"] = 0
                for i in range(0, len(rows), 900):
                    chunk = [r[1] for r in rows[i : i + 900]]
                    counts["history"] += c.execute(
                        f"UPDATE memory_history SET {BLANK_HISTORY} WHERE tenant=? AND "
                        f"memory_id IN "
                        f"({','.join('?' * len(chunk))})", [tenant, *chunk]).rowcount
                for _, _, uid, _, src_ids in rows:  # source turns no remaining memory cites
                    counts["messages"] += sum(c.execute(
                        "DELETE FROM messages WHERE id=? AND tenant=? AND user_id=? AND NOT EXISTS (SELECT 1 FROM "
                        "memories m, json_each(m.source_message_ids) j WHERE m.tenant=? AND m.user_id=? AND "
                        "j.value=?)", (mid, tenant, uid, tenant, uid, mid)).rowcount
                        for mid in json.loads(src_ids or "[]"))
                counts["review"] = 0
                for uid in sorted({r[2] for r in rows}):
                    mine = [r for r in rows if r[2] == uid]
                    counts["review"] += self._purge_reviews(c, tenant, uid, [r[1] for r in mine],
                                                            [m for r in mine for m in json.loads(r[4] or "[]")])
                if rows:
                    self._merge_fts(c)  # as delete(purge=True): no trace in the keyword index
            for _, mid, uid, text, _ in rows:
                self._history(c, mid, tenant, uid, "DELETE", None if purge else text, None, actor, "expired")
            for uid in sorted({r[2] for r in rows}):
                gens[uid] = self._bump(c, tenant, uid)
        if self.vectors:
            for uid, gen in gens.items():
                self.vectors.apply((tenant, uid), gen - 1, gen, removed=[r[0] for r in rows if r[2] == uid])
        if purge:
            for uid in gens:
                self._after_purge(tenant, uid)
        return counts

    # ---------------------------------------------------------------- reads
    def get(self, tenant: str, memory_id: str) -> MemoryItem:
        rows = self._read(f"SELECT {_COLS} FROM memories WHERE id=? AND tenant=?", (memory_id, tenant))
        if not rows:
            raise NotFoundError(f"no memory {memory_id!r}")
        return self._items(rows)[0]

    def list_memories(self, scope: Scope, where: FilterNode | None, *, limit: int | None = None, offset: int = 0,
                      include_superseded: bool = False, as_of: datetime | None = None) -> list[MemoryItem]:
        sql, params = self._filters.where(scope, where, as_of, include_superseded)
        q = f"SELECT {_COLS} FROM memories m WHERE {sql} ORDER BY m.created_at, m.rowid"
        if limit is not None or offset:
            q += " LIMIT ? OFFSET ?"
            params = params + [-1 if limit is None else limit, offset]
        items = self._items(self._read(q, params))
        return items if as_of is None else self._with_past_texts(items, scope, where, as_of)

    def _generation(self, tenant: str, user_id: str) -> int:
        row = self._read("SELECT generation FROM scope_state WHERE tenant=? AND user_id=?", (tenant, user_id))
        return row[0][0] if row else 0

    def _load_scope(self, tenant: str, user_id: str) -> tuple[np.ndarray, np.ndarray, int, list[str]]:
        # rows and generation from one snapshot, so the cached copy is labelled with the state it really holds
        with self._tx(write=False) as c:
            g = c.execute("SELECT generation FROM scope_state WHERE tenant=? AND user_id=?", (tenant, user_id)
                          ).fetchone()
            rows = c.execute("SELECT rowid, embedding, id FROM memories WHERE tenant=? AND user_id=? AND "
                             "valid_to IS NULL AND tier = 'warm'", (tenant, user_id)).fetchall()
        rowids, gen = [r[0] for r in rows], g[0] if g else 0
        self._fill_row_ids((tenant, user_id), gen, rowids, keys := [r[2] for r in rows])  # .row_reads
        ids = np.array(rowids, dtype=np.int64)
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").astype(np.float32, copy=False)
        return ids, mat.reshape(len(rows), self.dim or 0), gen, keys

    def dense_search(self, scope: Scope, query: np.ndarray, k: int, where: FilterNode | None,
                     as_of: datetime | None = None) -> list[tuple[str, float]]:
        if self.vectors is None or k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise InvalidInputError(f"query embedding has dimension {q.shape[0]}, the store expects {self.dim}")
        rest, widened = without_any_validity(where)
        if widened and as_of is None and not names_field(rest, "tier") and not names_field(rest, "valid_to"):
            # current and superseded rows (a past question): the current ones from the cache, the superseded ones
            # (few) from the table, never a scan of every vector of the scope; ties: the older row first
            sql, params = self._filters.where(scope, where, None, live=True)
            old = self._read(f"SELECT m.rowid, m.id, m.embedding FROM memories m WHERE {sql} AND "
                             "m.valid_to IS NOT NULL", params)
            both = sorted(self._dense_cached(scope, q, k, rest) + _scored(old, q, self.dim or 0, k),
                          key=lambda x: (-x[2], x[0]))
            return [(mid, s) for _, mid, s in both[:k]]
        if as_of is not None or names_field(where, "tier") or names_field(where, "valid_to"):  # past states (and a
            # filter on valid_to) include superseded rows, and a filter
            # on tier may want cold rows: both are outside the cached (current, warm) vectors; score from the table
            sql, params = self._filters.where(scope, where, as_of, live=True)
            rows = self._read(f"SELECT m.rowid, m.id, m.embedding FROM memories m WHERE {sql}", params)
            return [(mid, s) for _, mid, s in _scored(rows, q, self.dim or 0, k)]
        return [(mid, s) for _, mid, s in self._dense_cached(scope, q, k, where)]

    def _dense_cached(self, scope: Scope, q: np.ndarray, k: int, where: FilterNode | None
                      ) -> list[tuple[int, str, float]]:
        """The top ``k`` (rowid, id, score) of the scope's current warm rows that pass ``where``, from the cached
        vectors (HNSW past the threshold)."""
        key = (scope.tenant, scope.user_id)
        gen = self._generation(*key)
        sv = self.vectors.get(key, gen, lambda: self._load_scope(*key))
        allowed = None
        if where is not None or scope.agent_id is not None or scope.session_id is not None:
            sql, params = self._filters.where(scope, where, None, live=True)
            allowed = {r[0] for r in self._read(f"SELECT m.rowid FROM memories m WHERE {sql}", params)}
        rowids, scores, keys = self.vectors.search(sv, q, k, allowed, keys=True)
        if len(rowids) == 0:
            return []
        rids, ids = rowids.tolist(), self._ids_of(key, gen, rowids.tolist(), keys)  # ids: the arrays', else the map
        return [(r, i, s) for r, i, s in zip(rids, ids, scores.tolist()) if i is not None]

    def set_labels(self, tenant: str, labels: dict[str, list[Label]]) -> int:
        """Replace the context labels of memories (id → labels); no new text version. Returns rows changed."""
        with self._tx() as c:
            gens = self._bump_ids(c, tenant, list(labels))
            n = sum(c.execute("UPDATE memories SET labels=? WHERE id=? AND tenant=?",
                              (json_text([lb.model_dump() for lb in labs]), mid, tenant)
                              ).rowcount for mid, labs in labels.items())
        self._advance(gens)
        return n

    def get_vectors(self, tenant: str, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored embeddings by memory id (missing ids left out)."""
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            for mid, blob in self._read(f"SELECT id, embedding FROM memories WHERE +tenant=? AND id IN "
                                        f"({','.join('?' * len(chunk))})", [tenant, *chunk]):
                out[mid] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return out

    def recent_memories(self, scope: Scope, limit: int) -> list[MemoryItem]:
        """The newest current memories of a scope, newest first."""
        sql, params = self._filters.where(scope, None, None, live=True)
        return self._items(self._read(f"SELECT {_COLS} FROM memories m WHERE {sql} "
                                      "ORDER BY m.created_at DESC, m.rowid DESC LIMIT ?", params + [limit]))

    def previous_messages(self, scope: Scope, ids: list[str], *, window_s: float = 1800.0
                          ) -> dict[str, dict[str, Any]]:
        """For each message id, the message just before it (by time, then order of storing) in its session, or,
        for a message without a session, among the user's session-less messages of the same agent said at most
        ``window_s`` seconds before it: {id: message dict}. The first of a session is left out. Each message is
        found by its id (``+``: not by walking the user's messages) and its predecessor by one descent of the
        session's time index (``q.ts <= m.ts`` bounds it; without it every later message of the session was read
        first: ~100 ms for 10 messages at 100k), bounded below by the window for a session-less message (a range
        of the index, not a filter: a session-less turn with nothing in its window read every earlier
        session-less message of the user)."""
        out: dict[str, dict[str, Any]] = {}
        cols = ", ".join(f"p.{c.strip()}" for c in MESSAGE_COLUMNS.split(","))
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            rows = self._read(
                f"SELECT m.id, {cols} FROM messages m JOIN messages p ON p.rowid = (SELECT q.rowid FROM messages q "
                "WHERE q.tenant = m.tenant AND q.user_id = m.user_id AND q.session_id IS m.session_id AND "
                "(m.session_id IS NOT NULL OR ifnull(q.agent_id, '') = ifnull(m.agent_id, '')) AND "
                "q.ts >= (CASE WHEN m.session_id IS NULL THEN m.ts - ? ELSE -1e300 END) "
                " AND q.ts <= m.ts AND (q.ts < m.ts OR (q.ts = m.ts AND q.rowid < m.rowid)) "
                "ORDER BY q.ts DESC, q.rowid DESC LIMIT 1) "
                f"WHERE +m.tenant=? AND +m.user_id=? AND m.id IN ({','.join('?' * len(chunk))})",
                [window_s, scope.tenant, scope.user_id, *chunk])
            out.update((r[0], d) for r, d in zip(rows, message_dicts([r[1:] for r in rows])))
        return out

    # ---------------------------------------------------------------- facts (the review queue: .review_sql)
    def current_facts(self, tenant: str, user_id: str, slots: list[str]) -> list[MemoryItem]:
        return [] if not slots else self._items(self._read(
            f"SELECT {_COLS} FROM memories WHERE tenant=? AND user_id=? AND valid_to IS NULL AND slot IN "
            f"({','.join('?' * len(slots))}) ORDER BY valid_from, rowid", [tenant, user_id, *slots]))

    def set_fact(self, tenant: str, memory_id: str, fact: FactSlot | None) -> None:
        with self._tx() as c:
            gens = self._bump_ids(c, tenant, [memory_id])
            self._claims.reopen_unstated(self, c, tenant, memory_id, fact)  # what it superseded may hold again
            if c.execute("UPDATE memories SET slot=?, fact=? WHERE id=? AND tenant=?",
                         (fact.slot if fact else None, fact.model_dump_json() if fact else None, memory_id,
                          tenant)).rowcount == 0:
                raise NotFoundError(f"no memory {memory_id!r}")
            self._claims.set_fact(c, tenant, memory_id, fact.slot if fact else None, fact.value if fact else None,
                                  fact.polarity if fact else None)
        self._advance(gens)

    def close_memory(self, tenant: str, memory_id: str, *, when: datetime, actor: str, event: str,
                     reason: str | None = None) -> MemoryItem:
        with self._tx() as c:
            row = c.execute("SELECT rowid, user_id, valid_to FROM memories WHERE id=? AND tenant=?",
                            (memory_id, tenant)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            if row[2] is not None:
                raise ConflictError(f"memory {memory_id!r} is already closed")
            c.execute("UPDATE memories SET valid_to=?, updated_at=? WHERE rowid=?",
                      (when.timestamp(), utcnow().timestamp(), row[0]))
            self._history(c, memory_id, tenant, row[1], event, None, None, actor, reason)
            gen = self._bump(c, tenant, row[1])
        if self.vectors:
            self.vectors.apply((tenant, row[1]), gen - 1, gen, removed=[row[0]])
        return self.get(tenant, memory_id)


def _scored(rows: list, q: np.ndarray, dim: int, k: int) -> list[tuple[int, str, float]]:
    """The ``k`` best (rowid, id, score) of ``rows`` ((rowid, id, float32 vector blob)) by inner product with ``q``,
    best first (ties: row order)."""
    if not rows:
        return []
    mat = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(len(rows), dim)
    scores = mat @ q
    order = np.argsort(-scores, kind="stable")[:k]
    return [(rows[i][0], rows[i][1], float(scores[i])) for i in order]
