"""The SQLite store's keyword (BM25) stage: the user's best-ranked matches, then the filter on the few rows ranked.

The ranking comes from the store's in-process keyword index (:mod:`.keyword_index`: the same BM25 scores as FTS5,
from per-user postings in numpy arrays, caught up from the ``keyword_log`` before each query) and, when the index
cannot answer (a query term FTS5 reads as a phrase of several tokens, an index switched off), from FTS5:
FTS5 ranks a user's matching postings on its own (``bm25()`` in C and a sort that keeps the best ``cap``); only
those rows are looked up in ``memories`` (by rowid, the ranked list as the outer loop) and filtered (current, warm,
``where``, ``as_of``). When the filter leaves fewer than ``k``, ``cap`` widens (x4, up to :data:`KEYWORD_CAP_MAX`),
then the stage filters every match (a very selective filter).

The scope token: each FTS row carries its user's :func:`.schema.scope_token` in the ``scope`` column, and the query
asks for it, so a user's search touches only that user's postings. When the user holds nearly every row of the index
(:data:`UNSCOPED_SHARE`; a one-user store), the token is left out of the FTS query: it matches every row, so it only
costs a pass over the user's whole ``scope`` posting list and one more phrase per matching row. The ranking is the
same: the token's column weighs 0 in ``bm25()``, so a row's score is the same with or without it (its IDF and the
body phrases' are computed over the whole index either way), and the rows of other users among the ranked ones are
removed by the scope filter like any other filtered row (``cap`` is widened by the share for them).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..filters import FilterNode
from ..types import Scope
from .keyword_index import KeywordIndex
from .schema import fts_quote, scope_token

__all__ = ["keyword_top", "SQLiteKeywordMixin", "KEYWORD_CAP_MIN", "KEYWORD_CAP_MAX", "UNSCOPED_SHARE"]

# FTS5 ranks at least this many matches (2k if more) before the filter; widened x4 up to the max
KEYWORD_CAP_MIN, KEYWORD_CAP_MAX = 64, 4096
# a user holding at least this share of the index's rows is searched without the scope token (module doc)
UNSCOPED_SHARE = 0.9

_RANKED = "SELECT rowid, -bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts WHERE memories_fts MATCH ? " \
          "ORDER BY s DESC, rowid LIMIT ?"


def keyword_top(read: Callable[[str, Any], list], tenant: str, user_id: str, terms: list[str], k: int,
                filter_sql: str, filter_params: list[Any], scope_rows: int | None,
                ranked: Callable[[int], tuple[Sequence[int], Sequence[float]] | None] | None = None,
                live: Callable[[Sequence[int], Sequence[float]], list[tuple[str, float]]] | None = None
                ) -> list[tuple[str, float]]:
    """Top ``k`` (memory id, BM25 score) of the rows matching any of ``terms`` that pass ``filter_sql`` (a condition
    on ``memories m`` that holds the scope: :meth:`.sqlfilter.SQLiteFilterCompiler.where`), best first, ties: older
    row first. ``read(sql, params)``: rows. ``scope_rows``: about how many rows the user has (the cached vectors' count;
    None: unknown), to decide whether the scope token is needed (module doc). ``terms``: non-blank. ``ranked(n)``:
    the user's best ``n`` rows from the keyword index, as (rowids, scores), best first (None: ask FTS5;
    :meth:`.keyword_index.KeywordIndex.top_arrays`). ``live(rowids, scores)``: the same filter answered without
    SQL (the scope's current warm rows known in memory), when the filter is only that."""
    filtered = live or (lambda rowids, scores: _filtered(read, rowids, scores, filter_sql, filter_params))
    if ranked is not None:  # ranking again is cheap here: a small margin over k, widened when the filter bites
        cap = k + max(k // 4, KEYWORD_CAP_MIN // 4)
        while True:
            got = ranked(cap)
            if got is None:
                break
            out = filtered(*got)
            if len(out) >= k or len(got[0]) < cap:  # k survivors, or every match was ranked
                return out[:k]
            cap = cap * 4 if cap < KEYWORD_CAP_MAX else 1 << 62  # past the max: every match (ranking is cheap)
    body = "body:(" + " OR ".join(fts_quote(t) for t in terms) + ")"
    scoped = f"scope:{fts_quote(scope_token(tenant, user_id))} AND {body}"
    match, share = scoped, 1.0
    if scope_rows:
        total = read("SELECT count(*) FROM memories_fts_docsize", ())[0][0]
        if total and scope_rows >= UNSCOPED_SHARE * total:
            match, share = body, min(1.0, scope_rows / total)
    cap = max(2 * k, KEYWORD_CAP_MIN)
    while cap <= KEYWORD_CAP_MAX:
        n = int(cap / share) + 1 if share < 1.0 else cap
        top = read(_RANKED, (match, n))
        out = filtered([r[0] for r in top], [r[1] for r in top])
        if len(out) >= k or len(top) < n:  # k survivors, or every match was ranked
            return out[:k]
        cap *= 4
    # CROSS JOIN keeps the FTS5 match as the outer loop: newer SQLite (3.51, the SQLCipher build) otherwise
    # walks the user's rows and runs one FTS lookup per row (about 60x slower at 300 memories)
    q = (f"SELECT m.id, -bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts CROSS JOIN memories m "
         f"ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? AND {filter_sql} ORDER BY s DESC, m.rowid "
         f"LIMIT ?")
    return [(r[0], float(r[1])) for r in read(q, [scoped, *filter_params, k])]


def _filtered(read: Callable[[str, Any], list], rowids: Sequence[int], scores: Sequence[float], filter_sql: str,
              filter_params: list[Any]) -> list[tuple[str, float]]:
    """(memory id, score) of the ranked rows (``rowids``, ``scores``: best first) that pass the filter, in the
    ranked order."""
    rows = rowids.tolist() if isinstance(rowids, np.ndarray) else list(rowids)
    vals = scores.tolist() if isinstance(scores, np.ndarray) else scores
    # the ranked rows as the outer loop, each looked up by rowid (not the scope index, which the planner otherwise
    # walks with each rowid as a key)
    keep = dict(read(f"SELECT m.rowid, m.id FROM json_each(?) AS j CROSS JOIN memories m ON m.rowid = j.value "
                     f"WHERE {filter_sql}", [json.dumps(rows), *filter_params]))
    return [(keep[r], float(s)) for r, s in zip(rows, vals) if r in keep]


class SQLiteKeywordMixin:
    """:meth:`keyword_search` of :class:`~.sqlite.SQLiteStore` and its keyword index (:mod:`.keyword_index`): saved
    beside the database as ``<file>.kw`` (not for ``":memory:"`` or an encrypted file: kept in memory, built on the
    first keyword search after opening). Uses the store's ``_read``, ``_tx``, ``_filters``, ``vectors``,
    ``_generation``, ``_ids_of``."""

    keywords: KeywordIndex | None = None

    def _open_keywords(self, path: str, store_id: str, in_memory: bool, encrypted: bool) -> None:
        self.keywords = KeywordIndex(None if in_memory or encrypted else Path(path + ".kw"), store_id,
                                     sole_reader=in_memory)

    def _kw_snapshot(self, fn: Callable[[sqlite3.Connection], Any], write: bool = False) -> Any:
        with self._tx(write) as c:  # type: ignore[attr-defined]
            return fn(c)

    def _close_keywords(self) -> None:
        if self.keywords is not None:
            self.keywords.persist(self._read, self._kw_snapshot)  # type: ignore[attr-defined]

    def keep_keywords(self) -> None:
        """Catch the keyword index up with the writes so far (:meth:`.keyword_index.KeywordIndex.keep`): a bulk
        import, before it returns, so that no search after it pays for its rows."""
        if self.keywords is not None:
            self.keywords.keep(self._read, self._kw_snapshot)  # type: ignore[attr-defined]

    def keyword_search(self, scope: Scope, terms: list[str], k: int, where: FilterNode | None,
                       as_of: datetime | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (memory id, BM25 score) of the scope's rows matching any of ``terms``, best first (ties: older
        row first). The keyword index ranks the user's matches (FTS5's BM25), and only the best-ranked rows are
        filtered (:func:`keyword_top`). Raises StoreError."""
        terms = [t for t in terms if t.strip()]
        if not terms or k <= 0:
            return []
        sql, params = self._filters.where(scope, where, as_of, live=True)  # type: ignore[attr-defined]
        vectors = self.vectors  # type: ignore[attr-defined]
        rows = vectors.cached_size((scope.tenant, scope.user_id)) if vectors is not None else None
        index, token = self.keywords, scope_token(scope.tenant, scope.user_id)
        ranked = None if index is None else \
            (lambda n: index.top_arrays(self._read, self._kw_snapshot, token, terms, n))  # type: ignore[attr-defined]
        live = self._live_filter(scope, where, as_of) if rows is not None else None
        return keyword_top(self._read, scope.tenant, scope.user_id, terms, k, sql, params, rows,  # type: ignore
                           ranked, live)

    def _live_filter(self, scope: Scope, where: FilterNode | None, as_of: datetime | None
                     ) -> Callable[[Sequence[int], Sequence[float]], list[tuple[str, float]]] | None:
        """The keyword stage's filter answered in memory, for a search whose filter is the scope's current warm rows
        only (no ``where``, ``as_of``, agent or session): a ranked row passes when the scope's cached vectors, at
        the scope's generation, hold it (they hold exactly those rows); its id comes from the store's rowid map
        (:meth:`.row_reads.SQLiteRowReadsMixin._ids_of`). None (filter in SQL) otherwise, or when the vectors are
        not cached at the current generation."""
        vectors = self.vectors  # type: ignore[attr-defined]
        if vectors is None or where is not None or as_of is not None or scope.agent_id is not None or \
                scope.session_id is not None:
            return None
        key = (scope.tenant, scope.user_id)
        gen = self._generation(*key)  # type: ignore[attr-defined]
        sv = vectors.cached(key, gen)
        if sv is None:
            return None
        ids_of = self._ids_of  # type: ignore[attr-defined]

        def run(rowids: Sequence[int], scores: Sequence[float]) -> list[tuple[str, float]]:
            if not len(rowids):
                return []
            rows = np.asarray(rowids, dtype=np.int64)
            live, keys = vectors.live_keys(sv, rows)  # on arrays: no Python pair per ranked row; ids from the
            ids = ids_of(key, gen, rows[live].tolist(), keys)  # scope's arrays where known
            kept = np.asarray(scores, dtype=np.float64)[live].tolist()
            return [(i, s) for i, s in zip(ids, kept) if i is not None]
        return run
