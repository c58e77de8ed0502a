"""LoCoMo evidence recall for the BM25-only, dense-only and hybrid (``hybrid_rrf``) recipes; ``--recipes
hybrid_rrf,anchored`` for the default recipe (hybrid + context anchoring) beside hybrid.

    python bench/locomo_recall.py [--data /path/to/locomo10.json] [--conversations N]

Ingests the 10 conversations once (default embedder, in-memory store), searches every question with each
recipe, prints Markdown tables and writes ``bench/results/locomo_recall.json``.
Reference (LoCoMo paper, DRAGON over dialog turns): R@5 56.7, R@10 66.2, R@25 76.7, R@50 82.7.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from anchormem.eval.locomo import format_table, parse_select, run_locomo
from anchormem.retrieval.config import RECIPES, SearchConfig, parse_recipe_spec
from timing import progress_printer

DEFAULT_DATA = str(Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo" / "locomo10.json")  # ../shared
VARIANTS = {  # explicit settings over the default recipe (candidates 200, recency 0.1)
    "hybrid:k20_even": {"rrf_k": 20.0, "dense_weight": 0.5, "lexical_weight": 0.5},
    "hybrid:k20_lex.6": {"rrf_k": 20.0, "dense_weight": 0.4, "lexical_weight": 0.6},
    "hybrid:k20_lex.7": {"rrf_k": 20.0, "dense_weight": 0.3, "lexical_weight": 0.7},
    "hybrid:k10_even": {"rrf_k": 10.0, "dense_weight": 0.5, "lexical_weight": 0.5},
    "hybrid:k10_lex.6": {"rrf_k": 10.0, "dense_weight": 0.4, "lexical_weight": 0.6},
    "hybrid:k10_lex.7": {"rrf_k": 10.0, "dense_weight": 0.3, "lexical_weight": 0.7},
    "hybrid:k10_lex.6_recency0": {"rrf_k": 10.0, "dense_weight": 0.4, "lexical_weight": 0.6, "recency_weight": 0.0},
    "weighted:dense.3": {"fusion": "weighted", "dense_weight": 0.3},
}
OUT = Path(__file__).resolve().parent / "results" / "locomo_recall.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--select", default=None, help="only these conversations, 0-based: '0-4', '5-9', '0,2,7' "
                    "(a tuning / held-out split; not with --conversations)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--embedder", default=None, help="embedder name (default: the default model); results are "
                    "per model: write each to its own --out")
    ap.add_argument("--details", action="store_true", help="keep per-question recall (for paired comparisons: "
                    "bench/locomo_paired.py compare BASE NEW)")
    ap.add_argument("--variants", action="store_true", help="also evaluate tuning variants of the default")
    ap.add_argument("--recipes", default=None,
                    help="comma-separated recipes to evaluate instead of bm25,dense,hybrid_rrf; a recipe may carry "
                         "overrides: anchored+anchor_weight_no_context=0.1 or anchored:anchor=false "
                         "(anchormem.retrieval.config.parse_recipe_spec; write to another --out)")
    args = ap.parse_args()

    default = RECIPES["hybrid_rrf"]
    recipes: list = ["bm25", "dense", default.name]
    if args.recipes:
        recipes = [parse_recipe_spec(spec) for spec in args.recipes.split(",") if spec.strip()]
    if args.variants:  # tuning variants of the default, evaluated on the same ingest
        d = default.model_dump()
        for name, change in VARIANTS.items():
            recipes.append(SearchConfig(**{**d, **change, "name": name}))
    progress = progress_printer(5)

    t0 = time.perf_counter()
    select = parse_select(args.select) if args.select else None
    result = run_locomo(args.data, recipe=recipes, conversations=args.conversations, select=select,
                        progress=progress, embedder=args.embedder, details=args.details)
    if args.details:  # per-question records cut to what a paired comparison needs
        for run in result["runs"].values():
            run["questions"] = [{"sample_id": q["sample_id"], "qa_index": q["qa_index"], "category": q["category"],
                                 "raw": q["raw"]} for q in run["questions"]]
    result["select"] = select
    result["wall_seconds"] = time.perf_counter() - t0
    result["machine"] = {"python": platform.python_version(), "platform": platform.platform(),
                         "cpus": __import__("os").cpu_count()}
    result["reference"] = {"DRAGON (LoCoMo paper, Table 3)": {"recall@5": 0.567, "recall@10": 0.662,
                                                               "recall@25": 0.767, "recall@50": 0.827}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(format_table(result))
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
