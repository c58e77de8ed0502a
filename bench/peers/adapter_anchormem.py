"""anchormem under the benchmark protocol (runs in the project's venv): ``anchormem-sqlite`` and ``anchormem-pg``.

- ``bulk_load``: the store layer, as an import would do it: each batch goes through anchormem's own drafting
  (:func:`anchormem.ingest.pipeline.draft_memories`: validation, dates, entities, keyword-index text, hashes) and
  one :meth:`Store.write` per user and batch, with the precomputed vectors. No context labels, no fact planning.
- ``bulk_load(api=True)``: the public bulk path, :meth:`Memory.add_many` with the precomputed vectors.
- ``add``: the public API, :meth:`Memory.add` with a list of messages per call (everything ``add`` does).
- ``search``: ``Memory.search`` with a recipe (None = the Memory's default recipe, ``hybrid_rrf``, ``dense``), or
  ``store_dense``: the store's vector search alone (:meth:`Store.dense_search`), the layer the peers compare to.

The embedder is a lookup of the precomputed vectors under the real model's name (``mode="vector"``: query
embedding excluded), or the real multilingual-e5-small (``mode="embed"`` / ``real_embedder``).
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from protocol import Dataset, LookupEmbedder, QuerySet, RealE5, dir_bytes

_KEY = re.compile(r"\(note (\d+)\)|（第(\d+)条）")
_T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def synth_key(text: str) -> str | None:
    m = _KEY.search(text)
    return (m.group(1) or m.group(2)) if m else None


class _Embedder:
    """anchormem's Embedder protocol over a LookupEmbedder; ``force_real`` routes every call to the model."""

    name = "multilingual-e5-small-q4"

    def __init__(self, lookup: LookupEmbedder, real: RealE5 | None) -> None:
        self.lookup, self.real, self.dim = lookup, real, lookup.dim
        self.force_real = False

    def embed_documents(self, texts):
        if self.force_real and self.real is not None:
            return self.real(list(texts), False)
        return self.lookup.get(list(texts))

    def embed_query(self, text):
        if self.force_real and self.real is not None:
            return self.real([text], True)[0]
        return self.lookup.get([text], query=True)[0]


class Adapter:
    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.mem = None
        self.datasets: dict[str, Dataset] = {}

    # ------------------------------------------------------------------ setup
    def open(self, dir: str, dim: int = 384, pg_url: str | None = None, real_embedder: bool = False) -> dict:
        t0 = time.perf_counter()
        from anchormem import Memory
        from anchormem.embedders.hashing import HashEmbedder
        t_import = time.perf_counter() - t0
        self.dir = Path(dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        real = RealE5() if real_embedder else None
        hashed = HashEmbedder(dim)
        # misses (only the context labeller's domain prototypes in vector mode) fall back to the real model when
        # it is loaded, else to the hash embedder: label quality is irrelevant on synthetic data, the cost is not
        fallback = (lambda texts, q: real(texts, q)) if real else (lambda texts, q: hashed.embed_documents(texts))
        self.lookup = LookupEmbedder(dim, fallback)
        self.emb = _Embedder(self.lookup, real)
        if self.backend == "pg":
            self.mem = Memory(url=pg_url, embedder=self.emb, llm=None, cache=False)  # peers have no result cache
        else:
            self.mem = Memory(str(self.dir / "anchormem.db"), embedder=self.emb, llm=None, cache=False)
        self.pg_url = pg_url
        return {"import_seconds": t_import, "open_seconds": time.perf_counter() - t0}

    def _data(self, spec: dict) -> Dataset:
        key = spec["vectors"]
        if key not in self.datasets:
            self.datasets[key] = Dataset(spec)
        return self.datasets[key]

    # ------------------------------------------------------------------ writes
    def bulk_load(self, data: dict, start: int, end: int, batch: int = 2000, api: bool = False) -> dict:
        """``api``: through the public bulk path, ``Memory.add_many(vectors=...)`` (the whole ``add`` pipeline:
        labels, facts, dedupe), batches of 500; else the store layer as described in the module docstring."""
        if api:
            return self._bulk_api(data, start, end)
        from anchormem.ingest.normalize import normalize_messages
        from anchormem.ingest.pipeline import draft_memories
        from anchormem.stores.protocol import NewMemory
        from anchormem.types import Scope

        ds = self._data(data)
        mem = self.mem
        t0 = time.perf_counter()
        rows = 0
        for s in range(start, end, batch):
            docs = ds.docs(s, min(end, s + batch))
            by_user: dict[str, list] = {}
            for d in docs:
                by_user.setdefault(d.user, []).append(d)
            for user, group in by_user.items():
                scope = Scope(tenant=mem.tenant, user_id=user)
                msgs = normalize_messages(
                    [{"role": "user", "content": d.text, "timestamp": _T0 + timedelta(seconds=int(d.key) if
                      d.key.isdigit() else 0)} for d in group],
                    default_time=_T0, max_chars=mem.settings.max_message_chars)
                prep = draft_memories(msgs, scope=scope, metadata=None, now=_T0, chunk_chars=mem.settings.chunk_chars)
                vec_of = {m.content: d.vector for m, d in zip(msgs, group)}
                news = [NewMemory(dr.item, vec_of[dr.item.source_text], dr.content_hash, dr.index_text)
                        for dr in prep.drafts]
                mem.store.write(prep.messages, news, actor="bench")
                rows += len(news)
        return {"seconds": time.perf_counter() - t0, "rows": rows}

    def _bulk_api(self, data: dict, start: int, end: int) -> dict:
        ds = self._data(data)
        t0 = time.perf_counter()
        rows = 0
        docs = ds.docs(start, end)
        by_user: dict[str, list] = {}
        for d in docs:
            by_user.setdefault(d.user, []).append(d)
        for user, group in by_user.items():
            got = self.mem.add_many(
                [{"role": "user", "content": d.text, "timestamp": _T0 + timedelta(seconds=int(d.key) if
                  d.key.isdigit() else 0)} for d in group], user_id=user, vectors=np.vstack([d.vector for d in group]))
            rows += got["messages"]
        return {"seconds": time.perf_counter() - t0, "rows": rows}

    def add(self, data: dict, start: int, end: int, batch: int = 100, real: bool = False) -> dict:
        """``Memory.add`` with ``batch`` messages per call (all of one user per call, as a chat turn batch)."""
        ds = self._data(data)
        docs = ds.docs(start, end)
        if not real:
            self.lookup.register([d.text if not d.speaker else f"{d.speaker}: {d.text}" for d in docs],
                                 np.vstack([d.vector for d in docs]))
        # the context labeller embeds its domain prototypes on first use: a one-time start-up cost, not per message
        self.mem.anchor.label_texts([docs[0].text], self.emb.embed_documents([docs[0].text]))
        self.emb.force_real = real
        t0 = time.perf_counter()
        rows = 0
        try:
            for s in range(0, len(docs), batch):
                group = docs[s:s + batch]
                by_user: dict[str, list] = {}
                for d in group:
                    by_user.setdefault(d.user, []).append(d)
                for user, g in by_user.items():
                    ev = self.mem.add([{"role": "user", "content": d.text, **({"name": d.speaker} if d.speaker else {})}
                                       for d in g], user_id=user, timestamp=_T0)
                    rows += sum(e.event == "ADD" for e in ev)
        finally:
            self.emb.force_real = False
        return {"seconds": time.perf_counter() - t0, "rows": rows, "messages": len(docs)}

    # ------------------------------------------------------------------ reads
    def search(self, queries: dict, k: int = 10, mode: str = "vector", recipe: str | None = "hybrid_rrf",
               warmup: int = 3, limit_queries: int | None = None) -> dict:
        from anchormem.types import Scope

        qs = QuerySet(queries)
        rows = qs.rows[:limit_queries] if limit_queries else qs.rows
        if mode == "vector":
            self.lookup.register([r["text"] for r in rows], qs.vectors[:len(rows)], query=True)
        self.emb.force_real = mode == "embed"
        self.mem._searcher._qcache.clear()  # noqa: SLF001 - a benchmark must not hit the query-vector cache
        ms: list[float] = []
        keys: list[list[str | None]] = []
        try:
            order = list(range(min(warmup, len(rows)))) + list(range(len(rows)))
            for j, i in enumerate(order):
                r = rows[i]
                t0 = time.perf_counter()
                if recipe == "store_dense":
                    qv = self.emb.embed_query(r["text"])
                    res = self.mem.store.dense_search(Scope(tenant=self.mem.tenant, user_id=r["user"]), qv, k, None)
                    got = [mid for mid, _ in res]
                else:
                    hits = self.mem.search(r["text"], user_id=r["user"], limit=k, recipe=recipe)
                    got = [synth_key(h.memory.text) or h.memory.metadata.get("key") for h in hits]
                dt = (time.perf_counter() - t0) * 1000
                if j >= min(warmup, len(rows)):
                    ms.append(dt)
                    keys.append(got if recipe != "store_dense" else [])
                if mode == "embed":
                    self.mem._searcher._qcache.clear()  # noqa: SLF001
        finally:
            self.emb.force_real = False
        return {"ms": ms, "keys": keys}

    def stats(self) -> dict:
        if self.backend == "pg":
            return {"disk_bytes": _pg_bytes(self.pg_url, ["memories", "memory_history", "messages",
                                                          "memory_entities", "metadata_keys", "scope_state"])}
        conn = self.mem.store._conn()  # noqa: SLF001 - checkpoint so the size is the database, not the WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"disk_bytes": dir_bytes(self.dir)}

    def close(self) -> None:
        if self.mem is not None:
            self.mem.close()


def _pg_bytes(url: str, tables: list[str]) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return int(sum(conn.execute("SELECT coalesce(pg_total_relation_size(to_regclass(%s)), 0)", (t,)).fetchone()[0]
                       for t in tables))
