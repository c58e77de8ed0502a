"""Latency summaries shared by the benchmark scripts (milliseconds in, rounded milliseconds out)."""

from __future__ import annotations

import statistics


def pct(xs: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) of ``xs`` by nearest rank on the sorted values."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def summary(ms: list[float]) -> dict:
    """``{"n", "p50_ms", "p95_ms", "mean_ms"}`` of latencies in milliseconds."""
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 3), "p95_ms": round(pct(ms, 95), 3),
            "mean_ms": round(statistics.fmean(ms), 3)}
