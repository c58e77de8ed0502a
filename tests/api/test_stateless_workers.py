"""Stateless workers: two ``anchormem serve`` processes over one PostgreSQL + Redis give the same answers.

Worker A and worker B are separate ``python -m anchormem serve`` processes (their own ports, memory, caches and
connection pools) with the same ``--url postgresql://…`` and ``ANCHORMEM_SESSION_URL=redis://…``. API keys are
created with the CLI and live in the PostgreSQL database, so no file is shared. Every check writes through one
worker and reads through the other.

PostgreSQL comes from the ``pgserver`` wheel (tests/pg_fixtures.py); Redis from ``$ANCHORMEM_TEST_REDIS_URL``
(default ``redis://127.0.0.1:6379/0``). Without either the tests are skipped with the reason, except in CI (``CI``,
``ANCHORMEM_REQUIRE_POSTGRES`` / ``ANCHORMEM_REQUIRE_REDIS`` set), where they fail. Tenant names are unique per
run, so the Redis keys (``anchormem:<tenant>:…``) never collide with other tests; they are deleted at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from anchormem.testing.serve import ServeProcess

REDIS_URL = os.environ.get("ANCHORMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
VOLATILE = {"access_count", "last_accessed_at", "exported_at"}  # change on every search / export, by design


def _require_redis() -> bool:
    return bool(os.environ.get("CI") or os.environ.get("ANCHORMEM_REQUIRE_REDIS"))


def _redis_client() -> Any:
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, decode_responses=True, socket_connect_timeout=1, socket_timeout=5)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - missing package or unreachable server: skip (fail in CI)
        reason = f"no Redis for the stateless-workers test at {REDIS_URL}: {type(exc).__name__}: {exc}"
        if _require_redis():
            pytest.fail(reason)
        pytest.skip(reason)
    return client


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORMEM_")}
    env.update(extra)
    return env


def _cli(*args: str, env: dict[str, str]) -> dict[str, Any]:
    """Run ``python -m anchormem --json ARGS`` and return its JSON output."""
    r = subprocess.run([sys.executable, "-m", "anchormem", "--json", *args], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def Worker(name: str, url: str, env: dict[str, str], log: Path) -> ServeProcess:
    """Worker ``name``: ``python -m anchormem serve`` on its own loopback port (anchormem.testing.serve)."""
    return ServeProcess(url, env=env, log=log)


@dataclass
class Cluster:
    """Two workers over one PostgreSQL database and one Redis; an admin key for each of two tenants."""

    db_url: str
    cli_env: dict[str, str]
    a: ServeProcess
    b: ServeProcess
    keys: dict[str, str]
    tenants: tuple[str, str]
    redis: Any
    _clients: list[httpx.Client] = field(default_factory=list)

    def client(self, worker: ServeProcess, tenant: str | None = None, key: str | None = None) -> httpx.Client:
        key = key or self.keys[tenant or self.tenants[0]]
        c = httpx.Client(base_url=worker.base, headers={"Authorization": f"Bearer {key}"}, timeout=60.0)
        self._clients.append(c)
        return c


@pytest.fixture(scope="module")
def cluster(pg_server, tmp_path_factory) -> Iterator[Cluster]:
    redis_client = _redis_client()
    db_url = pg_server.new_database()
    run = uuid.uuid4().hex[:8]
    tenants = (f"acme-{run}", f"globex-{run}")
    cli_env = _env()
    keys = {t: _cli("keys", "create", "--tenant", t, "--role", "admin", "--name", "stateless-test", "--url", db_url,
                    env=cli_env)["key"] for t in tenants}
    logs = tmp_path_factory.mktemp("workers")
    server_env = _env(ANCHORMEM_EMBEDDER="hash", ANCHORMEM_SESSION_URL=REDIS_URL, ANCHORMEM_RATE_LIMIT="off")
    a = Worker("A", db_url, server_env, logs / "a.log")
    try:
        b = Worker("B", db_url, server_env, logs / "b.log")
    except BaseException:
        a.stop()
        raise
    c = Cluster(db_url, cli_env, a, b, keys, tenants, redis_client)
    try:
        yield c
    finally:
        for client in c._clients:
            client.close()
        a.stop()
        b.stop()
        for t in tenants:
            stale = list(redis_client.scan_iter(f"anchormem:{t}:*"))
            if stale:
                redis_client.delete(*stale)
        redis_client.close()


def _uid() -> str:
    return "u-" + uuid.uuid4().hex[:10]


def _stable(value: Any) -> Any:
    """``value`` without the fields that every search or export changes on purpose (access counts, times)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _same_hits(first: list[dict], second: list[dict]) -> None:
    """``second`` (the same search, one worker later) ranks the same memories with the same dense, BM25 and fused
    scores; only the importance term moved, because ``first`` bumped each returned memory's access count once."""
    assert [h["memory"]["id"] for h in first] == [h["memory"]["id"] for h in second] and first
    for h1, h2 in zip(first, second):
        assert _stable(h1["memory"]) == _stable(h2["memory"])
        for k in ("dense", "bm25", "dense_rank", "bm25_rank", "fused", "source_weight"):
            assert h1["explain"][k] == h2["explain"][k], k
        assert h2["memory"]["access_count"] == h1["memory"]["access_count"] + 1


def _ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


TURNS = [
    {"role": "user", "content": "I moved to Lisbon last month.", "timestamp": "2025-03-10T09:00:00Z"},
    {"role": "assistant", "content": "Nice! How do you like Lisbon so far?", "timestamp": "2025-03-10T09:00:05Z"},
    {"role": "user", "content": "My sister Ana works as a nurse in Porto.", "timestamp": "2025-03-10T09:01:00Z"},
    {"role": "user", "content": "我最喜欢的茶是龙井。", "timestamp": "2025-03-10T09:02:00Z"},
    {"role": "user", "content": "We agreed to send the lease documents by Monday.",
     "timestamp": "2025-03-10T09:03:00Z"},
]


# ------------------------------------------------------------------------------------------------ tests
def test_both_workers_live_and_ready(cluster):
    for w in (cluster.a, cluster.b):
        assert httpx.get(w.base + "/v1/health").json() == {"status": "ok"}
        r = httpx.get(w.base + "/v1/ready")
        assert r.status_code == 200 and r.json() == {"status": "ready"}
    assert cluster.a.proc.pid != cluster.b.proc.pid and cluster.a.port != cluster.b.port


def test_a_worker_without_its_redis_is_live_but_not_ready(tmp_path):
    # in process (no cluster needed): the session store's Redis refuses connections on port 1
    from fastapi.testclient import TestClient

    from anchormem.config import Settings
    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyStore

    app = create_app(str(tmp_path / "m.db"), keys=KeyStore(":memory:"), rate_limit=None,
                     settings=Settings(embedder="hash", session_url="redis://127.0.0.1:1/0"))
    with TestClient(app) as c:
        assert c.get("/v1/health").status_code == 200
        r = c.get("/v1/ready")
        assert r.status_code == 503 and r.json()["error"]["code"] == "store_error"
        assert "redis://127.0.0.1:1/0" in r.json()["error"]["message"]


def test_written_on_a_reads_the_same_on_b(cluster):
    user = _uid()
    a, b = cluster.client(cluster.a), cluster.client(cluster.b)
    events = _ok(a.post("/v1/memories", json={"messages": TURNS, "user_id": user, "session_id": "s1",
                                              "metadata": {"channel": "chat"}}), 201)["events"]
    ids = [e["memory"]["id"] for e in events if e["event"] == "ADD"]
    assert len(ids) >= 4

    for mid in ids:  # get and history: identical documents
        got_a, got_b = _ok(a.get(f"/v1/memories/{mid}")), _ok(b.get(f"/v1/memories/{mid}"))
        assert got_a == got_b and got_a["id"] == mid
        assert _ok(a.get(f"/v1/memories/{mid}/history")) == _ok(b.get(f"/v1/memories/{mid}/history"))
    listed_a = _ok(a.get("/v1/memories", params={"user_id": user}))["memories"]
    listed_b = _ok(b.get("/v1/memories", params={"user_id": user}))["memories"]
    assert listed_a == listed_b and sorted(m["id"] for m in listed_a) == sorted(ids)

    # dense recipe: no recency or access term, so the scores must match exactly
    q = {"query": "Where does my sister work?", "user_id": user, "limit": 5}
    dense_a = _ok(a.post("/v1/search", json={**q, "recipe": "dense"}))["hits"]
    dense_b = _ok(b.post("/v1/search", json={**q, "recipe": "dense"}))["hits"]
    assert [h["memory"]["id"] for h in dense_a] == [h["memory"]["id"] for h in dense_b]
    assert [h["memory"]["text"] for h in dense_a] == [h["memory"]["text"] for h in dense_b]
    assert [h["score"] for h in dense_a] == [h["score"] for h in dense_b]
    assert dense_a[0]["memory"]["text"] == "My sister Ana works as a nurse in Porto."

    # default hybrid recipe: same ranking and fused scores; B sees the access count A's search just wrote
    hyb_a = _ok(a.post("/v1/search", json=q))["hits"]
    hyb_b = _ok(b.post("/v1/search", json=q))["hits"]
    _same_hits(hyb_a, hyb_b)

    ask = {"query": "What is my favourite tea?", "user_id": user}
    with_candidates = {"include": "candidates"}
    ans_a = _ok(a.post("/v1/ask", json=ask, params=with_candidates))
    ans_b = _ok(b.post("/v1/ask", json=ask, params=with_candidates))
    assert not ans_a["abstained"] and "龙井" in ans_a["text"]
    assert (ans_a["text"], ans_a["abstained"]) == (ans_b["text"], ans_b["abstained"])
    assert _stable(ans_a["citations"]) == _stable(ans_b["citations"])
    _same_hits(ans_a["candidates"], ans_b["candidates"])

    exp_a = _ok(a.get("/v1/export", params={"user_id": user}))
    exp_b = _ok(b.get("/v1/export", params={"user_id": user}))
    assert _stable(exp_a) == _stable(exp_b)
    assert sorted(m["id"] for m in exp_b["memories"] if m["id"] in ids) == sorted(ids)

    ctx = {"query": "When do I send the lease documents?", "user_id": user, "session_id": "s1",
           "budget_tokens": 400}
    ctx_a, ctx_b = _ok(a.post("/v1/context", json=ctx)), _ok(b.post("/v1/context", json=ctx))
    assert ctx_a["text"] == ctx_b["text"] and ctx_a["memory_ids"] == ctx_b["memory_ids"]
    assert "We agreed to send the lease documents by Monday." in ctx_b["text"]


def test_no_stale_answers_after_writes_on_the_other_worker(cluster):
    user = _uid()
    a, b = cluster.client(cluster.a), cluster.client(cluster.b)
    _ok(a.post("/v1/memories", json={"messages": "I play the cello on Sundays.", "user_id": user}), 201)
    q = {"query": "What instrument do I play? violin or cello", "user_id": user, "limit": 10, "recipe": "dense"}
    before = _ok(a.post("/v1/search", json=q))["hits"]           # A has searched (and cached) this scope
    assert [h["memory"]["text"] for h in before] == ["I play the cello on Sundays."]

    new = _ok(b.post("/v1/memories", json={"messages": "I started learning the violin too.", "user_id": user}),
              201)["events"][0]["memory"]
    after = _ok(a.post("/v1/search", json=q))["hits"]
    assert new["id"] in [h["memory"]["id"] for h in after]       # A answers with B's write, at once
    assert len(after) == 2

    _ok(b.patch(f"/v1/memories/{new['id']}", json={"text": "I started learning the viola too."}))
    assert _ok(a.get(f"/v1/memories/{new['id']}"))["text"] == "I started learning the viola too."
    assert [h["event"] for h in _ok(a.get(f"/v1/memories/{new['id']}/history"))["history"]] == ["ADD", "UPDATE"]

    _ok(b.delete(f"/v1/memories/{new['id']}"))
    r = a.get(f"/v1/memories/{new['id']}")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    gone = _ok(a.post("/v1/search", json=q))["hits"]
    assert [h["memory"]["text"] for h in gone] == ["I play the cello on Sundays."]
    assert [m["text"] for m in _ok(a.get("/v1/memories", params={"user_id": user}))["memories"]] == \
        ["I play the cello on Sundays."]


def test_session_turns_written_through_a_are_seen_through_b(cluster):
    user, tenant = _uid(), cluster.tenants[0]
    a, b = cluster.client(cluster.a), cluster.client(cluster.b)
    _ok(a.post("/v1/memories", json={"messages": [
        {"role": "user", "content": "Let's plan the trip to Kyoto in April."},
        {"role": "assistant", "content": "Sure. Do you prefer trains or flights?"}],
        "user_id": user, "session_id": "trip"}), 201)
    turns_key = f"anchormem:{tenant}:{user}:trip:turns"
    assert cluster.redis.llen(turns_key) == 2                    # the buffer is in Redis, not in worker A

    ctx = {"query": "Trains, please.", "user_id": user, "session_id": "trip", "budget_tokens": 300,
           "memory_limit": 0}
    recent_b = next(s for s in _ok(b.post("/v1/context", json=ctx))["sections"] if s["name"] == "recent_turns")
    assert [t["content"] for t in recent_b["items"]] == [
        "Let's plan the trip to Kyoto in April.", "Sure. Do you prefer trains or flights?", "Trains, please."]

    _ok(b.post("/v1/memories", json={"messages": "Trains, please.", "user_id": user, "session_id": "trip"}), 201)
    assert cluster.redis.llen(turns_key) == 3
    block_a = _ok(a.post("/v1/context", json=ctx))
    recent_a = next(s for s in block_a["sections"] if s["name"] == "recent_turns")
    assert [t["content"] for t in recent_a["items"]] == [
        "Let's plan the trip to Kyoto in April.", "Sure. Do you prefer trains or flights?", "Trains, please."]
    assert block_a["text"] == _ok(b.post("/v1/context", json=ctx))["text"]


def test_tenants_stay_apart_on_both_workers(cluster):
    user = _uid()
    x, y = cluster.tenants
    mid = _ok(cluster.client(cluster.a, x).post("/v1/memories", json={
        "messages": "My passport number is in the blue folder.", "user_id": user, "session_id": "s"}),
        201)["events"][0]["memory"]["id"]
    for w in (cluster.a, cluster.b):
        theirs = cluster.client(w, y)
        assert theirs.get(f"/v1/memories/{mid}").status_code == 404
        assert _ok(theirs.get("/v1/memories", params={"user_id": user}))["memories"] == []
        assert _ok(theirs.post("/v1/search", json={"query": "passport folder", "user_id": user}))["hits"] == []
        assert _ok(theirs.post("/v1/ask", json={"query": "Where is my passport number?", "user_id": user}))[
            "abstained"] is True
        assert _ok(theirs.get("/v1/export", params={"user_id": user}))["memories"] == []
        block = _ok(theirs.post("/v1/context", json={"query": "passport?", "user_id": user, "session_id": "s",
                                                     "budget_tokens": 300}))
        assert "passport number" not in block["text"] and block["memory_ids"] == []
        assert theirs.delete(f"/v1/memories/{mid}").status_code == 404
        ours = cluster.client(w, x)
        assert _ok(ours.get(f"/v1/memories/{mid}"))["text"] == "My passport number is in the blue folder."


def test_keys_live_in_the_postgres_database_hashed(cluster):
    import psycopg

    with psycopg.connect(cluster.db_url) as conn:
        rows = conn.execute("SELECT id, tenant, role, salt, hash FROM anchormem_api_keys").fetchall()
    assert {(t, r) for _, t, r, _, _ in rows} >= {(t, "admin") for t in cluster.tenants}
    assert all(len(bytes(h)) == 32 and len(bytes(s)) == 16 for *_, s, h in rows)
    for key in cluster.keys.values():
        secret = key.split("_", 2)[2]
        assert all(secret not in repr(row) for row in rows)     # only the salted hash is stored


def test_keys_created_and_revoked_with_the_cli_apply_to_both_workers(cluster):
    made = _cli("keys", "create", "--tenant", cluster.tenants[0], "--role", "reader", "--url", cluster.db_url,
                env=cluster.cli_env)
    for w in (cluster.a, cluster.b):                 # no restart: each request checks the shared keys table
        assert cluster.client(w, key=made["key"]).get("/v1/memories", params={"user_id": "nobody"}).status_code \
            == 200
        r = cluster.client(w, key=made["key"]).post("/v1/memories", json={"messages": "hi there", "user_id": "u"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    listed = _cli("keys", "list", "--tenant", cluster.tenants[0], "--url", cluster.db_url, env=cluster.cli_env)
    assert made["id"] in [k["id"] for k in listed]
    revoked = _cli("keys", "revoke", made["id"], "--url", cluster.db_url, env=cluster.cli_env)
    assert revoked["revoked_at"] is not None
    for w in (cluster.a, cluster.b):
        r = cluster.client(w, key=made["key"]).get("/v1/memories", params={"user_id": "nobody"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


def test_two_workers_changing_one_fact_at_once_leave_one_current_value(cluster):
    """Issue 22: "I moved to Paris." through A and "I moved to Rome." through B at the same moment end with one current
    home and the other in history (PostgreSQL serialises read-decide-write per tenant/user/slot); the REST memory
    shows the superseded claim as such."""
    import threading

    a, b = cluster.client(cluster.a), cluster.client(cluster.b)
    for round_ in range(3):
        user = _uid()
        _ok(a.post("/v1/memories", json={"messages": "I live in Lisbon.", "user_id": user,
                                         "timestamp": "2024-01-10T10:00:00Z"}), 201)
        go = threading.Barrier(2)

        def send(client: Any, text: str) -> None:
            go.wait(timeout=30)
            _ok(client.post("/v1/memories", json={"messages": text, "user_id": user,
                                                  "timestamp": "2024-03-10T10:00:00Z"}), 201)

        threads = [threading.Thread(target=send, args=(a, "I moved to Paris.")),
                   threading.Thread(target=send, args=(b, "I moved to Rome."))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        every = _ok(b.get("/v1/memories", params={"user_id": user, "include_superseded": "true"}))["memories"]
        homes = {m["text"]: m for m in every}
        assert set(homes) == {"I live in Lisbon.", "I moved to Paris.", "I moved to Rome."}, round_
        current = [t for t, m in homes.items() if m["current"]]
        assert len(current) == 1 and current[0] in ("I moved to Paris.", "I moved to Rome."), round_
        assert homes["I live in Lisbon."]["current"] is False
        assert [c["valid_to"] is not None for c in homes["I live in Lisbon."]["claims"]] == [True]
