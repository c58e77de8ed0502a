"""An embedder seen through one ``add``'s vectors: each text embedded once per call (issue #24).

An ``add`` embeds texts in several places before its write: the change-by-meaning fallback and the relative change
reader embed clauses of the new turns, and search the batch's earlier memories by meaning (each planned memory
embedded as its write will embed it); the write then embeds every new memory. Seen through :class:`SharedVectors`,
a text any of them embedded is not embedded again: the others take its vector from the add's ``memo``.

    memo = {}
    emb = SharedVectors(embedder, memo)
    emb.embed_documents(["I moved to Munich."])   # embedded; memo holds it
    emb.embed_documents(["I moved to Munich."])   # from memo: no call to the embedder
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SharedVectors"]


class SharedVectors:
    """``embedder`` with ``memo`` ({document text: (dim,) float32 vector}) laid over :meth:`embed_documents`;
    every other attribute (``name``, ``dim``, ``semantic``, ``embed_query``...) is the embedder's own."""

    def __init__(self, embedder: Any, memo: dict[str, np.ndarray]) -> None:
        self.inner = embedder
        self.memo = memo

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32 rows, in order: the texts not in ``memo`` embedded in one call of the
        embedder (each distinct text once) and added to it. Raises what the embedder raises."""
        texts = list(texts)
        need = list(dict.fromkeys(t for t in texts if t not in self.memo))
        if need:
            self.memo.update(zip(need, np.asarray(self.inner.embed_documents(need), dtype=np.float32)))
        if not texts:
            return np.zeros((0, int(self.inner.dim)), dtype=np.float32)
        return np.vstack([self.memo[t] for t in texts])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
