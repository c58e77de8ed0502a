"""Session then turn (anchormem.retrieval.sessions): weigh on hand-made hit lists, and through Memory.search."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.embedders.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.retrieval.config import RECIPES, SearchConfig, recipe
from anchormem.retrieval.sessions import session_key, weigh
from anchormem.types import Hit, MemoryItem

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)


def _hit(mid: str, score: float, day: int, session_id: str | None = None) -> Hit:
    when = T0 + timedelta(days=day)
    item = MemoryItem(id=mid, text=mid, user_id="u", created_at=when, valid_from=when, session_id=session_id)
    return Hit(memory=item, score=score, explain={"final": score})


def test_session_key_prefers_session_id_then_day():
    assert session_key(_hit("a", 1.0, 0, "chat-7").memory) == "s:chat-7"
    assert session_key(_hit("b", 1.0, 2).memory) == "d:2023-05-10"
    # same day, other session ids: two sessions
    assert session_key(_hit("c", 1.0, 0, "chat-8").memory) != session_key(_hit("a", 1.0, 0, "chat-7").memory)


def test_weigh_puts_the_best_sessions_turns_first():
    hits = [_hit("a1", 1.0, 0), _hit("b1", 0.5, 1), _hit("b2", 0.45, 1), _hit("a2", 0.4, 0), _hit("c1", 0.3, 2)]
    out = weigh(hits, 1.0)
    # s: a = 1.0, b = 0.5, c = 0.3 → a2 0.4, b1 0.25, b2 0.225, c1 0.09
    assert [h.memory.id for h in out] == ["a1", "a2", "b1", "b2", "c1"]
    assert [round(h.score, 4) for h in out] == [1.0, 0.4, 0.25, 0.225, 0.09]
    assert out[2].explain["session"] == pytest.approx(0.5) and out[2].explain["final"] == pytest.approx(0.25)


def test_weigh_exponent_and_off():
    hits = [_hit("a1", 1.0, 0), _hit("b1", 0.5, 1), _hit("a2", 0.3, 0)]
    assert weigh(hits, 0.0) is hits
    out = weigh([_hit("a1", 1.0, 0), _hit("b1", 0.5, 1), _hit("a2", 0.3, 0)], 2.0)
    assert [(h.memory.id, round(h.score, 4)) for h in out] == [("a1", 1.0), ("a2", 0.3), ("b1", 0.125)]
    # one session only: every s is 1, order and scores unchanged
    same = weigh([_hit("x", 0.9, 0), _hit("y", 0.2, 0)], 1.0)
    assert [(h.memory.id, h.score) for h in same] == [("x", 0.9), ("y", 0.2)]
    assert weigh([], 1.0) == []


def test_config_bounds_and_recipes():
    with pytest.raises(ConfigError):
        recipe(SearchConfig().model_copy(update={"session_weight": -1.0}))
    assert RECIPES["hybrid_rrf"].session_weight == 0.0 and RECIPES["bm25"].session_weight == 0.0
    assert RECIPES["anchored"].session_weight == 1.0


def test_search_ranks_a_weak_turn_of_the_matching_session_up():
    m = Memory(":memory:", embedder=HashEmbedder(dim=256))
    try:
        m.add([{"role": "user", "content": "We went camping at the lake with the kids", "name": "Mel"},
               {"role": "user", "content": "It rained the whole night", "name": "Mel"}],
              user_id="u", timestamp=T0, session_id="trip")
        m.add([{"role": "user", "content": "My neighbour says the rain will stop at night", "name": "Mel"}],
              user_id="u", timestamp=T0 + timedelta(days=30), session_id="garden")
        q = "camping at the lake, rain at night"
        base = SearchConfig(**{**RECIPES["hybrid_rrf"].model_dump(), "track_access": False})
        plain = m.search(q, user_id="u", limit=3, recipe=base)
        cfg = SearchConfig(**{**base.model_dump(), "session_weight": 1.0, "name": "sessions"})
        weighed = m.search(q, user_id="u", limit=3, recipe=cfg)
    finally:
        m.close()
    # turn by turn, the garden turn ("rain", "night") is second; weighed, the trip's weak turn comes before it
    assert [h.memory.session_id for h in plain] == ["trip", "garden", "trip"]
    assert weighed[0].memory.id == plain[0].memory.id
    assert [h.memory.session_id for h in weighed] == ["trip", "trip", "garden"]
    assert weighed[1].explain["session"] == pytest.approx(1.0)
    assert 0 < weighed[2].explain["session"] < 1
