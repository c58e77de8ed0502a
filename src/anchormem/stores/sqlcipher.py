"""Encryption at rest for the SQLite store: SQLCipher through the ``sqlcipher3`` binding
(``pip install 'anchormem[encryption]'``, the ``sqlcipher3-binary`` wheel bundles SQLCipher 4 with FTS5).

The whole database file, its ``-wal`` journal and temporary files are AES-256 encrypted page by page (SQLCipher
4 defaults: PBKDF2-HMAC-SHA512 with 256,000 iterations for passphrases, HMAC-SHA512 per page). The key is given
as :class:`EncryptionKey` (see its docstring for the two accepted forms); it never appears in a ``repr``, a log
line or an exception message. A plaintext database stays plaintext: this module only opens files, it never
converts one kind into the other; :func:`rekey_file` changes the key of an encrypted file in place.

Errors: a missing binding, a key on an unencrypted file, no key or a wrong key on an encrypted file all raise
:class:`~anchormem.errors.ConfigError` with a message saying which; nothing in the file is touched.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError, StoreError

__all__ = ["EncryptionKey", "connect", "check_file", "rekey_file", "SQLITE_HEADER"]

SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every plaintext SQLite database
_HEX_KEY = re.compile(r"^(?:x'|X')?([0-9a-fA-F]{64})'?$")
_INSTALL = "encryption at rest needs SQLCipher: pip install 'anchormem[encryption]'"


class EncryptionKey:
    """A SQLCipher key, kept out of ``repr``/``str`` (both print ``EncryptionKey(***)``).

    ``value``: ``str`` or ``bytes``.

    - 64 hex characters (optionally written ``x'…'``), or 32 raw ``bytes``: a raw 256-bit key, used as is (no key
      derivation: opening a connection costs nothing extra). Make one with ``python -c "import secrets;
      print(secrets.token_hex(32))"``.
    - any other non-empty string: a passphrase; SQLCipher derives the key with PBKDF2 (256,000 iterations, about
      0.2 s for each new connection: once per thread that uses the store).

    Raises ConfigError for an empty key or a type other than str/bytes.
    """

    __slots__ = ("_pragma",)

    def __init__(self, value: "str | bytes | EncryptionKey") -> None:
        if isinstance(value, EncryptionKey):
            self._pragma: str = value._pragma
            return
        if isinstance(value, (bytes, bytearray)):
            if len(value) != 32:
                raise ConfigError(f"a raw encryption key must be 32 bytes, got {len(value)} (or give a str "
                                  "passphrase)")
            self._pragma = f"\"x'{bytes(value).hex()}'\""
            return
        if not isinstance(value, str):
            raise ConfigError(f"encryption_key must be a str or bytes, got {type(value).__name__}")
        if not value:
            raise ConfigError("encryption_key is empty")
        m = _HEX_KEY.match(value.strip())
        if m:
            self._pragma = f"\"x'{m.group(1).lower()}'\""
        else:
            self._pragma = "'" + value.replace("'", "''") + "'"

    @property
    def raw(self) -> bool:
        """True for a raw 256-bit key, False for a passphrase."""
        return self._pragma.startswith("\"x'")

    def pragma(self, name: str = "key") -> str:
        """The ``PRAGMA key = …`` (or ``rekey``) statement. Holds the secret: never log it."""
        return f"PRAGMA {name} = {self._pragma}"

    def __repr__(self) -> str:
        return "EncryptionKey(***)"

    __str__ = __repr__

    def __reduce__(self) -> Any:  # never pickled into a cache, a log record or a worker message
        raise TypeError("EncryptionKey cannot be pickled")


def _module() -> Any:
    try:
        import sqlcipher3.dbapi2 as dbapi  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ConfigError(f"{_INSTALL} ({type(exc).__name__})") from None
    return dbapi


def errors() -> tuple[type[BaseException], ...]:
    """The binding's base exception class (``sqlcipher3.dbapi2.Error``), as a tuple for ``except``."""
    return (_module().Error,)


def check_file(path: str, key: EncryptionKey | None) -> None:
    """Compare what the file is with what the caller expects, before SQLite touches it: a plaintext file opened
    with a key, or an encrypted (or foreign) file opened without one, raises ConfigError. A missing or empty file
    is fine either way (it is created in the requested form)."""
    p = Path(path).expanduser()
    try:
        if not p.is_file() or p.stat().st_size == 0:
            return
        with p.open("rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise StoreError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    plain = head == SQLITE_HEADER
    if key is not None and plain:
        raise ConfigError(f"{path!r} is a plaintext (unencrypted) database, but an encryption key was given: open "
                          "it without encryption_key / ANCHORMEM_ENCRYPTION_KEY, or export it and import the "
                          "export into a new encrypted store (docs/privacy.md)")
    if not plain and key is not None and not looks_encrypted(head, p.stat().st_size):
        raise ConfigError(f"{path!r} is not an anchormem database (neither SQLite nor SQLCipher); check --db / "
                          "ANCHORMEM_PATH / the path given to Memory. Nothing was changed")
    if key is None and not plain:
        if looks_encrypted(head, p.stat().st_size):
            raise ConfigError(f"{path!r} is not a plaintext SQLite database: if it is an encrypted anchormem "
                              "store, give its key (Memory(encryption_key=...) or ANCHORMEM_ENCRYPTION_KEY)")
        raise ConfigError(f"{path!r} is not an anchormem database (it is not a SQLite file); check --db / "
                          "ANCHORMEM_PATH / the path given to Memory. Nothing was changed")


def looks_encrypted(head: bytes, size: int) -> bool:
    """Whether a file that is not plaintext SQLite could be a SQLCipher database: its size is a whole number of
    pages (SQLCipher pages are 512 to 65,536 bytes, 4,096 by default) and its first 16 bytes (the random salt) are
    not text: text is valid UTF-8 (a character cut at the 16th byte allowed) without control bytes other than tab
    and line breaks. A text file in any script, JSON or other ordinary file is never taken for one; a random salt
    passes for text about 3 times in 100,000 (the earlier "12 of 16 bytes printable ASCII" test: 3 in 1,000,
    which made a freshly created encrypted store refuse to reopen)."""
    if size < 512 or size % 512 or len(head) < 16:
        return False
    return not _looks_text(head)


def _looks_text(head: bytes) -> bool:
    if any((b < 32 and b not in (9, 10, 13)) or b == 127 for b in head):
        return False
    for cut in range(4):  # a UTF-8 character may be cut off at the end of the head
        try:
            head[: len(head) - cut].decode("utf-8")
            return True
        except UnicodeDecodeError:
            continue
    return False


def connect(uri: str, key: EncryptionKey, *, timeout: float) -> Any:
    """A SQLCipher connection to ``uri`` (a ``file:`` URI), keyed and verified: the first page is decrypted here,
    so a wrong key fails now (ConfigError), not on some later query. Raises ConfigError (binding missing, wrong
    key), StoreError (the file cannot be opened)."""
    dbapi = _module()
    try:
        conn = dbapi.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=timeout)
    except dbapi.Error as exc:
        raise StoreError(f"cannot open the encrypted database: {exc}") from None
    try:
        conn.execute("PRAGMA cipher_log_level = NONE")  # SQLCipher would print HMAC failures on stderr
        conn.execute(key.pragma())
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except dbapi.DatabaseError as exc:
        conn.close()
        if "not a database" in str(exc):
            raise ConfigError("cannot decrypt the database: wrong encryption key (or the file is not an "
                              "anchormem store); nothing was changed") from None
        raise StoreError(f"cannot open the encrypted database: {exc}") from None
    return conn


def rekey_file(path: str, old_key: "EncryptionKey | str | bytes", new_key: "EncryptionKey | str | bytes") -> None:
    """Re-encrypt the database file at ``path`` from ``old_key`` to ``new_key`` in place (SQLCipher
    ``PRAGMA rekey``: every page, the WAL included, is rewritten in one transaction; on failure the file keeps
    the old key). Close every store and process using the file first; reopen them with the new key. Raises
    ConfigError (binding missing, plaintext file, wrong ``old_key``), StoreError (SQLCipher refused, e.g. the
    file is locked by another connection)."""
    old, new = EncryptionKey(old_key), EncryptionKey(new_key)
    p = Path(path).expanduser()
    if not p.is_file():
        raise ConfigError(f"no database file at {path!r}")
    check_file(str(p), old)
    dbapi = _module()
    conn = connect(p.resolve().as_uri() + "?mode=rw", old, timeout=30.0)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute(new.pragma("rekey"))
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except dbapi.Error as exc:
        raise StoreError(f"changing the encryption key of {path!r} failed: {exc}") from None
    finally:
        conn.close()
