"""Fusion tuning on the dev sets with a held-out split: dumps each question's dense and BM25 candidate lists once
(from stores ingested through the public API), then replays fusion rules offline (RRF over the two lists, ranked by
distinct evidence unit) and reports recall@5/@10 per rule on the tune and held-out parts.

    python bench/fusion_tune.py dump-locomo --db /tmp/locomo.db --out /tmp/locomo_lists.json
    python bench/fusion_tune.py dump-memora --db /tmp/memora.db --out /tmp/memora_lists.json   # db from bench/memora.py --db
    python bench/fusion_tune.py replay /tmp/locomo_lists.json /tmp/memora_lists.json [--out bench/results/fusion_tune.json]
    python bench/fusion_tune.py real-locomo --db /tmp/locomo.db --recipes bm25,dense,hybrid_rrf,anchored --out F.json
    python bench/fusion_tune.py real-memora --db /tmp/memora.db --recipes ... --out F.json   # the full pipeline

Splits: LoCoMo conversations 0-6 tune / 7-9 held out; Memora personas 0-6 tune / 7-9 held out (sorted by name).
The replay leaves out what the full pipeline adds after fusion (recency, importance, source weights, time boost,
anchoring), so its figures are a guide; the chosen rule is then measured with the real pipeline
(bench/locomo_recall.py, bench/memora.py).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.retrieval.config import RECIPES
from anchormem.types import Scope
from anchormem.eval.datasets import dataset_path

LOCOMO = str(dataset_path("locomo/locomo10.json"))
MEMORA = str(dataset_path("memora/weekly"))


def _lists(mem: Memory, user: str, query: str) -> tuple[list, list]:
    cfg = RECIPES["hybrid_rrf"]
    scope = Scope(tenant=mem.tenant, user_id=user)
    dense, lex = mem._searcher._candidates(query, scope, None, cfg.candidates, cfg, None, None, expand=True)
    return dense, lex


def _units(mem: Memory, ids: list[str], key) -> dict[str, Any]:
    items = mem.store.get_many(mem.tenant, ids)
    return {i: key(it) for i, it in items.items()}


def dump_locomo(db: str, out: str) -> None:
    from anchormem.eval.locomo import load_locomo, normalize_evidence, run_locomo

    if not Path(db).exists():
        run_locomo(LOCOMO, db_path=db, recipe="bm25", ks=(1,))
    samples, _ = load_locomo(LOCOMO)
    mem = Memory(db, embedder=eval_embedder(None), cache=False)
    rows = []
    for si, s in enumerate(samples):
        for qa in s["qa"]:
            ev = normalize_evidence(qa.get("evidence"))
            if not ev:
                continue
            dense, lex = _lists(mem, s["sample_id"], qa["question"])
            units = _units(mem, list({d for d, _ in dense + lex}), lambda it: it.metadata.get("dia_id"))
            rows.append({"set": "locomo", "split": "tune" if si < 7 else "heldout", "type": str(qa["category"]),
                         "query": qa["question"], "gold": ev,
                         "dense": [[units.get(d), s_] for d, s_ in dense],
                         "bm25": [[units.get(d), s_] for d, s_ in lex]})
    mem.close()
    Path(out).write_text(json.dumps(rows))


def dump_memora(db: str, out: str) -> None:
    from anchormem.eval.memora import TUNE_PERSONAS, load_memora

    marker = Path(f"{db}.memora.json")
    done = set(json.loads(marker.read_text())["done"]) if marker.exists() else None
    data = [p for p in load_memora(MEMORA) if done is None or p["persona"] in done]  # complete personas only
    mem = Memory(db, embedder=eval_embedder(None), cache=False)
    rows = []
    for p in data:
        for q in p["questions"]:
            dense, lex = _lists(mem, p["persona"], q["question"])
            units = _units(mem, list({d for d, _ in dense + lex}), lambda it: it.metadata.get("memora_session"))
            rows.append({"set": "memora", "split": "tune" if p["index"] < TUNE_PERSONAS else "heldout",
                         "type": q["task"], "query": q["question"], "gold": q["gold"],
                         "dense": [[units.get(d), s_] for d, s_ in dense],
                         "bm25": [[units.get(d), s_] for d, s_ in lex]})
    mem.close()
    Path(out).write_text(json.dumps(rows))


# --------------------------------------------------------------------------------------------------- replay
def unit_recall(ranked: list, gold: list, k: int) -> float:
    """Recall@k over evidence units: the share of ``gold`` among the first ``k`` distinct units of ``ranked`` (None
    entries skipped). Also used by bench/fusion_agree.py."""
    seen: list = []
    for u in ranked:
        if u is not None and u not in seen:
            seen.append(u)
            if len(seen) == k:
                break
    return len(set(gold) & set(seen)) / len(gold)


def _rank(row: dict, wd: float, wl: float, k: float) -> list:
    # fused per evidence unit, each list counting a unit at its best rank
    best: dict = {}
    for name, w in (("dense", wd), ("bm25", wl)):
        if w == 0:
            continue
        seen = set()
        for r, (u, _s) in enumerate(row[name], start=1):
            if u is None or u in seen:
                continue
            seen.add(u)
            best[u] = best.get(u, 0.0) + w / (k + r)
    return sorted(best, key=lambda u: -best[u])


def _first_per_unit(items: list) -> list[tuple]:
    seen: set = set()
    out = []
    for u, s in items:
        if u is not None and u not in seen:
            seen.add(u)
            out.append((u, s))
    return out


def replay(paths: list[str], out: str | None) -> None:
    rows = [r for p in paths for r in json.loads(Path(p).read_text())]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from anchormem.retrieval.fusion import adaptive_weights, drop_zero, minmax

    rules: dict[str, Any] = {"dense_only": lambda row: (1.0, 0.0, 10.0), "bm25_only": lambda row: (0.0, 1.0, 10.0)}
    for wl in (0.25, 0.5, 0.6, 0.75):
        rules[f"fixed_lex{wl}"] = lambda row, wl=wl: (1 - wl, wl, 10.0)
    rules["fixed_lex0.6_keep0"] = lambda row: (0.4, 0.6, 10.0)
    for wl, window in itertools.product((0.4, 0.5, 0.6), (20, 50, 200)):
        rules[f"minmax_lex{wl}_w{window}"] = ("minmax", 1 - wl, wl, window)
    for strength, agree, breadth in itertools.product((0.0, 0.5, 1.0), (0.0, 1.0), (0.0, 0.5, 1.0, 1.5, 2.0)):
        rules[f"adaptive_s{strength}_a{agree}_b{breadth}"] = (
            lambda row, st=strength, ag=agree, br=breadth: (*adaptive_weights(
                [tuple(x) for x in row["dense"]], drop_zero([tuple(x) for x in row["bm25"]]), 0.4, 0.6,
                strength=st, agree=ag, breadth=br)[:2], 10.0))
    res: dict = {}
    for name, rule in rules.items():
        for (dset, split), grp in itertools.groupby(sorted(rows, key=lambda r: (r["set"], r["split"])),
                                                    key=lambda r: (r["set"], r["split"])):
            grp = list(grp)
            r5, r10 = [], []
            for row in grp:
                keep0 = name.endswith("_keep0")
                row2 = row if keep0 else dict(row, bm25=[list(x) for x in drop_zero([tuple(x) for x in row["bm25"]])])
                if isinstance(rule, tuple):  # min-max score fusion over each list's first hit per unit
                    _, wd, wl, window = rule
                    lists = {n: _first_per_unit(row2[n]) for n in ("dense", "bm25")}
                    f = minmax(lists, {"dense": wd, "bm25": wl}, window)
                    ranked = sorted(f, key=lambda u: -f[u])
                else:
                    wd, wl, k = rule(row)
                    ranked = _rank(row2, wd, wl, k)
                r5.append(unit_recall(ranked, row["gold"], 5))
                r10.append(unit_recall(ranked, row["gold"], 10))
            res.setdefault(name, {})[f"{dset}/{split}"] = {"R@5": float(np.mean(r5)), "R@10": float(np.mean(r10)),
                                                           "n": len(grp)}
    for name, parts in res.items():
        print(f"{name:22s}", "  ".join(f"{p}: {100*v['R@5']:.1f}/{100*v['R@10']:.1f}" for p, v in sorted(parts.items())))
    if out:
        Path(out).write_text(json.dumps(res, indent=2) + "\n")


def real(dset: str, db: str, recipes: list[str], out: str, ks=(1, 5, 10)) -> None:
    """The full pipeline (Memory.search, every recipe) on a store ingested earlier (``dump-locomo``'s db, or
    bench/memora.py's ``--db``), per question recall@k by distinct evidence unit, and paired differences
    (95% bootstrap) of each recipe against the best single signal and best fusion, per split."""
    from anchormem.eval.paired import paired_bootstrap
    from anchormem.retrieval.config import parse_recipe_spec

    mem = Memory(db, embedder=eval_embedder(None), cache=False)
    cfgs = [parse_recipe_spec(r).model_copy(update={"track_access": False}) for r in recipes]
    qs: list[dict] = []
    if dset == "locomo":
        from anchormem.eval.locomo import load_locomo, normalize_evidence

        samples, _ = load_locomo(LOCOMO)
        for si, s_ in enumerate(samples):
            for qa in s_["qa"]:
                ev = normalize_evidence(qa.get("evidence"))
                if ev:
                    qs.append({"user": s_["sample_id"], "q": qa["question"], "gold": ev, "type": str(qa["category"]),
                               "split": "tune" if si < 7 else "heldout"})
        unit = lambda h: h.memory.metadata.get("dia_id")  # noqa: E731
        limit = 50
    else:
        from anchormem.eval.memora import TUNE_PERSONAS, load_memora

        done = set(json.loads(Path(f"{db}.memora.json").read_text())["done"])
        for p in load_memora(MEMORA):
            if p["persona"] in done:
                qs += [{"user": p["persona"], "q": q["question"], "gold": q["gold"], "type": q["task"],
                        "split": "tune" if p["index"] < TUNE_PERSONAS else "heldout"} for q in p["questions"]]
        unit = lambda h: h.memory.metadata.get("memora_session")  # noqa: E731
        limit = 100
    per: dict[str, list[dict]] = {c.name: [] for c in cfgs}
    for i, q in enumerate(qs):
        for c in cfgs:
            hits = mem.search(q["q"], user_id=q["user"], limit=limit, recipe=c)
            ranked = [unit(h) for h in hits]
            per[c.name].append({str(k): unit_recall(ranked, q["gold"], k) for k in ks})
        if i % 200 == 0:
            print(f"  {i}/{len(qs)}", file=sys.stderr, flush=True)
    mem.close()
    res: dict[str, Any] = {"set": dset, "db": db, "questions": len(qs), "recipes": recipes, "tables": {},
                           "paired": {}}
    for part in ("all", "tune", "heldout"):
        idx = [i for i, q in enumerate(qs) if part == "all" or q["split"] == part]
        if not idx:
            continue
        res["tables"][part] = {n: {f"R@{k}": float(np.mean([v[i][str(k)] for i in idx])) for k in ks}
                               for n, v in per.items()}
        for k in (5, 10):
            best = max(per, key=lambda n: res["tables"][part][n][f"R@{k}"])
            for n in per:
                if n != best:
                    res["paired"].setdefault(part, {}).setdefault(f"R@{k}", {})[f"{n} - {best}"] = paired_bootstrap(
                        [per[n][i][str(k)] for i in idx], [per[best][i][str(k)] for i in idx])
    for part, t in res["tables"].items():
        for n, v in t.items():
            print(f"{dset:7s} {part:8s} {n:32s}", "  ".join(f"{m} {100*x:.1f}" for m, x in v.items()))
    for part, ks_ in res["paired"].items():
        for m, d in ks_.items():
            for pair, v in d.items():
                print(f"  {part} {m} {pair}: {100*v['diff']:+.1f} [{100*v['lo']:+.1f}, {100*v['hi']:+.1f}]")
    Path(out).write_text(json.dumps(res, indent=2) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=["dump-locomo", "dump-memora", "replay", "real-locomo", "real-memora"])
    ap.add_argument("--recipes", default="bm25,dense,hybrid_rrf,hybrid_minmax,anchored")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--db")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.cmd == "dump-locomo":
        dump_locomo(a.db, a.out)
    elif a.cmd == "dump-memora":
        dump_memora(a.db, a.out)
    elif a.cmd.startswith("real-"):
        real(a.cmd[5:], a.db, [r for r in a.recipes.split(",") if r], a.out)
    else:
        replay(a.paths, a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
