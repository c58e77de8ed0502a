"""The SQLite store's keyword (BM25) stage: a bounded FTS5 query, then the filter on the few rows it ranked.

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
from collections.abc import Callable
from typing import Any

from .schema import fts_quote, scope_token

__all__ = ["keyword_top", "KEYWORD_CAP_MIN", "KEYWORD_CAP_MAX", "UNSCOPED_SHARE"]

# FTS5 ranks at least this many matches (2k if more) before the filter; widened x4 up to the max
KEYWORD_CAP_MIN, KEYWORD_CAP_MAX = 64, 4096
# a user holding at least this share of the index's rows is searched without the scope token (module doc)
UNSCOPED_SHARE = 0.9

_RANKED = "SELECT rowid, -bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts WHERE memories_fts MATCH ? " \
          "ORDER BY s DESC, rowid LIMIT ?"


def keyword_top(read: Callable[[str, Any], list], tenant: str, user_id: str, terms: list[str], k: int,
                filter_sql: str, filter_params: list[Any], scope_rows: int | None) -> list[tuple[str, float]]:
    """Top ``k`` (memory id, BM25 score) of the rows matching any of ``terms`` that pass ``filter_sql`` (a condition
    on ``memories m`` that holds the scope: :meth:`.sqlfilter.SQLiteFilterCompiler.where`), best first, ties: older
    row first. ``read(sql, params)``: rows. ``scope_rows``: about how many rows the user has (the cached vectors' count;
    None: unknown), to decide whether the scope token is needed (module doc). ``terms``: non-blank."""
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
        # the ranked rows as the outer loop, each looked up by rowid (not the scope index, which the planner otherwise
        # walks with each rowid as a key)
        keep = dict(read(f"SELECT m.rowid, m.id FROM json_each(?) AS j CROSS JOIN memories m ON m.rowid = j.value "
                         f"WHERE {filter_sql}", [json.dumps([r[0] for r in top]), *filter_params]))
        out = [(keep[r], float(s)) for r, s in top if r in keep]
        if len(out) >= k or len(top) < n:  # k survivors, or every match was ranked
            return out[:k]
        cap *= 4
    # CROSS JOIN keeps the FTS5 match as the outer loop: newer SQLite (3.51, the SQLCipher build) otherwise
    # walks the user's rows and runs one FTS lookup per row (about 60x slower at 300 memories)
    q = (f"SELECT m.id, -bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts CROSS JOIN memories m "
         f"ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? AND {filter_sql} ORDER BY s DESC, m.rowid "
         f"LIMIT ?")
    return [(r[0], float(r[1])) for r in read(q, [scoped, *filter_params, k])]
