"""The Embedder interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder", "check_matrix"]


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors.

    ``name``: stable model identifier recorded in the store (e.g. ``"multilingual-e5-small-q4"``).
    ``dim``: vector dimension.
    """

    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Stored texts -> float32 array (n, dim), L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """A search query -> float32 array (dim,), L2-normalised."""
        ...


def check_matrix(arr: np.ndarray, n: int, dim: int, who: str) -> np.ndarray:
    """Validate an embedding matrix's shape and finiteness and L2-normalise it. Raises EmbeddingError."""
    from ..errors import EmbeddingError

    arr = np.asarray(arr, dtype=np.float32)
    if arr.ndim != 2 or arr.shape != (n, dim):
        raise EmbeddingError(f"{who} returned shape {arr.shape}, expected ({n}, {dim})")
    if not np.all(np.isfinite(arr)):
        raise EmbeddingError(f"{who} returned non-finite values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return arr / norms
