"""The indexes kept through a bulk import. HNSW: rows queued for the background indexer are searched exactly until
they are in the graph, the index is complete when ``add_many`` returns and saved when the store closes, and a reopen
takes the saved file as it is (no rebuild, no catch-up). Keywords: current when ``add_many`` returns."""

from __future__ import annotations

import os

import numpy as np
import pytest

from anchormem import Memory
from anchormem.config import Settings
from anchormem.types import Scope
from anchormem.stores import vector_delta
from anchormem.stores import vectors as vmod
from anchormem.stores.vectors import ScopeVectors, VectorCache

pytestmark = pytest.mark.skipif(bool(os.environ.get("ANCHORMEM_TEST_ENCRYPT")),
                                reason="an encrypted store keeps its HNSW index in memory only")


def _unit(n: int, dim: int, seed: int = 3) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _scope(n: int = 600, dim: int = 16) -> tuple[ScopeVectors, np.ndarray]:
    from usearch.index import Index

    m = _unit(n, dim)
    sv = ScopeVectors(np.arange(1, n + 1), m, 1)
    sv.ann = Index(ndim=dim, **vmod._ANN_PARAMS)
    sv.background_rows = 100
    sv.index_rows(np.arange(1, n + 1))
    return sv, m


def test_queued_rows_are_searched_exactly_until_the_indexer_inserts_them():
    sv, m = _scope()
    assert sv.queued == 600 and len(sv.ann) == 0
    sv.index_queued(500)  # 500 in the graph, 100 still queued
    assert sv.queued == 100 and len(sv.ann) == 500
    for i in (3, 250, 520, 599):  # a graph row and queued rows: each finds itself first, with its exact score
        rowids, scores = sv.ann_search(m[i], 5, None)
        assert int(rowids[0]) == i + 1 and scores[0] == pytest.approx(1.0, abs=1e-5)
        ex_rowids, ex_scores = sv.exact(m[i], 5, None)
        assert rowids.tolist() == ex_rowids.tolist()
    # a queued row removed, another re-added under its rowid with a new vector: skipped / inserted as it is now
    new = _unit(1, 16, seed=9)[0]
    sv.remove([520, 560])
    sv.append(np.array([560]), new[None, :])
    assert sv.index_queued() == 101 and sv.queued == 0
    assert len(sv.ann) == 599 and not sv.ann.contains(520)
    assert np.allclose(np.asarray(sv.ann.get(560), dtype=np.float32), new, atol=1e-3)
    assert int(sv.ann_search(new, 1, None)[0][0]) == 560


def test_bulk_import_keeps_the_index_and_a_reopen_takes_the_saved_file_as_it_is(tmp_path, monkeypatch):
    db = tmp_path / "bulk.db"
    s = Settings(ann_threshold=500)
    n = 3000
    texts = [f"note {i}: the {['red', 'blue', 'green'][i % 3]} kite number k{i} flew over hill h{i % 17}"
             for i in range(n)]
    with Memory(str(db), embedder="hash", llm=None, settings=s) as m:
        vecs = _unit(n, m.embedder.dim)
        m.add_many(texts, user_id="u", vectors=vecs, enrich="later")
        key = (m.tenant, "u")
        sv = m.store.vectors._items[key]
        assert sv.ann is not None and sv.size == n and len(sv.ann) == n and sv.queued == 0  # kept through the load
        scope = Scope(tenant=m.tenant, user_id="u")
        top = m.store.dense_search(scope, vecs[2999], 1, None)  # found whether or not it is in the graph yet
        assert m.get(top[0][0]).text == texts[2999] and top[0][1] == pytest.approx(1.0, abs=1e-5)
    info = __import__("json").loads(next((tmp_path / "bulk.db.vec").glob("*.json")).read_text())
    assert info["size"] == n  # saved complete on close
    calls: list[str] = []
    monkeypatch.setattr(vector_delta, "reconcile", lambda idx, sv: calls.append("reconcile") or 0)
    real_index_rows = ScopeVectors.index_rows
    monkeypatch.setattr(ScopeVectors, "index_rows", lambda self, *a, **k: calls.append("insert")
                        or real_index_rows(self, *a, **k))
    with Memory(str(db), embedder="hash", llm=None, settings=s) as m:
        loads = []
        real_load = m.store._load_scope
        m.store._load_scope = lambda *a: loads.append(a) or real_load(*a)
        top = m.store.dense_search(Scope(tenant=m.tenant, user_id="u"), vecs[1234], 1, None)
        sv = m.store.vectors._items[(m.tenant, "u")]
        assert m.get(top[0][0]).text == texts[1234] and top[0][1] == pytest.approx(1.0, abs=1e-5)
        # restored as saved: the vectors and ids from the saved scope (no read of the table), the index mapped
        assert calls == [] and loads == [] and sv.queued == 0 and len(sv.ann) == sv.size == n
        assert sv.ann_view is not None and isinstance(sv._m, np.memmap)
        assert sorted(sv._keys[: sv.n].tolist()) == sorted(x.id for x in m.get_all(user_id="u", limit=n + 10))
        v = _unit(1, m.embedder.dim, seed=11)
        m.add_many(["a kite that came later"], user_id="u", vectors=v, enrich="later")  # the mapped index: loaded
        assert sv.ann_view is None and len(sv.ann) == n + 1
        top = m.store.dense_search(Scope(tenant=m.tenant, user_id="u"), v[0], 1, None)
        assert m.get(top[0][0]).text == "a kite that came later"
    calls.clear()
    with Memory(str(db), embedder="hash", llm=None, settings=s) as m:  # its delta appended on close, replayed
        top = m.store.dense_search(Scope(tenant=m.tenant, user_id="u"), v[0], 1, None)
        sv = m.store.vectors._items[(m.tenant, "u")]
        assert m.get(top[0][0]).text == "a kite that came later" and sv.ann_view is not None
        # the saved graph as it was (n rows, mapped); the delta's row searched exactly beside it
        assert len(sv.ann) == n and sv.size == n + 1 and sv.queued == 1 and calls == []
    assert len(list((tmp_path / "bulk.db.vec").glob("*.mat.npy"))) == 1  # one vectors file: the base's + delta


def test_bulk_import_returns_with_the_keyword_index_current(tmp_path, monkeypatch):
    from anchormem.stores.keyword_index import KeywordIndex

    texts = [f"note {i}: the {['red', 'blue', 'green'][i % 3]} kite k{i} flew over hill h{i % 17}" for i in range(1200)]
    with Memory(str(tmp_path / "kw.db"), embedder="hash", llm=None) as m:
        m.add_many(texts, user_id="u", enrich="later", batch_size=300)
        kw = m.store.keywords
        head = KeywordIndex._head_sql_read(m.store._read)
        assert head > 0 and kw.seq == head  # caught up with every batch's rows on return, before any search
        applied: list[int] = []
        real = KeywordIndex._add
        monkeypatch.setattr(KeywordIndex, "_add", lambda self, rows: applied.append(len(rows)) or real(self, rows))
        scope = Scope(tenant=m.tenant, user_id="u")
        got = m.store.keyword_search(scope, ["k777"], 3, None)
        assert applied == [] and [m.get(i).text for i, _ in got] == [texts[777]]  # nothing left to apply
