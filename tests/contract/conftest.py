"""One store contract, every backend: the ``backend`` fixture is parametrised over SQLite and PostgreSQL.

PostgreSQL 16 + pgvector comes from the ``pgserver`` wheel (a private server in a temporary directory, started
once per session). Each test gets its own database, so tests are isolated and can open several stores (or
``Memory`` objects) on one database. When pgserver cannot start, the postgres params are skipped with the reason,
unless ``CI`` or ``ANCHORMEM_REQUIRE_POSTGRES`` is set: then they fail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from anchormem import Memory
from anchormem.testing import DeterministicEmbedder
from pg_fixtures import pg_server  # noqa: F401 - the PostgreSQL server fixture, shared with tests/api

DIM = 64


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


def _new_backend(name: str, request, path) -> Backend:
    """A fresh database of backend ``name``: a SQLite file at ``path``, or a new database on the test PostgreSQL."""
    if name == "sqlite":
        return Backend("sqlite", "sqlite:///" + str(path))
    return Backend("postgres", request.getfixturevalue("pg_server").new_database())


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path) -> Iterator[Backend]:
    b = _new_backend(request.param, request, tmp_path / "contract.db")
    yield b
    b.close_all()


@pytest.fixture
def target(backend: Backend, request, tmp_path) -> Iterator[Backend]:
    """A second, empty database on the same backend (export → import, copies between stores)."""
    b = _new_backend(backend.name, request, tmp_path / "target.db")
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
