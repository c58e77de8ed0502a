"""Opening a connection to a SQLite store with its settings (:class:`anchormem.stores.sqlite.SQLiteStore`).

Every connection gets a busy timeout (30 s), foreign keys and secure delete (deleted content is zeroed, not left in
free space); on a file also the memory map of reads (``mmap_size``, plaintext only), WAL and the durability level
(:mod:`.durability`). A new connection can meet a transient "disk I/O error" while another connection of the same
file sets up or checkpoints its WAL (seen under load: an API worker opening a second tenant's store while the first
writes): it is tried :data:`OPEN_ATTEMPTS` times, 50 ms apart and more, before it is reported.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from ..errors import StoreError
from . import sqlcipher

__all__ = ["MMAP_BYTES", "OPEN_ATTEMPTS", "open_connection"]

MMAP_BYTES = 1 << 30  # PRAGMA mmap_size of a plaintext database file (search at 50k memories: ~15% less CPU)
OPEN_ATTEMPTS = 4


def open_connection(uri: str, path: str, key: Any, memory: bool, sync: str,
                    errors: tuple[type[BaseException], ...]) -> sqlite3.Connection:
    """A new connection to ``uri`` (``key``: a SQLCipher key or None; ``memory``: an in-memory database; ``sync``:
    the ``PRAGMA synchronous`` level). Raises StoreError naming ``path`` (``errors``: the driver's error types)."""
    for attempt in range(OPEN_ATTEMPTS):
        try:
            return _open(uri, key, memory, sync)
        except errors as exc:
            if attempt + 1 == OPEN_ATTEMPTS or "disk I/O error" not in str(exc):
                raise StoreError(f"cannot open SQLite database {path!r}: {exc}") from exc
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")  # pragma: no cover


def _open(uri: str, key: Any, memory: bool, sync: str) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=30.0) \
        if key is None else sqlcipher.connect(uri, key, timeout=30.0)
    try:
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA secure_delete = ON")
        if not memory:
            if key is None:  # reads map the file: no read() call and copy per page
                conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {sync}")
    except BaseException:
        conn.close()
        raise
    return conn
