"""Pooled polysemy pass rates (the pooled mode of :func:`anchormem.eval.polysemy.run_polysemy`: every case's
sessions in one user's history, the same pass test) of several recipes, on the dev cases (``--sets dev``: groups en,
en_heldout, zh, zh_heldout) or on the second held-out set (``--sets heldout2``: en_heldout2, zh_heldout2, written for
issue #23 before tuning and never tuned on; pooled on its own). Per group, per kind (neutral / sense) and per language
(the groups of one language pooled). ``anchored:conversation_query_weight=0.0``: the query as given only (no
conversation query, :mod:`anchormem.retrieval.conversation`), to compare. Searches are read-only (access tracking
off), so a recipe's results do not depend on the recipes measured before it.
Run: nice -n 10 python bench/anchor_heldout.py --sets heldout2 [--recipes hybrid_rrf,anchored]
[--out bench/results/FILE.json]; a recipe may carry settings (:func:`anchormem.retrieval.config.parse_recipe_spec`):
``anchored:anchor_gate_near=0.5`` or ``anchored+anchor_gate_near=0.5``, yes/no fields as true/false.
``--files polysemy_en_heldout3.json,polysemy_zh_heldout3.json``: instead of ``--sets``, the cases of the given files
of ``anchormem/data`` (same shape as polysemy_zh.json), pooled on their own; group = the file name without
``polysemy_`` and ``.json``, language = the file's ``lang``. ``--help``: this text."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import file_cases, load_cases, pooled_history, pooled_pass_rates
from anchormem.retrieval.config import parse_recipe_spec


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv: list[str]) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    sets = _arg(argv, "--sets", "heldout2")
    names = _arg(argv, "--recipes", "hybrid_rrf,anchored").split(",")
    configs = {name: parse_recipe_spec(name) for name in names}  # a bad spec fails before the ingest
    files = [f for f in _arg(argv, "--files", "").split(",") if f]
    if files:  # hand-written set files of anchormem/data, pooled on their own
        sets = ",".join(files)
        cases = file_cases(files)
    else:
        cases = load_cases(sets=sets)
    out: dict = {"sets": sets, "cases": len(cases), "recipes": {}}
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        owner = pooled_history(mem, cases)
        for name, cfg in configs.items():
            groups, fails = pooled_pass_rates(mem, cases, owner, cfg)
            out["recipes"][name] = {"groups": groups, "failures": fails}
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    out["cpu_s"] = round(time.process_time() - c0, 1)
    return out


if __name__ == "__main__":
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__)
        sys.exit(0)
    res = main(sys.argv[1:])
    if "--out" in sys.argv:
        Path(_arg(sys.argv, "--out", "")).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n")
    print(json.dumps({n: {g: f"{s['pass']}/{s['total']}" for g, s in r["groups"].items()}
                      for n, r in res["recipes"].items()}, ensure_ascii=False, indent=1))
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
