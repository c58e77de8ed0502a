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


def progress_printer(every_s: float = 10.0):
    """A ``progress(done, total)`` callback for the eval harnesses: prints ``  done/total`` to stderr at most once
    every ``every_s`` seconds (monotonic clock), and always at the end."""
    import sys
    import time

    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > every_s or done == total:
            last[0] = now
            print(f"  {done}/{total}", file=sys.stderr, flush=True)

    return progress


def emit(result: dict, out: str | None) -> None:
    """Print ``result`` as JSON and, with ``out`` (a path), write it there too (UTF-8, trailing newline)."""
    import json
    from pathlib import Path

    text = json.dumps(result, indent=1)
    print(text)
    if out:
        Path(out).write_text(text + "\n", encoding="utf-8")
