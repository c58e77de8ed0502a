"""Measure where per-scope exact search (numpy) should hand over to the HNSW index (usearch).

Uses anchormem's own ScopeVectors (the code search runs), random unit vectors of dimension 384, top-10.
Writes bench/results/vector_threshold.json. Run: python bench/vector_threshold.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from anchormem.stores.vectors import ScopeVectors

OUT = Path(__file__).parent / "results" / "vector_threshold.json"


def p(values, q):
    return float(np.percentile(np.asarray(values) * 1000.0, q))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,5000,10000,20000,50000,100000")
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    dim, k = 384, 10
    rows = []
    for n in [int(x) for x in args.sizes.split(",")]:
        mat = rng.standard_normal((n, dim)).astype(np.float32)
        mat /= np.linalg.norm(mat, axis=1, keepdims=True)
        qs = rng.standard_normal((args.queries, dim)).astype(np.float32)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        sv = ScopeVectors(np.arange(n, dtype=np.int64), mat, 1)
        exact_t, exact_res = [], []
        for q in qs:
            t = time.perf_counter()
            ids, _ = sv.exact(q, k, None)
            exact_t.append(time.perf_counter() - t)
            exact_res.append(set(ids.tolist()))
        from usearch.index import Index

        t = time.perf_counter()
        idx = Index(ndim=dim, metric="ip", dtype="f32", connectivity=16, expansion_add=128, expansion_search=64)
        idx.add(np.arange(n, dtype=np.uint64), mat)
        build = time.perf_counter() - t
        sv.ann = idx
        ann_t, hit = [], 0
        for q, truth in zip(qs, exact_res):
            t = time.perf_counter()
            ids, _ = sv.ann_search(q, k, None)
            ann_t.append(time.perf_counter() - t)
            hit += len(truth & set(ids.tolist()))
        row = {"n": n, "exact_p50_ms": p(exact_t, 50), "exact_p95_ms": p(exact_t, 95), "ann_p50_ms": p(ann_t, 50),
               "ann_p95_ms": p(ann_t, 95), "ann_recall_at_10": hit / (k * len(qs)), "ann_build_s": build}
        rows.append(row)
        print(json.dumps(row))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"machine": {"cpu_count": __import__("os").cpu_count(),
                                           "python": platform.python_version(), "platform": platform.platform()},
                               "dim": dim, "k": k, "rows": rows}, indent=2))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
