"""The SQLite vector cache keeps context vectors in step with the table: an anchored search's
``get_many_with_context`` returns what ``get_context_vectors`` reads from the database, after every kind of write
(new turns refreshing earlier ones, ``set_context_vectors``, a text edit, another process's write)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from anchormem import Memory
from anchormem.retrieval.config import RECIPES
from anchormem.testing import DeterministicEmbedder

DIM = 32
T0 = datetime(2024, 5, 1, 9, 0, tzinfo=timezone.utc)


def _turns(*texts, start=0):
    return [{"role": "user", "content": t, "timestamp": T0 + timedelta(minutes=start + i)}
            for i, t in enumerate(texts)]


def _same_as_table(mem, ids):
    items, ctx = mem.store.get_many_with_context(mem.tenant, ids)
    stored = mem.store.get_context_vectors(mem.tenant, ids)
    assert set(items) == set(ids)
    assert set(ctx) == set(stored)
    for mid in stored:
        np.testing.assert_array_equal(ctx[mid], stored[mid])
    return ctx


def _cached(mem, ids):
    """(ids the vector cache serves a context vector for, ids it does not know), or None when not cached."""
    st, key = mem.store, (mem.tenant, "u")
    rows = st._read(f"SELECT rowid, id FROM memories WHERE id IN ({','.join('?' * len(ids))})", ids)
    rowid = {mid: rid for rid, mid in rows}
    got = st.vectors.contexts(key, st._generation(*key), [rowid[m] for m in ids], lambda: st._load_scope_contexts(*key))
    if got is None:
        return None
    back = {rid: mid for mid, rid in rowid.items()}
    return [back[r] for r in got[0]], [back[r] for r in got[2]]


def test_cached_context_vectors_follow_every_write(tmp_path):
    path = str(tmp_path / "ctx.db")
    with Memory(path, embedder=DeterministicEmbedder(DIM), cache=False) as mem:
        ids = [e.memory.id for e in mem.add(_turns("The orchard has forty apple trees.",
                                                   "We prune them every February."), user_id="u", session_id="s")]
        mem.search("apple trees", user_id="u", context=["We grow fruit."], recipe="anchored")
        sv = mem.store.vectors._items[(mem.tenant, "u")]
        assert sv._ctx is not None  # the anchored search attached the scope's context vectors
        assert _cached(mem, ids) == (ids, [])
        _same_as_table(mem, ids)
        # new turns refresh the earlier turns' context vectors in the same write
        ids += [e.memory.id for e in mem.add(_turns("The cider press is in the barn.", start=2), user_id="u",
                                             session_id="s")]
        _same_as_table(mem, ids)
        # replaced by id; one memory without a context vector at all
        rng = np.random.default_rng(0)
        mem.store.set_context_vectors(mem.tenant, {ids[0]: rng.standard_normal(DIM).astype(np.float32)})
        assert _cached(mem, ids) == (ids, [])  # kept in step, not dropped
        _same_as_table(mem, ids)
        with mem.store._tx() as c:  # a NULL, as for memories written before schema v5
            c.execute("UPDATE memories SET context_vec=NULL WHERE id=?", (ids[1],))
            mem.store._bump(c, mem.tenant, "u")
        assert ids[1] not in _same_as_table(mem, ids)  # the generation moved without the cache: read again
        mem.search("apple trees", user_id="u", context=["We grow fruit."], recipe="anchored")  # reloaded
        assert _cached(mem, ids)[0] == ids[:1] + ids[2:] and ids[1] not in _same_as_table(mem, ids)
        # a text edit re-adds the row to the cache without its context vector: read from the table
        mem.update(ids[2], "The cider press moved to the shed.")
        assert _cached(mem, ids) == (ids[:1], ids[2:])
        assert ids[2] in _same_as_table(mem, ids)
        # another process writes: this one's cache is behind and the table answers
        with Memory(path, embedder=DeterministicEmbedder(DIM), cache=False) as other:
            other.store.set_context_vectors(other.tenant, {ids[2]: np.ones(DIM, np.float32)})
        np.testing.assert_array_equal(_same_as_table(mem, ids)[ids[2]], np.ones(DIM, np.float32))
        # the gate off (every anchored search reorders), so the context vectors are read
        always = RECIPES["anchored"].model_copy(update={"anchor_gate": False})
        hits = mem.search("cider press", user_id="u", context=["Apples in autumn."], recipe=always, limit=3)
        assert hits and all("context_sim" in h.explain["anchor"] for h in hits)
