"""Same hits before and after a change to the read path: LoCoMo questions searched by two source trees on one store.

    python bench/search_identity.py ingest --db /tmp/ident/locomo.db [--conversations 2]   # once (any tree)
    PYTHONPATH=<old>/src python bench/search_identity.py run --db /tmp/ident/locomo.db --out /tmp/ident/old.json
    PYTHONPATH=src       python bench/search_identity.py run --db /tmp/ident/locomo.db --out /tmp/ident/new.json
    python bench/search_identity.py compare /tmp/ident/old.json /tmp/ident/new.json   # exit 1 on any difference

``ingest``: the first ``--conversations`` LoCoMo samples stored as every LoCoMo eval stores them
(:func:`anchormem.eval.locomo.ingest_locomo`; the eval embedder, so ``ANCHORMEM_EVAL_EMBED_CACHE`` serves the
vectors). ``run``: a private copy of that store, the clock frozen (recency and the access counts every search
writes are then the same in both runs), and every question searched with each ``--recipes`` entry (default: the
default recipe, ``hybrid_rrf``, ``dense``, ``bm25``) at limit 10 and 50, and once more with the default recipe and
a conversation (the 3 turns said before the question's first evidence turn: the anchored path with context
vectors). Per search it records the ids in order, the scores and a digest of each whole hit (the memory's fields,
entities and claims included, and ``explain``). ``compare`` reports how many searches have the same ids in the same
order, the same scores and the same whole hits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from anchormem.eval.datasets import dataset_path

DATA = str(dataset_path("locomo/locomo10.json"))


def _digest(hit: Any) -> str:
    d = {"memory": hit.memory.model_dump(mode="json"), "explain": hit.explain, "score": hit.score}
    return hashlib.sha1(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


def ingest(args: argparse.Namespace) -> int:
    from anchormem import Memory
    from anchormem.eval.embed_cache import eval_embedder
    from anchormem.eval.locomo import ingest_locomo, load_locomo

    samples, _ = load_locomo(args.data, conversations=args.conversations)
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    mem = Memory(args.db, embedder=eval_embedder(None))
    t0 = time.perf_counter()
    turns, added = ingest_locomo(mem, samples)
    mem.close()
    print(f"{turns} turns, {added} memories in {time.perf_counter() - t0:.0f} s -> {args.db}")
    return 0


def _questions(data: str, conversations: int) -> list[dict[str, Any]]:
    from anchormem.eval.locomo import _sessions, _turn_text, load_locomo, normalize_evidence

    samples, _ = load_locomo(data, conversations=conversations)
    out = []
    for s in samples:
        turns = [(t["dia_id"], _turn_text(t), t.get("speaker")) for _n, _w, ts in _sessions(s["conversation"])
                 for t in ts if _turn_text(t)]
        pos = {d: i for i, (d, _, _) in enumerate(turns)}
        for qa in s["qa"]:
            ev = [e for e in normalize_evidence(qa.get("evidence")) if e in pos]
            first = min((pos[e] for e in ev), default=None)
            ctx = [{"role": "user", "content": t, "name": sp} for _, t, sp in turns[max(0, first - 3):first]] \
                if first else []
            out.append({"user": s["sample_id"], "question": qa["question"], "context": ctx})
    return out


def run(args: argparse.Namespace) -> int:
    import anchormem
    import anchormem.memory as memory_mod
    from anchormem import Memory
    from anchormem.eval.embed_cache import eval_embedder

    frozen = datetime(2025, 6, 1, tzinfo=timezone.utc)
    memory_mod.utcnow = lambda: frozen  # type: ignore[attr-defined]
    tmp = Path(tempfile.mkdtemp(prefix="search_identity_"))
    for f in Path(args.db).parent.glob(Path(args.db).name + "*"):
        shutil.copy(f, tmp / f.name)
    mem = Memory(str(tmp / Path(args.db).name), embedder=eval_embedder(None))
    qs = _questions(args.data, args.conversations)
    recipes = [None if r == "default" else r for r in args.recipes.split(",")]
    records: list[dict[str, Any]] = []
    cpu = 0.0
    for i, q in enumerate(qs):
        calls = [(r, lim, None) for r in recipes for lim in (10, 50)] + [(None, 10, q["context"] or None)]
        for r, lim, ctx in calls:
            t0 = time.process_time()
            hits = mem.search(q["question"], user_id=q["user"], limit=lim, recipe=r, context=ctx)
            cpu += time.process_time() - t0
            records.append({"q": i, "recipe": r or "default", "limit": lim, "context": ctx is not None,
                            "ids": [h.memory.id for h in hits], "scores": [h.score for h in hits],
                            "digest": [_digest(h) for h in hits]})
    mem.close()
    shutil.rmtree(tmp, ignore_errors=True)
    Path(args.out).write_text(json.dumps({"anchormem": anchormem.__file__, "questions": len(qs),
                                          "searches": len(records), "search_cpu_s": cpu, "records": records}) + "\n",
                              encoding="utf-8")
    print(f"{len(qs)} questions, {len(records)} searches, {cpu:.1f} CPU s -> {args.out}")
    return 0


def compare(args: argparse.Namespace) -> int:
    a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (args.old, args.new))
    ra, rb = a["records"], b["records"]
    if len(ra) != len(rb):
        print(f"different searches: {len(ra)} vs {len(rb)}")
        return 1
    same_ids = sum(x["ids"] == y["ids"] for x, y in zip(ra, rb))
    same_scores = sum(x["ids"] == y["ids"] and x["scores"] == y["scores"] for x, y in zip(ra, rb))
    same_hits = sum(x["digest"] == y["digest"] for x, y in zip(ra, rb))
    print(f"{len(ra)} searches ({a['questions']} questions): same ids and order {same_ids}, same scores "
          f"{same_scores}, same whole hits {same_hits}; CPU {a['search_cpu_s']:.1f} s -> {b['search_cpu_s']:.1f} s")
    diff = [(x["q"], x["recipe"], x["limit"], x["context"]) for x, y in zip(ra, rb) if x["digest"] != y["digest"]]
    for d in diff[:10]:
        print("  differs:", d)
    return 0 if same_hits == len(ra) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("ingest")
    p.add_argument("--db", required=True)
    p.add_argument("--data", default=DATA)
    p.add_argument("--conversations", type=int, default=2)
    p = sub.add_parser("run")
    p.add_argument("--db", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--data", default=DATA)
    p.add_argument("--conversations", type=int, default=2)
    p.add_argument("--recipes", default="default,hybrid_rrf,dense,bm25")
    p = sub.add_parser("compare")
    p.add_argument("old")
    p.add_argument("new")
    args = ap.parse_args()
    return {"ingest": ingest, "run": run, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
