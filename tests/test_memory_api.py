"""The Memory facade end to end: scoping, dedupe, assistant text, deletes, updates, as_of, export, bad input."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from anchormem import FilterError, InvalidInputError, NotFoundError, Scope, ScopeError
from anchormem.testing import frozen_clock


# ---------------------------------------------------------------- scoping
def test_user_a_never_sees_user_b(mem):
    # each turn is kept with its facts (locker code; a habit: swimming / cycling): a set of ids per user
    ida = {e.memory.id for e in mem.add("My locker code is 4411 and I swim at the north pool.", user_id="A")}
    idb = {e.memory.id for e in mem.add("My locker code is 9932 and I cycle to the harbour.", user_id="B")}
    assert len(ida) == len(idb) == 3 and not ida & idb
    for recipe in ("hybrid_rrf", "hybrid_weighted", "dense", "bm25"):
        for q in ("locker code", "cycle harbour 9932", "9932"):
            ids = [h.memory.id for h in mem.search(q, user_id="A", recipe=recipe)]
            assert set(ids) <= ida, (recipe, q)
    # keyword-only match (a token only B has) and a dense-only query (no shared token) stay in scope
    assert mem.search("harbour", user_id="A", recipe="bm25") == []
    assert {h.memory.id for h in mem.search("harbour", user_id="B", recipe="bm25")} <= idb
    assert mem.search("harbour", user_id="B", recipe="bm25") != []
    assert {h.memory.id for h in mem.search("zzqx", user_id="A", recipe="dense")} <= ida
    assert {m.id for m in mem.get_all(user_id="A")} == ida
    ans = mem.ask("What is my locker code when I cycle to the harbour?", user_id="A")
    assert all(c.id in ida for c in ans.citations) and all(h.memory.user_id == "A" for h in ans.evidence)
    ex = mem.export(user_id="A")
    assert {m["id"] for m in ex["memories"]} == ida
    assert "9932" not in json.dumps(ex, ensure_ascii=False)


def test_scope_ids_are_required(mem):
    with pytest.raises(ScopeError):
        mem.add("I like jazz.", user_id=None)
    with pytest.raises(ScopeError):
        mem.search("jazz", user_id="")
    with pytest.raises(ScopeError):
        mem.get_all(user_id=123)


# ---------------------------------------------------------------- dedupe
def test_exact_repeat_is_noop_with_same_id(mem, count):
    first = mem.add("My favourite tea is oolong.", user_id="A")
    second = mem.add("My favourite tea is oolong.", user_id="A")
    third = mem.add("  my favourite tea is OOLONG ", user_id="A")  # same after normalisation
    assert [e.event for e in first] == ["ADD"]
    assert [e.event for e in second] == ["NOOP"] and [e.event for e in third] == ["NOOP"]
    assert first[0].memory.id == second[0].memory.id == third[0].memory.id
    assert count(mem, "A") == 1
    turns = [m["id"] for m in mem.store.messages(Scope(tenant=mem.tenant, user_id="A"))]
    assert len(turns) == 3 and third[0].memory.source_message_ids == turns  # each repeat cites its turn
    assert [(h.event, h.reason) for h in mem.history(first[0].memory.id)] == [
        ("ADD", None), ("NOOP", f"restated in message {turns[1]}"), ("NOOP", f"restated in message {turns[2]}")]


# ---------------------------------------------------------------- assistant text
def test_assistant_text_is_not_a_user_fact(mem):
    evs = mem.add([{"role": "user", "content": "My dog is named Rex."},
                   {"role": "assistant", "content": "My dog is named Bruno."}], user_id="A")
    user_ev, asst_ev = evs
    # the user's sentence is a fact (dog_name = Rex); the assistant's sentence of the same form is not
    assert (user_ev.memory.source, user_ev.memory.role, user_ev.memory.kind) == ("user", "user", "fact")
    assert (user_ev.memory.fact.attribute, user_ev.memory.fact.value) == ("dog_name", "Rex")
    assert asst_ev.memory.fact is None
    assert (asst_ev.memory.source, asst_ev.memory.role, asst_ev.memory.kind) == ("assistant", "assistant",
                                                                                   "assistant")
    assert asst_ev.memory.confidence < user_ev.memory.confidence
    hits = mem.search("dog named Rex", user_id="A")
    assert [h.memory.source for h in hits] == ["user", "assistant"]
    assert hits[0].score > hits[1].score
    only_user = mem.search("dog named Rex", user_id="A", filters={"source": "user"})
    assert [h.memory.id for h in only_user] == [user_ev.memory.id]
    assert [m.id for m in mem.get_all(user_id="A", filters={"source": "user"})] == [user_ev.memory.id]


def test_an_assistant_echo_of_the_user_is_a_noop_with_its_reason(mem):
    evs = mem.add([{"role": "user", "content": "My dog is named Rex."},
                   {"role": "assistant", "content": "My dog is named Rex."}], user_id="A")
    assert [(e.event, e.memory.source) for e in evs] == [("ADD", "user"), ("NOOP", "assistant")]
    assert evs[1].reason.startswith("assistant turn adds nothing of its own")
    assert [m.source for m in mem.get_all(user_id="A")] == ["user"]


# ---------------------------------------------------------------- delete
def test_delete_all_is_scoped_and_unscoped_is_refused(mem, count):
    mem.add("I play the violin.", user_id="A")
    idb = mem.add("I play the drums.", user_id="B")[0].memory.id
    with pytest.raises(ScopeError):
        mem.delete_all()
    assert count(mem, "A") == 1
    counts = mem.delete_all(user_id="A")
    assert counts["memories"] == 1 and counts["messages"] == 1
    assert mem.get_all(user_id="A") == []
    assert mem.search("violin", user_id="A") == []
    assert [m.id for m in mem.get_all(user_id="B")] == [idb]
    assert [h.memory.id for h in mem.search("drums", user_id="B")] == [idb]


def test_delete_missing_and_get_missing_raise_not_found(mem):
    with pytest.raises(NotFoundError):
        mem.get("0" * 32)
    with pytest.raises(NotFoundError):
        mem.delete("0" * 32)
    with pytest.raises(NotFoundError):
        mem.history("0" * 32)
    with pytest.raises(NotFoundError):
        mem.update("0" * 32, "new text")


# ---------------------------------------------------------------- update
def test_update_reembeds_and_records_history(mem):
    mid = mem.add("I live in Paris.", user_id="A")[0].memory.id
    mem.add("I work as a baker.", user_id="A")
    item = mem.update(mid, "I live in Berlin.", reason="moved")
    assert item.id == mid and item.text == "I live in Berlin." and item.updated_at is not None
    hist = mem.history(mid)
    assert [(h.event, h.old_text, h.new_text) for h in hist] == [
        ("ADD", None, "I live in Paris."), ("UPDATE", "I live in Paris.", "I live in Berlin.")]
    assert hist[1].reason == "moved" and [h.version for h in hist] == [1, 2]
    dense = mem.search("I live in Berlin.", user_id="A", recipe="dense")
    assert dense[0].memory.id == mid and dense[0].explain["dense"] == pytest.approx(1.0, abs=1e-4)
    assert mem.search("Paris", user_id="A", recipe="bm25") == []
    assert [h.memory.id for h in mem.search("Berlin", user_id="A", recipe="bm25")] == [mid]
    row = mem.store._read("SELECT embedding FROM memories WHERE id=?", (mid,))[0][0]
    import numpy as np
    assert np.allclose(np.frombuffer(row, "<f4"), mem.embedder.embed_documents(["I live in Berlin."])[0])


# ---------------------------------------------------------------- as_of
def test_as_of_hides_what_was_said_later(mem):
    early = mem.add("I started learning the cello.", user_id="A", timestamp="2024-01-10T09:00:00Z")[0].memory.id
    late = mem.add("I sold my cello.", user_id="A", timestamp="2024-06-01T09:00:00Z")[0].memory.id
    assert {h.memory.id for h in mem.search("cello", user_id="A")} == {early, late}
    past = mem.search("cello", user_id="A", as_of="2024-03-01T00:00:00Z")
    assert [h.memory.id for h in past] == [early]
    assert mem.search("cello", user_id="A", as_of=datetime(2023, 12, 31, tzinfo=timezone.utc)) == []
    # 17:00+08:00 is 09:00Z, the instant the second memory was said: both are visible from then on
    assert {h.memory.id for h in mem.search("cello", user_id="A", as_of="2024-06-01T17:00:00+08:00")} == {early, late}
    assert [h.memory.id for h in mem.search("cello", user_id="A", as_of="2024-06-01T16:59:59+08:00")] == [early]


# ---------------------------------------------------------------- export / provenance
def test_export_has_provenance(mem):
    evs = mem.add([{"role": "user", "content": "I moved to Lisbon in March.", "timestamp": "2024-04-02T08:00:00Z"},
                   {"role": "assistant", "content": "Lisbon is lovely in spring."}], user_id="A",
                  metadata={"channel": "chat"})
    ex = mem.export(user_id="A")
    assert ex["format"] == "anchormem.export/1" and ex["user_id"] == "A" and ex["tenant"] == "default"
    assert ex["embedder"] == {"name": "hash-256", "dim": 256}
    msgs = {m["id"]: m for m in ex["messages"]}
    assert [m["id"] for m in ex["memories"]] == [e.memory.id for e in evs]
    for m in ex["memories"]:
        assert len(m["source_message_ids"]) == 1
        src = msgs[m["source_message_ids"][0]]
        assert src["content"] == m["source_text"] == m["text"]
        assert m["metadata"] == {"channel": "chat"}
    first = ex["memories"][0]
    assert msgs[first["source_message_ids"][0]]["timestamp"] == "2024-04-02T08:00:00+00:00"
    assert msgs[first["source_message_ids"][0]]["role"] == "user"
    assert [h["event"] for h in ex["history"][first["id"]]] == ["ADD"]
    json.dumps(ex)  # JSON-ready


# ---------------------------------------------------------------- keyword search, Chinese and English
def test_keyword_search_chinese_english_and_mixed(mem):
    zh = mem.add("我周末去杭州西湖划船了。", user_id="A")[0].memory.id
    en = mem.add("I repaired the bicycle chain on Sunday.", user_id="A")[0].memory.id
    evs = mem.add("我下个月搬到 City C，new job at Company K 下周一开始。", user_id="A")
    # a move and a job said with a date ahead are scheduled values: the turn is stored, and each fact holds from
    # its date (valid_from ahead of when it was said: facts.plans.scheduled_start)
    assert [(e.event, e.memory.kind) for e in evs] == [("ADD", "utterance"), ("ADD", "fact"), ("ADD", "fact")]
    assert evs[0].memory.text == "我下个月搬到 City C，new job at Company K 下周一开始。"
    assert all(e.memory.valid_from > e.memory.created_at for e in evs[1:])
    mixed = evs[0].memory.source_message_ids
    assert [h.memory.id for h in mem.search("西湖", user_id="A", recipe="bm25")] == [zh]
    assert [h.memory.id for h in mem.search("杭州划船", user_id="A", recipe="bm25")] == [zh]
    assert [h.memory.id for h in mem.search("bicycle chains", user_id="A", recipe="bm25")] == [en]
    for q, says in (("City C", "City C"), ("搬到", "搬到"), ("Company K new job", "Company K")):
        hits = mem.search(q, user_id="A", recipe="bm25")
        assert [h.memory.source_message_ids for h in hits] == [mixed], q
        assert says in hits[0].memory.text


# ---------------------------------------------------------------- ask (real embedder)
def test_ask_abstains_on_unrelated_and_cites_on_related(mem_e5):
    dog = mem_e5.add("I adopted a golden retriever named Biscuit last spring.", user_id="A")[0].memory.id
    sister = mem_e5.add("My sister works as a nurse in City C.", user_id="A")[0].memory.id
    for q in ("What is the capital of France?", "What is my favourite movie?", "法国的首都是哪里？"):
        a = mem_e5.ask(q, user_id="A")
        assert a.abstained is True and a.citations == [], q
        assert a.text in ("I have no record of that.", "我没有这方面的记录。")
    a = mem_e5.ask("Where does my sister work?", user_id="A")
    assert a.abstained is False and [c.id for c in a.citations][:1] == [sister]
    assert "My sister works as a nurse in City C." in a.text
    a = mem_e5.ask("What is the name of my dog?", user_id="A")
    assert a.abstained is False and [c.id for c in a.citations][:1] == [dog]
    assert mem_e5.ask("Where does my sister work?", user_id="B").abstained is True


def test_dense_ranking_with_real_embedder(mem_e5):
    ids = {t: mem_e5.add(t, user_id="A")[0].memory.id for t in (
        "I just bought some Apple shares for my portfolio.", "I eat an apple every morning with breakfast.",
        "我每天晚上跑步五公里。")}
    assert mem_e5.search("How are my tech stock investments doing?", user_id="A", recipe="dense")[0].memory.id \
        == ids["I just bought some Apple shares for my portfolio."]
    assert mem_e5.search("我平时做什么运动？", user_id="A", recipe="dense")[0].memory.id == ids["我每天晚上跑步五公里。"]


# ---------------------------------------------------------------- bad input
BAD_TEXTS = ["", "   \n\t ", "x" * 1_000_000, b"\xff\xfe\xfa bad", "lone \ud800 surrogate", None, 42, []]


@pytest.mark.parametrize("bad", BAD_TEXTS, ids=["empty", "whitespace", "1MB", "bad-utf8", "surrogate", "None",
                                                "int", "empty-list"])
def test_bad_text_raises_and_loses_nothing(mem, count, bad):
    mem.add("I keep bees on the roof.", user_id="A")
    with pytest.raises(InvalidInputError):
        mem.add(bad, user_id="A")
    with pytest.raises(InvalidInputError):
        mem.add([{"role": "user", "content": "fine text"}, {"role": "user", "content": bad}], user_id="A")
    assert count(mem, "A") == 1
    assert [m.text for m in mem.get_all(user_id="A")] == ["I keep bees on the roof."]


def test_bad_search_arguments(mem, count):
    mem.add("I keep bees on the roof.", user_id="A")
    for limit in (0, -1, 1001, True, 2.5, "5"):
        with pytest.raises(InvalidInputError):
            mem.search("bees", user_id="A", limit=limit)
    for bad_filter in (["source", "user"], "source=user", 5):
        with pytest.raises(FilterError):
            mem.search("bees", user_id="A", filters=bad_filter)
    with pytest.raises(InvalidInputError):
        mem.search("   ", user_id="A")
    with pytest.raises(InvalidInputError):
        mem.get_all(user_id="A", limit=0)
    with pytest.raises(InvalidInputError):
        mem.get_all(user_id="A", offset=-1)
    with pytest.raises(InvalidInputError):
        mem.add("I keep wasps.", user_id="A", timestamp="not a date")
    with pytest.raises(InvalidInputError):
        mem.add("I keep wasps.", user_id="A", metadata={"k": {"nested": 1}})
    with pytest.raises(InvalidInputError):
        mem.add([{"role": "robot", "content": "I keep wasps."}], user_id="A")
    assert count(mem, "A") == 1


def test_get_all_limit_and_offset(mem):
    ids = [mem.add(f"Fact number {i} about gardening.", user_id="A",
                   timestamp=f"2024-01-0{i + 1}T00:00:00Z")[0].memory.id for i in range(4)]
    assert [m.id for m in mem.get_all(user_id="A")] == ids
    assert [m.id for m in mem.get_all(user_id="A", limit=2)] == ids[:2]
    assert [m.id for m in mem.get_all(user_id="A", limit=2, offset=1)] == ids[1:3]
    assert [m.id for m in mem.get_all(user_id="A", offset=3)] == ids[3:]


def test_created_at_is_the_frozen_utc_instant(mem):
    with frozen_clock("2025-07-25T02:00:00Z"):
        item = mem.add("Note: renew the parking permit.", user_id="A")[0].memory
    assert item.created_at == datetime(2025, 7, 25, 2, 0, tzinfo=timezone.utc)
    assert item.created_at.utcoffset().total_seconds() == 0
    stored = mem.get(item.id)
    assert stored.created_at == datetime(2025, 7, 25, 2, 0, tzinfo=timezone.utc)
    assert stored.created_at.tzinfo is not None and stored.valid_from == stored.created_at
