"""Paired comparison of two systems on the same questions: the mean per-question difference and its bootstrap
interval (resampling questions with replacement, the same resample for both systems).

    >>> paired_bootstrap([1, 0, 1, 1], [1, 0, 0, 1], n_resamples=1000, seed=0)["diff"]
    0.25
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidInputError

__all__ = ["paired_bootstrap", "against_base"]


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, n_resamples: int = 2000, confidence: float = 0.95,
                     seed: int = 0) -> dict[str, float | int]:
    """Compare system A's per-question scores ``a`` with system B's ``b`` (same questions, same order; e.g. recall@5
    in [0, 1]). Returns ``{"n", "a", "b", "diff", "low", "high", "wins", "losses", "p_le_0"}``: the means of A and B,
    the mean difference A - B, its percentile bootstrap interval at ``confidence`` (``n_resamples`` resamples of the
    questions with replacement, seeded), how many questions A scores above / below B, and the share of resampled
    differences ≤ 0. Raises
    InvalidInputError for lists of different lengths, an empty list, or a confidence outside (0, 1)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) == 0:
        raise InvalidInputError("paired_bootstrap needs two non-empty score lists of the same length")
    if not 0.0 < confidence < 1.0:
        raise InvalidInputError("confidence must be in (0, 1)")
    d = x - y
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, 500):  # bounded memory: 500 resamples of n indexes at a time
        k = min(500, n_resamples - start)
        means[start:start + k] = d[rng.integers(0, len(d), size=(k, len(d)))].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return {"n": int(len(d)), "a": float(x.mean()), "b": float(y.mean()), "diff": float(d.mean()),
            "low": float(low), "high": float(high), "wins": int((d > 0).sum()), "losses": int((d < 0).sum()),
            "p_le_0": float((means <= 0).mean())}


def against_base(result: dict[str, Any], base: str) -> Iterator[tuple[str, list[dict], list[dict]]]:
    """``(name, its questions, base's questions)`` for every run of ``result["runs"]`` but ``base`` (each run a
    dict with ``"questions"``: per-question records in the same order in every run), for paired comparisons."""
    qb = result["runs"][base]["questions"]
    for name, run in result["runs"].items():
        if name != base:
            yield name, run["questions"], qb
