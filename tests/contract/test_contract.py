"""The Store contract, run against every backend (SQLite and PostgreSQL + pgvector): first the Store protocol
called directly, then the same behaviour through ``Memory``. Values are asserted exactly where they are defined
(ids, texts, counts, events, order); scores only where the contract fixes them (cosine of a vector with itself)."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from anchormem import EmbedderMismatchError, InvalidInputError, NotFoundError, Scope
from anchormem.testing import run_concurrently
from anchormem.filters import parse_filters
from anchormem.ingest.classify import content_hash
from anchormem.stores.protocol import NewMemory, Store, StoredMessage
from anchormem.text.tokenize import index_text, query_terms
from anchormem.types import Entity, Label, MemoryItem

from .conftest import DIM

T0 = datetime(2025, 7, 20, 12, 0, tzinfo=timezone.utc)


def make(embed, text: str, *, user: str = "alice", tenant: str = "default", agent: str | None = None,
         session: str | None = None, at: datetime = T0, metadata: dict | None = None, labels: list[Label] = (),
         entities: list[Entity] = (), valid_to: datetime | None = None, msg_ids: list[str] = (),
         valid_from: datetime | None = None) -> NewMemory:
    item = MemoryItem(id=uuid.uuid4().hex, text=text, tenant=tenant, user_id=user, agent_id=agent, session_id=session,
                      created_at=at, valid_from=valid_from or at, valid_to=valid_to, metadata=dict(metadata or {}),
                      labels=list(labels), entities=list(entities), source_message_ids=list(msg_ids),
                      source_text=text)
    return NewMemory(item, embed(text), content_hash(text, kind=item.kind, source=item.source, speaker=None),
                     index_text(text))


def scope(user: str = "alice", tenant: str = "default", **kw) -> Scope:
    return Scope(tenant=tenant, user_id=user, **kw)


def put(store, *news: NewMemory, messages: list[StoredMessage] = ()) -> list[str]:
    return [r.item.id for r in store.write(list(messages), list(news), actor="test")]


def flt(store, sc: Scope, filters: dict):
    return parse_filters(filters, metadata_keys=lambda: store.metadata_keys(sc))


def texts(items) -> list[str]:
    return [it.text for it in items]




# ================================================================ Store protocol, called directly
def test_store_satisfies_protocol(store):
    assert isinstance(store, Store)


def test_write_add_then_exact_duplicate_is_noop_with_existing_id(store, embed):
    first = store.write([], [make(embed, "I drink coffee every morning.")], actor="test")
    assert [r.event for r in first] == ["ADD"]
    again = make(embed, "I drink coffee every morning.")
    second = store.write([], [again], actor="test")
    assert [r.event for r in second] == ["NOOP"]
    assert second[0].item.id == first[0].item.id != again.item.id
    assert texts(store.list_memories(scope(), None)) == ["I drink coffee every morning."]
    # the same text for another user or agent is not a duplicate
    other = store.write([], [make(embed, "I drink coffee every morning.", user="bob"),
                             make(embed, "I drink coffee every morning.", agent="helper")], actor="test")
    assert [r.event for r in other] == ["ADD", "ADD"]


def test_concurrent_identical_writes_from_separate_store_objects_give_one_row(backend, embed):
    stores = [backend.open() for _ in range(8)]
    out = run_concurrently([lambda s=s: s.write([], [make(embed, "I keep bees on the roof.")], actor="t")
                       for s in stores])
    events = sorted(r[0].event for r in out)
    assert events == ["ADD"] + ["NOOP"] * 7
    assert len({r[0].item.id for r in out}) == 1
    assert len(stores[0].list_memories(scope(), None, include_superseded=True)) == 1
    assert [h.event for h in stores[0].history("default", out[0][0].item.id)] == ["ADD"]


def test_concurrent_writes_of_many_rows_one_store_object(store, embed):
    batches = [[make(embed, f"Batch fact number {j}.") for j in range(5)] for _ in range(6)]
    out = run_concurrently([lambda b=b: store.write([], b, actor="t") for b in batches])
    assert sum(r.event == "ADD" for res in out for r in res) == 5
    assert sorted(texts(store.list_memories(scope(), None))) == [f"Batch fact number {j}." for j in range(5)]


def test_get_and_get_many(store, embed):
    a, b = put(store, make(embed, "My sister lives in Porto.", entities=[Entity(type="name", value="Porto")]),
               make(embed, "I play chess on Sundays.", metadata={"topic": "hobby"}))
    got = store.get("default", a)
    assert (got.id, got.text, got.user_id, got.created_at) == (a, "My sister lives in Porto.", "alice", T0)
    assert got.entities == [Entity(type="name", value="Porto")]
    assert store.get("default", b).metadata == {"topic": "hobby"}
    many = store.get_many("default", [a, b, "missing"])
    assert set(many) == {a, b} and many[b].text == "I play chess on Sundays."
    assert store.get_many("default", []) == {}
    assert store.get_many("other-tenant", [a, b]) == {}
    with pytest.raises(NotFoundError):
        store.get("default", "missing")
    with pytest.raises(NotFoundError):
        store.get("other-tenant", a)


def test_list_memories_order_limit_offset(store, embed):
    put(store, *[make(embed, f"Note {i}: water the fern.", at=T0 + timedelta(hours=5 - i)) for i in range(5)])
    assert texts(store.list_memories(scope(), None)) == [f"Note {i}: water the fern." for i in (4, 3, 2, 1, 0)]
    assert texts(store.list_memories(scope(), None, limit=2, offset=1)) == ["Note 3: water the fern.",
                                                                           "Note 2: water the fern."]
    assert texts(store.list_memories(scope(), None, offset=4)) == ["Note 0: water the fern."]
    assert store.list_memories(scope("nobody"), None) == []


@pytest.fixture
def filtered(store, embed):
    """Five memories with metadata, labels, entities and times spread over two days."""
    put(store,
        make(embed, "Salary review with Dana on Monday.", at=T0, metadata={"category": "work", "priority": 3},
             labels=[Label(domain="work", topic="salary", primary=True)],
             entities=[Entity(type="name", value="Dana")]),
        make(embed, "Bought oolong tea for 120 yuan.", at=T0 + timedelta(hours=6),
             metadata={"category": "shopping", "priority": 1, "flag": True},
             labels=[Label(domain="finance", topic="spending")],
             entities=[Entity(type="money", value="120 yuan", normalized="CNY 120")]),
        make(embed, "我下周三去上海出差。", at=T0 + timedelta(hours=13), metadata={"category": "work", "city": "上海"},
             labels=[Label(domain="travel", topic="business trip")]),
        make(embed, "Dentist appointment next Friday.", at=T0 + timedelta(days=1), metadata={"category": "health"},
             labels=[Label(domain="health")], entities=[Entity(type="date", value="next Friday")]),
        make(embed, "Running club meets on Thursday evenings.", at=T0 + timedelta(days=1, hours=3)))
    return store


FILTER_CASES = [
    ({"category": "work"}, ["Salary review with Dana on Monday.", "我下周三去上海出差。"]),
    ({"metadata.category": {"in": ["shopping", "health"]}},
     ["Bought oolong tea for 120 yuan.", "Dentist appointment next Friday."]),
    ({"priority": {"gte": 2}}, ["Salary review with Dana on Monday."]),
    ({"priority": {"lt": 3}}, ["Bought oolong tea for 120 yuan."]),
    ({"flag": True}, ["Bought oolong tea for 120 yuan."]),
    ({"city": "上海"}, ["我下周三去上海出差。"]),
    ({"category": {"contains": "HEAL"}}, ["Dentist appointment next Friday."]),
    ({"category": {"ne": "work"}}, ["Bought oolong tea for 120 yuan.", "Dentist appointment next Friday.",
                                    "Running club meets on Thursday evenings."]),
    ({"category": {"exists": False}}, ["Running club meets on Thursday evenings."]),
    ({"created_at": {"gte": "2025-07-20T18:00:00Z", "lt": "2025-07-21T12:00:00Z"}},
     ["Bought oolong tea for 120 yuan.", "我下周三去上海出差。"]),
    # 2025-07-21T02:00+08:00 == 2025-07-20T18:00Z; 2025-07-21T20:00+08:00 == 2025-07-21T12:00Z
    ({"created_at": {"gte": "2025-07-21T02:00:00+08:00", "lt": "2025-07-21T20:00:00+08:00"}},
     ["Bought oolong tea for 120 yuan.", "我下周三去上海出差。"]),
    ({"created_at": {"gt": "2025-07-21T20:00:00+08:00"}}, ["Running club meets on Thursday evenings."]),
    ({"label.domain": "work"}, ["Salary review with Dana on Monday."]),
    ({"label.domain": {"in": ["travel", "health"]}}, ["我下周三去上海出差。", "Dentist appointment next Friday."]),
    ({"label.topic": {"contains": "TRIP"}}, ["我下周三去上海出差。"]),
    ({"entity.type": "money"}, ["Bought oolong tea for 120 yuan."]),
    ({"entity.value": "Dana"}, ["Salary review with Dana on Monday."]),
    ({"entity.type": {"nin": ["money", "date"]}}, ["Salary review with Dana on Monday.", "我下周三去上海出差。",
                                                    "Running club meets on Thursday evenings."]),
    ({"OR": [{"label.domain": "health"}, {"entity.value": "Dana"}]},
     ["Salary review with Dana on Monday.", "Dentist appointment next Friday."]),
    ({"NOT": {"category": "work"}, "created_at": {"lt": "2025-07-21T00:00:00Z"}},
     ["Bought oolong tea for 120 yuan."]),
]


@pytest.mark.parametrize("filters,want", FILTER_CASES, ids=[json.dumps(f, ensure_ascii=False) for f, _ in
                                                             FILTER_CASES])
def test_list_memories_filters(filtered, filters, want):
    sc = scope()
    assert texts(filtered.list_memories(sc, flt(filtered, sc, filters))) == want


def test_filters_also_apply_to_dense_and_keyword_search(filtered, embed):
    sc = scope()
    where = flt(filtered, sc, {"category": "work"})
    dense = filtered.dense_search(sc, embed("Dentist appointment next Friday."), 10, where)
    assert {filtered.get("default", i).text for i, _ in dense} == {"Salary review with Dana on Monday.",
                                                                  "我下周三去上海出差。"}
    kw = filtered.keyword_search(sc, query_terms("Monday salary dentist"), 10, where)
    assert [filtered.get("default", i).text for i, _ in kw] == ["Salary review with Dana on Monday."]


def test_metadata_keys_and_user_ids(filtered, embed):
    assert filtered.metadata_keys(scope()) == {"category", "priority", "flag", "city"}
    assert filtered.metadata_keys(scope("bob")) == set()
    put(filtered, make(embed, "Bob likes jazz.", user="bob"), make(embed, "Other tenant.", user="zed", tenant="t2"))
    assert filtered.user_ids("default") == ["alice", "bob"]
    assert filtered.user_ids("t2") == ["zed"]


def test_dense_search_exact_top1_and_scoping(store, embed):
    ids = put(store, make(embed, "I moved to Lisbon last month."), make(embed, "My cat is called Miso."),
              make(embed, "I moved to Lisbon last month.", user="bob"),
              make(embed, "The project deadline is in March.", agent="work-bot", session="s1"))
    res = store.dense_search(scope(), embed("I moved to Lisbon last month."), 10, None)
    assert res[0][0] == ids[0]
    assert res[0][1] == pytest.approx(1.0, abs=1e-5)
    assert all(-1.0 - 1e-5 <= s <= 1.0 + 1e-5 for _, s in res)
    assert [s for _, s in res] == sorted((s for _, s in res), reverse=True)
    assert {i for i, _ in res} == {ids[0], ids[1], ids[3]}  # never bob's row
    assert [i for i, _ in store.dense_search(scope(agent_id="work-bot"), embed("Lisbon"), 10, None)] == [ids[3]]
    assert [i for i, _ in store.dense_search(scope(session_id="s1"), embed("Lisbon"), 10, None)] == [ids[3]]
    assert len(store.dense_search(scope(), embed("Lisbon"), 2, None)) == 2
    assert store.dense_search(scope("nobody"), embed("Lisbon"), 5, None) == []
    assert store.dense_search(scope(), embed("Lisbon"), 0, None) == []


def test_dense_search_through_the_ann_index_matches_exact(backend, embed):
    exact = backend.open()
    ann = backend.open(ann_threshold=20)
    foods = ["ramen", "tacos", "paella", "borscht", "sushi", "falafel", "pierogi", "kimchi", "gumbo", "pho"]
    corpus = [f"On trip {i} I visited town{i} and ate {foods[i % 10]} with friend{i % 7}." for i in range(120)]
    put(exact, *[make(embed, t) for t in corpus])
    for i in (3, 57, 88, 119):
        want = exact.dense_search(scope(), embed(corpus[i]), 5, None)
        got = ann.dense_search(scope(), embed(corpus[i]), 5, None)
        assert ann.get("default", got[0][0]).text == corpus[i]
        # HNSW is approximate and its graph depends on insert threading: the exact top hit always, and at least
        # two of the exact top 3 among its top 3, all of them from the exact top 5 (CI once saw #2 and #4 swap)
        top3, exact3, exact5 = [x for x, _ in got[:3]], [x for x, _ in want[:3]], {x for x, _ in want[:5]}
        assert top3[0] == exact3[0] and len(set(top3) & set(exact3)) >= 2 and set(top3) <= exact5


def test_keyword_search_english_and_chinese(store):
    ids = put(store, make(lambda t: _unit(t), "I go running in the park every weekend."),
              make(lambda t: _unit(t), "我每天早上喝咖啡，下午喝茶。"),
              make(lambda t: _unit(t), "The quarterly report is due on Friday."),
              make(lambda t: _unit(t), "咖啡 coffee beans from Yunnan are my favourite."),
              make(lambda t: _unit(t), "我每天早上喝咖啡，下午喝茶。", user="bob"))
    hits = store.keyword_search(scope(), query_terms("Does she run in the park?"), 10, None)
    assert [i for i, _ in hits] == [ids[0]]  # "run" matches "running" (stemmed, as SQLite's porter tokenizer)
    assert hits[0][1] > 0
    assert query_terms("她喜欢喝咖啡吗？") == ["喜欢", "喝咖啡"]
    zh = store.keyword_search(scope(), query_terms("她喜欢喝咖啡吗？"), 10, None)
    assert [i for i, _ in zh] == [ids[1]]  # the index holds 咖啡 and 喝咖啡 (search-mode segmentation)
    zh = store.keyword_search(scope(), query_terms("咖啡"), 10, None)
    assert {i for i, _ in zh} == {ids[1], ids[3]}  # never bob's row
    assert all(s > 0 for _, s in zh)
    zh = store.keyword_search(scope(), query_terms("每天的咖啡"), 10, None)
    assert [i for i, _ in zh] == [ids[1], ids[3]]  # two matched terms outrank one
    assert [i for i, _ in store.keyword_search(scope(), ["quarterly", "nonexistentword"], 10, None)] == [ids[2]]
    assert store.keyword_search(scope(), [], 10, None) == []
    assert store.keyword_search(scope(), ["zzzqqq"], 10, None) == []
    assert store.keyword_search(scope("bob"), ["report"], 10, None) == []


def _unit(text: str) -> np.ndarray:
    from anchormem.testing import DeterministicEmbedder
    return DeterministicEmbedder(DIM).embed_documents([text])[0]


def test_as_of_sees_what_was_current_then(store, embed):
    t1, t2, t3 = T0, T0 + timedelta(days=10), T0 + timedelta(days=20)
    old, new, later = put(store, make(embed, "I live in Berlin.", at=t1, valid_to=t2),
                          make(embed, "I live in Lisbon.", at=t2),
                          make(embed, "I adopted a dog named Rex.", at=t3))
    sc = scope()
    assert texts(store.list_memories(sc, None)) == ["I live in Lisbon.", "I adopted a dog named Rex."]
    assert texts(store.list_memories(sc, None, include_superseded=True)) == [
        "I live in Berlin.", "I live in Lisbon.", "I adopted a dog named Rex."]
    assert texts(store.list_memories(sc, None, as_of=t1 + timedelta(days=1))) == ["I live in Berlin."]
    assert texts(store.list_memories(sc, None, as_of=t2)) == ["I live in Lisbon."]  # valid_to is exclusive
    assert texts(store.list_memories(sc, None, as_of=t3 + timedelta(seconds=1))) == ["I live in Lisbon.",
                                                                                    "I adopted a dog named Rex."]
    assert store.list_memories(sc, None, as_of=t1 - timedelta(seconds=1)) == []
    q = embed("Where do I live? Berlin Lisbon")
    assert {i for i, _ in store.dense_search(sc, q, 5, None, as_of=t1 + timedelta(days=1))} == {old}
    assert {i for i, _ in store.dense_search(sc, q, 5, None)} == {new, later}
    assert [i for i, _ in store.keyword_search(sc, ["berlin", "lisbon"], 5, None, as_of=t1 + timedelta(days=1))] \
        == [old]
    assert [i for i, _ in store.keyword_search(sc, ["berlin", "lisbon"], 5, None)] == [new]


def test_update_rewrites_text_vector_index_and_history(store, embed):
    mid = put(store, make(embed, "My favourite tea is oolong."))[0]
    item = store.update("default", mid, text="My favourite tea is pu-erh.", vector=embed("My favourite tea is pu-erh."),
                        index_text=index_text("My favourite tea is pu-erh."),
                        content_hash=content_hash("My favourite tea is pu-erh.", kind="utterance", source="user",
                                                  speaker=None),
                        actor="test", reason="correction", entities=[Entity(type="name", value="pu-erh")])
    assert (item.id, item.text) == (mid, "My favourite tea is pu-erh.")
    assert item.updated_at is not None and item.entities == [Entity(type="name", value="pu-erh")]
    assert store.get("default", mid).text == "My favourite tea is pu-erh."
    assert store.keyword_search(scope(), ["oolong"], 5, None) == []
    assert [i for i, _ in store.keyword_search(scope(), ["erh"], 5, None)] == [mid]
    top = store.dense_search(scope(), embed("My favourite tea is pu-erh."), 1, None)
    assert top[0][0] == mid and top[0][1] == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(store.get_vectors("default", [mid])[mid], embed("My favourite tea is pu-erh."),
                               atol=1e-6)
    hist = store.history("default", mid)
    assert [(h.version, h.event, h.old_text, h.new_text, h.actor, h.reason) for h in hist] == [
        (1, "ADD", None, "My favourite tea is oolong.", "test", None),
        (2, "UPDATE", "My favourite tea is oolong.", "My favourite tea is pu-erh.", "test", "correction")]
    with pytest.raises(NotFoundError):
        store.update("default", "missing", text="x", vector=embed("x"), index_text="x", content_hash="h", actor="t")
    with pytest.raises(NotFoundError):
        store.update("t2", mid, text="x", vector=embed("x"), index_text="x", content_hash="h", actor="t")
    with pytest.raises(NotFoundError):
        store.history("default", "missing")


def test_delete_and_purge(store, embed):
    msgs = [StoredMessage(id="m1", scope=scope(), role="user", content="Person T manages the office.", ts=T0),
            StoredMessage(id="m2", scope=scope(), role="user", content="I water the plants on Fridays.", ts=T0)]
    a, b = put(store, make(embed, "Person T manages the office.", msg_ids=["m1"],
                           entities=[Entity(type="name", value="Person T")]),
               make(embed, "I water the plants on Fridays.", msg_ids=["m2"]), messages=msgs)
    assert [m["id"] for m in store.messages(scope())] == ["m1", "m2"]
    counts = store.delete("default", a, actor="test")
    assert (counts["memories"], counts["fts"], counts["entities"]) == (1, 1, 1)
    with pytest.raises(NotFoundError):
        store.get("default", a)
    with pytest.raises(NotFoundError):
        store.delete("default", a, actor="test")
    assert a not in {i for i, _ in store.dense_search(scope(), embed("Person T manages the office."), 5, None)}
    assert store.keyword_search(scope(), ["office"], 5, None) == []
    assert [(h.event, h.old_text) for h in store.history("default", a)] == [
        ("ADD", None), ("DELETE", "Person T manages the office.")]
    assert [m["id"] for m in store.messages(scope())] == ["m1", "m2"]  # a plain delete keeps the source turn
    purged = store.delete("default", b, purge=True, actor="test")
    assert (purged["memories"], purged["history"], purged["messages"]) == (1, 1, 1)
    assert all(h.old_text is None and h.new_text is None for h in store.history("default", b))
    assert [h.event for h in store.history("default", b)] == ["ADD", "DELETE"]
    assert [m["id"] for m in store.messages(scope())] == ["m1"]


def test_delete_scope_counts_and_scoping(store, embed):
    msgs = [StoredMessage(id=f"m{i}", scope=scope(session_id=s), role="user", content=f"turn {i}", ts=T0)
            for i, s in enumerate(["s1", "s1", "s2"])]
    one, *_ = put(store, make(embed, "Fact one.", session="s1", msg_ids=["m0"]),
                  make(embed, "Fact two.", session="s1"), make(embed, "Fact three.", session="s2", metadata={"k": "v"}),
                  make(embed, "Bob fact.", user="bob"), make(embed, "Other tenant fact.", tenant="t2"),
                  messages=msgs)
    counts = store.delete_scope(scope(session_id="s1"), actor="test")
    assert (counts["memories"], counts["messages"]) == (2, 2)
    assert texts(store.list_memories(scope(), None)) == ["Fact three."]
    assert store.metadata_keys(scope()) == {"k"}  # a narrowed delete keeps the user's key list
    counts = store.delete_scope(scope(), purge=True, actor="test")
    # a whole-user purge blanks every history row of the user: the ADD of "Fact three." and the ADD and DELETE
    # rows of the two memories deleted above without purge (their DELETE rows held the text)
    assert (counts["memories"], counts["messages"], counts["history"]) == (1, 1, 5)
    assert [(h.event, h.old_text, h.new_text) for h in store.history("default", one)] == [
        ("ADD", None, None), ("DELETE", None, None)]
    assert store.list_memories(scope(), None, include_superseded=True) == []
    assert store.metadata_keys(scope()) == set()
    assert store.messages(scope()) == []
    assert texts(store.list_memories(scope("bob"), None)) == ["Bob fact."]
    assert texts(store.list_memories(scope(tenant="t2"), None)) == ["Other tenant fact."]
    assert store.delete_scope(scope("nobody"), actor="test")["memories"] == 0


def test_tenant_isolation(store, embed):
    a = put(store, make(embed, "I live in Tokyo.", tenant="acme", user="u1"))[0]
    b = put(store, make(embed, "I live in Oslo.", tenant="globex", user="u1"))[0]
    acme, globex = scope("u1", "acme"), scope("u1", "globex")
    assert texts(store.list_memories(acme, None)) == ["I live in Tokyo."]
    assert [i for i, _ in store.dense_search(acme, embed("I live in Oslo."), 5, None)] == [a]
    assert store.keyword_search(acme, ["oslo"], 5, None) == []
    for call in (lambda: store.get("acme", b), lambda: store.history("acme", b),
                 lambda: store.delete("acme", b, actor="t")):
        with pytest.raises(NotFoundError):
            call()
    assert store.set_labels("acme", {b: [Label(domain="travel")]}) == 0
    assert store.get_vectors("acme", [a, b]).keys() == {a}
    store.delete_scope(acme, actor="t")
    assert texts(store.list_memories(globex, None)) == ["I live in Oslo."]


def test_labels_vectors_recent_touch_messages(store, embed):
    ids = put(store, *[make(embed, f"Recent note {i}.", at=T0 + timedelta(minutes=i)) for i in range(4)],
              messages=[StoredMessage(id="x1", scope=scope(agent_id="a1"), role="assistant", content="你好",
                                      ts=T0, name="bot", metadata={"turn": 1})])
    assert store.set_labels("default", {ids[0]: [Label(domain="work", topic="notes", primary=True)],
                                        "missing": [Label(domain="work")]}) == 1
    assert store.get("default", ids[0]).labels == [Label(domain="work", topic="notes", primary=True)]
    assert store.set_labels("default", {}) == 0
    vecs = store.get_vectors("default", [ids[1], "missing"])
    assert list(vecs) == [ids[1]] and vecs[ids[1]].dtype == np.float32 and vecs[ids[1]].shape == (DIM,)
    np.testing.assert_allclose(vecs[ids[1]], embed("Recent note 1."), atol=1e-6)
    assert texts(store.recent_memories(scope(), 2)) == ["Recent note 3.", "Recent note 2."]
    when = T0 + timedelta(days=3)
    store.touch("default", [ids[2], ids[2], "missing"], when)
    store.touch("default", [], when)
    got = store.get("default", ids[2])
    assert (got.access_count, got.last_accessed_at) == (2, when)
    msgs = store.messages(scope())
    assert msgs == [{"id": "x1", "agent_id": "a1", "session_id": None, "role": "assistant", "name": "bot",
                     "content": "你好", "timestamp": T0.isoformat(), "metadata": {"turn": 1}}]
    assert store.messages(scope(), ids=[]) == [] and store.messages(scope(), ids=["x1"])[0]["id"] == "x1"


def test_embedder_mismatch_and_bad_dimensions(backend, store, embed):
    put(store, make(embed, "I keep bees."))
    with pytest.raises(EmbedderMismatchError, match=f"hash-{DIM}"):
        store.check_embedder("other-model", DIM)
    with pytest.raises(EmbedderMismatchError):
        store.check_embedder(f"hash-{DIM}", DIM * 2)
    store.check_embedder(f"hash-{DIM}", DIM)  # the recorded one is fine, again
    with pytest.raises(EmbedderMismatchError):
        backend.open(check=False).check_embedder("hash-128", 128)
    bad = make(embed, "My favourite coffee is mocha.")
    bad.vector = np.ones(5, np.float32)
    with pytest.raises(InvalidInputError, match="dimension 5"):
        store.write([], [make(embed, "A fine row."), bad], actor="test")
    with pytest.raises(InvalidInputError, match="dimension 7"):
        store.dense_search(scope(), np.ones(7, np.float32), 3, None)
    mid = store.list_memories(scope(), None)[0].id
    with pytest.raises(InvalidInputError):
        store.update("default", mid, text="x", vector=np.ones(3), index_text="x", content_hash="h", actor="t")
    assert texts(store.list_memories(scope(), None)) == ["I keep bees."]  # nothing of the failed batch landed


def test_previous_messages_in_a_session(store):
    sc = scope(session_id="s1")
    msgs = [StoredMessage(id=f"m{i}", scope=sc, role="user", content=f"turn {i}", ts=T0 + timedelta(minutes=i),
                          name=name) for i, name in enumerate(["Ana", "Ben", "Ana"])]
    msgs.append(StoredMessage(id="same-ts", scope=sc, role="user", content="turn 3", ts=T0 + timedelta(minutes=2),
                              name="Ben"))  # stored after m2 at the same instant: m2 comes before it
    msgs.append(StoredMessage(id="other", scope=scope(session_id="s2"), role="user", content="elsewhere",
                              ts=T0 + timedelta(minutes=1, seconds=30)))
    msgs += [StoredMessage(id=f"loose{i}", scope=scope(), role="user", content="no session", ts=T0 + timedelta(
        minutes=m)) for i, m in enumerate((0, 10, 50))]  # no session: within 30 minutes of each other only
    msgs.append(StoredMessage(id="agent", scope=scope(agent_id="a1"), role="user", content="x", ts=T0 + timedelta(
        minutes=11)))
    store.write(msgs, [], actor="test")
    prev = store.previous_messages(scope(), ["m0", "m1", "m2", "same-ts", "other", "loose0", "loose1", "loose2",
                                             "agent", "missing"])
    assert {k: v["id"] for k, v in prev.items()} == {"m1": "m0", "m2": "m1", "same-ts": "m2", "loose1": "loose0"}
    assert prev["m1"]["content"] == "turn 0" and prev["m1"]["name"] == "Ana" and prev["m2"]["name"] == "Ben"
    assert store.previous_messages(scope(user="bob"), ["m1"]) == {}
    assert store.count_messages(scope(session_id="s1")) == 4 and store.count_messages(scope(session_id="s2")) == 1
    assert store.count_messages(scope()) == 4 and store.count_messages(scope(session_id="none")) == 0
    assert store.previous_messages(scope(), []) == {}


# ================================================================ the same contract through Memory
def test_memory_add_noop_search_en_zh(mem):
    ev = mem.add("I moved to Lisbon last month.", user_id="alice")
    assert [e.event for e in ev] == ["ADD"]
    assert [e.event for e in mem.add("I moved to Lisbon last month.", user_id="alice")] == ["NOOP"]
    zh = mem.add("我每天早上喝一杯咖啡。", user_id="alice")[0].memory
    mem.add("I water the plants on Fridays.", user_id="alice")
    mem.add("Bob lives in Lisbon too.", user_id="bob")
    for recipe in ("dense", "bm25", "hybrid_rrf"):
        hits = mem.search("Lisbon moved", user_id="alice", recipe=recipe)
        assert hits[0].memory.id == ev[0].memory.id, recipe
        assert all(h.memory.user_id == "alice" for h in hits)
    hits = mem.search("他早上喝咖啡吗", user_id="alice", recipe="bm25")
    assert [h.memory.id for h in hits] == [zh.id]
    assert hits[0].explain["bm25"] > 0
    assert mem.search("咖啡", user_id="alice")[0].memory.id == zh.id


def test_memory_concurrent_identical_adds_on_one_database(backend):
    mems = [backend.memory() for _ in range(6)]
    out = run_concurrently([lambda m=m: m.add("I drink coffee every morning.", user_id="A") for m in mems])
    assert sorted(evs[0].event for evs in out) == ["ADD"] + ["NOOP"] * 5
    assert len({evs[0].memory.id for evs in out}) == 1
    assert len(mems[0].get_all(user_id="A", include_superseded=True)) == 1


def test_memory_get_all_filters_with_offsets(mem):
    mem.add("Salary review on Monday.", user_id="u", timestamp="2025-07-20T23:30:00+08:00",
            metadata={"category": "work"})
    mem.add("Bought a new kettle.", user_id="u", timestamp="2025-07-21T09:00:00Z", metadata={"category": "home"})
    got = mem.get_all(user_id="u", filters={"created_at": {"lt": "2025-07-20T16:00:00Z"}})
    assert texts(got) == ["Salary review on Monday."]
    # 2025-07-20T23:30+08:00 is 15:30Z: before local midnight, on the same UTC day as the kettle
    got = mem.get_all(user_id="u", filters={"created_at": {"gte": "2025-07-21T00:00:00+08:00"}})
    assert texts(got) == ["Bought a new kettle."]
    got = mem.get_all(user_id="u", filters={"created_at": {"gte": "2025-07-20T23:00:00+08:00",
                                                           "lt": "2025-07-21T00:00:00+08:00"}})
    assert texts(got) == ["Salary review on Monday."]
    got = mem.get_all(user_id="u", filters={"created_at": {"gte": "2025-07-20T00:00:00Z"}})
    assert texts(got) == ["Salary review on Monday.", "Bought a new kettle."]
    assert texts(mem.get_all(user_id="u", filters={"category": "home"})) == ["Bought a new kettle."]


def test_memory_update_history_delete_purge_and_export(mem):
    mid = mem.add("My favourite tea is oolong.", user_id="u")[0].memory.id
    other = mem.add("I water the plants on Fridays.", user_id="u")[0].memory.id
    mem.update(mid, "My favourite tea is pu-erh.", reason="correction")
    assert mem.get(mid).text == "My favourite tea is pu-erh."
    assert [(h.event, h.new_text) for h in mem.history(mid)] == [("ADD", "My favourite tea is oolong."),
                                                                 ("UPDATE", "My favourite tea is pu-erh.")]
    assert mem.search("pu-erh tea", user_id="u", recipe="bm25")[0].memory.id == mid
    assert mem.search("oolong", user_id="u", recipe="bm25") == []
    counts = mem.delete(mid, purge=True)
    assert counts["memories"] == 1 and counts["messages"] == 1
    assert [h.event for h in mem.history(mid)] == ["ADD", "UPDATE", "DELETE"]
    assert all(h.old_text is None and h.new_text is None for h in mem.history(mid))
    dump = json.dumps(mem.export(user_id="u"), ensure_ascii=False)
    assert "oolong" not in dump and "pu-erh" not in dump and "I water the plants on Fridays." in dump
    assert [m.id for m in mem.get_all(user_id="u")] == [other]
    assert mem.delete_all(user_id="u")["memories"] == 1
    assert mem.get_all(user_id="u") == []


def test_memory_tenant_isolation_and_embedder_mismatch(backend):
    a, b = backend.memory(tenant="acme"), backend.memory(tenant="globex")
    ida = a.add("I live in Tokyo.", user_id="u1")[0].memory.id
    idb = b.add("I live in Oslo.", user_id="u1")[0].memory.id
    for recipe in ("hybrid_rrf", "dense", "bm25"):
        assert idb not in [h.memory.id for h in a.search("Oslo", user_id="u1", recipe=recipe)]
    with pytest.raises(NotFoundError):
        a.get(idb)
    assert [m["content"] for m in a.export(user_id="u1")["messages"]] == ["I live in Tokyo."]
    a.delete_all(user_id="u1")
    assert [m.id for m in b.get_all(user_id="u1")] == [idb] and a.get_all(user_id="u1") == []
    assert ida
    with pytest.raises(EmbedderMismatchError, match=f"hash-{DIM}"):
        backend.memory(embedder="hash-128")


# ================================================================ opening PostgreSQL from Memory
def test_postgres_url_without_the_driver_names_the_extra(monkeypatch, tmp_path):
    import anchormem.stores.postgres as pg
    from anchormem import ConfigError, Memory

    monkeypatch.setattr(pg, "_IMPORT_ERROR", ImportError("No module named 'psycopg'"))
    with pytest.raises(ConfigError, match=r"pip install 'anchormem\[postgres\]'"):
        Memory(url="postgresql://nobody@127.0.0.1:1/none", embedder="hash")


def test_unreachable_postgres_is_a_store_error():
    from anchormem import Memory, StoreError

    with pytest.raises(StoreError) as info:
        Memory(url="postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2", embedder="hash")
    assert "secret" not in str(info.value)
