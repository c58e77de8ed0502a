"""The hot tier: a cache of query embeddings, search results and memories read by id, invalidated on write.

What is cached, and why a cached answer is never stale:

- **Query embeddings**, keyed by (store, tenant, user, embedder name, dimension, text). Pure: the same text
  always embeds the same. Kept in this process (an LRU) and, with Redis, shared by every worker for
  ``embedding_ttl`` seconds. Scoped by user, so a purge of the user deletes them (they say what the user asked).
- **Search results** (:meth:`Memory.search`), keyed by everything that changes the result: tenant, user, agent
  and session scope, the (PII-redacted) query, limit, filters, the search config (recipe), ``as_of``,
  ``context``, ``show_expired``, the embedder, the LLM used for query rewriting, the UTC day (relative dates such
  as "last week" resolve against it) **and the scope generation**: each store keeps
  ``scope_state(tenant, user_id, generation)``, bumped in the same transaction as every write to that user's
  memories (add, update, delete, delete_all, relabel, approve, complete, gc, import, labels, expiry, facts). A
  search first reads the generation (one indexed row), so a write by any process (another worker, another
  ``Memory`` on the same file or database) makes the old entries unreachable at once.
- **Memories by id** (:meth:`Memory.get`): the entry holds the owner's generation and is served only while it
  is unchanged. A memory is cached from its second read (the first one learns whose it is, so the second can
  read the generation before the row: a write racing the read can never be cached as current).

What can drift, bounded by ``ttl`` (default 30 s, on the library clock: :func:`anchormem.timeutil.utcnow`):

- recency (computed from the clock at the time the entry was cached) and ``access_count``/``importance``:
  a cached hit still bumps the access counts of the memories it returns (``SearchConfig.track_access``), but
  that bump does not invalidate, so the cached scores keep the counts of the moment they were computed.
- expiry is exact: an entry is served only before the earliest ``expires_at`` among its hits (with
  ``show_expired`` or ``as_of`` expiry cannot change the result).

A cached hit is the uncached result, decoded: same ids, scores and ``explain`` (no ``"cache"`` marker is added,
so cached and uncached hits compare equal; ``Memory.stats`` counts hits and misses). Values are JSON (the
vectors float32 bytes); keys are HMAC-SHA256 digests under the store's secret
(:mod:`anchormem.stores.store_secret`), so no query text, tenant, user or id appears in a key, and none can be
confirmed by hashing a guess without the store.

Backends: :class:`LocalBackend` (default; an LRU of ``max_entries`` in this process) or :class:`RedisBackend`
(``redis://``; ``pip install 'anchormem[redis]'``). Redis layout under ``prefix`` (default
``anchormem:cache``)::

    {prefix}:e:{store}:{scope}:{hmac}         query embedding (float32 bytes), embedding_ttl
    {prefix}:s:{store}:{scope}:{gen}:{hmac}   search result, ttl
    {prefix}:g:{store}:{hmac}                 memory by id, ttl
    {prefix}:p:{store}                        purge mark (random; no TTL)

    {store}: SHA-256 of the store id (16 hex); {scope}: HMAC of (tenant, user) (32 hex); {hmac}: HMAC-SHA256
    of what the entry stands for (embedder and query text; search arguments; tenant and memory id)

A Redis failure never fails a call: it is logged (once, then again after a success) and the call runs
uncached. Purges (``delete(..., purge=True)``, ``delete_all(purge=True)``, ``gc(purge=True)``) also delete the
user's query embeddings and search entries and the store's memory-by-id entries from the cache (the cache of
this process, or Redis; other processes' in-process LRUs keep unreachable copies until TTL or eviction), so
purged text does not outlive the purge in Redis; entries of plain deletes are unreachable and expire with their
TTL. A purge failing in Redis is logged every time (its entries then live until their TTL).

**A fill racing a purge** (a search or get that read the rows before the purge and writes its entry after the
purge cleared the cache, e.g. in another worker) would put the purged text back. So a purge first sets the
store's *purge mark* to a new random value, then deletes; every search/get entry (and query embedding) is
written only if the mark
still holds the value read before the rows were read (one atomic check-and-set: a Lua script in Redis, the lock
in :class:`LocalBackend`). An entry computed from pre-purge rows is thus either refused or already in Redis when
the purge's ``SCAN`` starts, which deletes it. (A mark evicted by a Redis ``maxmemory`` policy between a purge
and the racing write would let that write through; marks have no TTL.)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from .errors import ConfigError, InvalidInputError
from .redis_keys import delete_by_prefix
from .types import Hit, MemoryItem, Scope
from .urlcheck import check_redis_url

__all__ = ["HotCache", "LocalBackend", "RedisBackend", "StoreCache", "make_cache", "resolve_cache", "search_key",
           "DEFAULT_TTL"]

log = logging.getLogger("anchormem")

DEFAULT_TTL = 30.0
DEFAULT_EMBEDDING_TTL = 86_400.0
_HITS = TypeAdapter(list[Hit])
_ITEM = TypeAdapter(MemoryItem)
STAT_KEYS = ("cache_hits", "cache_misses", "cache_search_hits", "cache_search_misses", "cache_get_hits",
             "cache_get_misses", "cache_embed_hits", "cache_embed_misses")


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()


class LocalBackend:
    """An in-process LRU of at most ``max_entries`` values (bytes), each with its own TTL. Thread-safe."""

    def __init__(self, max_entries: int = 2048) -> None:
        if not isinstance(max_entries, int) or isinstance(max_entries, bool) or max_entries < 1:
            raise InvalidInputError(f"cache size must be a positive integer, got {max_entries!r}")
        self.max_entries = max_entries
        self._d: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._marks: dict[str, bytes] = {}  # purge marks: never evicted
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            entry = self._d.get(key)
            if entry is None:
                return None
            if entry[0] <= time.monotonic():
                del self._d[key]
                return None
            self._d.move_to_end(key)
            return entry[1]

    def put(self, key: str, value: bytes, ttl: float, guard: tuple[str, bytes] | None = None) -> None:
        """Store ``value``; with ``guard=(mark_key, seen)`` only while the mark still holds ``seen``."""
        with self._lock:
            if guard is not None and self._marks.get(guard[0], b"") != guard[1]:
                return
            self._d[key] = (time.monotonic() + ttl, value)
            self._d.move_to_end(key)
            while len(self._d) > self.max_entries:
                self._d.popitem(last=False)

    def delete(self, keys: list[str]) -> None:
        with self._lock:
            for k in keys:
                self._d.pop(k, None)

    def marked(self, key: str) -> bytes:
        """The purge mark ``key`` (``b""`` when never set)."""
        with self._lock:
            return self._marks.get(key, b"")

    def mark(self, key: str) -> None:
        """Set the purge mark ``key`` to a new random value (guarded puts that saw the old one are refused)."""
        with self._lock:
            self._marks[key] = uuid.uuid4().hex.encode()

    def delete_prefix(self, prefix: str) -> int:
        with self._lock:
            gone = [k for k in self._d if k.startswith(prefix)]
            for k in gone:
                del self._d[k]
        return len(gone)

    def __len__(self) -> int:
        return len(self._d)

    def close(self) -> None:
        with self._lock:
            self._d.clear()
            self._marks.clear()


_GUARDED_SET = """
local seen = redis.call('GET', KEYS[2]) or ''
if seen == ARGV[3] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""


class RedisBackend:
    """Values in Redis (``SET … PX``), shared by every process using the same URL and prefix.

    ``url``: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` or ``unix://``; ``client``: an existing
    ``redis.Redis`` (bytes responses) instead. No I/O here. Failures are logged and read as misses (see the module
    docstring). Raises ConfigError (``redis`` package missing, bad URL)."""

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, socket_timeout: float = 1.0,
                 client: Any = None) -> None:
        from .session.store import redact_url

        self.url = redact_url(url)
        try:
            import redis
        except ImportError as exc:
            raise ConfigError("the Redis cache needs the redis package: pip install 'anchormem[redis]'") from exc
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)
        if client is not None:
            self._r = client
        else:
            try:
                self._r = redis.Redis.from_url(url, socket_timeout=socket_timeout,
                                               socket_connect_timeout=socket_timeout)
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"bad Redis URL {self.url}: {exc}") from None
        self._guarded_set = self._r.register_script(_GUARDED_SET)  # no I/O: EVALSHA, loaded on first use
        self._failing = False

    def _failed(self, what: str, exc: BaseException, *, purge: bool = False) -> None:
        if purge:  # every time: the purged text may stay in Redis until its TTL
            log.warning("anchormem: hot cache at %s: %s failed during a purge (%s: %s); the purged entries stay "
                        "in Redis until their TTL", self.url, what, type(exc).__name__, exc)
        elif not self._failing:
            log.warning("anchormem: hot cache at %s: %s failed (%s: %s); running uncached", self.url, what,
                        type(exc).__name__, exc)
        self._failing = True

    def get(self, key: str) -> bytes | None:
        try:
            value = self._r.get(key)
        except self._errors as exc:
            self._failed("GET", exc)
            return None
        self._failing = False
        return value

    def put(self, key: str, value: bytes, ttl: float, guard: tuple[str, bytes] | None = None) -> None:
        """``SET … PX``; with ``guard=(mark_key, seen)`` only while the mark still holds ``seen`` (one script)."""
        px = max(1, int(ttl * 1000))
        try:
            if guard is None:
                self._r.set(key, value, px=px)
            else:
                self._guarded_set(keys=[key, guard[0]], args=[value, px, guard[1]])
        except self._errors as exc:
            self._failed("SET", exc)

    def marked(self, key: str) -> bytes:
        """The purge mark ``key`` (``b""`` when never set, or when Redis fails: a guarded put then compares it with
        the mark's value at write time, so a wrong ``b""`` can only refuse a write, never let one through)."""
        return self.get(key) or b""

    def mark(self, key: str) -> None:
        """Set the purge mark ``key`` to a new random value, no TTL (guarded puts that saw the old one are refused)."""
        try:
            self._r.set(key, uuid.uuid4().hex)
        except self._errors as exc:
            self._failed("SET (purge mark)", exc, purge=True)

    def delete(self, keys: list[str]) -> None:
        if not keys:
            return
        try:
            self._r.delete(*keys)
        except self._errors as exc:
            self._failed("DEL", exc)

    def delete_prefix(self, prefix: str) -> int:
        """Delete every key starting with ``prefix`` (:func:`anchormem.redis_keys.delete_by_prefix`); used by
        purges, so a failure is logged every time."""
        try:
            return delete_by_prefix(self._r, prefix)
        except self._errors as exc:
            self._failed("SCAN/DEL", exc, purge=True)
            return 0

    def ping(self) -> None:
        """Check that Redis answers. Raises StoreError otherwise."""
        from .errors import StoreError

        try:
            self._r.ping()
        except self._errors as exc:
            raise StoreError(f"Redis at {self.url}: ping failed: {type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        try:
            self._r.close()
        except self._errors:
            pass


class HotCache:
    """The cache shared by one or more :class:`~anchormem.Memory` objects (pass it as ``Memory(cache=...)``).

    Args:
        backend: :class:`LocalBackend` or :class:`RedisBackend` (anything with ``get``/``put`` (with ``guard``)/
            ``delete``/``delete_prefix``/``mark``/``marked``/``close``, as they do).
        ttl: seconds a search result or memory may be served (> 0).
        embedding_ttl: seconds a query embedding stays in the backend (> 0).
        prefix: first part of every key (tests use a unique one).
        embed_entries: size of the in-process LRU of query embeddings.

    Raises InvalidInputError (bad ttl, prefix or size).
    """

    def __init__(self, backend: Any = None, *, ttl: float = DEFAULT_TTL, embedding_ttl: float = DEFAULT_EMBEDDING_TTL,
                 prefix: str = "anchormem:cache", embed_entries: int = 1024) -> None:
        for name, v in (("ttl", ttl), ("embedding_ttl", embedding_ttl)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                raise InvalidInputError(f"cache {name} must be a positive number of seconds, got {v!r}")
        if not isinstance(prefix, str) or not prefix or any(c.isspace() for c in prefix):
            raise InvalidInputError(f"cache prefix must be a non-empty string without spaces, got {prefix!r}")
        self.backend = backend if backend is not None else LocalBackend()
        self.ttl, self.embedding_ttl, self.prefix = float(ttl), float(embedding_ttl), prefix
        self._shared = not isinstance(self.backend, LocalBackend)  # embeddings worth a round trip
        self._emb = LocalBackend(embed_entries)

    def bind(self, store: Any, stats: dict[str, int] | None = None) -> "StoreCache":
        """The cache as seen by one store (its ``store_id`` namespaces the keys); counters go to ``stats``."""
        return StoreCache(self, store, stats if stats is not None else {})

    # ---------------------------------------------------------------- embeddings (pure)
    def embedding(self, key: str, dim: int, compute: Callable[[], np.ndarray], stats: dict[str, int] | None = None,
                  *, shared: bool = True, guard: str | None = None) -> np.ndarray:
        """The query embedding (``dim`` float32) under ``key`` (built by :meth:`StoreCache.embedding`): from this
        process, then the backend (``shared``), else ``compute()`` (stored in both, unless the purge mark ``guard``
        changed meanwhile: see "a fill racing a purge")."""
        shared = shared and self._shared
        raw = self._emb.get(key)
        if raw is not None:
            _count(stats, "embed", True)
            return np.frombuffer(raw, dtype="<f4").astype(np.float32)
        # the purge marks, read before the value: a fill racing a purge is refused (module docstring)
        local = (guard, self._emb.marked(guard)) if guard else None
        remote = (guard, self.backend.marked(guard)) if guard and shared else None
        if shared:
            raw = self.backend.get(key)
            if raw is not None and len(raw) == 4 * dim:
                self._emb.put(key, raw, self.embedding_ttl, guard=local)
                _count(stats, "embed", True)
                return np.frombuffer(raw, dtype="<f4").astype(np.float32)
        _count(stats, "embed", False)
        v = np.asarray(compute(), dtype=np.float32).reshape(-1)
        blob = v.astype("<f4").tobytes()
        self._emb.put(key, blob, self.embedding_ttl, guard=local)
        if shared:
            self.backend.put(key, blob, self.embedding_ttl, guard=remote)
        return v

    def close(self) -> None:
        """Release the backend's connections (a Memory closes only a cache it created)."""
        self.backend.close()
        self._emb.close()


class StoreCache:
    """:class:`HotCache` bound to one store: search and get entries validated by the store's scope generation."""

    def __init__(self, cache: HotCache, store: Any, stats: dict[str, int]) -> None:
        self.cache, self.store, self.stats = cache, store, stats
        for k in STAT_KEYS:
            stats.setdefault(k, 0)
        self._ns = _digest(str(getattr(store, "store_id", "") or ""))[:16]
        get_secret = getattr(store, "cache_secret", None)  # a store without one: keys good in this process only
        self._secret: bytes = get_secret() if get_secret is not None else secrets.token_bytes(32)

    def _mac(self, *parts: str) -> str:
        """HMAC-SHA256 (hex) of ``parts`` under the store's cache secret."""
        msg = "\x00".join(parts).encode("utf-8", "surrogatepass")
        return hmac.new(self._secret, msg, hashlib.sha256).hexdigest()

    def _scope(self, tenant: str, user_id: str | None) -> str:
        return "-" if user_id is None else self._mac("scope", tenant, user_id)[:32]

    def _scope_prefix(self, tenant: str, user_id: str) -> str:
        return f"{self.cache.prefix}:s:{self._ns}:{self._scope(tenant, user_id)}:"

    def _embedding_prefix(self, tenant: str, user_id: str | None) -> str:
        return f"{self.cache.prefix}:e:{self._ns}:{self._scope(tenant, user_id)}:"

    def _get_key(self, tenant: str, memory_id: str) -> str:
        return f"{self.cache.prefix}:g:{self._ns}:{self._mac('get', tenant, memory_id)}"

    def _mark_key(self) -> str:
        return f"{self.cache.prefix}:p:{self._ns}"

    def _fill(self, key: str, value: bytes, seen: bytes) -> None:
        """Write an entry computed after the purge mark held ``seen``, unless a purge has changed it since."""
        self.cache.backend.put(key, value, self.cache.ttl, guard=(self._mark_key(), seen))

    def embedding(self, name: str, dim: int, text: str, compute: Callable[[], np.ndarray],
                  scope: Scope | None = None) -> np.ndarray:
        """The query embedding of ``text`` by embedder ``name`` (``dim`` float32) for the user of ``scope``, cached
        under the user's key (deleted by :meth:`forget`); without a scope, in this process only."""
        key = self._embedding_prefix(scope.tenant if scope else "", scope.user_id if scope else None) + \
            self._mac("embedding", name, str(dim), text)
        return self.cache.embedding(key, dim, compute, self.stats, shared=scope is not None, guard=self._mark_key())

    def search(self, scope: Scope, key: dict[str, Any], compute: Callable[[], list[Hit]], *, now: datetime,
               expiry_matters: bool, on_hit: Callable[[list[Hit]], None] | None = None) -> list[Hit]:
        """Cached ``compute()``: the hits for ``key`` (a JSON-able dict of everything but the user scope) at the
        scope's current generation. ``expiry_matters``: the entry stops being served at its hits' earliest
        ``expires_at``. ``on_hit(hits)`` runs on a cache hit (the access-count bump)."""
        gen = self.store.scope_generation(scope.tenant, scope.user_id)  # before computing: see module docstring
        body = json.dumps(key, sort_keys=True, ensure_ascii=False, default=str)
        k = f"{self._scope_prefix(scope.tenant, scope.user_id)}{gen}:{self._mac('search', body)}"
        raw = self.cache.backend.get(k)
        if raw is not None:
            head, _, payload = raw.partition(b"\n")
            if float(head) > now.timestamp():
                hits = _HITS.validate_json(payload)
                _count(self.stats, "search", True)
                if on_hit is not None and hits:
                    on_hit(hits)
                return hits
        _count(self.stats, "search", False)
        seen = self.cache.backend.marked(self._mark_key())  # before the rows: see "a fill racing a purge"
        hits = compute()
        deadline = now.timestamp() + self.cache.ttl  # on the library clock (anchormem.timeutil), like expiry
        if expiry_matters:
            deadline = min([deadline] + [h.memory.expires_at.timestamp() for h in hits
                                         if h.memory.expires_at is not None])
        if deadline > now.timestamp():
            self._fill(k, repr(deadline).encode() + b"\n" + _HITS.dump_json(hits), seen)
        return hits

    def get(self, tenant: str, memory_id: str, compute: Callable[[], MemoryItem]) -> MemoryItem:
        """Cached ``compute()`` of one memory (see the module docstring: cached from its second read)."""
        k = self._get_key(tenant, memory_id)
        raw = self.cache.backend.get(k)
        hint: str | None = None
        if raw is not None:
            head, _, payload = raw.partition(b"\n")
            user, _, gen = head.decode("utf-8").rpartition("\x00")
            hint = user
            if payload and gen and self.store.scope_generation(tenant, user) == int(gen):
                _count(self.stats, "get", True)
                return _ITEM.validate_json(payload)
        _count(self.stats, "get", False)
        before = self.store.scope_generation(tenant, hint) if hint is not None else None
        seen = self.cache.backend.marked(self._mark_key())  # before the row: see "a fill racing a purge"
        item = compute()
        if before is not None and item.user_id == hint:
            head = f"{item.user_id}\x00{before}".encode("utf-8")
            self._fill(k, head + b"\n" + _ITEM.dump_json(item), seen)
        else:  # first read: remember whose it is, so the next read can check the generation first
            self._fill(k, f"{item.user_id}\x00".encode("utf-8") + b"\n", seen)
        return item

    def forget(self, tenant: str, user_id: str) -> None:
        """After a purge: set the store's purge mark (fills computed before it are refused), then delete the
        user's query embeddings and search entries (every generation), every memory-by-id entry of this store
        (their keys do not name the user; they are refilled on the next reads) and this process's unscoped query
        embeddings of the store."""
        emb, mark = self.cache._emb, self._mark_key()
        self.cache.backend.mark(mark)
        emb.mark(mark)
        for prefix in (self._embedding_prefix(tenant, user_id), self._embedding_prefix(tenant, None)):
            emb.delete_prefix(prefix)
        self.cache.backend.delete_prefix(self._embedding_prefix(tenant, user_id))
        self.cache.backend.delete_prefix(self._scope_prefix(tenant, user_id))
        self.cache.backend.delete_prefix(f"{self.cache.prefix}:g:{self._ns}:")


_COUNT_LOCK = threading.Lock()


def _count(stats: dict[str, int] | None, kind: str, hit: bool) -> None:
    if stats is None:
        return
    word = "hits" if hit else "misses"
    with _COUNT_LOCK:  # searches run in server worker threads
        stats[f"cache_{kind}_{word}"] = stats.get(f"cache_{kind}_{word}", 0) + 1
        stats[f"cache_{word}"] = stats.get(f"cache_{word}", 0) + 1


def resolve_cache(cache: Any, settings: Any) -> tuple[HotCache | None, bool]:
    """What ``Memory(cache=...)`` means: ``(cache or None when off, whether the Memory owns it)``.

    ``cache``: None (the settings: ``cache``, ``cache_url``, ``cache_ttl``, ``cache_size``,
    ``cache_embedding_ttl``), False (off), True (on, URL from the settings), a URL string (``"memory"``,
    ``"redis://…"``) or a :class:`HotCache` to share (not closed by the Memory). Raises ConfigError, StoreError
    (Redis unreachable), InvalidInputError."""
    if isinstance(cache, HotCache):
        return cache, False
    if cache is False or (cache is None and not settings.cache):
        return None, False
    if cache is not None and cache is not True and not isinstance(cache, str):
        raise ConfigError(f"cache must be None, a bool, a URL or a HotCache, got {type(cache).__name__}")
    url = cache if isinstance(cache, str) else settings.cache_url
    check_redis_url(url, "cache" if isinstance(cache, str) else "ANCHORMEM_CACHE_URL")
    return make_cache(url, ttl=settings.cache_ttl, size=settings.cache_size,
                      embedding_ttl=settings.cache_embedding_ttl), True


def search_key(**parts: Any) -> dict[str, Any]:
    """The cache key of a search (everything but the user scope, which names the entry's namespace): the given
    parts, with ``context``/``filters`` kept as given (JSON, sorted keys) and datetimes as ISO strings. The LLM
    (``llm``) is reduced to its class and model name."""
    llm = parts.pop("llm", None)
    parts["llm"] = None if llm is None else f"{type(llm).__module__}.{type(llm).__qualname__}:" \
        f"{getattr(llm, 'model', '')}"
    cfg = parts.get("config")
    if cfg is not None and hasattr(cfg, "model_dump_json"):
        parts["config"] = cfg.model_dump_json()
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in parts.items()}


def make_cache(url: str | None = None, *, ttl: float = DEFAULT_TTL, size: int = 2048,
               embedding_ttl: float = DEFAULT_EMBEDDING_TTL, prefix: str = "anchormem:cache",
               check: bool = True) -> HotCache:
    """The cache for a URL: None, ``""``, ``"memory"`` or ``"memory://"`` → an in-process LRU of ``size``
    entries; ``redis://``, ``rediss://`` or ``unix://`` → Redis (pinged first when ``check``). Raises ConfigError
    (unknown scheme, missing ``redis`` package), StoreError (Redis unreachable, the URL named without its
    password), InvalidInputError (bad ttl/size/prefix)."""
    if url is None or url in ("", "memory", "memory://"):
        return HotCache(LocalBackend(size), ttl=ttl, embedding_ttl=embedding_ttl, prefix=prefix)
    if not isinstance(url, str):
        raise ConfigError(f"cache URL must be a string, got {type(url).__name__}")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("redis", "rediss", "unix"):
        from .session.store import redact_url

        raise ConfigError(f"unknown cache URL {redact_url(url)!r} (use redis://, rediss://, unix:// or none)")
    backend = RedisBackend(url)
    if check:
        try:
            backend.ping()
        except Exception:
            backend.close()
            raise
    return HotCache(backend, ttl=ttl, embedding_ttl=embedding_ttl, prefix=prefix)
