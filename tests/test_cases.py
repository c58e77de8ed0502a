"""The failure cases in shared/cases/README.md that the engine owns (C3, C9, C12, C13, C14, C18 are elsewhere)."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone

import pytest

from anchormem import FilterError, InvalidInputError, Memory, Scope, ScopeError, Settings
from anchormem.testing import frozen_clock

UTC = timezone.utc


def test_C1_exact_repeat(mem, count):
    a = mem.add("My favourite tea is oolong.", user_id="A")
    b = mem.add("My favourite tea is oolong.", user_id="A")
    assert [e.event for e in a] == ["ADD"] and [e.event for e in b] == ["NOOP"]
    assert a[0].memory.id == b[0].memory.id
    assert count(mem, "A") == 1
    second_turn = mem.store.messages(Scope(tenant=mem.tenant, user_id="A"))[1]["id"]
    assert b[0].memory.source_message_ids == [a[0].memory.source_message_ids[0], second_turn]  # cites both turns
    assert [(h.event, h.reason) for h in mem.history(a[0].memory.id)] == [  # nothing deleted
        ("ADD", None), ("NOOP", f"restated in message {second_turn}")]


def test_C2_concurrent_repeat(db_path, count):
    mems = [Memory(db_path, embedder="hash") for _ in range(2)]
    barrier = threading.Barrier(4)
    out: dict = {}

    def run(key, m, user):
        barrier.wait()
        out[key] = m.add("I drink coffee every morning.", user_id=user)

    ts = [threading.Thread(target=run, args=(k, m, u)) for k, m, u in
          [("a1", mems[0], "A"), ("a2", mems[1], "A"), ("b", mems[0], "B"), ("c", mems[1], "C")]]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    try:
        assert count(mems[0], "A") == 1 and count(mems[0], "B") == 1 and count(mems[0], "C") == 1
        assert out["a1"][0].memory.id == out["a2"][0].memory.id
        assert sorted([out["a1"][0].event, out["a2"][0].event]) == ["ADD", "NOOP"]
        assert out["b"][0].event == out["c"][0].event == "ADD"
    finally:
        for m in mems:
            m.close()


@pytest.mark.parametrize("me,other,mine,theirs", [("A", "B", "chess", "sailing"), ("B", "A", "sailing", "chess")])
def test_C4_same_person_two_users(mem, me, other, mine, theirs):
    mem.add(f"Person Q enjoys {mine}.", user_id=me)
    mem.add(f"Person Q enjoys {theirs}.", user_id=other)
    for recipe in ("hybrid_rrf", "dense", "bm25"):
        hits = mem.search("What does Person Q enjoy?", user_id=me, recipe=recipe)
        assert [h.memory.text for h in hits] == [f"Person Q enjoys {mine}."], recipe
        dump = json.dumps([h.model_dump(mode="json") for h in hits])
        assert theirs not in dump
    ans = mem.ask("What does Person Q enjoy?", user_id=me)
    assert theirs not in ans.model_dump_json()
    assert [m.text for m in mem.get_all(user_id=me)] == [f"Person Q enjoys {mine}."]
    assert theirs not in json.dumps(mem.export(user_id=me))


def test_C5_scoped_delete_all(mem):
    mem.add("I play the violin.", user_id="A")
    drums = mem.add("I play the drums.", user_id="B")[0].memory.id
    mem.delete_all(user_id="A")
    assert mem.get_all(user_id="A") == []
    assert [m.id for m in mem.get_all(user_id="B")] == [drums]
    with pytest.raises(ScopeError):
        mem.delete_all()
    with pytest.raises(ScopeError):
        mem.delete_all(agent_id="bot")
    assert [m.id for m in mem.get_all(user_id="B")] == [drums]


def test_C6_metadata_filter_honoured(mem):
    work = mem.add("Project kickoff is on Monday.", user_id="A", metadata={"category": "work"})[0].memory.id
    mem.add("Dentist appointment on Tuesday.", user_id="A", metadata={"category": "personal"})
    for recipe in ("hybrid_rrf", "hybrid_weighted", "dense", "bm25"):
        hits = mem.search("What is scheduled this week?", user_id="A", filters={"category": "work"}, recipe=recipe)
        assert [h.memory.id for h in hits] in ([work], []), recipe
    assert [h.memory.id for h in mem.search("What is scheduled this week?", user_id="A",
                                            filters={"category": "work"})] == [work]
    with pytest.raises(FilterError, match="unknown operator"):
        mem.search("What is scheduled this week?", user_id="A", filters={"category": {"$regex": "w.*"}})


def test_C7_relative_date_from_conversation_time(mem):
    item = mem.add("I got back from a trip to City C last week.", user_id="A",
                   timestamp="2023-05-24T10:00:00Z")[0].memory
    assert datetime(2023, 5, 15, tzinfo=UTC) <= item.event_time <= item.event_time_end \
        <= datetime(2023, 5, 21, 23, 59, 59, tzinfo=UTC)
    with frozen_clock("2024-10-02T09:00:00Z"):
        later = mem.add("I got back from a trip to City D last week.", user_id="A")[0].memory
    assert (later.event_time, later.event_time_end) == (datetime(2024, 9, 23, tzinfo=UTC),
                                                        datetime(2024, 9, 29, 23, 59, 59, tzinfo=UTC))


def test_C8_utc_and_offsets(mem):
    with frozen_clock("2025-07-25T02:00:00Z") as clock:
        item = mem.add("Note: renew the parking permit.", user_id="A")[0].memory
        clock.set("2025-07-26T01:00:00Z")
        mem.add("Note: pay the gas bill.", user_id="A")
    assert item.created_at.tzinfo is not None
    assert item.created_at == datetime(2025, 7, 25, 2, 0, tzinfo=UTC)
    assert mem.get(item.id).created_at == datetime(2025, 7, 25, 2, 0, tzinfo=UTC)
    z = {"created_at": {"gte": "2025-07-25T00:00:00Z", "lt": "2025-07-26T00:00:00Z"}}
    plus8 = {"created_at": {"gte": "2025-07-25T08:00:00+08:00", "lt": "2025-07-26T08:00:00+08:00"}}
    assert [m.id for m in mem.get_all(user_id="A", filters=z)] == \
        [m.id for m in mem.get_all(user_id="A", filters=plus8)] == [item.id]
    assert [h.memory.id for h in mem.search("note", user_id="A", filters=z)] == \
        [h.memory.id for h in mem.search("note", user_id="A", filters=plus8)] == [item.id]


@pytest.mark.parametrize("text", ["ok thanks, bye!", "好的谢谢，拜拜"])
def test_C10_chitchat_stores_nothing(mem, text):
    assert [(e.event, e.memory.text, e.reason) for e in mem.add(text, user_id="A")] == \
        [("SKIP", text, "chit-chat: nothing to remember")]  # said, not silent
    assert mem.get_all(user_id="A") == []
    assert mem.export(user_id="A")["memories"] == []


def test_C11_assistant_words_are_not_the_users(mem):
    evs = mem.add([
        {"role": "user", "content": "Can you explain how to reverse a linked list in groups of k?"},
        {"role": "assistant", "content": "Sure, here is a recursive approach: reverse the first k nodes, then "
                                         "recurse on the rest; if you need O(1) extra space, switch to an "
                                         "iterative version."},
    ], user_id="A")
    user_items = [e.memory for e in evs if e.memory.source == "user"]
    asst_items = [e.memory for e in evs if e.memory.source != "user"]
    assert [(m.kind, m.text) for m in user_items] == [
        ("question", "Can you explain how to reverse a linked list in groups of k?")]
    assert asst_items and all((m.source, m.role, m.kind) == ("assistant", "assistant", "assistant")
                              for m in asst_items)
    user_only = mem.get_all(user_id="A", filters={"source": "user"})
    assert [m.id for m in user_only] == [user_items[0].id]
    assert all("recursive" not in m.text for m in user_only)
    hits = mem.search("iterative version O(1) extra space", user_id="A", filters={"source": "user"})
    assert all(h.memory.source == "user" for h in hits)


def test_C15_delete_means_gone_everywhere(mem):
    mid = mem.add("Person T manages the office in City C.", user_id="A")[0].memory.id
    keep = mem.add("I commute by train.", user_id="A")[0].memory.id
    mem.delete(mid)
    for recipe in ("hybrid_rrf", "dense", "bm25"):
        assert mid not in [h.memory.id for h in mem.search("Person T manages the office", user_id="A",
                                                           recipe=recipe)]
    assert mem.store._read("SELECT count(*) FROM memory_entities WHERE value LIKE '%Person T%'")[0][0] == 0
    assert mem.search("manages office", user_id="A", recipe="bm25") == []
    assert [h.event for h in mem.history(mid)] == ["ADD", "DELETE"]
    mem.delete(keep, purge=True)
    assert all(h.old_text is None and h.new_text is None for h in mem.history(keep))
    assert "commute" not in json.dumps(mem.export(user_id="A"))


def test_C16_size_limit_python_api(tmp_path):
    with Memory(str(tmp_path / "c16.db"), embedder="hash", settings=Settings(max_message_chars=200)) as m:
        assert m.search("anything at all", user_id="A") == []
        with pytest.raises(InvalidInputError, match="500 characters is over the limit of 200"):
            m.add("a" * 500, user_id="A")
        with pytest.raises(InvalidInputError, match="over the limit of 200"):
            m.add([{"role": "user", "content": "b" * 500}], user_id="A")
        assert m.get_all(user_id="A") == []
        assert m.search("aaaa", user_id="A") == []


def test_C17_unexpected_fields(mem):
    with pytest.warns(UserWarning, match="unknown keys"):
        mem.add([{"kind": "note", "session_id": "s1", "content": "likes hiking"}], user_id="A")
    with pytest.warns(UserWarning, match="unknown keys source"):
        evs = mem.add([{"role": "user", "content": "Please call me Ann; I prefer Spanish.", "source": "crm"}],
                      user_id="A")
    # the turn is kept verbatim, and each of its two facts gets its own clause
    assert [(e.event, e.memory.kind, e.memory.text) for e in evs] == [
        ("ADD", "utterance", "Please call me Ann; I prefer Spanish."), ("ADD", "fact", "Please call me Ann"),
        ("ADD", "fact", "I prefer Spanish.")]
    assert [(e.memory.fact.attribute, e.memory.fact.value) for e in evs[1:]] == [
        ("name", "Ann"), ("prefers:language", "Spanish")]
    assert [m.text for m in mem.get_all(user_id="A")][0] == "likes hiking"
    hits = mem.search("Spanish", user_id="A", recipe="bm25")
    assert len(hits) == 1 and "I prefer Spanish" in hits[0].memory.text
