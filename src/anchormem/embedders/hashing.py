"""A deterministic feature-hashing embedder: no model, no I/O, for fast unit tests and as the loud last-resort
fallback when the neural model cannot run. Similarity is lexical (shared tokens and character trigrams)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..text.tokenize import query_terms

__all__ = ["HashEmbedder"]


class HashEmbedder:
    """Feature hashing of content tokens and character trigrams. Output float32 (n, dim), L2-normalised.
    ``semantic = False``: cosines measure shared surface features, not meaning, so semantic checks skip it."""

    semantic = False

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        feats = list(query_terms(text))
        low = text.lower()
        feats += [low[i : i + 3] for i in range(max(0, len(low) - 2))]
        for f in feats:
            h = int.from_bytes(hashlib.blake2b(f.encode("utf-8"), digest_size=8).digest(), "little")
            v[h % self.dim] += 1.0 if (h >> 40) & 1 else -1.0
        n = float(np.linalg.norm(v))
        if n == 0:
            v[0] = 1.0
            return v
        return v / n

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([self._vec(t) for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)
