"""The PostgreSQL test server, shared by ``tests/contract`` and ``tests/api`` (both conftests import it).

PostgreSQL 16 + pgvector comes from the ``pgserver`` wheel: one private server in a temporary directory per test
session, with durability off, and a migrated template database that :meth:`PgServer.new_database` copies, so each
test gets its own database in milliseconds. When pgserver cannot start, tests that need it are skipped with the
reason, unless ``CI`` or ``ANCHORMEM_REQUIRE_POSTGRES`` is set: then they fail.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

__all__ = ["PgServer", "TEMPLATE_DB", "pg_server", "require_postgres"]

TEMPLATE_DB = "anchormem_template"


@dataclass
class PgServer:
    server: Any
    startup_seconds: float

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.server.get_uri(), autocommit=True) as conn:
            for attempt in range(50):  # the template's last connection may still be closing
                try:
                    conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB}")
                    break
                except psycopg.errors.ObjectInUse:
                    if attempt == 49:
                        raise
                    time.sleep(0.1)
        return self.server.get_uri(database=name)


def require_postgres() -> bool:
    """True when a missing PostgreSQL must fail the tests instead of skipping them (CI)."""
    return bool(os.environ.get("CI") or os.environ.get("ANCHORMEM_REQUIRE_POSTGRES"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A PostgreSQL 16 + pgvector server for the whole session (pgserver), stopped and removed at the end. Its data
    directory is a fresh ``tempfile.mkdtemp``, not one of pytest's numbered temporary directories: another pytest
    run of the same user prunes those (it keeps the newest three), which pulled the data directory out from under a
    running server ("could not open file .../global/pg_control")."""
    t0 = time.perf_counter()
    data = tempfile.mkdtemp(prefix="anchormem-pg-")
    try:
        import pgserver
        import psycopg  # noqa: F401
        import pgvector  # noqa: F401

        srv = pgserver.get_server(data, cleanup_mode="stop")
        with psycopg.connect(srv.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # fail here, clearly, if pgvector is missing
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):  # a throwaway server: no durability
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE_DB}")
            conn.execute(f"CREATE DATABASE {TEMPLATE_DB}")
        from anchormem.stores.postgres import PostgresStore

        PostgresStore(srv.get_uri(database=TEMPLATE_DB), min_size=0).close()  # migrated once, copied per test
    except Exception as exc:  # noqa: BLE001 - any failure to start is reported as a skip (or a failure in CI)
        reason = f"PostgreSQL via pgserver could not start: {type(exc).__name__}: {exc}"
        shutil.rmtree(data, ignore_errors=True)
        if require_postgres():
            pytest.fail(reason)
        pytest.skip(reason)
    info = PgServer(srv, time.perf_counter() - t0)
    yield info
    srv.cleanup()
    shutil.rmtree(data, ignore_errors=True)
