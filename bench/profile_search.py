"""Where does ``Memory.search`` spend its time? A stage breakdown and a cProfile listing on a synthetic store.

    python bench/profile_search.py [--n 20000] [--queries 40] [--backend sqlite|pg]

Builds one user's store of ``n`` synthetic memories (the scale benchmark's data, precomputed vectors, loaded
through the store layer), then runs ``queries`` default (hybrid) searches with query vectors precomputed, timing
each stage by wrapping the store calls and ``collapse_repeats``, and profiling the whole loop. Also times the
e5 query embedding alone and right after a numpy matrix product (OpenBLAS threads vs the embedder's OpenMP
threads). Writes ``bench/results/search_profile_<backend>.txt``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))

import synth  # noqa: E402
from adapter_anchormem import Adapter  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--backend", choices=("sqlite", "pg"), default="sqlite")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="am-profile-"))
    pg = None
    try:
        url = None
        if args.backend == "pg":
            from client import PgServer

            pg = PgServer(work / "pgdata")
            url = pg.database("p")
        vp = work / "v.npy"
        vecs = synth.make_vectors(args.n, path=vp)
        qrows, qv = synth.make_queries(vecs, args.n, args.queries, seed=3)
        (work / "q.jsonl").write_text("".join(__import__("json").dumps(r) + "\n" for r in qrows), encoding="utf-8")
        np.save(work / "q.npy", qv)
        a = Adapter(args.backend)
        a.open(str(work / "store"), pg_url=url)
        t = time.perf_counter()
        a.bulk_load({"kind": "synth", "vectors": str(vp), "users": 1}, 0, args.n)
        load_s = time.perf_counter() - t
        q = {"file": str(work / "q.jsonl"), "vectors": str(work / "q.npy")}
        a.search(q, recipe="hybrid_rrf", limit_queries=5)  # warm: scope matrix, ANN index, jieba, caches

        import anchormem.retrieval.search as search_mod

        spent: dict[str, float] = defaultdict(float)
        store = a.mem.store

        def timed(name, fn):
            def run(*x, **kw):
                t0 = time.perf_counter()
                try:
                    return fn(*x, **kw)
                finally:
                    spent[name] += time.perf_counter() - t0
            return run

        orig = {m: getattr(store, m) for m in ("dense_search", "keyword_search", "get_many", "touch")}
        for m, fn in orig.items():
            setattr(store, m, timed(f"store.{m}", fn))
        orig_collapse = search_mod.collapse_repeats
        search_mod.collapse_repeats = timed("collapse_repeats", orig_collapse)
        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        r = a.search(q, recipe="hybrid_rrf", warmup=0)
        prof.disable()
        total = time.perf_counter() - t
        search_mod.collapse_repeats = orig_collapse
        for m, fn in orig.items():
            setattr(store, m, fn)
        ms = sorted(r["ms"])

        lines = [f"Memory.search (hybrid_rrf), backend {args.backend}, {args.n:,} memories in one scope, "
                 f"{len(ms)} queries, query vectors precomputed; load {load_s:.1f} s", "",
                 f"p50 {ms[len(ms) // 2]:.2f} ms, p95 {ms[int(0.95 * (len(ms) - 1))]:.2f} ms", "",
                 "stage                      ms per search   share"]
        for name, s in sorted(spent.items(), key=lambda x: -x[1]):
            lines.append(f"{name:<26} {1000 * s / len(ms):>12.2f}   {100 * s / total:5.1f}%")
        rest = total - sum(spent.values())
        lines.append(f"{'rest (fusion, scoring, Hit objects)':<26} {1000 * rest / len(ms):>12.2f}   "
                     f"{100 * rest / total:5.1f}%")

        # the embedder next to numpy: OpenBLAS threads keep spinning after a product and slow e5's OpenMP threads
        from anchormem.embedders.local_e5 import E5SmallEmbedder

        e5 = E5SmallEmbedder()
        e5.embed_query("warm up")
        m = np.random.default_rng(0).standard_normal((20_000, 384)).astype(np.float32)

        def q_ms(after_blas: bool) -> float:
            ts = []
            for i in range(15):
                if after_blas:
                    m @ m[i]
                t0 = time.perf_counter()
                e5.embed_query(f"what did I book last week {i}")
                ts.append((time.perf_counter() - t0) * 1000)
            return sorted(ts)[7]

        lines += ["", f"e5 query embedding p50: {q_ms(False):.1f} ms alone, {q_ms(True):.1f} ms right after a "
                      "20k x 384 numpy matrix-vector product (OpenBLAS threads spinning; OPENBLAS_NUM_THREADS="
                  f"{__import__('os').environ.get('OPENBLAS_NUM_THREADS', 'unset')})"]
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
        lines += ["", "cProfile, cumulative, top 30:", buf.getvalue().replace(str(Path.cwd()) + "/", "")]
        a.close()
        out = HERE / "results" / f"search_profile_{args.backend}.txt"
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print("\n".join(lines[:20]))
        print(f"wrote {out}")
    finally:
        if pg is not None:
            pg.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
