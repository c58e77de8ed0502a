"""plan_facts asks the store each of its readers' repeated questions once per planning pass
(anchormem.facts.store_reads.PlanReads, issue #24), with the same facts and currency as before."""

from __future__ import annotations

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
