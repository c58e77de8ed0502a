"""Side by side, interleaved: anchormem and its peers in rounds, through their public APIs, with CPU time per
operation beside wall time; scale steps sized from a short calibration so a run fits its time budget.

    python bench/rounds.py --quick [--systems anchormem-sqlite,chroma,pgvector,mem0] [--budget 500]

(normally called by ``bench/run.py``). Every system runs in its own worker process (``bench/peers``), all open at
once, on the same synthetic texts and vectors. At each scale step:

- ``load``: each system grows to n rows in ``rounds`` chunks, systems taking turns chunk by chunk (order rotated):
  anchormem through ``Memory.add_many(vectors=...)`` (its public bulk path: the full ``add`` pipeline), Chroma
  ``collection.add``, pgvector ``COPY`` with the HNSW index dropped and rebuilt (its advice for loads; once per
  chunk here), mem0 its vector store (mem0 has no bulk call; its ``add`` is measured below);
- ``search``: ``rounds`` rounds; in each, every system (order rotated by one each round) answers the round's
  ``per_round`` queries, query vector precomputed (embedding excluded): anchormem's ``Memory.search`` with the
  default recipe, and ``hybrid_rrf`` and ``dense`` as extra rows; the peers' per-user search. Wall time per
  query (p50/p95) and CPU time per query: the worker process's CPU (``time.process_time``, all its threads) plus,
  for PostgreSQL systems, the CPU of the private PostgreSQL server's processes during the call;
- ``add``: the public add path, ``add_batch`` messages per call, vectors precomputed (wall and CPU per message);
- ``stats``: RSS and disk bytes per memory.

Calibration: the first step (1,000 rows) measures each system's load cost per row and search cost per query; each
next step is taken only if its estimate (load: cost per row × rows to add × (n'/n)^0.5; searches: × (n'/n)^0.5)
fits the time left, and a system whose share would not fit is left out of the larger steps (reported, not guessed).
A peer that is not installed (``bench/.peers-venv`` missing and not creatable) is skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))
sys.path.insert(0, str(HERE))

import synth  # noqa: E402
from client import NEEDS_PG, PgServer, Worker, WorkerError  # noqa: E402

__all__ = ["PLANS", "run_rounds", "markdown_rounds"]

RECIPES = {"anchormem-sqlite": ("default", "hybrid_rrf", "dense"), "anchormem-pg": ("default", "hybrid_rrf", "dense")}
PLANS: dict[str, dict[str, Any]] = {
    "quick": {"ladder": [1_000, 3_000, 10_000, 30_000, 100_000], "rounds": 5, "per_round": 4, "add_messages": 100,
              "add_batch": 50, "k": 10},
    "full": {"ladder": [1_000, 10_000, 100_000, 1_000_000], "rounds": 10, "per_round": 10, "add_messages": 500,
             "add_batch": 100, "k": 10},
}


def _summary(ms: list[float]) -> dict[str, Any]:
    if not ms:
        return {"n": 0, "p50": None, "p95": None}
    s = sorted(ms)
    return {"n": len(s), "p50": s[len(s) // 2], "p95": s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]}


class PgCpu:
    """CPU seconds used so far by the private PostgreSQL server (the postmaster and its children)."""

    def __init__(self, data_dir: Path | None) -> None:
        self.pid = None
        try:
            self.pid = int((data_dir / "postmaster.pid").read_text().split()[0]) if data_dir else None
        except (OSError, ValueError, IndexError):
            self.pid = None
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float:
        if self.pid is None:
            return 0.0
        total = 0
        for p in Path("/proc").iterdir():
            if not p.name.isdigit():
                continue
            try:
                f = (p / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(p.name) == self.pid or int(f[1]) == self.pid:  # f[1]: ppid; f[11], f[12]: utime, stime
                total += int(f[11]) + int(f[12])
        return total / self.tick


class _Queries:
    """Query files per (n, round): a stored vector + noise, its text 3 words of that memory (synth)."""

    def __init__(self, work: Path, vectors: np.ndarray) -> None:
        self.work, self.vectors = work, vectors

    def make(self, n: int, count: int, seed: int) -> tuple[dict, list[dict]]:
        rows, vecs = synth.make_queries(self.vectors, n, count, users=1, seed=seed)
        f = self.work / f"q_{n}_{seed}.jsonl"
        f.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        np.save(self.work / f"q_{n}_{seed}.npy", vecs)
        return {"file": str(f), "vectors": str(self.work / f"q_{n}_{seed}.npy")}, rows


def _hits(rows: list[dict], keys: list[list]) -> tuple[int, int]:
    if not keys or not any(keys):
        return 0, 0
    return sum(str(q["target"]) in [str(k) for k in (ks or [])] for q, ks in zip(rows, keys)), len(keys)


def run_rounds(plan_name: str, *, systems: tuple[str, ...], work: Path, pg: PgServer | None, pg_dir: Path | None,
               budget_s: float, log: Any = print, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the plan; returns a JSON-ready dict (see the module docstring)."""
    plan = {**PLANS[plan_name], **(overrides or {})}
    t0 = time.monotonic()
    deadline = t0 + budget_s
    work.mkdir(parents=True, exist_ok=True)
    ladder = plan["ladder"]
    rounds, per_round, k = plan["rounds"], plan["per_round"], plan["k"]
    rows_needed = ladder[-1] + plan["add_messages"] * (len(ladder) + 1)
    vec_path = work / f"vectors_{rows_needed}.npy"
    if not vec_path.exists():
        tmp = work / "vectors.tmp.npy"
        synth.make_vectors(rows_needed, path=tmp)
        tmp.rename(vec_path)
    vectors = np.load(vec_path, mmap_mode="r")
    spec = {"kind": "synth", "vectors": str(vec_path), "users": 1}
    queries = _Queries(work, vectors)
    pg_cpu = PgCpu(pg_dir)
    out: dict[str, Any] = {"plan": plan_name, "settings": plan, "systems": list(systems), "skipped": [],
                           "steps": [], "data": {"dim": synth.DIM, "vectors": "synthetic unit vectors around 512 "
                           "centres; texts: synthetic chat turns, 80% English / 20% Chinese; one user's scope"}}
    workers: dict[str, Worker] = {}
    for s in systems:
        try:
            w = Worker(s, log_dir=work / "logs")
            sdir = work / "stores" / s
            shutil.rmtree(sdir, ignore_errors=True)
            url = pg.database("r") if s in NEEDS_PG and pg else None
            if s in NEEDS_PG and not pg:
                raise WorkerError("no PostgreSQL server (pgserver) available")
            w.call("open", dir=str(sdir), pg_url=url, real_embedder=False)
            workers[s] = w
        except (WorkerError, RuntimeError, OSError) as exc:  # a peer venv that cannot be built, a worker that dies
            out["skipped"].append({"system": s, "reason": f"not run: {exc}"[:400]})
            log(f"rounds: {s} skipped: {exc}")
    active = list(workers)
    log(f"rounds: {len(active)} workers open ({time.monotonic() - t0:.0f} s)")
    loaded = 0
    cost: dict[str, dict[str, float]] = {}  # per system: load s/row, search s/query (all its recipes)
    add_base = ladder[-1]
    try:
        for step_i, n in enumerate(ladder):
            if not active:
                break
            if step_i > 0:  # the estimate from the last step's measured costs
                # a row costs more as the store grows (measured: anchormem's add_many 1,388 → 539 rows per CPU-s
                # from 10k to 30k), hence (n'/n)^0.5 on the load too
                est = {s: cost[s]["load_per_row"] * (n - loaded) * (n / loaded) ** 0.5 +
                       cost[s]["search_per_query"] * rounds * per_round * (n / loaded) ** 0.5 + cost[s]["add"]
                       for s in active}
                left = deadline - time.monotonic()
                keep = [s for s in active if est[s] <= 0.9 * left / len(active) or sum(est.values()) <= 0.8 * left]
                for s in active:
                    if s not in keep:
                        out["skipped"].append({"system": s, "n": n, "reason": f"time budget: estimated "
                                               f"{est[s]:.0f} s, {left:.0f} s left for {len(active)} systems"})
                if sum(est[s] for s in keep) > 0.9 * left:
                    out["skipped"].append({"n": n, "reason": f"time budget: estimated {sum(est.values()):.0f} s, "
                                           f"{left:.0f} s left"})
                    break
                active = keep
                if not active:
                    break
            log(f"rounds: step {n:,} with {', '.join(active)}")
            step: dict[str, Any] = {"n": n, "systems": {s: {"load": {"wall_s": 0.0, "cpu_s": 0.0, "rows": 0},
                                                            "search": {}} for s in active}}
            chunk = max(1, -(-(n - loaded) // rounds))
            for r, start in enumerate(range(loaded, n, chunk)):  # load, interleaved chunk by chunk
                for j in range(len(active)):
                    s = active[(r + j) % len(active)]
                    c0 = pg_cpu()
                    t = time.perf_counter()
                    res = workers[s].call("bulk_load", data=spec, start=start, end=min(n, start + chunk),
                                          **({"api": True} if s.startswith("anchormem") else {}))
                    ld = step["systems"][s]["load"]
                    ld["wall_s"] += time.perf_counter() - t
                    ld["cpu_s"] += res.get("cpu_s", 0.0) + (pg_cpu() - c0 if s in NEEDS_PG else 0.0)
                    ld["rows"] += res["rows"]
            log(f"rounds: loaded {n:,} ({time.monotonic() - t0:.0f} s)")
            wall_ms: dict[tuple[str, str], list[float]] = {}
            cpu: dict[tuple[str, str], list[float]] = {}
            hits: dict[tuple[str, str], list[int]] = {}
            warm, _ = queries.make(n, 3, seed=10_000 + n)
            for s in active:  # warm-up, untimed: caches, lazy imports, the index build after a bulk load
                for rec in RECIPES.get(s, ("vector",)):
                    workers[s].call("search", queries=warm, k=k, mode="vector", recipe=None if rec in ("default",
                                    "vector") else rec, warmup=0)
            log(f"rounds: warmed up ({time.monotonic() - t0:.0f} s)")
            for r in range(rounds):
                qspec, qrows = queries.make(n, per_round, seed=n * 100 + r)
                for j in range(len(active)):
                    s = active[(r + j) % len(active)]
                    for rec in RECIPES.get(s, ("vector",)):
                        c0 = pg_cpu()
                        res = workers[s].call("search", queries=qspec, k=k, mode="vector",
                                              recipe=None if rec in ("default", "vector") else rec, warmup=0)
                        pgc = pg_cpu() - c0 if s in NEEDS_PG else 0.0
                        wall_ms.setdefault((s, rec), []).extend(res["ms"])
                        per_query = (res.get("cpu_s", 0.0) + pgc) * 1000 / max(1, len(res["ms"]))
                        cpu.setdefault((s, rec), []).append(per_query)
                        h = hits.setdefault((s, rec), [0, 0])
                        a, b = _hits(qrows, res.get("keys", []))
                        h[0] += a
                        h[1] += b
            for (s, rec), ms in wall_ms.items():
                h = hits[(s, rec)]
                step["systems"][s]["search"][rec] = {**_summary(ms), "cpu_ms_per_query": float(np.mean(cpu[(s, rec)])),
                                                     "hit_at_k": h[0] / h[1] if h[1] else None}
            log(f"rounds: searched ({time.monotonic() - t0:.0f} s)")
            for j in range(len(active)):  # the public add path
                s = active[(step_i + j) % len(active)]
                c0 = pg_cpu()
                a = workers[s].call("add", data=spec, start=add_base + step_i * plan["add_messages"],
                                    end=add_base + (step_i + 1) * plan["add_messages"], batch=plan["add_batch"])
                c = a.get("cpu_s", 0.0) + (pg_cpu() - c0 if s in NEEDS_PG else 0.0)
                step["systems"][s]["add"] = {"messages": a["messages"], "batch": plan["add_batch"],
                                             "wall_ms_per_message": 1000 * a["seconds"] / a["messages"],
                                             "cpu_ms_per_message": 1000 * c / a["messages"]}
            for s in active:
                st = workers[s].call("stats")
                step["systems"][s]["stats"] = {"rss_mb": st.get("rss_mb"), "disk_bytes": st.get("disk_bytes"),
                                               "disk_bytes_per_memory": (st.get("disk_bytes") or 0) / n}
                ld = step["systems"][s]["load"]
                ld["rows_per_wall_s"] = ld["rows"] / ld["wall_s"] if ld["wall_s"] else None
                ld["rows_per_cpu_s"] = ld["rows"] / ld["cpu_s"] if ld["cpu_s"] else None
                nq = sum(v["n"] for v in step["systems"][s]["search"].values())
                sw = sum(v["n"] * (v["p50"] or 0) for v in step["systems"][s]["search"].values()) / 1000
                cost[s] = {"load_per_row": ld["wall_s"] / max(1, n - loaded),
                           "search_per_query": sw / max(1, nq) * len(step["systems"][s]["search"]),
                           "add": step["systems"][s]["add"]["wall_ms_per_message"] * plan["add_messages"] / 1000}
            loaded = n
            step["wall_s"] = time.monotonic() - t0
            out["steps"].append(step)
            log(f"rounds @ {n:,}: " + "; ".join(
                f"{s}/{rec} p50 {v['p50']:.2f} ms cpu {v['cpu_ms_per_query']:.2f} ms"
                for s in active for rec, v in step["systems"][s]["search"].items()))
    except WorkerError as exc:
        out["error"] = str(exc)
        log(f"rounds: ERROR {exc}")
    finally:
        for w in workers.values():
            w.close()
    out["wall_seconds"] = time.monotonic() - t0
    return out


def _f(v: Any, fmt: str = "{:.2f}") -> str:
    return "–" if v is None else fmt.format(v)


def markdown_rounds(rr: dict[str, Any]) -> list[str]:
    """The tables of one :func:`run_rounds` result."""
    lines = ["### Side by side, interleaved (`bench/rounds.py`)", "",
             f"{rr['settings']['rounds']} rounds of {rr['settings']['per_round']} queries per step, systems in "
             "rotated order; query vectors precomputed (embedding excluded); top-"
             f"{rr['settings']['k']} in one user's scope. CPU = the system's process (all threads) plus its "
             "PostgreSQL server's processes during the call. anchormem through `Memory.search` / `add_many` / "
             "`add` only.", "",
             "| n | system | search | wall p50 ms | wall p95 ms | CPU ms/query | hit@k | load rows/s (wall / CPU) "
             "| add ms/msg (wall / CPU) | RSS MB | disk B/memory |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for st in rr["steps"]:
        for s, v in st["systems"].items():
            for rec, q in v["search"].items():
                ld, ad, ss = v["load"], v.get("add", {}), v.get("stats", {})
                lines.append(
                    f"| {st['n']:,} | {s} | {rec} | {_f(q['p50'])} | {_f(q['p95'])} | {_f(q['cpu_ms_per_query'])} | "
                    f"{_f(q['hit_at_k'], '{:.2f}')} | {_f(ld.get('rows_per_wall_s'), '{:.0f}')} / "
                    f"{_f(ld.get('rows_per_cpu_s'), '{:.0f}')} | {_f(ad.get('wall_ms_per_message'))} / "
                    f"{_f(ad.get('cpu_ms_per_message'))} | {_f(ss.get('rss_mb'), '{:.0f}')} | "
                    f"{_f(ss.get('disk_bytes_per_memory'), '{:.0f}')} |")
    ratios = []
    for st in rr["steps"]:
        a = st["systems"].get("anchormem-sqlite", {}).get("search", {}).get("default")
        for peer in ("chroma", "pgvector", "mem0"):
            p = next(iter(st["systems"].get(peer, {}).get("search", {}).values()), None)
            if a and p and a["cpu_ms_per_query"] and a["p50"]:
                ratios.append(f"| {st['n']:,} | {peer} | {p['cpu_ms_per_query'] / a['cpu_ms_per_query']:.2f}× | "
                              f"{p['p50'] / a['p50']:.2f}× |")
    if ratios:
        lines += ["", "Default `search` against each peer's per-user search (>1 = anchormem faster):", "",
                  "| n | peer | CPU per query | wall p50 |", "|---:|---|---:|---:|"] + ratios
    if rr.get("skipped"):
        lines += ["", "Not measured in this run:", ""] + [
            f"- {x.get('system', 'all systems')}{' at ' + format(x['n'], ',') if 'n' in x else ''}: {x['reason']}"
            for x in rr["skipped"]]
    if rr.get("error"):
        lines += ["", f"Stopped by an error: {rr['error']}"]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true")
    g.add_argument("--full", action="store_true")
    ap.add_argument("--systems", default="anchormem-sqlite,chroma,pgvector,mem0")
    ap.add_argument("--work", default=str(HERE / ".cache" / "rounds"))
    ap.add_argument("--budget", type=float, default=None)
    ap.add_argument("--ladder", default=None, help="comma-separated scale steps (development)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    plan = "full" if args.full else "quick"
    systems = tuple(s for s in args.systems.split(",") if s)
    pg_dir = Path(args.work) / "pgdata"
    pg = PgServer(pg_dir) if any(s in NEEDS_PG for s in systems) else None
    over = {"ladder": [int(x) for x in args.ladder.split(",")]} if args.ladder else None
    try:
        res = run_rounds(plan, systems=systems, work=Path(args.work), pg=pg, pg_dir=pg_dir if pg else None,
                         budget_s=args.budget or (480.0 if plan == "quick" else 6 * 3600.0), overrides=over)
    finally:
        if pg:
            pg.close()
    out = Path(args.out or HERE / "results" / f"rounds_{plan}.json")
    out.write_text(json.dumps(res, indent=2, default=str) + "\n", encoding="utf-8")
    print("\n".join(markdown_rounds(res)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
