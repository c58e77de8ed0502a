"""Grounded-ask benchmark on LoCoMo: abstention on adversarial questions vs answers citing gold evidence.

    python bench/abstention.py [--conversations N | --only 3,4] [--data PATH] [--out bench/results/abstention.json]

``--only 3,4`` runs a held-out split (1-based conversation numbers) for checking rules tuned on ``--conversations 2``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from anchormem.eval.grounding import format_table, run_abstention
from anchormem.eval.datasets import dataset_path
from anchormem.retrieval.config import parse_recipe_spec

DATA = str(dataset_path("locomo/locomo10.json"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--conversations", type=int, default=None)
    ap.add_argument("--only", default=None, help="comma-separated 1-based conversation numbers, e.g. 3,4")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "abstention.json"))
    ap.add_argument("--details", action="store_true", help="store per-question evidence features")
    ap.add_argument("--recipe", default=None, help="search recipe ask retrieves with, overrides allowed: anchored+unnamed_weight=0 (default: anchored)")
    args = ap.parse_args()
    t0 = time.time()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        if time.time() - last[0] > 15 or done == total:
            last[0] = time.time()
            print(f"  {done}/{total} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)

    only = [int(x) for x in args.only.split(",") if x.strip()] if args.only else None
    result = run_abstention(args.data, conversations=args.conversations, progress=progress, details=args.details,
                            only=only, recipe=parse_recipe_spec(args.recipe) if args.recipe else None)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    print(format_table(result))
    print(f"\nwritten {out} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
