"""Per-key rate limits shared by every API worker and host, in Redis.

With ``--workers N`` or several hosts, the in-process buckets of :mod:`.ratelimit` let a key make up to N × the
rate. :class:`RedisRateLimiter` keeps one token bucket per key id in Redis instead (a hash
``{prefix}:{key_id}`` with ``tokens`` and ``stamp``, refilled and taken in one Lua script using the Redis
server's clock, so workers on different hosts agree), giving one limit per key across the deployment.

Which limiter the server uses (:func:`make_rate_limiter`): ``ANCHORMEM_RATE_LIMIT_URL`` if set (``memory`` = in
process, or a ``redis://`` / ``rediss://`` / ``unix://`` URL), else the session store's Redis
(``ANCHORMEM_SESSION_URL``) when that is Redis, else in process. If Redis stops answering, requests are limited
by the worker's own in-process bucket until it answers again (logged as a warning at most once a minute): a
Redis outage never turns into refused requests.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from ..errors import ConfigError
from .ratelimit import RateLimiter, RateLimitError

__all__ = ["RedisRateLimiter", "make_rate_limiter", "is_redis_url"]

log = logging.getLogger("anchormem.server")

# KEYS[1] = bucket; ARGV = rate (tokens/s), burst. Returns {1, "0"} when a token was taken, else {0, wait_seconds}.
_TAKE = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(b[1])
local stamp = tonumber(b[2])
if tokens == nil or stamp == nil then
  tokens = burst
  stamp = now
end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local ok = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
if ok == 1 then
  return {1, '0'}
end
return {0, tostring((1 - tokens) / rate)}
"""


def is_redis_url(url: str | None) -> bool:
    return isinstance(url, str) and url.split("://", 1)[0].lower() in ("redis", "rediss", "unix") and "://" in url


class RedisRateLimiter:
    """Token bucket per key id in Redis: ``rate`` tokens per second, at most ``burst`` stored, shared by every
    process using the same Redis and ``prefix``. Same interface as :class:`.ratelimit.RateLimiter`.

    Args:
        url: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` or ``unix:///path``.
        rate, burst: as returned by :func:`.ratelimit.parse_rate_limit`.
        prefix: first part of every bucket key.
        socket_timeout: seconds for connecting and for each call.
        client: an existing ``redis.Redis`` to use instead of ``url``.

    No I/O here. Raises ConfigError if the ``redis`` package is missing or the URL is malformed.
    """

    def __init__(self, url: str, rate: float, burst: float, *, prefix: str = "anchormem:ratelimit",
                 socket_timeout: float = 1.0, client: Any = None) -> None:
        from ..session.store import redact_url

        try:
            import redis
        except ImportError as exc:
            raise ConfigError("a Redis rate limiter needs the redis package: pip install 'anchormem[redis]'") \
                from exc
        self.rate, self.burst, self.prefix = rate, burst, prefix
        self.url = redact_url(url)
        if client is None:
            try:
                client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=socket_timeout,
                                              socket_connect_timeout=socket_timeout)
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"bad Redis URL {self.url}: {exc}") from exc
        self._r = client
        self._take = client.register_script(_TAKE)
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)
        self._local = RateLimiter(rate, burst)  # used only while Redis does not answer
        self._warned = -math.inf

    def hit(self, key: str) -> None:
        """Take one token for ``key`` or raise RateLimitError with the seconds until one is available."""
        try:
            ok, wait = self._take(keys=[f"{self.prefix}:{key}"], args=[repr(self.rate), repr(self.burst)])
        except self._errors as exc:
            now = time.monotonic()
            if now - self._warned > 60:
                self._warned = now
                log.warning("rate limiter: Redis at %s failed (%s: %s); limiting per worker until it answers",
                            self.url, type(exc).__name__, exc)
            self._local.hit(key)
            return
        if int(ok) == 1:
            return
        wait_s = float(wait)
        raise RateLimitError(f"rate limit exceeded ({self.rate:g} requests/s, burst {self.burst:g}); "
                             f"retry in {wait_s:.2f}s", retry_after=max(1, math.ceil(wait_s)))

    def close(self) -> None:
        """Close the connection pool."""
        try:
            self._r.close()
        except self._errors:
            pass


def make_rate_limiter(limits: tuple[float, float] | None, url: str | None,
                      session_url: str | None = None) -> RateLimiter | RedisRateLimiter | None:
    """The server's limiter: None without ``limits``; in process for ``url`` ``"memory"`` (or no ``url`` and a
    non-Redis ``session_url``); else a :class:`RedisRateLimiter` on ``url`` or on the session store's Redis.
    Raises ConfigError for another scheme."""
    if limits is None:
        return None
    target = url if url not in (None, "") else (session_url if is_redis_url(session_url) else "memory")
    if target in ("memory", "memory://"):
        return RateLimiter(*limits)
    if not is_redis_url(target):
        from ..session.store import redact_url

        raise ConfigError(f"ANCHORMEM_RATE_LIMIT_URL {redact_url(str(target))!r}: use memory or a redis:// URL")
    return RedisRateLimiter(target, *limits)
