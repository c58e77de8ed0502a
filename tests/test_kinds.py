"""Category questions (anchormem.retrieval.kinds): a query naming a category finds the turns that name its kinds."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem import Memory
from anchormem.embedders.hashing import HashEmbedder
from anchormem.retrieval.config import SearchConfig

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)


def test_category_question_finds_the_turn_naming_a_kind(two_speakers):
    from anchormem.retrieval.kinds import kind_terms

    other, kinds = kind_terms(["pets", "ann"])
    assert other == ["ann"] and "cat" in kinds and "collie" in kinds and "border" not in kinds
    assert kind_terms(["kids", "ann"]) == (["kids", "ann"], [])
    assert kind_terms(["care", "ann"]) == (["care", "ann"], [])  # not "car"
    on = SearchConfig(name="kinds", track_access=False, query_rewrite="off", category_weight=1.0)
    off = SearchConfig(name="plain", track_access=False, query_rewrite="off")
    with two_speakers as m:
        m.add([{"role": "user", "content": "We adopted a greyhound called Miso last spring.", "name": "Ann",
                "timestamp": T0}], user_id="u")
        q = "What pets does Ann have?"
        got = [h.memory.text for h in m.search(q, user_id="u", recipe=on, limit=3)]
        assert got[0] == "We adopted a greyhound called Miso last spring."
        assert "We adopted a greyhound called Miso last spring." not in \
            [h.memory.text for h in m.search(q, user_id="u", recipe=off, limit=1)]
