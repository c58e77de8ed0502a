"""Wall and CPU time of ``Memory.search`` on a bench/keyword_scale.py snapshot, in this process (one tree per run):
the before/after of a change that moves wall time more than CPU time (a disk flush per search).

    python bench/search_wall.py --work /tmp/ks --n 10000 [--recipe dense] [--queries 100]

Copies ``<work>/sqlite_<n>`` to a private folder (the access counts each search writes stay out of the snapshot),
opens it with a lookup embedder (query vectors precomputed) and the default durability (``full``), warms up (jieba,
the vectors, 5 queries), then times ``--queries`` searches. Prints one JSON line: wall p50/p95 and CPU p50 in ms.
For an A/B, run it alternately with ``PYTHONPATH`` pointing at each tree (bench/results/scale_search_wall10k.json).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

import keyword_scale  # noqa: E402
import synth  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--recipe", default=None)
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    from anchormem import Memory

    work = Path(args.work)
    tmp = Path(tempfile.mkdtemp(prefix="search-wall-")) / "d"
    shutil.copytree(work / f"sqlite_{args.n}", tmp)
    try:
        emb = keyword_scale._Lookup()  # noqa: SLF001
        vectors = np.load(sorted(work.glob("vectors_*.npy"))[-1], mmap_mode="r")
        qs, qv = synth.make_queries(vectors, args.n, args.queries + 5, seed=args.n)
        for q, v in zip(qs, qv):
            emb.table[q["text"].strip()] = v
        mem = Memory(str(tmp / "anchormem.db"), embedder=emb, llm=None, cache=False)
        mem.search("两天前我朋友卖掉了健身卡", user_id="u0", limit=10)
        for q in qs[:5]:
            mem.search(q["text"], user_id="u0", limit=10, recipe=args.recipe)
        wall, cpu = [], []
        for q in qs[5:]:
            w, c = time.perf_counter(), time.process_time()
            mem.search(q["text"], user_id="u0", limit=10, recipe=args.recipe)
            wall.append(1000 * (time.perf_counter() - w))
            cpu.append(1000 * (time.process_time() - c))
        mem.close()
    finally:
        shutil.rmtree(tmp.parent)
    print(json.dumps({"wall_p50": statistics.median(wall), "wall_p95": sorted(wall)[int(0.95 * len(wall)) - 1],
                      "cpu_p50": statistics.median(cpu)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
