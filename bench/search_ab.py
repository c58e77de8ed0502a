"""Search CPU per query, two source trees side by side, interleaved, on the same stores: the before/after of a
change to the read path, with its stage table and a check that both trees return the same hits.

    python bench/search_ab.py --work /tmp/ks --sizes 1000,10000,100000 \
        --src base=/work/wt/base/src --src new=src [--recipes default,dense] [--queries 200] [--rounds 10] \
        [--out bench/results/search_ab.json]

The stores are the snapshots ``bench/keyword_scale.py`` leaves under ``--work`` (``sqlite_<n>/anchormem.db`` and
``vectors_<largest>.npy``: one user's synthetic turns, precomputed vectors). For each size and each ``--src`` a
worker process is started with ``PYTHONPATH`` set to that tree and one BLAS/OpenMP thread
(``OMP_NUM_THREADS=1``); it copies the snapshot to a private folder (so the access counts every search writes are
the same in every worker: the same queries in the same order) and opens it with a lookup embedder (query vectors
precomputed: no embedding is timed), with the library's clock frozen at ``--now`` (default: when the run started;
the same in every worker). After a warm-up (jieba's dictionary, the keyword index, the vector cache) the
queries are split into ``--rounds`` rounds; in each round every worker of a size answers the round's queries with
each recipe, the order of the workers rotated round by round (so load changes hit both trees alike).

Per query and recipe: CPU time of ``Memory.search`` (``time.process_time``, this process: SQLite runs in it; its wall
time beside it, ``wall_ms_p50``/``_p95``: on a shared machine it measures the load as much as the code) and
the stage it was spent in, exclusive (a stage's own time, its sub-stages left out): the store calls
(``dense_search``, ``keyword_search``, ``get_many`` and the other row reads), ``anchor`` (context anchoring),
``searcher`` (the pipeline of :class:`anchormem.retrieval.search.Searcher` around them: fusion, weights, hits,
ordering), ``facade`` (``Memory.search`` around the searcher: arguments, filters, recipe). Per query the returned
ids, scores and a digest of each hit (the memory's fields and ``explain``) are compared between the trees:
``identical`` counts the queries whose ids and order match, ``same_scores`` those whose scores match exactly too,
``same_hits`` those whose whole hits (memory and explain) match.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STORE_CALLS = ("dense_search", "keyword_search", "get_many", "with_entities", "get_many_with_context",
               "get_context_vectors", "touch",
               "candidate_rows", "rank_rows", "whole_rows", "past_texts", "metadata_keys", "recent_memories",
               "session_labels")


# ---------------------------------------------------------------- worker (runs inside one source tree)
class _Clock:
    """Exclusive CPU time per stage: a stage's time minus the time of the stages it called."""

    def __init__(self) -> None:
        self.stack: list[list[float]] = []  # [start, child time]
        self.acc: dict[str, float] = {}

    def wrap(self, name: str, fn: Any) -> Any:
        def run(*a: Any, **kw: Any) -> Any:
            self.stack.append([time.process_time(), 0.0])
            try:
                return fn(*a, **kw)
            finally:
                t0, child = self.stack.pop()
                dt = time.process_time() - t0
                self.acc[name] = self.acc.get(name, 0.0) + dt - child
                if self.stack:
                    self.stack[-1][1] += dt
        run.__wrapped__ = fn  # type: ignore[attr-defined]
        return run


def _digest(hit: Any) -> str:
    d = {"memory": hit.memory.model_dump(mode="json"), "explain": hit.explain, "score": hit.score}
    return hashlib.sha1(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


def worker(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE / "peers"))
    import numpy as np

    import anchormem
    import keyword_scale
    import synth
    from anchormem import Memory
    from anchormem.context import hook
    from anchormem.retrieval import search as search_mod

    work = Path(args.work)
    vectors = np.load(sorted(work.glob("vectors_*.npy"))[-1], mmap_mode="r")
    tmp = Path(tempfile.mkdtemp(prefix=f"search_ab_{args.n}_"))
    shutil.copytree(work / f"sqlite_{args.n}", tmp / "db")
    emb = keyword_scale._Lookup()  # noqa: SLF001
    mem = Memory(str(tmp / "db" / "anchormem.db"), embedder=emb, llm=None, cache=False)
    qs, qv = synth.make_queries(vectors, args.n, args.queries + 5, seed=args.n)
    for q, v in zip(qs, qv):
        emb.table[q["text"].strip()] = v
    from datetime import datetime, timezone

    import anchormem.memory as memory_mod
    frozen = datetime.fromisoformat(args.now)  # one clock for every worker: recency and touch agree
    memory_mod.utcnow = lambda: frozen
    mem.search("warm up", user_id="u0", limit=10)
    mem.search("两天前我朋友卖掉了健身卡", user_id="u0", limit=10)
    recipes = [None if r == "default" else r for r in args.recipes.split(",")]
    for q in qs[:5]:
        for r in recipes:
            mem.search(q["text"], user_id="u0", limit=10, recipe=r)
    clock = _Clock()
    store = mem.store
    for name in STORE_CALLS:
        if hasattr(store, name):
            setattr(store, name, clock.wrap(name, getattr(store, name)))
    hook.AnchorHook.__call__ = clock.wrap("anchor", hook.AnchorHook.__call__)
    search_mod.Searcher.search = clock.wrap("searcher", search_mod.Searcher.search)
    outer = clock.wrap("facade", Memory.search)
    qs = qs[5:]
    print(json.dumps({"ready": anchormem.__file__}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd.get("stop"):
            break
        out = []
        for i in cmd["queries"]:
            for r in recipes:
                mem._searcher._qcache.clear()  # noqa: SLF001 - no query-vector cache hits
                clock.acc.clear()
                w0, t0 = time.perf_counter(), time.process_time()
                hits = outer(mem, qs[i]["text"], user_id="u0", limit=10, recipe=r)
                cpu, wall = time.process_time() - t0, time.perf_counter() - w0
                out.append({"q": i, "recipe": r or "default", "cpu": cpu, "wall": wall, "stages": dict(clock.acc),
                            "ids": [h.memory.id for h in hits], "scores": [h.score for h in hits],
                            "digest": [_digest(h) for h in hits],
                            "hit": any(h.memory.text == synth.text(qs[i]["target"]) for h in hits)})
        print(json.dumps(out), flush=True)
    mem.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


# ---------------------------------------------------------------- driver
def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p * (len(s) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--src", action="append", required=True, help="label=path of a source tree (src/), repeatable")
    ap.add_argument("--recipes", default="default,dense")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--out", default=None)
    ap.add_argument("--now", default=None, help="the clock every worker's searches read (ISO 8601; default: the "
                    "time this run started, frozen)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    srcs = [tuple(s.split("=", 1)) for s in args.src]
    if args.now is None:
        from datetime import datetime, timezone

        args.now = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    sizes = [int(x) for x in args.sizes.split(",")]
    result: dict[str, Any] = {"command": " ".join(sys.argv), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                                                      time.gmtime()),
                              "srcs": dict(srcs), "queries": args.queries, "rounds": args.rounds, "now": args.now,
                              "load_avg_start": os.getloadavg(), "sizes": {}}
    for n in sizes:
        procs = {}
        for label, path in srcs:
            env = {**os.environ, "PYTHONPATH": str(Path(path).resolve()), "OMP_NUM_THREADS": "1",
                   "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            p = subprocess.Popen([sys.executable, __file__, "--worker", "--n", str(n), "--work", args.work,
                                  "--recipes", args.recipes, "--queries", str(args.queries), "--src", "x=x",
                                  "--now", args.now],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            ready = json.loads(p.stdout.readline())
            print(f"{n:,} {label}: {ready['ready']}", flush=True)
            procs[label] = p
        recs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in srcs}
        per = max(1, args.queries // args.rounds)
        for r in range(args.rounds):
            qids = list(range(r * per, min(args.queries, (r + 1) * per)))
            labels = [lab for lab, _ in srcs]
            labels = labels[r % len(labels):] + labels[:r % len(labels)]
            for lab in labels:
                procs[lab].stdin.write(json.dumps({"queries": qids}) + "\n")
                procs[lab].stdin.flush()
                recs[lab].extend(json.loads(procs[lab].stdout.readline()))
        for p in procs.values():
            p.stdin.write(json.dumps({"stop": True}) + "\n")
            p.stdin.flush()
            p.wait()
        size_out: dict[str, Any] = {}
        base_label = srcs[0][0]
        for lab, _ in srcs:
            by_recipe: dict[str, Any] = {}
            for rec in sorted({x["recipe"] for x in recs[lab]}):
                xs = [x for x in recs[lab] if x["recipe"] == rec]
                cpu = [1000 * x["cpu"] for x in xs]
                stages: dict[str, float] = {}
                for x in xs:
                    for k, v in x["stages"].items():
                        stages[k] = stages.get(k, 0.0) + 1000 * v / len(xs)
                wall = [1000 * x["wall"] for x in xs]
                row = {"n": len(xs), "cpu_ms_p50": statistics.median(cpu), "cpu_ms_p95": _pct(cpu, 0.95),
                       "cpu_ms_mean": statistics.fmean(cpu), "wall_ms_p50": statistics.median(wall),
                       "wall_ms_p95": _pct(wall, 0.95), "stages_ms_mean": stages,
                       "hit_at_10": sum(x["hit"] for x in xs) / len(xs)}
                if lab != base_label:
                    base = {(x["q"], x["recipe"]): x for x in recs[base_label]}
                    pairs = [(base[(x["q"], x["recipe"])], x) for x in xs]
                    row["identical"] = sum(a["ids"] == b["ids"] for a, b in pairs)
                    row["same_scores"] = sum(a["ids"] == b["ids"] and a["scores"] == b["scores"] for a, b in pairs)
                    row["same_hits"] = sum(a["digest"] == b["digest"] for a, b in pairs)
                    row["differing_queries"] = [a["q"] for a, b in pairs if a["ids"] != b["ids"]][:20]
                by_recipe[rec] = row
            size_out[lab] = by_recipe
        result["sizes"][str(n)] = size_out
        for rec in args.recipes.split(","):
            rows = {lab: size_out[lab][rec] for lab, _ in srcs}
            line = "  ".join(f"{lab} p50 {r['cpu_ms_p50']:.2f} p95 {r['cpu_ms_p95']:.2f} (wall p50 {r['wall_ms_p50']:.2f})"
                             + (f" same {r['identical']}/{r['n']} (scores {r['same_scores']}, hits {r['same_hits']})"
                                if "identical" in r else "") for lab, r in rows.items())
            print(f"{n:>7,} {rec:<8} {line}", flush=True)
            for lab, _ in srcs:
                st = size_out[lab][rec]["stages_ms_mean"]
                ranked = sorted(st.items(), key=lambda kv: -kv[1])
                print(f"          {lab}: " + ", ".join(f"{k} {v:.2f}" for k, v in ranked), flush=True)
    result["load_avg_end"] = os.getloadavg()
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
