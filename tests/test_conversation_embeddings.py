"""An anchored search embeds its conversation turns as passages, the way a memory's context vector embeds the
turns around it; a turn ``add`` stored (in this process, or found in the store) is not embedded again, and the new
turns cost one embedding of their content words at most (``conversation_turn_budget``,
:class:`anchormem.retrieval.conversation.TurnVectors`); nothing of a purged text stays in those caches."""

from __future__ import annotations

import numpy as np
import pytest

from anchormem import Memory
from anchormem.retrieval.config import RECIPES

# the gate off: every anchored search reads its conversation (the gate keeps the hybrid order, and embeds no turn,
# when nothing is ambiguous); these tests are about how the turns are embedded, with the budget on (off by default)
ALWAYS = RECIPES["anchored"].model_copy(update={"anchor_gate": False, "conversation_turn_budget": 12})


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
    assert e.documents == [new]  # only the turn no add has seen, once (short: whole)
    mem.search("And the rate again?", user_id="u", context=[*CHAT, {"role": "user", "content": new}], recipe=ALWAYS)
    assert e.documents == [new]
    exact = ALWAYS.model_copy(update={"conversation_turn_budget": 0, "conversation_turn_words": 0})  # the own text
    newer = "Should I move my savings to a fixed deposit?"
    mem.search("And the rate?", user_id="u", context=[*CHAT, {"role": "user", "content": newer}], recipe=exact)
    assert e.documents == [new, newer]


def test_each_new_turn_is_cut_to_the_word_cap_and_kept(mem):
    """conversation_turn_words (budget 0): each new turn its own vector, of at most that many words, all new turns in
    one call; a turn passed again is not embedded again; a short turn is embedded whole."""
    from anchormem.retrieval.conversation import TurnVectors

    mem.add(CHAT, user_id="u", session_id="money")
    e = mem.embedder
    cap = ALWAYS.model_copy(update={"conversation_turn_budget": 0, "conversation_turn_words": 4})
    long_turn = "Should I move my savings to a fixed deposit before the rates drop again?"
    short = "Rates went up."
    assert TurnVectors.cut(long_turn, 4) == "move savings fixed deposit" and TurnVectors.cut(short, 4) == short
    e.documents.clear()
    mem.search("What about the bank?", user_id="u", context=[long_turn, short], recipe=cap)
    assert e.documents == ["move savings fixed deposit", short]  # one batched call, each turn its own text
    newest = "My bank charges a monthly fee."
    mem.search("And the bank fee?", user_id="u", context=[long_turn, short, newest], recipe=cap)
    assert e.documents == ["move savings fixed deposit", short, "bank charges monthly fee"]  # only the new turn
    v = mem._turns.vectors([long_turn, short], 0, None, 4)
    np.testing.assert_allclose(v[0], e.inner.embed_documents(["move savings fixed deposit"])[0], rtol=1e-5)
    np.testing.assert_allclose(v[1], e.inner.embed_documents([short])[0], rtol=1e-5)


def test_new_turns_cost_one_embedding_within_the_budget(mem):
    from anchormem.retrieval.conversation import turn_gist

    turns = ["We moved the concrete pour to Thursday because of the rain.",
             "The site manager said the inspection is due on Monday morning.",
             "Did the steel delivery arrive yet? I heard it was late."]
    # newest turn first until the budget is spent, put back in the turns' order: a short turn whole, a long one by
    # its content words
    assert turn_gist(turns, 8) == "site manager steel delivery arrive yet heard late"
    assert turn_gist(turns, 14) == "site manager said Did the steel delivery arrive yet? I heard it was late."
    assert turn_gist(["今天天气特别好。", "我喜欢看日落和晚霞。"], 9) == "今天天气特别好。 我喜欢看日落和晚霞。"
    assert turn_gist(["天气冷了想喝点热乎的。", "早饭想吃得清淡一点。"], 8) == "天气冷 早饭想吃得清淡一点。"
    assert turn_gist(turns, 0) == "" and turn_gist(["", "?!"], 5) == ""
    mem.add([{"role": "user", "content": "The crane on site is down until the inspection."}], user_id="u")
    e = mem.embedder
    e.documents.clear()
    mem.search("When can the crane start again?", user_id="u", context=turns, recipe=ALWAYS)
    assert e.documents == [turn_gist(turns, ALWAYS.conversation_turn_budget)]  # one text for the three new turns
    v = [mem._turns.vector(t, 12) for t in turns]  # each new turn stands for the gist's vector, kept
    np.testing.assert_allclose(v[0], e.inner.embed_documents([e.documents[0]])[0])
    assert all(np.array_equal(v[0], x) for x in v[1:])
    mem.search("When can the crane start again, then?", user_id="u", context=turns[1:], recipe=ALWAYS)
    assert len(e.documents) == 1  # seen turns cost nothing


def test_stored_turns_are_read_from_the_store(tmp_path):
    from anchormem.embedders import make_embedder

    path = str(tmp_path / "m.db")
    with Memory(path, embedder=make_embedder("hash"), cache=False, llm=None) as m:
        m.add(CHAT, user_id="u", session_id="money")
    with Memory(path, embedder=Counting(make_embedder("hash")), cache=False, llm=None) as m:  # another process
        assert not m._searcher._pcache
        m.search("What about the bank?", user_id="u", recipe=ALWAYS)  # the labeller's prototypes, embedded once
        m.embedder.documents.clear()
        m.search("What about the bank?", user_id="u", context=CHAT, recipe=ALWAYS)
        assert m.embedder.documents == []  # every turn is a stored memory: its stored vector, nothing embedded
        kept = m._searcher.kept_passages(["Ann: Four percent, locked for three years."])
        np.testing.assert_allclose(next(iter(kept.values())),
                                   m.embedder.inner.embed_documents(["Ann: Four percent, locked for three years."])[0],
                                   rtol=1e-6, atol=1e-6)
        m.search("What about the bank?", user_id="u", context=[{"role": "user", "content": "My bank is closed on "
                                                                "Sundays."}], recipe=ALWAYS)
        assert m.embedder.documents == ["My bank is closed on Sundays."]  # another user's memory is not this user's turn


def test_a_purge_drops_the_kept_passage_embeddings(mem):
    events = mem.add(CHAT, user_id="u", session_id="money")
    assert len(mem._searcher._pcache) == 3
    mem.delete(events[0].memory.id, purge=True)
    assert len(mem._searcher._pcache) == 0
    mem.embedder.documents.clear()
    mem.search("What about the bank?", user_id="u", context=CHAT[1:2], recipe=ALWAYS)
    assert mem.embedder.documents == []  # a stored turn: read from the store
    mem.search("What about the bank?", user_id="u", context=[{"role": "user", "content": "Is the bank open?"}],
               recipe=ALWAYS)
    assert len(mem._turns._kept) == 1
    mem.delete(events[1].memory.id, purge=True)
    assert len(mem._searcher._pcache) == 0 and len(mem._turns._kept) == 0
    mem.search("What about the bank?", user_id="u", context=CHAT[:1], recipe=ALWAYS)
    assert mem.embedder.documents == ["Is the bank open?", CHAT[0]["content"]]  # purged: embedded anew


def test_the_passage_cache_is_bounded(mem):
    s = mem._searcher
    s.remember_passages([f"turn {i}" for i in range(s.CACHE_SIZE + 5)],
                        np.zeros((s.CACHE_SIZE + 5, mem.embedder.dim), dtype=np.float32))
    assert len(s._pcache) == s.CACHE_SIZE and "turn 0" not in s._pcache and f"turn {s.CACHE_SIZE + 4}" in s._pcache
