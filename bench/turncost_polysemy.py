"""Pooled polysemy pass rates of one recipe on every polysemy set the turn-cost work (issue #23) may read: the dev
groups (``bench/anchor_heldout.py --sets dev``) and held-out sets 2, 3, 4 and 6 (``--files``, each pooled on its own),
one fresh Memory per set. One recipe per process: a recipe's conversation vectors are kept per turn texts by the
anchor, so two recipes that read the same turns differently must not share a process.

Run: OMP_NUM_THREADS=1 nice -n 10 python bench/turncost_polysemy.py --recipe anchored[:setting=value]
     --out bench/results/turncost_polysemy_before.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anchor_heldout  # noqa: E402  (bench/anchor_heldout.py)

SETS = {"dev": ["--sets", "dev"],
        **{f"heldout{k}": ["--files", f"polysemy_en_heldout{k}.json,polysemy_zh_heldout{k}.json"]
           for k in (2, 3, 4, 6)}}


def main(argv: list[str]) -> dict:
    recipe = argv[argv.index("--recipe") + 1] if "--recipe" in argv else "anchored"
    t0, c0 = time.perf_counter(), time.process_time()
    out: dict = {"recipe": recipe, "sets": {}}
    tot = {"en": [0, 0], "zh": [0, 0]}
    for name, args in SETS.items():
        res = anchor_heldout.main([*args, "--recipes", recipe])["recipes"][recipe]
        out["sets"][name] = res
        for lang in tot:
            s = res["groups"].get(f"lang:{lang}")
            if s:
                tot[lang][0] += s["pass"]
                tot[lang][1] += s["total"]
        print(name, {g: f"{s['pass']}/{s['total']}" for g, s in res["groups"].items()}, file=sys.stderr, flush=True)
    out["pooled_groups_pass"] = {k: f"{p}/{t}" for k, (p, t) in tot.items()}
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    out["cpu_s"] = round(time.process_time() - c0, 1)
    return out


if __name__ == "__main__":
    res = main(sys.argv[1:])
    print(json.dumps({k: {g: f"{s['pass']}/{s['total']}" for g, s in v["groups"].items()}
                      for k, v in res["sets"].items()}, ensure_ascii=False, indent=1))
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
