"""Dated questions: a date the question names becomes a soft prior on when the memories happened or were said.

"On May 4th, I shared some problems with you...", "我曾经在5月2日提到过...", "what did I do last Tuesday?",
"What did we talk about on April 27th?": :func:`date_query` reads the first date the question names (every form
:func:`anchormem.text.dates.resolve_dates` reads, plus a bare weekday: "on Monday", "周一" = the latest such day
before the search time) and :func:`dated_lists` turns it into

- **the window's year**, when the question does not say it: the nearest past occurrence at the search time
  (``as_of`` or now), or the latest earlier year in which the user's memories fall in that window (up to
  :data:`YEARS_BACK` years back; one filtered search). A yearless date never means a day after the search time.
- **a dated candidate list**: the user's memories inside the window, ranked by the query's dense similarity (and
  their BM25 score), fused with the query's own lists (``SearchConfig.date_weight`` times the query's weights).
  A memory from the named day that the query's words alone would not reach becomes a candidate; nothing outside
  the window is removed (a prior, never a filter: a question never comes back empty because its date was wrong).
- **day recaps**: a question asking for the day's conversation as a whole (phrases in
  ``data/lang/<lang>/dates.json`` ``day_recap``: "what did we talk about", "聊了哪些话题") gets the day's memories
  in time order instead, a memory close in meaning (:data:`RECAP_SAME`) to one listed before moved
  behind the others: one per topic first.
  The day's memories are placed before every other hit (:func:`recap_first`) and keep that order through the
  reranking that follows (:func:`recap_order`); the other hits follow in their own order.
- **a proximity factor** (:func:`proximity`): 1 for a memory inside the window, ``exp(-d / spread)`` at ``d``
  days outside it (0 beyond ``3 · spread``); the search multiplies the final score by ``1 + time_boost · factor``.

With :class:`~anchormem.retrieval.config.SearchConfig` ``date_query`` (on by default; its comment says what was
measured) and ``query_rewrite`` not ``"off"``; without it the offline rewrite's plain window boost (:mod:`.rewrite`)
applies.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

import numpy as np

from ..filters import And, Cond, FilterNode, Or
from ..langdata import words
from ..text.dates import DateSpan, resolve_dates
from ..timeutil import to_epoch

__all__ = ["DateQuery", "DatedLists", "date_query", "dated_lists", "proximity", "is_recap", "recap_first",
           "recap_order", "YEARS_BACK", "RECAP_SAME"]

#: a yearless date is looked for up to this many years before its nearest past occurrence
YEARS_BACK = 8
#: day recap: a memory whose cosine with one listed before it is at least the day's mean pairwise cosine plus this
#: many standard deviations waits behind the others
RECAP_SAME = 1.0

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_BARE_EN = re.compile(r"\b(?:on\s+)?(" + "|".join(_WEEKDAYS) + r")\b(?!s)", re.I)
_BARE_ZH = re.compile(r"(?<![上下这本])(?:周|星期|礼拜)([一二三四五六日天])")
_ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


@dataclass(frozen=True)
class DateQuery:
    """The date a question names. ``windows``: candidate (start, end) aware-UTC inclusive ranges, newest first
    (several for a yearless date: one per year back, else one); ``day``: a single day; ``recap``: the question
    asks for that day's conversation as a whole."""

    text: str
    windows: tuple[tuple[datetime, datetime], ...]
    day: bool
    recap: bool


@dataclass
class DatedLists:
    """What :func:`dated_lists` found: ``window`` (the chosen range, or None when no memory falls in any candidate
    window: then the first, nearest one), ``lists`` ({name: [(memory id, score)]} best first) to fuse."""

    window: tuple[datetime, datetime] | None
    lists: dict[str, list[tuple[str, float]]] = field(default_factory=dict)


def is_recap(text: str) -> bool:
    """Does ``text`` (a question with its date phrase removed) ask for a day's conversation as a whole?"""
    low = text.casefold()
    return any(p.casefold() in low for p in words("dates", "day_recap"))


def _bare_weekday(query: str, ref: datetime) -> DateSpan | None:
    """"on Monday" / "周一" without last/this/next: the latest such day before ``ref``'s day."""
    today = ref.date()
    m = _BARE_EN.search(query)
    wd = _WEEKDAYS.index(m.group(1).lower()) if m else None
    if m is None:
        m = _BARE_ZH.search(query)
        wd = _ZH_WD[m.group(1)] if m else None
    if m is None or wd is None:
        return None
    d = today - timedelta(days=(today.weekday() - wd) % 7 or 7)
    tz = ref.tzinfo
    return DateSpan(m.group(), datetime.combine(d, time.min, tzinfo=tz).astimezone(timezone.utc),
                    datetime.combine(d, time(23, 59, 59), tzinfo=tz).astimezone(timezone.utc), True)


def _shift_year(d: date, years: int) -> date | None:
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 29 February
        return None


def date_query(query: str, ref: datetime) -> DateQuery | None:
    """The first date ``query`` names, resolved against ``ref`` (aware; the search's ``as_of`` or now), or None.

    A yearless date ("May 4th", "5月4日", "in April") gets one window per year from its nearest past occurrence
    back :data:`YEARS_BACK` years (newest first); :func:`dated_lists` picks the year the user's memories say.
    """
    if ref.tzinfo is None:
        ref = ref.replace(tzinfo=timezone.utc)
    spans = resolve_dates(query, ref)
    span = spans[0] if spans else _bare_weekday(query, ref)
    if span is None:
        return None
    tz = ref.tzinfo
    a, b = span.start.astimezone(tz).date(), span.end.astimezone(tz).date()
    windows: list[tuple[date, date]] = [(a, b)]
    if span.yearless:
        shift = 0
        while a.year + shift > ref.year or (_shift_year(a, shift) or a) > ref.date():
            shift -= 1  # never a day after the search time
            if shift < -2:
                break
        windows = []
        for k in range(YEARS_BACK):
            a2, b2 = _shift_year(a, shift - k), _shift_year(b, shift - k)
            if a2 is not None and b2 is not None:
                windows.append((a2, b2))
    rest = query.replace(span.text, " ")
    return DateQuery(
        text=span.text,
        windows=tuple((datetime.combine(x, time.min, tzinfo=tz).astimezone(timezone.utc),
                       datetime.combine(y, time(23, 59, 59), tzinfo=tz).astimezone(timezone.utc))
                      for x, y in windows),
        day=a == b, recap=a == b and is_recap(rest))


def _window_filter(windows: tuple[tuple[datetime, datetime], ...] | list[tuple[datetime, datetime]]) -> FilterNode:
    parts: list[FilterNode] = []
    for s, e in windows:
        for f in ("created_at", "event_time"):
            parts.append(And((Cond(f, "gte", to_epoch(s)), Cond(f, "lte", to_epoch(e)))))
    return Or(tuple(parts))


def _inside(item: Any, window: tuple[datetime, datetime]) -> bool:
    s, e = window
    if item.event_time is not None and item.event_time <= e and (item.event_time_end or item.event_time) >= s:
        return True
    return s <= item.created_at <= e


def dated_lists(store: Any, scope: Any, where: FilterNode | None, dq: DateQuery, *, query_vector: Callable[[], Any],
                terms: list[str], n: int, as_of: datetime | None) -> DatedLists:
    """The dated candidate lists of ``dq`` in ``scope`` (see the module doc): ``dense_date`` (cosine, best first)
    and ``bm25_date`` (BM25), or ``recap_date`` (time order; scores 1 → 1/n) for a day recap. ``query_vector``:
    called for the query's float32 (dim,) embedding. ``n``: list length. Empty lists when no memory of the user
    falls in any candidate window."""
    both = (lambda f: f) if where is None else (lambda f: And((where, f)))
    qv = query_vector()
    dense = store.dense_search(scope, qv, n if not dq.recap else max(n, 200), both(_window_filter(dq.windows)),
                               as_of)
    if not dense:
        return DatedLists(None)
    window = dq.windows[0]
    items = store.get_many(scope.tenant, [d for d, _ in dense], entities=False)  # times and ids are read, no more
    if len(dq.windows) > 1:  # the newest candidate year that holds memories
        window = next((w for w in dq.windows if any(_inside(it, w) for it in items.values())), dq.windows[0])
        dense = [(d, s) for d, s in dense if d in items and _inside(items[d], window)]
    if dq.recap:
        order = sorted((items[d] for d, _ in dense if d in items),
                       key=lambda it: (it.event_time if it.event_time and it.event_time >= window[0]
                                       else it.created_at, it.created_at, it.id))
        return DatedLists(window, {"recap_date": _one_per_topic(store, scope, order)})
    lexical = store.keyword_search(scope, terms, n, both(_window_filter([window])), as_of) if terms else []
    return DatedLists(window, {"dense_date": dense[:n], "bm25_date": [(d, s) for d, s in lexical if s > 0]})


def _one_per_topic(store: Any, scope: Any, order: list[Any]) -> list[tuple[str, float]]:
    """``order`` (memories in time order) with each memory close in meaning to one before it moved behind the
    others; scores 1 → 1/len. Close = cosine at least the mean + :data:`RECAP_SAME` standard deviations of the
    day's pairwise cosines (relative to the day, so it holds for any embedder's cosine scale)."""
    vecs = store.get_vectors(scope.tenant, [it.id for it in order])
    have = [it.id for it in order if it.id in vecs]
    first: list[str] = []
    later: list[str] = []
    if len(have) >= 3:
        m = np.vstack([np.asarray(vecs[d], dtype=np.float32) for d in have])
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        sims = m @ m.T
        pairs = sims[np.triu_indices(len(have), 1)]
        thr = float(pairs.mean() + RECAP_SAME * pairs.std())
        pos = {d: i for i, d in enumerate(have)}
        kept: list[int] = []
        for it in order:
            i = pos.get(it.id)
            if i is not None and kept and float(sims[i, kept].max()) >= thr:
                later.append(it.id)
                continue
            if i is not None:
                kept.append(i)
            first.append(it.id)
    else:
        first = [it.id for it in order]
    ids = first + later
    return [(d, 1.0 - i / max(len(ids), 1)) for i, d in enumerate(ids)]


def proximity(item: Any, window: tuple[datetime, datetime], spread_days: float) -> float:
    """1.0 when ``item`` happened (``event_time``…``event_time_end``) or was said (``created_at``) inside
    ``window``; else ``exp(-d / spread_days)`` with ``d`` the days between the nearer of those times and the
    window (0.0 beyond ``3 · spread_days``)."""
    if _inside(item, window):
        return 1.0
    s, e = window
    times = [item.created_at] + ([item.event_time] if item.event_time is not None else [])
    d = min(((s - t) if t < s else (t - e)).total_seconds() / 86400.0 for t in times)
    if spread_days <= 0 or d > 3 * spread_days:
        return 0.0
    return math.exp(-d / spread_days)


def recap_first(hits: list[Any], recap: list[tuple[str, float]]) -> list[Any]:
    """Day recap: the hits listed in ``recap`` (``recap_date``, time order) lifted above every other hit, in that
    order (score = best other score × (2 - i/n), ``explain["recap_rank"]`` = i + 1); others unchanged."""
    rank = {d: i for i, (d, _) in enumerate(recap)}
    top = max((h.score for h in hits), default=0.0) or 1.0
    for h in hits:
        i = rank.get(h.memory.id)
        if i is not None:
            h.explain["recap_rank"] = i + 1
            h.score = h.explain["final"] = top * (2.0 - i / max(len(rank), 1))
    return hits


def recap_order(hits: list[Any]) -> list[Any]:
    """The recap hits (``explain["recap_rank"]``) put back in recap order on the positions they hold after a
    rerank (anchoring); the other hits keep their positions."""
    slots = [i for i, h in enumerate(hits) if "recap_rank" in h.explain]
    ordered = sorted((hits[i] for i in slots), key=lambda h: h.explain["recap_rank"])
    out = list(hits)
    for i, h in zip(slots, ordered):
        out[i] = h
    return out
