"""API keys: random secrets bound to one tenant and one role, stored only as salted hashes.

A key looks like ``amk_<id>_<secret>``: ``id`` (16 hex characters) is public and names the row; ``secret``
(43 URL-safe characters, 256 bits) is shown once at creation and stored as ``sha256(salt || secret)`` with a
random per-key salt. Verification is a constant-time compare. Keys live in their own SQLite file (default:
``<store>.keys.db`` next to the store, or ``$ANCHORMEM_KEYS_PATH``), in a table this module creates. With a
PostgreSQL store they live in the store's database instead (:mod:`.keys_pg`), shared by every worker and host.

Roles are ordered: ``reader`` (search, ask, get, list, history, export) < ``writer`` (+ add, update, delete)
< ``admin`` (+ forget a whole user).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InvalidInputError, NotFoundError, StoreError
from ..ingest.normalize import check_scope_id
from ..private_files import private_file

__all__ = ["ROLES", "ApiKey", "KeyStore", "keys_path_for", "open_key_store", "role_allows"]

ROLES = ("reader", "writer", "admin")
PREFIX = "amk"
_ID_CHARS = set("0123456789abcdef")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS anchormem_api_keys (
    id          TEXT PRIMARY KEY,
    tenant      TEXT NOT NULL,
    role        TEXT NOT NULL,
    name        TEXT,
    salt        BLOB NOT NULL,
    hash        BLOB NOT NULL,
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
)
"""


def role_allows(role: str, needed: str) -> bool:
    """True when ``role`` is at least ``needed`` (reader < writer < admin)."""
    return ROLES.index(role) >= ROLES.index(needed)


def keys_path_for(store_path: str | None = None, url: str | None = None) -> str:
    """Where the keys are: ``$ANCHORMEM_KEYS_PATH``, else for a PostgreSQL store URL that URL (the keys table
    lives in the store's database), else ``<store file>.keys.db``.
    Raises ConfigError for an in-memory or other non-file store without ``ANCHORMEM_KEYS_PATH``."""
    env = os.environ.get("ANCHORMEM_KEYS_PATH")
    if env:
        return env
    if url is not None and _is_pg(url):
        return url
    if url is not None:
        if not url.startswith("sqlite:///") or url in ("sqlite:///", "sqlite:///:memory:"):
            raise ConfigError("set ANCHORMEM_KEYS_PATH: API keys need a file and the store URL names none")
        store_path = url[len("sqlite:///"):]
    if not store_path or store_path == ":memory:":
        raise ConfigError("set ANCHORMEM_KEYS_PATH: an in-memory store has no file to keep API keys next to")
    return str(store_path) + ".keys.db"


def _is_pg(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


def open_key_store(target: str | Path) -> "KeyStore":
    """The key store at ``target``: a ``postgresql://`` URL → :class:`~.keys_pg.PostgresKeyStore` (shared by
    every worker and host), anything else → a SQLite :class:`KeyStore` file (``":memory:"`` for tests).
    Raises ConfigError, StoreError."""
    if isinstance(target, str) and _is_pg(target):
        from .keys_pg import PostgresKeyStore

        return PostgresKeyStore(target)
    return KeyStore(target)


def _hash(salt: bytes, secret: str) -> bytes:
    return hashlib.sha256(salt + secret.encode("utf-8", "replace")).digest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class ApiKey:
    """A stored key (never its secret)."""

    id: str
    tenant: str
    role: str
    name: str | None
    created_at: str
    revoked_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "tenant": self.tenant, "role": self.role, "name": self.name,
                "created_at": self.created_at, "revoked_at": self.revoked_at}


class KeyStore:
    """The API keys table. Thread-safe (one connection behind a lock); ``":memory:"`` for tests."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            if self.path != ":memory:":
                private_file(Path(self.path).expanduser())  # 0600 before SQLite opens it, new folders 0700
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30.0)
            self._conn.execute("PRAGMA busy_timeout = 30000")
            self._conn.execute(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the API keys database {self.path!r}: {exc}") from exc
        if self.path != ":memory:":
            try:
                os.chmod(self.path, 0o600)
            except OSError:  # pragma: no cover - e.g. a file owned by someone else
                pass
        self._lock = threading.Lock()
        self._dummy_salt = secrets.token_bytes(16)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def ping(self) -> None:
        """Raise StoreError unless the keys database answers."""
        self._exec("SELECT 1")

    def _exec(self, sql: str, params: Any = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"API keys database error: {exc}") from exc

    def create(self, tenant: str, role: str, name: str | None = None) -> tuple[ApiKey, str]:
        """Create a key. Returns ``(ApiKey, full_key)``; the full key is not stored and cannot be shown again."""
        tenant = check_scope_id(tenant, "tenant", required=True)
        if role not in ROLES:
            raise InvalidInputError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
        if name is not None and (not isinstance(name, str) or len(name) > 200):
            raise InvalidInputError("name must be a string of at most 200 characters")
        key_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_bytes(16)
        created = _now()
        self._exec("INSERT INTO anchormem_api_keys (id, tenant, role, name, salt, hash, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)", (key_id, tenant, role, name, salt, _hash(salt, secret), created))
        return ApiKey(key_id, tenant, role, name, created), f"{PREFIX}_{key_id}_{secret}"

    def list(self, tenant: str | None = None, *, include_revoked: bool = True) -> list[ApiKey]:
        sql = "SELECT id, tenant, role, name, created_at, revoked_at FROM anchormem_api_keys"
        where, params = [], []
        if tenant is not None:
            where.append("tenant = ?")
            params.append(tenant)
        if not include_revoked:
            where.append("revoked_at IS NULL")
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [ApiKey(*r) for r in self._exec(sql + " ORDER BY rowid", params)]

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key by id (idempotent). Raises NotFoundError."""
        rows = self._exec("SELECT id FROM anchormem_api_keys WHERE id = ?", (key_id,))
        if not rows:
            raise NotFoundError(f"no API key {key_id!r}")
        self._exec("UPDATE anchormem_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                   (_now(), key_id))
        return next(k for k in self.list() if k.id == key_id)

    def verify(self, presented: str) -> ApiKey | None:
        """The key's record if ``presented`` is a valid, unrevoked key; otherwise None. Constant-time compare;
        an unknown id still costs one hash so timing does not tell ids apart."""
        parts = presented.split("_", 2) if isinstance(presented, str) else []
        if len(parts) != 3 or parts[0] != PREFIX or len(parts[1]) != 16 or not set(parts[1]) <= _ID_CHARS:
            return None
        key_id, secret = parts[1], parts[2]
        rows = self._exec("SELECT tenant, role, name, created_at, revoked_at, salt, hash FROM anchormem_api_keys "
                          "WHERE id = ?", (key_id,))
        if not rows:
            hmac.compare_digest(_hash(self._dummy_salt, secret), b"\0" * 32)
            return None
        tenant, role, name, created, revoked, salt, stored = rows[0]
        ok = hmac.compare_digest(_hash(bytes(salt), secret), bytes(stored))
        if not ok or revoked is not None or role not in ROLES:
            return None
        return ApiKey(key_id, tenant, role, name, created, revoked)
