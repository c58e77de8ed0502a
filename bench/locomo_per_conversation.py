"""Per-conversation LoCoMo recall from a ``bench/locomo_paired.py run`` file (raw evidence): recall@5, recall@10 and
multi-hop recall@10 of each conversation, one row per recipe (issue #23: every conversation R@5 >= 67, R@10 >= 75).

    python bench/locomo_per_conversation.py bench/results/ret17_locomo10_runs.json [--recipes anchored,bm25] \\
        [--out bench/results/ret17_locomo10_per_conversation.json]

Recall of a conversation = the mean over its questions of each question's recall@k (as in the run's tables).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def per_conversation(run: dict) -> dict[str, dict[str, float]]:
    """{sample_id: {"5": R@5, "10": R@10, "mh10": multi-hop R@10}} in percent, conversations in file order."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in run["questions"]:
        for k in ("5", "10"):
            sums[q["sample_id"]][k].append(q["raw"][k])
        if q["category"] == 1:  # LoCoMo category 1: multi-hop
            sums[q["sample_id"]]["mh10"].append(q["raw"]["10"])
    return {s: {k: round(100 * sum(v) / len(v), 1) for k, v in per.items()} for s, per in sums.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs")
    ap.add_argument("--recipes", default=None, help="comma-separated recipes to print (default: all)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    runs = json.loads(Path(args.runs).read_text(encoding="utf-8"))["runs"]
    out = {name: per_conversation(run) for name, run in runs.items()}
    show = args.recipes.split(",") if args.recipes else list(out)
    for name in show:
        rows = out[name]
        print(f"{name}: " + "; ".join(f"{i}:{s} R@5 {r['5']} R@10 {r['10']} multi-hop R@10 {r.get('mh10')}"
                                     for i, (s, r) in enumerate(rows.items())))
        print(f"  min R@5 {min(r['5'] for r in rows.values())}, below 67: {sum(r['5'] < 67 for r in rows.values())};"
              f" min R@10 {min(r['10'] for r in rows.values())}, below 75: {sum(r['10'] < 75 for r in rows.values())}")
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
