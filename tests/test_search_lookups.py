"""The search's cheaper lookups give what they replace: ``ScopeVectors.positions`` (rowids -> matrix positions, as
``pos.get(r, -1)`` gives them) through appends, removals, compactions and reused rowids; the keyword index's
per-term contributions, reused by a repeated query and dropped by a write (the same scores as FTS5); ``get_many``'s
reads by rowid hint (the same items, never a reused rowid's row); ``best_fused`` (the same pairs as heapq)."""

from __future__ import annotations

import heapq
import random
from datetime import datetime, timezone

import numpy as np

from anchormem import Memory
from anchormem.retrieval.search import best_fused
from anchormem.stores.vectors import ScopeVectors, VectorCache
from anchormem.text.tokenize import query_terms
from anchormem.types import Scope


def _check(sv: ScopeVectors, rnd: random.Random, hi: int) -> None:
    probe = [rnd.randint(0, hi + 5) for _ in range(200)] + list(sv.pos)
    got = sv.positions(np.array(probe, dtype=np.int64)).tolist()
    assert got == [sv.pos.get(r, -1) for r in probe]


def test_positions_match_the_rowid_map_through_writes_removals_and_reused_rowids():
    rnd = random.Random(3)
    dim = 4
    sv = ScopeVectors(np.array([5, 2, 9], dtype=np.int64), np.ones((3, dim), np.float32), 0)
    assert sv.positions(np.array([2, 5, 9, 7], dtype=np.int64)).tolist() == [1, 0, 2, -1]
    assert sv.positions(np.zeros(0, dtype=np.int64)).tolist() == []
    top = 9
    for step in range(300):
        op = rnd.random()
        if op < 0.5:  # the usual write: new rowids above every known one
            k = rnd.randint(1, 5)
            new = np.arange(top + 1, top + 1 + k, dtype=np.int64)
            top += k
            sv.append(new, np.ones((k, dim), np.float32))
        elif op < 0.6 and sv.pos:  # a rowid reused after its row was removed (the largest one freed)
            r = max(sv.pos)
            sv.remove([r])
            sv.append(np.array([r], dtype=np.int64), np.ones((1, dim), np.float32))
        elif op < 0.7:  # rows out of order (a reload raced with a write)
            new = np.array(sorted(rnd.sample(range(1, top + 1), 3), reverse=True), dtype=np.int64)
            sv.append(new, np.ones((3, dim), np.float32))
        elif sv.pos:  # removals; enough of them compact the matrix
            sv.remove(rnd.sample(sorted(sv.pos), min(len(sv.pos), rnd.randint(1, 40))))
        _check(sv, rnd, top)
    sv.remove(list(sv.pos))
    assert sv.positions(np.array([1, 2, 3], dtype=np.int64)).tolist() == [-1, -1, -1]


def test_keyword_terms_reused_until_a_write_changes_the_index():
    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"apple river hiking number{i}"} for i in range(40)], user_id="A")
        scope = Scope(user_id="A")
        terms = query_terms("apple river")
        first = m.store.keyword_search(scope, terms, 10, None)
        index = m.store.keywords
        assert index._terms  # the query's terms kept
        assert m.store.keyword_search(scope, terms, 10, None) == first
        m.add([{"role": "user", "content": "apple apple apple"}], user_id="A")
        after = m.store.keyword_search(scope, terms, 10, None)
        m.store.keywords = None  # FTS5's own ranking: the same ids and scores
        try:
            want = m.store.keyword_search(scope, terms, 10, None)
        finally:
            m.store.keywords = index
        assert after == want and after != first


def test_get_many_reads_hinted_rows_by_rowid_and_never_returns_a_reused_rowids_row():
    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"apple river hiking number{i}"} for i in range(12)], user_id="A")
        store, scope = m.store, Scope(user_id="A")
        items = m.get_all(user_id="A")
        rows = dict(store._read("SELECT id, rowid FROM memories", ()))
        last = max(items, key=lambda it: rows[it.id])
        store._remember_rowids([rows[it.id] for it in items], [it.id for it in items])  # as a search leaves them
        ids = [it.id for it in items]
        got = store.get_many(scope.tenant, ids, entities=False)
        store._recent_rowids.clear()
        want = store.get_many(scope.tenant, ids, entities=False)
        assert list(got) == list(want) == sorted(ids)
        assert all(got[i].model_dump() == want[i].model_dump() for i in ids)
        store._remember_rowids([rows[last.id]], [last.id])
        m.delete(last.id, purge=False)
        store._remember_rowids([rows[last.id]], [last.id])  # a stale hint: the row is gone, its rowid reusable
        m.add([{"role": "user", "content": "a new turn about kayaks"}], user_id="A")
        new = [it for it in m.get_all(user_id="A") if "kayaks" in it.text][0]
        hinted = store.get_many(scope.tenant, [last.id, new.id], entities=False)
        assert rows[last.id] == max(r for (r,) in store._read("SELECT rowid FROM memories", ()))  # reused
        assert last.id not in hinted
        assert hinted[new.id].text == new.text


def test_best_fused_is_heapq_nsmallest_by_score_then_id():
    rnd = random.Random(11)
    for _ in range(300):
        n = rnd.randint(0, 300)
        fused = {f"{rnd.randint(0, 10**6):x}": rnd.choice([0.0, -0.0, 0.5, 1.0, rnd.random()]) for _ in range(n)}
        k = rnd.randint(1, 120)
        assert best_fused(fused, k) == heapq.nsmallest(k, fused.items(), key=lambda kv: (-kv[1], kv[0]))


def test_row_ids_beside_the_vectors_follow_appends_removals_compactions_and_reused_rowids():
    """ScopeVectors.keys_at: the memory id of each live row, given at load or with an append (None when a write
    gave none), kept aligned with the rows through removals, compactions and a reused rowid."""
    rnd = random.Random(5)
    dim = 4
    sv = ScopeVectors(np.array([5, 2, 9], dtype=np.int64), np.ones((3, dim), np.float32), 0, ["m5", "m2", "m9"])
    assert sv.keys_at(sv.positions(np.array([2, 9, 5], dtype=np.int64))) == ["m2", "m9", "m5"]
    want = {5: "m5", 2: "m2", 9: "m9"}
    top = 9
    for step in range(300):
        op = rnd.random()
        if op < 0.5:
            k = rnd.randint(1, 5)
            new = list(range(top + 1, top + 1 + k))
            top += k
            named = rnd.random() < 0.8  # a write that names its rows (the SQLite store's) or not
            sv.append(np.array(new, dtype=np.int64), np.ones((k, dim), np.float32),
                      keys=[f"m{r}.{step}" for r in new] if named else None)
            want.update({r: f"m{r}.{step}" if named else None for r in new})
        elif op < 0.6 and sv.pos:  # a rowid freed and reused by another memory
            r = max(sv.pos)
            sv.remove([r])
            sv.append(np.array([r], dtype=np.int64), np.ones((1, dim), np.float32), keys=[f"reused{r}.{step}"])
            want[r] = f"reused{r}.{step}"
        elif sv.pos:  # removals; enough of them compact the arrays
            gone = rnd.sample(sorted(sv.pos), min(len(sv.pos), rnd.randint(1, 40)))
            sv.remove(gone)
            for r in gone:
                del want[r]
        live = sorted(sv.pos)
        assert sorted(want) == live
        assert sv.keys_at(sv.positions(np.array(live, dtype=np.int64))) == [want[r] for r in live]
    # through the cache: the ids of the rows a search ranks, and of the live ones among given rowids
    cache = VectorCache(dim)
    sv._m[: sv.n] = np.random.default_rng(0).normal(size=(sv.n, dim)).astype(np.float32)
    k = min(10, len(live))
    rowids, scores, keys = cache.search(sv, np.ones(dim, np.float32), k, None, keys=True)
    assert k >= 3 and len(rowids) == k and keys == [want[r] for r in rowids.tolist()]
    assert scores.tolist() == sorted(scores.tolist(), reverse=True)
    probe = np.array([live[0], top + 100, live[-1]], dtype=np.int64)
    mask, keys = cache.live_keys(sv, probe)
    assert mask.tolist() == [True, False, True] and keys == [want[live[0]], want[live[-1]]]


def test_a_closed_or_deleted_memory_is_not_named_by_the_scope_arrays_and_never_comes_back_as_current(tmp_path):
    """The store's cached scope (vectors and memory ids) after a write that supersedes a memory, a close and a
    delete: the rows gone are no live rows of the arrays, the new row is named by its id, and searches return
    the current memories only, with the ids the table holds."""
    from anchormem.testing import DeterministicEmbedder

    with Memory(str(tmp_path / "a.db"), embedder=DeterministicEmbedder(32), llm=None, cache=False) as m:
        for i in range(6):
            m.add(f"My bicycle number {i} is parked at the station.", user_id="u")
        m.add("I live in Lisbon.", user_id="u")
        assert m.search("bicycle station", user_id="u", limit=10, recipe="dense")  # loads the scope's arrays
        store, key = m.store, (m.tenant, "u")
        lisbon = next(x for x in m.get_all(user_id="u") if "Lisbon" in x.text)
        m.add("I moved to Porto, I live in Porto now.", user_id="u")  # supersedes the Lisbon memory
        bikes = [x for x in m.get_all(user_id="u") if "bicycle" in x.text]
        m.delete(bikes[0].id)
        store.close_memory(m.tenant, bikes[1].id, when=datetime.now(timezone.utc), actor="test", event="COMPLETE")
        gen = store._generation(*key)
        sv = store.vectors.cached(key, gen)
        assert sv is not None  # kept in step with the writes, not reloaded
        current = store._read("SELECT rowid, id FROM memories WHERE tenant=? AND user_id=? AND valid_to IS NULL",
                              key)
        gone = store._read("SELECT rowid FROM memories WHERE tenant=? AND user_id=? AND valid_to IS NOT NULL", key)
        assert lisbon.id not in {r[1] for r in current} and len(gone) >= 2
        assert sv.positions(np.array([r[0] for r in gone], dtype=np.int64)).tolist() == [-1] * len(gone)
        rowids = np.array([r[0] for r in current], dtype=np.int64)
        assert sv.keys_at(sv.positions(rowids)) == [r[1] for r in current]
        for recipe in ("dense", None):
            hits = m.search("Where do I live? bicycle station Lisbon", user_id="u", limit=20, recipe=recipe)
            got = {h.memory.id for h in hits}
            assert got and got <= {r[1] for r in current}
            assert lisbon.id not in got and bikes[0].id not in got and bikes[1].id not in got
