"""The hot cache (anchormem.hotcache): cached searches and gets equal uncached ones, every write invalidates,
expiry and TTL on the library clock, access counts still bumped, purges leave the cache, Redis sharing between
two Memory objects (skipped without Redis unless CI is set). The per-store generation bumps are checked for both
stores in tests/contract/test_hotcache_contract.py."""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from anchormem import ConfigError, InvalidInputError, Memory, NotFoundError, StoreError
from anchormem.hotcache import HotCache, LocalBackend, RedisBackend, make_cache
from anchormem.retrieval.config import RECIPES, SearchConfig
from anchormem.testing import DeterministicEmbedder, frozen_clock
from redis_fixtures import REDIS_URL, redis_client, redis_prefix  # noqa: F401 - fixtures

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
NO_TOUCH = SearchConfig(track_access=False)
TEXTS = ["I moved to Lisbon last month.", "My sister Ana visits in June.", "I work at a bakery in Lisbon.",
         "Bananas are my favourite fruit.", "We agreed to send the documents by Monday."]


def fill(mem: Memory, user: str = "u") -> list[str]:
    ids = []
    for i, t in enumerate(TEXTS):
        ev = mem.add(t, user_id=user, session_id="s1", timestamp=T0 - timedelta(days=10 - i))
        ids.append(ev[0].memory.id)
    return ids


def dumped(hits) -> list[dict]:
    return [h.model_dump() for h in hits]


@pytest.fixture
def pair(tmp_path):
    """Two Memory objects on one file: ``cached`` (the default in-process cache) and ``plain`` (cache off)."""
    path = str(tmp_path / "m.db")
    cached = Memory(path, embedder=DeterministicEmbedder(64))
    plain = Memory(path, embedder=DeterministicEmbedder(64), cache=False)
    yield cached, plain
    cached.close()
    plain.close()


# ---------------------------------------------------------------- equality and stats
def _no_touch(name: str) -> SearchConfig:
    return RECIPES[name].model_copy(update={"track_access": False})


@pytest.mark.parametrize("kwargs", [
    {"recipe": _no_touch("hybrid_rrf")},
    {"recipe": _no_touch("hybrid_weighted")},
    {"recipe": _no_touch("anchored"), "context": ["I am planning my family calendar."]},
    {"recipe": _no_touch("recent_first"), "filters": {"kind": "commitment"}},
    {"recipe": _no_touch("hybrid_rrf"), "as_of": T0 - timedelta(days=7)},
    {"recipe": _no_touch("bm25"), "limit": 2, "show_expired": True},
])
def test_a_cached_search_equals_the_uncached_one(pair, kwargs):
    cached, plain = pair
    fill(cached)
    with frozen_clock(T0):
        first = cached.search("Lisbon documents sister", user_id="u", **kwargs)
        again = cached.search("Lisbon documents sister", user_id="u", **kwargs)
        fresh = plain.search("Lisbon documents sister", user_id="u", **kwargs)
    assert first, "the query must find something for the comparison to mean anything"
    assert cached.stats["cache_search_misses"] == 1 and cached.stats["cache_search_hits"] == 1
    # same ids, scores, explain and memories (access tracking off: nothing changed between the three)
    assert dumped(again) == dumped(first) == dumped(fresh)
    assert [(h.memory.id, h.score, h.explain) for h in again] == [(h.memory.id, h.score, h.explain) for h in fresh]
    assert "cache" not in again[0].explain


def test_with_access_tracking_a_cached_hit_is_the_result_as_first_computed(pair):
    cached, plain = pair
    fill(cached)
    with frozen_clock(T0):
        first = cached.search("bakery", user_id="u")
        again = cached.search("bakery", user_id="u")
        fresh = plain.search("bakery", user_id="u")
    assert dumped(again) == dumped(first) and first[0].memory.text == "I work at a bakery in Lisbon."
    # uncached, the two bumps since then raise importance (documented drift, bounded by the TTL)
    assert [h.memory.id for h in fresh] == [h.memory.id for h in first]
    assert fresh[0].memory.access_count == 2 and first[0].memory.access_count == 0
    assert fresh[0].explain["importance"] > first[0].explain["importance"]


def test_the_key_covers_every_search_argument(pair):
    cached, _ = pair
    fill(cached)
    fill(cached, user="w")
    with frozen_clock(T0):
        calls = [dict(user_id="u"), dict(user_id="w"), dict(user_id="u", limit=1), dict(user_id="u", session_id="s1"),
                 dict(user_id="u", agent_id="bot"), dict(user_id="u", filters={"kind": "utterance"}),
                 dict(user_id="u", as_of=T0 - timedelta(days=8)), dict(user_id="u", show_expired=True),
                 dict(user_id="u", recipe="bm25"), dict(user_id="u", context=["hello"])]
        for kw in calls:
            cached.search("Lisbon", **kw)
        assert cached.stats["cache_search_misses"] == len(calls) and cached.stats["cache_search_hits"] == 0
        cached.search("lisbon", user_id="u")  # another text is another entry
        assert cached.stats["cache_search_misses"] == len(calls) + 1
        for kw in calls:
            cached.search("Lisbon", **kw)
        assert cached.stats["cache_search_hits"] == len(calls)
    assert cached.stats["cache_hits"] == cached.stats["cache_search_hits"] + cached.stats["cache_get_hits"] + \
        cached.stats["cache_embed_hits"]


def test_keys_hold_no_query_text_or_id(tmp_path):
    hot = HotCache(LocalBackend(64))
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), cache=hot) as mem:
        mid = mem.add("My locker code is 4411.", user_id="u")[0].memory.id
        mem.search("locker code 4411", user_id="u")
        mem.get(mid), mem.get(mid)
    keys = list(hot.backend._d) + list(hot._emb._d)
    assert len(keys) >= 3
    # (a key's hex digest may hold any digits by chance: "4411" is looked for outside the digests)
    plain = [re.sub(r"[0-9a-f]{16,}", "#", k) for k in keys]
    assert not any("4411" in k or "locker" in k or ":u:" in k for k in plain)
    assert not any(mid in k for k in keys)


# ---------------------------------------------------------------- invalidation by writes
def test_every_memory_write_makes_the_next_search_a_miss(tmp_path):
    # access counting off: a search's own access bump moves near-ties, and the uncached search below must rank
    # the same rows the cached one did
    frozen = RECIPES["anchored"].model_copy(update={"track_access": False})
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), search=frozen) as mem:
        ids = fill(mem)
        review = mem.add("My address is 12 Rose Street.", user_id="u", timestamp=T0)
        held = mem.add("My address is 40 Oak Avenue.", user_id="u", timestamp=T0 + timedelta(days=1))
        assert held[0].event == "REVIEW"
        commitment = next(m.id for m in mem.due(user_id="u"))
        with Memory(str(tmp_path / "other.db"), embedder=DeterministicEmbedder(64)) as other:
            other.add("Lisbon trams are yellow.", user_id="u")
            export = other.export(user_id="u")
        writes = [
            ("add", lambda: mem.add("Lisbon has yellow trams.", user_id="u")),
            ("update", lambda: mem.update(ids[0], "I moved to Porto last month.")),
            ("labels", lambda: mem.update(ids[1], "My sister Ana visits in June.", labels=[{"domain": "family"}])),
            ("relabel", lambda: mem.relabel("u")),
            ("approve", lambda: mem.approve(held[0].review_id)),
            ("complete", lambda: mem.complete(commitment)),
            ("summarize", lambda: mem.summarize(user_id="u", session_id="s1")),
            ("delete", lambda: mem.delete(ids[3])),
            ("expiry", lambda: mem.store.set_expiry("default", {ids[2]: T0 + timedelta(days=1)})),
            ("gc", lambda: mem.gc(user_id="u", now=T0 + timedelta(days=2))),
            ("import", lambda: mem.import_memories(export)),
            ("delete_all session", lambda: mem.delete_all(user_id="u", session_id="s1")),
            ("delete_all", lambda: mem.delete_all(user_id="u")),
        ]
        assert review[0].event == "ADD"
        for name, write in writes:
            mem.search("Lisbon", user_id="u")
            hits_before = mem.stats["cache_search_hits"]
            mem.search("Lisbon", user_id="u")
            assert mem.stats["cache_search_hits"] == hits_before + 1, name
            gen = mem.store.scope_generation("default", "u")
            write()
            misses = mem.stats["cache_search_misses"]
            hits = mem.search("Lisbon", user_id="u")
            assert mem.stats["cache_search_misses"] == misses + 1, f"{name}: a write must invalidate"
            assert mem.store.scope_generation("default", "u") > gen, name
            plain = Memory(mem.path, embedder=DeterministicEmbedder(64), cache=False, search=frozen)
            try:
                assert [h.memory.id for h in hits] == [h.memory.id for h in plain.search("Lisbon", user_id="u")], name
            finally:
                plain.close()


def test_a_write_to_another_user_keeps_the_entry(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64)) as mem:
        fill(mem)
        mem.search("Lisbon", user_id="u")
        mem.add("I also live in Lisbon.", user_id="someone-else")
        mem.search("Lisbon", user_id="u")
        assert (mem.stats["cache_search_misses"], mem.stats["cache_search_hits"]) == (1, 1)


def test_cached_hits_still_bump_access_counts_without_invalidating(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64)) as mem:
        fill(mem)
        with frozen_clock(T0) as clock:
            top = mem.search("bakery", user_id="u", limit=1)[0].memory.id
            gen = mem.store.scope_generation("default", "u")
            for _ in range(3):
                clock.advance(seconds=1)
                assert mem.search("bakery", user_id="u", limit=1)[0].memory.id == top
            assert mem.stats["cache_search_hits"] == 3
            assert mem.store.scope_generation("default", "u") == gen
            item = mem.store.get("default", top)
            assert item.access_count == 4 and item.last_accessed_at == T0 + timedelta(seconds=3)


# ---------------------------------------------------------------- time: expiry exact, TTL on the library clock
def test_an_entry_is_not_served_after_a_hit_expires(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64)) as mem:
        with frozen_clock(T0) as clock:
            mem.add("The gate code is 7788 today.", user_id="u",
                    metadata={"expires_at": (T0 + timedelta(seconds=5)).isoformat()})
            mem.add("The gate is painted green.", user_id="u")
            first = mem.search("gate code", user_id="u")
            assert "The gate code is 7788 today." in [h.memory.text for h in first]
            clock.advance(seconds=3)
            assert [h.memory.id for h in mem.search("gate code", user_id="u")] == [h.memory.id for h in first]
            assert mem.stats["cache_search_hits"] == 1
            clock.advance(seconds=3)  # past expires_at, well within the 30 s TTL
            after = mem.search("gate code", user_id="u")
            assert [h.memory.text for h in after] == ["The gate is painted green."]
            assert mem.stats["cache_search_hits"] == 1


def test_entries_live_ttl_seconds_of_the_library_clock(tmp_path):
    hot = make_cache(None, ttl=10)
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), cache=hot) as mem:
        fill(mem)
        with frozen_clock(T0) as clock:
            mem.search("Lisbon", user_id="u")
            clock.advance(seconds=9)
            mem.search("Lisbon", user_id="u")
            clock.advance(seconds=2)
            mem.search("Lisbon", user_id="u")
        assert (mem.stats["cache_search_hits"], mem.stats["cache_search_misses"]) == (1, 2)


# ---------------------------------------------------------------- get by id
def test_get_is_cached_from_the_second_read_and_invalidated_by_writes(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64)) as mem:
        ids = fill(mem)
        got = [mem.get(ids[0]) for _ in range(4)]
        assert (mem.stats["cache_get_misses"], mem.stats["cache_get_hits"]) == (2, 2)
        assert all(g == got[0] for g in got) and got[0] == mem.store.get("default", ids[0])
        mem.update(ids[0], "I moved to Porto last month.")
        assert mem.get(ids[0]).text == "I moved to Porto last month."
        mem.delete(ids[0])
        with pytest.raises(NotFoundError):
            mem.get(ids[0])


# ---------------------------------------------------------------- embeddings
def test_query_embeddings_are_cached_by_text(tmp_path):
    emb = DeterministicEmbedder(64)
    calls: list[str] = []
    real = emb.embed_query
    emb.embed_query = lambda text: calls.append(text) or real(text)  # type: ignore[method-assign]
    with Memory(str(tmp_path / "m.db"), embedder=emb) as mem:
        fill(mem)
        mem.search("Lisbon", user_id="u")
        mem.search("Lisbon", user_id="u", limit=2)
        mem.search("Lisbon", user_id="u", limit=3)
        assert calls.count("Lisbon") == 1
        assert mem.stats["cache_embed_misses"] >= 1 and mem.stats["cache_embed_hits"] >= 2
        v = mem._searcher.embed_query("Lisbon")
        assert np.array_equal(v, real("Lisbon").astype(np.float32))


# ---------------------------------------------------------------- off switch, config errors
def test_the_cache_can_be_switched_off(tmp_path, monkeypatch):
    with Memory(str(tmp_path / "a.db"), embedder="hash", cache=False) as mem:
        assert mem.cache is None and "cache_hits" not in mem.stats
        mem.add("I moved to Lisbon.", user_id="u")
        assert mem.search("Lisbon", user_id="u")
    monkeypatch.setenv("ANCHORMEM_CACHE", "false")
    with Memory(str(tmp_path / "b.db"), embedder="hash") as mem:
        assert mem.cache is None
    monkeypatch.setenv("ANCHORMEM_CACHE", "true")
    monkeypatch.setenv("ANCHORMEM_CACHE_SIZE", "7")
    monkeypatch.setenv("ANCHORMEM_CACHE_TTL", "5")
    with Memory(str(tmp_path / "c.db"), embedder="hash") as mem:
        assert mem.cache.cache.backend.max_entries == 7 and mem.cache.cache.ttl == 5.0


def test_bad_cache_settings_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="cache URL"):
        make_cache("memcached://localhost")
    with pytest.raises(ConfigError, match="cache must be"):
        Memory(str(tmp_path / "m.db"), embedder="hash", cache=42)
    with pytest.raises(InvalidInputError, match="ttl"):
        HotCache(ttl=0)


def test_the_lru_is_bounded():
    b = LocalBackend(3)
    for i in range(5):
        b.put(f"k{i}", b"v", 60)
    assert len(b) == 3 and b.get("k0") is None and b.get("k4") == b"v"


# ---------------------------------------------------------------- purge reaches the cache
def test_a_purge_removes_the_users_entries_from_the_cache(tmp_path):
    hot = HotCache(LocalBackend(256))
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), cache=hot) as mem:
        secret = mem.add("My locker code is 4411.", user_id="u")[0].memory.id
        mem.add("I like tea.", user_id="w")
        mem.search("locker code", user_id="u")
        mem.search("tea", user_id="w")
        mem.get(secret), mem.get(secret)
        said = b"locker code is 4411"  # the text (a bare "4411" can be the digits of a cached timestamp)
        assert any(said in v for _, v in hot.backend._d.values())
        mem.delete(secret, purge=True)
        assert not any(said in v for _, v in hot.backend._d.values())
        assert any(b"I like tea." in v for _, v in hot.backend._d.values())  # another user's entry stays


# ---------------------------------------------------------------- Redis
def _redis_cache(prefix: str, **kw) -> HotCache:
    return HotCache(RedisBackend(REDIS_URL), prefix=prefix, **kw)


def test_two_memories_on_one_file_share_a_redis_cache(tmp_path, redis_client, redis_prefix):
    path = str(tmp_path / "m.db")
    a = Memory(path, embedder=DeterministicEmbedder(64), cache=_redis_cache(redis_prefix))
    b = Memory(path, embedder=DeterministicEmbedder(64), cache=_redis_cache(redis_prefix))
    try:
        fill(a)
        with frozen_clock(T0):
            first = a.search("Lisbon", user_id="u", recipe=NO_TOUCH)
            shared = b.search("Lisbon", user_id="u", recipe=NO_TOUCH)  # b reads a's entry
            assert b.stats["cache_search_hits"] == 1 and b.stats["cache_embed_misses"] == 0
            assert dumped(shared) == dumped(first)
            b.search("Lisbon", user_id="u", recipe=NO_TOUCH, limit=2)  # a new search, the embedding from Redis
            assert b.stats["cache_embed_hits"] == 1 and b.stats["cache_embed_misses"] == 0
            b.add("Lisbon is hilly.", user_id="u")  # a write through b ...
            after = a.search("Lisbon", user_id="u", recipe=NO_TOUCH)  # ... invalidates a's cached search
            assert a.stats["cache_search_misses"] == 2
            assert "Lisbon is hilly." in [h.memory.text for h in after]
        assert list(redis_client.scan_iter(f"{redis_prefix}:s:*"))
        assert list(redis_client.scan_iter(f"{redis_prefix}:e:*"))
    finally:
        a.close()
        b.close()


def test_redis_purge_deletes_the_users_keys(tmp_path, redis_client, redis_prefix):
    """The purged user's text and keys are gone; the other user's entry stays, even where it holds the same digits
    (CI once failed on ``b"4411" in value``: the surviving entry's random ids, timestamps and float scores hold
    any four digits now and then; here another user's text holds them on every run)."""
    secret = b"My locker code is 4411."
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64),
                cache=_redis_cache(redis_prefix)) as mem:
        mid = mem.add(secret.decode(), user_id="u")[0].memory.id
        mem.add("I like tea at 4411 Elm Street.", user_id="w")
        mem.search("locker code", user_id="u"), mem.search("tea", user_id="w")
        mem.get(mid), mem.get(mid)
        u_scope = mem.cache._scope_prefix("default", "u")

        def holding(needle: bytes) -> list[bytes]:  # the keys whose value holds ``needle`` (named when it fails)
            return [k for k in redis_client.scan_iter(f"{redis_prefix}:*") if needle in (redis_client.get(k) or b"")]

        def keys(pattern: str) -> list[bytes]:
            return list(redis_client.scan_iter(pattern))

        assert holding(secret) and keys(f"{u_scope}*") and keys(f"{redis_prefix}:g:*")
        mem.delete_all(user_id="u", purge=True)
        assert holding(secret) == [] and holding(b"locker") == []
        assert keys(f"{u_scope}*") == [] and keys(f"{redis_prefix}:g:*") == []  # every key family of the user
        assert holding(b"I like tea at 4411 Elm Street.")  # another user's entry stays


@pytest.fixture(params=["local", "redis"])
def shared_cache(request):
    """One HotCache of each backend, for two Memory objects (two workers) on one file."""
    if request.param == "local":
        local = HotCache(LocalBackend(256))
        yield local, lambda: [v for _, v in local.backend._d.values()]
        return
    client, prefix = request.getfixturevalue("redis_client"), request.getfixturevalue("redis_prefix")
    hot = _redis_cache(prefix)
    yield hot, lambda: [client.get(k) or b"" for k in client.scan_iter(f"{prefix}:*")]
    hot.close()


@pytest.mark.parametrize("read", ["search", "get"])
def test_a_fill_racing_a_purge_is_not_written_back(tmp_path, shared_cache, read):
    """Worker ``a`` reads the rows, worker ``b`` purges the user (store, then cache), then ``a`` writes its entry:
    the purge mark refuses it, so the purged text never lands in the cache after the purge."""
    hot, values = shared_cache
    path = str(tmp_path / "m.db")
    a = Memory(path, embedder=DeterministicEmbedder(64), cache=hot)
    b = Memory(path, embedder=DeterministicEmbedder(64), cache=hot)
    try:
        mid = a.add("My locker code is 4411.", user_id="u")[0].memory.id
        a.get(mid)  # the first read caches only whose it is; the second would cache the text

        def purge_meanwhile(real):
            def racing(*args, **kw):
                rows = real(*args, **kw)
                b.delete_all(user_id="u", purge=True)  # lands between a's read of the rows and a's write
                return rows
            return racing

        if read == "search":
            a._searcher.search = purge_meanwhile(a._searcher.search)
            assert a.search("locker code", user_id="u")  # a's result, read before the purge
        else:
            a.store.get = purge_meanwhile(a.store.get)
            assert a.get(mid).text == "My locker code is 4411."
        assert not any(b"locker code" in v for v in values())
        assert b.search("locker code", user_id="u") == []  # later fills are cached again
        assert b.stats["cache_search_misses"] == 1 and b.search("locker code", user_id="u") == []
        assert b.stats["cache_search_hits"] == 1
    finally:
        a.close()
        b.close()


def test_a_purge_failing_in_redis_is_logged_every_time(tmp_path, caplog):
    hot = HotCache(RedisBackend("redis://127.0.0.1:1/0", socket_timeout=0.2))
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), cache=hot) as mem:
        mem.add("My locker code is 4411.", user_id="u")
        mem.search("locker", user_id="u")  # the first failure: logged once for the reads
        with caplog.at_level(logging.WARNING, logger="anchormem"):
            mem.delete_all(user_id="u", purge=True)
            mem.delete_all(user_id="u", purge=True)
        purges = [r for r in caplog.records if "during a purge" in r.getMessage()]
        assert len(purges) >= 2 and all("until their TTL" in r.getMessage() for r in purges)


def test_an_unreachable_redis_runs_uncached_with_a_warning(tmp_path, caplog):
    hot = HotCache(RedisBackend("redis://127.0.0.1:1/0", socket_timeout=0.2))
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(64), cache=hot) as mem:
        fill(mem)
        with caplog.at_level(logging.WARNING, logger="anchormem"):
            a = mem.search("Lisbon", user_id="u", recipe=NO_TOUCH)
            b = mem.search("Lisbon", user_id="u", recipe=NO_TOUCH)
        assert [h.memory.id for h in a] == [h.memory.id for h in b] and a
        assert mem.stats["cache_search_hits"] == 0
        warnings = [r for r in caplog.records if "hot cache" in r.getMessage()]
        assert len(warnings) == 1 and "127.0.0.1:1" in warnings[0].getMessage()


def test_make_cache_pings_redis_and_hides_the_password():
    with pytest.raises(StoreError) as info:
        make_cache("redis://user:s3cret@127.0.0.1:1/0")
    assert "s3cret" not in str(info.value) and "127.0.0.1:1" in str(info.value)
