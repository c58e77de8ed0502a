"""Context vectors (schema v5) on every backend: written with a memory, replaced by id, refreshed when a session
goes on, rebuilt by relabel, checked for dimension; and the v4 → v5 upgrade of an existing SQLite file."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import numpy as np
import pytest

from anchormem import InvalidInputError, Memory
from anchormem.context.anchor import context_vectors
from anchormem.retrieval.config import RECIPES, SearchConfig
from anchormem.testing import DeterministicEmbedder

from .conftest import DIM
from .test_contract import T0, make, put, scope, texts


def _vec(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


def test_context_vectors_write_read_replace_and_check(store, embed):
    a, b = make(embed, "I keep bees on the roof."), make(embed, "The hives are painted blue.")
    a.context_vector = _vec(1)
    ids = put(store, a, b)
    got = store.get_context_vectors("default", [*ids, "missing"])
    assert list(got) == [ids[0]] and got[ids[0]].dtype == np.float32 and got[ids[0]].shape == (DIM,)
    np.testing.assert_array_equal(got[ids[0]], _vec(1))
    gen = store.scope_generation("default", "alice")
    assert store.set_context_vectors("default", {ids[1]: _vec(2), "missing": _vec(3)}) == 1
    assert store.scope_generation("default", "alice") > gen  # anchored rankings change: cached searches go
    np.testing.assert_array_equal(store.get_context_vectors("default", [ids[1]])[ids[1]], _vec(2))
    assert store.set_context_vectors("default", {}) == 0
    assert store.get_context_vectors("other-tenant", ids) == {}
    with pytest.raises(InvalidInputError, match="dimension 5"):
        store.set_context_vectors("default", {ids[0]: np.ones(5, np.float32), ids[1]: _vec(4)})
    with pytest.raises(InvalidInputError, match="non-finite"):
        store.set_context_vectors("default", {ids[0]: np.full(DIM, np.nan, np.float32)})
    np.testing.assert_array_equal(store.get_context_vectors("default", [ids[1]])[ids[1]], _vec(2))  # unchanged
    c = make(embed, "Honey comes in late summer.")
    c.context_vector = np.ones(3, np.float32)
    with pytest.raises(InvalidInputError, match="dimension 3"):
        put(store, c)
    d = make(embed, "Honey comes in late summer.")
    with pytest.raises(InvalidInputError, match="dimension 2"):
        store.write([], [d], actor="test", context_updates={ids[0]: np.ones(2, np.float32)})
    assert texts(store.list_memories(scope(), None)) == ["I keep bees on the roof.", "The hives are painted blue."]
    # context_updates land in the write's transaction, with the new memory
    put_ids = [r.item.id for r in store.write([], [d], actor="test", context_updates={ids[0]: _vec(5)})]
    assert len(put_ids) == 1
    np.testing.assert_array_equal(store.get_context_vectors("default", [ids[0]])[ids[0]], _vec(5))


def test_add_stores_context_vectors_and_refreshes_the_previous_turns(backend):
    mem = backend.memory()
    turns = ["The orchard has forty apple trees.", "We prune them every February.",
             "The cider press is in the barn.", "Last year we pressed 300 litres."]
    ev = mem.add([{"role": "user", "content": t, "timestamp": T0 + timedelta(minutes=i)}
                  for i, t in enumerate(turns[:3])], user_id="u", session_id="s")
    ids = [e.memory.id for e in ev]
    assert [e.memory.text for e in ev] == turns[:3]
    vecs = mem.store.get_vectors(mem.tenant, ids)
    mat = np.vstack([vecs[i] for i in ids])
    want = context_vectors(mat)
    got = mem.store.get_context_vectors(mem.tenant, ids)
    for i, mid in enumerate(ids):
        np.testing.assert_allclose(got[mid], want[i], atol=1e-6)
    assert not np.allclose(want[0], mat[0])  # the neighbours count
    # the session goes on: the three earlier turns now have the new one after them
    ev4 = mem.add([{"role": "user", "content": turns[3], "timestamp": T0 + timedelta(minutes=3)}],
                  user_id="u", session_id="s")
    ids4 = ids + [ev4[0].memory.id]
    vecs = mem.store.get_vectors(mem.tenant, ids4)
    want = context_vectors(np.vstack([vecs[i] for i in ids4]))
    got = mem.store.get_context_vectors(mem.tenant, ids4)
    for i, mid in enumerate(ids4):
        np.testing.assert_allclose(got[mid], want[i], atol=1e-6)
    # relabel rebuilds them (here from garbage) session by session
    mem.store.set_context_vectors(mem.tenant, {mid: _vec(9) for mid in ids4})
    assert mem.relabel("u") == 4
    got = mem.store.get_context_vectors(mem.tenant, ids4)
    for i, mid in enumerate(ids4):
        np.testing.assert_allclose(got[mid], want[i], atol=1e-6)
    # an anchored search with a conversation explains the context match (the gate off: nothing here is ambiguous,
    # so the default would keep the hybrid order); without one, no context factor
    ungated = SearchConfig(**{**RECIPES["anchored"].model_dump(), "anchor_gate": False})
    hits = mem.search("apple trees", user_id="u", context=["We grow fruit."], recipe=ungated, limit=2)
    assert all(isinstance(h.explain["anchor"]["context_sim"], float) for h in hits)
    hits = mem.search("apple trees", user_id="u", recipe="anchored", limit=2)
    assert "context_sim" not in hits[0].explain["anchor"]


def test_a_v4_sqlite_file_upgrades_and_old_memories_rank_neutral(tmp_path):
    from anchormem.stores.migrations import MIGRATIONS

    path = tmp_path / "old.db"
    with Memory(str(path), embedder=DeterministicEmbedder(DIM)) as mem:
        mem.add([{"role": "user", "content": "The lighthouse keeper logs the ships."}], user_id="u")
    con = sqlite3.connect(path)  # back to a v4 file: no context_vec column
    con.execute("ALTER TABLE memories DROP COLUMN context_vec")
    con.execute("DROP TABLE claims")  # and what v6 added (claims, past entities, history old_state)
    con.execute("DROP TABLE memory_entities_past")
    con.execute("DROP TABLE memory_sessions")
    con.execute("ALTER TABLE memory_history DROP COLUMN old_state")
    for name in ("keyword_log_ins", "keyword_log_del", "keyword_log_upd"):  # and v7's keyword log, event index
        con.execute(f"DROP TRIGGER {name}")
    con.execute("DROP TABLE keyword_log")
    con.execute("DROP INDEX ix_mem_event")
    con.execute("DROP TABLE enrich_queue")  # and v9's enrichment queue
    con.execute("DROP INDEX ix_mem_kind")  # and v10's index of current rows by kind
    con.execute("PRAGMA user_version = 4")
    con.commit()
    con.close()
    assert MIGRATIONS[-1][0] == 10
    with Memory(str(path), embedder=DeterministicEmbedder(DIM)) as mem:
        assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 10
        mid = mem.get_all(user_id="u")[0].id
        assert mem.store.get_context_vectors(mem.tenant, [mid]) == {}
        ungated = SearchConfig(**{**RECIPES["anchored"].model_dump(), "anchor_gate": False})
        hits = mem.search("lighthouse ships", user_id="u", context=["Boats at sea."], recipe=ungated)
        assert hits[0].memory.id == mid and hits[0].explain["anchor"]["context_sim"] is None
        assert hits[0].explain["anchor"]["context_factor"] == pytest.approx(1 - 0.97 * 0.5)
        assert mem.relabel("u") == 1 and list(mem.store.get_context_vectors(mem.tenant, [mid])) == [mid]


def test_get_many_with_context_is_get_many_plus_context_vectors(store, embed):
    a, b = make(embed, "The kiln fires at 1200 degrees."), make(embed, "Glazes go on after the bisque firing.")
    a.context_vector = _vec(7)
    ids = put(store, a, b)
    items, ctx = store.get_many_with_context("default", [*ids, "missing"])
    assert items == store.get_many("default", ids) and set(items) == set(ids)
    assert list(ctx) == [ids[0]]
    np.testing.assert_array_equal(ctx[ids[0]], _vec(7))
    assert store.get_many_with_context("default", []) == ({}, {})



def test_recent_labels_are_those_of_recent_memories_newest_first(store, embed):
    from anchormem.types import Label

    fin, nat = [Label(domain="finance", score=1.0, primary=True)], \
        [Label(domain="nature", score=1.0, primary=True), Label(domain="travel", score=0.4)]
    put(store, make(embed, "The bank raised my savings rate.", session="s1", labels=fin),
        make(embed, "We walked along the river bank.", session="s2", labels=nat, at=T0 + timedelta(minutes=5)),
        make(embed, "Old note.", session="s0", at=T0 - timedelta(days=1)),
        make(embed, "Another user's note.", user="bob", session="s9", labels=fin, at=T0 + timedelta(hours=1)))
    got = store.recent_labels(scope(), 2)
    assert [(sid, [(lab.domain, lab.score, lab.primary) for lab in labs]) for sid, labs in got] == [
        ("s2", [("nature", 1.0, True), ("travel", 0.4, False)]), ("s1", [("finance", 1.0, True)])]
    assert got == [(it.session_id, it.labels) for it in store.recent_memories(scope(), 2)]
    assert [sid for sid, labs in store.recent_labels(scope(), 10)] == ["s2", "s1", "s0"]
    assert store.recent_labels(scope(), 10)[-1][1] == []
    assert store.recent_labels(scope(user="nobody"), 5) == []
