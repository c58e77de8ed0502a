"""Session-aware ordering (anchormem.retrieval.sessions): spread and lift on hand-made hit lists, and through
Memory.search with a recipe that turns them on."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.embedders.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.retrieval.config import RECIPES, SearchConfig, recipe
from anchormem.retrieval.sessions import lift, session_key, spread
from anchormem.types import Hit, MemoryItem

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)


def _hit(mid: str, score: float, day: int, session_id: str | None = None) -> Hit:
    when = T0 + timedelta(days=day)
    item = MemoryItem(id=mid, text=mid, user_id="u", created_at=when, valid_from=when, session_id=session_id)
    return Hit(memory=item, score=score, explain={"final": score})


def test_session_key_prefers_session_id_then_day():
    assert session_key(_hit("a", 1.0, 0, "chat-7").memory) == "s:chat-7"
    assert session_key(_hit("b", 1.0, 2).memory) == "d:2023-05-10"


def test_spread_lets_another_session_in():
    hits = [_hit("a1", 1.0, 0), _hit("a2", 0.95, 0), _hit("a3", 0.9, 0), _hit("b1", 0.8, 1), _hit("c1", 0.7, 2)]
    # place 2: a2 competes at 0.95·0.8 = 0.76 < b1 0.8; place 3: a2 0.76 > a3 0.72 and c1 0.7; place 4: c1 0.7 >
    # a3 0.9·0.8² = 0.576; past the spread places the rest keep their order
    assert [h.memory.id for h in spread(hits, 0.8, 4)] == ["a1", "b1", "a2", "c1", "a3"]
    assert [h.memory.id for h in spread(hits, 0.8, 3)] == ["a1", "b1", "a2", "a3", "c1"]
    assert hits[1].explain["session_spread"] == pytest.approx(0.8)
    assert [h.score for h in spread(hits, 0.8, 3)][:2] == [1.0, 0.8]  # scores left as they were


def test_spread_off_and_one_session_keep_order():
    hits = [_hit("a1", 1.0, 0), _hit("a2", 0.5, 0), _hit("a3", 0.4, 0)]
    assert spread(hits, 1.0, 10) is hits
    assert [h.memory.id for h in spread(hits, 0.5, 10)] == ["a1", "a2", "a3"]


def test_lift_moves_a_turn_of_the_strong_session_up():
    hits = [_hit("a1", 1.0, 0), _hit("a2", 0.9, 0), _hit("b1", 0.5, 1), _hit("a3", 0.45, 0)]
    out = lift(hits, 0.5, turns=2)
    # session a: mean(1.0, 0.9) = 0.95 → a3 0.45·1.475 = 0.664; session b: 0.5/2 = 0.25 → b1 0.5·1.125 = 0.5625
    assert [h.memory.id for h in out] == ["a1", "a2", "a3", "b1"]
    assert out[2].score == pytest.approx(0.45 * 1.475)
    assert out[3].explain["session_lift"] == pytest.approx(0.25)


def test_config_bounds():
    with pytest.raises(ConfigError):
        recipe(SearchConfig().model_copy(update={"session_spread": 0.0}))
    assert RECIPES["hybrid_rrf"].session_lift == 0.0 and RECIPES["hybrid_rrf"].session_spread == 1.0


def test_search_spreads_over_sessions():
    m = Memory(":memory:", embedder=HashEmbedder(dim=256))
    try:
        m.add([{"role": "user", "content": t, "name": "Mel"} for t in
               ("We went camping at the lake", "Camping at the lake was cold", "The lake camping trip was fun")],
              user_id="u", timestamp=T0)
        m.add([{"role": "user", "content": "We went camping in the forest", "name": "Mel"}], user_id="u",
              timestamp=T0 + timedelta(days=30))
        plain = [h.memory.text for h in m.search("camping lake forest", user_id="u", limit=2, recipe="hybrid_rrf")]
        cfg = SearchConfig(**{**RECIPES["hybrid_rrf"].model_dump(), "session_spread": 0.5, "name": "spread"})
        spreadout = [h.memory.text for h in m.search("camping lake forest", user_id="u", limit=2, recipe=cfg)]
    finally:
        m.close()
    assert "We went camping in the forest" in spreadout
    assert len({t for t in plain if "lake" in t}) >= 1
