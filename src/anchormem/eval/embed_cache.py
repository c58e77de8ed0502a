"""A disk cache of embeddings for the evaluation harnesses and benchmarks (never used by :class:`Memory` itself).

The evals embed the same LoCoMo turns, polysemy cases and Memora chats run after run; with the default model that
is minutes of CPU each time. :func:`eval_embedder` wraps an embedder so that each (model, kind, text) is embedded
once per machine and then read back from a SQLite file:

    >>> from anchormem.eval.embed_cache import eval_embedder
    >>> emb = eval_embedder("auto", cache="bench/.cache/embeddings.db")   # or ANCHORMEM_EVAL_EMBED_CACHE=path

The file maps sha256(model name, dim, kind, text) → float32 (dim,) vector bytes; it holds no text. The wrapped
embedder keeps the inner one's ``name`` and ``dim``, so stores record the same model id. Several processes may
share one file (WAL; a write that loses a race is retried by SQLite's busy timeout, and a duplicate insert is
ignored).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..embedders import Embedder, make_embedder

__all__ = ["CachedEmbedder", "eval_embedder", "ENV_VAR"]

#: Environment variable naming the cache file used when :func:`eval_embedder` gets no ``cache``.
ENV_VAR = "ANCHORMEM_EVAL_EMBED_CACHE"


class CachedEmbedder:
    """``inner`` with a SQLite cache at ``path`` of its document and query vectors (float32 (dim,), as the inner
    embedder returned them: L2-normalised)."""

    def __init__(self, inner: Embedder, path: str) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        for attr in ("query_prefix", "passage_prefix"):
            if hasattr(inner, attr):
                setattr(self, attr, getattr(inner, attr))
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS emb (k BLOB PRIMARY KEY, v BLOB NOT NULL)")
        self._lock = threading.Lock()

    def _key(self, kind: str, text: str) -> bytes:
        return hashlib.sha256(f"{self.name}\x00{self.dim}\x00{kind}\x00{text}".encode("utf-8", "surrogatepass")
                              ).digest()

    def _get(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        out: dict[bytes, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                q = f"SELECT k, v FROM emb WHERE k IN ({','.join('?' * len(chunk))})"
                for k, v in self._db.execute(q, chunk):
                    out[bytes(k)] = np.frombuffer(v, dtype=np.float32).copy()
        return out

    def _put(self, pairs: list[tuple[bytes, np.ndarray]]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO emb (k, v) VALUES (?, ?)",
                                 [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in pairs])
            self._db.execute("COMMIT")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """float32 (n, dim): cached vectors, the missing ones embedded by the inner embedder in one batch."""
        texts = list(texts)
        keys = [self._key("d", t) for t in texts]
        have = self._get(keys)
        missing = [i for i, k in enumerate(keys) if k not in have]
        if missing:
            fresh = self.inner.embed_documents([texts[i] for i in missing])
            self._put([(keys[i], fresh[j]) for j, i in enumerate(missing)])
            for j, i in enumerate(missing):
                have[keys[i]] = np.asarray(fresh[j], dtype=np.float32)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([have[k] for k in keys]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """float32 (dim,), cached."""
        k = self._key("q", text)
        have = self._get([k])
        if k in have:
            return have[k]
        v = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        self._put([(k, v)])
        return v

    def __getattr__(self, name: str) -> Any:  # anything else the inner embedder offers
        return getattr(self.inner, name)


def eval_embedder(name: Embedder | str | None = None, *, cache: str | None = None) -> Embedder | str | None:
    """The embedder for an eval: ``name`` (an Embedder or a :func:`make_embedder` name; None = ``"auto"``) wrapped
    in a :class:`CachedEmbedder` at ``cache`` or at ``$ANCHORMEM_EVAL_EMBED_CACHE``; unwrapped when neither is
    set (then ``name`` is returned as given)."""
    path = cache or os.environ.get(ENV_VAR)
    if not path or isinstance(name, CachedEmbedder):
        return name  # type: ignore[return-value]  # None/str: the Memory resolves it as usual
    emb = make_embedder(name or "auto") if name is None or isinstance(name, str) else name
    return CachedEmbedder(emb, path)
