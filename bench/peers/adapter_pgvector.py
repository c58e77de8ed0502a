"""A plain pgvector table under the benchmark protocol; runs in ``bench/.peers-venv``.

What a developer writes by hand: ``items(id, key, user_id, content, embedding vector(384))`` with a b-tree on
``user_id`` and an HNSW index (``vector_cosine_ops``, pgvector defaults m=16, ef_construction=64, ef_search=40).
Bulk loads follow pgvector's own advice for loading: drop the HNSW index, binary ``COPY``, then ``CREATE INDEX``
with ``maintenance_work_mem = 1GB`` (the rebuild is part of the timed load). ``add`` uses one ``executemany``
INSERT transaction per batch with the index in place, as a live application does. Search:
``SELECT key FROM items WHERE user_id = %s ORDER BY embedding <=> %s LIMIT k``.
"""

from __future__ import annotations

import time

import numpy as np

from protocol import Dataset, QuerySet, RealE5


class Adapter:
    def __init__(self) -> None:
        self.datasets: dict[str, Dataset] = {}
        self.real: RealE5 | None = None

    def open(self, dir: str, dim: int = 384, pg_url: str | None = None, real_embedder: bool = False) -> dict:
        t0 = time.perf_counter()
        import psycopg
        from pgvector.psycopg import register_vector
        t_import = time.perf_counter() - t0
        self.conn = psycopg.connect(pg_url, autocommit=True)
        self.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(self.conn)
        self.conn.execute(f"CREATE TABLE IF NOT EXISTS items (id bigserial PRIMARY KEY, key text NOT NULL, "
                          f"user_id text NOT NULL, content text NOT NULL, embedding vector({int(dim)}) NOT NULL)")
        self.conn.execute("CREATE INDEX IF NOT EXISTS items_user ON items (user_id)")
        self.conn.execute("CREATE INDEX IF NOT EXISTS items_hnsw ON items USING hnsw (embedding vector_cosine_ops)")
        if real_embedder:
            self.real = RealE5()
        return {"import_seconds": t_import, "open_seconds": time.perf_counter() - t0}

    def _data(self, spec: dict) -> Dataset:
        if spec["vectors"] not in self.datasets:
            self.datasets[spec["vectors"]] = Dataset(spec)
        return self.datasets[spec["vectors"]]

    def bulk_load(self, data: dict, start: int, end: int, batch: int = 5000) -> dict:
        ds = self._data(data)
        t0 = time.perf_counter()
        self.conn.execute("DROP INDEX IF EXISTS items_hnsw")
        for s in range(start, end, batch):
            docs = ds.docs(s, min(end, s + batch))
            with self.conn.transaction():
                with self.conn.cursor().copy("COPY items (key, user_id, content, embedding) FROM STDIN "
                                             "WITH (FORMAT BINARY)") as cp:
                    cp.set_types(["text", "text", "text", "vector"])
                    for d in docs:
                        cp.write_row((d.key, d.user, d.text, d.vector))
        t1 = time.perf_counter()
        self.conn.execute("SET maintenance_work_mem = '1GB'")
        self.conn.execute("CREATE INDEX items_hnsw ON items USING hnsw (embedding vector_cosine_ops)")
        self.conn.execute("ANALYZE items")
        t2 = time.perf_counter()
        return {"seconds": t2 - t0, "rows": end - start, "index_seconds": t2 - t1}

    def add(self, data: dict, start: int, end: int, batch: int = 100, real: bool = False) -> dict:
        ds = self._data(data)
        docs = ds.docs(start, end)
        t0 = time.perf_counter()
        for s in range(0, len(docs), batch):
            g = docs[s:s + batch]
            texts = [f"{d.speaker}: {d.text}" if d.speaker else d.text for d in g]
            vecs = self.real(texts, False) if real else [d.vector for d in g]
            with self.conn.transaction():
                with self.conn.cursor() as cur:
                    cur.executemany("INSERT INTO items (key, user_id, content, embedding) VALUES (%s, %s, %s, %s)",
                                    [(d.key, d.user, d.text, np.asarray(v, dtype=np.float32)) for d, v in zip(g, vecs)])
        return {"seconds": time.perf_counter() - t0, "rows": len(docs), "messages": len(docs)}

    def search(self, queries: dict, k: int = 10, mode: str = "vector", recipe: str | None = None,
               warmup: int = 3, limit_queries: int | None = None) -> dict:
        qs = QuerySet(queries)
        rows = qs.rows[:limit_queries] if limit_queries else qs.rows
        ms, keys = [], []
        order = list(range(min(warmup, len(rows)))) + list(range(len(rows)))
        for j, i in enumerate(order):
            r = rows[i]
            t0 = time.perf_counter()
            qv = self.real([r["text"]], True)[0] if mode == "embed" else qs.vectors[i]
            res = self.conn.execute("SELECT key FROM items WHERE user_id = %s ORDER BY embedding <=> %s LIMIT %s",
                                    (r["user"], np.asarray(qv, dtype=np.float32), k)).fetchall()
            dt = (time.perf_counter() - t0) * 1000
            if j >= min(warmup, len(rows)):
                ms.append(dt)
                keys.append([x[0] for x in res])
        return {"ms": ms, "keys": keys}

    def stats(self) -> dict:
        return {"disk_bytes": int(self.conn.execute("SELECT pg_total_relation_size('items')").fetchone()[0])}

    def close(self) -> None:
        self.conn.close()
