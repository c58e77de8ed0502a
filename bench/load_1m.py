"""Load N memories into one scope through the public bulk path, then reopen and search: the issue #24 scale figures.

    nice -n 10 python bench/load_1m.py --n 100000 --work /tmp/scale1m/w100k --out bench/results/scale1m_100k.json
    nice -n 10 python bench/load_1m.py --n 1000000 --work /tmp/scale1m/w1m --out bench/results/scale1m_1m.json

Data: ``bench/peers/synth.py``'s synthetic chat turns (80% English, 20% Chinese, each unique by its "(note i)")
with its clustered 384-d unit vectors (precomputed once into ``<work>/vectors_<n>.npy``, memory-mapped): no
embedding anywhere in the timed work. The embedder is a lookup of those vectors under a bench name (the context
labeller's domain prototypes, which it embeds once, fall back to the hash embedder).

Phases:

1. ``load`` (this process): :meth:`Memory.add_many` with ``vectors=``, ``--chunk`` messages per call (batches of
   500 inside: one transaction each), the HNSW index maintained as it goes (a scope passes the ANN threshold at
   20k; inserts go to the store's background indexer thread, :mod:`anchormem.stores.vectors`). Per chunk: rows,
   wall and CPU seconds (every thread's), RSS. ``--after-load K``: the first search right after the load and K more,
   timed. Then ``close`` (the vector and keyword indexes saved), timed, and the saved HNSW file's rows and
   generation beside the database's.
   ``--profile FILE``: cProfile of the whole load (slower; for finding costs, not for the figure).
   ``--enrich later``: ``add_many(enrich="later")``, fact extraction deferred (:mod:`anchormem.enrich`).
2. ``reopen`` (a fresh process, as after a restart): ``Memory(...)`` opened, then the first default search (wall
   and CPU, query vector precomputed), then ``--queries`` default searches and as many ``recipe="dense"`` ones:
   p50/p95 wall and CPU ms, and the hit rate (the target memory in the top 10). Peak RSS of that process.
   ``--drain N`` then (another fresh process): ``Memory.enrich("u0", limit=N)`` timed, the deferred enrichment's rate.
3. disk: database (+WAL), ``.kw`` keyword index, ``.vec`` HNSW files, per memory.

``--pg DIR``: the same on PostgreSQL: a pgserver in ``DIR`` (started here, stopped at the end), a fresh database
per run; CPU figures then add the server's processes' CPU (``server_cpu_s``, /proc at the kernel's 10 ms tick,
every backend and autovacuum: :class:`keyword_scale._ServerCPU`), and ``rows_per_cpu_s`` divides by the sum.
A 20k deferred load + drain on each engine (issue #24, the PostgreSQL queue)::

    python bench/load_1m.py --n 20000 --enrich later --phase load --drain 20000 --work /tmp/w --out ...
    python bench/load_1m.py --n 20000 --enrich later --phase load --drain 20000 --pg /tmp/pgdata --work /tmp/w2 ...

CPU time is ``time.process_time`` (all threads of this process). On a loaded machine, wall time is not the
cost: report both. Writes one JSON with every figure (``--out``), and prints progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))

import synth  # noqa: E402

_T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
_NAME = "bench-synth-384"


class _Embedder:
    """Precomputed vectors by text (query vectors registered before the searches); misses: the hash embedder."""

    name = _NAME

    def __init__(self, dim: int = synth.DIM) -> None:
        from anchormem.embedders.hashing import HashEmbedder

        self.dim = dim
        self._hash = HashEmbedder(dim)
        self.queries: dict[str, np.ndarray] = {}

    def embed_documents(self, texts):
        return self._hash.embed_documents(list(texts))

    def embed_query(self, text):
        v = self.queries.get(text)
        return v if v is not None else self._hash.embed_query(text)


_SYL = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]  # 70 syllables


def key_word(i: int) -> str:
    """A pronounceable word unique to ``i`` ("bakime"): the memory's key without a number in its text."""
    out = ""
    while True:
        out = _SYL[i % 70] + out
        i //= 70
        if not i:
            return out


def text(i: int) -> str:
    """synth's chat turn ``i`` with its "(note i)" key spelt as a word ("(ref bakime)"): a number in every turn
    would make every turn an amount for the fact rules (real turns rarely carry one); the tails that say a price
    keep theirs."""
    t = synth.text(i)
    return t.replace(f"(note {i})", f"(ref {key_word(i)})").replace(f"（第{i}条）", f"（编号{key_word(i)}）")


def _rss() -> tuple[float, float]:
    cur = 0.0
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
    return round(cur, 1), round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _log(*a: Any) -> None:
    print(time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def _vectors(work: Path, n: int) -> np.ndarray:
    path = work / f"vectors_{n}.npy"
    if not path.exists():
        tmp = work / f"vectors_{n}.tmp.npy"
        synth.make_vectors(n, path=tmp)
        tmp.rename(path)
    return np.load(path, mmap_mode="r")


def _sizes(db: Path) -> dict[str, int]:
    def size(p: Path) -> int:
        if p.is_dir():
            return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        return p.stat().st_size if p.exists() else 0

    return {"db": size(db), "wal": size(Path(str(db) + "-wal")), "kw": size(Path(str(db) + ".kw")),
            "vec": size(Path(str(db) + ".vec"))}


def _server_cpu(args: argparse.Namespace) -> Any:
    """CPU seconds so far of the PostgreSQL server's processes (``--pg``), else 0."""
    if not args.pg:
        return lambda: 0.0
    from keyword_scale import _ServerCPU

    return _ServerCPU(Path(args.pg))


def _open(args: argparse.Namespace, **kwargs: Any) -> Any:
    from anchormem import Memory

    if args.url:
        return Memory(url=args.url, llm=None, cache=False, **kwargs)
    return Memory(str(Path(args.work) / "load.db"), llm=None, cache=False, **kwargs)


def load(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.work)
    vecs = _vectors(work, args.n)
    server = _server_cpu(args)
    mem = _open(args, embedder=_Embedder())
    done = args.start
    chunks: list[dict[str, Any]] = []
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile(time.process_time)  # CPU time: wall time on a loaded machine is noise
    w0, c0, s0 = time.perf_counter(), time.process_time(), server()
    while done < args.n:
        end = min(args.n, done + args.chunk)
        msgs = [{"role": "user", "content": text(i), "timestamp": _T0 + timedelta(seconds=i)}
                for i in range(done, end)]
        v = np.asarray(vecs[done:end], dtype=np.float32)
        w, c = time.perf_counter(), time.process_time()
        if prof:
            prof.enable()
        got = mem.add_many(msgs, user_id="u0", vectors=v, enrich=args.enrich)
        if prof:
            prof.disable()
        dw, dc = time.perf_counter() - w, time.process_time() - c
        row = {"end": end, "messages": end - done, "added": got.get("ADD", 0), "wall_s": round(dw, 2),
               "cpu_s": round(dc, 2), "rows_per_wall_s": round((end - done) / dw, 1),
               "rows_per_cpu_s": round((end - done) / dc, 1), "rss_mb": _rss()[0]}
        chunks.append(row)
        _log(f"load {end:,}/{args.n:,}: {row['rows_per_wall_s']}/s wall, {row['rows_per_cpu_s']}/s CPU, "
             f"rss {row['rss_mb']} MB, load {os.getloadavg()[0]:.1f}")
        done = end
        if args.stop_at and time.time() > args.stop_at:
            _log("stopping: --stop-at reached")
            break
    load_wall, load_cpu, load_server = time.perf_counter() - w0, time.process_time() - c0, server() - s0
    after = _after_load(args, mem, vecs, done) if args.after_load else None
    w, c = time.perf_counter(), time.process_time()
    mem.close()
    close = {"wall_s": round(time.perf_counter() - w, 2), "cpu_s": round(time.process_time() - c, 2)}
    if not args.pg:
        close["index_files"] = _index_files(work)
    out: dict[str, Any] = {
        "rows": done - args.start, "rows_total": done, "wall_s": round(load_wall, 1),
        "cpu_s": round(load_cpu, 1), "server_cpu_s": round(load_server, 1),
        "rows_per_wall_s": round((done - args.start) / load_wall, 1),
        "rows_per_cpu_s": round((done - args.start) / (load_cpu + load_server), 1), "close": close,
        "peak_rss_mb": _rss()[1], "chunks": chunks}
    if after is not None:
        out["after_load"] = after
    if prof:
        import io
        import pstats

        prof.dump_stats(args.profile + ".prof")
        for key, name in (("cumulative", ""), ("tottime", ".tottime")):
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats(key).print_stats(60)
            Path(args.profile + name).write_text(s.getvalue())
    return out


def _index_files(work: Path) -> list[dict[str, Any]]:
    """The saved HNSW files (``load.db.vec``): size in rows and bytes, and the generation they were saved at
    beside the scope's in the database (equal: a reopen takes the file as it is)."""
    import sqlite3

    out = []
    with sqlite3.connect(work / "load.db") as conn:
        gen = {u: g for u, g in conn.execute("SELECT user_id, generation FROM scope_state")}
    for meta in sorted((work / "load.db.vec").glob("*.json")):
        info = json.loads(meta.read_text())
        out.append({"rows": info.get("size"), "generation": info.get("generation"), "db_generation": gen.get("u0"),
                    "bytes": meta.with_suffix(".usearch").stat().st_size})
    return out


def _after_load(args: argparse.Namespace, mem: Any, vecs: np.ndarray, n: int) -> dict[str, Any]:
    """In the loading process, right after the load (the index possibly still being caught up by the background
    indexer): the first default search, then ``--after-load`` more, timed (wall and CPU ms)."""
    rows, qv = synth.make_queries(vecs, n, args.after_load + 1, seed=n + 1)
    for r, v in zip(rows, qv):
        mem.embedder.queries[r["text"]] = v
    sv = mem.store.vectors._items.get((mem.tenant, "u0")) if getattr(mem.store, "vectors", None) else None
    queued = sv.queued if sv is not None else None
    wall, cpu = [], []
    for r in rows:
        w, c = time.perf_counter(), time.process_time()
        mem.search(r["text"], user_id="u0", limit=10)
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    out = {"queued_at_first": queued, "first_wall_ms": round(wall[0], 2), "first_cpu_ms": round(cpu[0], 2),
           "next_wall_ms": _pct(wall[1:]), "next_cpu_ms": _pct(cpu[1:])}
    _log("after load", out)
    return out


def reopen(args: argparse.Namespace) -> dict[str, Any]:
    """In a fresh process: open, first search, then the timed searches."""
    w0, c0 = time.perf_counter(), time.process_time()
    from anchormem import Memory

    work = Path(args.work)
    n = args.n_loaded or args.n
    vecs = _vectors(work, args.n)
    rows, qv = synth.make_queries(vecs, n, args.queries + 1, seed=n)  # 3 words of the target's text each
    emb = _Embedder()
    for r, v in zip(rows, qv):
        emb.queries[r["text"]] = v
    t_prep = time.perf_counter() - w0
    w1, c1 = time.perf_counter(), time.process_time()
    mem = _open(args, embedder=emb)
    opened = {"wall_s": round(time.perf_counter() - w1, 3), "cpu_s": round(time.process_time() - c1, 3)}
    w2, c2 = time.perf_counter(), time.process_time()
    first_hits = mem.search(rows[0]["text"], user_id="u0", limit=10)
    first = {"wall_s": round(time.perf_counter() - w2, 3), "cpu_s": round(time.process_time() - c2, 3),
             "hits": len(first_hits)}
    first["open_plus_first_wall_s"] = round(opened["wall_s"] + first["wall_s"], 3)
    first["open_plus_first_cpu_s"] = round(opened["cpu_s"] + first["cpu_s"], 3)
    _log(f"reopen: open {opened}, first search {first}")
    out: dict[str, Any] = {"prep_s": round(t_prep, 2), "open": opened, "first_search": first,
                           "loadavg": os.getloadavg()}
    for recipe in (None, "dense"):
        wall, cpu, hit = [], [], 0
        for r in rows[1:]:
            w, c = time.perf_counter(), time.process_time()
            hits = mem.search(r["text"], user_id="u0", limit=10, recipe=recipe)
            wall.append((time.perf_counter() - w) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            key = key_word(r["target"])
            hit += any(f"(ref {key})" in h.memory.text or f"（编号{key}）" in h.memory.text for h in hits)
        name = f"search_{recipe or 'default'}"
        out[name] = {"n": len(wall), "wall_ms": _pct(wall), "cpu_ms": _pct(cpu), "hit_at_10": round(hit / len(wall), 3)}
        _log(name, out[name])
    mem.close()
    out["peak_rss_mb"] = _rss()[1]
    return out


def drain(args: argparse.Namespace) -> dict[str, Any]:
    """In a fresh process: the deferred enrichment of the oldest ``--drain`` pending rows (``Memory.enrich``),
    timed: rows per CPU second and per wall second, what it wrote, and the rows still pending."""
    server = _server_cpu(args)
    mem = _open(args, embedder=_Embedder())
    before = mem.pending("u0")
    w, c, s0 = time.perf_counter(), time.process_time(), server()
    got = mem.enrich("u0", limit=args.drain)
    dw, dc, ds = time.perf_counter() - w, time.process_time() - c, server() - s0
    mem.close()
    n = got["enriched"]
    out = {"pending_before": before, "counts": got, "wall_s": round(dw, 2), "cpu_s": round(dc, 2),
           "server_cpu_s": round(ds, 2), "rows_per_cpu_s": round(n / (dc + ds), 1) if dc + ds else None,
           "rows_per_wall_s": round(n / dw, 1) if dw else None}
    _log("drain", out)
    return out


def _pg_size(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def _pct(ms: list[float]) -> dict[str, float]:
    s = sorted(ms)
    return {"p50": round(s[len(s) // 2], 2), "p95": round(s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))], 2),
            "mean": round(statistics.fmean(s), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--start", type=int, default=0, help="resume a load into an existing --work at this row")
    ap.add_argument("--chunk", type=int, default=20_000, help="messages per add_many call")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out")
    ap.add_argument("--profile")
    ap.add_argument("--phase", choices=("all", "load", "reopen", "drain"), default="all")
    ap.add_argument("--enrich", choices=("now", "later"), default="now",
                    help="add_many(enrich=...): 'later' defers fact extraction to Memory.enrich")
    ap.add_argument("--after-load", type=int, default=0,
                    help="in the loading process, right after the load: the first search and this many more, timed")
    ap.add_argument("--drain", type=int, default=0, help="after reopen: enrich this many pending rows, timed")
    ap.add_argument("--n-loaded", type=int, default=0, help="(reopen) rows actually loaded, when fewer than --n")
    ap.add_argument("--stop-at", type=float, default=0.0, help="unix time: stop loading after the chunk then")
    ap.add_argument("--pg", help="PostgreSQL: a pgserver data directory (a fresh database per run)")
    ap.add_argument("--url", help=argparse.SUPPRESS)  # (the drain phase's database, given by the parent)
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    if args.phase in ("reopen", "drain"):
        print(json.dumps(reopen(args) if args.phase == "reopen" else drain(args)))
        return 0
    import anchormem

    res: dict[str, Any] = {"command": " ".join(sys.argv), "n": args.n, "chunk": args.chunk, "enrich": args.enrich,
                           "engine": "postgres" if args.pg else "sqlite", "anchormem": anchormem.__file__,
                           "started": time.strftime("%Y-%m-%d %H:%M:%S"), "loadavg_start": os.getloadavg(),
                           "cpus": os.cpu_count()}
    pg = None
    if args.pg:
        from client import PgServer

        pg = PgServer(Path(args.pg))
        args.url = pg.database("load")
        res["postgres"] = pg.version
    try:
        return _run(args, res, work)
    finally:
        if pg is not None:
            pg.close()


def _run(args: argparse.Namespace, res: dict[str, Any], work: Path) -> int:
    res["load"] = load(args)
    res["loadavg_after_load"] = os.getloadavg()
    db = work / "load.db"
    if args.phase == "all":
        cmd = [sys.executable, __file__, "--phase", "reopen", "--n", str(args.n), "--work", str(work),
               "--queries", str(args.queries), "--n-loaded", str(res["load"]["rows_total"])] + (
                   ["--pg", args.pg, "--url", args.url] if args.pg else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(p.stderr[-3000:])
        res["reopen"] = json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr[-2000:]}
    if args.drain:
        cmd = [sys.executable, __file__, "--phase", "drain", "--n", str(args.n), "--work", str(work),
               "--drain", str(args.drain)] + (["--pg", args.pg, "--url", args.url] if args.pg else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(p.stderr[-3000:])
        res["drain"] = json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr[-2000:]}
    sizes = _sizes(db) if not args.pg else {"db": _pg_size(args.url)}
    n = res["load"]["rows_total"]
    res["disk_bytes"] = sizes
    res["disk_bytes_per_memory"] = {k: round(v / max(1, n), 1) for k, v in sizes.items()}
    res["disk_bytes_per_memory"]["total"] = round(sum(sizes.values()) / max(1, n), 1)
    res["loadavg_end"] = os.getloadavg()
    text = json.dumps(res, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
