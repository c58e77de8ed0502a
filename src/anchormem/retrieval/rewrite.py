"""Query rewriting: offline time windows and cross-language keyword expansion; LLM multi-query when configured.

Offline (``SearchConfig.query_rewrite="offline"``, the default):

- **time window**: a date the question names ("last week", "in May 2023", "上个月", "昨天") is resolved against the
  search time (or ``as_of``) with :func:`anchormem.text.dates.resolve_dates`; hits whose ``event_time`` range or
  said-at time (``created_at``) falls in the window are boosted by ``time_boost`` (score · (1 + boost)), and every
  hit's ``explain["time_match"]`` says whether it matched. A boost, not a filter: a question never comes back
  empty because the date was approximate. A yearless date ("May 4th") takes the occurrence nearest the search time
  here, and only memories already among the candidates are boosted; with ``SearchConfig.date_query``
  (:mod:`.dated`) the year comes from the user's memories, the window's memories join the candidates, the boost
  falls off with the days outside the window, and "what did we talk about on <day>" gets the day's topics.
- **keyword expansion**: each query term in a paraphrase group of :mod:`anchormem.answering.evidence` ("live",
  "住", "搬到"; "work", "工作", "公司" …) adds the group's words **in the other script**, so an English question
  finds a Chinese memory by keyword and the reverse. Same-language synonyms are left to the dense signal (adding
  them moves BM25 for every query, measured to cost LoCoMo recall).

With an LLM (``query_rewrite="llm"``): the model proposes up to 3 alternative phrasings (JSON); each is searched
(dense + BM25) and all rank lists are fused by RRF with the original's lists weighted highest. A reply that cannot
be parsed is ignored (the original query still runs): rewriting never fails a search.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from ..answering.evidence import paraphrase_groups
from ..llms.jsonparse import parse_json_reply
from ..text.dates import resolve_dates
from ..text.tokenize import has_cjk, stem

__all__ = ["time_window", "expand_terms", "llm_queries", "in_window", "REWRITE_SCHEMA"]

log = logging.getLogger("anchormem")


def time_window(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The first date the query names, as an aware UTC (start, end) day range resolved against ``now``."""
    dates = resolve_dates(query, now)
    return (dates[0].start, dates[0].end) if dates else None


def in_window(item: Any, window: tuple[datetime, datetime]) -> bool:
    """Did the memory happen (``event_time``…``event_time_end``) or get said (``created_at``) in the window?"""
    start, end = window
    if item.event_time is not None:
        ev_end = item.event_time_end or item.event_time
        if item.event_time <= end and ev_end >= start:
            return True
    return start <= item.created_at <= end


def _full_words(group: set[str]) -> list[str]:
    """Words of a paraphrase group usable as keywords: CJK words and English words of 3+ letters. (The groups
    also hold stems such as "relocat"; the index stems too, and a stem that matches nothing costs nothing.)"""
    return [w for w in sorted(group) if has_cjk(w) or len(w) >= 3]


def expand_terms(terms: list[str]) -> list[str]:
    """``terms`` plus the other-script words of each term's paraphrase group (order kept, no duplicates)."""
    out = list(dict.fromkeys(terms))
    seen = set(out)
    groups, index = paraphrase_groups()
    for t in terms:
        g = index.get(t)
        if g is None:
            g = index.get(stem(t))
        if g is None:
            continue
        cjk = has_cjk(t)
        for w in _full_words(groups[g]):
            if has_cjk(w) != cjk and w not in seen:
                seen.add(w)
                out.append(w)
    return out


_PROMPT = ("Rewrite the user's question into up to 3 short alternative search queries for a personal memory store: "
           "paraphrases, the key entity alone, the question as a statement. Same language as the question. Reply "
           'with ONE JSON object {"queries": ["...", "..."]} and nothing else.')

REWRITE_SCHEMA: dict = {"title": "queries", "type": "object", "required": ["queries"],
                        "properties": {"queries": {"type": "array", "maxItems": 3, "items": {"type": "string"}}}}


def llm_queries(llm: Any, query: str, *, max_queries: int = 3) -> list[str]:
    """Alternative phrasings from the LLM, deduplicated, without the original; [] when the reply is unusable or
    the endpoint fails (logged at WARNING). The request carries :data:`REWRITE_SCHEMA` as ``response_format`` (a
    small local model asked without it answered the question instead, inventing the answer)."""
    try:
        reply = llm.complete([{"role": "system", "content": _PROMPT}, {"role": "user", "content": query}],
                             json_schema=REWRITE_SCHEMA, temperature=0.0, max_tokens=200)
        value = parse_json_reply(reply, expect="object").value
    except Exception as exc:  # noqa: BLE001 - any failure: search with the original query only
        log.warning("anchormem: query rewrite failed, searching the original query only: %s", exc)
        return []
    items = value.get("queries") if isinstance(value, dict) else None
    out: list[str] = []
    for q in items if isinstance(items, list) else []:
        if isinstance(q, str) and q.strip() and q.strip().casefold() != query.strip().casefold() \
                and q.strip() not in out and len(q) <= 500:
            out.append(q.strip())
    return out[:max_queries]
