"""LoCoMo evidence recall with per-question records, and paired comparisons with a dev / held-out split.

    # one ingest (store settings from the environment, e.g. ANCHORMEM_INDEX_KEYS=off), several recipes
    python bench/locomo_paired.py run --recipes bm25,hybrid_rrf,anchored --out bench/results/locomo_keys_off.json
    # paired differences NEW - BASE per recipe, overall and per category, dev (conversations 0-5) and held-out
    # (6-9) apart, with a 95% bootstrap interval over questions
    python bench/locomo_paired.py compare bench/results/locomo_keys_off.json bench/results/locomo_keys_on.json \\
        --pairs hybrid_rrf:hybrid_rrf,anchored:anchored --out bench/results/locomo_keys_paired.json

``run`` writes what :func:`anchormem.eval.locomo.run_locomo` returns, each run's per-question records cut to
(sample, question, category, recall@k). ``compare`` pairs questions by (sample_id, qa_index).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from anchormem.config import Settings
from anchormem.eval.locomo import CATEGORY_NAMES, format_table, run_locomo
from anchormem.retrieval.config import parse_recipe_spec
from anchormem.eval.datasets import dataset_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import progress_printer  # noqa: E402

DEFAULT_DATA = str(dataset_path("locomo/locomo10.json"))
DEV_CONVERSATIONS = 6  # conversations 0-5 tune, 6-9 are held out




def cmd_run(args: argparse.Namespace) -> int:
    recipes = [parse_recipe_spec(s) for s in args.recipes.split(",") if s.strip()]
    t0, cpu0 = time.perf_counter(), time.process_time()
    progress = progress_printer(10)

    data = args.data
    if args.skip:  # the conversations after the first --skip (e.g. 6: the held-out 6-9) in a copy of the file
        import shutil
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix="locomo_skip_"))
        convs = json.loads(Path(data).read_text(encoding="utf-8"))[args.skip:]
        (tmp / "locomo10.json").write_text(json.dumps(convs), encoding="utf-8")
        audit = Path(data).with_name("audit_errors.json")
        if audit.exists():
            shutil.copy(audit, tmp / audit.name)
        data = str(tmp / "locomo10.json")
    reuse = bool(args.db) and Path(args.db).exists()  # a store kept from an earlier run: searched, not ingested
    result = run_locomo(data, recipe=recipes, conversations=args.conversations, progress=progress,
                        details=True, db_path=args.db or ":memory:", ingest=not reuse)
    result["reused_store"] = reuse
    result["skipped_conversations"] = args.skip
    result["wall_seconds"] = time.perf_counter() - t0
    result["cpu_seconds"] = time.process_time() - cpu0
    result["index_keys"] = Settings().index_keys  # the write-time retrieval keys of this ingest
    for run in result["runs"].values():
        run["questions"] = [{"sample_id": q["sample_id"], "qa_index": q["qa_index"], "category": q["category"],
                             "raw": q["raw"]} for q in run["questions"]]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    # compact: a record per question and recipe (about 1 MB for all of LoCoMo)
    out.write_text(json.dumps(result, separators=(",", ":"), ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(format_table(result))
    print(f"\nwrote {out}")
    return 0


def bootstrap(diffs: list[float], *, n: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of paired differences and its 95% percentile bootstrap interval (resampling questions)."""
    if not diffs:
        return 0.0, 0.0, 0.0
    rng = random.Random(seed)
    m = len(diffs)
    means = sorted(sum(diffs[rng.randrange(m)] for _ in range(m)) / m for _ in range(n))
    return sum(diffs) / m, means[int(0.025 * n)], means[int(0.975 * n) - 1]


def _split(sample_ids: list[str], dev: int = DEV_CONVERSATIONS) -> dict[str, str]:
    order = list(dict.fromkeys(sample_ids))
    return {s: ("dev" if i < dev else "heldout") for i, s in enumerate(order)}


def compare(base: dict, new: dict, base_run: str, new_run: str, ks: tuple[int, ...],
            dev: int = DEV_CONVERSATIONS) -> dict:
    """Paired NEW - BASE recall@k (percentage points) per split and category, with 95% bootstrap intervals."""
    bq = {(q["sample_id"], q["qa_index"]): q for q in base["runs"][base_run]["questions"]}
    nq = {(q["sample_id"], q["qa_index"]): q for q in new["runs"][new_run]["questions"]}
    keys = [k for k in bq if k in nq]
    split = _split([k[0] for k in keys], dev)
    out: dict = {}
    for part in ("dev", "heldout", "all"):
        for cat in ["overall"] + [CATEGORY_NAMES[c] for c in (4, 1, 2, 3, 5)]:
            sel = [k for k in keys if (part == "all" or split[k[0]] == part)
                   and (cat == "overall" or CATEGORY_NAMES[bq[k]["category"]] == cat)]
            if not sel:
                continue
            row: dict = {"n": len(sel)}
            for k in ks:
                d = [100 * (nq[q]["raw"][str(k)] - bq[q]["raw"][str(k)]) for q in sel]
                mean, lo, hi = bootstrap(d)
                row[f"R@{k}"] = {"base": round(100 * sum(bq[q]["raw"][str(k)] for q in sel) / len(sel), 2),
                                 "new": round(100 * sum(nq[q]["raw"][str(k)] for q in sel) / len(sel), 2),
                                 "diff": round(mean, 2), "ci95": [round(lo, 2), round(hi, 2)]}
            out.setdefault(part, {})[cat] = row
    return out


def cmd_compare(args: argparse.Namespace) -> int:
    base = json.loads(Path(args.base).read_text(encoding="utf-8"))
    new = json.loads(Path(args.new).read_text(encoding="utf-8"))
    ks = tuple(int(k) for k in args.ks.split(","))
    result = {"base": args.base, "new": args.new, "dev_conversations": args.dev, "pairs": {}}
    for pair in args.pairs.split(","):
        b, n = pair.split(":") if ":" in pair else (pair, pair)
        table = compare(base, new, b, n, ks, args.dev)
        result["pairs"][f"{b} -> {n}"] = table
        print(f"\n## {b} ({args.base}) -> {n} ({args.new})\n")
        print("| split | category | n | " + " | ".join(f"R@{k} base→new (diff [95% CI])" for k in ks) + " |")
        print("|---|---|---:|" + "---|" * len(ks))
        for part, cats in table.items():
            for cat, row in cats.items():
                cells = [f"{row[f'R@{k}']['base']:.1f}→{row[f'R@{k}']['new']:.1f} ({row[f'R@{k}']['diff']:+.1f} "
                         f"[{row[f'R@{k}']['ci95'][0]:+.1f}, {row[f'R@{k}']['ci95'][1]:+.1f}])" for k in ks]
                print(f"| {part} | {cat} | {row['n']} | " + " | ".join(cells) + " |")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {args.out}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--data", default=DEFAULT_DATA)
    r.add_argument("--conversations", type=int, default=None)
    r.add_argument("--skip", type=int, default=0, help="leave out the first N conversations (6: only the held-out "
                   "6-9; compare then reads them all as one split)")
    r.add_argument("--recipes", default="bm25,hybrid_rrf,anchored")
    r.add_argument("--out", required=True)
    r.add_argument("--db", default=None, help="store file: ingested into when missing, searched without ingesting "
                   "when present (the same --conversations/--skip and store settings, several runs of recipes)")
    c = sub.add_parser("compare")
    c.add_argument("base")
    c.add_argument("new")
    c.add_argument("--pairs", default="hybrid_rrf,anchored")
    c.add_argument("--ks", default="1,5,10,25")
    c.add_argument("--out", default=None)
    c.add_argument("--dev", type=int, default=DEV_CONVERSATIONS, help="the first N conversations are the tuning "
                   "split (dev), the rest held out")
    args = ap.parse_args()
    return cmd_run(args) if args.cmd == "run" else cmd_compare(args)


if __name__ == "__main__":
    raise SystemExit(main())
