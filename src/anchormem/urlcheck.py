"""Up-front checks of the Redis-style URL settings (``ANCHORMEM_SESSION_URL``, ``ANCHORMEM_CACHE_URL``,
``ANCHORMEM_RATE_LIMIT_URL``), so a malformed value fails when ``Memory`` (or the API app) is built, not on the
first request that uses it.

The check is about form only; it never connects. A well-formed URL whose Redis is down keeps the documented
behaviour of each component (a StoreError, HTTP 503, when it is used).
"""

from __future__ import annotations

from typing import Any

from .errors import ConfigError

__all__ = ["IN_PROCESS", "REDIS_SCHEMES", "check_redis_url"]

IN_PROCESS = ("", "memory", "memory://")
REDIS_SCHEMES = ("redis", "rediss", "unix")
_FORMS = "redis://host:6379/0, rediss://host:6380/0, unix:///path/to/redis.sock, or memory / unset (in this process)"


def check_redis_url(url: Any, setting: str) -> str | None:
    """Check a Redis-style URL setting without I/O. Returns None for "in this process" (None, ``""``,
    ``"memory"``, ``"memory://"``), else ``url`` unchanged.

    ``setting``: the name to show in errors, e.g. ``"ANCHORMEM_SESSION_URL"``. Raises ConfigError naming the
    setting and the accepted forms (unknown scheme, not a string, unparseable host/port/db), or naming the
    ``redis`` package when it is missing. The message never shows the URL's password.
    """
    if url is None or (isinstance(url, str) and url in IN_PROCESS):
        return None
    if not isinstance(url, str):
        raise ConfigError(f"{setting} must be a string URL, got {type(url).__name__}; accepted: {_FORMS}")
    from .session.store import redact_url

    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in REDIS_SCHEMES:
        raise ConfigError(f"{setting}={redact_url(url)!r} is not a valid URL; accepted: {_FORMS}")
    try:
        from redis.connection import parse_url
    except ImportError:
        raise ConfigError(f"{setting} names Redis, which needs the redis package: pip install 'anchormem[redis]'") \
            from None
    try:
        parse_url(url)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{setting}={redact_url(url)!r} is not a valid URL ({exc}); accepted: {_FORMS}") \
            from None
    return url
