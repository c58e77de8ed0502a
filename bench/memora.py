"""Memora (weekly split) retrieval: session / turn recall@k per question type and retired values returned as
current, for bm25, dense, hybrid_rrf and anchored (the default), on the tune personas (0-6) and held out (7-9).

    python bench/memora.py [--data .../memora/weekly] [--recipes bm25,dense,hybrid_rrf,anchored] [--embedder NAME]
                           [--db /tmp/memora.db] [--out bench/results/memora.json]

Each recipe is compared with the default (``anchored``) per question: paired difference of session recall@5/@10
with a 95% bootstrap interval (:mod:`anchormem.eval.paired`), per split. ``--db`` keeps the ingested store so a
rerun with other recipes skips ingestion. Set ANCHORMEM_EVAL_EMBED_CACHE to embed each text once per machine.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from anchormem.eval.memora import default_root, format_table, run_memora  # noqa: E402
from anchormem.eval.paired import against_base, paired_bootstrap  # noqa: E402
from anchormem.retrieval.config import parse_recipe_spec  # noqa: E402  "name+field=value" or "name:field=value"
from timing import progress_printer  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "memora.json"


def paired(result: dict, base: str, metric: str = "session", ks=(5, 10)) -> dict:
    """Per recipe vs ``base``: paired difference of ``metric`` recall@k, per split (all / tune / heldout)."""
    out: dict = {}
    for name, qa, qb in against_base(result, base):
        for part in ("all", "tune", "heldout"):
            idx = [i for i, q in enumerate(qa) if part == "all" or q["split"] == part]
            if not idx:  # a persona subset may hold no question of a split
                continue
            for k in ks:
                a = [qa[i][metric][str(k)] or 0.0 for i in idx]
                b = [qb[i][metric][str(k)] or 0.0 for i in idx]
                out.setdefault(name, {}).setdefault(part, {})[f"{metric}_recall@{k}"] = paired_bootstrap(a, b)
    return out


def by_group(result: dict, base: str, groups: str, ks=(5, 10)) -> dict:
    """Per recipe and persona group ("0-2,3-6,7-9": persona indexes, sorted by name): session and turn recall@k,
    per task too, and the paired difference vs ``base`` (session recall@k, 95% bootstrap)."""
    root_names = result.get("all_personas") or sorted({q["persona"] for q in result["runs"][base]["questions"]})
    out: dict = {}
    for spec in [g.strip() for g in groups.split(",") if g.strip()]:
        lo, _, hi = spec.partition("-")
        members = {root_names[i] for i in range(int(lo), int(hi or lo) + 1) if i < len(root_names)}
        qb = result["runs"][base]["questions"]
        idx = [i for i, q in enumerate(qb) if q["persona"] in members]
        if not idx:  # no persona of the group was run (a --personas subset): nothing to report
            continue
        for name, run in result["runs"].items():
            qa = run["questions"]
            row: dict = {"n": len(idx), "personas": sorted(members)}
            for task in (None, "remembering", "reasoning", "recommending"):
                sel = [i for i in idx if task is None or qa[i]["task"] == task]
                for metric in ("session", "turn"):
                    for k in ks:
                        vals = [qa[i][metric][str(k)] or 0.0 for i in sel]
                        row[f"{task or 'all'}/{metric}_recall@{k}"] = sum(vals) / len(vals) if vals else None
            if name != base:
                for k in ks:
                    row[f"paired_session_recall@{k}"] = paired_bootstrap(
                        [qa[i]["session"][str(k)] or 0.0 for i in idx], [qb[i]["session"][str(k)] or 0.0 for i in idx])
            out.setdefault(name, {})[spec] = row
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None)
    ap.add_argument("--recipes", default="bm25,dense,hybrid_rrf,anchored")
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--db", default=":memory:")
    ap.add_argument("--personas", default=None, help="comma-separated persona names or indexes (sorted order; "
                    "default all)")
    ap.add_argument("--no-ask", action="store_true", help="skip Memory.ask (ask_retired)")
    ap.add_argument("--groups", default="0-2,3-6,7-9", help="persona groups (indexes, sorted by name) reported "
                    "apart, paired against the default: tune on one, read the others as held out")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    root = args.data or default_root()
    if root is None:
        ap.error("no Memora data: --data or ANCHORMEM_MEMORA")
    recipes = [parse_recipe_spec(s) for s in args.recipes.split(",") if s.strip()]
    personas = None
    if args.personas:
        names = sorted(p.name for p in Path(root).iterdir() if (p / "conversations").is_dir())
        personas = [names[int(x)] if x.strip().isdigit() else x.strip() for x in args.personas.split(",")]
    progress = progress_printer(10)

    t0, c0 = time.perf_counter(), time.process_time()
    result = run_memora(root, recipe=recipes, embedder=args.embedder, db_path=args.db, ask=not args.no_ask,
                        personas=personas,
                        progress=progress, details=True)
    result["wall_seconds"], result["cpu_seconds"] = time.perf_counter() - t0, time.process_time() - c0
    names = list(result["runs"])
    base = "anchored" if "anchored" in names else names[-1]
    result["paired_vs_" + base] = {m: paired(result, base, m) for m in ("session", "turn")}
    result["all_personas"] = sorted(p.name for p in Path(root).iterdir() if (p / "conversations").is_dir())
    result["groups_vs_" + base] = by_group(result, base, args.groups)
    result["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    result["reference"] = {"BM25 over raw text (dataset README)": {"session_recall@5": 0.425,
                                                                   "session_recall@10": 0.535,
                                                                   "session_recall@20": 0.657}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(format_table(result))
    for name, parts in result["paired_vs_" + base]["session"].items():
        for part, ms in parts.items():
            print(name, "-", base, part, {m: f"{100*v['diff']:+.1f} [{100*v['low']:+.1f}, {100*v['high']:+.1f}]"
                                          for m, v in ms.items()})
    for name, gs in result["groups_vs_" + base].items():
        for g, row in gs.items():
            pr = {m: f"{100*row[m]['diff']:+.1f} [{100*row[m]['low']:+.1f}, {100*row[m]['high']:+.1f}]"
                  for m in row if m.startswith("paired")}
            print(name, f"personas {g} (n={row['n']})", f"S@5 {100*row['all/session_recall@5']:.1f}",
                  f"S@10 {100*row['all/session_recall@10']:.1f}", pr)
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
