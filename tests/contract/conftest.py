"""One store contract, every backend: the ``backend`` fixture is parametrised over SQLite and PostgreSQL.

PostgreSQL 16 + pgvector comes from the ``pgserver`` wheel (a private server in a temporary directory, started
once per session). Each test gets its own database, so tests are isolated and can open several stores (or
``Memory`` objects) on one database. When pgserver cannot start, the postgres params are skipped with the reason,
unless ``CI`` or ``ANCHORMEM_REQUIRE_POSTGRES`` is set: then they fail.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from anchormem import Memory
from anchormem.testing import DeterministicEmbedder

DIM = 64
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


def _require_postgres() -> bool:
    return bool(os.environ.get("CI") or os.environ.get("ANCHORMEM_REQUIRE_POSTGRES"))


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory) -> Iterator[PgServer]:
    """A PostgreSQL 16 + pgvector server for the whole session (pgserver), stopped at the end."""
    t0 = time.perf_counter()
    try:
        import pgserver
        import psycopg  # noqa: F401
        import pgvector  # noqa: F401

        srv = pgserver.get_server(tmp_path_factory.mktemp("pgdata"), cleanup_mode="stop")
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
        if _require_postgres():
            pytest.fail(reason)
        pytest.skip(reason)
    info = PgServer(srv, time.perf_counter() - t0)
    yield info
    srv.cleanup()


@dataclass
class Backend:
    """A fresh database on one backend: ``url`` for ``Memory(url=...)``, ``open()`` for raw stores on it."""

    name: str
    url: str
    _opened: list[Any] = field(default_factory=list)

    def open(self, *, check: bool = True, **kwargs: Any) -> Any:
        if self.name == "sqlite":
            from anchormem.stores.sqlite import SQLiteStore

            store = SQLiteStore(self.url[len("sqlite:///"):], **kwargs)
        else:
            from anchormem.stores.postgres import PostgresStore

            store = PostgresStore(self.url, **kwargs)
        self._opened.append(store)
        if check:
            store.check_embedder(f"hash-{DIM}", DIM)
        return store

    def memory(self, **kwargs: Any) -> Memory:
        kwargs.setdefault("embedder", DeterministicEmbedder(DIM))
        m = Memory(url=self.url, **kwargs)
        self._opened.append(m)
        return m

    def close_all(self) -> None:
        for x in reversed(self._opened):
            try:
                x.close()
            except Exception:  # noqa: BLE001
                pass


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path) -> Iterator[Backend]:
    if request.param == "sqlite":
        b = Backend("sqlite", "sqlite:///" + str(tmp_path / "contract.db"))
    else:
        b = Backend("postgres", request.getfixturevalue("pg_server").new_database())
    yield b
    b.close_all()


@pytest.fixture
def store(backend):
    """A raw Store on a fresh database, its embedder recorded (the hash embedder, dim 64)."""
    return backend.open()


@pytest.fixture
def mem(backend) -> Memory:
    """A Memory over the backend with the deterministic hash embedder (dim 64)."""
    return backend.memory()


@pytest.fixture
def embed() -> Callable[[str], Any]:
    e = DeterministicEmbedder(DIM)
    return lambda text: e.embed_documents([text])[0]
