"""Paired session recall@k between two recipes of one `bench/memora.py` result file, overall and per question type,
95% bootstrap interval over questions (2,000 resamples, seed 0; the same resampling as bench/locomo_paired.py).

    python bench/memora_paired.py bench/results/ret17_memora_all10.json --pairs hybrid_rrf:anchored,bm25:anchored \\
        --out bench/results/ret17_memora_paired.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo_paired import bootstrap  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("result")
    ap.add_argument("--pairs", default="hybrid_rrf:anchored,bm25:anchored")
    ap.add_argument("--ks", default="1,5,10")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    runs = json.loads(Path(args.result).read_text(encoding="utf-8"))["runs"]
    ks = args.ks.split(",")
    out: dict = {"result": args.result, "pairs": {}}
    for pair in args.pairs.split(","):
        base, new = pair.split(":")
        b = {(q["persona"], q["question_id"]): q for q in runs[base]["questions"]}
        rows: dict = {}
        for q in runs[new]["questions"]:
            p = b[(q["persona"], q["question_id"])]
            for group in ("all", q["task"]):
                for k in ks:
                    rows.setdefault(group, {}).setdefault(k, []).append(100 * (q["session"][k] - p["session"][k]))
        table = {}
        for group, per_k in rows.items():
            table[group] = {"n": len(per_k[ks[0]])}
            for k, diffs in per_k.items():
                mean, lo, hi = bootstrap(diffs)
                table[group][f"S@{k}"] = {"diff": round(mean, 2), "ci95": [round(lo, 2), round(hi, 2)]}
        out["pairs"][f"{base} -> {new}"] = table
        for group, t in table.items():
            print(f"{base} -> {new} {group} (n={t['n']}): " + ", ".join(
                f"S@{k} {t[f'S@{k}']['diff']:+.1f} [{t[f'S@{k}']['ci95'][0]:+.1f}, {t[f'S@{k}']['ci95'][1]:+.1f}]"
                for k in ks))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
