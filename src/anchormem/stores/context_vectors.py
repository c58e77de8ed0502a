"""Context vectors for the SQL stores (``Store.get_context_vectors`` / ``set_context_vectors``), mixed into
:class:`.sqlite.SQLiteStore` and :class:`.postgres.PostgresStore`.

A memory's *context vector* is the weighted mean embedding of the turns around it in its session (computed by
:mod:`anchormem.context.anchor`; the memory's own vector weighs most). Context anchoring compares it with the
current conversation's mean embedding, a finer context signal than the domain labels. Stored in
``memories.context_vec`` (schema v5) as float32 little-endian bytes, the store's embedding dimension; NULL for
memories written before v5 or imported (``anchormem relabel`` fills them in). Writing them bumps the owners'
scope generation like ``set_labels`` (they change anchored rankings).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidInputError

__all__ = ["SQLiteContextMixin", "PostgresContextMixin", "context_blob"]


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


def _decode(rows: Any) -> dict[str, np.ndarray]:
    """{id: (dim,) float32} from (id, blob) rows; NULL blobs left out. One buffer for all rows."""
    rows = [(mid, bytes(blob)) for mid, blob in rows if blob is not None]
    if not rows:
        return {}
    mat = np.frombuffer(b"".join(b for _, b in rows), dtype="<f4").reshape(len(rows), -1).astype(np.float32)
    return {mid: mat[i] for i, (mid, _) in enumerate(rows)}


class _ContextVectors:
    """What both dialects share: encoding once, the UPDATE (``_CTX_UPDATE``, parameters blob, tenant, id) and
    ``set_context_vectors`` around the dialect's transaction (``_replace_context``)."""

    _CTX_UPDATE: str
    dim: int | None

    def _context_blobs(self, vectors: dict[str, np.ndarray]) -> dict[str, bytes]:
        """{id: stored bytes}, every vector checked before anything is written (:func:`context_blob`)."""
        return {mid: context_blob(v, self.dim) for mid, v in vectors.items()}  # type: ignore[misc]

    def _put_context(self, conn: Any, tenant: str, blobs: dict[str, bytes]) -> int:
        return sum(conn.execute(self._CTX_UPDATE, (b, tenant, mid)).rowcount for mid, b in blobs.items())

    def set_context_vectors(self, tenant: str, vectors: dict[str, np.ndarray]) -> int:
        """Replace the context vectors of memories (id → (dim,) vector). Returns rows changed. Raises
        InvalidInputError (wrong dimension, non-finite values) before anything is written."""
        blobs = self._context_blobs(vectors)
        return self._replace_context(tenant, blobs) if blobs else 0

    def _replace_context(self, tenant: str, blobs: dict[str, bytes]) -> int:
        raise NotImplementedError


class SQLiteContextMixin(_ContextVectors):
    """Needs ``_read``, ``_tx``, ``_bump_ids``, ``_advance``, ``_items``, ``dim``."""

    _CTX_UPDATE = "UPDATE memories SET context_vec=? WHERE tenant=? AND id=?"
    _read: Any
    _tx: Any
    _bump_ids: Any
    _advance: Any

    def get_context_vectors(self, tenant: str, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored context vectors by memory id, float32 (dim,); ids without one (or unknown) are left out."""
        out: dict[str, np.ndarray] = {}
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            out.update(_decode(self._read(f"SELECT id, context_vec FROM memories WHERE +tenant=? AND id IN "
                                          f"({','.join('?' * len(chunk))})", [tenant, *chunk])))
        return out

    def get_many_with_context(self, tenant: str, ids: list[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``get_many`` and ``get_context_vectors`` in one read per 900 ids (the anchored search path)."""
        from .sqlite import _COLS

        items: dict[str, Any] = {}
        ctx: dict[str, np.ndarray] = {}
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            rows = self._read(f"SELECT {_COLS}, context_vec FROM memories WHERE +tenant=? AND id IN "
                              f"({','.join('?' * len(chunk))})", [tenant, *chunk])
            items.update((it.id, it) for it in self._items([r[:-1] for r in rows]))
            ctx.update(_decode((r[1], r[-1]) for r in rows))
        return items, ctx

    def _replace_context(self, tenant: str, blobs: dict[str, bytes]) -> int:
        with self._tx() as c:
            gens = self._bump_ids(c, tenant, list(blobs))
            n = self._put_context(c, tenant, blobs)
        self._advance(gens)
        return n


class PostgresContextMixin(_ContextVectors):
    """Needs ``_read``, ``_run``, ``_conn``, ``_items``, ``_bump_ids``, ``dim``."""

    _CTX_UPDATE = "UPDATE memories SET context_vec = %s WHERE tenant = %s AND id = %s"
    _read: Any
    _run: Any
    _bump_ids: Any

    def get_context_vectors(self, tenant: str, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored context vectors by memory id, float32 (dim,); ids without one (or unknown) are left out."""
        if not ids:
            return {}
        return _decode(self._read("SELECT id, context_vec FROM memories WHERE tenant = %s AND id = ANY(%s)",
                                  (tenant, list(ids))))

    def get_many_with_context(self, tenant: str, ids: list[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """``get_many`` and ``get_context_vectors`` in one read (the anchored search path)."""
        from .postgres import _COLS

        if not ids:
            return {}, {}
        with self._conn() as conn:
            rows = conn.execute(f"SELECT {_COLS}, context_vec FROM memories WHERE tenant = %s AND id = ANY(%s)",
                                (tenant, list(ids))).fetchall()
            items = self._items(conn, [r[:-1] for r in rows])
        return {it.id: it for it in items}, _decode((r[0], r[-1]) for r in rows)

    def _replace_context(self, tenant: str, blobs: dict[str, bytes]) -> int:
        def run(conn: Any) -> int:
            self._bump_ids(conn, tenant, list(blobs))
            return self._put_context(conn, tenant, blobs)
        return self._run(run)
