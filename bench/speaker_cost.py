"""CPU and wall time of the speaker rule (``SearchConfig.speaker_weight``, :mod:`anchormem.retrieval.speakers`) on
LoCoMo questions: the same store, each question searched with the base recipe and with the rule, interleaved
(A then B, B then A on alternate questions), after a warm-up pass.

    python bench/locomo_paired.py run --conversations 6 --db /tmp/mh_dev.db --recipes anchored --out /tmp/x.json
    python bench/speaker_cost.py --db /tmp/mh_dev.db --questions 300 --out bench/results/speaker_cost.json

``--db``: a store ``bench/locomo_paired.py run --db`` ingested (the first ``--conversations`` of LoCoMo).
"""

from __future__ import annotations

import argparse
import statistics
import time

from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.harness import read_only_configs
from anchormem.eval.locomo import load_locomo
from anchormem.memory import Memory
from anchormem.retrieval.config import parse_recipe_spec
from anchormem.eval.datasets import dataset_path
from timing import emit  # bench/timing.py (bench/ is on sys.path when a script runs)


DEFAULT_DATA = str(dataset_path("locomo/locomo10.json"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--conversations", type=int, default=6)
    ap.add_argument("--questions", type=int, default=300)
    ap.add_argument("--base", default="anchored")
    ap.add_argument("--new", default="anchored+speaker_weight=0.3+speaker_mentions=true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    samples, _ = load_locomo(args.data, conversations=args.conversations)
    qs = [(qa["question"], s["sample_id"]) for s in samples for qa in s["qa"]]
    step = max(1, len(qs) // args.questions)
    qs = qs[::step][:args.questions]
    mem = Memory(args.db, embedder=eval_embedder(None))
    cfgs = read_only_configs([parse_recipe_spec(args.base), parse_recipe_spec(args.new)], mem.search_config)
    for q, u in qs:  # warm-up: query embeddings cached, store pages read
        for c in cfgs:
            mem.search(q, user_id=u, limit=50, recipe=c)
    cpu: list[list[float]] = [[], []]
    wall: list[list[float]] = [[], []]
    for i, (q, u) in enumerate(qs):
        for j in ((0, 1) if i % 2 == 0 else (1, 0)):
            c0, w0 = time.process_time(), time.perf_counter()
            mem.search(q, user_id=u, limit=50, recipe=cfgs[j])
            cpu[j].append(1000 * (time.process_time() - c0))
            wall[j].append(1000 * (time.perf_counter() - w0))
    mem.close()
    out = {"questions": len(qs), "base": args.base, "new": args.new}
    for j, name in enumerate(("base", "new")):
        out[name + "_ms"] = {"cpu_mean": statistics.mean(cpu[j]), "cpu_p50": statistics.median(cpu[j]),
                             "wall_mean": statistics.mean(wall[j]), "wall_p50": statistics.median(wall[j])}
    out["cpu_ratio"] = out["new_ms"]["cpu_mean"] / out["base_ms"]["cpu_mean"]
    emit(out, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
