"""Rank fusion of candidate lists: RRF (Cormack et al., 2009) and a weighted score mix."""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from ..tracing import staged

__all__ = ["rrf", "minmax", "weighted", "recency_weight", "adaptive_weights", "drop_zero", "peak",
           "normalised", "flatness", "flatness_weights"]


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
def minmax(lists: dict[str, list[tuple[str, float]]], weights: dict[str, float], window: int = 50,
           k: float = 10.0) -> dict[str, float]:
    """Score fusion with per-query min-max normalisation: score(d) = Σ_lists w_l · clip((s - lo_l) / (hi_l - lo_l),
    0, 1) + a tie-breaker 10⁻³ · w_l / (k + rank_l(d)), with hi_l/lo_l the best and the ``window``-th score of list
    l for this query (a list of one score, or of equal scores, counts 1 for each of them). Scale-free: a cosine and
    a BM25 score add up on one scale whatever the model or the store, and each list's own shape decides how much its
    runners-up get (one standout: the rest near 0; a flat top: all near 1), which a rank-only fusion (RRF) cannot
    see. Candidates past the window keep only the tie-breaker. Lists are best-first."""
    out: dict[str, float] = {}
    for name, items in lists.items():
        w = weights.get(name, 1.0)
        if w == 0 or not items:
            continue
        top = [s for _, s in items[:max(1, window)]]
        hi, lo = max(top), min(top)
        span = hi - lo
        get = out.get
        if span <= 1e-12:
            for rank, (doc, _) in enumerate(items, start=1):
                out[doc] = get(doc, 0.0) + w * (1.0 + 1e-3 / (k + rank))
            continue
        for rank, (doc, s) in enumerate(items, start=1):
            v = (s - lo) / span
            v = 1.0 if v > 1.0 else v if v > 0.0 else 0.0  # clip to [0, 1] (NaN -> 0, as min(1, max(0, v)))
            out[doc] = get(doc, 0.0) + w * (v + 1e-3 / (k + rank))
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


def drop_zero(items: list[tuple[str, float]], floor: float = 1e-4) -> list[tuple[str, float]]:
    """BM25 hits whose score is above ``floor``: a hit that matched only words found in most memories scores ~0
    (FTS5 clamps a negative IDF to 1e-6, times a term-frequency factor of up to ~2) and carries no evidence, yet
    RRF would credit it by its rank. When no
    hit scores above ``floor`` (a store of a handful of memories, where every word is in most of them) the list is
    kept as it is: there the ~0 scores say nothing about the words."""
    kept = [(d, s) for d, s in items if s > floor]
    return kept if kept else items


def peak(scores: list[float], window: int = 20) -> float:
    """How far the best score stands out from the next ``window - 1``, scale-free: (s₁ - mean) / std over the
    first ``window`` scores (0 with fewer than 3 scores or no spread). Comparable across signals and models (a
    cosine and a BM25 score on their own scales)."""
    top = np.asarray(scores[:window], dtype=float)
    if top.size < 3:
        return 0.0
    sd = float(top.std())
    return 0.0 if sd <= 1e-12 else float((top[0] - top.mean()) / sd)


def adaptive_weights(dense: list[tuple[str, float]], lexical: list[tuple[str, float]], dense_weight: float,
                     lexical_weight: float, *, strength: float = 1.0, window: int = 20, top: int = 10,
                     agree: float = 0.0, breadth: float = 0.0, budget: int = 200
                     ) -> tuple[float, float, dict[str, float]]:
    """Per-query weights of the dense and BM25 lists, from what the lists themselves show.

    Each list's confidence is its :func:`peak` (how far its best hit stands out); the weights move toward the more
    confident list: ``lexical_weight · (2r)^strength`` and ``dense_weight · (2(1-r))^strength``, r = peak_bm25 /
    (peak_bm25 + peak_dense) (0.5, the weights as configured, when both are equally peaked or neither is).
    ``agree`` ∈ [0, 1]: when the two top-``top`` lists share memories (overlap o ∈ [0, 1]) both signals point at the
    same place and the configured weights are kept: the shift is scaled by (1 - agree·o). ``breadth``: a query
    whose words are found in many memories says little through them: the BM25 weight is scaled by
    (1 - breadth·b), b = min(1, hits / ``budget``) the share of the candidate budget filled by BM25 hits with a
    score ("What tasks remain on my todo list?" matches most todo turns; "When did Caroline go to the LGBTQ support
    group?" a few). An empty BM25 list gives
    (dense_weight, 0); an empty dense list (0, lexical_weight). Returns (dense_weight', lexical_weight', features)
    with features ``peak_dense``, ``peak_bm25``, ``overlap``, ``ratio``."""
    if not lexical:
        return dense_weight, 0.0, {"peak_dense": 0.0, "peak_bm25": 0.0, "overlap": 0.0, "ratio": 0.0, "breadth": 0.0}
    if not dense:
        return 0.0, lexical_weight, {"peak_dense": 0.0, "peak_bm25": 0.0, "overlap": 0.0, "ratio": 1.0,
                                     "breadth": 0.0}
    pd, pl = peak([s for _, s in dense], window), peak([s for _, s in lexical], window)
    r = 0.5 if pd + pl <= 1e-9 else pl / (pd + pl)
    o = len({d for d, _ in dense[:top]} & {d for d, _ in lexical[:top]}) / float(top)
    r = 0.5 + (r - 0.5) * (1.0 - agree * o)
    b = min(1.0, len(lexical) / float(max(1, budget)))
    return (dense_weight * (2 * (1 - r)) ** strength, lexical_weight * (2 * r) ** strength * (1.0 - breadth * b),
            {"peak_dense": pd, "peak_bm25": pl, "overlap": o, "ratio": r, "breadth": b})


def normalised(items: list[tuple[str, float]], window: int = 50) -> dict[str, float]:
    """{id: score min-max normalised over the first ``window`` scores, clipped to [0, 1]} (as :func:`minmax` reads a
    list; a list of equal scores gives 1 to each)."""
    if not items:
        return {}
    top = [s for _, s in items[:max(1, window)]]
    hi, lo = max(top), min(top)
    span = hi - lo
    if span <= 1e-12:
        return {d: 1.0 for d, _ in items}
    return {d: min(1.0, max(0.0, (s - lo) / span)) for d, s in items}


def flatness(items: list[tuple[str, float]], window: int = 50, level: float = 0.5) -> float:
    """The share of a list's first ``window`` memories whose min-max normalised score (:func:`normalised`) is above
    ``level``: near 0 when a few memories stand out and the rest fall away, near 1 when the list cannot tell its
    first ``window`` apart (a query whose words are in many memories, or a model whose cosines are all alike for
    this query). 0 for an empty list."""
    top = items[:max(1, window)]
    if not top:
        return 0.0
    n = normalised(top, window)
    return sum(1 for d, _ in top if n[d] > level) / len(top)


def flatness_weights(dense: list[tuple[str, float]], lexical: list[tuple[str, float]], dense_weight: float,
                     lexical_weight: float, *, gain: float = 1.0, window: int = 50, level: float = 0.5
                     ) -> tuple[float, float, dict[str, float]]:
    """Per-query weights from how well each list tells its candidates apart: each signal gains weight as much as the
    other one is flat (:func:`flatness`): ``dense_weight · (1 + gain · flat_bm25)`` and ``lexical_weight · (1 + gain ·
    flat_dense)``, rescaled to the configured sum. A query whose words are in most memories (a generic question
    over a store of similar turns) leans on the dense list; a model that ranks a query's candidates all alike leans
    on BM25, and a model that separates them keeps its weight, so the weights follow the embedder (no per-model
    constant). An empty list gives the other one alone. Returns (dense_weight', lexical_weight', features
    ``flat_dense``, ``flat_bm25``)."""
    if not lexical:
        return dense_weight, 0.0, {"flat_dense": 0.0, "flat_bm25": 0.0}
    if not dense:
        return 0.0, lexical_weight, {"flat_dense": 0.0, "flat_bm25": 0.0}
    fd, fl = flatness(dense, window, level), flatness(lexical, window, level)
    wd, wl = dense_weight * (1 + gain * fl), lexical_weight * (1 + gain * fd)
    scale = (dense_weight + lexical_weight) / (wd + wl) if wd + wl > 0 else 1.0
    return wd * scale, wl * scale, {"flat_dense": fd, "flat_bm25": fl}


def recency_weight(when: datetime, now: datetime, *, curve: str = "log", half_life_days: float = 30.0) -> float:
    """Recency in (0, 1], days = max(0, now - when) in days (a future ``when`` counts as now).

    ``curve="log"`` (default, seed design): 1 / (1 + ln(1 + days)): 1.0 today, ~0.41 after a week, ~0.23 after a
    year; slow, so old memories stay findable. ``curve="exp"``: 0.5 ** (days / half_life_days)."""
    days = max(0.0, (now - when).total_seconds() / 86400.0)
    if curve == "exp":
        return 0.5 ** (days / half_life_days)
    return 1.0 / (1.0 + math.log1p(days))
