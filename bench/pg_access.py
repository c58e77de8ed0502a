"""The access-count write of a search (``SearchConfig.track_access``) on PostgreSQL: cost and HOT ratio per layout.

    python bench/pg_access.py --work /tmp/pgaccess_pg --source ks_30000 --variants before,ff70_alter,ff70,side \
        --out bench/results/pg_access_30k.json

Needs a keyword_scale PostgreSQL data folder (``python bench/keyword_scale.py --backend pg --sizes 10000,30000
--work DIR``: its database ``ks_30000`` holds 30,000 memories of user u0, loaded with the store's own writes).
Each variant runs on a fresh copy of ``--source`` (``CREATE DATABASE ... TEMPLATE``):

- ``before``: the table as loaded (schema v6, fillfactor 100);
- ``ff70_alter``: ``ALTER TABLE memories SET (fillfactor = 70)`` only (what migration v7 does to an existing
  database: pages written from then on keep 30% free, full pages stay full until rewritten);
- ``ff70``: the same plus ``VACUUM FULL memories`` (every page rewritten at 70%: a store created at v7, or an
  existing one after ``PostgresStore.rewrite_tables(["memories"])``);
- ``side``: the counts in their own narrow table ``memory_access (tenant, user_id, memory_id, access_count,
  last_accessed_at)`` keyed by the memory (measured here in SQL only, not implemented in the store).

Workload per variant: ``--rounds`` touches of 10 memory ids (a search's top 10), drawn at random from the scope
(seeded, the same for every variant), each one the store's ``touch`` statement (for ``side``: the same statement on
the narrow table), each in its own transaction. Reported: CPU ms per touch of the server backend that ran it
(/proc, 10 ms tick: the mean over rounds is what counts), of every server process (autovacuum included), wall ms;
``n_tup_upd`` / ``n_tup_hot_upd`` deltas from ``pg_stat_user_tables`` (HOT ratio); the table's and its indexes'
size growth; one EXPLAIN (ANALYZE, BUFFERS) of a touch at the end (rolled back). Then (not for ``side``)
``--searches`` queries, each searched with the default recipe twice, with the write (``track_access``) and
without it, the order alternating (query vectors precomputed): CPU ms per search of this process plus every server
process, and the paired difference (the write's share of a search).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

import keyword_scale as ks  # noqa: E402
import synth  # noqa: E402

TOUCH = ("UPDATE memories m SET access_count = m.access_count + t.n, last_accessed_at = %s FROM "
         "(SELECT u.id, count(*)::int AS n FROM unnest(%s::text[]) AS u(id) GROUP BY u.id) t "
         "WHERE m.tenant = %s AND m.id = t.id")
TOUCH_SIDE = ("INSERT INTO memory_access AS a (tenant, user_id, memory_id, access_count, last_accessed_at) "
              "SELECT m.tenant, m.user_id, m.id, t.n, %s FROM (SELECT u.id, count(*)::int AS n FROM "
              "unnest(%s::text[]) AS u(id) GROUP BY u.id) t JOIN memories m ON m.tenant = %s AND m.id = t.id "
              "ON CONFLICT (tenant, user_id, memory_id) DO UPDATE SET access_count = a.access_count + "
              "excluded.access_count, last_accessed_at = excluded.last_accessed_at")


def _proc_cpu(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _stats(conn: Any, table: str) -> dict[str, int]:
    conn.execute("SELECT pg_stat_force_next_flush()")
    r = conn.execute("SELECT n_tup_upd, n_tup_hot_upd, n_tup_ins, pg_relation_size(relid), "
                     "pg_indexes_size(relid) FROM pg_stat_user_tables WHERE relname = %s", (table,)).fetchone()
    return {"upd": r[0], "hot": r[1], "ins": r[2], "table_bytes": r[3], "index_bytes": r[4]}


def run_variant(pg: Any, server_cpu: Any, source: str, variant: str, rounds: int, searches: int,
                seed: int) -> dict[str, Any]:
    import psycopg

    db = f"pa_{variant}"
    with psycopg.connect(pg.server.get_uri(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {db}")
        conn.execute(f"CREATE DATABASE {db} TEMPLATE {source}")
    url = pg.server.get_uri(database=db)
    table, stmt = "memories", TOUCH
    with psycopg.connect(url, autocommit=True) as conn:
        if variant in ("ff70", "ff70_alter"):
            conn.execute("ALTER TABLE memories SET (fillfactor = 70)")
        if variant == "ff70":
            conn.execute("VACUUM FULL memories")
        if variant == "side":
            conn.execute("CREATE TABLE memory_access (tenant text NOT NULL, user_id text NOT NULL, memory_id text "
                         "NOT NULL, access_count integer NOT NULL, last_accessed_at double precision, "
                         "PRIMARY KEY (tenant, user_id, memory_id))")
            table, stmt = "memory_access", TOUCH_SIDE
        conn.execute(f"VACUUM ANALYZE {table}")
        tenant = conn.execute("SELECT tenant FROM memories LIMIT 1").fetchone()[0]
        ids = [r[0] for r in conn.execute("SELECT id FROM memories WHERE tenant = %s AND user_id = 'u0' "
                                          "ORDER BY seq", (tenant,)).fetchall()]
        rng = np.random.default_rng(seed)
        picks = [[ids[i] for i in rng.choice(len(ids), size=10, replace=False)] for _ in range(rounds)]
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        s0 = _stats(conn, table)
        b_cpu, a_cpu, wall = [], [], []
        for j, batch in enumerate(picks):
            b0, a0, t0 = _proc_cpu(backend), server_cpu(), time.perf_counter()
            with conn.transaction():
                conn.execute(stmt, (1.7e9 + j, batch, tenant))
            wall.append((time.perf_counter() - t0) * 1000)
            b_cpu.append((_proc_cpu(backend) - b0) * 1000)
            a_cpu.append((server_cpu() - a0) * 1000)
        s1 = _stats(conn, table)
        upd, hot = s1["upd"] - s0["upd"], s1["hot"] - s0["hot"]
        conn.execute("BEGIN")  # the EXPLAIN's update is rolled back
        plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + stmt,
                            (1.8e9, picks[0], tenant)).fetchone()[0][0]
        conn.execute("ROLLBACK")
    top = plan["Plan"]
    out: dict[str, Any] = {
        "variant": variant, "rounds": rounds, "ids_per_touch": 10, "scope_rows": len(ids),
        "touch_backend_cpu_ms": {"mean": statistics.fmean(b_cpu), "p50": statistics.median(b_cpu)},
        "touch_server_cpu_ms": {"mean": statistics.fmean(a_cpu), "p50": statistics.median(a_cpu)},
        "touch_wall_ms": {"mean": statistics.fmean(wall), "p50": statistics.median(wall),
                          "p95": float(np.percentile(wall, 95))},
        "updates": upd, "hot_updates": hot, "inserts": s1["ins"] - s0["ins"],
        "hot_ratio": hot / upd if upd else None,
        "table_growth_bytes": s1["table_bytes"] - s0["table_bytes"],
        "index_growth_bytes": s1["index_bytes"] - s0["index_bytes"],
        "table_bytes_after": s1["table_bytes"], "index_bytes_after": s1["index_bytes"],
        "explain": {"execution_ms": plan["Execution Time"], "shared_hit": top.get("Shared Hit Blocks"),
                    "shared_read": top.get("Shared Read Blocks"), "shared_dirtied": top.get("Shared Dirtied Blocks"),
                    "shared_written": top.get("Shared Written Blocks")},
    }
    if searches and variant != "side":
        out["search"] = _searches(url, server_cpu, len(ids), searches)
    print(f"{variant}: touch CPU backend {out['touch_backend_cpu_ms']['mean']:.2f} ms, all server "
          f"{out['touch_server_cpu_ms']['mean']:.2f} ms, wall p50 {out['touch_wall_ms']['p50']:.2f} ms; HOT "
          f"{hot}/{upd}; index +{out['index_growth_bytes'] / 1024:.0f} KiB; EXPLAIN {plan['Execution Time']:.1f} ms "
          f"hit {top.get('Shared Hit Blocks')} read {top.get('Shared Read Blocks')}"
          + (f"; search CPU {out['search']['cpu_ms']['mean']:.1f} ms, without the write "
             f"{out['search']['cpu_ms_track_access_off']['mean']:.1f} (paired difference mean "
             f"{out['search']['write_share_cpu_ms']['mean']:.1f})"
             if "search" in out else ""), flush=True)
    return out


def _searches(url: str, server_cpu: Any, n: int, count: int) -> dict[str, Any]:
    from anchormem import Memory

    emb = ks._Lookup()  # noqa: SLF001
    vectors = np.load(ARGS.vectors, mmap_mode="r")
    qs, qv = synth.make_queries(vectors, n, count + 3, seed=n)
    for q, v in zip(qs, qv):
        emb.table[q["text"].strip()] = v
    mem = Memory(url=url, embedder=emb, llm=None, cache=False)
    on, off = mem.search_config, mem.search_config.model_copy(update={"track_access": False})
    cpu: dict[str, list[float]] = {"on": [], "off": []}
    wall: list[float] = []
    try:
        for j, q in enumerate(qs):  # each query with the write and without, the order alternating
            for name in (("on", "off") if j % 2 else ("off", "on")):
                mem._searcher._qcache.clear()  # noqa: SLF001 - no query-vector cache hits
                s0, c0, t0 = server_cpu(), time.process_time(), time.perf_counter()
                mem.search(q["text"], user_id="u0", limit=10, recipe=on if name == "on" else off)
                if j >= 3:
                    cpu[name].append((time.process_time() - c0 + server_cpu() - s0) * 1000)
                    if name == "on":
                        wall.append((time.perf_counter() - t0) * 1000)
    finally:
        mem.close()
    diff = [a - b for a, b in zip(cpu["on"], cpu["off"])]
    return {"searches": len(wall), "cpu_ms": {"mean": statistics.fmean(cpu["on"]), "p50": statistics.median(cpu["on"])},
            "cpu_ms_track_access_off": {"mean": statistics.fmean(cpu["off"]), "p50": statistics.median(cpu["off"])},
            "write_share_cpu_ms": {"mean": statistics.fmean(diff), "p50": statistics.median(diff)},
            "wall_ms": {"p50": statistics.median(wall), "p95": float(np.percentile(wall, 95))}}


ARGS: Any = None


def main() -> int:
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="a keyword_scale --backend pg work folder (pgdata inside)")
    ap.add_argument("--source", default="ks_30000")
    ap.add_argument("--variants", default="before,ff70_alter,ff70,side")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--searches", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=str(HERE / "results" / "pg_access.json"))
    ARGS = ap.parse_args()
    work = Path(ARGS.work)
    ARGS.vectors = str(next(work.glob("vectors_*.npy"), work / "missing.npy"))
    from client import PgServer  # noqa: E402

    import anchormem

    pg = PgServer(work / "pgdata")
    server_cpu = ks._ServerCPU(work / "pgdata")  # noqa: SLF001
    out: dict[str, Any] = {"command": "python " + " ".join(sys.argv), "anchormem": anchormem.__file__,
                           "postgres": pg.version, "pgvector": pg.pgvector, "variants": []}
    try:
        for v in ARGS.variants.split(","):
            out["variants"].append(run_variant(pg, server_cpu, ARGS.source, v, ARGS.rounds, ARGS.searches,
                                               ARGS.seed))
    finally:
        pg.server.cleanup()
    Path(ARGS.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {ARGS.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
