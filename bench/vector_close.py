"""What a close costs after N writes to a scope past the ANN threshold, and what the next open and first search
cost: two source trees side by side (the before/after of the saved index's delta, stores/vector_delta.py).

    python bench/vector_close.py --work /work/wt/ks --n 100000 --writes 100,1000 --rounds 2 \
        --src base=/work/main/src --src new=src [--out bench/results/vector_close.json]

Per round, size of writes and tree (the trees alternated, their order rotated round by round), one worker process
(``PYTHONPATH`` = that tree, one BLAS thread): the snapshot ``<work>/sqlite_<n>`` (one user's n memories and its
saved HNSW index, as bench/keyword_scale.py leaves it) is copied to a private folder and opened, one search
restores the index, ``add_many`` writes N new memories (precomputed vectors, ``enrich="later"``), 10 queries are
searched (dense recipe; ``--recipe default``: the default one, which loads the keyword index, so the close saves
that too), then ``close`` is timed: wall and CPU seconds and the bytes the process wrote (``/proc/self/io``
``wchar``: every file, the SQLite checkpoint included), whether the ``.kw`` file was rewritten (``kw_saved``); the
``.vec`` folder's size after it.
Then a second ``Memory`` on the same file: open + first search timed (wall, CPU), the 10 queries again: ``same``
says whether each query's ids are those before the close. The index files are the base's when unchanged."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _wchar() -> int:
    with open("/proc/self/io") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("wchar:"))


def worker(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE / "peers"))
    import numpy as np

    import keyword_scale
    from anchormem import Memory

    tmp = Path(tempfile.mkdtemp(prefix="vector_close_"))
    shutil.copytree(Path(args.work) / f"sqlite_{args.n}", tmp / "db")
    path = str(tmp / "db" / "anchormem.db")
    emb = keyword_scale._Lookup()  # noqa: SLF001
    rng = np.random.default_rng(7)
    qv = rng.standard_normal((10, emb.dim)).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    for i, v in enumerate(qv):
        emb.table[f"probe query {i}"] = v
    mem = Memory(path, embedder=emb, llm=None, cache=False)
    args.recipe = None if args.recipe == "default" else args.recipe  # (the store's default recipe)
    mem.search("probe query 0", user_id="u0", limit=10, recipe=args.recipe)
    vecs = rng.standard_normal((args.writes, emb.dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    mem.add_many([f"a new note {i} about the probe" for i in range(args.writes)], user_id="u0", vectors=vecs,
                 enrich="later")
    before = [[h.memory.id for h in mem.search(f"probe query {i}", user_id="u0", limit=10, recipe=args.recipe)]
              for i in range(10)]
    kw = Path(path + ".kw")
    kw_at = kw.stat().st_mtime_ns if kw.exists() else None
    w0, c0, b0 = time.perf_counter(), time.process_time(), _wchar()
    mem.close()
    close = {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0, "wrote_mb": (_wchar() - b0) / 1e6,
             "kw_saved": kw.exists() and kw.stat().st_mtime_ns != kw_at}
    vec = Path(path + ".vec")
    close["vec_files"] = {p.name.split(".", 1)[1]: p.stat().st_size for p in vec.iterdir()}
    w0, c0 = time.perf_counter(), time.process_time()
    mem = Memory(path, embedder=emb, llm=None, cache=False)
    first = [h.memory.id for h in mem.search("probe query 0", user_id="u0", limit=10, recipe=args.recipe)]
    reopen = {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0}
    after = [first] + [[h.memory.id for h in mem.search(f"probe query {i}", user_id="u0", limit=10,
                                                           recipe=args.recipe)] for i in range(1, 10)]
    reopen["same"] = sum(a == b for a, b in zip(after, before))
    mem.close()
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps({"close": close, "reopen": reopen}))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--writes", default="100,1000")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--src", action="append", required=True)
    ap.add_argument("--out")
    ap.add_argument("--recipe", default="dense", help="the searches' recipe ('default' loads the keyword index, "
                                                      "so the close saves it too)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args()
    if args.worker:
        args.writes = int(args.writes)
        return worker(args)
    srcs = [tuple(s.split("=", 1)) for s in args.src]
    res = {"command": " ".join(sys.argv), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
           "n": args.n, "srcs": dict(srcs), "load_avg_start": os.getloadavg(), "runs": {}}
    for w in [int(x) for x in args.writes.split(",")]:
        for r in range(args.rounds):
            order = srcs[r % len(srcs):] + srcs[:r % len(srcs)]
            for label, path in order:
                env = {**os.environ, "PYTHONPATH": str(Path(path).resolve()), "OMP_NUM_THREADS": "1"}
                p = subprocess.run([sys.executable, __file__, "--worker", "--work", args.work, "--n", str(args.n),
                                    "--writes", str(w), "--src", "x=x",
                                    "--recipe", args.recipe], env=env, capture_output=True, text=True)
                got = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr[-2000:]}
                res["runs"].setdefault(f"{w}", {}).setdefault(label, []).append(got)
                print(w, label, json.dumps(got), flush=True)
    res["load_avg_end"] = os.getloadavg()
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
