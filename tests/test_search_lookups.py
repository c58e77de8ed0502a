"""The search's cheaper lookups give what they replace: ``ScopeVectors.positions`` (rowids -> matrix positions, as
``pos.get(r, -1)`` gives them) through appends, removals, compactions and reused rowids; the keyword index's
per-term contributions, reused by a repeated query and dropped by a write (the same scores as FTS5); ``get_many``'s
reads by rowid hint (the same items, never a reused rowid's row); ``best_fused`` (the same pairs as heapq)."""

from __future__ import annotations

import heapq
import random

import numpy as np

from anchormem import Memory
from anchormem.retrieval.search import best_fused
from anchormem.stores.vectors import ScopeVectors
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
