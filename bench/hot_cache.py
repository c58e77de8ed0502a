"""Hot cache: repeated-query latency with and without the cache, on the default embedder (multilingual-e5-small).

One LoCoMo conversation is stored for one user; its first ``--queries`` questions are each searched ``--repeat``
times (the first search of a question is a miss, the others hits). Measured per configuration:

- ``off``: no cache (``Memory(cache=False)``): every search runs the full pipeline (the query embedding is still
  kept in the searcher's own small LRU, so a repeat skips only the model).
- ``memory``: the in-process LRU (the default).
- ``redis``: the Redis backend at ``--redis`` (skipped with a note when unreachable).

The configurations run interleaved, question by question, on one shared model. ``first`` is a miss (embedding
plus pipeline, plus the cache's generation read and put); ``repeat`` a hit. Also ``get`` by id (its third read).

    python bench/hot_cache.py [--queries 30] [--repeat 5] [--out bench/results/hot_cache.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import summary  # noqa: E402 - bench/timing.py
from anchormem.eval.datasets import dataset_path

DATA = str(dataset_path("locomo/locomo10.json"))


def load(path: str, limit_sessions: int) -> tuple[list[list[dict]], list[str]]:
    conv = json.loads(Path(path).read_text(encoding="utf-8"))[0]
    c = conv["conversation"]
    sessions = []
    for i in range(1, 100):
        turns = c.get(f"session_{i}")
        if not turns or len(sessions) >= limit_sessions:
            break
        when = c.get(f"session_{i}_date_time")
        sessions.append(([{"role": "user", "content": t["text"], "name": t["speaker"]} for t in turns if t.get("text")],
                         when))
    questions = [q["question"] for q in conv["qa"] if q.get("question")]
    return sessions, questions


def run(mems: dict, questions: list[str], repeat: int) -> dict:
    """Interleaved: for each question, each configuration in turn (so machine load hits them alike)."""
    times = {name: ([], []) for name in mems}
    for q in questions:
        for name, mem in mems.items():
            for r in range(repeat):
                t = time.perf_counter()
                mem.search(q, user_id="u", limit=10)
                times[name][0 if r == 0 else 1].append((time.perf_counter() - t) * 1000)
    return {name: {"first": summary(a), "repeat": summary(b)} for name, (a, b) in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--redis", default=os.environ.get("ANCHORMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "hot_cache.json"))
    args = ap.parse_args()

    from anchormem import Memory
    from anchormem.embedders import make_embedder
    from anchormem.hotcache import HotCache, RedisBackend, make_cache

    sessions, questions = load(args.data, args.sessions)
    questions = questions[: args.queries]
    emb = make_embedder("e5-small")
    tmp = tempfile.mkdtemp(prefix="anchormem-hotcache-")
    path = os.path.join(tmp, "m.db")
    t0 = time.time()
    with Memory(path, embedder=emb, cache=False) as mem:
        for turns, when in sessions:
            mem.add(turns, user_id="u", session_id=str(when), timestamp=None)
        n = len(mem.get_all(user_id="u"))
    print(f"stored {n} memories in {time.time() - t0:.0f} s", file=sys.stderr)

    results: dict = {"embedder": emb.name, "memories": n, "queries": len(questions), "repeat": args.repeat,
                     "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "load_avg_1m_at_start": round(os.getloadavg()[0], 2)}, "configs": {}}
    configs: list[tuple[str, object]] = [("off", False), ("memory", make_cache(None))]
    prefix = f"anchormem-bench-{uuid.uuid4().hex}"
    redis_backend = None
    try:
        redis_backend = RedisBackend(args.redis)
        redis_backend.ping()
        configs.append(("redis", HotCache(redis_backend, prefix=prefix)))
    except Exception as exc:  # noqa: BLE001 - a benchmark note, not a failure
        results["redis_skipped"] = f"{type(exc).__name__}: {exc}"
        redis_backend = None
    mems = {name: Memory(path, embedder=emb, cache=cache) for name, cache in configs}
    try:
        for mem in mems.values():
            mem.search("warm up the model", user_id="u")
        results["configs"] = run(mems, questions, args.repeat)
        ids = [m.id for m in mems["off"].get_all(user_id="u", limit=50)]
        for name, mem in mems.items():
            gets = []
            for _ in range(3):
                for i in ids:
                    t = time.perf_counter()
                    mem.get(i)
                    gets.append((time.perf_counter() - t) * 1000)
            res = results["configs"][name]
            res["get_third_read"] = summary(gets[2 * len(ids):])
            res["stats"] = {k: v for k, v in mem.stats.items() if k.startswith("cache_")}
            print(f"{name:7s} first p50 {res['first']['p50_ms']:8.2f} ms   repeat p50 {res['repeat']['p50_ms']:8.3f} ms"
                  f"   get p50 {res['get_third_read']['p50_ms']:.3f} ms", file=sys.stderr)
    finally:
        for mem in mems.values():
            mem.close()
    off = results["configs"]["off"]["repeat"]["p50_ms"]
    results["speedup_repeat_p50"] = {k: round(off / v["repeat"]["p50_ms"], 1)
                                     for k, v in results["configs"].items() if k != "off"}
    if redis_backend is not None:
        redis_backend.delete_prefix(prefix + ":")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(json.dumps(results["speedup_repeat_p50"]), f"written {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
