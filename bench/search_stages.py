"""Where the default search spends its CPU, stage by stage, on a store bench/keyword_scale.py built.

    python bench/search_stages.py --work bench/.cache/keyword_scale --n 100000 [--recipe anchored] \
        [--queries 50] [--out bench/results/search_stages_sqlite.json] [--label after]

Opens the SQLite snapshot of ``--n`` memories under ``--work`` (``sqlite_<n>/anchormem.db``; build it with
keyword_scale.py, which also leaves the vectors file there), runs ``--queries`` of keyword_scale's queries (after a
warm-up: the index, jieba and one query of each language) through ``Memory.search`` and records the CPU time
(``time.process_time``) of each call and of each store call inside it (``dense_search``, ``keyword_search``,
``get_many``, ``touch``); ``rest`` is the pipeline around them (fusion, weights, anchoring, Hit objects). Run it
with ``PYTHONPATH`` pointing at another source tree for a before/after pair on the same rows (each search bumps
access counts: the rows' importance moves a little between runs, the keyword lists do not).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

import keyword_scale  # noqa: E402
import synth  # noqa: E402

STAGES = ("dense_search", "keyword_search", "get_many", "get_many_with_context", "rank_rows", "whole_rows", "touch")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=str(HERE / ".cache" / "keyword_scale"))
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--recipe", default=None, help="a recipe name (default: Memory.search's default)")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--label", default="")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import anchormem
    from anchormem import Memory

    work = Path(args.work)
    vpath = sorted(work.glob("vectors_*.npy"))
    if not vpath:
        raise SystemExit(f"no vectors_*.npy under {work}: build the store with bench/keyword_scale.py first")
    vectors = np.load(vpath[-1], mmap_mode="r")
    emb = keyword_scale._Lookup()  # noqa: SLF001
    mem = Memory(str(work / f"sqlite_{args.n}" / "anchormem.db"), embedder=emb, llm=None, cache=False)
    qs, qv = synth.make_queries(vectors, args.n, args.queries + 5, seed=args.n)
    for q, v in zip(qs, qv):
        emb.table[q["text"].strip()] = v
    c0 = time.process_time()
    mem.search("warm up", user_id="u0", limit=10)
    mem.search("两天前我朋友卖掉了健身卡", user_id="u0", limit=10)  # jieba's dictionary: once per process
    warm_cpu = time.process_time() - c0
    for q in qs[:5]:
        mem.search(q["text"], user_id="u0", limit=10, recipe=args.recipe)
    calls: dict[str, list[float]] = defaultdict(list)
    store = mem.store

    def timed(name: str, fn: Any) -> Any:
        def run(*a: Any, **kw: Any) -> Any:
            t0 = time.process_time()
            try:
                return fn(*a, **kw)
            finally:
                calls[name].append(time.process_time() - t0)
        return run

    for name in STAGES:
        if hasattr(store, name):
            setattr(store, name, timed(name, getattr(store, name)))
    total: list[float] = []
    for q in qs[5:]:
        mem._searcher._qcache.clear()  # noqa: SLF001 - no query-vector cache hits
        t0 = time.process_time()
        mem.search(q["text"], user_id="u0", limit=10, recipe=args.recipe)
        total.append(time.process_time() - t0)
    mem.close()
    n = len(total)

    def ms(xs: list[float]) -> dict[str, float]:
        s = sorted(xs)
        return {"p50": 1000 * s[len(s) // 2], "mean": 1000 * statistics.fmean(s), "max": 1000 * s[-1]} if s else {}

    out = {"label": args.label, "anchormem": anchormem.__file__, "n": args.n, "recipe": args.recipe or "default",
           "queries": n, "warm_up_cpu_s": warm_cpu, "search_cpu_ms": ms(total),
           "stages_cpu_ms_per_search": {k: 1000 * sum(v) / n for k, v in calls.items()},
           "stage_calls_cpu_ms": {k: ms(v) for k, v in calls.items()}}
    out["stages_cpu_ms_per_search"]["rest"] = 1000 * (sum(total) - sum(sum(v) for v in calls.values())) / n
    print(f"{args.n:,} memories, {out['recipe']}: search CPU p50 {out['search_cpu_ms']['p50']:.2f} ms, "
          f"mean {out['search_cpu_ms']['mean']:.2f}")
    for k, v in sorted(out["stages_cpu_ms_per_search"].items(), key=lambda kv: -kv[1]):
        print(f"  {k:<22} {v:6.2f} ms per search")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
