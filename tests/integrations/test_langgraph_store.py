"""AnchormemStore is a real LangGraph BaseStore: put/get/search/delete/list_namespaces, TTL, and a compiled graph
that reads and writes long-term memory through it."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langgraph.store.base")

from langgraph.store.base import BaseStore  # noqa: E402

from anchormem import InvalidInputError, Memory  # noqa: E402
from anchormem.integrations.langgraph import AnchormemStore, namespace_user, user_namespace  # noqa: E402
from anchormem.testing import HashEmbedder  # noqa: E402


@pytest.fixture()
def mem():
    with Memory(":memory:", embedder=HashEmbedder()) as m:
        yield m


def test_put_get_search_delete(mem):
    store = AnchormemStore(mem)
    assert isinstance(store, BaseStore)
    ns = ("memories", "alice")
    store.put(ns, "tea", {"content": "My favourite tea is oolong.", "tags": ["drink"]})
    store.put(ns, "dog", {"content": "My dog Rex is a golden retriever.", "n": 3})
    store.put(("memories", "bob"), "tea", {"content": "My favourite tea is jasmine."})
    item = store.get(ns, "tea")
    assert item.value == {"content": "My favourite tea is oolong.", "tags": ["drink"]}
    assert item.key == "tea" and item.namespace == ns
    hits = store.search(ns, query="What tea do I like?", limit=5)
    assert hits[0].key == "tea" and hits[0].score > 0
    assert {h.key for h in hits} <= {"tea", "dog"}  # never bob's
    assert all(h.namespace == ns for h in hits)
    # a prefix covering both users searches both namespaces
    both = store.search(("memories",), query="favourite tea", limit=10)
    assert {(h.namespace, h.key) for h in both} >= {(ns, "tea"), (("memories", "bob"), "tea")}
    # value filters
    assert [h.key for h in store.search(ns, filter={"n": {"$gte": 3}})] == ["dog"]
    assert [h.key for h in store.search(ns, filter={"tags": ["drink"]})] == ["tea"]
    store.delete(ns, "tea")
    assert store.get(ns, "tea") is None
    assert [h.key for h in store.search(ns, query="tea")] == ["dog"]


def test_put_again_replaces_and_keeps_created_at(mem):
    store = AnchormemStore(mem)
    ns = ("u1",)
    store.put(ns, "home", {"content": "I live in Lisbon."})
    first = store.get(ns, "home")
    store.put(ns, "home", {"content": "I live in Berlin now."})
    again = store.get(ns, "home")
    assert again.value == {"content": "I live in Berlin now."}
    assert again.created_at == first.created_at
    assert [h.value["content"] for h in store.search(ns, query="where do I live")] == ["I live in Berlin now."]
    assert len(mem.get_all(user_id=namespace_user(ns))) == 1  # the Lisbon memory was deleted (history kept)


def test_index_fields_ttl_and_errors(mem):
    store = AnchormemStore(mem)
    ns = ("u2",)
    store.put(ns, "k", {"title": "Trip", "body": {"text": "We fly to Osaka on May 3."}}, index=["body.text"])
    (m,) = mem.get_all(user_id=namespace_user(ns))
    assert m.text == "We fly to Osaka on May 3."
    store.put(ns, "t", {"content": "The parking permit number is 4471."}, ttl=60)
    (t,) = [x for x in mem.get_all(user_id=namespace_user(ns)) if x.metadata.get("lg_key") == "t"]
    assert t.expires_at is not None
    with pytest.raises(InvalidInputError):
        store.put(ns, "chat", {"content": "ok thanks!"})
    with pytest.raises(InvalidInputError):
        store.search(ns, filter={"n": {"$regex": "x"}})


def test_list_namespaces_and_escaping(mem):
    store = AnchormemStore(mem)
    store.put(("a", "x/y"), "k", {"content": "I play the violin."})
    store.put(("a", "z"), "k", {"content": "I play the drums."})
    store.put(("b",), "k", {"content": "I play chess on Sundays."})
    assert user_namespace(namespace_user(("a", "x/y"))) == ("a", "x/y")
    assert store.list_namespaces() == [("a", "x/y"), ("a", "z"), ("b",)]
    assert store.list_namespaces(prefix=("a",)) == [("a", "x/y"), ("a", "z")]
    assert store.list_namespaces(max_depth=1) == [("a",), ("b",)]
    assert store.list_namespaces(suffix=("z",)) == [("a", "z")]


def test_memories_written_by_add_show_up_with_a_custom_mapping(mem):
    mem.add([{"role": "user", "content": "I moved to Munich last month."}], user_id="carol")
    store = AnchormemStore(mem, user_from_namespace=lambda ns: ns[-1])
    hits = store.search(("memories", "carol"), query="Where do I live?")
    assert hits and "Munich" in hits[0].value["content"]
    assert store.get(("memories", "carol"), hits[0].key).value["content"] == hits[0].value["content"]
    store.put(("memories", "carol"), "pet", {"content": "My cat is called Miso."})
    assert store.get(("memories", "carol"), "pet").value == {"content": "My cat is called Miso."}
    assert store.get(("other", "carol"), "pet") is None  # same user, another namespace


def test_async_and_a_compiled_graph_use_the_store(mem):
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        user: str
        said: str
        recalled: str

    def remember(state: State, *, store: BaseStore):
        store.put(("memories", state["user"]), "last", {"content": state["said"]})
        return {}

    def recall(state: State, *, store: BaseStore):
        hits = store.search(("memories", state["user"]), query="Where do I work?", limit=1)
        return {"recalled": hits[0].value["content"] if hits else ""}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    store = AnchormemStore(mem)
    graph = builder.compile(store=store)
    out = graph.invoke({"user": "dana", "said": "I work as a nurse at Santa Maria hospital.", "recalled": ""})
    assert out["recalled"] == "I work as a nurse at Santa Maria hospital."

    async def main():
        await store.aput(("memories", "dana"), "x", {"content": "My sister lives in Porto."})
        return await store.aget(("memories", "dana"), "x")
    assert asyncio.run(main()).value == {"content": "My sister lives in Porto."}
