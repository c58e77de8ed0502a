"""Reopen + first search on a large scope after writes (the HNSW index kept across reopens), SQLite.

    python bench/keyword_scale.py --backend sqlite --sizes 100000        # builds the 100k snapshot first
    python bench/ann_reopen.py --n 100000 --writes 2000 --out bench/results/ann_reopen.json

Works on a copy of bench/keyword_scale.py's snapshot of ``--n`` memories (one user, synthetic vectors, its saved
HNSW index). Three phases, each a fresh ``Memory`` (a fresh vector cache, as a new process has):

1. ``writes_elsewhere``: ``--writes`` memories added through the store layer by a ``Memory`` that never searched
   (so its process has no index to maintain: the saved file falls behind the database);
2. ``reopen``: open, then the first default search (query vector precomputed) and the next ones: wall and CPU
   seconds; the saved index is restored and caught up with the rows written in phase 1 instead of rebuilt;
3. ``load_while_open``: in the same ``Memory``, ``--writes`` more memories (the index maintained on each write),
   then the first search after that load and the next ones; then close (the index is saved) and ``reopen_clean``:
   open + first search with nothing to catch up.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

import keyword_scale as ks  # noqa: E402
import synth  # noqa: E402


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(t: tuple[float, float]) -> dict[str, float]:
    return {"wall_s": time.perf_counter() - t[0], "cpu_s": time.process_time() - t[1]}


def _searches(mem, emb, qs, qv, n: int) -> list[dict[str, float]]:
    out = []
    for q, v in list(zip(qs, qv))[:n]:
        emb.table[q["text"].strip()] = v
        mem._searcher._qcache.clear()  # noqa: SLF001
        t = _clock()
        mem.search(q["text"], user_id="u0", limit=10)
        out.append(_since(t))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--writes", type=int, default=2000)
    ap.add_argument("--work", default=str(HERE / ".cache" / "keyword_scale"))
    ap.add_argument("--out", default=str(HERE / "results" / "ann_reopen.json"))
    args = ap.parse_args()

    import anchormem
    from anchormem import Memory

    src = Path(args.work) / f"sqlite_{args.n}"
    if not (src / "anchormem.db").exists():
        raise SystemExit(f"no snapshot at {src}: run bench/keyword_scale.py --sizes {args.n} first")
    dst = Path(args.work) / f"reopen_{args.n}"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    db = str(dst / "anchormem.db")
    total = args.n + 2 * args.writes
    base = np.load(Path(args.work) / f"vectors_{args.n}.npy", mmap_mode="r")  # the snapshot's vectors
    vectors = np.concatenate([np.asarray(base[: args.n]), synth.make_vectors(total - args.n, seed=99)])
    qs, qv = synth.make_queries(vectors, args.n, 12, seed=args.n + 1)
    emb = ks._Lookup()
    out: dict = {"n": args.n, "writes": args.writes, "anchormem": anchormem.__file__}

    mem = Memory(db, embedder=emb, llm=None, cache=False)
    t = _clock()
    ks._load(mem, vectors, args.n, args.n + args.writes)
    out["writes_elsewhere"] = _since(t)
    mem.close()

    t = _clock()
    mem = Memory(db, embedder=emb, llm=None, cache=False)
    out["open"] = _since(t)
    s = _searches(mem, emb, qs, qv, 6)
    out["reopen"] = {"first_search": s[0], "next_search_cpu_s_median": float(np.median([x["cpu_s"] for x in s[1:]])),
                     "next_search_wall_s_median": float(np.median([x["wall_s"] for x in s[1:]]))}
    t = _clock()
    ks._load(mem, vectors, args.n + args.writes, total)
    out["load_while_open"] = {"writes": _since(t)}
    s = _searches(mem, emb, qs[6:], qv[6:], 6)
    out["load_while_open"].update({"first_search": s[0], "next_search_cpu_s_median": float(np.median(
        [x["cpu_s"] for x in s[1:]]))})
    t = _clock()
    mem.close()
    out["close_with_save"] = _since(t)

    t = _clock()
    mem = Memory(db, embedder=emb, llm=None, cache=False)
    s = _searches(mem, emb, qs, qv, 1)
    out["reopen_clean"] = {"open_plus_first_search": _since(t), "first_search": s[0]}
    mem.close()
    shutil.rmtree(dst, ignore_errors=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
