"""Rank fusion of candidate lists: RRF (Cormack et al., 2009) and a weighted score mix."""

from __future__ import annotations

import math
from datetime import datetime

from ..tracing import staged

__all__ = ["rrf", "weighted", "recency_weight"]


@staged("fuse")
def rrf(lists: dict[str, list[tuple[str, float]]], weights: dict[str, float], k: float = 60.0
        ) -> dict[str, float]:
    """Reciprocal rank fusion: score(d) = Σ_lists w_l / (k + rank_l(d)), ranks from 1. Lists are best-first."""
    out: dict[str, float] = {}
    for name, items in lists.items():
        w = weights.get(name, 1.0)
        if w == 0:
            continue
        for rank, (doc, _) in enumerate(items, start=1):
            out[doc] = out.get(doc, 0.0) + w / (k + rank)
    return out


@staged("fuse")
def weighted(dense: list[tuple[str, float]], lexical: list[tuple[str, float]], dense_weight: float
             ) -> dict[str, float]:
    """dense_weight · cosine + (1 - dense_weight) · bm25 / max(bm25). Missing signals count 0."""
    out: dict[str, float] = {}
    for doc, s in dense:
        out[doc] = dense_weight * s
    top = max((s for _, s in lexical), default=0.0)
    if top > 0:
        for doc, s in lexical:
            out[doc] = out.get(doc, 0.0) + (1 - dense_weight) * s / top
    return out


def recency_weight(when: datetime, now: datetime, *, curve: str = "log", half_life_days: float = 30.0) -> float:
    """Recency in (0, 1], days = max(0, now - when) in days (a future ``when`` counts as now).

    ``curve="log"`` (default, seed design): 1 / (1 + ln(1 + days)): 1.0 today, ~0.41 after a week, ~0.23 after a
    year; slow, so old memories stay findable. ``curve="exp"``: 0.5 ** (days / half_life_days)."""
    days = max(0.0, (now - when).total_seconds() / 86400.0)
    if curve == "exp":
        return 0.5 ** (days / half_life_days)
    return 1.0 / (1.0 + math.log1p(days))
