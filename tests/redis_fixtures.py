"""Redis for tests: the server at $ANCHORMEM_TEST_REDIS_URL (default redis://127.0.0.1:6379/0), a unique key
prefix per test, every key under it deleted afterwards. Without Redis the test is skipped with the reason, unless
``CI`` is set: then it fails (CI must run it)."""

from __future__ import annotations

import os
import uuid

import pytest

REDIS_URL = os.environ.get("ANCHORMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"Redis is required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_client():
    try:
        import redis
    except ImportError:
        _unavailable("the redis package is not installed: pip install 'anchormem[redis]'")
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=5)
    try:
        client.ping()
    except (redis.exceptions.RedisError, OSError) as exc:
        _unavailable(f"no Redis reachable at {REDIS_URL}: {exc}")
    yield client
    client.close()


@pytest.fixture
def redis_prefix(redis_client):
    """A unique key prefix for one test; every key under it is deleted afterwards."""
    prefix = f"anchormem-test-{uuid.uuid4().hex}"
    yield prefix
    keys = list(redis_client.scan_iter(f"{prefix}:*"))
    if keys:
        redis_client.delete(*keys)
