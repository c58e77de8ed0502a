"""The index of current rows by kind (``ix_mem_kind``, :data:`anchormem.stores.schema.KIND_INDEX`): created on a new
store, added to a store written before it (SQLite's migration v10, PostgreSQL's v11) and used by a listing of one
kind. The cost it saves is tested on SQLite in tests/test_listing_cost_bounded.py."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from anchormem.stores.migrations import LATEST as SQLITE_LATEST
from anchormem.stores.pg_migrations import LATEST as PG_LATEST

T1 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _has_index(backend) -> bool:
    if backend.name == "sqlite":
        c = sqlite3.connect(backend.url[len("sqlite:///"):])
        try:
            return bool(c.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'ix_mem_kind'"
                                  ).fetchall())
        finally:
            c.close()
    import psycopg

    with psycopg.connect(backend.url) as c:
        return bool(c.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'ix_mem_kind'").fetchall())


def _downgrade(backend) -> None:
    """Make the database look written before the kind index: no index, the schema version before it."""
    if backend.name == "sqlite":
        c = sqlite3.connect(backend.url[len("sqlite:///"):], isolation_level=None)
        c.execute("DROP INDEX ix_mem_kind")
        c.execute(f"PRAGMA user_version = {SQLITE_LATEST - 1}")
        c.close()
    else:
        import psycopg

        with psycopg.connect(backend.url, autocommit=True) as c:
            c.execute("DROP INDEX ix_mem_kind")
            c.execute(f"DELETE FROM anchormem_schema WHERE version >= {PG_LATEST}")


def _plan(backend, mem) -> str:
    """The query plan of a listing of current facts (on PostgreSQL with sequential scans off: a small table is
    cheaper to scan, and the test asks whether the index can serve the listing)."""
    sql, params = mem.store._filters.where(mem._scope("u", None, None),  # noqa: SLF001
                                           mem_filters({"kind": "fact"}), None)
    q = f"SELECT m.id FROM memories m WHERE {sql} ORDER BY m.created_at"
    if backend.name == "sqlite":
        return " ".join(str(r[-1]) for r in mem.store._read("EXPLAIN QUERY PLAN " + q, params))  # noqa: SLF001
    import psycopg

    with psycopg.connect(backend.url) as c:
        c.execute("SET enable_seqscan = off")
        return " ".join(r[0] for r in c.execute("EXPLAIN " + q, params).fetchall())


def mem_filters(f):
    from anchormem.filters import parse_filters

    return parse_filters(f)


def test_an_older_store_gets_the_kind_index_and_lists_as_before(backend):
    mem = backend.memory()
    mem.add("My rent is 1200 euros a month.", user_id="u", timestamp=T1)
    mem.add("I promise to send the report to Anna by Monday.", user_id="u", timestamp=T1)
    before = ([m.id for m in mem.get_all(user_id="u", filters={"kind": "fact"})], [m.id for m in mem.due(user_id="u")])
    mem.close()
    assert _has_index(backend)
    _downgrade(backend)
    assert not _has_index(backend)
    mem = backend.memory()
    assert _has_index(backend)
    assert ([m.id for m in mem.get_all(user_id="u", filters={"kind": "fact"})],
            [m.id for m in mem.due(user_id="u")]) == before
    assert len(before[0]) == 1 and len(before[1]) == 1
    assert "ix_mem_kind" in _plan(backend, mem)
    mem.close()
