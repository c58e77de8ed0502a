"""plan_facts asks the store each of its readers' repeated questions once per planning pass
(anchormem.facts.store_reads.PlanReads, issue #24), with the same facts and currency as before."""

from __future__ import annotations

import numpy as np

from anchormem import Memory
from anchormem.facts.store_reads import PlanReads
from anchormem.filters import Cond
from anchormem.testing import DeterministicEmbedder
from anchormem.types import Scope


class Counting:
    def __init__(self, store):
        self.store, self.calls = store, []

    def current_facts(self, tenant, user_id, slots):
        self.calls.append(tuple(slots))
        return self.store.current_facts(tenant, user_id, slots)

    def __getattr__(self, name):
        return getattr(self.store, name)


def _mem():
    return Memory(":memory:", embedder=DeterministicEmbedder(64), llm=None, cache=False)


def test_a_repeated_question_is_asked_once_and_answered_alike():
    with _mem() as mem:
        mem.add("I work at Google as a software engineer.", user_id="u")
        counting = Counting(mem.store)
        reads = PlanReads(counting)
        first = reads.current_facts("default", "u", ["user|employer"])
        second = reads.current_facts("default", "u", ["user|employer"])
        assert [m.id for m in first] == [m.id for m in second] == \
            [m.id for m in mem.store.current_facts("default", "u", ["user|employer"])]
        assert [m.fact.value for m in second] == ["Google"]
        second.clear()  # a caller's list is its own
        assert len(reads.current_facts("default", "u", ["user|employer"])) == 1
        assert counting.calls == [("user|employer",)]
        reads.current_facts("default", "u", ["user|occupation"])
        assert counting.calls == [("user|employer",), ("user|occupation",)]


def test_a_batch_asks_the_store_once_per_slot_and_keeps_currency():
    turns = ["I work at Google as a software engineer."] + [f"Lunch was fine today, the soup number {i}." for i in
                                                            range(30)]
    with _mem() as mem:
        mem.add_many(turns[:1], user_id="u")
        counting = Counting(mem.store)
        mem.store = counting
        try:
            got = mem.add_many(turns[1:] + ["I quit Google last week, now I work at Meta."], user_id="u")
        finally:
            mem.store = counting.store
        assert got["messages"] == 31
        # the slots the batch's extracted facts touch are read first, once (the employer); the job reader then asks
        # for the occupation slot once; each later question of a slot read is answered from the first answer
        # (before issue #24: twice per turn, 62 calls)
        assert counting.calls == [("user|employer",), ("user|occupation",)]
        now = {m.fact.attribute: m.fact.value for m in mem.store.current_facts("default", "u", ["user|employer"])}
        assert now == {"employer": "Meta"}
        facts = mem.store.list_memories(Scope(user_id="u"), Cond(field="kind", op="eq", value="fact"),
                                        include_superseded=True)
        google = [m for m in facts if m.fact.attribute == "employer" and m.fact.value == "Google"]
        assert len(google) == 1 and google[0].valid_to is not None  # superseded by Meta


class _SemanticCounting(DeterministicEmbedder):
    """A 'semantic' embedder (the meaning readers run) that counts every text it embeds."""

    semantic = True

    def __init__(self) -> None:
        super().__init__(64)
        self.texts: list[str] = []

    def embed_documents(self, texts):
        self.texts += list(texts)
        return super().embed_documents(texts)


def test_a_batch_embeds_each_of_its_memories_once_with_a_semantic_embedder():
    # the relative reader and the meaning fallback search the batch's earlier memories (PlanReads.dense_search)
    # before the write embeds the batch: they share the add's embeddings, no text is embedded twice
    turns = ["My phone plan costs 59 a month.", "I switched plans, it's 39 a month now.",
             "I live in Berlin with my sister.", "We moved to Munich last week.", "My salary is 5000 a month.",
             "Got a raise today, 5600 now."]
    emb = _SemanticCounting()
    with Memory(":memory:", embedder=emb, llm=None, cache=False) as mem:
        emb.texts.clear()
        got = mem.add_many(turns, user_id="u", timestamp="2024-05-01T10:00:00Z")
        twice = sorted({t for t in emb.texts if emb.texts.count(t) > 1})
        assert twice == []
        assert got["ADD"] >= len(turns) and got["messages"] == len(turns)
        assert set(turns) <= set(emb.texts)  # every turn was embedded (no speaker: as its own text)


def test_shared_vectors_embed_each_text_once_in_order():
    from anchormem.embedders.shared import SharedVectors

    inner = _SemanticCounting()
    memo: dict = {}
    emb = SharedVectors(inner, memo)
    a = emb.embed_documents(["one", "two", "one"])
    b = emb.embed_documents(["two", "three"])
    assert inner.texts == ["one", "two", "three"]  # each distinct text once, the new one alone
    assert a.shape == (3, 64) and a.dtype == np.float32 and np.array_equal(a[0], a[2])
    assert np.array_equal(b[0], a[1]) and np.array_equal(b[1], inner.embed_documents(["three"])[0])
    assert emb.embed_documents([]).shape == (0, 64) and (emb.dim, emb.semantic) == (64, True)
