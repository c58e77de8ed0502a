"""Search cost of a recipe change on a LoCoMo store (bench/locomo_store.py ingest): CPU ms per search, p50 and mean,
over every question and over the set questions (anchormem.retrieval.sets.asks_set) apart (hot cache off:
no search is served from a cache; query embeddings are warmed first), the two recipes
interleaved question by question (so load on the machine falls on both alike), each search repeated ``--reps``
times (the best of them kept: the cost without other processes' interference).

    python bench/own_cost.py --db /tmp/locomo.db --conversations 0-4 --base anchored --new anchored+own_weight=1 \\
        --out bench/results/multihop_cost.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.harness import read_only_configs
from anchormem.eval.locomo import load_locomo, parse_select
from anchormem.memory import Memory
from anchormem.retrieval.config import parse_recipe_spec
from anchormem.retrieval.sets import asks_set

DATA = str(Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo" / "locomo10.json")  # ../shared


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--conversations", default="0-4")
    ap.add_argument("--base", default="anchored")
    ap.add_argument("--new", default="anchored+own_weight=1")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    samples, _ = load_locomo(DATA)
    qs = [(samples[i]["sample_id"], qa["question"]) for i in parse_select(args.conversations) for qa in samples[i]["qa"]]
    times: dict[str, list[tuple[bool, float]]] = {args.base: [], args.new: []}
    with Memory(args.db, embedder=eval_embedder(None), cache=False) as mem:  # no result cache: every search runs
        cfgs = dict(zip((args.base, args.new),
                        read_only_configs([parse_recipe_spec(args.base), parse_recipe_spec(args.new)],
                                          mem.search_config)))
        for uid, q in qs:  # warm: query embeddings cached, store pages read
            mem.search(q, user_id=uid, limit=50, recipe=cfgs[args.base])
        for uid, q in qs:
            for name, cfg in cfgs.items():
                best = float("inf")
                for _ in range(args.reps):
                    c0 = time.process_time()
                    mem.search(q, user_id=uid, limit=50, recipe=cfg)
                    best = min(best, time.process_time() - c0)
                times[name].append((asks_set(q), 1000 * best))
    out: dict = {"conversations": args.conversations, "questions": len(qs), "reps": args.reps, "runs": {}}
    for name, ts in times.items():
        row = {}
        for part, sel in (("all", [t for _, t in ts]), ("set_questions", [t for s, t in ts if s]),
                          ("other", [t for s, t in ts if not s])):
            row[part] = {"n": len(sel), "p50_ms": statistics.median(sel), "mean_ms": statistics.fmean(sel)}
        out["runs"][name] = row
        print(name, json.dumps(row))
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
