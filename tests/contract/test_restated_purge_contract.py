"""A restatement (``add`` returning NOOP) cites its turn, so forgetting the memory forgets every turn that said it.

The duplicate's raw message is stored like any turn; the memory it duplicates gains its id in
``source_message_ids`` (history: a ``NOOP`` version naming the message). ``delete(purge=True)`` then deletes
every message only that memory cites, and keeps a message another memory still cites. Both paths are covered: an
utterance stored twice (the store's content-hash duplicate) and a fact stated again (the fact planner's NOOP).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from anchormem.session import SessionKey
from anchormem.stores.protocol import StoredMessage
from anchormem.testing import run_concurrently
from anchormem.types import Scope

from .test_contract import T0, make, put, scope
from .test_purge_scan_contract import NEEDLE, needle_columns, raw_file_hits

T1 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=2)


def _messages(mem, user: str = "u") -> list[tuple[str, str]]:
    """(id, content) of every stored message of ``user``, oldest first (read from the store itself)."""
    return [(m["id"], m["content"]) for m in mem.store.messages(Scope(tenant=mem.tenant, user_id=user))]


def test_same_utterance_twice_cites_both_turns_and_purge_deletes_both(backend):
    mem = backend.memory()
    text = f"I went hiking at {NEEDLE} ridge with my sister."
    first = mem.add(text, user_id="u", session_id="s1", timestamp=T1)
    again = mem.add(text, user_id="u", session_id="s2", timestamp=T2)
    (m1, _), (m2, _) = msgs = _messages(mem)
    assert [c for _, c in msgs] == [text, text] and m1 != m2
    assert [e.event for e in first] == ["ADD"] and [e.event for e in again] == ["NOOP"]
    mid = first[0].memory.id
    assert again[0].memory.id == mid and again[0].memory.source_message_ids == [m1, m2]
    assert [(m.id, m.source_message_ids) for m in mem.get_all(user_id="u")] == [(mid, [m1, m2])]
    assert mem.get(mid).source_message_ids == [m1, m2]
    hist = mem.history(mid)
    assert [(h.event, h.actor, h.new_text, h.reason) for h in hist] == [
        ("ADD", "add", text, None), ("NOOP", "add", None, f"restated in message {m2}")]
    dump = mem.export(user_id="u")
    assert [m["source_message_ids"] for m in dump["memories"]] == [[m1, m2]]
    assert [h["event"] for h in dump["history"][mid]] == ["ADD", "NOOP"]
    assert [m["id"] for m in dump["messages"]] == [m1, m2]

    counts = mem.delete(mid, purge=True)
    assert counts["memories"] == 1 and counts["messages"] == 2
    assert _messages(mem) == []
    assert mem.export(user_id="u")["messages"] == []
    assert needle_columns(mem.store) == [] and raw_file_hits(backend) == []
    # both sessions' buffers quoted the text: the restating turn's session (s2) is cleared too
    assert mem.sessions.turns(SessionKey("u", "s1")) == [] and mem.sessions.turns(SessionKey("u", "s2")) == []


def test_export_import_keeps_a_restatements_citation(backend, target):
    src = backend.memory()
    text = "I went hiking at Mount Tamalpais with my sister."
    mid = src.add(text, user_id="u", timestamp=T1)[0].memory.id
    src.add(text, user_id="u", timestamp=T2)
    ids = [i for i, _ in _messages(src)]
    mem = target.memory()
    counts = mem.import_memories(src.export(user_id="u"))
    assert (counts["messages"], counts["memories"]) == (2, 1)
    assert mem.get(mid).source_message_ids == ids
    assert [(h.event, h.reason) for h in mem.history(mid)] == [("ADD", None), ("NOOP", f"restated in message {ids[1]}")]
    assert mem.delete(mid, purge=True)["messages"] == 2
    assert _messages(mem) == []


def test_same_utterance_twice_in_one_add_cites_both_turns(backend):
    mem = backend.memory()
    text = "I went hiking at Mount Tamalpais with my sister."
    events = mem.add([{"role": "user", "content": text}, {"role": "user", "content": text}], user_id="u",
                     timestamp=T1)
    ids = [i for i, _ in _messages(mem)]
    assert len(ids) == 2
    assert [e.event for e in events] == ["ADD", "NOOP"] and events[0].memory.id == events[1].memory.id
    assert [m.source_message_ids for m in mem.get_all(user_id="u")] == [ids]
    assert mem.delete(events[0].memory.id, purge=True)["messages"] == 2
    assert _messages(mem) == []


def test_restated_fact_cites_the_new_turn_and_purge_deletes_both(backend):
    mem = backend.memory()
    first = mem.add("I live in Lisbon.", user_id="u", timestamp=T1)
    again = mem.add("I live in Lisbon.", user_id="u", timestamp=T2)
    (m1, _), (m2, _) = _messages(mem)
    assert [(e.event, e.memory.kind) for e in first] == [("ADD", "fact")]
    assert [(e.event, e.memory.kind) for e in again] == [("NOOP", "fact")]
    fid = first[0].memory.id
    assert again[0].memory.id == fid and again[0].memory.source_message_ids == [m1, m2]
    assert [(m.id, m.source_message_ids) for m in mem.get_all(user_id="u")] == [(fid, [m1, m2])]
    assert [(h.event, h.reason) for h in mem.history(fid)] == [("ADD", None), ("NOOP", f"restated in message {m2}")]

    assert mem.delete(fid, purge=True)["messages"] == 2
    assert _messages(mem) == []
    assert mem.get_all(user_id="u") == []


def test_a_turn_another_memory_cites_survives_purging_the_restated_one(backend):
    mem = backend.memory()
    turn = "I live in Lisbon. I went hiking yesterday."
    first = mem.add(turn, user_id="u", timestamp=T1)  # the turn (utterance) and its fact, both citing it
    again = mem.add("I live in Lisbon.", user_id="u", timestamp=T2)  # the fact restated: NOOP
    (m1, c1), (m2, c2) = _messages(mem)
    assert (c1, c2) == (turn, "I live in Lisbon.")
    by_kind = {m.kind: m for m in mem.get_all(user_id="u")}
    assert sorted(by_kind) == ["fact", "utterance"] and sorted(e.memory.id for e in first) == sorted(
        m.id for m in by_kind.values())
    fact, utt = by_kind["fact"], by_kind["utterance"]
    assert [(e.event, e.memory.id) for e in again] == [("NOOP", fact.id)]
    assert fact.source_message_ids == [m1, m2] and utt.source_message_ids == [m1]

    counts = mem.delete(fact.id, purge=True)
    assert counts["messages"] == 1  # m2, cited only by the fact; m1 is still the utterance's source
    assert _messages(mem) == [(m1, turn)]
    assert [(m.id, m.source_message_ids) for m in mem.get_all(user_id="u")] == [(utt.id, [m1])]
    assert json.loads(json.dumps(mem.export(user_id="u")["messages"]))[0]["content"] == turn

    assert mem.delete(utt.id, purge=True)["messages"] == 1
    assert _messages(mem) == []


def _turn(mid: str, text: str, user: str = "alice") -> StoredMessage:
    return StoredMessage(id=mid, scope=scope(user), role="user", content=text, ts=T0)


def test_store_duplicate_cites_its_turn_once(store, embed):
    """At the store: a duplicate appends its turns to the existing memory's citations; a turn already cited
    changes nothing (no repeated id, no history version)."""
    text = "I keep bees on the roof."
    (m1,) = put(store, make(embed, text, msg_ids=["a"]), messages=[_turn("a", text)])
    res = store.write([_turn("b", text)], [make(embed, text, msg_ids=["b"])], actor="test")
    assert [(r.event, r.item.id, r.item.source_message_ids) for r in res] == [("NOOP", m1, ["a", "b"])]
    res = store.write([_turn("b", text)], [make(embed, text, msg_ids=["b"])], actor="test")  # the same turn again
    assert [(r.event, r.item.id, r.item.source_message_ids) for r in res] == [("NOOP", m1, ["a", "b"])]
    assert [(h.event, h.reason) for h in store.history("default", m1)] == [("ADD", None),
                                                                           ("NOOP", "restated in message b")]
    assert [m["id"] for m in store.messages(scope())] == ["a", "b"]
    assert store.delete("default", m1, purge=True, actor="test")["messages"] == 2
    assert store.messages(scope()) == []


def test_store_restated_cites_turns_of_this_write_on_the_users_memory(store, embed):
    """``restated``: existing memories a restatement matched -> the ids of this write's turns restating them;
    only turns written in this call, only on a memory of their own user."""
    text = "I live in Lisbon."
    (m1,) = put(store, make(embed, text, msg_ids=["a"]), messages=[_turn("a", text)])
    (other,) = put(store, make(embed, text, user="bob", msg_ids=["z"]), messages=[_turn("z", text, "bob")])
    res = store.write([_turn("b", text)], [], actor="test", restated={m1: ["b", "not-written"], other: ["b"]})
    assert res == []
    assert store.get("default", m1).source_message_ids == ["a", "b"]
    assert store.get("default", other).source_message_ids == ["z"]  # bob's memory does not cite alice's turn
    assert [h.event for h in store.history("default", other)] == ["ADD"]
    assert store.delete("default", m1, purge=True, actor="test")["messages"] == 2
    assert [m["id"] for m in store.messages(scope("bob"))] == ["z"]


def test_concurrent_duplicates_each_cite_their_turn(backend, embed):
    text = "I keep bees on the roof."
    stores = [backend.open() for _ in range(6)]
    out = run_concurrently([lambda s=s, i=i: s.write([_turn(f"t{i}", text)], [make(embed, text, msg_ids=[f"t{i}"])],
                                                     actor="t") for i, s in enumerate(stores)])
    assert sorted(r[0].event for r in out) == ["ADD"] + ["NOOP"] * 5
    (row,) = stores[0].list_memories(scope(), None)
    assert sorted(row.source_message_ids) == [f"t{i}" for i in range(6)]  # no citation lost to a race
    assert len(stores[0].history("default", row.id)) == 6
