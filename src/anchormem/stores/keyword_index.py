"""An in-process keyword index over the SQLite store's ``memories_fts`` rows: per-user postings in numpy arrays,
scored with FTS5's own BM25, so a search ranks a user's matching rows in a few vectorised passes instead of FTS5's
per-row C callback (at 100k memories ~15 ms per query in FTS5, well under 1 ms here: ``bench/keyword_engines.py``).

Derived data; the database stays the source of truth:

- **Tokens**: the rows' text is tokenised by FTS5 itself (the store's tokenizer, ``porter unicode61
  remove_diacritics 2``) in a private in-memory FTS5 table read back through ``fts5vocab`` (``instance``), so the
  index holds exactly the tokens FTS5 indexes, and a query term becomes exactly FTS5's tokens.
- **Scores**: FTS5's ``bm25()`` (k1 1.2, b 0.75; IDF ``log((N - n + 0.5) / (n + 0.5))``, 1e-6 when not positive;
  ``N``, ``n`` and the mean row length over the whole table, every user and both columns), term by term in the
  same order and in float64: the same scores as ``-bm25(memories_fts, 0.0, 1.0)``, ties by rowid. A query term
  that is several tokens (an FTS5 phrase) is not handled here: :meth:`KeywordIndex.top` returns None and the
  caller asks FTS5.
- **Changes**: triggers on ``memories`` append the rowid of every inserted, deleted or re-texted row to
  ``keyword_log`` (migration v7), in the writer's transaction. :meth:`KeywordIndex.top` first compares the log's
  last sequence number with the index's watermark and applies what it has not seen (each changed row: its old
  postings dropped, its current ``memories_fts`` row, if any, added), so a write from any connection or process,
  or one whose process died before the index was saved, is searchable at the next query.
- **Saved file** (``<database>.kw``, not for ``:memory:`` or an encrypted file; a ``:memory:`` store prunes the log
  as it applies it, an encrypted file's log keeps growing by one small row per write): written on close (and after a
  build) with its watermark, also by a process that only wrote when it left many changes (a bulk load); a reopen
  loads it and applies the log from the watermark. The log is pruned up to the saved watermark. A close whose
  changes since the file was saved are only added rows, few of them (:data:`DELTA_FRACTION` of the rows, at most
  ``_EAGER_LOG``), leaves the file as it is and the log unpruned: the log is the file's delta, applied by the next
  reopen (a whole save writes ~280 bytes per row, ~28 MB at 100k rows, and was paid by every close after a write);
  a removed or re-texted row (its words must not outlive it in the file) or more rows save it whole. An index whose
  watermark is older than the log's start (another process pruned it), from another database (``store_id``) or
  format is rebuilt from ``memories_fts``. Each save writes a fresh token into the file and, in the transaction
  that prunes the log, into the database (``meta`` row ``keyword_index_token``): a file whose token the database
  does not hold was saved beside another state of it (a backup restored, newer or older than the file; a copy that
  diverged, whose log numbers coincide with this one's) and is rebuilt instead of caught up from a watermark that
  means nothing there. A purge deletes the file (:meth:`KeywordIndex.drop`): it holds the purged rows' tokens. A
  file cut short (a crash on a file system without atomic renames) or otherwise unreadable is rebuilt.

- **Terms**: :meth:`KeywordIndex.top` keeps each (user, token) pair's live postings with their BM25 contributions
  (the IDF and length-normalised term frequencies above, as float64) until the index changes (a caught-up write, a
  merge, a save), so a user's next query with a word already asked sums them without recomputing; the same floats
  in the same order, so the same scores. Bounded (least recently used dropped first).

Layout: postings of (user, token) pairs in one array sorted by (pair key, rowid), with a small unsorted tail of
recent additions merged in when it grows past a quarter of the sorted part; a removed row's postings stay until
the next merge, recognised by a per-row generation number. Per row (dense arrays indexed by rowid): its length
in tokens, its user, its generation and the slice of its distinct tokens in a forward array (to lower the token
counts when it is removed).
"""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import threading
import uuid
import zipfile
from collections.abc import Callable
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import StoreError
from ..private_files import FILE_MODE

__all__ = ["KeywordIndex", "TOKENIZER", "LOG_DDL"]

log = logging.getLogger(__name__)

TOKENIZER = "porter unicode61 remove_diacritics 2"  # memories_fts's (migration v1)
_K1, _B = 1.2, 0.75  # FTS5's bm25() constants
_FORMAT = 1
_MAX_ROWID_GAP = 8  # a rowid more than 8x (+1M) past the row count: dense per-row arrays would waste, use FTS5
_BATCH = 5000  # rows tokenised per pass of the scratch FTS5 table
_PRUNE_SOLE = 1000  # a sole reader prunes the log once a catch-up applied this many rows
_EAGER_LOG = 5000  # unsaved log entries that make a close bring an index it never loaded up to date
_TOKEN_KEY = "keyword_index_token"  # meta row: the token of the .kw file saved beside this database state
_TAIL_ROWS = 1000  # a catch-up of more rows is merged into the sorted postings at once
_NONE = (np.zeros(0, np.int64), np.zeros(0, np.float64))  # top_arrays of no match (read-only: shared)
for _a in _NONE:
    _a.setflags(write=False)
_TERMS_MAX = 4_000_000  # postings whose BM25 contributions top() keeps (~48 MB: rowid and float64 each)
DELTA_FRACTION = 1 / 32
"""A close leaves the saved file as it is while the rows added since it was saved are at most this fraction of the
index's rows (and at most :data:`_EAGER_LOG`): the change log keeps them (module doc, "Saved file")."""

# migration v7: the change log the index catches up from (module doc)
LOG_DDL = [
    "CREATE TABLE keyword_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, mem_rowid INTEGER NOT NULL)",
    "CREATE TRIGGER keyword_log_ins AFTER INSERT ON memories BEGIN "
    "INSERT INTO keyword_log (mem_rowid) VALUES (new.rowid); END",
    "CREATE TRIGGER keyword_log_del AFTER DELETE ON memories BEGIN "
    "INSERT INTO keyword_log (mem_rowid) VALUES (old.rowid); END",
    "CREATE TRIGGER keyword_log_upd AFTER UPDATE OF text ON memories BEGIN "
    "INSERT INTO keyword_log (mem_rowid) VALUES (new.rowid); END",
]


class _Tokenizer:
    """FTS5's tokens of texts, from a private in-memory FTS5 table with the store's tokenizer."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._tables()
        self.cache: dict[str, tuple[str, ...]] = {}

    def _tables(self) -> None:
        self.db.execute(f"CREATE VIRTUAL TABLE q USING fts5(body, tokenize='{TOKENIZER}')")
        self.db.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, instance)")

    def words(self, words: list[str]) -> list[tuple[str, ...]]:
        """The tokens of each whitespace-free word (FTS5 splits at whitespace, and tokenises and stems each token on
        its own, so a text's tokens are its words' tokens in order), in one pass of the scratch table."""
        got: dict[int, list[str]] = {i: [] for i in range(len(words))}
        for i in range(0, len(words), 20_000):
            chunk = words[i : i + 20_000]
            with self.db:  # one transaction: FTS5 writes one segment, not one per row
                self.db.execute("BEGIN")
                self.db.executemany("INSERT INTO q (rowid, body) VALUES (?, ?)", list(enumerate(chunk, i)))
                for doc, term in self.db.execute("SELECT doc, term FROM qv ORDER BY doc, offset"):
                    got[doc].append(term)
                if len(chunk) <= 64:  # a query's terms: emptied (deleting re-tokenises the few rows)
                    self.db.execute("DELETE FROM q")
                else:  # many rows: a fresh table is cheaper than deleting them
                    self.db.execute("DROP TABLE qv")
                    self.db.execute("DROP TABLE q")
                    self._tables()
        return [tuple(got[i]) for i in range(len(words))]

    def query(self, terms: list[str]) -> list[tuple[str, ...]]:
        """The tokens of each query term, in order (cached; the new terms tokenised in one pass)."""
        new = [t for t in dict.fromkeys(terms) if t not in self.cache]
        if new:
            if len(self.cache) > 65536:
                self.cache.clear()
            self.cache.update(zip(new, self.words(new)))
        return [self.cache[t] for t in terms]


class _Grow:
    """A growable 1-d numpy array (capacity doubling)."""

    def __init__(self, dtype: Any, fill: int = 0, data: np.ndarray | None = None) -> None:
        self.fill = fill
        self.a = np.asarray(data, dtype=dtype).copy() if data is not None else np.full(16, fill, dtype=dtype)

    def ensure(self, n: int) -> None:
        if n > len(self.a):
            b = np.full(max(n, 2 * len(self.a)), self.fill, dtype=self.a.dtype)
            b[: len(self.a)] = self.a
            self.a = b



def _minor(got: list[tuple[np.ndarray, np.ndarray, float, float, dict[int, float]]], n: int) -> set[int]:
    """The phrases of a query (``got``: each one's postings, contributions, their largest and smallest and its
    ``n``-th largest ones by ``n``, :meth:`KeywordIndex._term`) that cannot bring a row into the best ``n`` on their
    own (MaxScore, Turtle & Flood 1995). Every contribution is positive, so the ``n``-th best score is at least
    ``floor``: the smallest contribution of any phrase held by ``n`` rows or more, or the ``n``-th largest of the one
    of them with the largest contribution (a rare word's short list: computed once per word and ``n``, kept with its
    postings). A row that none of the other (major) phrases holds scores at most the sum of these phrases' largest
    contributions: phrases taken by their largest contribution, smallest first, while that sum stays below
    ``floor`` (less a margin for rounding), are minor. A minor phrase's posting list (a common word's, the longest)
    is added only to the rows the major ones hold, never scattered over the scope, and the best ``n`` are the same
    rows with the same scores (a row outside them scores below ``floor``). Indexes into ``got``."""
    if len(got) < 2:
        return set()
    held = [g for g in got if len(g[0]) >= n]
    if not held:
        return set()
    floor = max(g[3] for g in held)
    _, c, _, _, kth = max(held, key=lambda g: g[2])
    if n not in kth:
        kth[n] = float(np.partition(c, len(c) - n)[len(c) - n])
    floor = max(floor, kth[n])
    if floor <= 0.0:
        return set()
    limit, total, minor = floor * (1.0 - 1e-9), 0.0, set()
    for j in sorted(range(len(got)), key=lambda i: got[i][2]):
        total += got[j][2]
        if total >= limit:
            break
        minor.add(j)
    return minor


class KeywordIndex:
    """The keyword index of one SQLite store (module doc). ``path``: the saved file (None: in memory only).
    ``store_id``: the database's id (a saved file of another database is rebuilt). Thread-safe (one lock)."""

    def __init__(self, path: Path | None, store_id: str, *, sole_reader: bool = False) -> None:
        self.path, self.store_id = path, store_id
        self.sole_reader = sole_reader  # no other index reads this log (``:memory:``): prune it as it is applied
        self._lock = threading.Lock()
        self._tok: _Tokenizer | None = None
        self.seq: int | None = None  # the log sequence number applied last; None: not loaded
        self._dirty = False
        self._saved: tuple[int, str] | None = None  # (watermark, token) of the file as saved or loaded last
        self._removed = False  # a row's postings were dropped since then (its words must leave the file)
        self.usable = True
        self._acc: np.ndarray | None = None  # top()'s scratch: score and seen flag per rowid
        self._seen: np.ndarray | None = None
        # top()'s terms: pair key -> (rowids, BM25 contributions) at the state ``_terms_at`` (module doc, "Terms")
        self._terms: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._terms_at: tuple[Any, ...] | None = None
        self._terms_size = 0

    # ---------------------------------------------------------------- state
    def _empty(self) -> None:
        self.vocab: dict[str, int] = {}
        self.scopes: dict[str, int] = {}
        self.df = _Grow(np.int64)
        self.n_rows = 0
        self.n_tokens = 0
        self.dl = _Grow(np.int64)  # per rowid: tokens in both columns
        self.rscope = _Grow(np.int32, -1)  # per rowid: user id (-1: not indexed)
        self.rgen = _Grow(np.uint32)  # per rowid: generation of its current postings
        self.fstart = _Grow(np.int64)  # per rowid: its distinct body tokens in fwd[fstart : fstart + fn]
        self.fn = _Grow(np.int32)
        self.fwd = _Grow(np.int32)
        self.nfwd = 0
        self.keys = np.zeros(0, np.int64)  # sorted part: distinct pair keys and the start of each one's postings
        self.starts = np.zeros(1, np.int64)
        self.prow = np.zeros(0, np.int32)
        self.ptf = np.zeros(0, np.float32)
        self.pgen = np.zeros(0, np.uint32)
        self.tail: dict[int, list[tuple[int, float, int]]] = {}  # pair key -> [(rowid, tf, generation)]
        self.ntail = 0
        self._words()
        self._forget_terms()

    def _forget_terms(self) -> None:
        """Drop top()'s per-term contributions (the postings or the token ids changed)."""
        self._terms, self._terms_at, self._terms_size = {}, None, 0

    def _words(self) -> None:
        """The word cache: each whitespace-free word of the rows seen (id in ``_wid``) and its token ids
        (``_wflat[_wstart[id] : _wstart[id] + _wntok[id]]``); per scope string, its length in tokens."""
        self._wid: dict[str, int] = {}
        self._wstart_g, self._wntok_g, self._wflat = _Grow(np.int64), _Grow(np.int64), _Grow(np.int64)
        self._nflat = 0
        self._slen: dict[str, int] = {}

    @property
    def _wstart(self) -> np.ndarray:
        return self._wstart_g.a

    @property
    def _wntok(self) -> np.ndarray:
        return self._wntok_g.a

    def _word_tokens(self, known: int) -> None:
        """Tokenise the words given ids from ``known`` on (new tokens join the vocabulary)."""
        new = list(self._wid)[known:]
        if not new:
            return
        vocab = self.vocab
        toks = self._tokens().words(new)
        flat = [vocab.setdefault(t, len(vocab)) for ts in toks for t in ts]
        n = len(self._wid)
        self._wstart_g.ensure(n)
        self._wntok_g.ensure(n)
        self._wflat.ensure(self._nflat + len(flat))
        counts = np.fromiter((len(ts) for ts in toks), np.int64, len(toks))
        self._wntok_g.a[known:n] = counts
        self._wstart_g.a[known:n] = self._nflat + np.cumsum(counts) - counts
        self._wflat.a[self._nflat : self._nflat + len(flat)] = flat
        self._nflat += len(flat)

    def _scope_len(self, scope: str) -> int:
        n = self._slen.get(scope)
        if n is None:
            n = self._slen[scope] = sum(len(t) for t in self._tokens().words(scope.split()))
        return n

    def _tokens(self) -> _Tokenizer:
        if self._tok is None:
            self._tok = _Tokenizer()
        return self._tok

    # ---------------------------------------------------------------- changes
    def _remove(self, rowid: int) -> None:
        if rowid >= len(self.rscope.a) or self.rscope.a[rowid] < 0:
            return
        self._removed = True
        s, n = self.fstart.a[rowid], self.fn.a[rowid]
        np.subtract.at(self.df.a, self.fwd.a[s : s + n], 1)
        self.n_rows -= 1
        self.n_tokens -= int(self.dl.a[rowid])
        self.rscope.a[rowid] = -1
        self.rgen.a[rowid] += 1

    def _add(self, rows: list[tuple[int, str, str]]) -> tuple[np.ndarray, ...]:
        """Index ``rows`` ((rowid, scope, body), distinct rowids, none indexed now). Returns their postings:
        (pair key, rowid, tf, generation) arrays."""
        rowids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        for g in (self.dl, self.rscope, self.rgen, self.fstart, self.fn):
            g.ensure(int(rowids.max()) + 1 if len(rows) else 0)
        sids = np.fromiter((self.scopes.setdefault(r[1], len(self.scopes)) for r in rows), np.int64, len(rows))
        words = [r[2].split() for r in rows]
        if len(self._wid) > 2_000_000:  # a cache, not the index: bounded
            self._words()
        wid, known = self._wid, len(self._wid)
        n_occ = np.fromiter(map(len, words), np.int64, len(rows))
        every = list(chain.from_iterable(words))
        wid.update((w, i) for i, w in enumerate(set(every).difference(wid), known))
        occ = np.fromiter(map(wid.__getitem__, every), np.int64, len(every))
        self._word_tokens(known)
        nt = self._wntok[occ]  # tokens per word occurrence
        at_occ = np.repeat(np.arange(len(rows)), n_occ)
        tot = int(nt.sum())
        ends = np.cumsum(nt)
        pos = np.repeat(self._wstart[occ], nt) + (np.arange(tot) - np.repeat(ends - nt, nt))
        toks, at_tok = self._wflat.a[pos], np.repeat(at_occ, nt)
        scope_len = np.fromiter((self._scope_len(r[1]) for r in rows), np.int64, len(rows))
        dl = np.bincount(at_tok, minlength=len(rows)).astype(np.int64) + scope_len
        pair, b_tf = np.unique(at_tok * len(self.vocab) + toks if len(self.vocab) else at_tok, return_counts=True)
        b_at, b_tids = (pair // len(self.vocab), pair % len(self.vocab)) if len(self.vocab) else (pair, pair)
        b_docs, b_tf = rowids[b_at], b_tf.astype(np.float64)
        # pairs are ordered by row position in ``rows``: sort them by rowid for the forward slices
        order = np.argsort(b_docs, kind="stable")
        b_docs, b_tids, b_tf, b_at = b_docs[order], b_tids[order], b_tf[order], b_at[order]
        vocab = self.vocab
        self.df.ensure(len(vocab))
        if len(b_tids):
            self.df.a[: len(vocab)] += np.bincount(b_tids, minlength=len(vocab))
        self.fwd.ensure(self.nfwd + len(b_tids))
        self.fwd.a[self.nfwd : self.nfwd + len(b_tids)] = b_tids  # by rowid (inst is): one slice per row
        first = np.searchsorted(b_docs, rowids, "left")
        self.fstart.a[rowids] = self.nfwd + first
        self.fn.a[rowids] = np.searchsorted(b_docs, rowids, "right") - first
        self.nfwd += len(b_tids)
        self.rscope.a[rowids] = sids
        self.dl.a[rowids] = dl
        self.n_rows += len(rows)
        self.n_tokens += int(dl.sum())
        return (sids[b_at] << 32) | b_tids, b_docs, b_tf, self.rgen.a[b_docs].copy()

    def _to_tail(self, post: tuple[np.ndarray, ...]) -> None:
        for k, r, f, g in zip(*(a.tolist() for a in post)):
            self.tail.setdefault(k, []).append((r, f, g))
        self.ntail += len(post[0])

    def _merge(self, post: tuple[np.ndarray, ...] | None = None) -> None:
        """Fold the tail (and the postings ``post``) into the sorted part, dropping removed rows' postings."""
        parts = [(np.repeat(self.keys, np.diff(self.starts)), self.prow, self.ptf, self.pgen)]
        if self.tail:
            flat = [(k, r, f, g) for k, lst in self.tail.items() for r, f, g in lst]
            parts.append((np.array([x[0] for x in flat], np.int64), np.array([x[1] for x in flat], np.int64),
                          np.array([x[2] for x in flat], np.float32), np.array([x[3] for x in flat], np.uint32)))
        if post is not None:
            parts.append(post)
        self._set_sorted(*(np.concatenate([p[i] for p in parts]) for i in range(4)))
        self.tail, self.ntail = {}, 0

    def _set_sorted(self, keys: np.ndarray, prow: np.ndarray, ptf: np.ndarray, pgen: np.ndarray) -> None:
        live = pgen == self.rgen.a[prow] if len(prow) else np.zeros(0, bool)
        live &= self.rscope.a[prow] >= 0 if len(prow) else live
        keys, prow, ptf, pgen = keys[live], prow[live], ptf[live], pgen[live]
        order = np.lexsort((prow, keys))
        keys, self.prow = keys[order], prow[order].astype(self._rowid_dtype())
        self.ptf, self.pgen = ptf[order].astype(np.float32), pgen[order].astype(np.uint32)
        self.keys, first = np.unique(keys, return_index=True)
        self.starts = np.append(first, len(keys)).astype(np.int64)

    def _build(self, snapshot: Callable[..., Any]) -> None:
        self._empty()
        self._removed = True  # (the file, if any, is not this index's base: saved whole next)
        head, last = snapshot(self._head_sql), 0
        top = snapshot(lambda c: c.execute("SELECT count(*), max(rowid) FROM memories_fts").fetchone())
        if top[1] is not None and top[1] > _MAX_ROWID_GAP * top[0] + 1_000_000:
            self.usable = False
            return
        parts: list[tuple[np.ndarray, ...]] = []
        while True:
            rows = snapshot(lambda c: c.execute("SELECT rowid, scope, body FROM memories_fts WHERE rowid > ? "
                                                "ORDER BY rowid LIMIT ?", (last, _BATCH)).fetchall())
            if not rows:
                break
            parts.append(self._add([(r[0], r[1] or "", r[2] or "") for r in rows]))
            last = rows[-1][0]
        if parts:
            self._set_sorted(*(np.concatenate([p[i] for p in parts]) for i in range(4)))
        self.seq = head
        self._dirty = True

    @staticmethod
    def _head_sql(c: sqlite3.Connection) -> int:
        row = c.execute("SELECT seq FROM sqlite_sequence WHERE name = 'keyword_log'").fetchone()
        return int(row[0]) if row else 0

    def _catch_up(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any]) -> None:
        head = self._head_sql_read(read)
        if head == self.seq:
            return

        def changes(c: sqlite3.Connection) -> tuple[int, int | None, list[tuple[int, str, str]], list[int]]:
            h = self._head_sql(c)
            first = c.execute("SELECT min(seq) FROM keyword_log").fetchone()[0]
            if h - max(self.seq, (first or 1) - 1) > max(50_000, self.n_rows):  # more changes than rows: rebuild
                return h, None, [], []
            ids = [r[0] for r in c.execute("SELECT DISTINCT mem_rowid FROM keyword_log WHERE seq > ?", (self.seq,))]
            rows: list[tuple[int, str, str]] = []
            for i in range(0, len(ids), 900):
                chunk = ids[i : i + 900]
                rows += c.execute(f"SELECT rowid, scope, body FROM memories_fts WHERE rowid IN "
                                  f"({','.join('?' * len(chunk))})", chunk).fetchall()
            return h, first, rows, ids

        h, first, rows, ids = snapshot(changes)
        if h < self.seq or (h > self.seq and (first is None or first > self.seq + 1)):
            # entries we never saw were pruned (another process saved past our watermark), or the log went back
            # (the database file was replaced): start again from memories_fts
            self._build(snapshot)
            return
        for r in ids:
            self._remove(r)
        post = self._add([(r[0], r[1] or "", r[2] or "") for r in rows])
        if len(rows) > _TAIL_ROWS or self.ntail + len(post[0]) > max(20_000, len(self.prow) // 4):
            self._merge(post)  # a bulk change: one sort, not a dict entry per posting
        else:
            self._to_tail(post)
        self.seq = h
        self._dirty = True
        if self.sole_reader and len(ids) >= _PRUNE_SOLE:
            self._prune(snapshot)

    def _prune(self, snapshot: Callable[..., Any]) -> None:
        """Delete the log's entries up to the watermark (applied, and saved or nobody else reads them)."""
        seq = self.seq
        snapshot(lambda c: c.execute("DELETE FROM keyword_log WHERE seq <= ?", (seq,)), write=True)

    @staticmethod
    def _head_sql_read(read: Callable[[str, Any], list]) -> int:
        row = read("SELECT seq FROM sqlite_sequence WHERE name = 'keyword_log'", ())
        return int(row[0][0]) if row else 0

    def _ready(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any]) -> bool:
        if self.seq is None:
            if not self._load(read):
                self._build(snapshot)
                if self.usable:
                    self._save(read, snapshot)
                if self.usable and self.sole_reader:
                    self._prune(snapshot)
        if not self.usable:
            return False
        self._catch_up(read, snapshot)
        return True

    # ---------------------------------------------------------------- search
    def top(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any], scope: str, terms: list[str],
            n: int) -> list[tuple[int, float]] | None:
        """The best ``n`` (rowid, score) of the rows of user ``scope`` (:func:`.schema.scope_token`) matching any
        of ``terms``, by FTS5's BM25 (higher = better; ties: lower rowid first), after applying the change log.
        ``read(sql, params)``: rows; ``snapshot(fn)``: ``fn(connection)`` inside one read transaction. None when a
        term is an FTS5 phrase (several tokens) or the index is not usable: ask FTS5. Raises StoreError."""
        got = self.top_arrays(read, snapshot, scope, terms, n)
        return None if got is None else list(zip(got[0].tolist(), got[1].tolist()))

    def keep(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any]) -> None:
        """Bring the index up to date with the log now (loaded or built first if it never was): ``add_many`` calls
        this before it returns, so the first search after a bulk import has nothing to apply. Raises StoreError."""
        with self._lock:
            try:
                self._ready(read, snapshot)
            except sqlite3.Error as exc:
                raise StoreError(f"keyword index: {exc}") from exc

    def top_arrays(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any], scope: str,
                   terms: list[str], n: int) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`top` as two arrays, (rowids (m,) int, scores (m,) float64), best first, m ≤ ``n``: for a caller
        that filters and maps the ranked rows on arrays (:func:`.keyword_sqlite.keyword_top`) rather than on a
        Python pair per row."""
        with self._lock:
            try:
                if not self._ready(read, snapshot):
                    return None
                phrases = self._phrases(terms)
            except sqlite3.Error as exc:
                raise StoreError(f"keyword index: {exc}") from exc
            if any(len(p) > 1 for p in phrases):
                return None
            sid = self.scopes.get(scope)
            if sid is None or self.n_rows == 0:
                return _NONE
            avgdl = self.n_tokens / self.n_rows
            size = len(self.dl.a)
            if self._acc is None or len(self._acc) < size:  # scratch per rowid, zero between queries
                self._acc, self._seen = np.zeros(size, np.float64), np.zeros(size, bool)
            acc, seen, touched = self._acc, self._seen, []
            # each phrase's postings, in query order (a token no row has, or a term without postings: none)
            got = [self._term((sid << 32) | p[0], p[0], avgdl) for p in phrases if p and p[0] >= 0]
            got = [g for g in got if len(g[0])]
            minor = _minor(got, n)
            try:
                for j, (r, c, *_) in enumerate(got):  # the rows that can reach the top: any major phrase's
                    if j not in minor:
                        fresh = r[~seen[r]]
                        seen[fresh] = True
                        touched.append(fresh)
                # FTS5's sum, phrase by phrase in query order (a phrase a row lacks adds 0.0: no change); a minor
                # phrase only to the rows above, so each of them sums the same floats in the same order
                for j, (r, c, *_) in enumerate(got):
                    if j in minor:
                        keep = seen[r]
                        acc[r[keep]] += c[keep]
                    else:
                        acc[r] += c
                if not touched:
                    return _NONE
                rows = np.concatenate(touched)
                score = acc[rows]
            finally:
                for t in touched:
                    acc[t] = 0.0
                    seen[t] = False
            if len(rows) > n:
                cut = np.partition(-score, n - 1)[n - 1]
                keep = np.flatnonzero(-score <= cut)
                rows, score = rows[keep], score[keep]
            order = np.lexsort((rows, -score))[:n]
            return rows[order], score[order]

    def _term(self, key: int, tid: int, avgdl: float
              ) -> tuple[np.ndarray, np.ndarray, float, float, dict[int, float]]:
        """The live postings of pair ``key`` (token ``tid`` of one user), each one's BM25 contribution (float64,
        computed as FTS5 does: IDF times the saturated, length-normalised term frequency, always > 0), the largest
        and smallest contribution (0.0 without postings) and {n: n-th largest} as :func:`_minor` asks, kept until the
        index changes (a write caught up, a merge, a save): a user's next queries with the same word reuse them.
        Bounded to :data:`_TERMS_MAX` postings (least recently used dropped first)."""
        state = (self.seq, self.n_rows, self.n_tokens, self.ntail, len(self.prow))
        if self._terms_at != state:
            self._forget_terms()
            self._terms_at = state
        got = self._terms.pop(key, None)
        if got is None:
            nhit = int(self.df.a[tid])
            v = math.log((self.n_rows - nhit + 0.5) / (nhit + 0.5))
            r, f = self._postings(key)
            norm = _K1 * (1 - _B + _B * self.dl.a[r].astype(np.float64) / avgdl)
            c = (v if v > 0.0 else 1e-6) * ((f * (_K1 + 1.0)) / (f + norm))
            got = (r, c, float(c.max()), float(c.min()), {}) if len(c) else (r, c, 0.0, 0.0, {})
            self._terms_size += len(r)
            while self._terms and self._terms_size > _TERMS_MAX:
                old = self._terms.pop(next(iter(self._terms)))
                self._terms_size -= len(old[0])
        self._terms[key] = got  # most recently used last
        return got

    def _phrases(self, terms: list[str]) -> list[tuple[int, ...]]:
        """Each term's token ids (-1: a token no row has), from the word cache when the term is a word of an
        indexed row, else from the scratch table (cached)."""
        out: list[tuple[int, ...] | None] = []
        rest = []
        for t in terms:
            w = self._wid.get(t)
            if w is None or w >= len(self._wntok_g.a):
                out.append(None)
                rest.append(t)
            else:
                a = int(self._wstart_g.a[w])
                out.append(tuple(self._wflat.a[a : a + int(self._wntok_g.a[w])].tolist()))
        if rest:
            got = iter(self._tokens().query(rest))
            out = [p if p is not None else tuple(self.vocab.get(x, -1) for x in next(got)) for p in out]
        return out  # type: ignore[return-value]

    def _rowid_dtype(self) -> type:
        return np.int32 if len(self.rscope.a) < 2**31 else np.int64

    def _postings(self, key: int) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.searchsorted(self.keys, key))
        if i < len(self.keys) and self.keys[i] == key:
            a, b = self.starts[i], self.starts[i + 1]
            r, f, g = self.prow[a:b], self.ptf[a:b].astype(np.float64), self.pgen[a:b]
            ok = g == self.rgen.a[r]
            if not ok.all():
                r, f = r[ok], f[ok]
        else:
            r, f = np.zeros(0, np.int64), np.zeros(0, np.float64)
        t = self.tail.get(key)
        if t:
            live = [(x, y) for x, y, g in t if g == self.rgen.a[x] and self.rscope.a[x] >= 0]
            if live:
                r = np.concatenate([r, np.array([x for x, _ in live], np.int64)])
                f = np.concatenate([f, np.array([y for _, y in live], np.float64)])
        return r, f

    # ---------------------------------------------------------------- files
    def _save(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any]) -> None:
        if self.path is None or self.seq is None or not self.usable:
            return
        self._merge()
        self._compact()
        n = len(self.rscope.a)
        token = uuid.uuid4().hex  # the file's lineage mark, also written into the database below (module doc)
        meta = {"format": _FORMAT, "store_id": self.store_id, "seq": self.seq, "n_rows": self.n_rows,
                "n_tokens": self.n_tokens, "token": token}
        vocab = "\n".join(sorted(self.vocab, key=self.vocab.__getitem__))
        scopes = "\n".join(sorted(self.scopes, key=self.scopes.__getitem__))
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "wb") as fh:
                np.savez(fh, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                         vocab=np.frombuffer(vocab.encode("utf-8"), np.uint8),
                         scopes=np.frombuffer(scopes.encode("utf-8"), np.uint8),
                         df=self.df.a[: len(self.vocab)], dl=self.dl.a[:n], rscope=self.rscope.a[:n],
                         rgen=self.rgen.a[:n], fstart=self.fstart.a[:n], fn=self.fn.a[:n],
                         fwd=self.fwd.a[: self.nfwd], keys=self.keys, starts=self.starts, prow=self.prow,
                         ptf=self.ptf.astype(np.uint16) if len(self.ptf) and self.ptf.max() < 65536 else self.ptf)
                # (merged: every posting is its row's current one, so generations are rgen[prow] on load)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("anchormem: could not save the keyword index %s: %s", self.path, exc)
            return
        self._dirty, self._removed, self._saved = False, False, (self.seq, token)
        try:  # entries up to the saved watermark are no longer needed by a reopen (module doc); the mark beside them
            seq = self.seq

            def mark(c: sqlite3.Connection) -> None:
                c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (_TOKEN_KEY, token))
                c.execute("DELETE FROM keyword_log WHERE seq <= ?", (seq,))

            snapshot(mark, write=True)
        except (sqlite3.Error, StoreError) as exc:  # unmarked: the next open rebuilds rather than trust the file
            log.debug("keyword index not marked in the database, keyword_log not pruned: %s", exc)

    def _compact(self) -> None:
        """Drop what removed rows left (after :meth:`_merge`): their forward slices, and tokens no row holds any
        more (a deleted or purged row's words must not outlive it in the saved file); ids renumbered in order."""
        self._forget_terms()  # token ids are renumbered below: the cached pair keys would name other tokens
        live_rows = np.flatnonzero(self.rscope.a >= 0)
        fn = self.fn.a[live_rows].astype(np.int64)
        ends = np.cumsum(fn)
        pos = np.repeat(self.fstart.a[live_rows], fn) + (np.arange(int(fn.sum())) - np.repeat(ends - fn, fn))
        fwd = self.fwd.a[pos]
        nv = len(self.vocab)
        keep = self.df.a[:nv] > 0
        if not keep.all():
            new = (np.cumsum(keep) - 1).astype(np.int64)
            self.keys = ((self.keys >> 32) << 32) | new[self.keys & 0xFFFFFFFF]  # order kept: still sorted
            fwd = new[fwd]
            names = sorted(self.vocab, key=self.vocab.__getitem__)
            self.vocab = {t: i for i, t in enumerate(t for t, k in zip(names, keep.tolist()) if k)}
            self.df = _Grow(np.int64, data=self.df.a[:nv][keep])
            self._words()  # the word cache holds old ids
        self.fwd = _Grow(np.int32, data=fwd if len(fwd) else np.zeros(16, np.int32))
        self.nfwd = len(fwd)
        self.fstart.a[live_rows] = ends - fn

    def _load(self, read: Callable[[str, Any], list]) -> bool:
        if self.path is None or not self.path.exists():
            return False
        try:
            with np.load(self.path, allow_pickle=False) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                if meta.get("format") != _FORMAT or meta.get("store_id") != self.store_id:
                    return False
                mark = read("SELECT value FROM meta WHERE key = ?", (_TOKEN_KEY,))
                if not mark or mark[0][0] != meta.get("token"):
                    # the database is not the one this file was saved beside (a backup restored, a copy that
                    # diverged): its log cannot say what changed since, so the postings are not trusted
                    log.info("anchormem: keyword index %s was saved beside another state of the database: "
                             "rebuilding it", self.path)
                    return False
                self._empty()
                vocab = bytes(z["vocab"]).decode("utf-8")
                scopes = bytes(z["scopes"]).decode("utf-8")
                words = vocab.split("\n") if vocab else []  # (dict(zip): 40% less than a comprehension at 1M)
                self.vocab = dict(zip(words, range(len(words))))
                names = scopes.split("\n") if scopes else []
                self.scopes = dict(zip(names, range(len(names))))
                self.df = _Grow(np.int64, data=z["df"])
                self.dl, self.rscope = _Grow(np.int64, data=z["dl"]), _Grow(np.int32, -1, data=z["rscope"])
                self.rgen, self.fstart = _Grow(np.uint32, data=z["rgen"]), _Grow(np.int64, data=z["fstart"])
                self.fn, self.fwd = _Grow(np.int32, data=z["fn"]), _Grow(np.int32, data=z["fwd"])
                self.nfwd = len(z["fwd"])
                self.keys, self.starts = z["keys"], z["starts"]
                self.prow, self.ptf = z["prow"], z["ptf"].astype(np.float32)
                self.pgen = self.rgen.a[self.prow]
                self.n_rows, self.n_tokens, self.seq = meta["n_rows"], meta["n_tokens"], meta["seq"]
                self._saved, self._removed = (meta["seq"], meta["token"]), False
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:  # (a file cut short: rebuilt)
            log.warning("anchormem: keyword index %s unreadable (%s): rebuilding it", self.path, exc)
            self.seq = None
            return False
        self._dirty = False
        return True

    def persist(self, read: Callable[[str, Any], list], snapshot: Callable[..., Any]) -> None:
        """Catch a loaded index up with the log and save it if it changed since it was saved (on close), so the
        next open has nothing to apply. An index this process never loaded is brought up to date and saved too
        when the log holds at least :data:`_EAGER_LOG` unsaved changes (a bulk load: its first search after a
        reopen would otherwise pay for them). A loaded index whose changes since its file was saved are a few added
        rows leaves the file as it is (:meth:`_additions_only`: the log is the delta). Never raises for a file error
        (logged)."""
        with self._lock:
            if not self.usable or self.path is None:
                return
            eager = self.seq is None
            try:
                if eager:
                    first, head = read("SELECT min(seq), max(seq) FROM keyword_log", ())[0]
                    if first is None or head - first + 1 < _EAGER_LOG:
                        return
                    if not self._ready(read, snapshot):
                        return
                self._catch_up(read, snapshot)
            except (sqlite3.Error, StoreError) as exc:  # not saved behind a purge: the next open applies the log
                log.debug("keyword index not caught up on close, not saved: %s", exc)
                return
            if self._dirty and (eager or not self._additions_only(read)):
                self._save(read, snapshot)

    def _additions_only(self, read: Callable[[str, Any], list]) -> bool:
        """Whether the saved file may stay as it is on close: it is this index's base (on disk, its token the
        database's), no row was removed or re-texted since (their words must not outlive them in the file), and the
        rows added since are few (:data:`DELTA_FRACTION` of the rows, at most :data:`_EAGER_LOG`). The log keeps
        those rows unpruned: a reopen loads the file and applies them, as after a process that died unsaved."""
        if self._saved is None or self._removed or self.seq is None or self.path is None or not self.path.exists():
            return False
        if self.seq - self._saved[0] > min(_EAGER_LOG, self.n_rows * DELTA_FRACTION):
            return False
        mark = read("SELECT value FROM meta WHERE key = ?", (_TOKEN_KEY,))
        return bool(mark) and mark[0][0] == self._saved[1]

    def drop(self) -> None:
        """Forget the index and delete its file (a purge: it holds the purged rows' tokens); the next search
        rebuilds it from ``memories_fts``."""
        with self._lock:
            self.seq, self._dirty, self.usable = None, False, True
            if self.path is not None:
                try:
                    self.path.unlink(missing_ok=True)
                except OSError as exc:
                    log.warning("anchormem: could not delete the keyword index %s: %s", self.path, exc)
