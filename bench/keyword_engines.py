"""Keyword top-k engines side by side on one store: FTS5 (the store's table), the in-process index
(:mod:`anchormem.stores.keyword_index`) and Tantivy, the same queries, interleaved query by query.

    python bench/keyword_engines.py --db /tmp/kw/ks/sqlite_100000/anchormem.db --vectors /tmp/kw/ks/vectors_100000.npy \
        --n 100000 --out bench/results/keyword_engines_100k.json

The store is one bench/keyword_scale.py built (user u0's synthetic turns). Per query (``--queries`` of
keyword_scale's queries, after ``--warmup``), each engine ranks the user's top ``--cap`` matches (400: what the
store's keyword stage first asks for, 2 x the default recipe's 200 candidates): CPU ms (``time.process_time``)
p50/mean, and the top-10 overlap with FTS5's ranking (same tokens everywhere: Tantivy gets each row's FTS5
tokens, pre-tokenised, whitespace-joined, so only BM25 details differ: Tantivy's IDF ``ln(1 + ...)``, its
body-only length norm quantised to a byte). Then per engine: build time (CPU and wall) from the rows of
``memories_fts``, size on disk, reopen time (load the saved index, or open the Tantivy folder), and the cost of
making one new row searchable (``--adds`` single-row adds; Tantivy: add + commit + reload). The in-process index's
ranking is checked to equal FTS5's exactly (ids and scores).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "peers"))

import synth  # noqa: E402

_RANKED = ("SELECT rowid, -bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts WHERE memories_fts MATCH ? "
           "ORDER BY s DESC, rowid LIMIT ?")


def _cpu(fn: Any) -> tuple[Any, float]:
    c0 = time.process_time()
    out = fn()
    return out, (time.process_time() - c0) * 1000


def _stats(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {"n": len(s), "p50": s[len(s) // 2], "p95": s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))],
            "mean": statistics.fmean(s)}


def _du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--cap", type=int, default=400)
    ap.add_argument("--adds", type=int, default=20)
    ap.add_argument("--no-tantivy", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    from anchormem.stores.keyword_index import KeywordIndex, _Tokenizer  # noqa: SLF001
    from anchormem.stores.schema import fts_quote, scope_token
    from anchormem.text.tokenize import query_terms

    from anchormem.stores.sqlite import SQLiteStore

    SQLiteStore(args.db).close()  # migrated (the keyword log) if the store is older
    work = Path(tempfile.mkdtemp(prefix="kw_engines_"))
    con = sqlite3.connect(args.db, isolation_level=None)
    con.execute("PRAGMA mmap_size = 1073741824")
    read = lambda sql, p=(): con.execute(sql, p).fetchall()  # noqa: E731

    def snapshot(fn: Any, write: bool = False) -> Any:
        con.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            return fn(con)
        finally:
            con.execute("COMMIT")

    tenant = "default"
    scope = scope_token(tenant, "u0")
    out: dict[str, Any] = {"db": args.db, "n": args.n, "queries": args.queries, "cap": args.cap, "engines": {}}

    # ---- build: the in-process index (from the rows of memories_fts), timed; then saved and reloaded
    kw_path = work / "index.kw"
    c0, t0 = time.process_time(), time.perf_counter()
    idx = KeywordIndex(kw_path, "bench")
    idx._build(snapshot)  # noqa: SLF001
    build = {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0}
    idx.path = kw_path
    c0, t0 = time.process_time(), time.perf_counter()
    idx._save(read, lambda fn, write=False: None)  # noqa: SLF001  (no log pruning here)
    build["save_s"] = time.perf_counter() - t0
    re_idx = KeywordIndex(kw_path, "bench")
    c0, t0 = time.process_time(), time.perf_counter()
    assert re_idx._load()  # noqa: SLF001
    out["engines"]["index"] = {"build": build, "disk_bytes": _du(kw_path),
                               "reopen": {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0}}

    # ---- FTS5: build cost of the same rows into a fresh table of a scratch file
    rows = read("SELECT rowid, scope, body FROM memories_fts ORDER BY rowid")
    fts_db = work / "fts.db"
    f = sqlite3.connect(fts_db, isolation_level=None)
    f.execute("CREATE VIRTUAL TABLE memories_fts USING fts5(scope, body, tokenize='porter unicode61 remove_diacritics 2')")
    c0, t0 = time.process_time(), time.perf_counter()
    f.execute("BEGIN")
    f.executemany("INSERT INTO memories_fts (rowid, scope, body) VALUES (?, ?, ?)", rows)
    f.execute("COMMIT")
    out["engines"]["fts5"] = {"build": {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0},
                              "disk_bytes": _du(fts_db), "reopen": {"cpu_s": 0.0, "wall_s": 0.0}}
    f.close()

    # ---- Tantivy: the FTS5 tokens of each row, whitespace-joined
    tok = _Tokenizer()
    tv = None
    if not args.no_tantivy:
        import tantivy

        words = sorted({w for r in rows for w in (r[2] or "").split()})
        wt = dict(zip(words, tok.words(words)))
        toks = {r[0]: [t for w in (r[2] or "").split() for t in wt[w]] for r in rows}
        sb = tantivy.SchemaBuilder()
        sb.add_integer_field("rid", stored=False, fast=True, indexed=True)
        sb.add_text_field("scope", tokenizer_name="raw", index_option="basic")
        sb.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
        schema = sb.build()
        tdir = work / "tantivy"
        tdir.mkdir()
        c0, t0 = time.process_time(), time.perf_counter()
        index = tantivy.Index(schema, path=str(tdir))
        w = index.writer(heap_size=200_000_000, num_threads=2)
        for rid, sc, _ in rows:
            w.add_document(tantivy.Document(rid=rid, scope=sc, body=" ".join(toks.get(rid, []))))
        w.commit()
        w.wait_merging_threads()
        # CPU of the writer threads counts too: process_time covers every thread of this process
        tbuild = {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0}
        c0, t0 = time.process_time(), time.perf_counter()
        index = tantivy.Index.open(str(tdir))
        index.reload()
        searcher = index.searcher()
        out["engines"]["tantivy"] = {"build": tbuild, "disk_bytes": _du(tdir), "version": tantivy.__version__
                                     if hasattr(tantivy, "__version__") else "0.27",
                                     "reopen": {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - t0}}
        tv = (tantivy, index, searcher, schema)

    # ---- queries, interleaved engine by engine per query
    vectors = np.load(args.vectors, mmap_mode="r")
    qs, _ = synth.make_queries(vectors, args.n, args.queries + args.warmup, seed=args.n)
    cpu: dict[str, list[float]] = {"fts5": [], "index": [], "tantivy": []}
    overlap: dict[str, list[int]] = {"index": [], "tantivy": []}
    exact, phrase, matches = 0, 0, []
    for j, q in enumerate(qs):
        terms = [t for t in query_terms(q["text"]) if t.strip()]
        match = f"scope:{fts_quote(scope)} AND body:(" + " OR ".join(fts_quote(t) for t in terms) + ")"
        if j % 2:  # unscoped, as the store asks when the user holds >= 90% of the index
            match = "body:(" + " OR ".join(fts_quote(t) for t in terms) + ")"
        order = ["fts5", "index", "tantivy"][j % 3:] + ["fts5", "index", "tantivy"][: j % 3]
        got: dict[str, list[tuple[int, float]]] = {}
        for eng in order:
            if eng == "fts5":
                r, c = _cpu(lambda: read(_RANKED, (match, args.cap)))
                got[eng] = [(a, b) for a, b in r]
            elif eng == "index":
                r, c = _cpu(lambda: idx.top(read, snapshot, scope, terms, args.cap))
                if r is None:
                    phrase += 1
                    r = []
                got[eng] = r
            else:
                if tv is None:
                    continue
                tantivy, index, searcher, schema = tv

                def run() -> list[tuple[int, float]]:
                    words = [w for p in tok.query(terms) for w in p]
                    body = tantivy.Query.boolean_query(
                        [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", w)) for w in words])
                    qq = tantivy.Query.boolean_query([
                        (tantivy.Occur.Must, tantivy.Query.const_score_query(
                            tantivy.Query.term_query(schema, "scope", scope), 0.0)),
                        (tantivy.Occur.Must, body)])
                    res = searcher.search(qq, args.cap, count=False)
                    ids = searcher.fast_field_values("rid", [a for _, a in res.hits])
                    return [(int(i), float(s)) for i, (s, _) in zip(ids, res.hits)]

                r, c = _cpu(run)
                got[eng] = r
            if j >= args.warmup:
                cpu[eng].append(c)
        if j < args.warmup:
            continue
        top = [a for a, _ in got["fts5"][:10]]
        for eng in overlap:
            if eng in got:
                overlap[eng].append(len(set(top) & {a for a, _ in got[eng][:10]}))
        exact += got["index"] == got["fts5"]
        matches.append(read("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?",
                            (f"scope:{fts_quote(scope)} AND body:(" + " OR ".join(fts_quote(t) for t in terms) + ")",))[0][0])
    for eng in ("fts5", "index", "tantivy"):
        if cpu[eng]:
            out["engines"][eng]["query_cpu_ms"] = _stats(cpu[eng])
        if eng in overlap and overlap[eng]:
            out["engines"][eng]["top10_overlap_with_fts5"] = statistics.fmean(overlap[eng]) / 10
    out["engines"]["index"]["identical_to_fts5"] = f"{exact}/{args.queries}"
    out["engines"]["index"]["phrase_fallbacks"] = phrase
    out["matches_median"] = statistics.median(matches)

    # ---- one new row made searchable, --adds times
    top_row = read("SELECT max(rowid) FROM memories_fts")[0][0]
    new = [(top_row + 1 + i, scope, f"brand new row {i} about gardening and tea") for i in range(args.adds)]
    costs = []
    for r in new:
        _, c = _cpu(lambda: (idx._remove(r[0]), idx._to_tail(idx._add([r]))))  # noqa: SLF001
        costs.append(c)
    out["engines"]["index"]["add_one_cpu_ms"] = _stats(costs)
    if tv is not None:
        tantivy, index, searcher, schema = tv
        w = index.writer(heap_size=50_000_000, num_threads=1)
        costs, walls = [], []
        for r in new:
            def one() -> None:
                w.add_document(tantivy.Document(rid=r[0], scope=r[1], body=" ".join(
                    x for p in tok.query(r[2].split()) for x in p)))
                w.commit()
                index.reload()
            t0 = time.perf_counter()
            _, c = _cpu(one)
            costs.append(c)
            walls.append((time.perf_counter() - t0) * 1000)
        out["engines"]["tantivy"]["add_one_cpu_ms"] = _stats(costs)
        out["engines"]["tantivy"]["add_one_wall_ms"] = _stats(walls)
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
