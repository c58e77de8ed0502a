"""The first ``add`` of a process (what every CLI call pays): CPU seconds of import, open and the first and second
``add``, in fresh processes, trees and cache settings interleaved round by round (issue #24).

    nice -n 10 python bench/first_add.py --tree old=/tmp/base/src --tree new=src --rounds 5 \
        [--out bench/results/ingest_first_add.json]

Each round runs, for each tree, one process with the cache folder off (``ANCHORMEM_CACHE_DIR=""``: everything
derived) and one with a warm cache folder (a first process fills it, untimed). The store is in memory, the
embedder the hash one (no model load): what is measured is the write path's own start-up (dictionaries, the fact
readers' patterns and trigger prefilter, lemminflect, jieba). Reports each run and the median per (tree, cache).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import json, time
c0 = time.process_time()
from anchormem import Memory
from anchormem.embedders.hashing import HashEmbedder
c1 = time.process_time()
m = Memory(":memory:", embedder=HashEmbedder(384), llm=None, cache=False)
c2 = time.process_time()
m.add("I moved to Berlin last month and I work at Siemens as a nurse. 我住在成都，在一家银行做柜员。", user_id="u")
c3 = time.process_time()
m.add("My daughter Mia turned seven.", user_id="u")
c4 = time.process_time()
print(json.dumps({"import": c1 - c0, "open": c2 - c1, "first_add": c3 - c2, "second_add": c4 - c3,
                  "total": c4 - c0}))
"""


def _run(src: str, cache: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src, "ANCHORMEM_CACHE_DIR": cache, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
    return {k: round(v, 3) for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=SRC_DIR (repeatable)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    trees = [t.split("=", 1) for t in args.tree]
    runs: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        warm = {name: str(Path(tmp) / name) for name, _ in trees}
        for name, src in trees:
            _run(str(Path(src).resolve()), warm[name])  # fills the cache folder
        for r in range(args.rounds):
            order = [(n, s, c) for n, s in trees for c in ("off", "warm")]
            order = order[r % len(order):] + order[:r % len(order)]  # rotated each round
            for name, src, cache in order:
                got = _run(str(Path(src).resolve()), "" if cache == "off" else warm[name])
                runs.append({"round": r, "tree": name, "cache": cache, **got})
                print(name, cache, got, file=sys.stderr, flush=True)
    med: dict[str, dict[str, float]] = {}
    for name, _ in trees:
        for cache in ("off", "warm"):
            rows = [x for x in runs if x["tree"] == name and x["cache"] == cache]
            med[f"{name}/{cache}"] = {k: round(statistics.median(x[k] for x in rows), 3)
                                      for k in ("import", "open", "first_add", "second_add", "total")}
    res = {"command": " ".join(sys.argv), "when": time.strftime("%Y-%m-%d %H:%M:%S"), "loadavg": os.getloadavg(),
           "trees": dict(trees), "median_cpu_s": med, "runs": runs}
    print(json.dumps(med, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
