"""The evals' disk cache of embeddings: each text embedded once, vectors read back bit-identical."""

import numpy as np

from anchormem.embedders.hashing import HashEmbedder
from anchormem.eval.embed_cache import CachedEmbedder, eval_embedder


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=64)
        self.calls: list[int] = []

    def embed_documents(self, texts):
        self.calls.append(len(texts))
        return super().embed_documents(texts)


def test_cached_embedder_embeds_each_text_once(tmp_path):
    inner = Counting()
    path = str(tmp_path / "emb.db")
    e = CachedEmbedder(inner, path)
    a = e.embed_documents(["hello world", "我住在柏林"])
    b = e.embed_documents(["我住在柏林", "new text"])
    assert inner.calls == [2, 1]  # only the unseen text is embedded the second time
    assert np.array_equal(a[1], b[0]) and b.shape == (2, 64) and b.dtype == np.float32
    again = CachedEmbedder(Counting(), path)  # another process would read the same file
    assert np.array_equal(again.embed_documents(["hello world"])[0], a[0]) and again.inner.calls == []
    q = e.embed_query("hello world")  # queries are keyed apart from documents
    assert np.array_equal(q, inner.embed_query("hello world"))
    assert (e.name, e.dim) == (inner.name, 64)


def test_eval_embedder_unwrapped_without_a_cache(monkeypatch):
    monkeypatch.delenv("ANCHORMEM_EVAL_EMBED_CACHE", raising=False)
    assert eval_embedder(None) is None and eval_embedder("hash") == "hash"
