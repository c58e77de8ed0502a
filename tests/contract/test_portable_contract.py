"""Export → import round trips on every backend (SQLite and PostgreSQL + pgvector): ``Memory.import_memories`` of
an ``anchormem.export/1`` document restores every row exactly, and ``Store.import_rows`` is the store half of it.

Expected values come from the source store (its export, its history, its search scores), never from the code
under test; "equal" means the whole export document except ``exported_at`` (and the user id when it is
overridden)."""

from __future__ import annotations

import copy
import uuid
from datetime import datetime, timezone

import pytest

from anchormem import InvalidInputError, Memory, NotFoundError
from anchormem.ingest.classify import content_hash
from anchormem.stores.protocol import NewMemory, StoredMessage
from anchormem.text.tokenize import index_text
from anchormem.types import Entity, HistoryEntry, Label, MemoryItem, Scope

T0 = datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc)


def build_rich(mem: Memory, user: str = "maya") -> dict[str, str]:
    """A user with superseded facts, an update, a done commitment, labels, metadata, an agent, an expiry,
    Chinese and assistant turns and access counts. Returns the ids of the memories the tests talk about."""
    ids: dict[str, str] = {}
    ids["berlin"] = mem.add("I live in Berlin.", user_id=user, timestamp="2024-01-01T10:00:00Z")[0].memory.id
    ev = mem.add("I moved to Munich.", user_id=user, timestamp="2024-03-01T10:00:00Z")
    ids["munich"] = ev[0].memory.id
    assert [e.event for e in ev] == ["ADD", "SUPERSEDE"]
    ids["dentist"] = mem.add("I will call the dentist next Friday.", user_id=user, session_id="s1",
                             timestamp="2024-03-02T10:00:00+08:00", metadata={"channel": "app", "n": 3}
                             )[0].memory.id
    ev = mem.add([{"role": "user", "content": "我上周三刚搬到杭州，月租4500元。", "name": "林晓"},
                  {"role": "assistant", "content": "恭喜乔迁！周末可以去西溪湿地走走。"}],
                 user_id=user, session_id="s2", agent_id="helper", timestamp="2024-05-06T21:00:00+08:00")
    ids["rent"], ids["home"], ids["rent_fact"], ids["assistant"] = (e.memory.id for e in ev)  # the turn, its
    # home fact, its rent fact (the quantity reader), the assistant's turn
    ids["tea"] = mem.add("My sister Ana loves green tea from Kyoto.", user_id=user,
                         timestamp="2024-05-07T09:00:00Z", metadata={"expires_at": "2031-01-01T00:00:00Z"}
                         )[0].memory.id
    mem.update(ids["tea"], "My sister Ana loves oolong tea from Taipei.", reason="she changed her mind",
               labels=[{"domain": "food", "topic": "drinks", "intent": "preference"}])
    mem.complete(ids["dentist"], reason="called")
    mem.store.touch(mem.tenant, [ids["rent"], ids["rent"], ids["munich"]],
                    datetime(2024, 6, 1, 8, 30, 15, 123456, tzinfo=timezone.utc))
    return ids


def without(doc: dict, *keys: str) -> dict:
    return {k: v for k, v in doc.items() if k not in keys}


def relabel_user(doc: dict, user: str) -> dict:
    out = copy.deepcopy(doc)
    out["user_id"] = user
    for m in out["memories"]:
        m["user_id"] = user
    return out


@pytest.fixture
def source(mem: Memory) -> tuple[Memory, dict[str, str], dict]:
    ids = build_rich(mem)
    return mem, ids, mem.export(user_id="maya")


# ================================================================ round trips
def test_round_trip_restores_every_row(source, target):
    src, ids, doc = source
    dst = target.memory()
    counts = dst.import_memories(doc)
    assert counts == {"messages": len(doc["messages"]), "memories": len(doc["memories"]),
                      "history": sum(len(v) for v in doc["history"].values()),
                      "entities": sum(len(m["entities"]) for m in doc["memories"]),
                      "reviews": len(doc["reviews"]), "skipped_messages": 0, "skipped_memories": 0,
                      "skipped_reviews": 0}
    again = dst.export(user_id="maya")
    assert without(again, "exported_at") == without(doc, "exported_at")
    # the parts the document is made of, read back through the API
    for mid in ids.values():
        assert dst.history(mid) == src.history(mid)
        assert dst.get(mid) == src.get(mid)
    assert [h.event for h in dst.history(ids["tea"])] == ["ADD", "UPDATE"]
    assert [h.event for h in dst.history(ids["berlin"])] == ["ADD", "SUPERSEDE"]
    assert [h.event for h in dst.history(ids["dentist"])] == ["ADD", "DONE"]
    assert dst.get(ids["rent"]).access_count == 2
    assert dst.get(ids["tea"]).expires_at == datetime(2031, 1, 1, tzinfo=timezone.utc)


def test_import_into_another_user(source, target):
    _, ids, doc = source
    dst = target.memory()
    dst.import_memories(doc, user_id="noor")
    again = dst.export(user_id="noor")
    assert without(again, "exported_at") == without(relabel_user(doc, "noor"), "exported_at")
    assert dst.get_all(user_id="maya", include_superseded=True) == []
    assert dst.get(ids["munich"]).user_id == "noor"
    assert dst.search("Munich", user_id="noor", recipe="bm25")[0].memory.id == ids["munich"]


def test_search_after_import_matches_the_source(source, target):
    src, ids, doc = source
    dst = target.memory()
    dst.import_memories(doc)
    for query in ("Where do I live now?", "月租多少", "sister tea"):
        want = [(h.memory.id, round(h.explain["dense"], 5)) for h in src.search(query, user_id="maya",
                                                                                  recipe="dense", limit=10)]
        got = [(h.memory.id, round(h.explain["dense"], 5)) for h in dst.search(query, user_id="maya",
                                                                                 recipe="dense", limit=10)]
        assert got == want and got
    assert [h.memory.id for h in dst.search("Munich", user_id="maya", recipe="bm25")] == [ids["munich"]]
    assert [h.memory.id for h in dst.search("月租", user_id="maya", recipe="bm25")] == [ids["rent"]]
    # the index carries the speaker and when it was said, as on add
    turn = dst.get(ids["rent"]).source_message_ids  # the rent turn, or its home fact's clause (same turn)
    assert turn in [h.memory.source_message_ids for h in dst.search("林晓", user_id="maya", recipe="bm25")]
    said_in_may = {m["id"] for m in doc["memories"] if m["valid_to"] is None
                   and (m["created_at"].startswith("2024-05") or (m["event_time"] or "").startswith("2024-05"))}
    assert said_in_may == {ids["rent"], ids["home"], ids["rent_fact"], ids["assistant"], ids["tea"]}
    found = {h.memory.id for h in dst.search("May", user_id="maya", recipe="bm25", limit=10)}
    turn_ids = {ids["rent"], ids["home"], ids["rent_fact"]}
    assert found <= said_in_may and said_in_may - found <= turn_ids and \
        found & turn_ids  # one turn: search shows the turn or one of its facts
    # the superseded fact and the done commitment stay out of current search
    current = {h.memory.id for h in dst.search("Berlin dentist", user_id="maya", limit=20)}
    assert ids["berlin"] not in current and ids["dentist"] not in current


def test_as_of_reads_after_import(source, target):
    _, ids, doc = source
    dst = target.memory()
    dst.import_memories(doc)
    feb = dst.search("live Berlin Munich", user_id="maya", as_of="2024-02-01T00:00:00Z", limit=10)
    apr = dst.search("live Berlin Munich", user_id="maya", as_of="2024-04-01T00:00:00Z", limit=10)
    assert ids["berlin"] in {h.memory.id for h in feb} and ids["munich"] not in {h.memory.id for h in feb}
    assert ids["munich"] in {h.memory.id for h in apr} and ids["berlin"] not in {h.memory.id for h in apr}


def test_import_into_a_cached_scope_is_searchable(target, source):
    """The target user already has memories and a warm vector cache: imported rows must appear in dense search."""
    _, ids, doc = source
    dst = target.memory()
    dst.add("I play the cello on Sundays.", user_id="maya", timestamp="2023-12-01T10:00:00Z")
    assert len(dst.search("cello", user_id="maya", recipe="dense")) == 1
    dst.import_memories(doc)
    hits = dst.search("I moved to Munich.", user_id="maya", recipe="dense", limit=3)
    assert hits[0].memory.id == ids["munich"] and hits[0].explain["dense"] == pytest.approx(1.0, abs=1e-5)


# ================================================================ conflicts
def test_conflict_error_names_the_id_and_writes_nothing(source, backend):
    src, ids, doc = source
    before = src.export(user_id="maya")
    first = doc["memories"][0]["id"]
    with pytest.raises(InvalidInputError, match=f"memory id '{first}' already exists"):
        src.import_memories(doc)
    assert without(src.export(user_id="maya"), "exported_at") == without(before, "exported_at")


def test_conflict_skip_imports_only_new_rows(source, target):
    src, ids, doc = source
    dst = target.memory()
    dst.import_memories(doc)
    src.add("We adopted a cat named Pixel.", user_id="maya", timestamp="2024-07-01T12:00:00Z")
    bigger = src.export(user_id="maya")
    counts = dst.import_memories(bigger, on_conflict="skip")
    assert counts == {"messages": 1, "memories": 1, "history": 1, "entities": 1, "reviews": 0,
                      "skipped_messages": len(doc["messages"]), "skipped_memories": len(doc["memories"]),
                      "skipped_reviews": len(doc["reviews"])}
    assert without(dst.export(user_id="maya"), "exported_at") == without(bigger, "exported_at")


def test_duplicate_of_a_current_memory_is_a_conflict(source, target):
    _, ids, doc = source
    dst = target.memory()
    own = dst.add("I moved to Munich.", user_id="maya", timestamp="2024-03-05T10:00:00Z")[0].memory.id
    with pytest.raises(InvalidInputError, match=f"duplicates current memory '{own}'"):
        dst.import_memories(doc)
    assert [m.id for m in dst.get_all(user_id="maya", include_superseded=True)] == [own]
    assert len(dst.store.messages(Scope(user_id="maya"))) == 1  # its own turn; none of the export's
    counts = dst.import_memories(doc, on_conflict="skip")
    assert counts["skipped_memories"] == 1 and counts["memories"] == len(doc["memories"]) - 1
    with pytest.raises(NotFoundError):
        dst.get(ids["munich"])
    assert dst.get(ids["berlin"]).superseded_by == ids["munich"]  # kept exactly, even if dangling here


def test_malformed_document_writes_nothing(source, target):
    _, _, doc = source
    dst = target.memory()
    bad = copy.deepcopy(doc)
    bad["memories"][-1]["valid_from"] = "not a time"
    with pytest.raises(InvalidInputError, match=r"memories\.\d+\.valid_from"):
        dst.import_memories(bad)
    assert dst.get_all(user_id="maya", include_superseded=True) == []
    assert dst.store.messages(Scope(user_id="maya")) == []


# ================================================================ mem0
MEM0 = {"results": [
    {"id": "f38b689d-6b24-45b7-bced-17fbb4d8bac7", "memory": "Travelling to Paris next month",
     "hash": "62bc074f56d1f909f1b4c2b639f56f6a", "metadata": {"category": "travel"},
     "created_at": "2024-07-25T23:57:00.108347-07:00", "updated_at": "2024-07-26T08:00:00-07:00",
     "user_id": "alex", "run_id": "trip-1"},
    {"id": "0a1c5e2e-3a0b-4c8e-9b7e-5f1f7d0e6c11", "memory": "喜欢早上喝咖啡然后去散步", "hash": "9f0e",
     "metadata": None, "created_at": "2024-07-20T08:00:00+08:00", "updated_at": None, "user_id": "alex"},
]}


def test_mem0_import_on_every_backend(backend):
    mem = backend.memory()
    counts = mem.import_memories(MEM0)
    assert counts["memories"] == 2 and counts["history"] == 2 and counts["messages"] == 0
    items = mem.get_all(user_id="alex")
    assert [m.text for m in items] == ["喜欢早上喝咖啡然后去散步", "Travelling to Paris next month"]
    assert {m.source for m in items} == {"external"} and {m.kind for m in items} == {"utterance"}
    paris = items[1]
    assert paris.session_id == "trip-1"
    assert paris.metadata == {"category": "travel", "mem0_id": "f38b689d-6b24-45b7-bced-17fbb4d8bac7"}
    assert paris.created_at == datetime(2024, 7, 26, 6, 57, 0, 108347, tzinfo=timezone.utc)
    assert paris.valid_from == paris.created_at
    assert paris.updated_at == datetime(2024, 7, 26, 15, 0, tzinfo=timezone.utc)
    assert [h.event for h in mem.history(paris.id)] == ["ADD"]
    assert mem.search("咖啡", user_id="alex", recipe="bm25")[0].memory.id == items[0].id
    with pytest.raises(InvalidInputError, match="already exists"):
        mem.import_memories(MEM0)
    assert mem.import_memories(MEM0, on_conflict="skip")["skipped_memories"] == 2


# ================================================================ Store.import_rows, called directly
def _row(embed, text: str, *, user: str = "alice", valid_to: datetime | None = None, access: int = 0) -> NewMemory:
    item = MemoryItem(id=uuid.uuid4().hex, text=text, user_id=user, created_at=T0, valid_from=T0,
                      updated_at=datetime(2024, 2, 2, tzinfo=timezone.utc), valid_to=valid_to, access_count=access,
                      labels=[Label(domain="food", score=0.75, primary=True)],
                      entities=[Entity(type="name", value="Kyoto")], metadata={"k": "v"}, source_text=text)
    return NewMemory(item, embed(text), content_hash(text, kind="utterance", source="user", speaker=None),
                     index_text(text))


def test_import_rows_inserts_exactly_and_adds_no_history(store, embed):
    a = _row(embed, "green tea from Kyoto", access=4)
    b = _row(embed, "old address in Kyoto", valid_to=datetime(2024, 3, 1, tzinfo=timezone.utc))
    msg = StoredMessage(id="m1", scope=Scope(user_id="alice", session_id="s"), role="user",
                        content="green tea from Kyoto", ts=T0, name="Alice", metadata={"x": 1})
    hist = [HistoryEntry(memory_id=a.item.id, version=1, event="ADD", new_text="green tea", actor="add",
                         created_at=T0),
            HistoryEntry(memory_id=a.item.id, version=2, event="UPDATE", old_text="green tea",
                         new_text="green tea from Kyoto", actor="update", reason="r",
                         created_at=datetime(2024, 2, 2, tzinfo=timezone.utc))]
    counts = store.import_rows("default", [msg], [a, b], hist)
    assert counts == {"messages": 1, "memories": 2, "history": 2, "entities": 2, "reviews": 0,
                      "skipped_messages": 0, "skipped_memories": 0, "skipped_reviews": 0}
    assert store.get("default", a.item.id) == a.item
    assert store.get("default", b.item.id) == b.item
    got = store.history("default", a.item.id)  # said_at is derived on read: the ADD's is when the memory was said
    assert [h.model_copy(update={"said_at": None}) for h in got] == hist
    assert [h.said_at for h in got] == [a.item.valid_from, None]
    with pytest.raises(NotFoundError):
        store.history("default", b.item.id)  # no history given, none made up
    sc = Scope(user_id="alice")
    assert store.messages(sc)[0] == {"id": "m1", "agent_id": None, "session_id": "s", "role": "user",
                                     "name": "Alice", "content": "green tea from Kyoto",
                                     "timestamp": T0.isoformat(), "metadata": {"x": 1}}
    assert store.metadata_keys(sc) == {"k"}
    assert [i for i, _ in store.dense_search(sc, embed("green tea from Kyoto"), 5, None)] == [a.item.id]
    assert [i for i, _ in store.keyword_search(sc, ["kyoto"], 5, None)] == [a.item.id]
    assert [i for i, _ in store.keyword_search(sc, ["kyoto"], 5, None,
                                               as_of=datetime(2024, 2, 1, tzinfo=timezone.utc))] in \
        ([a.item.id, b.item.id], [b.item.id, a.item.id])


def test_import_rows_rejects_a_bad_batch_before_writing(store, embed):
    a = _row(embed, "one")
    with pytest.raises(InvalidInputError, match="on_conflict"):
        store.import_rows("default", [], [a], [], on_conflict="replace")
    with pytest.raises(InvalidInputError, match="listed twice"):
        store.import_rows("default", [], [a, a], [])
    with pytest.raises(InvalidInputError, match="not imported"):
        store.import_rows("default", [], [a], [HistoryEntry(memory_id="nope", version=1, event="ADD",
                                                                created_at=T0)])
    with pytest.raises(InvalidInputError, match="tenant"):
        store.import_rows("other", [], [a], [])
    assert store.get_many("default", [a.item.id]) == {}
    assert store.import_rows("default", [], [], []) == dict.fromkeys(
        ("messages", "memories", "history", "entities", "reviews", "skipped_messages", "skipped_memories",
         "skipped_reviews"), 0)


def test_review_queue_travels_with_the_export(mem, target):
    """Export → import carries the review queue (every status, exactly), and importing the same export again with
    on_conflict='skip' queues nothing twice."""
    mem.add("My phone number is 555-0100.", user_id="maya", timestamp="2024-01-01T10:00:00Z")
    held = mem.add("My phone number is 555-0199.", user_id="maya", timestamp="2024-02-01T10:00:00Z")
    mem.add("My card number is 4111 1111 1111 1111.", user_id="maya", timestamp="2024-02-02T10:00:00Z")
    mem.add("My card number is 5500 0000 0000 0004.", user_id="maya", timestamp="2024-02-03T10:00:00Z")
    pending = mem.review_queue(user_id="maya")
    assert [r.proposed.text for r in pending] == ["My phone number is 555-0199.",
                                                  "My card number is 5500 0000 0000 0004."]
    mem.reject(held[0].review_id)
    doc = mem.export(user_id="maya")
    assert [(r["id"], r["status"]) for r in doc["reviews"]] == [(pending[0].id, "rejected"), (pending[1].id, "pending")]
    dst = target.memory()
    counts = dst.import_memories(doc)
    assert (counts["reviews"], counts["skipped_reviews"]) == (2, 0)
    assert dst.review_queue(user_id="maya", status="all") == mem.review_queue(user_id="maya", status="all")
    again = dst.import_memories(doc, on_conflict="skip")
    assert (again["reviews"], again["skipped_reviews"]) == (0, 2)
    assert len(dst.review_queue(user_id="maya", status="all")) == 2
    # the held change can be approved where it was imported
    events = dst.approve(pending[1].id)
    assert [(e.event, e.memory.text) for e in events] == [
        ("ADD", "My card number is 5500 0000 0000 0004."), ("SUPERSEDE", "My card number is 4111 1111 1111 1111.")]
