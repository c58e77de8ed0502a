"""Opening a SQLite connection (anchormem.stores.sqlite_conn): a transient "disk I/O error" is tried again, any
other error is reported at once as StoreError naming the file."""

from __future__ import annotations

import sqlite3

import pytest

from anchormem import StoreError
from anchormem.stores import sqlite_conn


def _failing(times: int, message: str):
    calls = []

    def fake(uri, key, memory, sync):
        calls.append(uri)
        if len(calls) <= times:
            raise sqlite3.OperationalError(message)
        return sqlite3.connect(":memory:")
    return fake, calls


def test_a_transient_disk_io_error_is_tried_again(monkeypatch):
    fake, calls = _failing(2, "disk I/O error")
    monkeypatch.setattr(sqlite_conn, "_open", fake)
    monkeypatch.setattr(sqlite_conn.time, "sleep", lambda s: None)
    conn = sqlite_conn.open_connection("file:x", "x.db", None, False, "NORMAL", (sqlite3.Error,))
    assert conn.execute("SELECT 1").fetchone() == (1,) and len(calls) == 3


def test_other_errors_and_a_lasting_io_error_are_reported(monkeypatch):
    monkeypatch.setattr(sqlite_conn.time, "sleep", lambda s: None)
    fake, calls = _failing(1, "unable to open database file")
    monkeypatch.setattr(sqlite_conn, "_open", fake)
    with pytest.raises(StoreError, match="cannot open SQLite database 'x.db': unable to open database file"):
        sqlite_conn.open_connection("file:x", "x.db", None, False, "NORMAL", (sqlite3.Error,))
    assert len(calls) == 1
    fake, calls = _failing(99, "disk I/O error")
    monkeypatch.setattr(sqlite_conn, "_open", fake)
    with pytest.raises(StoreError, match="disk I/O error"):
        sqlite_conn.open_connection("file:x", "x.db", None, False, "NORMAL", (sqlite3.Error,))
    assert len(calls) == sqlite_conn.OPEN_ATTEMPTS
