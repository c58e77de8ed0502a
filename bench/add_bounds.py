"""The cost of one ``add`` against its size: many short messages, and long text, at and below the default bounds
(``max_add_messages`` 1,000, ``max_add_chars`` 100,000; anchormem.ingest.limits), plus the session smoothing
before (dense, quadratic) and after (banded, linear) on the same input.

    nice -n 10 python bench/add_bounds.py [--embedder hash|auto] [--out bench/results/add_bounds.json]

Reports wall and CPU seconds per call (a fresh in-memory store each, models loaded before timing). The CPU time
is the figure to compare: wall time on a shared machine is noisy.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

import numpy as np

from anchormem import Memory
from anchormem.context.smoothing import SMOOTH_WINDOW, _smooth

WORDS = ("tea coffee Lisbon moved sister meeting project budget report Tuesday friend dog walk park garden "
         "train ticket doctor dentist birthday").split()


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, round(time.perf_counter() - t0, 3), round(time.process_time() - c0, 3)


def _sentence(rng: random.Random, i: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(8)) + f" number {i}."


def run_add(embedder: str, messages: int | None = None, chars: int | None = None) -> dict:
    rng = random.Random(1)
    m = Memory(":memory:", embedder=embedder, llm=None, cache=False, max_message_chars=max(chars or 0, 32_000),
               max_add_chars=max(chars or 0, 100 * (messages or 0), 100_000),
               max_add_messages=max(messages or 0, 1_000))
    m.add("Warm-up: I like tea.", user_id="warm", session_id="w")  # models, tokenizer dictionaries loaded
    if messages is not None:
        body = [{"role": "user" if i % 2 == 0 else "assistant", "content": _sentence(rng, i)}
                for i in range(messages)]
    else:
        text = ""
        i = 0
        while len(text) < chars:
            text += _sentence(rng, i) + " "
            i += 1
        body = text[:chars]
    events, wall, cpu = _timed(lambda: m.add(body, user_id="u", session_id="s"))
    m.close()
    total_chars = sum(len(x["content"]) for x in body) if isinstance(body, list) else len(body)
    return {"messages": messages if messages is not None else 1, "chars": total_chars, "events": len(events),
            "wall_s": wall, "cpu_s": cpu, "cpu_ms_per_1k_chars": round(1000 * cpu / total_chars * 1000, 2)}


def run_smooth(n: int, dim: int = 384) -> dict:
    rng = np.random.default_rng(0)
    own, prior = rng.normal(size=(n, dim)), rng.normal(size=(6, dim))
    _, dense_wall, dense_cpu = _timed(lambda: _smooth(own, prior, 1.0, 3.0, window=10 ** 9))
    _, band_wall, band_cpu = _timed(lambda: _smooth(own, prior, 1.0, 3.0))
    return {"turns": n, "dim": dim, "dense_cpu_s": dense_cpu, "banded_cpu_s": band_cpu,
            "dense_weight_matrix_mb": round(n * (n + 6) * 8 / 1e6, 1), "window": SMOOTH_WINDOW}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    small = args.embedder != "hash"
    sizes_m = (100, 250, 500) if small else (250, 500, 1000, 2000)
    sizes_c = (10_000, 25_000, 50_000) if small else (25_000, 50_000, 100_000, 200_000)
    result = {"embedder": args.embedder, "machine": platform.machine(), "python": platform.python_version(),
              "defaults": {"max_add_messages": 1_000, "max_add_chars": 100_000},
              "short_messages": [run_add(args.embedder, messages=n) for n in sizes_m],
              "one_long_text": [run_add(args.embedder, chars=c) for c in sizes_c],
              "session_smoothing": [run_smooth(n) for n in (500, 1000, 3000)]}
    out = args.out or str(Path(__file__).parent / "results" / f"add_bounds_{args.embedder}.json")
    Path(out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
