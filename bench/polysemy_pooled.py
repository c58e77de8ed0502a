"""Pooled polysemy pass rates of one recipe (default: the default recipe, ``anchored``): the pooled mode of
:func:`anchormem.eval.polysemy.run_polysemy` (every case's sessions in one user's history, the same pass test) on the
dev cases, a quicker check than bench/polysemy.py (no per-case mode, no other recipes, no latency) for label changes.
Searches are read-only (access tracking off). ``--abstain-ratio R``: label with ``ContextAnchor(abstain_ratio=R)``.
``--recipe SPEC``: another recipe, with settings (``anchored:anchor_gate_near=0.8``,
:func:`anchormem.retrieval.config.parse_recipe_spec`). Per group, per kind and per language; prints and writes JSON
(``--out``). Several recipes side by side, or the held-out sets: bench/anchor_heldout.py.
Run: nice -n 10 python bench/polysemy_pooled.py [--abstain-ratio 0.95] [--recipe SPEC] [--out FILE]"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import load_cases, pooled_history, pooled_pass_rates
from anchormem.retrieval.config import DEFAULT_RECIPE, parse_recipe_spec


def main(argv: list[str]) -> dict:
    if "--abstain-ratio" in argv:
        from anchormem.context.anchor import ContextAnchor

        ContextAnchor.__init__.__kwdefaults__["abstain_ratio"] = float(argv[argv.index("--abstain-ratio") + 1])
    spec = argv[argv.index("--recipe") + 1] if "--recipe" in argv else DEFAULT_RECIPE
    cfg = parse_recipe_spec(spec)
    t0, c0 = time.perf_counter(), time.process_time()
    cases = load_cases()
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        owner = pooled_history(mem, cases)
        groups, fails = pooled_pass_rates(mem, cases, owner, cfg)
        unlabelled = sum(1 for it in mem.get_all(user_id="pooled") if not it.labels)
    return {"recipe": spec, "pooled": groups, "failures": fails, "unlabelled_memories": unlabelled,
            "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}


if __name__ == "__main__":
    res = main(sys.argv[1:])
    print(json.dumps(res, ensure_ascii=False))
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
