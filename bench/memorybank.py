"""MemoryBank (cn + en) evidence-turn recall@1/5/10 and hit@k for the default recipe, bm25, dense and hybrid_rrf,
on the dev users (0-9) and the held-out users (10-14), against the hand-labelled gold
``bench/data/memorybank_gold.json``.

    ANCHORMEM_EVAL_EMBED_CACHE=/path/embcache.db python bench/memorybank.py [--data .../datasets/memorybank]
        [--recipes default,bm25,dense,hybrid_rrf] [--embedder NAME] [--out bench/results/memorybank.json]

Retrieval only: each question searched as written, no conversation, no abstention. Each recipe is compared with
the default per question: paired difference of recall@1/5/10 with a 95% bootstrap interval
(:mod:`anchormem.eval.paired`), per language and split. Writes ``bench/results/memorybank.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from anchormem.eval.memorybank import default_root, format_table, run_memorybank  # noqa: E402
from anchormem.eval.paired import against_base, paired_bootstrap  # noqa: E402
from anchormem.retrieval.config import parse_recipe_spec  # noqa: E402  "name+field=value" or "name:field=value"
from timing import progress_printer  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "memorybank.json"


def paired(result: dict, base: str, ks=(1, 5, 10)) -> dict:
    """Per recipe vs ``base``: paired difference of recall@k per language and split (all / dev / heldout)."""
    out: dict = {}
    for name, qa, qb in against_base(result, base):
        for lang in result["langs"]:
            for part in ("all", "dev", "heldout"):
                idx = [i for i, q in enumerate(qa) if q["lang"] == lang and (part == "all" or q["split"] == part)]
                assert all(qa[i]["id"] == qb[i]["id"] for i in idx)
                for k in ks:
                    out.setdefault(name, {}).setdefault(lang, {}).setdefault(part, {})[f"recall@{k}"] = \
                        paired_bootstrap([qa[i]["recall"][str(k)] for i in idx], [qb[i]["recall"][str(k)] for i in idx])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None)
    ap.add_argument("--gold", default=None)
    ap.add_argument("--recipes", default="default,bm25,dense,hybrid_rrf",
                    help="comma-separated; 'default' = the Memory's default recipe")
    ap.add_argument("--embedder", default=None, help="embedder name (default: the default model); write each model "
                    "to its own --out")
    ap.add_argument("--langs", default="en,cn")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    root = args.data or default_root()
    if root is None:
        ap.error("no MemoryBank data: --data or ANCHORMEM_MEMORYBANK")
    recipes = [None if s.strip() == "default" else parse_recipe_spec(s) for s in args.recipes.split(",") if s.strip()]
    progress = progress_printer(10)

    t0, c0 = time.perf_counter(), time.process_time()
    result = run_memorybank(root, gold=args.gold, recipe=recipes, embedder=args.embedder,
                            langs=[x.strip() for x in args.langs.split(",") if x.strip()], progress=progress,
                            details=True)
    result["wall_seconds"], result["cpu_seconds"] = time.perf_counter() - t0, time.process_time() - c0
    result["command"] = "python bench/memorybank.py " + " ".join(sys.argv[1:])
    names = list(result["runs"])
    base = next((n for n in names if n.startswith("default")), names[0])
    result["paired_vs_default"] = {"base": base, "diffs": paired(result, base)}
    result["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    print(format_table(result))
    print(f"\npaired recall@k vs {base} (diff [95% interval], percent points):")
    for name, langs in result["paired_vs_default"]["diffs"].items():
        for lang, parts in langs.items():
            for part, ms in parts.items():
                print(f"  {name} - {base} {lang} {part}: " + ", ".join(
                    f"{m} {100 * v['diff']:+.1f} [{100 * v['low']:+.1f}, {100 * v['high']:+.1f}]"
                    for m, v in ms.items()))
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
