"""Fusion pieces: zero-score BM25 hits left out, min-max score fusion, per-query adaptive weights."""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.retrieval.config import RECIPES, SearchConfig
from anchormem.retrieval.fusion import (adaptive_weights, drop_zero, flatness, flatness_weights, minmax, normalised,
                                       peak, rrf)


def test_drop_zero_keeps_scored_hits_and_a_list_with_none():
    assert drop_zero([("a", 3.2), ("b", 1e-6), ("c", 0.0), ("d", 0.4)]) == [("a", 3.2), ("d", 0.4)]
    tiny = [("a", 1e-6), ("b", 1e-6)]  # a store of a few memories: every word is in most of them
    assert drop_zero(tiny) == tiny


def test_minmax_follows_each_lists_score_shape():
    dense = [("a", 0.90), ("b", 0.89), ("c", 0.70)]
    bm25 = [("c", 12.0), ("a", 1.0), ("b", 0.5)]
    out = minmax({"dense": dense, "bm25": bm25}, {"dense": 0.4, "bm25": 0.6}, window=3)
    # dense: a 1.0, b 0.95, c 0; bm25: c 1.0, a 0.0435, b 0 (+ rank tie-breakers of 1e-3 / (10 + rank))
    assert out["c"] == pytest.approx(0.6 + 1e-3 * (0.4 / 13 + 0.6 / 11))
    assert out["a"] == pytest.approx(0.4 + 0.6 * 0.5 / 11.5 + 1e-3 * (0.4 / 11 + 0.6 / 12))
    assert sorted(out, key=lambda d: -out[d]) == ["c", "a", "b"]
    # RRF sees ranks only: a is first in one list and second in the other, so it wins there
    r = rrf({"dense": dense, "bm25": bm25}, {"dense": 0.4, "bm25": 0.6}, 10)
    assert max(r, key=r.get) == "a"
    flat = minmax({"dense": [("x", 0.5)]}, {"dense": 1.0})
    assert flat["x"] == pytest.approx(1.0 + 1e-3 / 11)


def test_adaptive_weights_shift_toward_the_standout_list():
    peaked = [("a", 10.0)] + [(f"p{i}", 1.0) for i in range(19)]
    flat = [(f"d{i}", 0.8 - 0.001 * i) for i in range(20)]
    assert peak([s for _, s in peaked]) == pytest.approx(19 ** 0.5)
    wd, wl, f = adaptive_weights(flat, peaked, 0.4, 0.6)
    assert wl > 0.6 and wd < 0.4 and f["ratio"] > 0.5 and f["overlap"] == 0.0
    assert adaptive_weights(flat, [], 0.4, 0.6)[:2] == (0.4, 0.0)
    wd0, wl0, _ = adaptive_weights(flat, peaked, 0.4, 0.6, strength=0.0)
    assert (wd0, wl0) == (0.4, 0.6)


def test_minmax_recipe_searches_and_explains(tmp_path):
    assert RECIPES["hybrid_minmax"].fusion == "minmax"
    with Memory(str(tmp_path / "m.db"), embedder="hash") as m:
        for t in ("I adopted a cat named Miso.", "The quarterly report is due on Friday.",
                  "My sister moved to Porto.", "Miso likes to sleep on the piano."):
            m.add(t, user_id="u")
        hits = m.search("What is my cat called?", user_id="u", recipe="hybrid_minmax")
        assert "Miso" in hits[0].memory.text and hits[0].explain["fusion"] == "rrf"  # 4 memories < norm_window
        small = SearchConfig(**{**RECIPES["hybrid_minmax"].model_dump(), "norm_window": 3})
        hits = m.search("What is my cat called?", user_id="u", recipe=small)
        assert "Miso" in hits[0].memory.text and hits[0].explain["fusion"] == "minmax"
        anchored = SearchConfig(**{**RECIPES["anchored"].model_dump(), "norm_window": 3})
        assert m.search("Miso", user_id="u", recipe=anchored)[0].explain["fusion"] == "minmax"
        talk = m.search("Miso", user_id="u", recipe=anchored, context=["My cat is sleeping.", "She loves music."])
        assert talk[0].explain["fusion"] == "rrf"  # anchored in a conversation: the anchor's factors want RRF
        cfg = SearchConfig(**{**RECIPES["hybrid_rrf"].model_dump(), "fusion_adapt": True})
        h = m.search("Miso piano", user_id="u", recipe=cfg)[0]
        assert set(h.explain["fusion_adapt"]) >= {"dense_weight", "lexical_weight", "peak_bm25", "overlap"}
        cfg = SearchConfig(**{**RECIPES["hybrid_minmax"].model_dump(), "flat_gain": 1.0, "norm_window": 3})
        ex = m.search("Miso piano", user_id="u", recipe=cfg)[0].explain["fusion_adapt"]
        assert set(ex) == {"dense_weight", "lexical_weight", "flat_dense", "flat_bm25"}
        assert ex["dense_weight"] + ex["lexical_weight"] == pytest.approx(1.0) and 0 <= ex["flat_bm25"] <= 1
        # fused by RRF (4 memories < the default norm_window): the weights as configured, where RRF was measured
        cfg = SearchConfig(**{**RECIPES["hybrid_minmax"].model_dump(), "flat_gain": 1.0})
        assert "fusion_adapt" not in m.search("Miso piano", user_id="u", recipe=cfg)[0].explain
        assert RECIPES["anchored"].flat_gain == 4.0 and RECIPES["anchored"].flat_level == 0.3


def test_flatness_weights_lean_on_the_list_that_tells_its_candidates_apart():
    steep = [("a", 10.0), ("b", 2.0), ("c", 1.5), ("d", 1.0)]  # normalised 1, 1/9, 1/18, 0: one above 0.5
    flat = [("a", 0.90), ("b", 0.89), ("c", 0.88), ("d", 0.80)]  # normalised 1, 0.9, 0.8, 0: three above 0.5
    assert flatness(steep) == 0.25 and flatness(flat) == 0.75 and flatness([]) == 0.0
    assert flatness(flat, level=0.85) == 0.5
    # a flat dense list and a steep BM25 list: BM25 gains 1 + 0.75, dense 1 + 0.25, the sum kept at 1.0
    wd, wl, f = flatness_weights(flat, steep, 0.4, 0.6, gain=1.0)
    assert f == {"flat_dense": 0.75, "flat_bm25": 0.25}
    assert wd == pytest.approx(0.4 * 1.25 / (0.4 * 1.25 + 0.6 * 1.75)) and wd + wl == pytest.approx(1.0)
    # the other way round: dense gains
    wd, wl, _ = flatness_weights(steep, flat, 0.4, 0.6, gain=2.0)
    assert wd == pytest.approx(0.4 * 2.5 / (0.4 * 2.5 + 0.6 * 1.5)) and wd > 0.5
    assert flatness_weights(flat, steep, 0.4, 0.6, gain=0.0)[:2] == (pytest.approx(0.4), pytest.approx(0.6))
    assert flatness_weights(flat, [], 0.4, 0.6)[:2] == (0.4, 0.0)
    assert flatness_weights([], steep, 0.4, 0.6)[:2] == (0.0, 0.6)

def test_normalised_reads_a_list_as_minmax_does():
    assert normalised([("a", 3.0), ("b", 2.0), ("c", 1.0)], window=2) == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert normalised([("a", 0.5), ("b", 0.5)]) == {"a": 1.0, "b": 1.0}
    assert normalised([]) == {}
