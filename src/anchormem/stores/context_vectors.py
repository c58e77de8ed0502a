"""Context vectors for the SQL stores (``Store.get_context_vectors`` / ``set_context_vectors``), mixed into
:class:`.sqlite.SQLiteStore` and :class:`.postgres.PostgresStore`.

A memory's *context vector* is the weighted mean embedding of the turns around it in its session (computed by
:mod:`anchormem.context.anchor`; the memory's own vector weighs most). Context anchoring compares it with the
current conversation's mean embedding, a finer context signal than the domain labels. Stored in
``memories.context_vec`` (schema v5) as float32 little-endian bytes, the store's embedding dimension; NULL for
memories written before v5 or imported (``anchormem relabel`` fills them in). Writing them bumps the owners'
scope generation like ``set_labels`` (they change anchored rankings).

Reads return a :class:`ContextVectors` mapping (one matrix underneath). The SQLite store also keeps them in its
vector cache once an anchored search asked (:mod:`.vectors`), so ``get_many_with_context`` reads only the rows the
cache does not know from the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from ..errors import InvalidInputError
from ..types import Label
from .schema import MEMORY_COLS

_LABELS = TypeAdapter(list[Label])  # a stored label list, parsed and validated in one pydantic-core pass

__all__ = ["SQLiteContextMixin", "PostgresContextMixin", "ContextVectors", "context_blob", "blob_vector"]


def context_blob(v: np.ndarray | None, dim: int | None) -> bytes | None:
    """``v`` as stored (float32 little-endian bytes), or None. Raises InvalidInputError on a wrong dimension or
    a non-finite value."""
    if v is None:
        return None
    a = np.asarray(v, dtype="<f4").reshape(-1)
    if dim is not None and a.shape[0] != dim:
        raise InvalidInputError(f"context vector has dimension {a.shape[0]}, the store expects {dim}")
    if not np.isfinite(a).all():
        raise InvalidInputError("context vector has non-finite values")
    return a.tobytes()


def blob_vector(blob: bytes | None) -> np.ndarray | None:
    """A stored context vector back as (dim,) float32 (None for NULL)."""
    return None if blob is None else np.frombuffer(bytes(blob), dtype="<f4").astype(np.float32)


class ContextVectors(Mapping[str, np.ndarray]):
    """Context vectors by memory id: ``matrix`` (k, dim) float32 with row ``index[id]`` for each id.
    :meth:`take` gathers many rows in one step (what context anchoring does with a search's candidates)."""

    def __init__(self, index: dict[str, int] | None = None, matrix: np.ndarray | None = None) -> None:
        self.index = index or {}
        self.matrix = matrix if matrix is not None else np.zeros((0, 0), dtype=np.float32)

    def __getitem__(self, mid: str) -> np.ndarray:
        return self.matrix[self.index[mid]]

    def __contains__(self, mid: object) -> bool:
        return mid in self.index

    def __iter__(self) -> Iterator[str]:
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)

    def merged(self, other: "ContextVectors") -> "ContextVectors":
        """Both mappings in one (``other`` wins on a shared id)."""
        if not other:
            return self
        if not self:
            return other
        n = len(self.matrix)
        index = {**self.index, **{mid: n + i for mid, i in other.index.items()}}
        return ContextVectors(index, np.vstack([self.matrix, other.matrix]))


def _decode(rows: Any) -> ContextVectors:
    """Context vectors from (id, blob) rows; NULL blobs left out. One buffer for all rows."""
    rows = [(mid, bytes(blob)) for mid, blob in rows if blob is not None]
    if not rows:
        return ContextVectors()
    mat = np.frombuffer(b"".join(b for _, b in rows), dtype="<f4").reshape(len(rows), -1).astype(np.float32)
    return ContextVectors({mid: i for i, (mid, _) in enumerate(rows)}, mat)


class _ContextVectors:
    """What both dialects share: encoding once, the UPDATE (``_CTX_UPDATE``, parameters blob, tenant, id) and
    ``set_context_vectors`` around the dialect's transaction (``_replace_context``)."""

    _CTX_UPDATE: str
    _NEWEST: str  # the column that orders rows written in one instant (insertion order)
    _PARAM: str  # the dialect's parameter placeholder
    dim: int | None
    # each dialect's mixin writes {id: blob} inside its own transaction and returns the rows changed
    _replace_context: Callable[[str, dict[str, bytes]], int]

    def _context_blobs(self, vectors: dict[str, np.ndarray]) -> dict[str, bytes]:
        """{id: stored bytes}, every vector checked before anything is written (:func:`context_blob`)."""
        return {mid: context_blob(v, self.dim) for mid, v in vectors.items()}  # type: ignore[misc]

    def recent_labels(self, scope: Any, limit: int) -> list[tuple[str | None, list[Label]]]:
        """(session_id, labels) of the ``limit`` newest current memories of a scope, newest first: what
        ``recent_memories`` would return, without building the memories (context anchoring of a query without
        a conversation reads only these)."""
        sql, params = self._filters.where(scope, None, None, live=True)  # type: ignore[attr-defined]
        rows = self._read(f"SELECT m.session_id, m.labels FROM memories m WHERE {sql} "  # type: ignore[attr-defined]
                          f"ORDER BY m.created_at DESC, {self._NEWEST} DESC LIMIT {self._PARAM}", params + [limit])
        parse = _LABELS.validate_json
        return [(sid, parse(labs) if isinstance(labs, (str, bytes)) else _LABELS.validate_python(labs))
                for sid, labs in rows]

    def _put_context(self, conn: Any, tenant: str, blobs: dict[str, bytes]) -> int:
        return sum(conn.execute(self._CTX_UPDATE, (b, tenant, mid)).rowcount for mid, b in blobs.items())

    def set_context_vectors(self, tenant: str, vectors: dict[str, np.ndarray]) -> int:
        """Replace the context vectors of memories (id → (dim,) vector). Returns rows changed. Raises
        InvalidInputError (wrong dimension, non-finite values) before anything is written."""
        blobs = self._context_blobs(vectors)
        return self._replace_context(tenant, blobs) if blobs else 0


class SQLiteContextMixin(_ContextVectors):
    """Needs ``_read``, ``_tx``, ``_bump_ids``, ``_generation``, ``_items``, ``vectors``, ``dim``."""

    _CTX_UPDATE = "UPDATE memories SET context_vec=? WHERE tenant=? AND id=?"
    _NEWEST, _PARAM = "m.rowid", "?"
    _read: Any
    _tx: Any
    _bump_ids: Any
    _generation: Any
    _items: Any
    vectors: Any

    def get_context_vectors(self, tenant: str, ids: list[str]) -> ContextVectors:
        """Stored context vectors by memory id, float32 (dim,); ids without one (or unknown) are left out."""
        out = ContextVectors()
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            out = out.merged(_decode(self._read(f"SELECT id, context_vec FROM memories WHERE +tenant=? AND id IN "
                                                f"({','.join('?' * len(chunk))})", [tenant, *chunk])))
        return out

    def get_many_with_context(self, tenant: str, ids: list[str], *, entities: bool = True
                              ) -> tuple[dict[str, Any], ContextVectors]:
        """``get_many`` and ``get_context_vectors`` (the anchored search path): the rows once per 900 ids, their
        context vectors from the vector cache (:meth:`VectorCache.contexts`), only those it does not know from the
        table."""
        items: dict[str, Any] = {}
        ctx = ContextVectors()
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            rows = self._read(f"SELECT rowid, {MEMORY_COLS} FROM memories WHERE +tenant=? AND id IN "
                              f"({','.join('?' * len(chunk))})", [tenant, *chunk])
            items.update((it.id, it) for it in self._items(rows, entities))
            cached, missing = self._cached_contexts(tenant, rows)
            ctx = ctx.merged(cached)
            if missing:
                ctx = ctx.merged(self.get_context_vectors(tenant, missing))
        return items, ctx

    def _cached_contexts(self, tenant: str, rows: list[Any]) -> tuple[ContextVectors, list[str]]:
        """(context vectors of memory ``rows`` (rowid, then ``schema.MEMORY_COLUMNS``: id, tenant, user_id, ...) the vector cache holds,
        ids of the rows it does not know)."""
        by_user: dict[str, list[Any]] = {}
        for r in rows:
            by_user.setdefault(r[3], []).append(r)
        out, missing = ContextVectors(), []
        for user, urows in by_user.items():
            key = (tenant, user)
            got = None if self.vectors is None else self.vectors.contexts(
                key, self._generation(*key), [r[0] for r in urows], lambda: self._load_scope_contexts(*key))
            if got is None:
                missing += [r[1] for r in urows]
                continue
            found, mat, unknown = got
            if len(found) == len(urows) and not unknown:  # every row cached (the usual case): rows in order
                out = out.merged(ContextVectors({r[1]: i for i, r in enumerate(urows)}, mat))
                continue
            ids = {r[0]: r[1] for r in urows}
            out = out.merged(ContextVectors({ids[rid]: i for i, rid in enumerate(found)}, mat))
            missing += [ids[rid] for rid in unknown]
        return out, missing

    def _load_scope_contexts(self, tenant: str, user_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The cached rows' context vectors, for :meth:`VectorCache.contexts`: (rowids, (k, dim) matrix, stored
        (k,) bool, generation), from one snapshot."""
        with self._tx(write=False) as c:
            g = c.execute("SELECT generation FROM scope_state WHERE tenant=? AND user_id=?", (tenant, user_id)
                          ).fetchone()
            rows = c.execute("SELECT rowid, context_vec FROM memories WHERE tenant=? AND user_id=? AND valid_to IS "
                             "NULL AND tier = 'warm'", (tenant, user_id)).fetchall()
        dim = self.dim or 0
        zero = bytes(4 * dim)
        mat = np.frombuffer(b"".join(zero if r[1] is None else bytes(r[1]) for r in rows), dtype="<f4")
        return (np.array([r[0] for r in rows], dtype=np.int64), mat.astype(np.float32).reshape(len(rows), dim),
                np.array([r[1] is not None for r in rows], dtype=bool), g[0] if g else 0)

    def _context_rowids(self, c: Any, tenant: str, vectors: dict[str, bytes]
                        ) -> dict[tuple[str, str], dict[int, np.ndarray | None]]:
        """The vectors just written (id → stored bytes) by scope and rowid, for the vector cache."""
        out: dict[tuple[str, str], dict[int, np.ndarray | None]] = {}
        mids = list(vectors)
        for i in range(0, len(mids), 900):
            chunk = mids[i : i + 900]
            for rid, mid, user in c.execute(f"SELECT rowid, id, user_id FROM memories WHERE +tenant=? AND id IN "
                                            f"({','.join('?' * len(chunk))})", [tenant, *chunk]):
                out.setdefault((tenant, user), {})[rid] = blob_vector(vectors[mid])
        return out

    def _replace_context(self, tenant: str, blobs: dict[str, bytes]) -> int:
        with self._tx() as c:
            gens = self._bump_ids(c, tenant, list(blobs))
            n = self._put_context(c, tenant, blobs)
            rowids = self._context_rowids(c, tenant, blobs)
        if self.vectors:
            for key, gen in gens.items():
                self.vectors.apply(key, gen - 1, gen, contexts=rowids.get(key))
        return n

    # (vector maintenance of the embedded store, here for room: sqlite.py stays under 800 lines)
    def all_vectors(self, batch: int = 512) -> Iterator[list[tuple[int, str]]]:
        """Yield batches of (rowid, text to embed) of every memory (for reindex): ``"speaker: text"`` when the
        speaker is known, as :func:`anchormem.ingest.pipeline.embedding_text` does on add."""
        last = 0
        while True:
            rows = self._read("SELECT rowid, CASE WHEN ifnull(speaker, '') = '' THEN text ELSE speaker || ': ' || text "
                              "END FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?", (last, batch))
            if not rows:
                return
            yield [(r[0], r[1]) for r in rows]
            last = rows[-1][0]

    def replace_vectors(self, pairs: list[tuple[int, np.ndarray]]) -> None:
        """Overwrite stored vectors by rowid (reindex); drops every cached scope."""
        with self._tx() as c:
            c.executemany("UPDATE memories SET embedding=? WHERE rowid=?",
                          [(np.asarray(v, dtype="<f4").tobytes(), r) for r, v in pairs])
            c.execute("UPDATE scope_state SET generation = generation + 1")  # saved ANN files are now stale
        if self.vectors:
            self.vectors.clear()


class PostgresContextMixin(_ContextVectors):
    """Needs ``_read``, ``_run``, ``_conn``, ``_items``, ``_bump_ids``, ``dim``."""

    _CTX_UPDATE = "UPDATE memories SET context_vec = %s WHERE tenant = %s AND id = %s"
    _NEWEST, _PARAM = "m.seq", "%s"
    _read: Any
    _run: Any
    _bump_ids: Any

    def get_context_vectors(self, tenant: str, ids: list[str]) -> ContextVectors:
        """Stored context vectors by memory id, float32 (dim,); ids without one (or unknown) are left out."""
        if not ids:
            return ContextVectors()
        return _decode(self._read("SELECT id, context_vec FROM memories WHERE tenant = %s AND id = ANY(%s)",
                                  (tenant, list(ids))))

    def get_many_with_context(self, tenant: str, ids: list[str], *, entities: bool = True
                              ) -> tuple[dict[str, Any], ContextVectors]:
        """``get_many`` and ``get_context_vectors`` in one read (the anchored search path)."""
        if not ids:
            return {}, ContextVectors()
        with self._conn() as conn:
            rows = conn.execute(f"SELECT {MEMORY_COLS}, context_vec FROM memories WHERE tenant = %s AND id = ANY(%s)",
                                (tenant, list(ids))).fetchall()
            items = self._items(conn, [r[:-1] for r in rows], entities)
        return {it.id: it for it in items}, _decode((r[0], r[-1]) for r in rows)

    def _replace_context(self, tenant: str, blobs: dict[str, bytes]) -> int:
        def run(conn: Any) -> int:
            self._bump_ids(conn, tenant, list(blobs))
            return self._put_context(conn, tenant, blobs)
        return self._run(run)
