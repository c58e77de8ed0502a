"""Scope generations on every backend: each store write that changes what a user's reads return raises
``scope_generation`` of that user (and only that user); ``touch`` does not. Then the hot cache across two
``Memory`` objects on one database sharing Redis (skipped without Redis unless CI is set)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from anchormem import NotFoundError
from anchormem.hotcache import HotCache, RedisBackend
from anchormem.retrieval.config import SearchConfig
from anchormem.stores.protocol import StoredMessage
from anchormem.types import FactSlot, Label
from redis_fixtures import REDIS_URL, redis_client, redis_prefix  # noqa: F401 - fixtures

from .test_contract import T0, make, put, scope

T = "default"


def _superseding(nm, old_id: str):
    nm.supersedes = [old_id]
    return nm


def gen(store, user: str = "alice") -> int:
    return store.scope_generation(T, user)


def test_every_write_path_bumps_the_scope_generation(store, embed):
    assert gen(store) == 0
    a, b, c, d = put(store, make(embed, "I live in Lisbon."), make(embed, "I work at a bakery."),
                     make(embed, "My sister visits in June."), make(embed, "I like tea."))
    put(store, make(embed, "Bob likes coffee.", user="bob"))
    steps = {
        "write": lambda: put(store, make(embed, "I swim on Sundays.")),
        "write supersedes": lambda: store.write([], [_superseding(make(embed, "I live in Porto."), a)], actor="t"),
        "update": lambda: store.update(T, b, text="I work at a cafe.", vector=embed("I work at a cafe."),
                                       index_text="i work at a cafe", content_hash="h-upd", actor="t"),
        "set_labels": lambda: store.set_labels(T, {c: [Label(domain="family", primary=True)]}),
        "set_expiry": lambda: store.set_expiry(T, {d: T0 + timedelta(days=1)}),
        "set_fact": lambda: store.set_fact(T, c, FactSlot(entity="user", attribute="sister_visit", value="June")),
        "close_memory": lambda: store.close_memory(T, c, when=T0, actor="t", event="DONE"),
        "purge_expired": lambda: store.purge_expired(T, T0 + timedelta(days=2), user_id="alice"),
        "delete": lambda: store.delete(T, b, actor="t"),
        "import_rows": lambda: store.import_rows(T, [], [make(embed, "Imported memory.")], []),
        "delete_scope": lambda: store.delete_scope(scope(), actor="t"),
    }
    for name, step in steps.items():
        before, bob = gen(store), gen(store, "bob")
        step()
        assert gen(store) > before, f"{name} must bump the generation"
        assert gen(store, "bob") == bob, f"{name} must not touch another user's generation"
    put(store, make(embed, "I read at night."))
    put(store, make(embed, "I read at night."))  # a NOOP: PostgreSQL bumps before it knows (harmless)
    after_add = gen(store)
    ids = [m.id for m in store.list_memories(scope(), None)]
    store.touch(T, ids, T0)  # access counts: no bump (it follows every search)
    assert gen(store) == after_add
    assert store.list_memories(scope(), None)[0].access_count == 1


def test_a_failed_by_id_write_bumps_nothing(store, embed):
    put(store, make(embed, "I live in Lisbon."))
    before = gen(store)
    assert store.set_labels(T, {"no-such-id": [Label(domain="family")]}) == 0
    assert store.set_expiry(T, {"no-such-id": T0}) == 0
    assert gen(store) == before


def test_messages_and_history_only_imports_do_not_need_a_bump(store, embed):
    """Import of rows that add no memory leaves the memories (and so every cached read) as they were."""
    put(store, make(embed, "I live in Lisbon."))
    before = gen(store)
    msg = StoredMessage(id="m-only", scope=scope(), role="user", content="hello", ts=T0)
    store.import_rows(T, [msg], [], [])
    assert gen(store) == before
    assert store.messages(scope(), ["m-only"])[0]["content"] == "hello"


def test_two_memories_on_one_database_share_a_redis_cache(backend, redis_client, redis_prefix):
    no_touch = SearchConfig(track_access=False)
    a = backend.memory(cache=HotCache(RedisBackend(REDIS_URL), prefix=redis_prefix))
    b = backend.memory(cache=HotCache(RedisBackend(REDIS_URL), prefix=redis_prefix))
    mid = a.add("I moved to Lisbon last month.", user_id="u")[0].memory.id
    a.add("I work at a bakery in Lisbon.", user_id="u")
    first = a.search("Lisbon", user_id="u", recipe=no_touch)
    assert [h.memory.id for h in b.search("Lisbon", user_id="u", recipe=no_touch)] == [h.memory.id for h in first]
    assert b.stats["cache_search_hits"] == 1
    b.update(mid, "I moved to Porto last month.")  # a write through b ...
    after = a.search("Lisbon", user_id="u", recipe=no_touch)  # ... a's cached entry is no longer served
    assert a.stats["cache_search_misses"] == 2
    assert {h.memory.id: h.memory.text for h in after}.get(mid, "I moved to Porto last month.") == \
        "I moved to Porto last month."
    assert "I moved to Lisbon last month." not in [h.memory.text for h in after]
    assert a.get(mid).text == "I moved to Porto last month."
    b.get(mid), b.get(mid)
    assert a.get(mid) == b.get(mid) and a.stats["cache_get_hits"] >= 1
    b.delete(mid)
    with pytest.raises(NotFoundError):
        a.get(mid)
