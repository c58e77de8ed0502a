"""The keyword (BM25) stage and the default search at scale, one user's scope, SQLite and PostgreSQL.

    python bench/keyword_scale.py --backend sqlite --sizes 10000,50000,100000 --out bench/results/keyword_scale_sqlite.json
    python bench/keyword_scale.py --backend pg --sizes 10000,30000 --out bench/results/keyword_scale_pg.json

Data: the synthetic chat turns and vectors of bench/peers/synth.py (80% English, 20% Chinese, a small vocabulary,
so a 3-word query matches a large share of the scope: the unbounded case). One store grows through the sizes;
each size is kept as a snapshot under ``--work`` (SQLite: a copy of the file and its saved HNSW index; PostgreSQL:
a database per size in a pgserver data folder), so a second run (after a code change) measures the same rows
without loading them again (the vectors are ``vectors_<largest size>.npy`` there: synth.make_vectors depends on
the count, so keep ``--sizes`` of a store's runs the same). Loading goes through the store layer as an import does (``draft_memories`` +
``Store.write``, precomputed vectors): no embedding anywhere.

Per size, ``--queries`` queries (3 words of a stored memory, its vector + noise), after ``--warmup`` untimed ones:

- ``keyword``: ``Store.keyword_search(scope, query_terms(text), 200, None)`` (the candidate count of the default
  recipe), wall ms and CPU ms per call, p50/p95 (``time.process_time`` of this process, plus on PostgreSQL the
  CPU time of the server's processes from /proc, at the kernel's 10 ms tick: per-call values are coarse, their
  mean is not); ``matches``: how many
  rows of the scope match at least one term (the work an unbounded stage does);
- ``search``: ``Memory.search(text, limit=10)`` with the default recipe (query vector precomputed: a lookup
  embedder), wall and CPU ms; ``search_hit``: share of queries whose target memory is in the top 10;
- ``dense``: ``Memory.search(..., recipe="dense")``.

The keyword lists of every query are written too (``keyword_top``: the first 10 ids), so a before/after pair can be
compared for identical results (``--compare other.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
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
_KEY = re.compile(r"\(note (\d+)\)|（第(\d+)条）")


class _Lookup:
    """Embedder protocol over precomputed vectors (documents by text, queries registered before timing); a miss
    (the context labeller's prototypes) goes to a hashing embedder."""

    name = "bench-synth-384"
    dim = synth.DIM

    def __init__(self) -> None:
        from anchormem.embedders.hashing import HashEmbedder

        self.table: dict[str, np.ndarray] = {}
        self.hashed = HashEmbedder(synth.DIM)

    def _get(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            v = self.table.get(t.strip())
            out[i] = v if v is not None else self.hashed.embed_documents([t])[0]
        return out

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._get(list(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._get([text])[0]


def _summary(xs: list[float]) -> dict[str, float | int | None]:
    if not xs:
        return {"n": 0, "p50": None, "p95": None, "mean": None}
    s = sorted(xs)
    return {"n": len(s), "p50": s[len(s) // 2], "p95": s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))],
            "mean": statistics.fmean(s)}


def _load(mem: Any, vectors: np.ndarray, start: int, end: int, batch: int = 2000) -> float:
    """Rows ``start..end`` into user u0's scope through the store layer; returns seconds."""
    from anchormem.ingest.normalize import normalize_messages
    from anchormem.ingest.pipeline import draft_memories
    from anchormem.stores.protocol import NewMemory
    from anchormem.types import Scope

    scope = Scope(tenant=mem.tenant, user_id="u0")
    t0 = time.perf_counter()
    for s in range(start, end, batch):
        idx = range(s, min(end, s + batch))
        texts = [synth.text(i) for i in idx]
        msgs = normalize_messages([{"role": "user", "content": t, "timestamp": _T0 + timedelta(seconds=i)}
                                   for i, t in zip(idx, texts)], default_time=_T0,
                                  max_chars=mem.settings.max_message_chars)
        prep = draft_memories(msgs, scope=scope, metadata=None, now=_T0, chunk_chars=mem.settings.chunk_chars)
        vec_of = {m.content: vectors[i] for m, i in zip(msgs, idx)}
        news = [NewMemory(dr.item, np.asarray(vec_of[dr.item.source_text], dtype=np.float32), dr.content_hash,
                          dr.index_text) for dr in prep.drafts]
        mem.store.write(prep.messages, news, actor="bench")
    return time.perf_counter() - t0


class _ServerCPU:
    """CPU seconds used so far by a PostgreSQL server's processes (the postmaster's children, from /proc): the
    work of a query runs there, not in this process."""

    def __init__(self, data_dir: Path) -> None:
        self.pid = int((data_dir / "postmaster.pid").read_text().split()[0])
        self.tick = os.sysconf("SC_CLK_TCK")

    def __call__(self) -> float:
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                f = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(f[1]) == self.pid:  # ppid
                total += int(f[11]) + int(f[12])  # utime + stime
        return total / self.tick


_SERVER: _ServerCPU | None = None


def _timed(fn: Any) -> tuple[Any, float, float]:
    """(result, wall ms, CPU ms): this process's CPU, plus the server's for PostgreSQL (at 10 ms resolution)."""
    s0 = _SERVER() if _SERVER else 0.0
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    cpu = time.process_time() - c0 + ((_SERVER() - s0) if _SERVER else 0.0)
    return out, (time.perf_counter() - t0) * 1000, cpu * 1000


def _key(text: str) -> int | None:
    m = _KEY.search(text)
    return int(m.group(1) or m.group(2)) if m else None


def measure(mem: Any, emb: _Lookup, vectors: np.ndarray, n: int, queries: int, warmup: int) -> dict[str, Any]:
    from anchormem.text.tokenize import query_terms
    from anchormem.types import Scope

    qs, qv = synth.make_queries(vectors, n, queries + warmup, seed=n)
    for q, v in zip(qs, qv):
        emb.table[q["text"].strip()] = v
    scope = Scope(tenant=mem.tenant, user_id="u0")
    row: dict[str, Any] = {"n": n}
    for name, fn in (
        ("keyword", lambda q: mem.store.keyword_search(scope, query_terms(q["text"]), 200, None)),
        ("search", lambda q: mem.search(q["text"], user_id="u0", limit=10)),
        ("dense", lambda q: mem.search(q["text"], user_id="u0", limit=10, recipe="dense")),
    ):
        wall, cpu, hits, tops = [], [], 0, []
        for j, q in enumerate(qs):
            mem._searcher._qcache.clear()  # noqa: SLF001 - no query-vector cache hits
            out, w, c = _timed(lambda: fn(q))
            if j < warmup:
                continue
            wall.append(w)
            cpu.append(c)
            if name == "keyword":
                tops.append([mid for mid, _ in out[:10]])
            else:
                hits += q["target"] in {_key(h.memory.text) for h in out}
        row[name] = {"wall_ms": _summary(wall), "cpu_ms": _summary(cpu)}
        if name == "keyword":
            row["keyword_top"] = tops
        else:
            row[name]["hit"] = hits / max(1, len(wall))
    row["matches"] = statistics.median(_matches(mem, scope, [query_terms(q["text"]) for q in qs[warmup:]]))
    return row


def _matches(mem: Any, scope: Any, term_lists: list[list[str]]) -> list[int]:
    """Rows of the scope matching at least one term (unbounded: what the keyword stage must not score)."""
    out = []
    for terms in term_lists:
        terms = [t for t in terms if t.strip()]
        if not terms:
            out.append(0)
            continue
        if hasattr(mem.store, "_pool"):  # PostgreSQL: the same tsqueries as the store's keyword stage
            q = ("SELECT count(*) FROM memories m WHERE tenant = %s AND user_id = %s AND valid_to IS NULL AND "
                 "m.tsv @@ ANY (ARRAY(SELECT plainto_tsquery('simple', w) || plainto_tsquery('english', w) "
                 "FROM unnest(%s::text[]) AS u(w)))")
            out.append(mem.store._read(q, (scope.tenant, scope.user_id, terms))[0][0])  # noqa: SLF001
        else:
            try:
                from anchormem.stores.schema import fts_quote, scope_token
            except ImportError:  # before the schema module existed (a baseline run)
                from anchormem.stores.sqlite import fts_quote, scope_token

            match = f"scope:{fts_quote(scope_token(scope.tenant, scope.user_id))} AND body:(" + \
                " OR ".join(fts_quote(t) for t in terms) + ")"
            out.append(mem.store._read("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",  # noqa: SLF001
                                       (match,))[0][0])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=("sqlite", "pg"), default="sqlite")
    ap.add_argument("--sizes", default="10000,50000,100000")
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--work", default=str(HERE / ".cache" / "keyword_scale"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--label", default="", help="free text stored with the results (e.g. 'before', 'after')")
    args = ap.parse_args()

    import anchormem
    from anchormem import Memory

    sizes = sorted(int(x) for x in args.sizes.split(","))
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    vpath = work / f"vectors_{max(sizes)}.npy"
    if not vpath.exists():
        synth.make_vectors(max(sizes), path=work / "vectors.tmp.npy")
        (work / "vectors.tmp.npy").rename(vpath)
    vectors = np.load(vpath, mmap_mode="r")
    pg = None
    if args.backend == "pg":
        from client import PgServer  # noqa: E402

        pg = PgServer(work / "pgdata")
        global _SERVER
        _SERVER = _ServerCPU(work / "pgdata")
    out: dict[str, Any] = {"backend": args.backend, "label": args.label, "anchormem": anchormem.__file__,
                           "queries": args.queries, "warmup": args.warmup, "sizes": []}
    emb = _Lookup()
    loaded, live = 0, None
    try:
        for n in sizes:
            snap = work / f"{args.backend}_{n}"
            if args.backend == "sqlite":
                db = snap / "anchormem.db"
                fresh = not db.exists()
                if fresh:
                    snap.mkdir(parents=True, exist_ok=True)
                    if live is not None:  # grow from the previous size's snapshot
                        for p in live.parent.iterdir():
                            dst = snap / p.name
                            shutil.copytree(p, dst) if p.is_dir() else shutil.copy2(p, dst)
                mem = Memory(str(db), embedder=emb, llm=None, cache=False)
                live = db
            else:
                dbname = f"ks_{n}"
                import psycopg

                with psycopg.connect(pg.server.get_uri(), autocommit=True) as conn:
                    fresh = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone() is None
                    if fresh:
                        tmpl = f" TEMPLATE ks_{loaded}" if loaded else ""
                        conn.execute(f"CREATE DATABASE {dbname}{tmpl}")
                url = pg.server.get_uri(database=dbname)
                if fresh and not loaded:
                    with psycopg.connect(url, autocommit=True) as conn:
                        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                mem = Memory(url=url, embedder=emb, llm=None, cache=False)
            load_s = None
            if fresh:
                load_s = _load(mem, vectors, loaded, n)
                print(f"loaded {n:,} ({n - loaded:,} rows in {load_s:.0f} s)", flush=True)
            loaded = n
            c0, t0 = time.process_time(), time.perf_counter()
            mem.search("warm up", user_id="u0", limit=10)  # builds / loads the HNSW index: not a per-query cost
            first = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
            row = measure(mem, emb, vectors, n, args.queries, args.warmup)
            row["load_seconds"] = load_s
            row["first_search"] = first
            out["sizes"].append(row)
            print(f"{args.backend} @ {n:,}: keyword p50 {row['keyword']['wall_ms']['p50']:.1f} ms wall / "
                  f"{row['keyword']['cpu_ms']['p50']:.1f} ms CPU; search p50 {row['search']['wall_ms']['p50']:.1f} / "
                  f"{row['search']['cpu_ms']['p50']:.1f}; dense {row['dense']['wall_ms']['p50']:.1f} / "
                  f"{row['dense']['cpu_ms']['p50']:.1f}; matches {row['matches']:.0f}", flush=True)
            mem.close()
    finally:
        if pg is not None:
            pg.server.cleanup()
    path = Path(args.out or HERE / "results" / f"keyword_scale_{args.backend}.json")
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
