"""The sense by the holder sessions (issue #23, ``SearchConfig.anchor_sessions_decide``): with a conversation, the
sessions holding the query's words are told apart by the conversation's (and the query's own) centered cosines with
them, contrastively, whatever the gate and without a lexicon; the winner's holders first, the other holder sessions
last. The word "zorb" is made up: it is in none of the polysemy sets."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest
from zorb_store import zorb_store

from anchormem import Memory
from anchormem.context.anchor import QueryContext
from anchormem.context.rerank import rank_candidates
from anchormem.context.senses import decide_session
from anchormem.context.taxonomy import DOMAIN_NAMES
from anchormem.retrieval.config import RECIPES, parse_recipe_spec
from anchormem.types import Hit, MemoryItem

ON = parse_recipe_spec("anchored+anchor_sessions_decide=true")
OFF = parse_recipe_spec("anchored+anchor_sessions_decide=false")


def test_decide_session_adds_the_query_and_asks_a_lead():
    session = np.array([0, 0, 1, 2])
    held = np.array([True, True, True, False])  # session 2 holds no query word
    conv = np.array([0.30, 0.10, 0.25, 0.90])
    assert decide_session(conv, None, session, held, lead=0.0) == 0  # 0.30 against 0.25; session 2 is not a holder
    assert decide_session(conv, None, session, held, lead=0.1) is None  # leads by 0.05 only
    query = np.array([0.0, 0.0, 0.2, 0.0])  # the query's own words point at session 1: 0.45 against 0.30
    assert decide_session(conv, query, session, held, lead=0.1) == 1
    assert decide_session(np.array([0.3, np.nan, np.nan, 0.1]), None, session, held, lead=0.0) is None  # one scored


T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _hit(i: int, score: float) -> Hit:
    return Hit(memory=MemoryItem(id=f"m{i}", user_id="u", text=f"t{i}", session_id=f"s{i}", created_at=T0,
                                 valid_from=T0), score=score, explain={})


def test_reorder_keeps_the_scores_defining_the_order():
    hits = [_hit(i, s) for i, s in enumerate([0.9, 0.8, 0.7, 0.2])]
    qc = QueryContext(dist=np.full(len(DOMAIN_NAMES), 1.0 / len(DOMAIN_NAMES)), source="gated")
    r = rank_candidates(hits, qc, weight=0.0, min_label=0.2)
    r.reorder([3, 1, 2, 0], promoted=1, demoted=1)  # m3 first, m0 last
    assert [h.memory.id for h in r.hits] == ["m3", "m1", "m2", "m0"]
    assert [h.score for h in r.hits] == pytest.approx([0.8, 0.8, 0.7, 0.35])
    assert len(r.factors) == 4
    with pytest.raises(ValueError):
        r.reorder([0, 0, 1, 2])


@pytest.fixture(scope="module")
def zorb():
    m = zorb_store(5)
    yield m
    m.close()


TANK = ["The living room tank needs cleaning again.", "I read that fish hate sudden changes in the water."]
COOK = ["I'm making chips tonight.", "The deep fryer needs a refill."]


def _sessions(hits):
    return [h.memory.session_id for h in hits]


def test_the_conversation_picks_the_holder_session_where_no_gate_opens(zorb):
    """No label domain splits "zorb" and the query names more than it (gate None): the default keeps the hybrid
    order, both senses in the first three whatever the conversation; with the sessions deciding, the conversation
    about the tank gives the fish session, the one about cooking the oil session, the other sense after the rest."""
    q = "Do we have zorb left?"
    for ctx in (TANK, COOK):
        base = zorb.search(q, user_id="u", context=ctx, limit=3, recipe=OFF)
        assert {"fish", "oil"} <= set(_sessions(base)) and {h.explain["anchor"]["gate"] for h in base} == {None}
    fish = zorb.search(q, user_id="u", context=TANK, limit=5, recipe=ON)
    assert _sessions(fish)[:3] == ["fish"] * 3 and "oil" not in _sessions(fish)[:4]
    assert fish[0].explain["anchor"]["gate"] is None and fish[0].explain["anchor"]["sessions_decided"] is True
    oil = zorb.search(q, user_id="u", context=COOK, limit=5, recipe=ON)
    assert _sessions(oil)[:3] == ["oil"] * 3 and "fish" not in _sessions(oil)[:4]


def test_the_querys_own_words_outweigh_the_conversation(zorb):
    """"still not eating" names the fish sense: in a conversation about cooking the query's own vector, added to
    the conversation's, still picks the fish session (a topic switch)."""
    hits = zorb.search("Is the zorb still not eating?", user_id="u", context=COOK, limit=3, recipe=ON)
    assert _sessions(hits) == ["fish"] * 3


def test_without_a_conversation_nothing_changes(zorb):
    q = "Do we have zorb left?"
    base = [h.memory.id for h in zorb.search(q, user_id="u", limit=5, recipe="anchored")]
    assert [h.memory.id for h in zorb.search(q, user_id="u", limit=5, recipe=ON)] == base


def test_on_in_the_default_recipe_for_at_most_three_holder_sessions_outside_the_template_gate():
    cfg = RECIPES["anchored"]
    assert cfg.anchor_sessions_decide is True and cfg.anchor_sessions_decide_max == 3
    assert cfg.anchor_sessions_decide_template is False
