"""The SQLite search's in-memory shortcuts give what the SQL gives: the keyword stage's filter answered from the
cached vectors and the rowid map (:meth:`SQLiteKeywordMixin._live_filter`), and the dense stage's rowid map kept
until the scope's next write (:meth:`SQLiteStore._row_ids`)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from anchormem import Memory
from anchormem.stores.keyword_sqlite import keyword_top
from anchormem.stores.schema import scope_token
from anchormem.testing import DeterministicEmbedder, frozen_clock
from anchormem.types import Scope

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _sql_keyword(store, scope: Scope, terms: list[str], k: int) -> list[tuple[str, float]]:
    """The keyword stage with its filter in SQL (the path taken without the cached vectors)."""
    sql, params = store._filters.where(scope, None, None, live=True)
    token = scope_token(scope.tenant, scope.user_id)
    return keyword_top(store._read, scope.tenant, scope.user_id, terms, k, sql, params, None,
                       lambda n: store.keywords.top_arrays(store._read, store._kw_snapshot, token, terms, n), None)


def test_keyword_filter_in_memory_equals_sql(tmp_path):
    mem = Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(32), llm=None, cache=False)
    with frozen_clock(T0):
        for i in range(12):
            mem.add(f"The bees swarmed near the hive number {i}.", user_id="u")
            mem.add(f"The bees of my neighbour, hive {i}.", user_id="other")
        ids = [m.id for m in mem.get_all(user_id="u")]
        mem.delete(ids[0])
        mem.store.set_tier(mem.tenant, [ids[1]], "cold", when=T0, actor="test", reason="test")
        mem.search("bees hive", user_id="u", limit=5)  # loads the scope's vectors
    store, scope = mem.store, Scope(tenant=mem.tenant, user_id="u")
    assert store._live_filter(scope, None, None) is not None
    got = store.keyword_search(scope, ["bees", "hive"], 50, None)
    assert got == _sql_keyword(store, scope, ["bees", "hive"], 50)
    assert len(got) == 10 and ids[0] not in dict(got) and ids[1] not in dict(got)  # deleted, archived: out
    assert not set(dict(got)) & {m.id for m in mem.get_all(user_id="other")}
    with frozen_clock(T0):  # a write moves the generation; the cached vectors follow it (the write applies to them)
        mem.add("The bees came back to hive 99.", user_id="u")
    again = store.keyword_search(scope, ["bees", "hive"], 50, None)
    assert again == _sql_keyword(store, scope, ["bees", "hive"], 50) and len(again) == 11
    store.vectors.clear()  # not cached: the filter runs in SQL
    assert store._live_filter(scope, None, None) is None
    assert store._live_filter(Scope(tenant=mem.tenant, user_id="u", agent_id="a"), None, None) is None
    mem.close()


def test_rowid_map_starts_over_after_a_write(tmp_path):
    mem = Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(32), llm=None, cache=False)
    with frozen_clock(T0):
        for i in range(5):
            mem.add(f"I planted tree number {i} in the garden.", user_id="u")
        first = [h.memory.id for h in mem.search("tree garden", user_id="u", limit=5, recipe="dense")]
        gen, idmap = mem.store._rowid_ids[(mem.tenant, "u")]
        assert set(idmap.values()) == set(first)
        mem.delete(first[0])
        mem.add("I planted a new tree in the garden.", user_id="u")
        again = [h.memory.id for h in mem.search("tree garden", user_id="u", limit=5, recipe="dense")]
    assert first[0] not in again and len(again) == 5
    store, key = mem.store, (mem.tenant, "u")
    now = store._generation(*key)
    assert now > gen
    # the scope's arrays beside its vectors name every current row by its id (the new row's given by the write)
    rows = store._read("SELECT rowid, id FROM memories WHERE tenant=? AND user_id=? AND valid_to IS NULL", key)
    sv = store.vectors.cached(key, now)
    rowids = np.array([r[0] for r in rows], dtype=np.int64)
    assert sv.keys_at(sv.positions(rowids)) == [r[1] for r in rows] and len(rows) == 5
    # the map (for rows the arrays do not name) is read at the new generation, never the old one's
    assert store._ids_of(key, now, rowids.tolist()) == [r[1] for r in rows]
    assert store._rowid_ids[key][0] == now
    mem.close()
