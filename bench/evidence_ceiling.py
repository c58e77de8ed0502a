"""How often can a grounded answer cite gold evidence at all? For LoCoMo's answerable questions (categories 1-4,
conversations 1-2 by default, as bench/abstention.py), the share whose ranked search hits hold at least one gold
evidence turn among the first k distinct turns (any-gold hit@k), for the default recipe and the anchored one. An
answer that cites 2-3 memories chosen from the first k hits cannot cite gold more often than hit@k, whatever the
evidence test: this bounds `answered citing gold` in bench/abstention.py. Writes
bench/results/evidence_ceiling.json. Run: python bench/evidence_ceiling.py [--conversations N]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from anchormem.eval.locomo import run_locomo

DATA = Path(__file__).resolve().parents[2] / "shared/datasets/locomo/locomo10.json"
KS = (1, 3, 5, 10, 25, 50)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conversations", type=int, default=2)
    args = ap.parse_args()
    r = run_locomo(str(DATA), conversations=args.conversations, recipe=["hybrid_rrf", "anchored"], details=True,
                   ks=KS)
    out = {"benchmark": "evidence_ceiling", "conversations": args.conversations, "embedder": r.get("embedder"),
           "categories": [1, 2, 3, 4], "hit_at_k_percent": {}}
    for name, run in r["runs"].items():
        qs = [q for q in run["questions"] if q.get("category") in (1, 2, 3, 4)]
        out["questions"] = len(qs)
        out["hit_at_k_percent"][name] = {str(k): round(100 * sum(bool(set(q["evidence"]) & set(q["ranked"][:k]))
                                                                 for q in qs) / len(qs), 1) for k in KS}
        print(name, len(qs), out["hit_at_k_percent"][name], flush=True)
    (Path(__file__).parent / "results/evidence_ceiling.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
