"""Per-key token buckets, in memory (per server process).

``ANCHORMEM_RATE_LIMIT``: ``20/s`` (default), ``600/min``, ``20/s:40`` (rate and burst), or ``off``.
``ANCHORMEM_RATE_BURST``: the bucket size when the limit does not name one (default: twice the per-second rate,
at least 1). With ``--workers N`` each worker keeps its own buckets here; :mod:`.ratelimit_redis` shares them
through Redis (``ANCHORMEM_RATE_LIMIT_URL``, or the session store's Redis).
"""

from __future__ import annotations

import math
import re
import threading
import time
from dataclasses import dataclass

from ..errors import AnchormemError, ConfigError

__all__ = ["RateLimitError", "RateLimiter", "parse_rate_limit"]

_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0, "h": 3600.0,
          "hour": 3600.0}
_SPEC = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*([a-z]+)\s*(?::\s*(\d+)\s*)?$")


class RateLimitError(AnchormemError):
    """Too many requests for this API key; retry after ``retry_after`` seconds."""

    code = "rate_limited"

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def parse_rate_limit(spec: str | None, burst: str | int | None = None) -> tuple[float, float] | None:
    """``"20/s"`` → ``(20.0, 40.0)`` (requests per second, burst); ``off``/``0``/``none`` → None.
    Raises ConfigError on anything else."""
    if spec is None or str(spec).strip().lower() in ("", "off", "0", "none", "unlimited"):
        return None
    m = _SPEC.match(str(spec).lower())
    if not m or m.group(2) not in _UNITS or float(m.group(1)) <= 0:
        raise ConfigError(f"rate limit {spec!r}: use e.g. 20/s, 600/min, 20/s:40 or off")
    rate = float(m.group(1)) / _UNITS[m.group(2)]
    size = m.group(3) or burst
    if size is not None:
        try:
            size_f = float(size)
        except (TypeError, ValueError):
            raise ConfigError(f"rate limit burst {size!r} is not a number") from None
        if size_f < 1:
            raise ConfigError("rate limit burst must be at least 1")
    else:
        size_f = max(1.0, 2 * rate)
    return rate, size_f


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """Token bucket per key id: ``rate`` tokens per second, at most ``burst`` stored."""

    def __init__(self, rate: float, burst: float, *, clock=time.monotonic, max_keys: int = 100_000) -> None:
        self.rate, self.burst = rate, burst
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()
        self._max_keys = max_keys

    def hit(self, key: str) -> None:
        """Take one token for ``key`` or raise RateLimitError with the seconds until one is available."""
        now = self._clock()
        with self._lock:
            b = self._buckets.get(key)
            if b is None:
                if len(self._buckets) >= self._max_keys:  # forget idle buckets (they would be full anyway)
                    self._buckets = {k: v for k, v in self._buckets.items()
                                     if v.tokens + (now - v.stamp) * self.rate < self.burst}
                b = self._buckets[key] = _Bucket(self.burst, now)
            b.tokens = min(self.burst, b.tokens + (now - b.stamp) * self.rate)
            b.stamp = now
            if b.tokens >= 1.0:
                b.tokens -= 1.0
                return
            wait = (1.0 - b.tokens) / self.rate
        raise RateLimitError(f"rate limit exceeded ({self.rate:g} requests/s, burst {self.burst:g}); "
                             f"retry in {wait:.2f}s", retry_after=max(1, math.ceil(wait)))
