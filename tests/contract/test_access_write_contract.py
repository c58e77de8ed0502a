"""A search's access-count write (``SearchConfig.track_access``): counts grow with each search and survive
reopening the store, on every backend; on PostgreSQL the write is a HOT update (``memories`` at fillfactor 70,
schema v7, and no index covering the written columns), so it adds no entry to any index, the HNSW graph included."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.stores.pg_migrations import MEMORIES_FILLFACTOR
from anchormem.testing import DeterministicEmbedder, frozen_clock

from .conftest import DIM

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
TEXTS = ["I keep bees on the roof.", "My sister plays the cello.", "The bees swarmed in May.",
         "I bake sourdough on Sundays.", "My cello teacher lives in Leeds."]


def test_access_counts_grow_and_survive_reopen(backend):
    mem = backend.memory(llm=None, cache=False)
    with frozen_clock(T0) as clock:
        for t in TEXTS:
            mem.add(t, user_id="u")
        for _ in range(3):
            clock.advance(hours=1)
            hits = mem.search("bees", user_id="u", limit=2)
            assert sorted(h.memory.text for h in hits) == ["I keep bees on the roof.", "The bees swarmed in May."]
        clock.advance(hours=2)
        mem.search("cello", user_id="u", limit=1)
    mem.close()

    again = backend.memory(llm=None, cache=False)
    counts = {m.text: (m.access_count, m.last_accessed_at) for m in again.get_all(user_id="u")}
    cello = [t for t in TEXTS if "cello" in t and counts[t][0] == 1]
    assert len(cello) == 1 and counts[cello[0]][1] == T0 + timedelta(hours=5)
    assert counts["I keep bees on the roof."] == (3, T0 + timedelta(hours=3))
    assert counts["The bees swarmed in May."] == (3, T0 + timedelta(hours=3))
    assert sum(c for c, _ in counts.values()) == 7


@pytest.fixture
def pg_mem(pg_server):
    mem = Memory(url=pg_server.new_database(), embedder=DeterministicEmbedder(DIM), llm=None, cache=False)
    yield mem
    mem.close()


def test_memories_keep_free_space_and_no_index_covers_the_access_columns(pg_mem):
    options = pg_mem.store._read("SELECT reloptions FROM pg_class WHERE relname = 'memories'")[0][0]
    assert f"fillfactor={MEMORIES_FILLFACTOR}" in options and MEMORIES_FILLFACTOR == 70
    defs = [r[0] for r in pg_mem.store._read("SELECT indexdef FROM pg_indexes WHERE tablename = 'memories'")]
    assert any("hnsw" in d for d in defs) and len(defs) >= 8  # the HNSW index exists: HOT spares it
    assert [d for d in defs if "access" in d] == []  # an index on a written column would forbid HOT


def test_access_write_is_a_hot_update(pg_mem):
    for k in range(8):
        for i, t in enumerate(TEXTS):
            pg_mem.add(f"{t[:-1]}, note {k}.", user_id="u", timestamp=T0 + timedelta(minutes=10 * k + i))
    ids = [m.id for m in pg_mem.get_all(user_id="u")]
    assert len(ids) >= 30
    store = pg_mem.store

    def counts() -> tuple[int, int]:
        with store._conn() as conn:
            conn.execute("SELECT pg_stat_force_next_flush()")
            return conn.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                                "WHERE relname = 'memories'").fetchone()

    upd0, hot0 = counts()
    for k in range(6):  # each memory touched 6 times: pruning frees the page's dead versions for the next one
        store.touch(pg_mem.tenant, ids, T0 + timedelta(minutes=k))
    upd1, hot1 = counts()
    assert upd1 - upd0 == 6 * len(ids)
    # HOT needs room on the row's own page: fillfactor 70 leaves it for nearly every write (at fillfactor 100 about
    # half were not HOT); a page that fills up between prunings makes the odd one a plain update
    assert hot1 - hot0 >= 0.97 * (upd1 - upd0)
    assert {m.access_count for m in pg_mem.get_all(user_id="u")} == {6}
