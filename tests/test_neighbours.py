"""Neighbours (anchormem.retrieval.neighbours): the store's adjacency read, and the turns beside a top hit as
candidates through Memory.search."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.embedders.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.retrieval.config import RECIPES, SearchConfig, parse_recipe_spec, recipe

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
TURNS = [("Ann", "What did you do at the weekend?"),
         ("Bob", "We went to the lake with the kids and camped by the water."),
         ("Ann", "Sounds lovely! Did the kids enjoy it?"),
         ("Bob", "They loved the marshmallows most."),
         ("Ann", "I started a pottery class on Monday.")]


def _mem() -> Memory:
    m = Memory(":memory:", embedder=HashEmbedder(dim=256))
    m.add([{"role": "user", "content": c, "name": n, "timestamp": T0} for n, c in TURNS], user_id="u")
    m.add([{"role": "user", "content": "My car broke down on the motorway.", "name": "Ann",
            "timestamp": T0 + timedelta(days=3)}], user_id="u")
    return m


def _ids(m: Memory) -> dict[str, str]:
    return {it.text: it.id for it in m.get_all(user_id="u", limit=100)}


def test_adjacent_memories_in_the_order_said_within_the_session():
    with _mem() as m:
        ids = _ids(m)
        scope = m._scope("u", None, None)
        camped = ids[TURNS[1][1]]
        near = m.store.adjacent_memories(scope, [camped], span=2)
        assert near[camped] == [(ids[TURNS[0][1]], -1), (ids[TURNS[2][1]], 1), (ids[TURNS[3][1]], 2)]
        first = ids[TURNS[0][1]]
        assert m.store.adjacent_memories(scope, [first], span=1)[first] == [(ids[TURNS[1][1]], 1)]
        # another day's turn is another session: no neighbours; unknown ids and span 0 give nothing
        car = ids["My car broke down on the motorway."]
        assert car not in m.store.adjacent_memories(scope, [car], span=3)
        assert m.store.adjacent_memories(scope, ["nope"], span=1) == {}
        assert m.store.adjacent_memories(scope, [camped], span=0) == {}
        # another user's scope sees none of them
        assert m.store.adjacent_memories(m._scope("v", None, None), [camped], span=1) == {}


def test_adjacent_memories_apply_the_filter():
    with _mem() as m:
        ids = _ids(m)
        scope = m._scope("u", None, None)
        from anchormem.filters import parse_filters

        only_bob = parse_filters({"speaker": "Bob"})
        camped = ids[TURNS[1][1]]
        # Ann's turns are filtered out: the nearest turn after is Bob's marshmallows (offset 1 among Bob's turns)
        assert m.store.adjacent_memories(scope, [camped], span=1, where=only_bob)[camped] == [(ids[TURNS[3][1]], 1)]


def test_search_adds_the_turn_beside_the_best_hit():
    with _mem() as m:
        ids = _ids(m)
        q = "Where did Bob go camping by the lake?"
        off = m.search(q, user_id="u", limit=10, recipe="hybrid_rrf")
        cfg = parse_recipe_spec("hybrid_rrf+neighbours=1+neighbour_top=1+neighbour_weight=0.2")
        on = m.search(q, user_id="u", limit=10, recipe=cfg)
        assert on[0].memory.id == off[0].memory.id == ids[TURNS[1][1]]
        beside = {h.memory.id: h for h in on if h.explain.get("neighbour_of") == ids[TURNS[1][1]]}
        # the turn before (the question it answers) and after get 0.2 × the top hit's score added to their own
        assert set(beside) == {ids[TURNS[0][1]], ids[TURNS[2][1]]}
        own = {h.memory.id: h.score for h in off}
        for mid, h in beside.items():
            assert h.explain["neighbour_offset"] in (-1, 1)
            assert h.score > own[mid]
        # the top hit never moves, and nothing is lost
        assert {h.memory.id for h in off} <= {h.memory.id for h in on}


def test_neighbours_off_by_default_and_bounds():
    assert RECIPES["hybrid_rrf"].neighbours == 0
    with pytest.raises(ConfigError):
        recipe(SearchConfig().model_copy(update={"neighbour_weight": 1.5}))
    with pytest.raises(ConfigError):
        parse_recipe_spec("anchored+neighbours=-1")
