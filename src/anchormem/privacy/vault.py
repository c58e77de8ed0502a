"""Token vaults and the key material behind tokenised PII.

A tokenised value is written into text as ``[TYPE:xxxxxxxx]``; the original is kept only encrypted, in a
:class:`TokenVault`, under the full token string. The user-supplied key (at least 16 bytes of secret; use
``secrets.token_bytes(32)``, not a password) is stretched with HKDF-SHA256 into two independent 32-byte keys:

- an HMAC-SHA256 key that names the token (so the same value under the same key always gets the same token,
  and nobody without the key can test a guess such as "is this 13812345678?"),
- an AES-256-GCM key that encrypts the value. Each ciphertext is ``b"\\x01" + 12-byte random nonce + AES-GCM
  output``, with the token string as associated data, so a ciphertext cannot be moved to another token.

Decrypting with another key fails the GCM tag check and raises :class:`~anchormem.errors.PrivacyError`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import sqlite3
import threading
from datetime import datetime, timezone
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from ..errors import ConfigError, PrivacyError, StoreError

__all__ = ["TokenVault", "InMemoryVault", "SQLiteVault", "TokenKeys"]

_VERSION = b"\x01"
_SALT = b"anchormem/pii/v1"


@runtime_checkable
class TokenVault(Protocol):
    """Where the encrypted originals of tokenised values live, keyed by the full token (``"[PHONE:3f9a1c2b]"``)."""

    def put(self, token: str, ciphertext: bytes) -> None:
        """Store (or replace) the ciphertext for ``token``."""

    def get(self, token: str) -> bytes | None:
        """The ciphertext for ``token``, or None when the vault has no such token."""

    def delete(self, tokens: Iterable[str]) -> int:
        """Forget these tokens (unknown ones are ignored); returns how many were deleted."""


class InMemoryVault:
    """A :class:`TokenVault` in a dict, thread-safe; its contents are gone when the process exits."""

    def __init__(self) -> None:
        self._data: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, token: str, ciphertext: bytes) -> None:
        with self._lock:
            self._data[token] = bytes(ciphertext)

    def get(self, token: str) -> bytes | None:
        with self._lock:
            return self._data.get(token)

    def delete(self, tokens: Iterable[str]) -> int:
        with self._lock:
            return sum(self._data.pop(t, None) is not None for t in set(tokens))

    def __len__(self) -> int:
        return len(self._data)


class SQLiteVault:
    """A :class:`TokenVault` in table ``pii_vault(token TEXT PRIMARY KEY, ciphertext BLOB, created_at TEXT)``
    of the given connection (created if missing; ``created_at`` is ISO-8601 UTC).

    Writes join the caller's open transaction if there is one (so a memory and its vault rows commit
    together); otherwise each write is committed at once. The connection's thread rules are the caller's.
    sqlite3 errors are raised as :class:`~anchormem.errors.StoreError`.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._write(
            "CREATE TABLE IF NOT EXISTS pii_vault (token TEXT PRIMARY KEY, ciphertext BLOB NOT NULL, "
            "created_at TEXT NOT NULL)",
            (),
        )

    def _write(self, sql: str, params: tuple | list) -> int:
        try:
            outer = self._conn.in_transaction
            cur = self._conn.executemany(sql, params) if isinstance(params, list) else self._conn.execute(sql, params)
            if not outer and self._conn.in_transaction:
                self._conn.commit()
            return cur.rowcount
        except sqlite3.Error as exc:
            raise StoreError(f"pii_vault: {exc}") from exc

    def put(self, token: str, ciphertext: bytes) -> None:
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._write(
            "INSERT INTO pii_vault (token, ciphertext, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT(token) DO UPDATE SET ciphertext = excluded.ciphertext",
            (token, bytes(ciphertext), now),
        )

    def get(self, token: str) -> bytes | None:
        try:
            row = self._conn.execute("SELECT ciphertext FROM pii_vault WHERE token = ?", (token,)).fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"pii_vault: {exc}") from exc
        return None if row is None else bytes(row[0])

    def delete(self, tokens: Iterable[str]) -> int:
        rows = [(t,) for t in set(tokens)]
        if not rows:
            return 0
        return max(self._write("DELETE FROM pii_vault WHERE token = ?", rows), 0)


class TokenKeys:
    """The HMAC and AES-GCM keys derived from one user key (bytes, or str taken as UTF-8; at least 16 bytes).

    Raises :class:`~anchormem.errors.ConfigError` for a missing or short key, or when the ``cryptography``
    package is not installed (``pip install 'anchormem[pii]'``).
    """

    def __init__(self, key: bytes | str) -> None:
        if isinstance(key, str):
            key = key.encode("utf-8")
        if not isinstance(key, (bytes, bytearray)) or len(key) < 16:
            raise ConfigError("the PII key must be at least 16 bytes of secret (e.g. secrets.token_bytes(32))")
        try:
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ConfigError("tokenising PII needs the 'cryptography' package: pip install 'anchormem[pii]'") from exc
        material = HKDF(algorithm=hashes.SHA256(), length=64, salt=_SALT, info=b"hmac|aes-gcm").derive(bytes(key))
        self._mac_key = material[:32]
        self._aead = AESGCM(material[32:])

    def digest(self, data: str) -> str:
        """Hex HMAC-SHA256 of ``data`` (64 characters)."""
        return hmac.new(self._mac_key, data.encode("utf-8"), hashlib.sha256).hexdigest()

    def encrypt(self, token: str, value: str) -> bytes:
        """``value`` sealed with AES-256-GCM, bound to ``token``."""
        nonce = os.urandom(12)
        return _VERSION + nonce + self._aead.encrypt(nonce, value.encode("utf-8"), token.encode("utf-8"))

    def decrypt(self, token: str, blob: bytes) -> str:
        """The value sealed by :meth:`encrypt`; :class:`PrivacyError` for a wrong key or a damaged entry."""
        from cryptography.exceptions import InvalidTag

        if len(blob) < 29 or blob[:1] != _VERSION:
            raise PrivacyError(f"vault entry for {token} is not a recognised ciphertext")
        try:
            return self._aead.decrypt(blob[1:13], blob[13:], token.encode("utf-8")).decode("utf-8")
        except InvalidTag:
            raise PrivacyError(
                f"cannot decrypt {token}: wrong key (or the vault entry was altered)"
            ) from None
