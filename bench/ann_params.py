"""HNSW graph parameters for the vector index (stores/vectors.py ``_ANN_PARAMS``): insert cost and recall@10.

    nice -n 10 python bench/ann_params.py --n 20000 --out bench/results/scale1m_ann_params.json

usearch standalone, on ``--n`` clustered 384-d unit vectors (bench/peers/synth.py) inserted on one thread (as the
store does: multi-thread add is kept off, USearch#735), then ``--queries`` noisy copies of stored vectors searched
top-10; recall@10 against exact inner-product search. Per setting: insert CPU ms per vector, recall, search CPU ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))
import synth  # noqa: E402

SETTINGS = (("f32", 128), ("f32", 64), ("f16", 64), ("f16", 128), ("i8", 64))


def main() -> int:
    from usearch.index import Index

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--settings", default=",".join(f"{d}/{e}" for d, e in SETTINGS))
    ap.add_argument("--out")
    args = ap.parse_args()
    v = synth.make_vectors(args.n)
    _, qv = synth.make_queries(v, args.n, args.queries, seed=3)
    exact = np.argsort(-(qv @ v.T), axis=1)[:, :10]
    rows = []
    for spec in args.settings.split(","):
        dt, ef = spec.split("/")
        idx = Index(ndim=v.shape[1], metric="ip", dtype=dt, connectivity=16, expansion_add=int(ef),
                    expansion_search=64)
        c = time.process_time()
        idx.add(np.arange(args.n, dtype=np.uint64), v, threads=1)
        add = (time.process_time() - c) / args.n * 1e3
        c = time.process_time()
        rec = sum(len(set(np.asarray(idx.search(q, 10).keys).tolist()) & set(e.tolist())) / 10
                  for q, e in zip(qv, exact)) / len(qv)
        row = {"dtype": dt, "expansion_add": int(ef), "add_cpu_ms_per_vector": round(add, 3),
               "recall_at_10": round(rec, 3), "search_cpu_ms": round((time.process_time() - c) / len(qv) * 1e3, 3)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "n": args.n, "results": rows},
                                             indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
