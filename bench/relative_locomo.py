"""How many changes the relative change reader (anchormem.facts.relative) makes on LoCoMo conversations, where
nobody states a change of their own home, job, amount or habit in the way the currency stories do: each one it makes
is listed (old clause -> new clause) for reading; the target is none that a reader would call a false change.

    nice python bench/relative_locomo.py [--only 1,2] [--out bench/results/relative_locomo.json]

Ingestion as :mod:`anchormem.eval.grounding` (one ``add`` per session), the cached eval embedder.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.grounding import _ingest
from anchormem.eval.change_log import ChangeLog

DATA = str(Path(__file__).resolve().parents[2] / "shared/datasets/locomo/locomo10.json")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--only", default="1,2", help="comma-separated 1-based conversation numbers")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "relative_locomo.json"))
    args = ap.parse_args()
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    only = [int(x) for x in args.only.split(",") if x.strip()]
    log = logging.getLogger("anchormem.facts.relative")
    handler = ChangeLog()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    t0 = time.time()
    report = {"command": "python bench/relative_locomo.py --only " + args.only, "conversations": {}}
    for n in only:
        handler.rows = []
        m = Memory(":memory:", embedder=eval_embedder())
        sessions, turns = _ingest(m, [data[n - 1]], None, 0)
        report["conversations"][str(n)] = {"sessions": sessions, "turns": turns, "changes": len(handler.rows),
                                           "made": list(handler.rows)}
        m.close()
        print(f"conversation {n}: {turns} turns, {len(handler.rows)} changes made")
        for row in handler.rows:
            print("   ", row)
    report["wall_s"] = round(time.time() - t0, 1)
    Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
