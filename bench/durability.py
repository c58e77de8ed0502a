"""Durability cost: adds per second and CPU time per add, ``durability="full"`` (the default: SQLite WAL with
``synchronous=FULL``, the WAL fsync-ed at every commit) against ``"normal"`` (``synchronous=NORMAL``).

Two workloads, each on its own fresh database file per mode, in a folder on the disk (``--dir``, default a
temporary folder under ``bench/``: not /tmp, which may be a RAM file system where fsync costs nothing):

- ``memory_add``: ``Memory.add`` of one short message (hash embedder, no LLM: the storage cost is not hidden by
  the model; with the default e5 embedder an add spends several milliseconds more in the model either way);
- ``store_write``: the store's bare write transaction (one message and one memory row with its vector,
  keyword index and history), the commit cost with nothing around it.

Rounds interleave the modes (full then normal, then normal then full, ...) so load on a shared machine falls on
both. Reported per mode: adds per second (median of the rounds' rates), latency p50/p95, and process CPU
seconds per 1,000 adds (fsync waits are wall time, not CPU). With ``--pg URL`` (or ``--pgserver``: a temporary
local server with its default settings): the same ``memory_add`` on PostgreSQL, ``synchronous_commit`` as the
server has it (``full``) vs ``off`` (``normal``).

    nice -n 10 python bench/durability.py [--rounds 6] [--adds 150] [--pgserver] [--out bench/results/durability.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import summary  # noqa: E402 - bench/timing.py

MODES = ("full", "normal")


def run_memory_add(mem, n: int, tag: str) -> tuple[list[float], float]:
    """``n`` adds of distinct short messages; returns (latencies ms, process CPU seconds)."""
    lat = []
    c0 = time.process_time()
    for i in range(n):
        t = time.perf_counter()
        mem.add(f"{tag} note {i}: the plumber comes on Tuesday {i} at {i % 12 + 1} pm.", user_id=f"u{i % 4}")
        lat.append((time.perf_counter() - t) * 1000)
    return lat, time.process_time() - c0


def run_store_write(store, embed, n: int, tag: str) -> tuple[list[float], float]:
    """``n`` bare write transactions (one message + one memory each)."""
    import uuid

    from anchormem.ingest.classify import memory_hash
    from anchormem.stores.protocol import NewMemory, StoredMessage
    from anchormem.timeutil import utcnow
    from anchormem.types import MemoryItem, Scope

    lat = []
    c0 = time.process_time()
    for i in range(n):
        text = f"{tag} bare note {i}: the plumber comes on Tuesday {i}."
        scope = Scope(tenant="default", user_id=f"u{i % 4}")
        now = utcnow()
        msg = StoredMessage(id=uuid.uuid4().hex, scope=scope, role="user", content=text, ts=now)
        item = MemoryItem(id=uuid.uuid4().hex, text=text, user_id=scope.user_id, created_at=now, valid_from=now,
                          source_message_ids=[msg.id], source_text=text)
        new = NewMemory(item=item, vector=embed(text), content_hash=memory_hash(item), index_text=text)
        t = time.perf_counter()
        store.write([msg], [new], actor="bench")
        lat.append((time.perf_counter() - t) * 1000)
    return lat, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--adds", type=int, default=150, help="adds per mode per round and workload")
    ap.add_argument("--dir", default=None, help="folder for the database files (default: under bench/)")
    ap.add_argument("--pg", default=None, help="also measure PostgreSQL at this URL")
    ap.add_argument("--pgserver", action="store_true", help="also measure PostgreSQL on a temporary pgserver "
                    "(its default settings: fsync and synchronous_commit on), in a folder under bench/")
    ap.add_argument("--out", default="bench/results/durability.json")
    args = ap.parse_args()

    from anchormem import Memory
    from anchormem.stores.sqlite import SQLiteStore
    from anchormem.testing import DeterministicEmbedder

    emb = DeterministicEmbedder(64)
    root = Path(args.dir or tempfile.mkdtemp(prefix=".durability-", dir=Path(__file__).resolve().parent))
    root.mkdir(parents=True, exist_ok=True)
    mems = {m: Memory(str(root / f"add-{m}.db"), embedder=emb, llm=None, cache=False, durability=m) for m in MODES}
    stores = {m: SQLiteStore(str(root / f"write-{m}.db"), durability=m) for m in MODES}
    for s in stores.values():
        s.check_embedder(emb.name, emb.dim)
    pg, srv, pgdir = {}, None, None
    if args.pgserver and not args.pg:
        import pgserver
        import psycopg

        pgdir = tempfile.mkdtemp(prefix=".durability-pg-", dir=Path(__file__).resolve().parent)
        srv = pgserver.get_server(pgdir, cleanup_mode="stop")
        with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE DATABASE bench")
            pg_settings = dict(conn.execute("SELECT name, setting FROM pg_settings WHERE name IN "
                                            "('fsync', 'synchronous_commit', 'wal_sync_method')").fetchall())
        args.pg = srv.get_uri(database="bench")
    if args.pg:
        pg = {m: Memory(url=args.pg, embedder=emb, llm=None, cache=False, durability=m) for m in MODES}
    for m in MODES:  # warm-up (jieba, labeller): not measured
        run_memory_add(mems[m], 5, f"warm-{m}")
        run_store_write(stores[m], lambda t: emb.embed_documents([t])[0], 5, f"warm-{m}")
    res: dict[str, dict[str, dict]] = {w: {m: {"lat": [], "cpu": 0.0, "rates": []} for m in MODES}
                                        for w in ("memory_add", "store_write", *(["pg_memory_add"] if pg else []))}
    t_start = time.perf_counter()
    for r in range(args.rounds):
        order = MODES if r % 2 == 0 else MODES[::-1]
        for m in order:
            jobs = [("memory_add", lambda: run_memory_add(mems[m], args.adds, f"r{r}-{m}")),
                    ("store_write", lambda: run_store_write(stores[m], lambda t: emb.embed_documents([t])[0],
                                                            args.adds, f"r{r}-{m}"))]
            if pg:
                jobs.append(("pg_memory_add", lambda: run_memory_add(pg[m], args.adds, f"pg-r{r}-{m}")))
            for name, job in jobs:
                w0 = time.perf_counter()
                lat, cpu = job()
                wall = time.perf_counter() - w0
                slot = res[name][m]
                slot["lat"] += lat
                slot["cpu"] += cpu
                slot["rates"].append(args.adds / wall)
    elapsed = time.perf_counter() - t_start
    out: dict = {
        "command": "nice -n 10 python bench/durability.py " + " ".join(sys.argv[1:]),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load_avg": os.getloadavg(),
                    "sqlite": __import__("sqlite3").sqlite_version, "filesystem_dir": str(root)},
        "postgres_server_settings": pg_settings if srv is not None else None,
        "rounds": args.rounds, "adds_per_round": args.adds, "wall_s": round(elapsed, 1), "results": {},
    }
    for name, by_mode in res.items():
        out["results"][name] = {}
        for m, slot in by_mode.items():
            n = len(slot["lat"])
            out["results"][name][m] = {
                "adds_per_s": round(statistics.median(slot["rates"]), 1),
                "latency": summary(slot["lat"]),
                "cpu_s_per_1000_adds": round(slot["cpu"] / n * 1000, 3),
            }
        full, normal = out["results"][name]["full"], out["results"][name]["normal"]
        out["results"][name]["full_vs_normal"] = {
            "throughput_ratio": round(full["adds_per_s"] / normal["adds_per_s"], 3),
            "p50_extra_ms": round(full["latency"]["p50_ms"] - normal["latency"]["p50_ms"], 3),
            "cpu_ratio": round(full["cpu_s_per_1000_adds"] / normal["cpu_s_per_1000_adds"], 3),
        }
    for x in (*mems.values(), *stores.values(), *pg.values()):
        x.close()
    if args.dir is None:
        shutil.rmtree(root, ignore_errors=True)
    if srv is not None:
        srv.cleanup()
        shutil.rmtree(pgdir, ignore_errors=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out["results"], indent=2))


if __name__ == "__main__":
    main()
