"""Deleting every Redis key under a prefix, shared by the hot cache (:mod:`anchormem.hotcache`) and the Redis
session store (:mod:`anchormem.session.store`), whose purges must reach every key of a user.

``SCAN`` returns every key that exists for the whole iteration (keys deleted meanwhile may or may not be
returned, and a key can come back twice: ``DEL`` of a gone key is harmless), so a key written before the call
starts is deleted. Keys written while it runs may be missed: callers that must exclude them make such writes
conditional first (the hot cache's purge mark).
"""

from __future__ import annotations

from typing import Any

__all__ = ["delete_by_prefix", "glob_escape"]


def glob_escape(text: str) -> str:
    """``text`` as a literal in a Redis ``MATCH`` pattern (``*``, ``?``, ``[``, ``]`` and ``\\`` escaped)."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def delete_by_prefix(client: Any, prefix: str, *, batch: int = 500) -> int:
    """Delete every key of ``client`` (a ``redis.Redis``) starting with ``prefix``; returns how many were deleted.
    ``SCAN MATCH`` (cost grows with the keyspace), ``DEL`` in batches. Redis errors propagate."""
    n = 0
    keys: list[Any] = []
    for k in client.scan_iter(match=glob_escape(prefix) + "*", count=1000):
        keys.append(k)
        if len(keys) >= batch:
            n += client.delete(*keys)
            keys = []
    if keys:
        n += client.delete(*keys)
    return n
