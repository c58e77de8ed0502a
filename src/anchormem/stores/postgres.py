"""The PostgreSQL + pgvector store: the same Store interface and semantics as :class:`.sqlite.SQLiteStore`.

- Vectors live in an ``embedding vector(dim)`` column (added when the embedder is first recorded) with an HNSW
  index (``vector_ip_ops``: vectors are L2-normalised, so inner product = cosine). Scopes up to
  ``ann_threshold`` current memories are searched exactly; larger ones through the HNSW index.
- Keyword search: the jieba-segmented ``index_text`` goes into a ``tsvector`` built with the ``simple`` config
  (so Chinese tokens survive) plus the ``english`` config (stems, like SQLite's porter tokenizer); query terms are
  OR'd and ranked BM25-style (scope-local IDF × ``ts_rank`` term weight).
- Exact duplicates: a unique partial index and ``INSERT ... ON CONFLICT DO NOTHING``; the loser reads the
  winner's row and reports NOOP.
- Connections come from a ``psycopg_pool.ConnectionPool``; psycopg errors become :class:`StoreError` here.

Needs the optional extra: ``pip install 'anchormem[postgres]'``.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from ..tracing import staged
from ..config import is_postgres_url  # (re-exported: one definition)
from ..errors import ConfigError, ConflictError, EmbedderMismatchError, InvalidInputError, NotFoundError, StoreError
from ..filters import FilterNode
from ..timeutil import to_epoch, utcnow
from ..validate import unstorable
from ..types import Entity, FactSlot, Label, MemoryItem, ReviewItem, Scope
from .claims_sql import ClaimsSQL
from .sessions_sql import keep_restated
from .pg_migrations import LATEST, MIGRATIONS, VERSION_TABLE, embedding_ddl
from .context_vectors import PostgresContextMixin, context_blob
from .generation import PostgresGenerationMixin
from .past_text import BLANK_HISTORY, PastTextMixin
from .pending_pg import SETTLED, PostgresPendingMixin, mark_pending, settle_pending, start_settle
from .pii_vault import PostgresVaultMixin
from .portable_sql import PostgresPortableMixin
from .review_sql import ReviewReadMixin, purge_reviews
from .protocol import (MESSAGE_COLUMNS, REVIEW_COLUMNS, NewMemory, StoredMessage, WriteResult, cite_turn,
                       message_dicts, restating_turns, review_row)
from .schema import (MEMORY_COLS as _COLS, PG_JSON, correction_mark, correction_note, entity, epoch as _ep,
                     memory_cols, memory_item, memory_values, with_entity_list)
from .sql_common import SQLCommonMixin
from .sqlfilter import PostgresFilterCompiler
from .tiers_sql import PostgresTierMixin
from .vectors import DEFAULT_ANN_THRESHOLD
from .durability import pg_options
from .store_secret import PostgresSecretMixin
from .pg_physical import PostgresPhysicalMixin

try:  # the driver is an optional extra
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg_pool import ConnectionPool, PoolTimeout
    from pgvector.psycopg import register_vector
except ImportError as _exc:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]
    _IMPORT_ERROR: ImportError | None = _exc
else:
    _IMPORT_ERROR = None

__all__ = ["PostgresStore", "PostgresFilterCompiler", "is_postgres_url"]

_CITE = ("UPDATE memories SET source_message_ids = source_message_ids || jsonb_build_array(%s::text) WHERE "
         "tenant = %s AND user_id = %s AND id = %s AND NOT source_message_ids ? %s")  # (cite a turn: protocol)
_MCOLS = memory_cols("m")
_json = PG_JSON.dump
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_LOCK_KEY = 0x616E63686D656D  # advisory lock id for migrations and embedder DDL ("anchmem")
_RETRYABLE: tuple[type[BaseException], ...] = ()
if psycopg is not None:
    _RETRYABLE = (pg_errors.DeadlockDetected, pg_errors.SerializationFailure)

T = TypeVar("T")


def _redact(url: str) -> str:
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


# ---------------------------------------------------------------- the store
class PostgresStore(PostgresVaultMixin, PostgresPortableMixin, PostgresTierMixin, PostgresGenerationMixin,
                    PostgresContextMixin, PastTextMixin, ReviewReadMixin, PostgresSecretMixin, PostgresPhysicalMixin,
                    PostgresPendingMixin, SQLCommonMixin):
    """PostgreSQL store. ``url``: a libpq URL (``postgresql://user:pass@host:5432/db``).

    ``schema``: put anchormem's tables in this schema (created if missing; default: the connection's search
    path, usually ``public``). ``min_size``/``max_size``: connection pool bounds. ``ann_threshold``: current
    memories per user above which dense search uses the HNSW index instead of an exact scan. ``durability``:
    ``"full"`` or ``"normal"`` (``synchronous_commit = off`` on these connections; :mod:`.durability`).

    Raises ConfigError when the driver is not installed, StoreError when the server cannot be reached, lacks
    pgvector, or holds a newer schema.
    """

    _review_order = "created_at, id"  # list_reviews (ReviewReadMixin): no rowid here
    _P, _SEQ, _SAME = "%s", "seq", "IS NOT DISTINCT FROM"  # the dialect of .sql_common

    def __init__(self, url: str, *, schema: str | None = None, ann_threshold: int = DEFAULT_ANN_THRESHOLD,
                 min_size: int = 1, max_size: int = 10, timeout: float = 30.0, durability: str = "full") -> None:
        if _IMPORT_ERROR is not None:
            raise ConfigError("the PostgreSQL store needs its driver: pip install 'anchormem[postgres]' "
                              f"({_IMPORT_ERROR})")
        if schema is not None and not _SCHEMA_NAME.match(schema):
            raise ConfigError(f"schema name {schema!r}: use lower-case letters, digits and '_'")
        self.url = url
        self.path = _redact(url)
        self.schema = schema
        self._ann_threshold = ann_threshold
        self.dim: int | None = None
        self.store_id: str | None = None
        self._filters = PostgresFilterCompiler()
        self._claims = ClaimsSQL("%s")
        self._closed = False
        self._counts: dict[tuple[str, str, int], int] = {}  # _scope_count
        self._counts_lock = threading.Lock()
        kwargs: dict[str, Any] = {"autocommit": True}
        options = " ".join(o for o in (f"-c search_path={schema},public" if schema else "", pg_options(durability))
                           if o)  # stores/durability.py
        if options:
            kwargs["options"] = options
        self._kwargs = kwargs
        self._migrate()
        try:
            self._pool = ConnectionPool(url, min_size=min_size, max_size=max_size, kwargs=kwargs, timeout=timeout,
                                        configure=register_vector, open=False, name="anchormem")
            self._pool.open(wait=True, timeout=timeout)
        except (psycopg.Error, PoolTimeout) as exc:
            raise StoreError(f"cannot open a PostgreSQL pool for {self.path}: {exc}") from exc

    # ---------------------------------------------------------------- connections and transactions
    def _migrate(self) -> None:
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=30) as conn:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                    if self.schema is not None:
                        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
                        conn.execute(f"SET LOCAL search_path = {self.schema}, public")
                    try:
                        with conn.transaction():
                            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                    except psycopg.Error as exc:
                        raise StoreError(f"the pgvector extension is not available on {self.path}: install "
                                         f"pgvector on the server (or CREATE EXTENSION vector as a superuser): "
                                         f"{exc}") from exc
                    conn.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version integer PRIMARY KEY, "
                                 "applied_at timestamptz NOT NULL DEFAULT now())")
                    version = conn.execute(f"SELECT coalesce(max(version), 0) FROM {VERSION_TABLE}").fetchone()[0]
                    if version > LATEST:
                        raise StoreError(f"database schema v{version} is newer than this anchormem (v{LATEST}); "
                                         "upgrade")
                    for v, statements in MIGRATIONS:
                        if v > version:
                            for sql in statements:
                                conn.execute(sql)
                            conn.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (%s)", (v,))
                    conn.execute("INSERT INTO meta VALUES ('store_id', %s) ON CONFLICT DO NOTHING",
                                 (uuid.uuid4().hex,))
                    rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except psycopg.Error as exc:
            raise StoreError(f"cannot open PostgreSQL database {self.path}: {exc}") from exc
        self.store_id = rows["store_id"]
        if "embedder_dim" in rows:
            self.dim = int(rows["embedder_dim"])

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        if self._closed:
            raise StoreError("the store is closed")
        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise StoreError(f"no PostgreSQL connection available: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error: {exc}") from exc
        except (UnicodeEncodeError, OverflowError) as exc:  # a value the driver cannot bind: the caller's input
            raise unstorable(exc) from exc

    def _run(self, fn: Callable[[Any], T], *, write: bool = True) -> T:
        """Run ``fn(conn)`` in one transaction, retrying deadlocks and serialization failures."""
        for attempt in range(5):
            try:
                with self._conn() as conn:
                    with conn.transaction():
                        return fn(conn)
            except StoreError as exc:
                if isinstance(exc.__cause__, _RETRYABLE) and attempt < 4:
                    time.sleep(0.02 * (attempt + 1))
                    continue
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _read(self, sql: str, params: Any = ()) -> list[tuple]:
        with self._conn() as conn:
            return conn.execute(sql, params).fetchall()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pool.close()

    # ---------------------------------------------------------------- embedder bookkeeping
    def check_embedder(self, name: str, dim: int) -> None:
        def run(conn: Any) -> None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('embedder','embedder_dim')"
                                     ).fetchall())
            if not rows:
                conn.execute("INSERT INTO meta VALUES ('embedder', %s), ('embedder_dim', %s)", (name, str(dim)))
                for sql in embedding_ddl(dim):
                    conn.execute(sql)
            elif rows.get("embedder") != name or int(rows.get("embedder_dim", -1)) != dim:
                raise EmbedderMismatchError(
                    f"this store was built with embedder {rows.get('embedder')!r} (dim {rows.get('embedder_dim')}), "
                    f"not {name!r} (dim {dim}); open it with that embedder or run `anchormem reindex`"
                )
        self._run(run)
        self.dim = dim

    # ---------------------------------------------------------------- row conversion
    def _items(self, conn: Any, rows: list[tuple], entities: bool = True) -> list[MemoryItem]:
        """Rows of ``_COLS`` as items, with their claims and (``entities``) their entities; without, ``entities``
        is left empty (:meth:`with_entities` loads them)."""
        if not rows:
            return []
        by_tenant: dict[str, list[str]] = {}
        by_user: dict[tuple[str, str], list[str]] = {}
        for r in rows:
            by_tenant.setdefault(r[1], []).append(r[0])
            by_user.setdefault((r[1], r[2]), []).append(r[0])
        ents = self._entities(conn, by_user) if entities else {}
        claims = self._claims.load(lambda sql, params: conn.execute(sql, params).fetchall(), by_tenant)
        return [memory_item(r, PG_JSON, ents.get((r[1], r[0]), []), claims.get((r[1], r[0]), [])) for r in rows]

    def _entities(self, conn: Any, by_user: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], list[Entity]]:
        """{(tenant, memory id): its entities, in the order written} of ``by_user`` ({(tenant, user): ids})."""
        ents: dict[tuple[str, str], list[Entity]] = {}
        for (tenant, user), ids in by_user.items():  # by user: ix_ent_mem (tenant, user_id, memory_id) finds them
            for mid, t, v, n in conn.execute(
                    "SELECT memory_id, type, value, normalized FROM memory_entities WHERE tenant = %s AND "
                    "user_id = %s AND memory_id = ANY(%s) ORDER BY seq", (tenant, user, ids)).fetchall():
                ents.setdefault((tenant, mid), []).append(entity(t, v, n))
        return ents

    def with_entities(self, tenant: str, items: list[MemoryItem]) -> list[MemoryItem]:
        if not items:
            return []
        by_user: dict[tuple[str, str], list[str]] = {}
        for it in items:
            by_user.setdefault((tenant, it.user_id), []).append(it.id)
        with self._conn() as conn:
            ents = self._entities(conn, by_user)
        return [with_entity_list(it, ents.get((tenant, it.id), [])) for it in items]

    def _select(self, sql: str, params: Any = ()) -> list[MemoryItem]:
        with self._conn() as conn:
            return self._items(conn, conn.execute(sql, params).fetchall())

    # ---------------------------------------------------------------- writes
    def _vec(self, v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float32).reshape(-1)
        if self.dim is not None and v.shape[0] != self.dim:
            raise InvalidInputError(f"embedding has dimension {v.shape[0]}, the store expects {self.dim}")
        if self.dim is None:
            raise StoreError("no embedder recorded for this store: call check_embedder(name, dim) first")
        return v

    @staticmethod
    def _bump(conn: Any, tenant: str, user_id: str) -> int:
        return conn.execute(
            "INSERT INTO scope_state VALUES (%s, %s, 1) ON CONFLICT (tenant, user_id) "
            "DO UPDATE SET generation = scope_state.generation + 1 RETURNING generation", (tenant, user_id)
        ).fetchone()[0]

    @staticmethod
    def _history(conn: Any, item_id: str, tenant: str, user_id: str, event: str, old: str | None,
                 new: str | None, actor: str, reason: str | None) -> None:
        conn.execute(
            "INSERT INTO memory_history (tenant, user_id, memory_id, version, event, old_text, new_text, actor, "
            "reason, created_at) SELECT %s, %s, %s, coalesce(max(version), 0) + 1, %s, %s, %s, %s, %s, %s "
            "FROM memory_history WHERE tenant = %s AND user_id = %s AND memory_id = %s",
            (tenant, user_id, item_id, event, old, new, actor, reason, utcnow().timestamp(), tenant, user_id,
             item_id))

    _TSV = "to_tsvector('simple', %s) || to_tsvector('english', %s)"

    @staged("write")
    def write(self, messages: list[StoredMessage], memories: list[NewMemory], *, actor: str,
              context_updates: dict[str, np.ndarray] | None = None, restated: dict[str, list[str]] | None = None,
              expect_generation: dict[tuple[str, str], int] | None = None, pending: dict[str, str] | None = None,
              settle: tuple[str, str, list[str], list[str], list[MemoryItem], dict[str, list[Label]]] | None = None
              ) -> list[WriteResult]:
        vecs = [self._vec(m.vector) for m in memories]
        ctx = [context_blob(m.context_vector, self.dim) for m in memories]
        updates = self._context_blobs(context_updates or {})  # checked before anything is written
        turns = restating_turns(messages, restated)
        base = [(nm.item.valid_to, nm.item.superseded_by, list(nm.supersedes), list(nm.item.claims))
                for nm in memories]  # as planned: a retried transaction reconciles again from them

        def run(conn: Any) -> list[WriteResult]:
            results: list[WriteResult] = []
            now = utcnow().timestamp()
            for nm, (vt, sb, sup, cl) in zip(memories, base):
                nm.item.valid_to, nm.item.superseded_by, nm.supersedes, nm.item.claims = vt, sb, list(sup), list(cl)

            def cite(tenant: str, user_id: str, memory_id: str, message_ids: list[str]) -> bool:
                return bool([m for m in message_ids if cite_turn(conn, _CITE, self._history, tenant, user_id,
                                                                 memory_id, m, actor)])

            # lock each user's scope row first, in a fixed order: writers of one user queue instead of deadlocking
            for key in sorted({(m.item.tenant, m.item.user_id) for m in memories} | {t[:2] for t in turns} |
                              ({settle[:2]} if settle else set())):  # (a settle changes labels and markers at least)
                self._bump_expecting(conn, key, expect_generation)  # planned against the store as it still is
            self._claims.lock_slots(conn, memories)  # read-decide-write per (tenant, user, slot): one step
            start_settle(conn, self._claims, settle) if settle else None  # an enrichment (.pending_pg)
            marks: list[tuple[str, str, str, str, str, str]] = []
            for msg in messages:
                s = msg.scope
                conn.execute(
                    "INSERT INTO messages (tenant, user_id, id, agent_id, session_id, role, name, content, ts, "
                    "created_at, metadata) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                    (s.tenant, s.user_id, msg.id, s.agent_id, s.session_id, msg.role, msg.name, msg.content,
                     to_epoch(msg.ts), now, _json(msg.metadata)))
            for nm, vec, cblob in zip(memories, vecs, ctx):
                it = nm.item
                late = self._claims.recheck_into(conn, nm)  # reconciled again under the slot's lock
                row = conn.execute(
                    f"INSERT INTO memories ({_COLS}, content_hash, tsv, embedding, context_vec) VALUES "
                    f"({', '.join(['%s'] * 30)}, {self._TSV}, %s, %s) ON CONFLICT DO NOTHING RETURNING id",
                    memory_values(it, PG_JSON) + (nm.content_hash, nm.index_text, nm.index_text, vec, cblob)
                ).fetchone()
                if row is None:
                    rows = conn.execute(
                        f"SELECT {_COLS} FROM memories WHERE tenant = %s AND user_id = %s AND "
                        "coalesce(agent_id, '') = %s AND kind = %s AND source = %s AND content_hash = %s AND "
                        "valid_to IS NULL",
                        (it.tenant, it.user_id, it.agent_id or "", it.kind, it.source, nm.content_hash)).fetchall()
                    if not rows:
                        raise InvalidInputError(f"memory id {it.id!r} already exists")
                    if cite(it.tenant, it.user_id, rows[0][0], it.source_message_ids):  # the duplicate's turns
                        rows = conn.execute(f"SELECT {_COLS} FROM memories WHERE tenant = %s AND id = %s",
                                            (it.tenant, rows[0][0])).fetchall()
                    results.append(WriteResult("NOOP", self._items(conn, rows)[0]))
                    continue
                if pending and it.id in pending:  # enrichment deferred: its marker in this transaction
                    marks.append((it.tenant, it.user_id, it.id, pending[it.id], pending[""], nm.index_text))
                if it.entities:
                    with conn.cursor() as cur:
                        cur.executemany(
                            "INSERT INTO memory_entities (tenant, user_id, memory_id, type, value, normalized) "
                            "VALUES (%s,%s,%s,%s,%s,%s)",
                            [(it.tenant, it.user_id, it.id, e.type, e.value, e.normalized) for e in it.entities])
                if it.metadata:
                    with conn.cursor() as cur:
                        cur.executemany("INSERT INTO metadata_keys VALUES (%s,%s,%s) ON CONFLICT DO NOTHING",
                                        [(it.tenant, it.user_id, k) for k in it.metadata])
                self._claims.insert(conn, it, nm.carried_by)
                self._history(conn, it.id, it.tenant, it.user_id, "ADD", None, it.text, actor, None)
                results.append(WriteResult("ADD" if it.valid_to is None else "ADD_SUPERSEDED", it))
                def close_one(old_id: str, when: float, by: str, it: MemoryItem = it) -> bool:
                    closed = conn.execute(f"UPDATE memories SET valid_to = %s, superseded_by = %s, updated_at = %s, "
                                          f"metadata = metadata || %s::jsonb WHERE tenant = %s AND user_id = %s AND id = "
                                          f"%s AND valid_to IS NULL RETURNING {_COLS}", (when, by, now, _json(
                                              correction_mark(it, old_id, by)), it.tenant, it.user_id, old_id)).fetchall()
                    if closed:
                        self._history(conn, old_id, it.tenant, it.user_id, "SUPERSEDE", None, None, actor,
                                      f"superseded by {by}{correction_note(it, old_id)}")
                        results.append(WriteResult("SUPERSEDE", self._items(conn, closed)[0]))
                    return bool(closed)
                self._claims.supersede(conn, it, nm.supersedes, late, close_one)  # then carriers with none current
            for tenant, user_id, memory_id, message_id in turns:
                cite(tenant, user_id, memory_id, [message_id])
            mark_pending(conn, marks)
            done = settle_pending(conn, *settle, context=updates) if settle else set()  # (.pending_pg)
            if updates and (memories or settle):  # the scope's generation was bumped above
                self._put_context(conn, settle[0] if settle else memories[0].item.tenant, {  # (settle: its tenant)
                    k: v for k, v in updates.items() if k not in done})
            return results

        return self._run(run)

    def update(self, tenant: str, memory_id: str, *, text: str, vector: np.ndarray, index_text: str,
               content_hash: str, actor: str, reason: str | None = None, entities: list[Entity] | None = None
               ) -> MemoryItem:
        vec = self._vec(vector)

        def run(conn: Any) -> MemoryItem:
            row = conn.execute("SELECT user_id, text FROM memories WHERE tenant = %s AND id = %s FOR UPDATE",
                               (tenant, memory_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            user_id, old = row
            dup = conn.execute(  # the same key as ux_mem_dedupe: a conflict to report, not an integrity error
                "SELECT o.id FROM memories m JOIN memories o ON o.tenant = m.tenant AND o.user_id = m.user_id AND "
                "coalesce(o.agent_id, '') = coalesce(m.agent_id, '') AND o.kind = m.kind AND o.source = m.source "
                "AND o.valid_to IS NULL AND o.id <> m.id WHERE m.tenant = %s AND m.id = %s AND m.valid_to IS NULL "
                "AND o.content_hash = %s", (tenant, memory_id, content_hash)).fetchone()
            if dup is not None:
                raise ConflictError(f"memory {memory_id!r} would duplicate current memory {dup[0]!r} of the same "
                                    f"user (same text, kind and source): update or delete that one instead")
            before = self._items(conn, conn.execute(f"SELECT {_COLS} FROM memories WHERE tenant = %s AND user_id = %s "
                                                    "AND id = %s", (tenant, user_id, memory_id)).fetchall())[0]
            self._bump(conn, tenant, user_id)
            conn.execute(f"UPDATE memories SET text = %s, content_hash = %s, embedding = %s, updated_at = %s, "
                         f"tsv = {self._TSV} WHERE tenant = %s AND user_id = %s AND id = %s",
                         (text, content_hash, vec, utcnow().timestamp(), index_text, index_text, tenant, user_id,
                          memory_id))
            if entities is not None:
                conn.execute("DELETE FROM memory_entities WHERE tenant = %s AND user_id = %s AND memory_id = %s",
                             (tenant, user_id, memory_id))
                if entities:
                    with conn.cursor() as cur:
                        cur.executemany(
                            "INSERT INTO memory_entities (tenant, user_id, memory_id, type, value, normalized) "
                            "VALUES (%s,%s,%s,%s,%s,%s)",
                            [(tenant, user_id, memory_id, e.type, e.value, e.normalized) for e in entities])
            self._history(conn, memory_id, tenant, user_id, "UPDATE", old, text, actor, reason)
            self._keep_state(conn, tenant, user_id, memory_id, before)
            self._claims.edited(self, conn, tenant, user_id, memory_id, text, utcnow().timestamp(), actor)
            rows = conn.execute(f"SELECT {_COLS} FROM memories WHERE tenant = %s AND user_id = %s AND id = %s",
                                (tenant, user_id, memory_id)).fetchall()
            return self._items(conn, rows)[0]

        return self._run(run)

    @staticmethod
    def _delete_rows(conn: Any, tenant: str, user_id: str, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {"memories": 0, "fts": 0, "entities": 0}
        ents = conn.execute("DELETE FROM memory_entities WHERE tenant = %s AND user_id = %s AND memory_id = ANY(%s)",
                            (tenant, user_id, ids)).rowcount
        mems = conn.execute("DELETE FROM memories WHERE tenant = %s AND user_id = %s AND id = ANY(%s)",
                            (tenant, user_id, ids)).rowcount
        # the keyword index is the row's tsvector (and its GIN entries): it goes with the row
        return {"memories": mems, "fts": mems, "entities": ents}

    def delete(self, tenant: str, memory_id: str, *, purge: bool = False, actor: str) -> dict[str, int]:
        def run(conn: Any) -> dict[str, int]:
            row = conn.execute("SELECT user_id, text, source_message_ids FROM memories WHERE tenant = %s AND id = %s "
                               "FOR UPDATE", (tenant, memory_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            user_id, text, src_ids = row
            self._bump(conn, tenant, user_id)
            self._claims.reopen_for(self, conn, tenant, user_id, [memory_id], actor,
                                   keep_closed=True)  # what it superseded stays superseded
            counts = self._delete_rows(conn, tenant, user_id, [memory_id])
            if purge:
                counts["history"] = conn.execute(
                    f"UPDATE memory_history SET {BLANK_HISTORY} WHERE tenant = %s AND "
                    "user_id = %s "
                    "AND memory_id = %s", (tenant, user_id, memory_id)).rowcount
                # the verbatim source turn holds the same text: drop it unless another memory still cites it
                counts["messages"] = sum(conn.execute(
                    "DELETE FROM messages WHERE tenant = %s AND user_id = %s AND id = %s AND NOT EXISTS (SELECT 1 "
                    "FROM memories m WHERE m.tenant = %s AND m.user_id = %s AND m.source_message_ids ? %s)",
                    (tenant, user_id, mid, tenant, user_id, mid)).rowcount for mid in (src_ids or []))
                counts["review"] = purge_reviews(conn, "%s", tenant, user_id, [memory_id], src_ids or [], "::jsonb")
                self._history(conn, memory_id, tenant, user_id, "DELETE", None, None, actor, "purge")
            else:
                self._history(conn, memory_id, tenant, user_id, "DELETE", text, None, actor, None)
            return counts

        return self._run(run)

    def delete_scope(self, scope: Scope, *, purge: bool = False, actor: str) -> dict[str, int]:
        base, params = self._filters.scope_sql(scope)

        def run(conn: Any) -> dict[str, int]:
            self._bump(conn, scope.tenant, scope.user_id)
            rows = conn.execute(f"SELECT m.id, m.text, m.source_message_ids FROM memories m WHERE {base} ORDER BY "
                                "m.seq FOR UPDATE", params).fetchall()
            shared = keep_restated(conn, "%s", scope, [(r[0], list(r[2] or [])) for r in rows], self._history, actor,
                                   _json)  # restated in another session: it stays there
            rows = [r for r in rows if r[0] not in shared]
            ids = [r[0] for r in rows]
            self._claims.reopen_for(self, conn, scope.tenant, scope.user_id, ids, actor,
                                   keep_closed=True)  # (see delete)
            counts = self._delete_rows(conn, scope.tenant, scope.user_id, ids)
            msg_sql = "FROM messages WHERE tenant = %s AND user_id = %s"
            mparams: list[Any] = [scope.tenant, scope.user_id]
            for col in ("agent_id", "session_id"):
                if getattr(scope, col) is not None:
                    msg_sql += f" AND {col} = %s"
                    mparams.append(getattr(scope, col))
            if purge and (scope.agent_id is not None or scope.session_id is not None):  # the scope's review items
                turns = {r[0] for r in conn.execute("SELECT id " + msg_sql, mparams).fetchall()}
                turns |= {m for r in rows for m in (r[2] or [])}
                counts["review"] = purge_reviews(conn, "%s", scope.tenant, scope.user_id, ids, turns, "::jsonb")
            counts["messages"] = conn.execute("DELETE " + msg_sql, mparams).rowcount
            if purge:  # the whole user: every history row, also those of memories deleted earlier without purge
                whole = scope.agent_id is None and scope.session_id is None
                counts["history"] = conn.execute(
                    f"UPDATE memory_history SET {BLANK_HISTORY} WHERE tenant = %s "
                    "AND user_id = %s" + ("" if whole else " AND memory_id = ANY(%s)"),
                    (scope.tenant, scope.user_id) + (() if whole else (ids,))).rowcount
            for mid, text, _ in rows:
                self._history(conn, mid, scope.tenant, scope.user_id, "DELETE", None if purge else text, None, actor,
                              "delete_all" + (" purge" if purge else ""))
            if scope.agent_id is None and scope.session_id is None:
                conn.execute("DELETE FROM metadata_keys WHERE tenant = %s AND user_id = %s",
                             (scope.tenant, scope.user_id))
                counts["review"] = conn.execute("DELETE FROM review_queue WHERE tenant = %s AND user_id = %s",
                                                (scope.tenant, scope.user_id)).rowcount
            return counts

        return self._run(run)

    # ---------------------------------------------------------------- facts and the review queue
    def current_facts(self, tenant: str, user_id: str, slots: list[str]) -> list[MemoryItem]:
        if not slots:
            return []
        return self._select(f"SELECT {_COLS} FROM memories WHERE tenant = %s AND user_id = %s AND valid_to IS NULL "
                            "AND slot = ANY(%s) ORDER BY valid_from, seq", (tenant, user_id, list(slots)))

    def add_review(self, item: ReviewItem) -> None:
        row = list(review_row(item))
        row[5], row[6] = _json(item.proposed.model_dump(mode="json")), _json(item.targets)
        self._run(lambda conn: conn.execute(
            f"INSERT INTO review_queue ({REVIEW_COLUMNS}) VALUES ({', '.join(['%s'] * 11)})", row))

    def resolve_review(self, tenant: str, review_id: str, *, status: str, actor: str, when: datetime,
                       result_memory_id: str | None = None) -> ReviewItem:
        def run(conn: Any) -> None:
            row = conn.execute("SELECT status FROM review_queue WHERE tenant = %s AND id = %s FOR UPDATE",
                               (tenant, review_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no review item {review_id!r}")
            if row[0] != "pending":
                raise ConflictError(f"review item {review_id!r} is already {row[0]}")
            conn.execute("UPDATE review_queue SET status = %s, resolved_at = %s, resolved_by = %s, "
                         "result_memory_id = %s WHERE tenant = %s AND id = %s",
                         (status, when.timestamp(), actor, result_memory_id, tenant, review_id))

        self._run(run)
        return self.get_review(tenant, review_id)

    def set_fact(self, tenant: str, memory_id: str, fact: FactSlot | None) -> None:
        def run(conn: Any) -> int:
            self._bump_ids(conn, tenant, [memory_id])
            self._claims.reopen_unstated(self, conn, tenant, memory_id, fact)  # what it superseded may hold again
            n = conn.execute("UPDATE memories SET slot = %s, fact = %s WHERE tenant = %s AND id = %s",
                             (fact.slot if fact else None, _json(fact.model_dump()) if fact else None, tenant,
                              memory_id)).rowcount
            self._claims.set_fact(conn, tenant, memory_id, fact.slot if fact else None,
                                  fact.value if fact else None, fact.polarity if fact else None)
            return n

        if self._run(run) == 0:
            raise NotFoundError(f"no memory {memory_id!r}")

    def close_memory(self, tenant: str, memory_id: str, *, when: datetime, actor: str, event: str,
                     reason: str | None = None) -> MemoryItem:
        def run(conn: Any) -> None:
            row = conn.execute("SELECT user_id, valid_to FROM memories WHERE tenant = %s AND id = %s FOR UPDATE",
                               (tenant, memory_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            if row[1] is not None:
                raise ConflictError(f"memory {memory_id!r} is already closed")
            self._bump(conn, tenant, row[0])
            conn.execute("UPDATE memories SET valid_to = %s, updated_at = %s WHERE tenant = %s AND user_id = %s "
                         "AND id = %s", (when.timestamp(), utcnow().timestamp(), tenant, row[0], memory_id))
            self._history(conn, memory_id, tenant, row[0], event, None, None, actor, reason)

        self._run(run)
        return self.get(tenant, memory_id)

    def close_fact(self, tenant: str, memory_id: str, *, when: datetime, by: str | None, turn: str, actor: str,
                   reason: str) -> list[str]:
        def run(conn: Any) -> list[str]:
            row = conn.execute("SELECT user_id FROM memories WHERE tenant = %s AND id = %s",
                               (tenant, memory_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            self._bump(conn, tenant, row[0])
            return self._claims.retract(self, conn, tenant, row[0], memory_id, when.timestamp(), by, turn, actor,
                                        reason)

        return self._run(run)

    def carry_claims(self, tenant: str, memory_id: str, fact_ids: list[str]) -> None:
        def run(conn: Any) -> None:
            row = conn.execute("SELECT user_id FROM memories WHERE tenant = %s AND id = %s",
                               (tenant, memory_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            self._bump(conn, tenant, row[0])
            self._claims.carry(conn, tenant, memory_id, fact_ids)

        self._run(run)

    def touch(self, tenant: str, ids: list[str], when: datetime) -> None:
        if not ids:
            return

        def run(conn: Any) -> None:
            # a search's bookkeeping: the commit does not wait for its WAL flush (a server crash may lose the last
            # bumps, never anything else; SQLiteStore.touch does the same)
            conn.execute("SET LOCAL synchronous_commit = off")
            conn.execute(  # an id listed twice counts twice, as in SQLite
                "UPDATE memories m SET access_count = m.access_count + t.n, last_accessed_at = %s FROM "
                "(SELECT u.id, count(*)::int AS n FROM unnest(%s::text[]) AS u(id) GROUP BY u.id) t "
                "WHERE m.tenant = %s AND m.id = t.id", (when.timestamp(), list(ids), tenant))
        self._run(run)

    def set_expiry(self, tenant: str, expiries: dict[str, datetime | None]) -> int:
        if not expiries:
            return 0
        return self._run(lambda conn: self._bump_ids(conn, tenant, list(expiries)) or sum(conn.execute(
            "UPDATE memories SET expires_at = %s WHERE tenant = %s AND id = %s", (_ep(when), tenant, mid)).rowcount
            for mid, when in expiries.items()))

    def purge_expired(self, tenant: str, before: datetime, *, user_id: str | None = None, purge: bool = False,
                      actor: str = "gc") -> dict[str, int]:
        sql, params = "tenant = %s AND expires_at <= %s", [tenant, before.timestamp()]
        if user_id is not None:
            sql, params = sql + " AND user_id = %s", params + [user_id]

        def run(conn: Any) -> dict[str, int]:
            users = [r[0] for r in conn.execute(f"SELECT DISTINCT user_id FROM memories WHERE {sql} ORDER BY 1",
                                                params).fetchall()]
            for uid in users:  # scope rows first, in a fixed order, as writers do
                self._bump(conn, tenant, uid)
            rows = conn.execute(f"SELECT user_id, id, text, source_message_ids FROM memories WHERE {sql} "
                                "ORDER BY user_id, seq FOR UPDATE", params).fetchall()
            counts = {"memories": 0, "fts": 0, "entities": 0}
            by_user: dict[str, list[str]] = {}
            for uid, mid, _, _ in rows:
                by_user.setdefault(uid, []).append(mid)
            for uid, ids in by_user.items():
                self._claims.reopen_for(self, conn, tenant, uid, ids, actor)  # what it superseded holds again
                for k, v in self._delete_rows(conn, tenant, uid, ids).items():
                    counts[k] += v
            if purge:
                counts["history"] = sum(conn.execute(
                    f"UPDATE memory_history SET {BLANK_HISTORY} WHERE tenant = %s AND "
                    "user_id = %s "
                    "AND memory_id = ANY(%s)", (tenant, uid, ids)).rowcount for uid, ids in by_user.items())
                counts["messages"] = sum(conn.execute(  # source turns no remaining memory cites
                    "DELETE FROM messages WHERE tenant = %s AND user_id = %s AND id = %s AND NOT EXISTS (SELECT 1 "
                    "FROM memories m WHERE m.tenant = %s AND m.user_id = %s AND m.source_message_ids ? %s)",
                    (tenant, uid, msg, tenant, uid, msg)).rowcount for uid, _, _, src in rows for msg in (src or []))
                counts["review"] = sum(purge_reviews(conn, "%s", tenant, uid, ids, [m for u, _, _, src in rows
                                                                                     if u == uid for m in src or []],
                                                     "::jsonb") for uid, ids in by_user.items())
            for uid, mid, text, _ in rows:
                self._history(conn, mid, tenant, uid, "DELETE", None if purge else text, None, actor, "expired")
            return counts

        return self._run(run)

    def set_labels(self, tenant: str, labels: dict[str, list[Label]]) -> int:
        """Replace the context labels of memories (id → labels); no new text version. Returns rows changed."""
        def run(conn: Any) -> int:
            self._bump_ids(conn, tenant, list(labels))
            return sum(conn.execute("UPDATE memories SET labels = %s WHERE tenant = %s AND id = %s",
                                    (_json([lb.model_dump() for lb in labs]), tenant, mid)).rowcount
                       for mid, labs in labels.items())
        return self._run(run) if labels else 0

    # ---------------------------------------------------------------- reads
    def get(self, tenant: str, memory_id: str) -> MemoryItem:
        items = self._select(f"SELECT {_COLS} FROM memories WHERE tenant = %s AND id = %s", (tenant, memory_id))
        if not items:
            raise NotFoundError(f"no memory {memory_id!r}")
        return items[0]

    def get_many(self, tenant: str, ids: list[str], *, entities: bool = True) -> dict[str, MemoryItem]:
        if not ids:
            return {}
        with self._conn() as conn:
            items = self._items(conn, conn.execute(f"SELECT {_COLS} FROM memories WHERE tenant = %s AND id = ANY(%s)",
                                                   (tenant, list(ids))).fetchall(), entities)
        return {it.id: it for it in items}

    def list_memories(self, scope: Scope, where: FilterNode | None, *, limit: int | None = None, offset: int = 0,
                      include_superseded: bool = False, as_of: datetime | None = None) -> list[MemoryItem]:
        sql, params = self._filters.where(scope, where, as_of, include_superseded)
        q = f"SELECT {_MCOLS} FROM memories m WHERE {sql} ORDER BY m.created_at, m.seq"
        if limit is not None or offset:
            q += " LIMIT %s OFFSET %s"
            params = params + [limit, offset]
        items = self._select(q, params)
        return items if as_of is None else self._with_past_texts(items, scope, where, as_of)

    def recent_memories(self, scope: Scope, limit: int) -> list[MemoryItem]:
        """The newest current memories of a scope, newest first."""
        sql, params = self._filters.where(scope, None, None, live=True)
        return self._select(f"SELECT {_MCOLS} FROM memories m WHERE {sql} ORDER BY m.created_at DESC, m.seq DESC "
                            "LIMIT %s", params + [limit])

    def dense_search(self, scope: Scope, query: np.ndarray, k: int, where: FilterNode | None,
                     as_of: datetime | None = None, *, settled: bool = False) -> list[tuple[str, float]]:
        if self.dim is None or k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise InvalidInputError(f"query embedding has dimension {q.shape[0]}, the store expects {self.dim}")
        sql, params = self._filters.where(scope, where, as_of, live=True)
        sql += SETTLED if settled else ""  # without the rows pending enrichment (.pending_pg)

        def run(conn: Any) -> list[tuple[str, float]]:
            use_ann = False
            if as_of is None:  # the scope's current rows (counted once per generation)
                n = self._scope_count(conn, scope, "m.tenant = %s AND m.user_id = %s AND m.valid_to IS NULL",
                                      [scope.tenant, scope.user_id], None)
                use_ann = n > self._ann_threshold
            if use_ann:  # HNSW: widen the candidate list, since the scope filter is applied to its output
                conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, max(100, 4 * k))}")
                rows = conn.execute(f"SELECT m.id, -(m.embedding <#> %s) FROM memories m WHERE {sql} "
                                    "ORDER BY m.embedding <#> %s LIMIT %s", [q, *params, q, k]).fetchall()
                if len(rows) >= min(k, n):
                    return [(r[0], float(r[1])) for r in rows]
            # exact: ordering by the computed score (not the index operator) scans the scope's rows
            rows = conn.execute(f"SELECT m.id, -(m.embedding <#> %s) AS s FROM memories m WHERE {sql} "
                                "ORDER BY s DESC, m.seq LIMIT %s", [q, *params, k]).fetchall()
            return [(r[0], float(r[1])) for r in rows]

        return self._run(run, write=False)

    def keyword_search(self, scope: Scope, terms: list[str], k: int, where: FilterNode | None,
                       as_of: datetime | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (memory id, score) of the filtered scope's rows matching any of ``terms``, best first (ties:
        older row first). BM25-like: Σ over matched terms of idf(term, within the filtered scope) × (0.5 +
        ``ts_rank`` term weight). One pass over the matching rows through the GIN index (``ts_rank`` once per
        matched (row, term)); the scope's row count for the idf comes from :meth:`_scope_count` (counted once
        per scope generation, not per search)."""
        terms = list(dict.fromkeys(t for t in terms if t.strip()))
        if not terms or k <= 0:
            return []
        sql, params = self._filters.where(scope, where, as_of, live=True)
        q = (
            "WITH t AS (SELECT i, plainto_tsquery('simple', w) || plainto_tsquery('english', w) AS tq "
            "  FROM unnest(%s::text[]) WITH ORDINALITY AS u(w, i)), "
            f"c AS MATERIALIZED (SELECT m.id, m.seq, m.tsv FROM memories m WHERE {sql} "
            "  AND m.tsv @@ ANY (ARRAY(SELECT tq FROM t))), "
            "h AS MATERIALIZED (SELECT c.id, c.seq, t.i, ts_rank(c.tsv, t.tq, 1) AS r FROM c JOIN t ON c.tsv @@ t.tq), "
            "df AS (SELECT i, count(*)::float8 AS df FROM h GROUP BY i), "
            "s AS (SELECT h.id, h.seq, sum(ln(1 + (%s - df.df + 0.5) / (df.df + 0.5)) * (0.5 + h.r)) AS s "
            "  FROM h JOIN df USING (i) GROUP BY h.id, h.seq) "
            "SELECT id, s FROM s ORDER BY round(s::numeric, 9) DESC, seq LIMIT %s"  # equal sums: older first
        )

        def run(conn: Any) -> list[tuple[str, float]]:
            n = self._scope_count(conn, scope, sql, params, as_of)
            return [(r[0], float(r[1])) for r in conn.execute(q, [terms, *params, float(n), k]).fetchall()]

        return self._run(run, write=False)

    def _scope_count(self, conn: Any, scope: Scope, sql: str, params: list[Any], as_of: datetime | None) -> int:
        """Rows matching the compiled filter ``sql``: counted once per (filter, scope generation) and kept (a few
        hundred entries), since the count is O(scope) and the generation moves with every write to the scope.
        An ``as_of`` filter reads past rows, so it is counted each time."""
        if as_of is not None:
            return int(conn.execute(f"SELECT count(*) FROM memories m WHERE {sql}", params).fetchone()[0])
        gen = conn.execute("SELECT generation FROM scope_state WHERE tenant = %s AND user_id = %s",
                           (scope.tenant, scope.user_id)).fetchone()
        key = (sql, repr(params), gen[0] if gen else 0)
        n = self._counts.get(key)
        if n is None:
            n = int(conn.execute(f"SELECT count(*) FROM memories m WHERE {sql}", params).fetchone()[0])
            with self._counts_lock:
                if len(self._counts) >= 512:
                    self._counts.pop(next(iter(self._counts)))
                self._counts[key] = n
        return n

    def get_vectors(self, tenant: str, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored embeddings by memory id (missing ids left out)."""
        if not ids:
            return {}
        rows = self._read("SELECT id, embedding FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(ids)))
        return {mid: np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, dtype=np.float32) for mid, v in rows}

    def previous_messages(self, scope: Scope, ids: list[str], *, window_s: float = 1800.0
                          ) -> dict[str, dict[str, Any]]:
        """See :meth:`~anchormem.stores.protocol.Store.previous_messages`. Per kind of message one index range of
        (tenant, user_id, session_id, ts) read newest first (IS NOT DISTINCT FROM is no index condition here)."""
        if not ids:
            return {}
        cols = ", ".join(f"p.{c.strip()}" for c in MESSAGE_COLUMNS.split(","))
        lateral = (f"SELECT m.id, {cols} FROM messages m CROSS JOIN LATERAL (SELECT * FROM messages q WHERE q.tenant = "
                   "m.tenant AND q.user_id = m.user_id AND {same} AND q.ts <= m.ts AND (q.ts < m.ts OR (q.ts = m.ts "
                   "AND q.seq < m.seq)) ORDER BY q.ts DESC, q.seq DESC LIMIT 1) p WHERE m.session_id IS {kind} AND "
                   "m.tenant = %s AND m.user_id = %s AND m.id = ANY(%s)")
        rows = self._read(lateral.format(same="q.session_id = m.session_id", kind="NOT NULL") + " UNION ALL " +
                          lateral.format(same="q.session_id IS NULL AND coalesce(q.agent_id, '') = coalesce("
                                              "m.agent_id, '') AND q.ts >= m.ts - %s", kind="NULL"),
                          (scope.tenant, scope.user_id, list(ids), window_s, scope.tenant, scope.user_id, list(ids)))
        return {r[0]: d for r, d in zip(rows, message_dicts([r[1:] for r in rows]))}
