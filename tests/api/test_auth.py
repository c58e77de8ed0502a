"""API keys, roles, rate limits and tenant isolation, over real HTTP."""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchormem.server.keys import KeyStore, role_allows
from anchormem.server.ratelimit import RateLimiter, RateLimitError, parse_rate_limit
from anchormem.errors import ConfigError

from .conftest import TENANTS


def _err(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code, r.text


# ----------------------------------------------------------------------------------------------- 401
@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer"},
    {"Authorization": "Bearer nope"},
    {"Authorization": "Basic dXNlcjpwYXNz"},
    {"Authorization": "Bearer amk_0123456789abcdef_notthesecret"},
    {"Authorization": "Bearer amk_zzzz_secret"},
])
@pytest.mark.parametrize("method,path,body", [
    ("GET", "/v1/memories?user_id=u", None),
    ("POST", "/v1/memories", {"messages": "hello world again", "user_id": "u"}),
    ("POST", "/v1/search", {"query": "q", "user_id": "u"}),
    ("GET", "/v1/export?user_id=u", None),
    ("POST", "/v1/forget", {"user_id": "u"}),
])
def test_missing_or_invalid_key_is_401(api, headers, method, path, body):
    r = httpx.request(method, api.url + path, json=body, headers=headers)
    _err(r, 401, "unauthorized")
    assert r.headers["www-authenticate"] == "Bearer"


def test_tampered_secret_is_401(api):
    good = api.key[("acme", "admin")]
    bad = good[:-1] + ("A" if good[-1] != "A" else "B")
    r = httpx.get(api.url + "/v1/memories", params={"user_id": "u"}, headers={"Authorization": f"Bearer {bad}"})
    _err(r, 401, "unauthorized")


def test_revoked_key_is_401(api):
    key, secret = api.keys.create("acme", "admin", name="short-lived")
    h = {"Authorization": f"Bearer {secret}"}
    assert httpx.get(api.url + "/v1/memories", params={"user_id": "u"}, headers=h).status_code == 200
    api.keys.revoke(key.id)
    _err(httpx.get(api.url + "/v1/memories", params={"user_id": "u"}, headers=h), 401, "unauthorized")


# ----------------------------------------------------------------------------------------------- roles
ROUTES = {  # route → least role
    ("GET", "/v1/memories?user_id=u"): "reader",
    ("POST", "/v1/search"): "reader",
    ("POST", "/v1/ask"): "reader",
    ("GET", "/v1/export?user_id=u"): "reader",
    ("POST", "/v1/memories"): "writer",
    ("POST", "/v1/forget"): "admin",
}
BODIES = {"/v1/search": {"query": "tea", "user_id": "u"}, "/v1/ask": {"query": "tea?", "user_id": "u"},
          "/v1/memories": {"messages": "I like green tea a lot.", "user_id": "u"}, "/v1/forget": {"user_id": "u0"}}


@pytest.mark.parametrize("role", ["reader", "writer", "admin"])
@pytest.mark.parametrize("route", list(ROUTES))
def test_role_matrix(api, role, route):
    method, path = route
    with api.client("globex", role) as c:
        r = c.request(method, path, json=BODIES.get(path))
    if role_allows(role, ROUTES[route]):
        assert r.status_code in (200, 201), r.text
    else:
        _err(r, 403, "forbidden")


def test_reader_cannot_write_by_id(api):
    with api.client("globex", "writer") as w:
        mid = w.post("/v1/memories", json={"messages": "I keep bees in the garden.", "user_id": "bee"}
                     ).json()["events"][0]["memory"]["id"]
    with api.client("globex", "reader") as r:
        assert r.get(f"/v1/memories/{mid}").status_code == 200
        assert r.get(f"/v1/memories/{mid}/history").status_code == 200
        _err(r.patch(f"/v1/memories/{mid}", json={"text": "changed text here"}), 403, "forbidden")
        _err(r.delete(f"/v1/memories/{mid}"), 403, "forbidden")
    with api.client("globex", "writer") as w:
        _err(w.post("/v1/forget", json={"user_id": "bee"}), 403, "forbidden")
        assert w.get(f"/v1/memories/{mid}").json()["text"] == "I keep bees in the garden."


# ----------------------------------------------------------------------------------------------- keys
def test_keys_are_hashed_and_verified(tmp_path):
    ks = KeyStore(tmp_path / "k.db")
    key, secret = ks.create("t", "writer", name="n")
    assert secret.startswith(f"amk_{key.id}_") and len(secret) > 50
    assert secret.split("_", 2)[2].encode() not in (tmp_path / "k.db").read_bytes()
    assert ks.verify(secret) == key
    assert ks.verify(secret + "x") is None and ks.verify("") is None and ks.verify("amk__") is None
    _, other = ks.create("t", "writer")
    assert other != secret
    assert [k.id for k in ks.list("t")][0] == key.id and ks.list("nobody") == []
    assert ks.revoke(key.id).revoked_at is not None
    assert ks.verify(secret) is None
    ks.close()


def test_rate_limit_parsing():
    assert parse_rate_limit("20/s") == (20.0, 40.0)
    assert parse_rate_limit("20/s", 5) == (20.0, 5.0)
    assert parse_rate_limit("600/min:100") == (10.0, 100.0)
    assert parse_rate_limit("off") is None and parse_rate_limit(None) is None
    for bad in ("fast", "10/fortnight", "-1/s", "10/s:0"):
        with pytest.raises(ConfigError):
            parse_rate_limit(bad)


def test_token_bucket():
    now = [0.0]
    rl = RateLimiter(2.0, 3.0, clock=lambda: now[0])
    for _ in range(3):
        rl.hit("k")
    with pytest.raises(RateLimitError) as e:
        rl.hit("k")
    assert e.value.retry_after >= 1
    rl.hit("other")  # buckets are per key
    now[0] += 0.5
    rl.hit("k")


def test_rate_limit_429_over_http(limited_api):
    with limited_api.client("acme", "reader") as c:
        codes = [c.get("/v1/memories", params={"user_id": "u"}) for _ in range(8)]
    statuses = [r.status_code for r in codes]
    assert statuses[:3] == [200, 200, 200] and 429 in statuses
    limited = next(r for r in codes if r.status_code == 429)
    assert limited.json()["error"]["code"] == "rate_limited"
    assert int(limited.headers["retry-after"]) >= 1
    with limited_api.client("globex", "reader") as other:  # another key has its own bucket
        assert other.get("/v1/memories", params={"user_id": "u"}).status_code == 200
    time.sleep(1.1)
    with limited_api.client("acme", "reader") as c:
        assert c.get("/v1/memories", params={"user_id": "u"}).status_code == 200


# ----------------------------------------------------------------------------------------------- isolation
WORDS = ["tea", "coffee", "Lisbon", "Berlin", "cello", "piano", "bicycle", "garden", "茶", "北京", "上海", "钢琴",
         "猫", "dog", "nurse", "engineer", "sushi", "marathon"]
users = st.sampled_from(["alice", "bob", "carol", "小明"])
writes = st.lists(st.tuples(st.sampled_from(TENANTS), users, st.lists(st.sampled_from(WORDS), min_size=1,
                                                                      max_size=4)),
                  min_size=2, max_size=8)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(writes=writes, reader=st.sampled_from(TENANTS), query_words=st.lists(st.sampled_from(WORDS), min_size=1,
                                                                             max_size=3))
def test_tenant_isolation(api, writes, reader, query_words):
    """Whatever tenants B and C store, every read, search, ask, export and forget with tenant A's key returns
    nothing of theirs (their unique markers never appear in A's responses), and their ids are 404 for A."""
    run = uuid.uuid4().hex[:8]
    ids: dict[str, list[str]] = {t: [] for t in TENANTS}
    markers: dict[str, list[str]] = {t: [] for t in TENANTS}
    for i, (tenant, user, words) in enumerate(writes):
        marker = f"mk{run}{tenant[:3]}{i}"
        with api.client(tenant, "writer") as c:
            r = c.post("/v1/memories", json={"messages": f"{marker} I really like {' and '.join(words)}.",
                                             "user_id": user, "metadata": {"run": run}})
        assert r.status_code == 201, r.text
        for e in r.json()["events"]:
            ids[tenant].append(e["memory"]["id"])
        markers[tenant].append(marker)
    foreign_ids = [i for t in TENANTS if t != reader for i in ids[t]]
    foreign = [m for t in TENANTS if t != reader for m in markers[t]] + foreign_ids
    leaks: list[str] = []

    def check(r: httpx.Response) -> None:
        text = r.text
        asked = str(r.request.url) + r.request.content.decode()  # a 404 may echo the id the caller sent
        leaks.extend(f"{r.request.method} {r.request.url.path}: {m}" for m in foreign
                     if m in text and m not in asked)
        if r.status_code == 200:
            for t in TENANTS:
                if t != reader:
                    assert f'"tenant":"{t}"' not in text

    q = " ".join(query_words)
    with api.client(reader, "admin") as c:
        for user in {u for _, u, _ in writes}:
            for r in (c.get("/v1/memories", params={"user_id": user, "include_superseded": True, "limit": 1000}),
                      c.get("/v1/memories", params={"user_id": user, "filters": json.dumps({"metadata.run": run})}),
                      c.post("/v1/search", json={"query": q, "user_id": user, "limit": 50}),
                      c.post("/v1/search", json={"query": markers[writes[0][0]][0], "user_id": user,
                                                 "recipe": "bm25"}),
                      c.post("/v1/ask", json={"query": f"what does {user} like? {q}", "user_id": user}),
                      c.get("/v1/export", params={"user_id": user})):
                assert r.status_code in (200, 400), r.text  # 400: the run's metadata key is unknown to A
                check(r)
        for mid in foreign_ids:
            for r in (c.get(f"/v1/memories/{mid}"), c.get(f"/v1/memories/{mid}/history"),
                      c.patch(f"/v1/memories/{mid}", json={"text": "overwritten by another tenant"}),
                      c.delete(f"/v1/memories/{mid}")):
                assert r.status_code == 404, r.text
                check(r)
        # forgetting A's users with A's admin key leaves B's and C's memories alone
        before = {t: _count(api, t, writes) for t in TENANTS if t != reader}
        for user in {u for _, u, _ in writes}:
            r = c.post("/v1/forget", json={"user_id": user})
            assert r.status_code == 200
            check(r)
        after = {t: _count(api, t, writes) for t in TENANTS if t != reader}
    assert leaks == []
    assert before == after
    for t in TENANTS:  # every foreign memory is still readable by its own tenant
        if t != reader:
            with api.client(t, "reader") as c:
                for mid in ids[t]:
                    assert c.get(f"/v1/memories/{mid}").status_code == 200


def _count(api, tenant: str, writes) -> int:
    with api.client(tenant, "reader") as c:
        return sum(len(c.get("/v1/memories", params={"user_id": u, "include_superseded": True,
                                                     "limit": 1000}).json()["memories"])
                   for u in {u for _, u, _ in writes})
