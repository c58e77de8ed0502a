"""A search ranks its candidates on their rank columns (:mod:`anchormem.stores.rank_rows`) and reads whole rows for
the hits it returns only: the same hits as reading every candidate whole; kept rows follow writes and touches."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.retrieval.config import DEFAULT_RECIPE, RECIPES
from anchormem.stores.rank_rows import RANK_COLUMNS, RankRow
from anchormem.testing import DeterministicEmbedder, frozen_clock
from anchormem.types import Label, MemoryItem, Scope

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
TEXTS = ["I live in Lisbon and I work as a nurse at the city hospital.", "My sister Ana plays the cello.",
         "We planted tomatoes in the garden last weekend.", "I moved to Berlin.",
         "The garden tomatoes are ripe now, Ana wants some.", "My apple shares went up this week.",
         "I ate an apple pie at the bakery near the hospital."]


def _store(tmp_path) -> Memory:
    mem = Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(32), llm=None, cache=False)
    for i, text in enumerate(TEXTS):
        with frozen_clock(T0 + timedelta(hours=i)):
            mem.add(text, user_id="u", session_id=f"s{i // 3}")
    return mem


def test_a_rank_row_holds_the_fields_of_the_stored_memory(tmp_path):
    mem = _store(tmp_path)
    scope = Scope(tenant=mem.tenant, user_id="u")
    items = {m.id: m for m in mem.store.list_memories(scope, None, include_superseded=True)}
    assert len(items) >= len(TEXTS)
    rows = mem.store.rank_rows(scope, list(items))
    assert list(rows) == sorted(items)  # by id, as get_many orders them
    assert any(m.claims for m in items.values()) and any(m.labels for m in items.values())
    for mid, row in rows.items():
        item = items[mid]
        assert isinstance(row, RankRow)
        for name in (*RANK_COLUMNS, "claims", "current", "state"):
            value = getattr(row, name)
            assert (list(value) if isinstance(value, tuple) else value) == getattr(item, name), name
        assert isinstance(row.labels, tuple) and isinstance(row.claims, tuple)  # no list the collector tracks
        assert row.entities == ()
        with pytest.raises(AttributeError):
            row.metadata  # noqa: B018 - never read by the ranking: not held
    whole = mem.store.whole_rows(scope.tenant, list(rows.values()))  # the returned hits' items, read from the rows
    assert whole == mem.store.get_many(scope.tenant, list(items)) == items
    assert any(m.entities for m in whole.values())
    first = next(m for m in whole.values() if m.labels)
    assert first.labels[0] is not rows[first.id].labels[0]  # a copy: the caller may change it


def test_kept_rows_follow_touches_writes_and_purges(tmp_path):
    mem = _store(tmp_path)
    scope = Scope(tenant=mem.tenant, user_id="u")
    ids = sorted(m.id for m in mem.store.list_memories(scope, None))
    first = mem.store.rank_rows(scope, ids)  # read by id, kept by rowid (and the rowids remembered)
    kept = mem.store._rank_cache[(scope.tenant, "u")][1]  # noqa: SLF001 - kept for this generation
    assert sorted(r[0] for r in kept.values()) == ids
    reads: list[str] = []
    mem.store._conn().set_trace_callback(reads.append)  # noqa: SLF001
    assert mem.store.rank_rows(scope, ids) == first  # the kept rows: only ids and access counts read
    mem.store._conn().set_trace_callback(None)  # noqa: SLF001
    assert [q.split(" FROM")[0] for q in reads if "FROM memories" in q] == ["SELECT rowid, id, access_count"]
    mem.store.touch(scope.tenant, ids[:2], T0 + timedelta(days=1))  # no new generation: counts read fresh
    again = mem.store.rank_rows(scope, ids)
    assert [again[i].access_count for i in ids[:3]] == [first[ids[0]].access_count + 1,
                                                         first[ids[1]].access_count + 1, first[ids[2]].access_count]
    mem.store.set_labels(scope.tenant, {ids[0]: [Label(domain="finance")]})  # a write: the rows are read again
    assert [lb.domain for lb in mem.store.rank_rows(scope, ids)[ids[0]].labels] == ["finance"]
    mem.delete_all(user_id="u", purge=True)
    assert (scope.tenant, "u") not in mem.store._rank_cache  # noqa: SLF001 - nothing of the purged rows stays
    assert mem.store.rank_rows(scope, ids) == {}


@pytest.mark.parametrize("query", ["Where do I live?", "garden tomatoes Ana", "apple", "hospital nurse"])
def test_a_search_on_rank_rows_returns_what_reading_every_candidate_whole_returns(tmp_path, monkeypatch, query):
    mem = _store(tmp_path)
    cfg = RECIPES[DEFAULT_RECIPE].model_copy(update={"track_access": False})  # both searches read the same counts

    def hits() -> list[tuple]:
        with frozen_clock(T0 + timedelta(days=3)):
            got = mem.search(query, user_id="u", limit=4, recipe=cfg)
        assert got and all(isinstance(h.memory, MemoryItem) for h in got)  # whole rows, entities included
        return [(h.memory.model_dump(), h.score, h.explain) for h in got]

    calls: list[int] = []
    rank_rows = mem.store.rank_rows
    monkeypatch.setattr(mem.store, "rank_rows", lambda scope, ids: calls.append(len(ids)) or rank_rows(scope, ids))
    ranked = hits()
    assert calls and calls[0] >= 4  # the candidates were ranked on their rank columns
    monkeypatch.setattr(mem.store, "rank_rows", None)  # a store without the narrow read: every candidate whole
    assert ranked == hits()


def test_rank_rows_are_kept_for_a_bounded_number_of_scopes(tmp_path, monkeypatch):
    mem = Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(32), llm=None, cache=False)
    monkeypatch.setattr(type(mem.store), "_RANK_SCOPES", 2)
    for user in ("a", "b", "c"):
        with frozen_clock(T0):
            mem.add(f"{user} planted tomatoes in the garden.", user_id=user)
        scope = Scope(tenant=mem.tenant, user_id=user)
        ids = [m.id for m in mem.store.list_memories(scope, None)]
        assert [r.user_id for r in mem.store.rank_rows(scope, ids).values()] == [user]
    assert list(mem.store._rank_cache) == [(mem.tenant, "b"), (mem.tenant, "c")]  # noqa: SLF001 - "a" dropped
