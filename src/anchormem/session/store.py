"""Session (short-term) stores: the turns and summary of each (tenant, user, session), expiring by TTL.

- :class:`InProcessSessionStore` (default): a dict of bounded deques behind one lock; one process only.
- :class:`RedisSessionStore`: shared by several API workers (``pip install 'anchormem[redis]'``). Layout::

      {prefix}:{tenant}:{user_id}:{session_id}:turns     Redis list of JSON turns, oldest first (RPUSH + LTRIM)
      {prefix}:{tenant}:{user_id}:{session_id}:summary   JSON {"text", "timestamp"}

  ``prefix`` defaults to ``anchormem``. In ids, ``%`` and ``:`` are escaped as ``%25`` and ``%3A`` so keys stay
  unambiguous, and ``{prefix}:{tenant}:{user_id}:`` starts the keys of exactly one user (``clear_user``). Every
  write refreshes the TTL of both keys (``PEXPIRE``), so a session lives ``ttl_seconds`` after its last write.

Both keep at most ``max_turns`` turns per session (older turns fall off) and validate turns with
:func:`anchormem.session.buffer.make_turn`. Pick one with :func:`make_session_store`.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, TypedDict, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from ..errors import ConfigError, InvalidInputError, StoreError
from ..ingest.normalize import check_scope_id, check_text
from ..redis_keys import delete_by_prefix
from ..timeutil import to_utc, utcnow
from ..types import DEFAULT_TENANT, Message
from .buffer import MAX_TURN_CHARS, Turn, make_turn

__all__ = [
    "SessionKey",
    "Summary",
    "SessionStore",
    "InProcessSessionStore",
    "RedisSessionStore",
    "make_session_store",
    "redact_url",
    "DEFAULT_TTL_SECONDS",
    "DEFAULT_MAX_TURNS",
]

DEFAULT_TTL_SECONDS = 24 * 3600.0
DEFAULT_MAX_TURNS = 200


@dataclass(frozen=True)
class SessionKey:
    """Which session: ``tenant`` (default ``"default"``), ``user_id``, ``session_id`` (non-empty strings of at
    most 256 characters). Raises ScopeError otherwise."""

    user_id: str
    session_id: str
    tenant: str = DEFAULT_TENANT

    def __post_init__(self) -> None:
        check_scope_id(self.tenant, "tenant", required=True)
        check_scope_id(self.user_id, "user_id", required=True)
        check_scope_id(self.session_id, "session_id", required=True)


class Summary(TypedDict):
    """A session summary: its ``text`` and when it was written (``timestamp``, ISO-8601 UTC)."""

    text: str
    timestamp: str


@runtime_checkable
class SessionStore(Protocol):
    """What the context builder and the server need from a session store. Turns are oldest first."""

    max_turns: int
    ttl_seconds: float

    def append(self, key: SessionKey, turns: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> int:
        """Validate and append one turn or a list of turns (all or nothing); returns the session's turn count."""
        ...

    def turns(self, key: SessionKey, *, limit: int | None = None) -> list[Turn]:
        """The session's turns, oldest first (the last ``limit`` only, if given); ``[]`` if none or expired."""
        ...

    def set_summary(self, key: SessionKey, text: str, *, timestamp: datetime | str | None = None) -> None:
        """Store (replace) the session's summary."""
        ...

    def get_summary(self, key: SessionKey) -> Summary | None:
        """The session's summary, or None."""
        ...

    def clear(self, key: SessionKey) -> None:
        """Forget the session's turns and summary."""
        ...

    def clear_user(self, tenant: str, user_id: str) -> int:
        """Forget every session of a user (purges: :meth:`anchormem.Memory.delete_all`); returns how many
        sessions (in-process) or keys (Redis) went."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


# ---------------------------------------------------------------------------------------------------- shared
def _check_options(max_turns: Any, ttl_seconds: Any) -> tuple[int, float]:
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise InvalidInputError(f"max_turns must be an integer >= 1, got {max_turns!r}")
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, (int, float)) or not 0.001 <= ttl_seconds < 1e9:
        raise InvalidInputError(f"ttl_seconds must be a number from 0.001 to 1e9, got {ttl_seconds!r}")
    return max_turns, float(ttl_seconds)


def _check_key(key: Any) -> SessionKey:
    if not isinstance(key, SessionKey):
        raise InvalidInputError(f"expected a SessionKey, got {type(key).__name__}")
    return key


def _validate_turns(turns: Any, now: datetime, max_chars: int = MAX_TURN_CHARS) -> list[Turn]:
    if isinstance(turns, (Mapping, Message)):
        turns = [turns]
    if isinstance(turns, (str, bytes)) or not isinstance(turns, Sequence) or not turns:
        raise InvalidInputError("turns must be a turn dict or a non-empty list of turn dicts")
    return [make_turn(t, now=now, index=i, max_chars=max_chars) for i, t in enumerate(turns)]


def _check_limit(limit: Any) -> int | None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidInputError(f"limit must be None or an integer >= 1, got {limit!r}")
    return limit


def _make_summary(text: Any, timestamp: Any, now: datetime) -> Summary:
    text = check_text(text, what="summary", max_chars=MAX_TURN_CHARS)
    when = to_utc(timestamp, field="summary timestamp") if timestamp is not None else now
    return {"text": text, "timestamp": when.isoformat().replace("+00:00", "Z")}


# ---------------------------------------------------------------------------------------------------- in-process
class _Session:
    __slots__ = ("turns", "summary", "expires")

    def __init__(self, max_turns: int) -> None:
        self.turns: deque[Turn] = deque(maxlen=max_turns)
        self.summary: Summary | None = None
        self.expires: datetime | None = None


class InProcessSessionStore:
    """Session turns in this process's memory (thread-safe). Not shared between worker processes.

    Args:
        max_turns: turns kept per session (older ones fall off), >= 1.
        ttl_seconds: a session is forgotten this long after its last write (default 24 h).
        clock: zero-arg callable returning an aware datetime (default: the library clock,
            :func:`anchormem.timeutil.utcnow`, which :func:`anchormem.timeutil.set_clock` can freeze).

    Expired sessions are removed lazily (on access, and in a sweep at most once a minute on writes).
    """

    def __init__(self, *, max_turns: int = DEFAULT_MAX_TURNS, ttl_seconds: float = DEFAULT_TTL_SECONDS,
                 clock: Callable[[], datetime] | None = None, max_turn_chars: int = MAX_TURN_CHARS) -> None:
        self.max_turns, self.ttl_seconds = _check_options(max_turns, ttl_seconds)
        self.max_turn_chars = max_turn_chars  # longest turn accepted (Memory passes its max_message_chars)
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[SessionKey, _Session] = {}
        self._next_sweep: datetime | None = None

    def _now(self) -> datetime:
        return to_utc(self._clock()) if self._clock is not None else utcnow()

    def _live(self, key: SessionKey, now: datetime) -> _Session | None:
        s = self._sessions.get(key)
        if s is not None and s.expires is not None and now >= s.expires:
            del self._sessions[key]
            return None
        return s

    def _touch(self, key: SessionKey, now: datetime) -> _Session:
        if self._next_sweep is None or now >= self._next_sweep:
            for k in [k for k, s in self._sessions.items() if s.expires is not None and now >= s.expires]:
                del self._sessions[k]
            self._next_sweep = now + timedelta(seconds=min(self.ttl_seconds, 60.0))
        s = self._live(key, now)
        if s is None:
            s = self._sessions[key] = _Session(self.max_turns)
        s.expires = now + timedelta(seconds=self.ttl_seconds)
        return s

    def append(self, key: SessionKey, turns: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> int:
        """See :meth:`SessionStore.append`. Raises InvalidInputError (bad turn; nothing is stored)."""
        key = _check_key(key)
        now = self._now()
        valid = _validate_turns(turns, now, self.max_turn_chars)
        with self._lock:
            s = self._touch(key, now)
            s.turns.extend(valid)
            return len(s.turns)

    def turns(self, key: SessionKey, *, limit: int | None = None) -> list[Turn]:
        """See :meth:`SessionStore.turns`. Returns copies."""
        key, limit = _check_key(key), _check_limit(limit)
        with self._lock:
            s = self._live(key, self._now())
            items = list(s.turns) if s is not None else []
        if limit is not None:
            items = items[-limit:]
        return [dict(t) for t in items]  # type: ignore[misc]

    def set_summary(self, key: SessionKey, text: str, *, timestamp: datetime | str | None = None) -> None:
        """See :meth:`SessionStore.set_summary`. Raises InvalidInputError for empty text or a bad timestamp."""
        key = _check_key(key)
        now = self._now()
        summary = _make_summary(text, timestamp, now)
        with self._lock:
            self._touch(key, now).summary = summary

    def get_summary(self, key: SessionKey) -> Summary | None:
        """See :meth:`SessionStore.get_summary`."""
        key = _check_key(key)
        with self._lock:
            s = self._live(key, self._now())
            return dict(s.summary) if s is not None and s.summary is not None else None  # type: ignore[return-value]

    def clear(self, key: SessionKey) -> None:
        """See :meth:`SessionStore.clear`."""
        with self._lock:
            self._sessions.pop(_check_key(key), None)

    def clear_user(self, tenant: str, user_id: str) -> int:
        """See :meth:`SessionStore.clear_user`."""
        with self._lock:
            gone = [k for k in self._sessions if k.tenant == tenant and k.user_id == user_id]
            for k in gone:
                del self._sessions[k]
        return len(gone)

    def close(self) -> None:
        """Drop everything (nothing else to release)."""
        with self._lock:
            self._sessions.clear()


# ---------------------------------------------------------------------------------------------------- redis
def redact_url(url: str) -> str:
    """``url`` without its password (``redis://user:secret@host:6379/0`` → ``redis://user@host:6379/0``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = f"{host}:{parts.port}" if parts.port is not None else host
    except ValueError:
        return "<unparseable url>"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _esc(part: str) -> str:
    return part.replace("%", "%25").replace(":", "%3A")


class RedisSessionStore:
    """Session turns in Redis, shared by every process that uses the same URL and ``prefix``.

    Args:
        url: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` (TLS) or ``unix:///path``.
        max_turns: turns kept per session (``LTRIM``), >= 1.
        ttl_seconds: a session expires this long after its last write (``PEXPIRE``; default 24 h).
        prefix: first part of every key (default ``anchormem``); tests use a unique one.
        socket_timeout: seconds for connecting and for each command.
        client: an existing ``redis.Redis`` (with ``decode_responses=True``) to use instead of ``url``.

    No I/O happens here; the first command connects (:meth:`ping` checks early). Every Redis failure
    (unreachable, timeout, auth, wrong key type) raises StoreError (a ProviderError) naming the URL without its
    password. Raises ConfigError if the ``redis`` package is missing.
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, max_turns: int = DEFAULT_MAX_TURNS,
                 ttl_seconds: float = DEFAULT_TTL_SECONDS, prefix: str = "anchormem",
                 socket_timeout: float = 5.0, client: Any = None, max_turn_chars: int = MAX_TURN_CHARS) -> None:
        self.max_turns, self.ttl_seconds = _check_options(max_turns, ttl_seconds)
        self.max_turn_chars = max_turn_chars
        if not isinstance(prefix, str) or not prefix or any(c.isspace() for c in prefix):
            raise InvalidInputError(f"prefix must be a non-empty string without spaces, got {prefix!r}")
        self.prefix = prefix
        self.url = redact_url(url)
        try:
            import redis
        except ImportError as exc:
            raise ConfigError("the Redis session store needs the redis package: pip install 'anchormem[redis]'") \
                from exc
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)
        if client is not None:
            self._r = client
        else:
            try:
                self._r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=socket_timeout,
                                               socket_connect_timeout=socket_timeout)
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"bad Redis URL {self.url}: {exc}") from exc
        self._ttl_ms = max(1, int(round(self.ttl_seconds * 1000)))

    def _keys(self, key: SessionKey) -> tuple[str, str]:
        base = f"{self.prefix}:{_esc(key.tenant)}:{_esc(key.user_id)}:{_esc(key.session_id)}"
        return base + ":turns", base + ":summary"

    def _fail(self, what: str, exc: BaseException) -> StoreError:
        return StoreError(f"Redis at {self.url}: {what} failed: {type(exc).__name__}: {exc}")

    def ping(self) -> None:
        """Check that Redis answers. Raises StoreError otherwise."""
        try:
            self._r.ping()
        except self._errors as exc:
            raise self._fail("ping", exc) from exc

    def append(self, key: SessionKey, turns: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> int:
        """See :meth:`SessionStore.append` (one MULTI/EXEC: RPUSH, LTRIM, PEXPIRE on both keys)."""
        tkey, skey = self._keys(_check_key(key))
        valid = _validate_turns(turns, utcnow(), self.max_turn_chars)
        payload = [json.dumps(t, ensure_ascii=False, separators=(",", ":")) for t in valid]
        try:
            pipe = self._r.pipeline(transaction=True)
            pipe.rpush(tkey, *payload)
            pipe.ltrim(tkey, -self.max_turns, -1)
            pipe.pexpire(tkey, self._ttl_ms)
            pipe.pexpire(skey, self._ttl_ms)
            length = pipe.execute()[0]
        except self._errors as exc:
            raise self._fail("append", exc) from exc
        return min(int(length), self.max_turns)

    def turns(self, key: SessionKey, *, limit: int | None = None) -> list[Turn]:
        """See :meth:`SessionStore.turns` (``LRANGE``)."""
        tkey, _ = self._keys(_check_key(key))
        limit = _check_limit(limit)
        try:
            raw = self._r.lrange(tkey, -limit if limit else 0, -1)
        except self._errors as exc:
            raise self._fail("read turns", exc) from exc
        try:
            return [json.loads(x) for x in raw]
        except (ValueError, TypeError) as exc:
            raise StoreError(f"Redis at {self.url}: key {tkey} does not hold JSON turns") from exc

    def set_summary(self, key: SessionKey, text: str, *, timestamp: datetime | str | None = None) -> None:
        """See :meth:`SessionStore.set_summary` (``SET ... PX ttl``; refreshes the turns' TTL too)."""
        tkey, skey = self._keys(_check_key(key))
        summary = _make_summary(text, timestamp, utcnow())
        try:
            pipe = self._r.pipeline(transaction=True)
            pipe.set(skey, json.dumps(summary, ensure_ascii=False), px=self._ttl_ms)
            pipe.pexpire(tkey, self._ttl_ms)
            pipe.execute()
        except self._errors as exc:
            raise self._fail("set summary", exc) from exc

    def get_summary(self, key: SessionKey) -> Summary | None:
        """See :meth:`SessionStore.get_summary`."""
        _, skey = self._keys(_check_key(key))
        try:
            raw = self._r.get(skey)
        except self._errors as exc:
            raise self._fail("read summary", exc) from exc
        if raw is None:
            return None
        try:
            return json.loads(raw)
        except (ValueError, TypeError) as exc:
            raise StoreError(f"Redis at {self.url}: key {skey} does not hold a JSON summary") from exc

    def clear(self, key: SessionKey) -> None:
        """See :meth:`SessionStore.clear` (``DEL`` both keys)."""
        try:
            self._r.delete(*self._keys(_check_key(key)))
        except self._errors as exc:
            raise self._fail("clear", exc) from exc

    def clear_user(self, tenant: str, user_id: str) -> int:
        """See :meth:`SessionStore.clear_user` (``SCAN MATCH {prefix}:{tenant}:{user_id}:*``, ``DEL``)."""
        try:
            return delete_by_prefix(self._r, f"{self.prefix}:{_esc(tenant)}:{_esc(user_id)}:")
        except self._errors as exc:
            raise self._fail("clear user", exc) from exc

    def close(self) -> None:
        """Close the connection pool."""
        try:
            self._r.close()
        except self._errors:
            pass


# ---------------------------------------------------------------------------------------------------- factory
def make_session_store(url: str | None = None, *, check: bool = True, **options: Any) -> SessionStore:
    """The session store for a URL: None, ``""``, ``"memory"`` or ``"memory://"`` → :class:`InProcessSessionStore`;
    ``redis://``, ``rediss://`` or ``unix://`` → :class:`RedisSessionStore` (pinged first when ``check``).

    ``options`` go to the store's constructor (``max_turns``, ``ttl_seconds``, ``max_turn_chars``, and for Redis
    ``prefix``, ``socket_timeout``). Raises ConfigError (unknown scheme, missing ``redis`` package), StoreError (Redis
    unreachable; the message names the URL without its password), InvalidInputError (bad options).
    """
    if url is None or url in ("", "memory", "memory://"):
        return InProcessSessionStore(**options)
    if not isinstance(url, str):
        raise ConfigError(f"session store URL must be a string, got {type(url).__name__}")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("redis", "rediss", "unix"):
        store = RedisSessionStore(url, **options)
        if check:
            try:
                store.ping()
            except StoreError:
                store.close()
                raise
        return store
    raise ConfigError(f"unknown session store URL {redact_url(url)!r} (use redis://, rediss://, unix:// or none)")
