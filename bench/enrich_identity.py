"""Deferred enrichment against eager add on LoCoMo conversations: the same turns loaded twice, by
``add_many`` (eager) and by ``add_many(enrich="later")`` then ``Memory.enrich`` (issue #24), into two databases
that ``bench/write_identity.py --by-content`` then compares row by row (memories and claims, ids left out).

    python bench/enrich_identity.py --conversations 0-1 --work /tmp/enrich_id --out bench/results/bulk_enrich_identity.json

One ``add_many`` per session, in order (as ``anchormem import`` does), with the hash embedder (64-d: the write
path's facts do not depend on the embedder; vectors and labels are compared too). Also times both: CPU seconds of
the eager load, of the deferred load and of the enrichment.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared/datasets/locomo/locomo10.json"


def main() -> int:
    from anchormem import Memory
    from anchormem.importers import parse_locomo
    from anchormem.testing import HashEmbedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", default="0-1", help="LoCoMo conversation range, e.g. 0-1 (dev: 0-4)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--out")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.conversations.split("-"))
    data = json.loads(Path(DATA).read_text())[lo:hi + 1]
    batches = parse_locomo(data)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    res: dict = {"command": " ".join(sys.argv), "conversations": args.conversations,
                 "messages": sum(len(m) for _, m in batches)}
    for mode in ("now", "later"):
        db = work / f"{mode}.db"
        for f in work.glob(f"{mode}.db*"):
            f.unlink()
        mem = Memory(str(db), embedder=HashEmbedder(64), llm=None, cache=False)
        c = time.process_time()
        for scope, msgs in batches:
            mem.add_many(msgs, **scope, enrich=mode)
        res[f"load_{mode}_cpu_s"] = round(time.process_time() - c, 2)
        if mode == "later":
            res["pending_after_load"] = mem.pending()
            c = time.process_time()
            res["enrich"] = mem.enrich()
            res["enrich_cpu_s"] = round(time.process_time() - c, 2)
        mem.close()
    p = subprocess.run([sys.executable, str(HERE / "write_identity.py"), str(work / "now.db"), str(work / "later.db"),
                        "--by-content"], capture_output=True, text=True)
    res["identity"] = json.loads(p.stdout)
    res["first_differences"] = p.stderr[-4000:]
    print(json.dumps(res, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
