"""Paired differences between two retrieval runs on the same questions, with a percentile bootstrap interval.

    >>> from anchormem.eval.paired import paired_bootstrap
    >>> paired_bootstrap([1, 0, 1, 1], [0, 0, 1, 0])   # per-question recall of A and of B
    {'n': 4, 'mean_a': 0.75, 'mean_b': 0.25, 'diff': 0.5, 'lo': ..., 'hi': ..., 'p_le_0': ...}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InvalidInputError

__all__ = ["paired_bootstrap"]


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, level: float = 0.95,
                     seed: int = 0) -> dict[str, float]:
    """Mean of ``a - b`` over paired questions and its percentile bootstrap interval (questions resampled with
    replacement, ``resamples`` times, a fixed ``seed``: the same inputs give the same interval).

    ``a``, ``b``: per-question scores (e.g. recall@k in [0, 1]) in the same question order, same length ≥ 1.
    Returns ``n``, ``mean_a``, ``mean_b``, ``diff`` (= mean_a - mean_b), ``lo``/``hi`` (the ``level`` interval of
    the difference) and ``p_le_0`` (share of resampled differences ≤ 0), all in the inputs' units.
    Raises InvalidInputError for empty or unequal inputs, or a level outside (0, 1)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size == 0:
        raise InvalidInputError(f"paired_bootstrap needs two equal-length non-empty sequences, got {x.shape} "
                                f"and {y.shape}")
    if not 0 < level < 1:
        raise InvalidInputError(f"level must be in (0, 1), got {level}")
    d = x - y
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(resamples, d.size))].mean(axis=1)
    tail = (1 - level) / 2
    return {"n": int(d.size), "mean_a": float(x.mean()), "mean_b": float(y.mean()), "diff": float(d.mean()),
            "lo": float(np.quantile(means, tail)), "hi": float(np.quantile(means, 1 - tail)),
            "p_le_0": float((means <= 0).mean())}
