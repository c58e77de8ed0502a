"""SearchConfig.ask_weight: a memory that only asks ranks below one that states, by that factor."""

from __future__ import annotations

import pytest

from anchormem.retrieval.config import RECIPES, SearchConfig


def _cfg(w: float) -> SearchConfig:
    return SearchConfig(**{**RECIPES["hybrid_rrf"].model_dump(), "ask_weight": w, "track_access": False})


def test_ask_weight_scales_only_asks_only_questions(mem_det):
    asks = mem_det.add("Thanks! Do you have any suggestions for a movie?", user_id="u")[0].memory
    mixed = mem_det.add("I watched a movie yesterday! Have you seen it?", user_id="u")[0].memory
    states = mem_det.add("I loved the movie Inception.", user_id="u")[0].memory
    assert (asks.kind, mixed.kind, states.kind) == ("question", "question", "utterance")
    off = {h.memory.id: h for h in mem_det.search("movie suggestions", user_id="u", recipe=_cfg(1.0), limit=3)}
    on = {h.memory.id: h for h in mem_det.search("movie suggestions", user_id="u", recipe=_cfg(0.5), limit=3)}
    assert off[asks.id].explain["source_weight"] == pytest.approx(0.9)  # source_weights["question"]
    assert on[asks.id].explain["source_weight"] == pytest.approx(0.45)
    assert on[asks.id].score == pytest.approx(off[asks.id].score * 0.5)
    for mid in (mixed.id, states.id):  # a turn that states something keeps its score
        assert on[mid].score == pytest.approx(off[mid].score)
        assert on[mid].explain["source_weight"] == off[mid].explain["source_weight"]


def test_ask_weight_is_bounded():
    with pytest.raises(ValueError):
        SearchConfig(ask_weight=1.5)
