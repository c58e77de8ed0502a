"""The saved vector index's delta: what changed in a scope since its index was last saved whole, appended on close.

A whole save (:meth:`.vectors.VectorCache._save`) writes the scope's HNSW graph (``<name>.usearch``), its live rows'
vectors (``<name>.<token>.mat.npy``, float32 (rows, dim)) and their rowids and memory ids (``<name>.rows.npz``):
1.5 GB of vectors and ~0.9 GB of graph at 1M memories, rewritten by every close that followed a write. Instead, a
close after N writes appends them (:func:`append`): the N new rows' vectors at the end of the ``.mat.npy`` file
(the base rows before them are never rewritten) and one record to ``<name>.delta``: the rowids removed (a delete,
a supersede, an archive; a re-embedded row is removed then added), the rowids and memory ids added, the scope's
generation and size after it, and a token the database keeps too (the store's marks). A reopen (:func:`replay`)
maps the base vectors and the appended ones as one matrix, takes the rows the records add and leaves out those
they remove; the graph file is the base's (memory-mapped), the added rows are searched exactly beside it until the
background indexer inserts them, and removed rows still in the graph are skipped (fetched beyond ``k``, then
dropped). A close therefore costs its own writes, not the scope; once the records hold more than
:data:`COMPACT_FRACTION` of the base rows (and at least :data:`COMPACT_MIN` rows), the next close saves the
whole index again (compaction) and the delta starts empty.

Record layout (little-endian): :data:`_HEAD` (magic, the base's token and the record's, 16 bytes each, the
generation and size after the record, the numbers of removed and added rowids, the byte length of the memory ids'
JSON, and a CRC-32 of the payload) then the payload: removed rowids (int64), added rowids (int64), the added
memory ids as a JSON list (UTF-8). A record is taken only whole: a short or mismatched one (a close killed while
appending: ``kill -9``, a full disk) ends the log there, and the next append truncates it away; the vectors
appended before it, beyond the rows its predecessors account for, are cut off too. Nothing of the base is ever
rewritten by an append, so a torn delta costs at most a reconcile (the reopen falls back to the base file
reconciled with the database: :meth:`.vectors.VectorCache._attach_ann`), never a wrong index.
"""

from __future__ import annotations

import json
import os
import struct
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..private_files import FILE_MODE

__all__ = ["Record", "Saved", "read_log", "append", "save_journal", "too_large", "replay", "reconcile", "COMPACT_FRACTION", "COMPACT_MIN",
           "npy_offset"]

_MAGIC = b"AMV1"
_HEAD = struct.Struct("<4s16s16sqqqqqI")  # magic, base token, record token, generation, size, removed, added,
# ids bytes, crc32 of the payload
COMPACT_FRACTION = 1 / 32
"""A close saves the whole index again once the delta's rows (added + removed, summed over its records) pass this
fraction of the base's rows. A reopen re-inserts the delta's added rows into the graph in the background (~0.2 ms
CPU per row, :mod:`.vectors`), while a whole save writes ~2.4 KB per row of the scope (vectors and graph): at 1/32
a reopen's catch-up stays a few seconds of a background thread at 1M rows, and the rewrite is paid once per 3% of
growth instead of once per session (bench/results/scale15_vector_close.json)."""
COMPACT_MIN = 2048
"""...and at least this many rows (a small scope is cheap to save whole)."""


@dataclass
class Record:
    """One appended record: the state after it (``token``, ``generation``, ``size``), its rows, and ``end``: the
    log's length up to and including it."""

    token: str
    generation: int
    size: int
    removed: np.ndarray  # (r,) int64
    added: np.ndarray  # (a,) int64
    ids: list[str]
    end: int


@dataclass
class Saved:
    """What is on disk for a cached scope, as of the state it was read or last written at: the base's token and
    rows, the rows in the ``.mat.npy`` file (base rows + every added row of the kept records), the log's length
    and the delta's rows (added + removed). ``rows``: the base rowids in file order."""

    token: str
    base_size: int
    mat_rows: int
    log_end: int = 0
    delta_rows: int = 0
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def _tok(token: str) -> bytes:
    return bytes.fromhex(token)[:16].ljust(16, b"\0")


def read_log(path: Path, base_token: str) -> list[Record]:
    """The whole records of the log at ``path`` for the base saved with ``base_token``, in order; reading stops at
    the first record that is short, damaged or of another base. ``[]`` when there is no log."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    out: list[Record] = []
    pos, want = 0, _tok(base_token)
    while pos + _HEAD.size <= len(data):
        magic, base, tok, gen, size, nr, na, nid, crc = _HEAD.unpack_from(data, pos)
        body = pos + _HEAD.size
        end = body + 8 * (nr + na) + nid
        if magic != _MAGIC or base != want or min(nr, na, nid) < 0 or end > len(data):
            break
        payload = data[body:end]
        if zlib.crc32(payload) != crc:
            break
        try:
            ids = json.loads(payload[8 * (nr + na):].decode("utf-8"))
        except ValueError:
            break
        if len(ids) != na:
            break
        out.append(Record(tok.hex(), gen, size, np.frombuffer(payload, "<i8", nr).astype(np.int64),
                          np.frombuffer(payload, "<i8", na, 8 * nr).astype(np.int64), ids, end))
        pos = end
    return out


def npy_offset(path: Path) -> int:
    """Where the rows of the ``.npy`` file at ``path`` start (the length of its header)."""
    with open(path, "rb") as fh:
        fmt = np.lib.format
        (fmt.read_array_header_1_0 if fmt.read_magic(fh) == (1, 0) else fmt.read_array_header_2_0)(fh)
        return fh.tell()


def append(log: Path, mat: Path, saved: Saved, token: str, generation: int, size: int, removed: np.ndarray,
           added: np.ndarray, ids: list[str], vectors: np.ndarray) -> None:
    """Append one record (``removed``, ``added`` rowids with their memory ``ids`` and ``vectors`` (a, dim) float32)
    after the state ``saved`` describes: the ``.mat.npy`` file is first cut to the rows that state accounts for
    and the log to its length (dropping what a killed close left), then the vectors are appended, then the
    record. ``saved`` is updated to the new state. Raises OSError."""
    row_bytes = vectors.shape[1] * 4 if vectors.ndim == 2 and vectors.shape[1] else 0
    with open(mat, "r+b") as fh:
        start = npy_offset(mat)
        if row_bytes == 0:
            fh.seek(0, os.SEEK_END)
        else:
            fh.truncate(start + saved.mat_rows * row_bytes)
            fh.seek(0, os.SEEK_END)
            fh.write(np.ascontiguousarray(vectors, dtype="<f4").tobytes())
        fh.flush()
        os.fsync(fh.fileno())
    payload = (np.asarray(removed, "<i8").tobytes() + np.asarray(added, "<i8").tobytes()
               + json.dumps(list(ids), ensure_ascii=False).encode("utf-8"))
    nid = len(payload) - 8 * (len(removed) + len(added))
    head = _HEAD.pack(_MAGIC, _tok(saved.token), _tok(token), generation, size, len(removed), len(added), nid,
                      zlib.crc32(payload))
    fd = os.open(log, os.O_RDWR | os.O_CREAT, FILE_MODE)
    with os.fdopen(fd, "r+b") as fh:
        fh.truncate(saved.log_end)
        fh.seek(saved.log_end)
        fh.write(head + payload)
        fh.flush()
        os.fsync(fh.fileno())
    saved.mat_rows += len(added)
    saved.log_end += len(head) + len(payload)
    saved.delta_rows += len(removed) + len(added)


def too_large(saved: Saved | None, rows: int) -> bool:
    """``rows`` more in the delta of ``saved`` pass the compaction threshold (no saved state: True)."""
    return saved is None or saved.delta_rows + rows > max(COMPACT_MIN, saved.base_size * COMPACT_FRACTION)


def save_journal(path: Path, sv: Any) -> str | None:
    """Append the rows the cached scope ``sv`` (a :class:`.vectors.ScopeVectors` whose ``saved`` state is on disk
    at ``path``, the ``.usearch`` file) added and removed since (its ``journal``) as one record; its journal is then
    empty. Returns the record's token, or None (nothing written) when a whole save is due instead: no state or
    journal tracked, a row's memory id unknown, the delta past the compaction threshold, or the files unwritable."""
    saved, journal = sv.saved, sv.journal
    if saved is None or journal is None:
        return None
    removed = np.unique(np.asarray(journal[1], dtype=np.int64))
    added = np.asarray(list(dict.fromkeys(journal[0])), dtype=np.int64)
    pos = sv.positions(added)
    added, pos = added[pos >= 0], pos[pos >= 0]  # added, then removed again: nothing to keep
    keys = sv._keys[pos]
    if (keys == None).any() or too_large(saved, len(removed) + len(added)):  # noqa: E711 - elementwise
        return None
    token = uuid.uuid4().hex
    try:
        append(path.with_suffix(".delta"), path.with_name(f"{path.stem}.{saved.token}.mat.npy"), saved, token,
               sv.generation, sv.size, removed, added, keys.tolist(), sv._m[pos].reshape(len(pos), sv.dim))
    except (OSError, ValueError):
        return None
    sv.journal = ([], [])
    return token


def replay(rows: np.ndarray, ids: np.ndarray, records: list[Record]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The scope after the base (``rows``, memory ``ids``) and ``records``: ``(rowids, ids (object), alive (bool),
    added, stale)`` over the base rows followed by every record's added rows (the ``.mat.npy`` file's order); a row
    removed after it was added is not alive. ``added``: the rowids added and still alive (not in the base graph);
    ``stale``: base rowids the records removed (in the base graph, not to be returned from it)."""
    extra = [r.added for r in records]
    rowids = np.concatenate([np.asarray(rows, np.int64), *extra]) if extra else np.asarray(rows, np.int64)
    keys = np.empty(len(rowids), dtype=object)
    keys[: len(rows)] = ids
    alive = np.ones(len(rowids), dtype=bool)
    pos: dict[int, int] | None = None
    at = len(rows)
    for r in records:
        if len(r.removed):
            if pos is None:  # built once, only when a record removes rows
                pos = dict(zip(rowids[:at].tolist(), range(at)))
            for x in r.removed.tolist():
                i = pos.pop(x, None)
                if i is not None:
                    alive[i] = False
        keys[at : at + len(r.added)] = r.ids
        if pos is not None:
            pos.update(zip(r.added.tolist(), range(at, at + len(r.added))))
        at += len(r.added)
    removed = np.concatenate([r.removed for r in records]) if records else np.zeros(0, np.int64)
    stale = np.unique(removed[np.isin(removed, rows)])
    live_added = rowids[len(rows):][alive[len(rows):]]
    return rowids, keys, alive, live_added, stale


def reconcile(idx: Any, sv: Any) -> int:
    """Bring a restored index in line with ``sv`` (the database's current rows): remove keys that are no
    longer current, add rows it lacks, re-add rows whose stored vector differs (compared at the graph's
    precision; a text edit re-embeds under the same rowid). Cost: one pass over the keys and vectors
    (vectorised), plus one insert per changed row (queued for the background indexer when many). Returns the
    number of rows removed or added."""
    alive = np.flatnonzero(sv._alive[: sv.n])
    live = sv._ids[alive]
    keys = np.asarray(idx.keys, dtype=np.int64)
    gone = keys[~np.isin(keys, live)]
    have = np.isin(live, keys)
    if have.any():  # rows in both: compare the vectors (f32 stored as given, so equal means unchanged)
        both = live[have]
        saved = np.vstack(idx.get(both.astype(np.uint64)))
        # (the graph's own precision, f16 or f32: a vector is unchanged when its stored copy is the same)
        stale = both[np.any(saved != sv._m[alive[have]].astype(saved.dtype), axis=1)]
        gone = np.concatenate([gone, stale])
        have[np.isin(live, stale)] = False
    if gone.size:
        idx.remove(gone.astype(np.uint64))
    add = alive[~have]
    if add.size:
        if sv.ann is idx:  # many rows: queued for the background indexer
            sv.index_rows(sv._ids[add], sv._m[add])
        else:
            idx.add(sv._ids[add].astype(np.uint64), sv._m[add], threads=1)
    return int(gone.size + add.size)
