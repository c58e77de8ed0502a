"""A search without anchoring reads candidate rows only until its top is settled (:mod:`anchormem.retrieval.bounded`),
and returns what reading every candidate returns; the rowid map of a scope survives the store's own writes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.retrieval.bounded import BoundedFeed, applies, factor_range
from anchormem.retrieval.config import RECIPES
from anchormem.testing import DeterministicEmbedder, frozen_clock
from anchormem.types import Scope

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _store(tmp_path, n: int = 120) -> Memory:
    mem = Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(32), llm=None, cache=False)
    for i in range(n):
        with frozen_clock(T0 + timedelta(hours=i)):
            mem.add(f"The garden bees of hive {i} made honey {i % 7} times this spring.", user_id="u")
    return mem


@pytest.mark.parametrize("recipe", ["dense", "hybrid_rrf", "bm25"])
def test_bounded_reads_return_what_reading_every_candidate_returns(tmp_path, monkeypatch, recipe):
    mem = _store(tmp_path)
    reads: list[int] = []  # rows read (their rank columns: .stores.rank_rows), call by call
    rank_rows = mem.store.rank_rows

    def counted(scope, ids):
        reads.append(len(ids))
        return rank_rows(scope, ids)

    monkeypatch.setattr(mem.store, "rank_rows", counted)
    cfg = RECIPES[recipe].model_copy(update={"track_access": False})
    with frozen_clock(T0 + timedelta(days=30)):
        bounded = [(h.memory.id, h.score, h.explain) for h in
                   mem.search("garden bees hive honey", user_id="u", limit=5, recipe=cfg)]
    read_bounded = list(reads)
    reads.clear()
    monkeypatch.setattr("anchormem.retrieval.search.applies", lambda *a, **k: False)  # every candidate read
    with frozen_clock(T0 + timedelta(days=30)):
        full = [(h.memory.id, h.score, h.explain) for h in
                mem.search("garden bees hive honey", user_id="u", limit=5, recipe=cfg)]
    assert len(bounded) == 5 and bounded == full
    assert reads == [100]  # the top-100 cut of max(5 * limit, 100) candidates
    assert read_bounded == [20]  # the first chunk: 2 * limit, at least 20


def test_factor_range_bounds_every_weight():
    lo, hi = factor_range(RECIPES["hybrid_rrf"], window=False)
    assert lo == pytest.approx(0.9 * 0.9 * 0.8) and hi == 1.0
    lo, hi = factor_range(RECIPES["hybrid_rrf"], window=True)
    assert hi == pytest.approx(1.5)
    lo, _ = factor_range(RECIPES["anchored"], window=False)
    assert lo == pytest.approx(0.9 * 0.9 * 0.8 * 0.5)  # ask_weight 0.5


def test_applies_only_without_whole_list_steps():
    assert applies(RECIPES["dense"], anchored=False, past=False, recap=False)
    assert not applies(RECIPES["dense"], anchored=True, past=False, recap=False)
    assert not applies(RECIPES["dense"], anchored=False, past=True, recap=False)
    assert not applies(RECIPES["dense"], anchored=False, past=False, recap=True)
    assert not applies(RECIPES["anchored"], anchored=False, past=False, recap=False)  # session weights
    assert not applies(RECIPES["dense"].model_copy(update={"neighbours": 1}), anchored=False, past=False, recap=False)


class _M:
    def __init__(self, i: int, kind: str = "utterance", src: str | None = None) -> None:
        self.id, self.kind, self.valid_to, self.claims = f"m{i}", kind, None, []
        self.created_at, self.source_message_ids = T0, [src or f"t{i}"]


class _H:
    def __init__(self, i: int, score: float, **kw) -> None:
        self.memory, self.score = _M(i, **kw), score


def test_settled_refuses_what_later_steps_could_change():
    def feed(hits):
        return BoundedFeed({}, limit=2, hits=hits, factors=(0.5, 1.0), load=lambda ids: {})

    assert feed([_H(1, 0.9), _H(2, 0.8)]).settled(0.5)
    assert not feed([_H(1, 0.9), _H(2, 0.8)]).settled(0.8)  # a tie at the bound may rank first
    assert not feed([_H(1, 0.9)]).settled(0.1)  # fewer than limit
    assert not feed([_H(1, 0.9, kind="fact"), _H(2, 0.8)]).settled(0.5)  # its unread utterance may replace it
    assert not feed([_H(1, 0.9, src="t"), _H(2, 0.8, src="t")]).settled(0.5)  # one turn: collapse may drop one
    assert feed([]).upper(-1.0) == -0.5 and feed([]).upper(2.0) == 2.0


def test_row_id_map_survives_own_writes(tmp_path):
    mem = _store(tmp_path, n=5)
    scope = Scope(tenant=mem.tenant, user_id="u")
    with frozen_clock(T0 + timedelta(days=1)):
        mem.search("bees", user_id="u", limit=3, recipe="dense")  # loads the vectors: the map holds every row
        gen, ids = mem.store._rowid_ids[(scope.tenant, scope.user_id)]
        assert len(ids) == 5 and gen == mem.store._generation(scope.tenant, scope.user_id)
        mem.add("The bees swarmed on Tuesday.", user_id="u")
        gen2, ids2 = mem.store._rowid_ids[(scope.tenant, scope.user_id)]
        assert gen2 == gen + 1 == mem.store._generation(scope.tenant, scope.user_id) and ids2 is ids
        mem.delete(next(iter(ids.values())))  # a delete frees a rowid: the map starts over
        got = mem.store._rowid_ids.get((scope.tenant, scope.user_id))
        assert got is None or got[0] != mem.store._generation(scope.tenant, scope.user_id) or not got[1]
        hits = mem.search("bees swarmed Tuesday", user_id="u", limit=3, recipe="dense")
    assert {h.memory.id for h in hits} <= {m.id for m in mem.get_all(user_id="u")}
