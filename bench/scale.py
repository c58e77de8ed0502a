"""Speed and scale, side by side: anchormem (SQLite, PostgreSQL) against mem0, Chroma and a plain pgvector table,
each in its own process, on the same synthetic data and the same vectors, in one run.

    python bench/scale.py --quick            # or --full; normally called by bench/run.py

Per system, one store grows through the single-scope scales (1k → 10k → 100k [→ 1M]); at each scale:

- ``bulk``: loading rate (rows/s) through the system's storage layer, with precomputed vectors;
- ``search``: p50/p95 latency of top-10 search with the query vector precomputed (query embedding excluded),
  and ``hit``: share of queries whose target memory is in the top 10 (each query is a noisy copy of one stored
  vector, so this is the vector index's recall at 10, and for anchormem's hybrid search the pipeline's);
- ``search_embed``: the same with the query embedded by multilingual-e5-small in the timed call;
- ``add``: messages/s through the public add API, ``batch`` messages per call, vectors precomputed;
- ``stats``: RSS of the process (the embedding model is loaded in every process) and disk bytes.

Then the largest store is reopened in a fresh process (``cold_start``: process start → first search result,
query embedding included), and a multi-user store is built (memories spread round-robin over users). Every
timing here excludes document embedding except ``real_add`` (see run.py), which embeds with the real model.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))

import synth  # noqa: E402
from client import NEEDS_PG, PgServer, Worker, WorkerError  # noqa: E402

__all__ = ["PLANS", "run_scale", "latency_summary"]

ALL_SYSTEMS = ("anchormem-sqlite", "anchormem-pg", "chroma", "pgvector", "mem0")
ANCHORMEM_RECIPES = ("hybrid_rrf", "dense", "store_dense")

PLANS: dict[str, dict[str, Any]] = {
    "quick": {
        "single": [1_000, 10_000, 100_000],
        "multi": [(10_000, 100)],  # 100 memories per user, the density of 1M over 10k users
        # systems whose loading is too slow for a 10-minute run stop earlier (the cap is reported)
        "caps": {"anchormem-pg": 10_000, "mem0": 10_000},
        "multi_caps": {"anchormem-pg": 0, "mem0": 0},
        "queries": 30, "embed_queries": 10, "add_messages": 300, "add_batch": 100, "k": 10,
        "recipes": ("hybrid_rrf", "store_dense"),  # + Memory.search(recipe="dense") in --full
        "query_caps": {"anchormem-pg": 15},  # its hybrid search takes ~1 s a query at 10k (see docs/benchmarks.md)
        "add_caps": {"anchormem-pg": 100},
    },
    "full": {
        "single": [1_000, 10_000, 100_000, 1_000_000],
        "multi": [(1_000_000, 10_000)],
        "caps": {"anchormem-pg": 100_000, "mem0": 100_000},
        "multi_caps": {"anchormem-pg": 0, "mem0": 0},
        "queries": 200, "embed_queries": 50, "add_messages": 1000, "add_batch": 100, "k": 10,
        "query_caps": {"anchormem-pg": 50},
    },
}


class _Done(Exception):
    """Nothing more to measure in this block."""


def latency_summary(ms: list[float]) -> dict[str, float | int | None]:
    if not ms:
        return {"n": 0, "p50": None, "p95": None, "mean": None}
    s = sorted(ms)
    return {"n": len(s), "p50": s[len(s) // 2], "p95": s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))],
            "mean": statistics.fmean(s)}


def _hit_rate(queries: list[dict], keys: list[list]) -> float | None:
    if not keys or not any(keys):
        return None
    return sum(str(q["target"]) in [str(k) for k in (ks or [])] for q, ks in zip(queries, keys)) / len(keys)


class _Data:
    """The shared vectors file and per-(n, users) query files in ``work``."""

    def __init__(self, work: Path, rows: int) -> None:
        self.work = work
        self.path = work / f"vectors_{rows}.npy"
        if not self.path.exists():
            tmp = work / f"vectors_{rows}.tmp.npy"
            synth.make_vectors(rows, path=tmp)
            tmp.rename(self.path)
        self.vectors = np.load(self.path, mmap_mode="r")
        self.rows = rows
        self._q: dict[tuple[int, int, int], tuple[dict, list[dict]]] = {}

    def spec(self, users: int = 1) -> dict:
        return {"kind": "synth", "vectors": str(self.path), "users": users}

    def queries(self, n: int, count: int, users: int = 1) -> tuple[dict, list[dict]]:
        key = (n, count, users)
        if key not in self._q:
            rows, vecs = synth.make_queries(self.vectors, n, count, users=users, seed=n + users)
            f = self.work / f"queries_{n}_{users}_{count}.jsonl"
            f.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            np.save(self.work / f"queries_{n}_{users}_{count}.npy", vecs)
            self._q[key] = ({"file": str(f), "vectors": str(self.work / f"queries_{n}_{users}_{count}.npy")}, rows)
        return self._q[key]


def _searches(w: Worker, system: str, qspec: dict, qrows: list[dict], k: int, embed_n: int,
              single: bool = True, anchormem_recipes: tuple[str, ...] = ANCHORMEM_RECIPES) -> dict[str, Any]:
    out: dict[str, Any] = {"search": {}, "search_embed": {}}
    recipes: tuple = tuple(anchormem_recipes) if system.startswith("anchormem") else (None,)
    if system == "chroma" and single:
        recipes = (None, "nofilter")
    for rec in recipes:
        r = w.call("search", queries=qspec, k=k, mode="vector", recipe=rec)
        out["search"][rec or "vector"] = {**latency_summary(r["ms"]), "hit": _hit_rate(qrows, r["keys"])}
    # embed mode: the real model embeds the synthetic query text, which is unrelated to the synthetic stored
    # vectors, so only its latency means anything (no hit rate)
    if embed_n:
        rec = "hybrid_rrf" if system.startswith("anchormem") else None
        r = w.call("search", queries=qspec, k=k, mode="embed", recipe=rec, limit_queries=embed_n)
        out["search_embed"][rec or "vector"] = latency_summary(r["ms"])
    return out


def run_system(system: str, plan: dict, data: _Data, work: Path, pg: PgServer | None, deadline: float,
               log: Any = print) -> dict[str, Any]:
    """One system through the single-scope scales, cold start, and the multi-user store."""
    res: dict[str, Any] = {"system": system, "single": [], "multi": [], "skipped": []}
    cap = plan["caps"].get(system, max(plan["single"]))
    k, add_n, batch = plan["k"], plan["add_messages"], plan["add_batch"]
    nq = plan.get("query_caps", {}).get(system, plan["queries"])
    add_n = plan.get("add_caps", {}).get(system, add_n)
    add_base = max(plan["single"])  # add() rows come after the largest bulk-load range: unique texts and keys
    sdir = work / "stores" / system
    shutil.rmtree(sdir, ignore_errors=True)
    url = pg.database("s") if system in NEEDS_PG and pg else None
    w = Worker(system, log_dir=work / "logs")
    loaded = 0
    last_step, last_bulk, last_rows = 0.0, 0.0, 0
    try:
        res["open"] = w.call("open", dir=str(sdir), pg_url=url, real_embedder=True)
        res["rss_at_open_mb"] = w.call("stats")["rss_mb"]
        for i, n in enumerate(plan["single"]):
            if n > cap:
                res["skipped"].append({"n": n, "reason": f"capped at {cap:,} in this plan (loading too slow)"})
                continue
            # skip a step that would overrun the budget, estimated from the previous step (cost ~ rows loaded)
            # (loading scales with the rows to load; searches and adds grow slower: 1.5x the last step's)
            est = (last_bulk * (n - loaded) / max(1, last_rows) + 1.5 * (last_step - last_bulk)) if last_rows else 0.0
            if time.monotonic() + est > deadline:
                res["skipped"].append({"n": n, "reason": f"time budget (estimated {est:.0f} s, not enough left)"})
                continue
            t_step = time.monotonic()
            log(f"  {system}: load to {n:,}")
            bulk = w.call("bulk_load", data=data.spec(), start=loaded, end=n)
            loaded = n
            qspec, qrows = data.queries(n, nq)
            row: dict[str, Any] = {"n": n, "bulk": {**bulk, "rows_per_s": bulk["rows"] / bulk["seconds"]}}
            row.update(_searches(w, system, qspec, qrows, k, plan["embed_queries"],
                                 anchormem_recipes=plan.get("recipes", ANCHORMEM_RECIPES)))
            row["stats"] = w.call("stats")
            row["stats"]["disk_bytes_per_memory"] = row["stats"]["disk_bytes"] / n
            a = w.call("add", data=data.spec(), start=add_base + i * add_n, end=add_base + (i + 1) * add_n,
                       batch=batch)
            row["add"] = {**a, "batch": batch, "messages_per_s": a["messages"] / a["seconds"]}
            res["single"].append(row)
            last_step, last_bulk = time.monotonic() - t_step, bulk["seconds"]
            last_rows = n - (res["single"][-2]["n"] if len(res["single"]) > 1 else 0)
            log(f"  {system} @ {n:,}: search p50 " + ", ".join(
                f"{r}={v['p50']:.2f}ms" for r, v in row["search"].items()) + f"; add {row['add']['messages_per_s']:.0f}/s")
    except WorkerError as exc:
        res["error"] = str(exc)
        res["error_traceback"] = exc.remote_traceback
        log(f"  {system}: ERROR {exc}")
    finally:
        w.close()

    if loaded and "error" not in res:  # cold start on the largest store
        t0 = time.perf_counter()
        try:
            with Worker(system, log_dir=work / "logs") as w2:
                op = w2.call("open", dir=str(sdir), pg_url=url, real_embedder=True)
                qspec, qrows = data.queries(loaded, nq)
                rec = "hybrid_rrf" if system.startswith("anchormem") else None
                first = w2.call("search", queries=qspec, k=k, mode="embed", recipe=rec, warmup=0, limit_queries=1)
                t_first = time.perf_counter() - t0
                second = w2.call("search", queries=qspec, k=k, mode="embed", recipe=rec, warmup=0, limit_queries=3)
            res["cold_start"] = {"n": loaded, "seconds_to_first_result": t_first, "import_seconds": op["import_seconds"],
                                 "open_seconds": op["open_seconds"], "first_search_ms": first["ms"][0],
                                 "next_search_ms": latency_summary(second["ms"][1:])["p50"]}
            # a second restart with no write in between: what derived state (ANN files) a clean restart reuses
            if not system.startswith("anchormem"):
                raise _Done
            t0 = time.perf_counter()
            with Worker(system, log_dir=work / "logs") as w2:
                w2.call("open", dir=str(sdir), pg_url=url, real_embedder=True)
                first = w2.call("search", queries=qspec, k=k, mode="embed", recipe=rec, warmup=0, limit_queries=1)
            res["cold_start"]["restart_without_writes"] = {"seconds_to_first_result": time.perf_counter() - t0,
                                                           "first_search_ms": first["ms"][0]}
        except _Done:
            pass
        except WorkerError as exc:
            res["cold_start"] = {"error": str(exc)}
    if url and pg:
        pg.drop(url)
    shutil.rmtree(sdir, ignore_errors=True)

    for n, users in plan["multi"]:
        mcap = plan["multi_caps"].get(system, n)
        if n > mcap:
            res["skipped"].append({"n": n, "users": users, "reason": "multi-user store not built for this system "
                                   "in this plan (loading too slow)"})
            continue
        if time.monotonic() > deadline:
            res["skipped"].append({"n": n, "users": users, "reason": "time budget exhausted"})
            continue
        log(f"  {system}: multi-user store {n:,} over {users:,} users")
        mdir = work / "stores" / f"{system}-multi"
        shutil.rmtree(mdir, ignore_errors=True)
        murl = pg.database("m") if system in NEEDS_PG and pg else None
        try:
            with Worker(system, log_dir=work / "logs") as w3:
                w3.call("open", dir=str(mdir), pg_url=murl, real_embedder=False)
                bulk = w3.call("bulk_load", data=data.spec(users), start=0, end=n)
                qspec, qrows = data.queries(n, nq, users)
                row = {"n": n, "users": users, "bulk": {**bulk, "rows_per_s": bulk["rows"] / bulk["seconds"]}}
                row.update(_searches(w3, system, qspec, qrows, k, 0, single=False,
                                     anchormem_recipes=plan.get("recipes", ANCHORMEM_RECIPES)))
                row["stats"] = w3.call("stats")
                row["stats"]["disk_bytes_per_memory"] = row["stats"]["disk_bytes"] / n
                a = w3.call("add", data=data.spec(users), start=add_base, end=add_base + min(add_n, 200), batch=batch)
                row["add"] = {**a, "batch": "one user per call (round-robin users: 1 message per call)",
                              "messages_per_s": a["messages"] / a["seconds"]}
                res["multi"].append(row)
        except WorkerError as exc:
            res["multi"].append({"n": n, "users": users, "error": str(exc)})
        if murl and pg:
            pg.drop(murl)
        shutil.rmtree(mdir, ignore_errors=True)
    return res


def run_scale(plan_name: str, *, systems: tuple[str, ...] = ALL_SYSTEMS, work: Path, pg: PgServer | None,
              budget_s: float = 420.0, log: Any = print, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the scale plan for ``systems``; returns a JSON-ready dict. ``budget_s``: after this many seconds the
    remaining scales are skipped (and reported as skipped)."""
    plan = {**PLANS[plan_name], **(overrides or {})}
    work.mkdir(parents=True, exist_ok=True)
    n_add = plan["add_messages"] * (len(plan["single"]) + 1)
    data = _Data(work, max(plan["single"] + [n for n, _ in plan["multi"]]) + n_add)
    t0 = time.monotonic()
    deadline = t0 + budget_s
    out = {"plan": plan_name, "settings": {k: v for k, v in plan.items()}, "data": {
        "rows": data.rows, "dim": synth.DIM, "vectors": "synthetic: unit vectors around 512 random centres (not a "
        "model's); texts: synthetic chat turns, 80% English / 20% Chinese", "queries": "a stored vector + noise; "
        "text = 3 words of that memory"}, "systems": {}}
    for s in systems:
        log(f"scale: {s}")
        t = time.monotonic()
        out["systems"][s] = run_system(s, plan, data, work, pg, deadline, log)
        out["systems"][s]["wall_seconds"] = time.monotonic() - t
    out["wall_seconds"] = time.monotonic() - t0
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true")
    g.add_argument("--full", action="store_true")
    ap.add_argument("--systems", default=",".join(ALL_SYSTEMS))
    ap.add_argument("--work", default=str(HERE / ".cache" / "scale"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--single", default=None, help="comma-separated scales, overriding the plan (development)")
    ap.add_argument("--budget", type=float, default=None)
    args = ap.parse_args()
    plan = "full" if args.full else "quick"
    systems = tuple(s for s in args.systems.split(",") if s)
    overrides = {"single": [int(x) for x in args.single.split(",")], "multi": []} if args.single else None
    pg = PgServer(Path(args.work) / "pgdata") if any(s in NEEDS_PG for s in systems) else None
    try:
        res = run_scale(plan, systems=systems, work=Path(args.work), pg=pg, overrides=overrides,
                        budget_s=args.budget or (420.0 if plan == "quick" else 6 * 3600.0))
    finally:
        if pg:
            pg.close()
    out = Path(args.out or HERE / "results" / f"scale_{plan}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
