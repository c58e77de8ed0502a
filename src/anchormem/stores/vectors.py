"""Per-scope vector search: exact (numpy) for small scopes, HNSW (usearch) past a threshold.

The vectors live in the database; everything here is derived data. A scope's matrix is loaded on first
search and then kept in step with writes (appends and tombstones) so a write never forces a full reload.
The ANN index is built once a scope passes ``ann_threshold`` vectors and saved next to the database, then maintained
on every write (inserts and removals in step with the matrix). A close appends the rows written since the last save
to the saved index's delta (:mod:`.vector_delta`: it costs its writes, not the scope); the whole index is saved again
once that delta is large, or when a reopen had to catch up on many writes. A saved file from an older generation is
not rebuilt: on load it is reconciled with the database (:func:`.vector_delta.reconcile`: rows missing from it are
added, rows no longer current removed, rows whose vector changed re-added), so a reopen after writes costs the
restore plus the delta, never a full build. Only a missing or foreign file (another store, dimension or index
format) is rebuilt from the database. Each save (and delta record) writes a fresh token into the file and, through
``marks``, into the database: a file is taken as it is (no reconcile) only when its generation and size match the
scope's and the database holds its token, so a restored backup or a diverged copy of the database with the same
generation numbers is reconciled rather than served from an index of other rows.

Large inserts (a bulk import's batches, a build from nothing, a large catch-up) are queued and inserted by one
background thread per cache (:meth:`VectorCache._index_loop`), rows not yet in the graph being scored exactly beside
it. Each save also writes the scope's live rows (rowids, memory ids, vectors) beside the index, under the same
token: a reopen at that very state (or at that state and its delta) takes them memory-mapped and maps the index
file (:meth:`VectorCache._restore`), so neither the vectors nor the whole graph are read before the first search.

The scope's *context vectors* (:mod:`.context_vectors`) join the matrix on the first anchored search that asks for
them (:meth:`VectorCache.contexts`), loaded in one read, and are then kept in step with writes too: an anchored
search reads them from memory instead of decoding a blob per candidate. Rows whose context vector the cache does
not know (a text edit re-adds the row without it) are reported missing and read from the database.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..private_files import FILE_MODE, private_dir, write_private
from . import vector_delta

__all__ = ["ScopeVectors", "VectorCache", "DEFAULT_ANN_THRESHOLD"]

# Exact numpy search over 384-d float32 takes ~1 ms per 15k vectors on this machine class (bench/); past
# this size the HNSW index keeps search p50 under the 2 ms target.
DEFAULT_ANN_THRESHOLD = 20_000
_INDEX_BUILD = 3  # saved index files from another build are rebuilt (1: multi-threaded add, may strand vectors)
_READABLE_BUILDS = (2, 3)  # 2: f32 graph, expansion_add 128 (restored as it is: the file says its dtype)
# The graph: vectors stored as f16, expansion_add 64. Inserting is the cost of a bulk load (the HNSW add is ~1 ms per
# vector at 20k for f32 / expansion_add 128): on 20k (and 60k) clustered 384-d vectors, f16 / 64 adds 3.1x faster
# (0.22 ms vs 0.66 ms CPU per vector) with the same recall@10 against exact search (1.000, 200 queries), and
# searches faster (half the memory read per hop). Scores are not taken from the f16 distances: the hits are
# rescored from the f32 matrix (ScopeVectors.ann_search), so a score is the same as the exact path's.
_ANN_PARAMS = {"metric": "ip", "dtype": "f16", "connectivity": 16, "expansion_add": 64, "expansion_search": 64}
# Inserts of at least this many rows (a bulk import's batch, a build from nothing, a large catch-up on reopen) go to
# the cache's background indexer thread (:class:`VectorCache`): usearch releases the GIL while it inserts, so the
# graph grows on a second core while the writer's Python pipeline runs on the first. Rows queued and not yet in the
# graph are searched exactly beside it (:meth:`ScopeVectors.ann_search`), so a search never misses them.
BACKGROUND_ROWS = 256
_CHUNK = 128  # rows the indexer inserts per hold of the cache lock (a write or search waits at most one chunk)
# _ADD_THREADS: HNSW inserts run on one thread. usearch's concurrent add() can strand a stored vector where no
# search reaches it (unum-cloud/USearch#735, fix #772 unmerged as of 2.26.6): on 240 near-duplicate vectors, 31 of
# 9,600 self-queries missed their own vector with threads=0, 0 with threads=1 (40 builds). Costs ~1.8x build time
# (20k x 384 random: 37 s vs 21 s on 2 cores), paid once per scope; the index file is kept beside the database.


_CTX_UNKNOWN, _CTX_NONE, _CTX_STORED = -1, 0, 1  # ScopeVectors._cstate: context vector not cached / NULL / cached
_EMPTY = (np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64))  # no row: rowids, scores, positions


class ScopeVectors:
    """One scope's vectors: a growable float32 matrix (capacity doubling), rowids, the rows' memory ids (None where
    not known: a row appended without it), and a tombstone mask; and, once :meth:`attach_contexts` ran, the rows'
    context vectors (same capacity) with a per-row state (cached, none stored, unknown)."""

    def __init__(self, rowids: np.ndarray, matrix: np.ndarray, generation: int,
                 keys: list[str] | np.ndarray | None = None, *, adopt: bool = False,
                 alive: np.ndarray | None = None) -> None:
        n, dim = matrix.shape
        cap = max(16, n)
        self.dim = dim
        if adopt and n == cap:  # arrays read from the saved scope (:meth:`VectorCache._restore`): used as they are
            self._m, self._ids = matrix, np.asarray(rowids, dtype=np.int64)
        else:
            self._m = np.zeros((cap, dim), dtype=np.float32)
            self._m[:n] = matrix
            self._ids = np.zeros(cap, dtype=np.int64)
            self._ids[:n] = rowids
        # the memory id of each row (object array, None: unknown), so a search maps its ranked rows to ids on
        # arrays (:meth:`keys_at`): a row's id never changes while the row is alive (a reused rowid is a new row)
        self._keys = np.empty(cap, dtype=object)
        if keys is not None:
            self._keys[:n] = keys
        self._alive = np.zeros(cap, dtype=bool)
        self._alive[:n] = True if alive is None else alive  # (alive: the rows a saved delta left, .vector_delta)
        self.n = n
        self.generation = generation
        self.ann = None  # usearch Index, keyed by rowid
        self.ann_dirty = False  # the index changed since it was last saved
        self.ann_view: str | None = None  # the saved file ``ann`` memory-maps (read-only), until a write needs it
        # rowids the saved graph holds that a saved delta removed or re-embedded (.vector_delta): searches fetch past
        # them; they leave the graph once it is loaded into memory (_own_ann)
        self.ann_stale = np.zeros(0, dtype=np.int64)
        # what is saved of this scope (.vector_delta.Saved; None: nothing known to match these rows) and the rows
        # added and removed since (None: not tracked, the next save is a whole one)
        self.saved = None
        self.journal: tuple[list[int], list[int]] | None = None
        live = np.arange(n) if alive is None else np.flatnonzero(alive)
        self.pos = dict(zip(np.asarray(rowids, dtype=np.int64)[live].tolist(), live.tolist()))
        # the rows by rowid, for vectorised lookups (:meth:`positions`): rowids ascending and their positions; None
        # until first needed (and after a compaction or an append below the largest rowid: rebuilt when needed)
        self._by_rowid: tuple[np.ndarray, np.ndarray, int] | None = None  # (rowids, positions, length): buffers
        self._ctx: np.ndarray | None = None  # (capacity, dim) float32 context vectors, after attach_contexts
        self._cstate: np.ndarray | None = None  # (capacity,) int8 _CTX_* per row
        # rowids queued for the HNSW index and not yet in it (a FIFO buffer [_qh, _qt)): the background indexer
        # inserts them; searches score them exactly beside the graph. The vector is read from the matrix when the
        # row is inserted, so a row removed (or re-embedded) meanwhile is skipped (or inserted as it is now).
        self._queue = np.zeros(0, dtype=np.int64)
        self._qh = self._qt = 0
        self.background_rows = BACKGROUND_ROWS

    def _arrays(self) -> tuple[str, ...]:
        return ("_m", "_ids", "_keys", "_alive") + (("_ctx", "_cstate") if self._ctx is not None else ())

    @property
    def nbytes(self) -> int:
        """Bytes held by the matrices (capacity rows)."""
        return sum(getattr(self, name).nbytes for name in self._arrays())

    @property
    def size(self) -> int:
        return len(self.pos)

    def append(self, rowids: np.ndarray, vecs: np.ndarray, contexts: list[np.ndarray | None] | None = None,
               keys: list[str] | None = None) -> None:
        """Add rows. ``contexts``: their context vectors ((dim,) or None for none stored), or None when unknown;
        ``keys``: their memory ids, or None when unknown."""
        rowids = np.asarray(rowids, dtype=np.int64)
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(rowids), self.dim)
        fresh = np.fromiter((int(r) not in self.pos for r in rowids), dtype=bool, count=len(rowids))
        if not fresh.all():  # already loaded (a reload raced with this write): never index a row twice
            rowids, vecs = rowids[fresh], vecs[fresh]
            contexts = None if contexts is None else [c for c, f in zip(contexts, fresh) if f]
            keys = None if keys is None else [x for x, f in zip(keys, fresh) if f]
        k = len(rowids)
        if k == 0:
            return
        if self.n + k > len(self._ids):
            cap = max(2 * len(self._ids), self.n + k)
            for name in self._arrays():
                old = getattr(self, name)
                new = (np.empty if old.dtype == object else np.zeros)((cap,) + old.shape[1:], dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)
        self._m[self.n : self.n + k] = vecs
        self._ids[self.n : self.n + k] = rowids
        self._keys[self.n : self.n + k] = None if keys is None else keys
        self._alive[self.n : self.n + k] = True
        for i, r in enumerate(rowids):
            self.pos[int(r)] = self.n + i
        self._extend_by_rowid(rowids)
        if self._cstate is not None:
            self._cstate[self.n : self.n + k] = _CTX_UNKNOWN
            for i, c in enumerate(contexts or ()):
                self._put_context(self.n + i, c)
        self.n += k
        if self.journal is not None:  # (a row without its memory id, or past the delta's size: the next save is whole)
            if keys is None or vector_delta.too_large(self.saved, len(self.journal[0]) + k):
                self.journal = None
            else:
                self.journal[0].extend(rowids.tolist())
        if self.ann is not None:
            self.index_rows(rowids, vecs)

    def _own_ann(self) -> None:
        """Before the index changes: a memory-mapped (read-only) saved index is loaded into memory."""
        if self.ann_view is not None:
            from usearch.index import Index

            self.ann, self.ann_view = Index.restore(self.ann_view), None
            if len(self.ann_stale):  # rows a saved delta removed or re-embedded: out of the graph now
                self.ann.remove(self.ann_stale.astype(np.uint64))
                self.ann_stale = np.zeros(0, dtype=np.int64)

    @property
    def queued(self) -> int:
        """Rows waiting for the HNSW index (searched exactly meanwhile)."""
        return self._qt - self._qh

    def index_rows(self, rowids: np.ndarray, vecs: np.ndarray | None = None) -> None:
        """Put rows in the HNSW index: inserted now when few and nothing is queued (``vecs``: theirs, else read from
        the matrix), else queued for the background indexer (:meth:`index_queued`)."""
        rowids = np.asarray(rowids, dtype=np.int64)
        if not len(rowids):
            return
        self.ann_dirty = True
        self._own_ann()
        if len(rowids) < self.background_rows and not self.queued:
            if vecs is None:
                vecs = self._m[self.positions(rowids)]
            self.ann.add(rowids.astype(np.uint64), vecs, threads=1)  # see _ADD_THREADS
            return
        self.queue_rows(rowids)

    def queue_rows(self, rowids: np.ndarray) -> None:
        """Queue rows for the background indexer (:meth:`index_queued`); searched exactly until inserted."""
        k = len(rowids)
        if self._qt + k > len(self._queue):
            live = self._queue[self._qh : self._qt]
            buf = np.zeros(max(2 * len(live) + k, 1024), dtype=np.int64)
            buf[: len(live)] = live
            self._queue, self._qh, self._qt = buf, 0, len(live)
        self._queue[self._qt : self._qt + k] = rowids
        self._qt += k

    def index_queued(self, limit: int | None = None) -> int:
        """Insert up to ``limit`` queued rows (all when None) into the HNSW index, oldest first, one thread; rows no
        longer live and rows already in the index are skipped. Returns the rows taken off the queue."""
        end = self._qt if limit is None else min(self._qt, self._qh + limit)
        rows = self._queue[self._qh : end]
        taken = len(rows)
        if taken and self.ann is not None:
            self._own_ann()
            pos = self.positions(rows)
            live = pos >= 0
            rows, pos = rows[live], pos[live]
            if len(rows):
                fresh = ~np.asarray(self.ann.contains(rows.astype(np.uint64)), dtype=bool).reshape(len(rows))
                rows, first = np.unique(rows[fresh], return_index=True)  # a row queued twice: once
                pos = pos[fresh][first]
                if len(rows):
                    self.ann.add(rows.astype(np.uint64), self._m[pos], threads=1)  # see _ADD_THREADS
                    self.ann_dirty = True
        self._qh = end
        if self._qh == self._qt:
            self._qh = self._qt = 0
        return taken

    def remove(self, rowids) -> None:
        for r in rowids:
            i = self.pos.pop(int(r), None)
            if i is not None:
                self._alive[i] = False
                if self.journal is not None:
                    self.journal[1].append(int(r))
                if self.ann is not None:
                    self._own_ann()
                    self.ann.remove(int(r))
                    self.ann_dirty = True
        dead = self.n - len(self.pos)
        if dead > 64 and dead > self.n // 4:
            keep = np.flatnonzero(self._alive[: self.n])
            self._m[: len(keep)] = self._m[keep]
            self._ids[: len(keep)] = self._ids[keep]
            self._keys[: len(keep)] = self._keys[keep]
            self._keys[len(keep) : self.n] = None
            if self._ctx is not None:
                self._ctx[: len(keep)] = self._ctx[keep]
                self._cstate[: len(keep)] = self._cstate[keep]
            self._alive[: self.n] = False
            self._alive[: len(keep)] = True
            self.n = len(keep)
            self.pos = {int(r): i for i, r in enumerate(self._ids[: self.n])}
            self._by_rowid = None

    def _extend_by_rowid(self, rowids: np.ndarray) -> None:
        """Keep :meth:`positions`' arrays in step with rows just appended at ``self.n``: new rowids above every
        known one (the usual write) are appended; otherwise the arrays are rebuilt when next needed."""
        got = self._by_rowid
        k = len(rowids)
        if got is None or not k:
            return
        srow, spos, m = got
        if not (bool(np.all(np.diff(rowids) > 0)) and (not m or rowids[0] > srow[m - 1])):
            self._by_rowid = None
            return
        if m + k > len(srow):  # capacity doubling: a write costs its own rows, not a copy of the scope's
            cap = max(2 * len(srow), m + k, 16)
            srow, spos = np.resize(srow, cap), np.resize(spos, cap)
        srow[m : m + k] = rowids
        spos[m : m + k] = np.arange(self.n, self.n + k, dtype=np.int64)
        self._by_rowid = (srow, spos, m + k)

    def positions(self, rowids: np.ndarray) -> np.ndarray:
        """The positions (int64, (k,)) of ``rowids`` ((k,) int) in this scope's matrix, -1 for a row that is not
        one of its live rows: what ``pos.get(r, -1)`` gives, for many rows at once (a search's few hundred
        candidates: binary search over the rows sorted by rowid, no dict lookup per row)."""
        q = np.asarray(rowids, dtype=np.int64)
        if self._by_rowid is None:  # live rows only: a dead row's rowid may be reused by a live one
            live = np.flatnonzero(self._alive[: self.n])
            order = live[np.argsort(self._ids[live], kind="stable")]
            self._by_rowid = (self._ids[order], order.astype(np.int64), len(order))
        srow, spos, m = self._by_rowid
        srow, spos = srow[:m], spos[:m]
        if not len(srow) or not len(q):
            return np.full(len(q), -1, dtype=np.int64)
        i = np.minimum(np.searchsorted(srow, q), len(srow) - 1)
        at = spos[i]
        ok = (srow[i] == q) & self._alive[at]
        return np.where(ok, at, -1)

    def _put_context(self, i: int, v: np.ndarray | None) -> None:
        if v is None:
            self._cstate[i] = _CTX_NONE
        else:
            self._ctx[i] = v
            self._cstate[i] = _CTX_STORED

    def attach_contexts(self, rowids: np.ndarray, matrix: np.ndarray, stored: np.ndarray) -> None:
        """Start keeping context vectors: ``matrix`` (k, dim) for ``rowids`` (k,), ``stored`` (k,) bool (False:
        none stored, the row of ``matrix`` is ignored). Rows of the scope not among ``rowids`` stay unknown."""
        cap = len(self._ids)
        self._ctx = np.zeros((cap, self.dim), dtype=np.float32)
        self._cstate = np.full(cap, _CTX_UNKNOWN, dtype=np.int8)
        for r, v, has in zip(np.asarray(rowids).tolist(), matrix, np.asarray(stored).tolist()):
            i = self.pos.get(r)
            if i is not None:
                self._put_context(i, v if has else None)

    def set_contexts(self, contexts: dict[int, np.ndarray | None]) -> None:
        """Replace cached context vectors by rowid (None: none stored); a no-op before :meth:`attach_contexts`."""
        if self._ctx is None:
            return
        for r, v in contexts.items():
            i = self.pos.get(int(r))
            if i is not None:
                self._put_context(i, None if v is None else np.asarray(v, dtype=np.float32).reshape(self.dim))

    def contexts(self, rowids: list[int]) -> tuple[list[int], np.ndarray, list[int]]:
        """(rowids with a cached context vector, their vectors (k, dim) float32 (a copy), rowids the cache does not
        know: not in the scope or unknown). Rows known to have none are in neither list."""
        rids = np.asarray(rowids, dtype=np.int64)
        idx = np.fromiter((self.pos.get(r, -1) for r in rowids), dtype=np.int64, count=len(rowids))
        state = np.where(idx >= 0, self._cstate[idx], _CTX_UNKNOWN)  # idx -1 reads a row the mask then drops
        stored = state == _CTX_STORED
        return rids[stored].tolist(), self._ctx[idx[stored]], rids[state == _CTX_UNKNOWN].tolist()

    def keys_at(self, positions: np.ndarray) -> list[str | None]:
        """The memory ids of the rows at ``positions`` ((k,) int, each a live row's: :meth:`positions` >= 0), in
        order; None for a row whose id the scope was not given."""
        return self._keys[positions].tolist()

    def exact(self, q: np.ndarray, k: int, allowed: set[int] | None, positions: bool = False) -> tuple:
        """Top-k (rowids, cosine scores) by exact inner product, optionally restricted to ``allowed`` rowids; with
        ``positions``, their positions in the matrix too (for :meth:`keys_at`)."""
        if allowed is not None:
            idx = np.sort(np.fromiter((self.pos[r] for r in allowed if r in self.pos), dtype=np.int64))  # not set order
            if idx.size == 0:
                return _EMPTY[: 3 if positions else 2]
            scores = self._m[idx] @ q
        else:  # score the whole live block in place (no gathered copy), then keep the alive rows
            idx = np.flatnonzero(self._alive[: self.n])
            if idx.size == 0:
                return _EMPTY[: 3 if positions else 2]
            scores = (self._m[: self.n] @ q)[idx] if idx.size != self.n else self._m[: self.n] @ q
        if idx.size > k:
            top = np.argpartition(-scores, k - 1)[:k]
        else:
            top = np.arange(idx.size)
        order = top[np.lexsort((idx[top], -scores[top]))]  # best first, ties by row (a stable key)
        return (self._ids[idx[order]], scores[order]) + ((idx[order],) if positions else ())

    def ann_search(self, q: np.ndarray, k: int, allowed: set[int] | None, positions: bool = False) -> tuple:
        """Top-k via HNSW; with ``allowed``, over-fetches and post-filters, falling back to exact if short. Returns
        as :meth:`exact` does."""
        if self.queued * 2 > self.size:  # most rows not in the graph yet (a build in progress): exact
            return self.exact(q, k, allowed, positions)
        want = (k if allowed is None else min(self.size, k * 20)) + len(self.ann_stale)  # (stale: dropped below)
        res = self.ann.search(q, want)
        keys = np.asarray(res.keys, dtype=np.int64)
        if allowed is not None:
            keys = keys[np.fromiter([x in allowed for x in keys.tolist()], dtype=bool, count=len(keys))]
            if len(keys) < k:
                return self.exact(q, k, allowed, positions)
        # rescored from the f32 matrix (the graph holds f16 copies): the scores and order of the exact path
        idx = self.positions(keys)
        idx = idx[idx >= 0]
        if self.queued:  # rows not in the graph yet: every one scored (exactly), beside the graph's hits
            tail = self._queue[self._qh : self._qt]
            if allowed is not None:
                tail = tail[np.fromiter([x in allowed for x in tail.tolist()], dtype=bool, count=len(tail))]
            more = self.positions(tail)
            idx = np.unique(np.concatenate([idx, more[more >= 0]]))
        scores = self._m[idx] @ q
        order = np.lexsort((idx, -scores))[:k]
        return (self._ids[idx[order]], scores[order]) + ((idx[order],) if positions else ())


class VectorCache:
    """Bounded LRU of :class:`ScopeVectors` keyed by scope; thread-safe."""

    def __init__(self, dim: int, *, ann_threshold: int = DEFAULT_ANN_THRESHOLD, index_dir: Path | None = None,
                 max_bytes: int = 1 << 30, store_id: str = "",
                 marks: tuple[Callable[[str], str | None], Callable[[str, str], None]] | None = None) -> None:
        self.dim = dim
        # (read, write) of a per-file token kept in the database (SQLite's meta table): a saved index is trusted
        # as it is only when the database holds the token of the file (see _attach_ann)
        self.marks = marks
        self.store_id = store_id  # ties saved index files to one database: a recreated file never reuses them
        self.ann_threshold = ann_threshold
        self.index_dir = index_dir
        self.max_bytes = max_bytes
        self._lock = threading.RLock()
        self._items: OrderedDict[tuple[str, str], ScopeVectors] = OrderedDict()
        self.background_rows = BACKGROUND_ROWS
        self._wake = threading.Condition(self._lock)  # the indexer waits here for queued rows
        self._indexer: threading.Thread | None = None
        self._stopped = False

    def _path(self, key: tuple[str, str]) -> Path | None:
        if self.index_dir is None:
            return None
        import hashlib

        h = hashlib.sha1("\x00".join(key).encode("utf-8")).hexdigest()[:20]
        return self.index_dir / f"{h}.usearch"

    def get(self, key: tuple[str, str], generation: int,
            loader: Callable[[], tuple]) -> ScopeVectors:
        """The scope's vectors at ``generation``, loading them when the cache is missing or behind. ``loader``
        returns ``(rowids, matrix)`` or ``(rowids, matrix, generation)`` read in one snapshot (preferred: the
        cached copy is then labelled with the generation its rows really belong to), or ``(rowids, matrix,
        generation, memory ids)`` (:meth:`ScopeVectors.keys_at`)."""
        with self._lock:
            sv = self._items.get(key)
            if sv is not None and sv.generation == generation:
                self._items.move_to_end(key)
                return sv
        sv = self._restore(key, generation)
        if sv is None:
            loaded = loader()
            rowids, matrix = loaded[0], loaded[1]
            if len(loaded) > 2:
                generation = loaded[2]
            sv = ScopeVectors(rowids, matrix.reshape(len(rowids), self.dim), generation,
                              loaded[3] if len(loaded) > 3 else None)
        sv.background_rows = self.background_rows
        if sv.ann is None and sv.size >= self.ann_threshold:
            self._attach_ann(key, sv)
        with self._lock:
            self._items[key] = sv
            self._items.move_to_end(key)
            self._evict()
            if sv.ann_view is None or sv.queued >= sv.background_rows:  # a small saved delta stays queued (searched
                self._kick(sv)  # exactly) and the graph mapped, until a write loads it
        return sv

    def _kick(self, sv: ScopeVectors) -> None:
        """(Under the lock.) Wake the indexer thread, started on first use, when ``sv`` has rows queued."""
        if not sv.queued or self._stopped:
            return
        if self._indexer is None or not self._indexer.is_alive():
            self._indexer = threading.Thread(target=self._index_loop, name="anchormem-hnsw-indexer", daemon=True)
            self._indexer.start()
        self._wake.notify()

    def _index_loop(self) -> None:
        """The background indexer: inserts queued rows of the cached scopes into their HNSW index, ``_CHUNK`` rows
        per hold of the lock (usearch releases the GIL while inserting, so the caller's thread runs meanwhile on
        another core; a write or search waits for at most one chunk). Exits when the cache is closed."""
        import time

        while True:
            with self._wake:
                busy = next((sv for sv in self._items.values() if sv.queued and sv.ann is not None), None)
                while busy is None and not self._stopped:
                    self._wake.wait()
                    busy = next((sv for sv in self._items.values() if sv.queued and sv.ann is not None), None)
                if self._stopped:
                    return
                busy.index_queued(_CHUNK)
            time.sleep(0.0005)  # let a thread blocked on the lock take it before the next chunk

    def wait_indexed(self, key: tuple[str, str] | None = None) -> None:
        """Insert every queued row (of ``key``, or of every cached scope) now, in this thread."""
        with self._lock:
            for k, sv in list(self._items.items()):
                if (key is None or k == key) and sv.ann is not None and sv.queued:
                    sv.index_queued()

    def close(self) -> None:
        """Stop the indexer thread (queued rows stay queued: :meth:`persist` inserts them before a save)."""
        with self._wake:
            self._stopped = True
            self._wake.notify_all()
        t = self._indexer
        if t is not None and t is not threading.current_thread():
            t.join(timeout=60)

    def cached(self, key: tuple[str, str], generation: int) -> ScopeVectors | None:
        """The scope's cached vectors when they are at ``generation`` (its ``pos``: the rowids of the scope's
        current warm rows then), else None; nothing is loaded."""
        with self._lock:
            sv = self._items.get(key)
            return sv if sv is not None and sv.generation == generation else None

    def cached_size(self, key: tuple[str, str]) -> int | None:
        """Rows of the scope's cached vectors (current, warm), whatever their generation; None when the scope is not
        cached. Nothing is loaded: a cost estimate for a caller that must not pay for a load (the keyword stage)."""
        with self._lock:
            sv = self._items.get(key)
            return None if sv is None else sv.size

    def _evict(self) -> None:
        total = sum(s.nbytes for s in self._items.values())
        while total > self.max_bytes and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            total -= old.nbytes

    def contexts(self, key: tuple[str, str], generation: int, rowids: list[int],
                 loader: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray, int]]
                 ) -> tuple[list[int], np.ndarray, list[int]] | None:
        """Cached context vectors of ``rowids`` in the scope at ``generation``: see :meth:`ScopeVectors.contexts`;
        None when the scope is not cached at that generation. The first call loads the scope's context vectors
        with ``loader`` (``(rowids, matrix (k, dim), stored (k,) bool, generation)`` from one snapshot; kept only
        when that generation is the cached one)."""
        with self._lock:
            sv = self._items.get(key)
            if sv is None or sv.generation != generation:
                return None
            if sv._ctx is not None:
                return sv.contexts(rowids)
        rids, mat, stored, gen = loader()
        with self._lock:
            if self._items.get(key) is not sv or sv.generation != gen or gen != generation:
                return None  # a write landed meanwhile: the caller reads from the database this time
            if sv._ctx is None:
                sv.attach_contexts(rids, mat, stored)
                self._evict()
            return sv.contexts(rowids)

    def _attach_ann(self, key: tuple[str, str], sv: ScopeVectors) -> None:
        """Give ``sv`` its HNSW index: the saved file reconciled with ``sv`` when it is this store's (any
        generation), else a build from ``sv``'s rows (saved)."""
        from usearch.index import Index

        path = self._path(key)
        meta = path.with_suffix(".json") if path else None
        if path and path.exists() and meta.exists():
            try:
                info = json.loads(meta.read_text())
                if (info.get("store_id") == self.store_id and info.get("dim") == self.dim
                        and info.get("build") in _READABLE_BUILDS):
                    idx = Index.restore(str(path))
                    marked = idx is not None and self._marked(path, info)
                    if marked and info.get("generation") == sv.generation and len(idx) == sv.size:
                        sv.ann = idx  # saved at this very state: nothing to catch up
                        sv.ann_dirty = not info.get("side")  # (saved again on close with its rows: _restore)
                        return
                    if idx is not None:
                        sv.ann = idx
                        changed = vector_delta.reconcile(idx, sv)
                        if info.get("generation") != sv.generation or changed or not marked:
                            # saved again once the catch-up is large (after the indexer inserted it, or on
                            # close); small deltas wait for persist()
                            sv.ann_dirty = True
                            if changed > max(1000, sv.size // 20) and not sv.queued:
                                self._save(key, sv)
                        return
            except (OSError, ValueError, RuntimeError):
                sv.ann = None  # unreadable: rebuild below
        idx = Index(ndim=self.dim, **_ANN_PARAMS)
        alive = np.flatnonzero(sv._alive[: sv.n])
        sv.ann = idx
        if alive.size:
            sv.index_rows(sv._ids[alive], sv._m[alive])  # many rows: built by the indexer (saved on close)
        if not sv.queued:
            self._save(key, sv)

    def _restore(self, key: tuple[str, str], generation: int) -> ScopeVectors | None:
        """The scope as saved beside its HNSW file (:meth:`_save`), when that save is of this very state (this store,
        the scope's ``generation``, the database's token): rowids and memory ids read, the vectors memory-mapped
        (copy on write) and the index memory-mapped until a write changes it. A reopen then reads neither the
        vectors from the database nor the whole index file. None when there is no such save."""
        path = self._path(key)
        if path is None or not path.exists():
            return None
        try:
            info = json.loads(path.with_suffix(".json").read_text())
            side = path.with_suffix(".rows.npz")
            if not (info.get("store_id") == self.store_id and info.get("dim") == self.dim and info.get("side")
                    and info.get("build") in _READABLE_BUILDS and side.exists()):
                return None
            token = info.get("token")
            records = vector_delta.read_log(path.with_suffix(".delta"), token) if token else []
            mark = self.marks[0](path.stem) if self.marks is not None else (records[-1].token if records else token)
            # the state the database's mark names: the base, or the base and the delta up to one record
            upto = 0 if mark == token else next((i + 1 for i, r in enumerate(records) if r.token == mark), None)
            if upto is None:
                return None
            records = records[:upto]
            if (records[-1].generation if records else info.get("generation")) != generation:
                return None
            with np.load(side) as z:
                if str(z["token"]) != token:
                    return None
                rowids, ids = z["rows"], z["ids"]
            matpath = path.with_name(f"{path.stem}.{token}.mat.npy")
            mat = np.load(matpath, mmap_mode="c")  # (the base's rows: its header's shape)
            if mat.shape != (len(rowids), self.dim) or len(rowids) != info.get("size"):
                return None
            rows, keys, alive, added, stale = vector_delta.replay(rowids, ids.astype(object), records)
            if len(rows) > len(rowids):  # the base's rows and the delta's appended after them, as one matrix
                mat = np.memmap(matpath, dtype="<f4", mode="c", shape=(len(rows), self.dim),
                                offset=vector_delta.npy_offset(matpath))
            from usearch.index import Index

            idx = Index.restore(str(path), view=True)
            if idx is None or len(idx) != len(rowids):
                return None
        except (OSError, ValueError, KeyError, RuntimeError):
            return None
        sv = ScopeVectors(rows, mat, generation, keys, adopt=True, alive=alive)
        sv.ann, sv.ann_view, sv.ann_stale = idx, str(path), stale
        if len(added):  # the delta's rows: searched exactly until the indexer puts them in the graph
            sv.queue_rows(added)
        sv.saved = vector_delta.Saved(token, len(rowids), len(rows), records[-1].end if records else 0,
                                      sum(len(r.added) + len(r.removed) for r in records), rowids)
        sv.journal = ([], [])
        return sv

    def _save_side(self, path: Path, sv: ScopeVectors, token: str) -> bool:
        """Save the scope's live rows beside its index (rowids, memory ids, the vectors) for :meth:`_restore`: the
        rows and ids in ``<name>.rows.npz`` with ``token``, the vectors in ``<name>.<token>.mat.npy`` (named by
        the token: a crash between the two writes leaves no file the other would be taken with). Only when every
        row's memory id is known and nothing is queued. Returns whether it was saved."""
        alive = np.flatnonzero(sv._alive[: sv.n])
        keys = sv._keys[alive]
        if sv.queued or (keys == None).any():  # noqa: E711 - elementwise on an object array
            return False
        for old in path.parent.glob(f"{path.stem}.*.mat.npy"):
            old.unlink(missing_ok=True)
        mat = path.with_name(f"{path.stem}.{token}.mat.npy")
        for target, write in ((mat, lambda fh: np.save(fh, sv._m[alive] if len(alive) < sv.n else sv._m[: sv.n])),
                              (path.with_suffix(".rows.npz"), lambda fh: np.savez(
                                  fh, rows=sv._ids[alive], ids=keys.astype(str), token=np.array(token)))):
            tmp = target.with_name(target.name + ".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
            with os.fdopen(fd, "wb") as fh:
                write(fh)
            os.replace(tmp, target)
        return True

    def _marked(self, path: Path, info: dict) -> bool:
        """The database holds the token the file was saved with, or there are no marks to check. Otherwise the
        database is another state than the file was saved beside (a backup restored, newer or older; a copy that
        diverged: the same generation numbers, other rows), and the file is reconciled row by row, not trusted."""
        if self.marks is None:
            return True
        try:
            return info.get("token") is not None and self.marks[0](path.stem) == info.get("token")
        except Exception:  # noqa: BLE001 - an unreadable mark only costs a reconcile
            return False

    def _save(self, key: tuple[str, str], sv: ScopeVectors) -> None:
        path = self._path(key)
        if not path or sv.ann is None:
            return
        try:
            private_dir(path.parent)  # 0700: the index holds the vectors of memories
            tmp = path.with_suffix(".tmp")
            sv.ann.save(str(tmp))
            os.chmod(tmp, FILE_MODE)
            os.replace(tmp, path)
            token = uuid.uuid4().hex
            side = self._save_side(path, sv, token)
            write_private(path.with_suffix(".json"), json.dumps(
                {"generation": sv.generation, "size": sv.size, "store_id": self.store_id, "dim": self.dim,
                 "build": _INDEX_BUILD, "token": token, "side": side}))
            path.with_suffix(".delta").unlink(missing_ok=True)  # (its records name the old base: ignored anyway)
            sv.ann_dirty = False
            sv.saved, sv.journal = None, None
            if side:  # what is saved now: the base (its rows in file order), an empty delta
                rows = sv._ids[np.flatnonzero(sv._alive[: sv.n])]
                sv.saved, sv.journal = vector_delta.Saved(token, len(rows), len(rows), rows=rows), ([], [])
            if self.marks is not None:
                self.marks[1](path.stem, token)
        except OSError:
            pass  # the index is derived data; failing to persist it only costs a catch-up later
        except Exception:  # noqa: BLE001 - the mark not written: the next open reconciles instead of trusting
            pass

    def persist(self, generation: Callable[[tuple[str, str]], int]) -> int:
        """Save every cached HNSW index that changed since it was saved (a store calls this on close), so the
        next open restores it with no catch-up. ``generation(key)``: the scope's generation in the database now;
        a cached scope behind it (another process wrote, or purged: its file was deleted) is not saved. Returns
        the number of files written."""
        with self._lock:
            dirty = [(k, sv) for k, sv in self._items.items() if sv.ann is not None and (
                (sv.ann_dirty or sv.queued) if sv.journal is None or sv.saved is None else any(sv.journal))]
        written = 0
        for key, sv in dirty:
            try:
                current = generation(key)
            except Exception:  # noqa: BLE001 - closing must not fail over derived data
                continue
            with self._lock:
                if self._items.get(key) is sv and sv.generation == current:
                    if not self._append_delta(key, sv):
                        sv.index_queued()  # what the indexer has not inserted yet, here
                        self._save(key, sv)
                    written += 1
        return written

    def _append_delta(self, key: tuple[str, str], sv: ScopeVectors) -> bool:
        """(Under the lock.) Save the rows ``sv`` added and removed since it was saved as one record of its delta
        (:mod:`.vector_delta`), its new token marked in the database. False when a whole save is due instead: no
        delta tracked, a row's memory id unknown, or the delta past the compaction threshold."""
        path = self._path(key)
        token = None if path is None else vector_delta.save_journal(path, sv)
        if token is None:
            return False
        if self.marks is not None:
            try:
                self.marks[1](path.stem, token)
            except Exception:  # noqa: BLE001 - the mark not written: the next open reconciles instead of trusting
                pass
        return True

    def apply(self, key: tuple[str, str], old_generation: int, new_generation: int,
              added: tuple | None = None, removed: list[int] | None = None, *,
              added_contexts: list[np.ndarray | None] | None = None,
              contexts: dict[int, np.ndarray | None] | None = None) -> None:
        """Keep a cached scope in step with a committed write; drop it if it missed an earlier write.
        ``added``: (rowids, vectors) or (rowids, vectors, memory ids) of the rows added; ``added_contexts``: the
        context vectors of the ``added`` rows (None: unknown); ``contexts``: context vectors the write replaced, by
        rowid."""
        with self._lock:
            sv = self._items.get(key)
            if sv is None:
                return
            if sv.generation != old_generation:
                del self._items[key]
                return
            if removed:
                sv.remove(removed)
            if added is not None and len(added[0]):
                sv.append(added[0], added[1], added_contexts, added[2] if len(added) > 2 else None)
            if contexts:
                sv.set_contexts(contexts)
            sv.generation = new_generation
            if sv.ann is None and sv.size >= self.ann_threshold:
                self._attach_ann(key, sv)
            self._kick(sv)

    def search(self, sv: ScopeVectors, q: np.ndarray, k: int, allowed: set[int] | None,
               keys: bool = False) -> tuple:
        """Top-k (rowids, scores) of ``sv`` (:meth:`ScopeVectors.exact`), by HNSW when it has one; with ``keys``,
        their memory ids too (:meth:`ScopeVectors.keys_at`, read under the same lock as the positions: a write
        compacting the scope in another thread cannot shift them in between)."""
        with self._lock:
            if sv.ann is not None and (allowed is None or len(allowed) > self.ann_threshold):
                got = sv.ann_search(q, k, allowed, keys)
            else:
                got = sv.exact(q, k, allowed, keys)
            return (got[0], got[1], sv.keys_at(got[2])) if keys else got

    def live_keys(self, sv: ScopeVectors, rowids: np.ndarray) -> tuple[np.ndarray, list[str | None]]:
        """((k,) bool: which of ``rowids`` are live rows of ``sv``, the memory ids of those (None: not known)),
        read under the cache's lock (:meth:`search`)."""
        with self._lock:
            pos = sv.positions(rowids)
            live = pos >= 0
            return live, sv.keys_at(pos[live])

    def has_ann(self, key: tuple[str, str]) -> bool:
        """Whether the scope is cached with an HNSW index."""
        with self._lock:
            sv = self._items.get(key)
            return sv is not None and sv.ann is not None

    def drop(self, key: tuple[str, str]) -> None:
        with self._lock:
            self._items.pop(key, None)
        path = self._path(key)
        if path:
            for p in (path, path.with_suffix(".json"), path.with_suffix(".rows.npz"), path.with_suffix(".delta"),
                      *path.parent.glob(f"{path.stem}.*.mat.npy")):
                try:
                    p.unlink()
                except FileNotFoundError:
                    pass

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
