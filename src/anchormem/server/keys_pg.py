"""API keys in PostgreSQL, so every ``anchormem serve`` worker on every host sees the same keys.

:class:`PostgresKeyStore` is :class:`~anchormem.server.keys.KeyStore` (same key format, salted hashes,
constant-time verification, roles) over a table ``anchormem_api_keys`` in a PostgreSQL database, created on first
open. It is what :func:`~anchormem.server.keys.open_key_store` returns for a ``postgresql://`` target; with a
PostgreSQL store and no ``ANCHORMEM_KEYS_PATH`` the keys live in the store's own database. A key created or
revoked on one host is valid or refused on every worker at its next request (each request reads the row).

Needs the optional extra: ``pip install 'anchormem[postgres]'``.
"""

from __future__ import annotations

import secrets
from typing import Any

from ..errors import ConfigError, StoreError
from .keys import KeyStore

__all__ = ["PostgresKeyStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS anchormem_api_keys (
    id          text PRIMARY KEY,
    tenant      text NOT NULL,
    role        text NOT NULL,
    name        text,
    salt        bytea NOT NULL,
    hash        bytea NOT NULL,
    created_at  text NOT NULL,
    revoked_at  text
)
"""
_LOCK_KEY = 0x616D6B657973  # "amkeys": serialises the CREATE TABLE of workers starting together


def _redact(url: str) -> str:
    from ..session.store import redact_url

    return redact_url(url)


class PostgresKeyStore(KeyStore):
    """The API keys table in PostgreSQL. ``url``: a libpq URL (``postgresql://user:pass@host:5432/db``).
    Thread-safe (a small connection pool). Raises ConfigError without the driver, StoreError when the server
    cannot be reached or the table cannot be created."""

    def __init__(self, url: str, *, max_size: int = 4, timeout: float = 30.0) -> None:  # noqa: D107
        try:
            import psycopg
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError as exc:
            raise ConfigError(f"API keys in PostgreSQL need the driver: pip install 'anchormem[postgres]' ({exc})") \
                from None
        self.path = _redact(url)
        self._errors: tuple[type[BaseException], ...] = (psycopg.Error, PoolTimeout)
        try:
            self._pool = ConnectionPool(url, min_size=1, max_size=max_size, kwargs={"autocommit": True},
                                        timeout=timeout, open=False, name="anchormem-keys")
            self._pool.open(wait=True, timeout=timeout)
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                conn.execute(_SCHEMA)
        except self._errors as exc:
            raise StoreError(f"cannot open the API keys table in PostgreSQL {self.path}: {exc}") from exc
        self._dummy_salt = secrets.token_bytes(16)

    def close(self) -> None:
        self._pool.close()

    def _exec(self, sql: str, params: Any = ()) -> list[tuple]:
        # KeyStore's statements are portable but for the placeholder style and SQLite's rowid order
        sql = sql.replace("?", "%s").replace("ORDER BY rowid", "ORDER BY created_at, id")
        try:
            with self._pool.connection() as conn:
                cur = conn.execute(sql, params)
                return cur.fetchall() if cur.description is not None else []
        except self._errors as exc:
            raise StoreError(f"API keys database error ({self.path}): {exc}") from exc
