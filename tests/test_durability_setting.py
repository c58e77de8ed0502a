"""The ``durability`` setting: ``full`` by default (SQLite ``synchronous=FULL`` in WAL mode; PostgreSQL's
``synchronous_commit`` left to the server), ``normal`` on request (``NORMAL`` / ``off``), a bad value a
ConfigError naming the field. The crash test is tests/test_crash_durability.py; the cost bench/durability.py."""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.errors import ConfigError
from anchormem.stores.durability import check_durability, pg_options, sqlite_synchronous
from anchormem.testing import DeterministicEmbedder
from pg_fixtures import pg_server  # noqa: F401

SYNC = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


def _sqlite_state(mem: Memory) -> tuple[str, str]:
    c = mem.store._conn()
    return c.execute("PRAGMA journal_mode").fetchone()[0], SYNC[c.execute("PRAGMA synchronous").fetchone()[0]]


def test_sqlite_is_full_by_default_and_normal_on_request(tmp_path, monkeypatch):
    monkeypatch.delenv("ANCHORMEM_DURABILITY", raising=False)
    with Memory(str(tmp_path / "a.db"), embedder=DeterministicEmbedder(64), llm=None) as mem:
        assert _sqlite_state(mem) == ("wal", "FULL")
    with Memory(str(tmp_path / "b.db"), embedder=DeterministicEmbedder(64), llm=None, durability="normal") as mem:
        assert _sqlite_state(mem) == ("wal", "NORMAL")
    monkeypatch.setenv("ANCHORMEM_DURABILITY", "normal")
    with Memory(str(tmp_path / "c.db"), embedder=DeterministicEmbedder(64), llm=None) as mem:
        assert _sqlite_state(mem) == ("wal", "NORMAL")


def test_every_connection_gets_the_setting(tmp_path):
    import threading

    with Memory(str(tmp_path / "a.db"), embedder=DeterministicEmbedder(64), llm=None) as mem:
        seen = []
        t = threading.Thread(target=lambda: seen.append(_sqlite_state(mem)))  # a thread's own connection
        t.start()
        t.join()
        assert seen == [("wal", "FULL")]


def test_a_bad_value_is_a_config_error_naming_the_field(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="durability"):
        Memory(str(tmp_path / "a.db"), embedder=DeterministicEmbedder(64), llm=None, durability="fast")
    monkeypatch.setenv("ANCHORMEM_DURABILITY", "off")
    with pytest.raises(ConfigError, match="durability"):
        Memory(str(tmp_path / "a.db"), embedder=DeterministicEmbedder(64), llm=None)
    for bad in ("FULL", "", None, 1):
        with pytest.raises(ConfigError, match="durability must be one of 'full', 'normal'"):
            check_durability(bad)
    assert (sqlite_synchronous("full"), sqlite_synchronous("normal")) == ("FULL", "NORMAL")
    assert (pg_options("full"), pg_options("normal")) == ("", "-c synchronous_commit=off")


def test_postgres_leaves_synchronous_commit_to_the_server_unless_normal(pg_server):  # noqa: F811
    import psycopg

    url = pg_server.new_database()
    with psycopg.connect(url) as conn:
        server = conn.execute("SHOW synchronous_commit").fetchone()[0]
    for durability, expected in (("full", server), ("normal", "off")):
        with Memory(url=url, embedder=DeterministicEmbedder(64), llm=None, durability=durability) as mem:
            assert mem.store._read("SHOW synchronous_commit") == [(expected,)]
