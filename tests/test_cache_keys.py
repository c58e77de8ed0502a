"""Hot cache keys: HMAC-SHA256 under a per-store secret (not a bare hash anyone can recompute from a guess), query
embeddings scoped by tenant and user, and a purge of the user deletes them (Redis scanned after the forget)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from anchormem import Memory
from anchormem.hotcache import HotCache, LocalBackend, RedisBackend
from anchormem.testing import DeterministicEmbedder
from redis_fixtures import REDIS_URL, redis_client, redis_prefix  # noqa: F401

QUERY = "what is my locker code"


def _mem(path, cache, tenant="default") -> Memory:
    return Memory(str(path), embedder=DeterministicEmbedder(64), llm=None, cache=cache, tenant=tenant)


def _embedding_bytes(text: str) -> bytes:
    return DeterministicEmbedder(64).embed_query(text).astype("<f4").tobytes()


def test_the_secret_is_made_once_per_store_and_kept_in_it(tmp_path):
    with _mem(tmp_path / "a.db", False) as a:
        s1 = a.store.cache_secret()
    with _mem(tmp_path / "a.db", False) as a:
        assert a.store.cache_secret() == s1 and len(s1) == 32
    with _mem(tmp_path / "b.db", False) as b:
        assert b.store.cache_secret() != s1


def test_embedding_keys_are_keyed_and_scoped(tmp_path):
    hot = HotCache(LocalBackend(256))
    a, b = _mem(tmp_path / "a.db", hot), _mem(tmp_path / "b.db", hot)
    a2 = _mem(tmp_path / "a.db", hot, tenant="other")
    try:
        for m, user in ((a, "u"), (a, "w"), (b, "u"), (a2, "u")):
            m.search(QUERY, user_id=user)
        keys = sorted(k for k in hot._emb._d if ":e:" in k)
        assert len(keys) == 4  # one per (store, tenant, user): none shared
        plain = hashlib.sha256("\x00".join(["hash-64", "64", QUERY]).encode()).hexdigest()
        for k in keys:
            assert plain not in k and "locker" not in k and ":u:" not in k and "default" not in k
        assert a.stats["cache_embed_misses"] == 2 and a2.stats["cache_embed_misses"] == 1
        a.search(QUERY, user_id="u", limit=3)  # a new search (a miss), the same query
        assert a.stats["cache_embed_hits"] == 1  # the same user's repeat is a hit
    finally:
        for m in (a, b, a2):
            m.close()


def test_a_purge_drops_the_users_embeddings_from_this_process(tmp_path):
    hot = HotCache(LocalBackend(256))
    with _mem(tmp_path / "m.db", hot) as mem:
        mem.add("My locker code is 4411.", user_id="u")
        mem.search(QUERY, user_id="u"), mem.search("tea", user_id="w")
        assert any(v == _embedding_bytes(QUERY) for _, v in hot._emb._d.values())
        mem.delete_all(user_id="u", purge=True)
        assert not any(v == _embedding_bytes(QUERY) for _, v in hot._emb._d.values())
        assert any(v == _embedding_bytes("tea") for _, v in hot._emb._d.values())


def test_redis_holds_no_query_embedding_of_a_forgotten_user(tmp_path, redis_client, redis_prefix):  # noqa: F811
    hot = HotCache(RedisBackend(REDIS_URL), prefix=redis_prefix)
    with _mem(tmp_path / "m.db", hot) as mem:
        mem.add("My locker code is 4411.", user_id="u")
        mem.add("I like tea.", user_id="w")
        mem.search(QUERY, user_id="u"), mem.search("locker code", user_id="u"), mem.search("tea", user_id="w")
        mem.ask("when do I open my locker", user_id="u")

        def values() -> list[bytes]:
            return [redis_client.get(k) or b"" for k in redis_client.scan_iter(f"{redis_prefix}:*")]

        u_vectors = {_embedding_bytes(q) for q in (QUERY, "locker code")}
        assert u_vectors <= set(values())
        assert all(b"locker" not in k and b"default" not in k for k in redis_client.scan_iter(f"{redis_prefix}:*"))
        mem.delete_all(user_id="u", purge=True)
        left = values()
        assert not u_vectors & set(left)
        assert not [v for v in left if b"locker" in v]  # (not a bare "4411": a timestamp may hold those digits)
        assert _embedding_bytes("tea") in left  # another user's embedding stays
        assert len(list(redis_client.scan_iter(f"{redis_prefix}:e:*"))) == 1  # only w's
        # the same query by the same user after the purge is computed again, not served from a leftover
        before = mem.stats["cache_embed_misses"]
        v = mem._searcher.embed_query(QUERY, mem._scope("u"))
        assert mem.stats["cache_embed_misses"] == before + 1
        assert np.allclose(v, DeterministicEmbedder(64).embed_query(QUERY))
    hot.close()


@pytest.mark.parametrize("kind", ["local", "redis"])
def test_an_embedding_computed_across_a_purge_is_not_written_back(tmp_path, kind, request):
    """The query embedding is computed while a purge of the user runs (another worker): it is returned, but not
    cached, since the purge mark changed after it was read."""
    if kind == "redis":
        prefix = request.getfixturevalue("redis_prefix")
        client = request.getfixturevalue("redis_client")
        hot = HotCache(RedisBackend(REDIS_URL), prefix=prefix)
    else:
        hot = HotCache(LocalBackend(256))
    with _mem(tmp_path / "m.db", hot) as mem:
        scope = mem._scope("u")
        vec = DeterministicEmbedder(64).embed_query(QUERY)

        def compute_while_purging():
            mem.delete_all(user_id="u", purge=True)
            return vec

        out = mem.cache.embedding("hash-64", 64, QUERY, compute_while_purging, scope=scope)
        assert np.allclose(out, vec)
        assert not any(v == _embedding_bytes(QUERY) for _, v in hot._emb._d.values())
        if kind == "redis":
            assert list(client.scan_iter(f"{prefix}:e:*")) == []
        mem.cache.embedding("hash-64", 64, QUERY, lambda: vec, scope=scope)  # no purge now: cached
        assert any(v == _embedding_bytes(QUERY) for _, v in hot._emb._d.values())
    hot.close()
