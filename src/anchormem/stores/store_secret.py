"""The store's cache secret: 32 random bytes kept in the store's ``meta`` table (row ``cache_secret``), created
on first use by whichever process asks first (insert-if-absent, then read: every process gets the same one).

The hot cache (:mod:`anchormem.hotcache`) keys its entries with HMAC-SHA256 under this secret, so a key in Redis
reveals nothing about the query text, tenant, user or memory id it stands for, and cannot be confirmed by hashing
a guess: whoever can read the keys but not the store (a shared Redis) learns nothing. The secret is as private
as the store itself: in the SQLite file (0600, :mod:`anchormem.private_files`) or the PostgreSQL database.
"""

from __future__ import annotations

import secrets

__all__ = ["SQLiteSecretMixin", "PostgresSecretMixin"]

_KEY = "cache_secret"


class SQLiteSecretMixin:
    """``cache_secret()`` for :class:`~.sqlite.SQLiteStore`."""

    def cache_secret(self) -> bytes:
        """The store's 32-byte cache secret (created on first call). Raises StoreError."""
        rows = self._read("SELECT value FROM meta WHERE key = ?", (_KEY,))  # type: ignore[attr-defined]
        if rows:
            return bytes.fromhex(rows[0][0])
        with self._tx() as c:  # type: ignore[attr-defined]
            c.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (_KEY, secrets.token_hex(32)))
            return bytes.fromhex(c.execute("SELECT value FROM meta WHERE key = ?", (_KEY,)).fetchone()[0])


class PostgresSecretMixin:
    """``cache_secret()`` for :class:`~.postgres.PostgresStore`."""

    def cache_secret(self) -> bytes:
        """The store's 32-byte cache secret (created on first call). Raises StoreError."""
        rows = self._read("SELECT value FROM meta WHERE key = %s", (_KEY,))  # type: ignore[attr-defined]
        if rows:
            return bytes.fromhex(rows[0][0])

        def run(conn):  # type: ignore[no-untyped-def]
            conn.execute("INSERT INTO meta VALUES (%s, %s) ON CONFLICT DO NOTHING", (_KEY, secrets.token_hex(32)))
            return conn.execute("SELECT value FROM meta WHERE key = %s", (_KEY,)).fetchone()[0]

        return bytes.fromhex(self._run(run))  # type: ignore[attr-defined]
