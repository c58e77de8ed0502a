"""LoCoMo recall against a store ingested once (for iterating on search-only changes).

    # ingest (only the conversations not yet in the store file)
    python bench/locomo_store.py ingest --db /tmp/locomo.db --conversations 0,1
    # search with recipes; per-question records in bench/locomo_paired.py's format (its ``compare`` reads them)
    python bench/locomo_store.py run --db /tmp/locomo.db --conversations 0,1 --recipes anchored,anchored+hops=1 \\
        --out /tmp/r.json

The store is a plain anchormem SQLite file; the embeddings come from the eval cache (ANCHORMEM_EVAL_EMBED_CACHE).
Searches are read-only (``track_access`` off), so runs against one file are repeatable. ``run`` reports CPU time per
recipe (process time of its searches).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.harness import read_only_configs
from anchormem.eval.locomo import CATEGORY_NAMES, _recalls, ingest_locomo, load_locomo, normalize_evidence
from anchormem.memory import Memory
from anchormem.retrieval.config import parse_recipe_spec
from anchormem.eval.datasets import dataset_path

DATA = str(dataset_path("locomo/locomo10.json"))
KS = (1, 5, 10, 25, 50)


def _convs(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        elif part.strip():
            out.append(int(part))
    return out


def cmd_ingest(args: argparse.Namespace) -> int:
    samples, _ = load_locomo(DATA)
    done_file = Path(args.db + ".ingested.json")
    done = set(json.loads(done_file.read_text())) if done_file.exists() else set()
    with Memory(args.db, embedder=eval_embedder(None)) as mem:
        for i in _convs(args.conversations):
            if samples[i]["sample_id"] in done:
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            ingest_locomo(mem, [samples[i]])
            done.add(samples[i]["sample_id"])
            done_file.write_text(json.dumps(sorted(done)))
            print(f"conversation {i} ingested: {time.perf_counter() - t0:.0f} s wall, "
                  f"{time.process_time() - c0:.0f} s CPU", flush=True)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    samples, _ = load_locomo(DATA)
    convs = _convs(args.conversations)
    questions = []
    for si in convs:
        s = samples[si]
        for qi, qa in enumerate(s["qa"]):
            ev = normalize_evidence(qa.get("evidence"))
            if ev:
                questions.append({"sample_id": s["sample_id"], "qa_index": qi, "category": int(qa["category"]),
                                  "question": qa["question"], "evidence": ev})
    result: dict = {"conversations": convs, "runs": {}}
    with Memory(args.db, embedder=eval_embedder(None)) as mem:
        specs = [s for s in args.recipes.split(",") if s.strip()]
        cfgs = read_only_configs([parse_recipe_spec(s) for s in specs], mem.search_config)
        for q in questions[:20]:  # warm the query-embedding cache (so the first recipe is not charged for it)
            mem.search(q["question"], user_id=q["sample_id"], limit=50, recipe=cfgs[0])
        for spec, cfg in zip(specs, cfgs):
            recs, cpu, lats = [], 0.0, []
            for q in questions:
                c0, t0 = time.process_time(), time.perf_counter()
                hits = mem.search(q["question"], user_id=q["sample_id"], limit=max(KS), recipe=cfg)
                cpu += time.process_time() - c0
                lats.append(time.perf_counter() - t0)
                ranked: list[str] = []
                for h in hits:
                    d = h.memory.metadata.get("dia_id")
                    if d is not None and d not in ranked:
                        ranked.append(d)
                rec = {"sample_id": q["sample_id"], "qa_index": q["qa_index"], "category": q["category"],
                       "raw": _recalls(ranked, q["evidence"], KS)}
                if args.ranked:
                    rec["ranked"] = ranked
                    rec["evidence"] = q["evidence"]
                    rec["question"] = q["question"]
                recs.append(rec)
            lats.sort()
            run = {"questions": recs, "cpu_ms_per_search": 1000 * cpu / max(1, len(recs)),
                   "p50_ms": 1000 * lats[len(lats) // 2] if lats else None}
            result["runs"][spec] = run
            row = [f"{spec}: n={len(recs)} cpu/search {run['cpu_ms_per_search']:.1f} ms"]
            for cat in (None, 1, 3):
                sel = [r for r in recs if cat is None or r["category"] == cat]
                if sel:
                    name = "all" if cat is None else CATEGORY_NAMES[cat]
                    row.append(name + " " + "/".join(f"{100 * sum(r['raw'][str(k)] for r in sel) / len(sel):.1f}"
                                                      for k in (1, 5, 10, 25)))
            print(" | ".join(row), flush=True)
            # written after each recipe: a long run killed half-way keeps the recipes done
            Path(args.out).write_text(json.dumps(result, separators=(",", ":")) + "\n", encoding="utf-8")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("ingest")
    i.add_argument("--db", required=True)
    i.add_argument("--conversations", default="0-9")
    r = sub.add_parser("run")
    r.add_argument("--db", required=True)
    r.add_argument("--conversations", default="0-9")
    r.add_argument("--recipes", default="anchored")
    r.add_argument("--ranked", action="store_true", help="keep each question's ranked dia_ids")
    r.add_argument("--out", required=True)
    args = ap.parse_args()
    return cmd_ingest(args) if args.cmd == "ingest" else cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
