"""Cost of the question read without the person it names (``SearchConfig.unnamed_weight`` / ``unnamed_own_weight``,
ret17): whole default searches on a LoCoMo store, with and without the unnamed lists, interleaved per question.

Every query is new text (a tag appended: no query-embedding cache hit, in process or on disk: run without
``ANCHORMEM_EVAL_EMBED_CACHE``), so each search pays its query embedding, and the variant with the lists one more
(the question less the name). p50 of wall and CPU time (``time.process_time``) per variant, their ratio, and the
share of questions the rule fired on.

Run (a store written by ``bench/locomo_paired.py run --db``; searched read-only, access tracking off):
    OMP_NUM_THREADS=1 nice -n 10 python bench/unnamed_cost.py --db /tmp/ret17/all10.db --questions 120 \\
        --out bench/results/ret17_unnamed_cost.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.datasets import dataset_path
from anchormem.retrieval.config import RECIPES
from anchormem.retrieval.speakers import named_speakers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import emit  # noqa: E402


def main() -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--questions", type=int, default=120, help="the first N questions, spread over the samples")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    data = json.loads(Path(dataset_path("locomo/locomo10.json")).read_text(encoding="utf-8"))
    per = max(1, args.questions // len(data))
    asks = [(s["sample_id"], qa["question"]) for s in data for qa in s["qa"][:per]]
    with_lists = RECIPES["anchored"].model_copy(update={"track_access": False})
    without = with_lists.model_copy(update={"unnamed_weight": 0.0, "unnamed_own_weight": 0.0})
    variants = {"without": without, "with": with_lists}
    wall: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    fired = 0
    with Memory(args.db) as mem:
        mem.search(asks[0][1], user_id=asks[0][0], recipe=without)  # load models and indexes
        for i, (user, q) in enumerate(asks):
            order = list(variants) if i % 2 == 0 else list(variants)[::-1]
            for name in order:
                text = f"{q} (#{i} {name})"
                t, p = time.perf_counter(), time.process_time()
                mem.search(text, user_id=user, recipe=variants[name], limit=10)
                wall[name].append(time.perf_counter() - t)
                cpu[name].append(time.process_time() - p)
    for s in data:  # questions naming one of the two speakers (the rule's condition, read off the data)
        speakers = {s["conversation"]["speaker_a"], s["conversation"]["speaker_b"]}
        for qa in s["qa"][:per]:
            named = named_speakers(qa["question"], speakers)
            fired += bool(named) and named != speakers
    out: dict = {"questions": len(asks), "named_one_speaker": fired}
    for name in variants:
        out[name] = {"p50_ms": round(1000 * statistics.median(wall[name]), 2),
                     "cpu_p50_ms": round(1000 * statistics.median(cpu[name]), 2)}
    out["ratio_wall"] = round(out["with"]["p50_ms"] / out["without"]["p50_ms"], 3)
    out["ratio_cpu"] = round(out["with"]["cpu_p50_ms"] / out["without"]["cpu_p50_ms"], 3)
    emit(out, args.out)
    return out


if __name__ == "__main__":
    main()
