"""Session-aware reorderings of LoCoMo hit lists, simulated offline (how `SearchConfig.session_weight` was chosen).

    # 1. the top-100 hits of every LoCoMo question with the default recipe, session weighting off (~6 min CPU)
    python bench/session_order_sim.py dump --out /tmp/locomo_top100.json
    # 2. reorder those lists: session spread (MMR over sessions), session lift (1 + λ·s) and the product s^w
    python bench/session_order_sim.py sim /tmp/locomo_top100.json > bench/results/session_order_sim.txt

A hit's session is the day it was said (LoCoMo: one session per day, no session_id). Each line: recall@1/5/10 of
dev (conversations 0-5) and held-out (6-9), per category (all, 1 multi-hop, 4 single-hop, 2 temporal,
3 open-domain, 5 adversarial), and the paired R@10 difference from the unchanged lists with a 95% bootstrap
interval (1,000 resamples) for all and multi-hop. The chosen setting was then measured through the search itself:
bench/locomo_paired.py (bench/results/locomo_sessions_paired.json).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import statistics
from pathlib import Path
from anchormem.eval.datasets import dataset_path

DATA = str(dataset_path("locomo/locomo10.json"))
KS = (1, 5, 10)


def dump(out: str, spec: str) -> None:
    from anchormem.eval.embed_cache import eval_embedder
    from anchormem.eval.locomo import ingest_locomo, load_locomo, normalize_evidence
    from anchormem.memory import Memory
    from anchormem.retrieval.config import parse_recipe_spec

    cfg = parse_recipe_spec(spec)
    samples, _ = load_locomo(DATA)
    rows = []
    with Memory(":memory:", embedder=eval_embedder(None)) as mem:
        ingest_locomo(mem, samples)
        for s in samples:
            for qi, qa in enumerate(s["qa"]):
                ev = normalize_evidence(qa.get("evidence"))
                if ev:
                    hits = mem.search(qa["question"], user_id=s["sample_id"], limit=100, recipe=cfg)
                    rows.append({"sample_id": s["sample_id"], "qa_index": qi, "category": int(qa["category"]),
                                 "evidence": ev, "hits": [[h.memory.metadata.get("dia_id"), h.score,
                                                           h.memory.created_at.date().isoformat()] for h in hits]})
    Path(out).write_text(json.dumps({"recipe": spec, "questions": rows}), encoding="utf-8")


def _ranked(hits):
    out = []
    for d, *_ in hits:
        if d is not None and d not in out:
            out.append(d)
    return out


def spread(hits, decay, top=10):
    pool, rest, out, seen = list(hits[:top * 3]), hits[top * 3:], [], collections.Counter()
    while pool and len(out) < top:
        j = max(range(len(pool)), key=lambda i: pool[i][1] * decay ** seen[pool[i][2]])
        h = pool.pop(j)
        out.append(h)
        seen[h[2]] += 1
    return out + pool + rest


def _session_best(hits):
    top = hits[0][1] or 1.0
    best: dict[str, float] = {}
    for h in hits:
        best[h[2]] = max(best.get(h[2], 0.0), h[1] / top)
    return best


def lift(hits, lam):
    if not hits:
        return hits
    s = _session_best(hits)
    return sorted(hits, key=lambda h: -h[1] * (1 + lam * s[h[2]]))


def product(hits, w):
    if not hits:
        return hits
    s = _session_best(hits)
    return sorted(hits, key=lambda h: -h[1] * s[h[2]] ** w)


def simulate(path: str) -> None:
    qs = json.loads(Path(path).read_text(encoding="utf-8"))["questions"]
    dev = set(list(dict.fromkeys(q["sample_id"] for q in qs))[:6])

    def evaluate(fn):
        res = {}
        for q in qs:
            ids = _ranked(fn(q["hits"]))
            res[(q["sample_id"], q["qa_index"])] = (q["category"], q["sample_id"] in dev,
                                                    [len(set(q["evidence"]) & set(ids[:k])) / len(q["evidence"])
                                                     for k in KS])
        return res

    def summary(res, base):
        out = []
        for part in ("dev", "held"):
            cells = []
            for cat in ("all", 1, 4, 2, 3, 5):
                keys = [k for k, v in res.items() if v[1] == (part == "dev") and (cat == "all" or v[0] == cat)]
                cell = f"{cat}: " + "/".join(f"{100 * statistics.mean(res[k][2][i] for k in keys):.1f}"
                                             for i in range(3))
                d = [100 * (res[k][2][2] - base[k][2][2]) for k in keys]
                cell += f" d10 {statistics.mean(d):+.2f}"
                if cat in ("all", 1):
                    rng, m = random.Random(0), len(d)
                    bs = sorted(sum(d[rng.randrange(m)] for _ in range(m)) / m for _ in range(1000))
                    cell += f" [{bs[25]:+.1f}, {bs[974]:+.1f}]"
                cells.append(cell)
            out.append(f"  {part}: " + " | ".join(cells))
        return "\n".join(out)

    base = evaluate(lambda h: h)
    print("unchanged\n" + summary(base, base))
    for cat in (1, 3):  # where the missed evidence of the unchanged lists is
        sel = [q for q in qs if q["category"] == cat]
        ranks, in_top_session = collections.Counter(), []
        for q in sel:
            ids = _ranked(q["hits"])
            top = {d.split(":")[0] for d in ids[:10]}
            for e in q["evidence"]:
                if e not in ids[:10]:
                    r = ids.index(e) + 1 if e in ids else 0
                    ranks["11-25" if 0 < r <= 25 else "26-100" if r else "not in top 100"] += 1
                    in_top_session.append(e.split(":")[0] in top)
        r100 = 100 * statistics.mean(len(set(q["evidence"]) & set(_ranked(q["hits"]))) / len(q["evidence"])
                                     for q in sel)
        print(f"category {cat}: evidence missed at 10: {sum(ranks.values())} ({dict(ranks)}), in a session of the "
              f"top 10: {100 * statistics.mean(in_top_session):.0f}%; R@100 {r100:.1f}")
    for d in (0.9, 0.8, 0.7, 0.5):
        print(f"spread decay={d}\n" + summary(evaluate(lambda h: spread(h, d)), base))
    for lam in (0.2, 0.4, 0.8, 1.5, 5.0, 20.0):
        print(f"lift lambda={lam}\n" + summary(evaluate(lambda h: lift(h, lam)), base))
    for w in (0.5, 1.0, 2.0):
        print(f"product s^{w}\n" + summary(evaluate(lambda h: product(h, w)), base))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--out", required=True)
    d.add_argument("--recipe", default="anchored+session_weight=0")
    s = sub.add_parser("sim")
    s.add_argument("dump")
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.out, args.recipe)
    else:
        simulate(args.dump)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
