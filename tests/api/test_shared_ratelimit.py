"""Rate limits shared by API workers through Redis (anchormem.server.ratelimit_redis).

Uses the Redis at ``$ANCHORMEM_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``) with a unique key prefix
per test, deleted afterwards; skipped with the reason when no Redis answers (failed in CI).
"""

from __future__ import annotations

import os
import time
import uuid

import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.errors import ConfigError
from anchormem.server.app import create_app
from anchormem.server.keys import KeyStore
from anchormem.server.ratelimit import RateLimiter, RateLimitError
from anchormem.server.ratelimit_redis import RedisRateLimiter, make_rate_limiter

REDIS_URL = os.environ.get("ANCHORMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_prefix():
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, decode_responses=True, socket_connect_timeout=1)
        client.ping()
    except Exception as exc:  # noqa: BLE001
        reason = f"no Redis at {REDIS_URL}: {type(exc).__name__}: {exc}"
        if os.environ.get("CI") or os.environ.get("ANCHORMEM_REQUIRE_REDIS"):
            pytest.fail(reason)
        pytest.skip(reason)
    prefix = "amrl-test-" + uuid.uuid4().hex[:10]
    yield prefix
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)
    client.close()


def test_two_workers_share_one_bucket(redis_prefix):
    # two limiters = two worker processes (separate connection pools), one key: 3 tokens in all, not 3 each
    w1 = RedisRateLimiter(REDIS_URL, 0.5, 3, prefix=redis_prefix)
    w2 = RedisRateLimiter(REDIS_URL, 0.5, 3, prefix=redis_prefix)
    w1.hit("k1")
    w2.hit("k1")
    w1.hit("k1")
    with pytest.raises(RateLimitError) as err:
        w2.hit("k1")
    assert err.value.retry_after == 2          # 1 token at 0.5/s: 2 s, rounded up to whole seconds
    with pytest.raises(RateLimitError):
        w1.hit("k1")
    w2.hit("k2")                               # another key has its own bucket
    w1.close()
    w2.close()


def test_bucket_refills_at_the_rate(redis_prefix):
    rl = RedisRateLimiter(REDIS_URL, 2.0, 1, prefix=redis_prefix)
    rl.hit("k")
    with pytest.raises(RateLimitError) as err:
        rl.hit("k")
    assert err.value.retry_after == 1
    time.sleep(0.7)                            # 1.4 tokens' worth at 2/s, capped at the burst of 1
    rl.hit("k")
    with pytest.raises(RateLimitError):
        rl.hit("k")
    rl.close()


def test_unreachable_redis_falls_back_to_the_worker_bucket(caplog):
    rl = RedisRateLimiter("redis://127.0.0.1:1/0", 1.0, 2, socket_timeout=0.5)
    rl.hit("k")
    rl.hit("k")
    with pytest.raises(RateLimitError):        # still limited, by the in-process bucket
        rl.hit("k")
    assert sum("limiting per worker" in r.getMessage() for r in caplog.records) == 1   # warned once
    rl.close()


def test_which_limiter_the_server_uses():
    assert make_rate_limiter(None, REDIS_URL) is None
    assert isinstance(make_rate_limiter((1.0, 2.0), None, None), RateLimiter)
    assert isinstance(make_rate_limiter((1.0, 2.0), None, "memory"), RateLimiter)
    assert isinstance(make_rate_limiter((1.0, 2.0), None, REDIS_URL), RedisRateLimiter)  # follows the sessions
    assert isinstance(make_rate_limiter((1.0, 2.0), "memory", REDIS_URL), RateLimiter)   # unless told otherwise
    shared = make_rate_limiter((1.0, 2.0), "redis://10.0.0.5:6379/3", None)
    assert isinstance(shared, RedisRateLimiter) and shared.url == "redis://10.0.0.5:6379/3"
    with pytest.raises(ConfigError, match="RATE_LIMIT_URL"):
        make_rate_limiter((1.0, 2.0), "http://example.com", None)


def test_two_apps_over_one_redis_answer_429_together(redis_prefix, monkeypatch):
    ks = KeyStore(":memory:")
    key = ks.create("acme", "reader")[1]
    settings = Settings(session_url=REDIS_URL, embedder="hash")
    apps = [create_app(":memory:", keys=ks, rate_limit="1/min:3", settings=settings) for _ in range(2)]
    for app in apps:
        assert isinstance(app.state.limiter, RedisRateLimiter)
        app.state.limiter.prefix = redis_prefix
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(apps[0]) as a, TestClient(apps[1]) as b:
        codes = [c.get("/v1/memories", params={"user_id": "u"}, headers=headers).status_code
                 for c in (a, b, a, b)]
        assert codes == [200, 200, 200, 429]
        r = a.get("/v1/memories", params={"user_id": "u"}, headers=headers)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert int(r.headers["Retry-After"]) >= 1
