"""Shared fixtures: a fast store on the deterministic hash embedder, and one real embedder per session; the smoke
subset (``pytest -q -m smoke``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchormem import Memory
from anchormem.embedders import make_embedder
from anchormem.timeutil import set_clock


# ``pytest -q -m smoke``: about a minute on a quiet 2-core machine. The public API, the core Memory calls, filters,
# the store, the CLI and the README's example; every test in these files carries the ``smoke`` marker, and with
# ``-m smoke`` alone no other file is even collected (collecting the whole suite takes longer than the subset).
SMOKE_FILES = frozenset({"test_public_api.py", "test_memory_api.py", "test_filters.py", "test_store.py",
                         "test_cli.py", "test_readme.py"})
_TESTS = Path(__file__).resolve().parent


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption("markexpr", "") != "smoke" or collection_path.is_dir():
        return None
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        return not (collection_path.parent == _TESTS and collection_path.name in SMOKE_FILES)
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``pytest -n auto``: one worker per core, at most 4 (each worker loads the embedding model and starts its own
    PostgreSQL for the contract tests)."""
    import os

    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


# Files whose every test is ``slow`` besides those marked in place: long explorations rather than checks of one
# behaviour. The default run leaves ``slow`` out (pyproject's addopts); ``pytest -m slow`` runs them, as CI does.
SLOW_FILES = frozenset({"api/test_fuzz.py"})  # schemathesis fuzzing of every route (~1 min of CPU)


@pytest.hookimpl(tryfirst=True)  # before the mark plugin deselects by -m
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath))
        if path.parent == _TESTS and path.name in SMOKE_FILES:
            item.add_marker(pytest.mark.smoke)
        if path.is_relative_to(_TESTS) and path.relative_to(_TESTS).as_posix() in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _real_clock():
    """No test leaks a frozen clock into the next one."""
    yield
    set_clock(None)


@pytest.fixture(autouse=True)
def _encrypted_sqlite(monkeypatch):
    """``ANCHORMEM_TEST_ENCRYPT=1 pytest …``: every SQLite file store opened without a key gets a fixed SQLCipher
    key, so any test file (tests/test_store.py, the contract suite's sqlite params) runs on encrypted files."""
    import os

    if not os.environ.get("ANCHORMEM_TEST_ENCRYPT"):
        yield
        return
    from anchormem.stores.sqlite import SQLiteStore

    real = SQLiteStore.__init__

    def keyed(self, path, *args, encryption_key=None, **kwargs):
        if encryption_key is None and str(path) != ":memory:":
            encryption_key = "ab" * 32
        real(self, path, *args, encryption_key=encryption_key, **kwargs)

    monkeypatch.setattr(SQLiteStore, "__init__", keyed)
    yield


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "m.db")


@pytest.fixture
def mem(db_path):
    """A fresh store on a file, with the hash embedder (fast, deterministic, lexical similarity)."""
    m = Memory(db_path, embedder="hash")
    yield m
    m.close()


@pytest.fixture
def mem_det():
    """An in-memory store with the deterministic test embedder (64-d), no LLM, no cache: exact, repeatable ranks."""
    from anchormem.testing import DeterministicEmbedder

    m = Memory(":memory:", embedder=DeterministicEmbedder(64), llm=None, cache=False)
    yield m
    m.close()


@pytest.fixture(scope="session")
def e5():
    """The real multilingual-e5-small embedder, loaded once (used where ranking quality matters)."""
    return make_embedder("e5-small")


@pytest.fixture
def mem_e5(tmp_path, e5):
    m = Memory(str(tmp_path / "e5.db"), embedder=e5)
    yield m
    m.close()


@pytest.fixture
def count():
    """count(mem, user_id): how many memories (current and superseded) a user has."""
    def _count(m: Memory, user_id: str) -> int:
        return len(m.get_all(user_id=user_id, include_superseded=True))
    return _count


@pytest.fixture
def two_speakers():
    """A hash-embedder memory of one user holding a chat between Bob and Ann (7 named turns, 2023-05-08 13:00 UTC):
    Bob's first turn names Ann and her kids; Ann's own turns are about swimming, painting and the library
    (tests of the speaker rule and of category questions)."""
    from datetime import datetime, timezone

    from anchormem import Memory
    from anchormem.embedders.hashing import HashEmbedder

    t0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
    m = Memory(":memory:", embedder=HashEmbedder(dim=256))
    turns = [("Bob", "I bet your kids like the beach, Ann. All kids like the beach."),
             ("Ann", "They are great! The kids love swimming and collecting shells."),
             ("Bob", "Nice, I went hiking in the hills last week."),
             ("Ann", "I am repainting the kitchen this month."),
             ("Bob", "My car needs new tyres before winter."),
             ("Ann", "The library downtown reopened on Friday."),
             ("Bob", "I baked bread for the neighbours yesterday.")]
    m.add([{"role": "user", "content": c, "name": n, "timestamp": t0} for n, c in turns], user_id="u")
    with m:
        yield m
