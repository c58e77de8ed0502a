"""An anchored search embeds its conversation turns as passages, the way a memory's context vector embeds the
turns around it, and a turn ``add`` stored lately is not embedded again (Searcher.embed_passage); nothing of a
purged text stays in that cache."""

from __future__ import annotations

import numpy as np
import pytest

from anchormem import Memory
from anchormem.retrieval.config import RECIPES

# the gate off: every anchored search reads its conversation (the gate keeps the hybrid order, and embeds no turn,
# when nothing is ambiguous); these tests are about how the turns are embedded
ALWAYS = RECIPES["anchored"].model_copy(update={"anchor_gate": False})


class Counting:
    """Wraps an embedder and records every text it embeds, by mode."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.documents: list[str] = []
        self.queries: list[str] = []

    def embed_documents(self, texts):
        self.documents += list(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        self.queries.append(text)
        return self.inner.embed_query(text)


@pytest.fixture
def mem():
    from anchormem.embedders import make_embedder

    m = Memory(":memory:", embedder=Counting(make_embedder("hash")), cache=False, llm=None)
    yield m
    m.close()


CHAT = [{"role": "user", "content": "I opened a savings account at the bank."},
        {"role": "assistant", "content": "Nice, what interest rate did they give you?"},
        {"role": "user", "content": "Four percent, locked for three years.", "name": "Ann"}]


def test_turns_add_stored_are_not_embedded_again(mem):
    mem.add(CHAT, user_id="u", session_id="money")
    e = mem.embedder
    e.documents.clear()
    hits = mem.search("What about the bank?", user_id="u", context=CHAT, recipe=ALWAYS)
    assert hits and hits[0].explain["anchor"]["query_label_source"].startswith("query+context")
    assert e.documents == []  # every turn of the conversation was stored: its passage vector is reused
    assert e.queries == ["What about the bank?"]
    # the reused vector is the turn's passage embedding, as embedding it again gives
    kept = mem._searcher.embed_passage("Ann: Four percent, locked for three years.")
    np.testing.assert_allclose(kept, e.inner.embed_documents(["Ann: Four percent, locked for three years."])[0])
    assert e.documents == []
    new = "Is that a good deposit rate?"  # not filler ("Is that good?" is left out of the conversation)
    mem.search("And the rate?", user_id="u", context=[*CHAT, {"role": "user", "content": new}], recipe=ALWAYS)
    assert e.documents == [new]  # only the turn no add has seen, once
    mem.search("And the rate again?", user_id="u", context=[*CHAT, {"role": "user", "content": new}], recipe=ALWAYS)
    assert e.documents == [new]


def test_a_purge_drops_the_kept_passage_embeddings(mem):
    events = mem.add(CHAT, user_id="u", session_id="money")
    assert len(mem._searcher._pcache) == 3
    mem.delete(events[0].memory.id, purge=True)
    assert len(mem._searcher._pcache) == 0
    mem.embedder.documents.clear()
    mem.search("What about the bank?", user_id="u", context=CHAT[:1], recipe=ALWAYS)
    assert mem.embedder.documents == ["I opened a savings account at the bank."]


def test_the_passage_cache_is_bounded(mem):
    s = mem._searcher
    s.remember_passages([f"turn {i}" for i in range(s.CACHE_SIZE + 5)],
                        np.zeros((s.CACHE_SIZE + 5, mem.embedder.dim), dtype=np.float32))
    assert len(s._pcache) == s.CACHE_SIZE and "turn 0" not in s._pcache and f"turn {s.CACHE_SIZE + 4}" in s._pcache
