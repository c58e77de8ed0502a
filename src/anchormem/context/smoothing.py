"""Session smoothing: each turn of a conversation averaged with its neighbours, weights falling with distance.

Used for the write-side label smoothing and for conversation context vectors (:mod:`anchormem.context.anchor`).
Bounded to :data:`SMOOTH_WINDOW` turns on each side, so one ``add`` of thousands of turns costs time and memory
linear in its turns (the dense form built an n x n weight matrix: 800 MB for 10,000 turns).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SMOOTH_WINDOW"]

SMOOTH_WINDOW = 256  # turns on each side a turn is smoothed with: bounds one add's cost to linear in its turns


def _smooth(own: np.ndarray, prior: np.ndarray, own_weight: float, decay: float,
            window: int = SMOOTH_WINDOW) -> np.ndarray:
    """Session smoothing in logit space: row i of ``own`` (n, D) averaged with the other rows and the ``prior``
    rows (m, D; oldest first, just before row 0) with weights 1/(1 + distance/decay), rows more than ``window``
    turns away left out (up to ``window + 1`` rows in all, every pair is within it); row i itself weighs
    ``own_weight``. Up to ``4 * window`` rows: one dense product; longer inputs (a call with thousands of turns)
    are computed in blocks of ``window`` rows, so time and memory grow linearly with n, not quadratically."""
    n, m = own.shape[0], prior.shape[0]
    if n + m > 4 * window:
        return _smooth_banded(own, prior, own_weight, decay, window)
    pos = np.arange(-m, n, dtype=np.float64)  # positions of prior rows then own rows
    dist = np.abs(np.arange(n, dtype=np.float64)[:, None] - pos[None, :])
    w = 1.0 / (1.0 + dist / decay)
    if n + m > window + 1:
        w[dist > window] = 0.0
    w[np.arange(n), m + np.arange(n)] = own_weight
    allrows = np.vstack([prior, own]) if m else own
    return (w @ allrows) / w.sum(axis=1, keepdims=True)


def _smooth_banded(own: np.ndarray, prior: np.ndarray, own_weight: float, decay: float,
                   window: int) -> np.ndarray:
    """:func:`_smooth` for long inputs: blocks of ``window`` rows, each against the rows within ``window``."""
    n, m = own.shape[0], prior.shape[0]
    allrows = np.vstack([prior, own]) if m else own
    out = np.empty((n, own.shape[1]), dtype=np.float64)
    for i0 in range(0, n, window):
        i1 = min(n, i0 + window)
        c0, c1 = max(0, m + i0 - window), min(n + m, m + i1 + window)  # columns: rows of ``allrows``
        dist = np.abs(np.arange(i0, i1, dtype=np.float64)[:, None] - (np.arange(c0, c1) - m)[None, :])
        w = 1.0 / (1.0 + dist / decay)
        w[dist > window] = 0.0
        w[np.arange(i1 - i0), m + np.arange(i0, i1) - c0] = own_weight
        out[i0:i1] = (w @ allrows[c0:c1]) / w.sum(axis=1, keepdims=True)
    return out
