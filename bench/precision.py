"""False changes on unrelated talk (issue #22, precision): sessions that say no change of the user's own facts are
written into a store, and every SUPERSEDE / REVIEW event (and every change the relative reader makes) is counted
and listed (old text -> new text) for reading.

Stores:
- ``poly_dev``: the polysemy dev cases (``load_cases(sets="dev")``: CoarseWSD English if found, ``polysemy_zh.json``,
  ``polysemy_zh_heldout.json``), every session pooled into one user (as bench/anchor_heldout.py does);
- ``poly_old``: the older polysemy held-out files 2, 3, 4, 6 (en + zh), pooled into one user;
- ``locomo<N>``: LoCoMo conversation N (0-based), ingested as every LoCoMo eval does (``ingest_locomo``: one add per
  session, each turn named by its speaker, one user per conversation).
Any supersede across the polysemy sessions is false (the sessions are unrelated sentences about word senses, pooled);
LoCoMo's are listed to be read (and a seeded sample of 30 is written for judging).

    nice -n 10 python bench/precision.py [--stores poly_dev,poly_old,locomo0,locomo1,locomo2,locomo3]
        [--out bench/results/precision_FILE.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.locomo import ingest_locomo, load_locomo
from anchormem.eval.polysemy import file_cases, load_cases, pooled_history
from anchormem.eval.change_log import ChangeLog

LOCOMO = str(Path(__file__).resolve().parents[2] / "shared/datasets/locomo/locomo10.json")
OLD = [f"polysemy_{lang}_heldout{n}.json" for n in (2, 3, 4, 6) for lang in ("en", "zh")]


def run_store(name: str, handler: ChangeLog) -> dict:
    handler.rows = []
    c0 = time.process_time()
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        add_events: dict[str, int] = {}
        sup: list[dict] = []
        rev: list[dict] = []
        orig_add = mem.add

        def counting_add(*a, **k):  # count the events add returns, by type; list the changes with their turn
            evs = orig_add(*a, **k)
            said = [e.memory.text for e in evs if e.event in ("ADD", "NOOP", "UPDATE")]
            for e in evs:
                add_events[e.event] = add_events.get(e.event, 0) + 1
                if e.event in ("SUPERSEDE", "REVIEW"):
                    row = {"id": e.memory.id, "text": e.memory.text, "previous": e.previous_text,
                           "reason": e.reason, "slot": e.memory.fact.slot if e.memory.fact else None,
                           "kind": e.memory.kind,
                           "turns_added": [t[:200] for t in said][:6],
                           "by": [x.memory.text[:200] for x in evs if x.event == "ADD" and x.memory.fact and
                                  e.memory.fact and x.memory.fact.slot == e.memory.fact.slot][:2]}
                    (sup if e.event == "SUPERSEDE" else rev).append(row)
            return evs

        mem.add = counting_add  # type: ignore[method-assign]
        if name.startswith("poly"):
            cases = load_cases(sets="dev") if name == "poly_dev" else file_cases(OLD)
            owner = pooled_history(mem, cases)
            turns = len(owner)
        else:
            n = int(name.removeprefix("locomo"))
            sample = load_locomo(LOCOMO)[0][n]
            turns, _ = ingest_locomo(mem, [sample])
    ids = [s["id"] for s in sup]
    return {"turns": turns, "add_events": add_events, "supersedes": len(sup),
            "superseded_memories": len(set(ids)), "duplicate_supersedes": len(ids) - len(set(ids)),
            "reviews": len(rev), "relative_changes": len(handler.rows), "cpu_s": round(time.process_time() - c0, 1),
            "supersede_list": sup, "review_list": rev, "relative_list": handler.rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stores", default="poly_dev,poly_old,locomo0,locomo1,locomo2,locomo3")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    log = logging.getLogger("anchormem.facts.relative")
    handler = ChangeLog()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    report: dict = {"command": "python bench/precision.py --stores " + args.stores, "stores": {}}
    for name in args.stores.split(","):
        res = run_store(name, handler)
        report["stores"][name] = res
        print(f"{name}: turns {res['turns']} supersedes {res['supersedes']} (dup {res['duplicate_supersedes']}) "
              f"reviews {res['reviews']} relative {res['relative_changes']} cpu {res['cpu_s']}s", flush=True)
        if args.out:  # (written after each store: a long run keeps what it measured)
            Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    loco = [dict(s, store=n) for n, r in report["stores"].items() if n.startswith("locomo") for s in r["supersede_list"]]
    report["locomo_sample30"] = random.Random(22).sample(loco, min(30, len(loco)))
    report["total_supersedes"] = {n: r["supersedes"] for n, r in report["stores"].items()}
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
