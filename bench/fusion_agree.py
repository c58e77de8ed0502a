"""Per-query fusion weights from what the signals agree on (issue 23): dump each question's dense and BM25 candidate
lists once (memory ids, evidence units, scores) from stores ingested through the public API, then replay fusion
rules offline (min-max fusion at the memory level, ranked by distinct evidence unit) on the tune and held-out parts.

    python bench/fusion_agree.py dump-locomo --db /tmp/fusion/locomo.db --out /tmp/fusion/locomo_lists.json
    python bench/fusion_agree.py dump-memora --db /tmp/fusion/memora.db --out /tmp/fusion/memora_lists.json
    python bench/fusion_agree.py replay /tmp/fusion/locomo_lists.json /tmp/fusion/memora_lists.json \\
        [--out bench/results/fusion_agree_replay.json]

Splits (issue 23 brief): LoCoMo conversations 0-5 tune, 6-9 held out; Memora personas 0-6 tune, 7-9 held out.
Every rule is paired against the default fusion (min-max, dense 0.4 / BM25 0.6) per part with a 95% bootstrap
interval. The replay leaves out what the pipeline adds after fusion (recency, importance, sessions, anchoring): a
guide; the chosen rule is then measured through ``Memory.search`` (bench/locomo_paired.py, bench/memora.py,
bench/memorybank.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.paired import paired_bootstrap
from anchormem.retrieval.config import RECIPES
from anchormem.retrieval.fusion import drop_zero, flatness_weights, minmax
from anchormem.types import Scope
from anchormem.eval.datasets import dataset_path
from fusion_tune import unit_recall  # bench/fusion_tune.py (bench/ is on sys.path when a script runs)

LOCOMO = str(dataset_path("locomo/locomo10.json"))
MEMORA = str(dataset_path("memora/weekly"))
LOCOMO_TUNE = 6  # conversations 0-5


def _lists(mem: Memory, user: str, query: str, unit) -> dict[str, list]:
    cfg = RECIPES["anchored"]
    scope = Scope(tenant=mem.tenant, user_id=user)
    dense, lex = mem._searcher._candidates(query, scope, None, cfg.candidates, cfg, None, None, expand=True)
    items = mem.store.get_many(mem.tenant, list({d for d, _ in dense + lex}), entities=False)
    return {n: [[d, unit(items[d]) if d in items else None, float(s)] for d, s in ls]
            for n, ls in (("dense", dense), ("bm25", lex))}


def dump_locomo(db: str, out: str) -> None:
    from anchormem.eval.locomo import load_locomo, normalize_evidence

    samples, _ = load_locomo(LOCOMO)
    mem = Memory(db, embedder=eval_embedder(None), cache=False)
    rows = []
    for si, s in enumerate(samples):
        for qi, qa in enumerate(s["qa"]):
            ev = normalize_evidence(qa.get("evidence"))
            if not ev:
                continue
            rows.append({"set": "locomo", "part": "tune" if si < LOCOMO_TUNE else "heldout", "conv": si, "qi": qi,
                         "type": str(qa["category"]), "query": qa["question"], "gold": ev,
                         **_lists(mem, s["sample_id"], qa["question"], lambda it: it.metadata.get("dia_id"))})
    mem.close()
    Path(out).write_text(json.dumps(rows))


def dump_memora(db: str, out: str) -> None:
    from anchormem.eval.memora import TUNE_PERSONAS, load_memora

    done = set(json.loads(Path(f"{db}.memora.json").read_text())["done"])
    mem = Memory(db, embedder=eval_embedder(None), cache=False)
    rows = []
    for p in load_memora(MEMORA):
        if p["persona"] not in done:
            continue
        for q in p["questions"]:
            rows.append({"set": "memora", "part": "tune" if p["index"] < TUNE_PERSONAS else "heldout",
                         "conv": p["index"], "type": q["task"], "query": q["question"], "gold": q["gold"],
                         **_lists(mem, p["persona"], q["question"], lambda it: it.metadata.get("memora_session"))})
    mem.close()
    Path(out).write_text(json.dumps(rows))


# --------------------------------------------------------------------------------------------------- replay
def _fused_units(row: dict, wd: float, wl: float) -> list:
    dense = [(d, s) for d, _, s in row["dense"]]
    lex = drop_zero([(d, s) for d, _, s in row["bm25"]])
    unit = {d: u for d, u, _ in row["dense"] + row["bm25"]}
    f = minmax({"dense": dense, "bm25": lex}, {"dense": wd, "bm25": wl}, 50, 10.0)
    return [unit[d] for d in sorted(f, key=lambda d: (-f[d], d))]


def _weights_flat(gain: float, level: float, wd0: float = 0.4, wl0: float = 0.6):
    def rule(row: dict) -> tuple[float, float]:
        dense = [(d, s) for d, _, s in row["dense"]]
        lex = drop_zero([(d, s) for d, _, s in row["bm25"]])
        wd, wl, _ = flatness_weights(dense, lex, wd0, wl0, gain=gain, level=level)
        return wd, wl
    return rule


def replay(paths: list[str], out: str | None) -> None:
    rows = [r for p in paths for r in json.loads(Path(p).read_text())]
    rules: dict[str, Any] = {"default": lambda row: (0.4, 0.6), "dense": lambda row: (1.0, 0.0),
                             "bm25": lambda row: (0.0, 1.0)}
    for wl in (0.3, 0.5, 0.7):
        rules[f"fixed_lex{wl}"] = lambda row, wl=wl: (1 - wl, wl)
    for gain in (0.5, 1.0, 2.0, 4.0, 8.0):
        for level in (0.3, 0.5, 0.7):
            rules[f"flat_g{gain}_l{level}"] = _weights_flat(gain, level)
    ks = (1, 5, 10)
    per: dict[str, list[dict]] = {}
    for name, rule in rules.items():
        per[name] = []
        for row in rows:
            wd, wl = rule(row)
            units = _fused_units(row, wd, wl)
            per[name].append({k: unit_recall(units, row["gold"], k) for k in ks})
    groups = sorted({(r["set"], r["part"]) for r in rows})
    res: dict = {}
    for name in rules:
        for g in groups:
            idx = [i for i, r in enumerate(rows) if (r["set"], r["part"]) == g]
            cell: dict = {"n": len(idx)}
            for k in ks:
                a = [per[name][i][k] for i in idx]
                b = [per["default"][i][k] for i in idx]
                cell[f"R@{k}"] = float(np.mean(a))
                if name != "default":
                    cell[f"vs_default@{k}"] = paired_bootstrap(a, b)
            res.setdefault(name, {})["/".join(g)] = cell
    for name, parts in res.items():
        cells = []
        for p, v in parts.items():
            d = v.get("vs_default@10")
            cells.append(f"{p}: {100*v['R@5']:.1f}/{100*v['R@10']:.1f}" +
                         (f" ({100*d['diff']:+.1f} [{100*d['low']:+.1f},{100*d['high']:+.1f}])" if d else ""))
        print(f"{name:18s}", "  ".join(cells))
    print("(parts: R@5/R@10, then the paired R@10 difference against the default with its 95% interval)")
    if out:
        Path(out).write_text(json.dumps({"paths": paths, "results": res}, indent=1) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=["dump-locomo", "dump-memora", "replay"])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--db")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.cmd == "dump-locomo":
        dump_locomo(a.db, a.out)
    elif a.cmd == "dump-memora":
        dump_memora(a.db, a.out)
    else:
        replay(a.paths, a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
