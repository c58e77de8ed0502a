"""Senses induced from the store (issue #23, anchormem.context.senses): the candidates' own mean context vector as
the center, the sessions holding the query's words as the senses, the conversation choosing among them, and the
query's own vector keeping a topic switch. The word "zorb" is made up: it is in none of the polysemy sets."""

from __future__ import annotations

import numpy as np
import pytest
from zorb_store import zorb_store

from anchormem import Memory
from anchormem.context.senses import (DECIDING_GATES, candidate_center, holder_sessions, query_disagrees,
                                      sessions_tell, top_holders)
from anchormem.context.wording import holder_terms
from anchormem.retrieval.config import RECIPES, parse_recipe_spec


def test_candidate_center_is_the_mean_of_the_unit_rows_of_the_candidates_only():
    vectors = {"a": np.array([2.0, 0.0]), "b": np.array([0.0, 3.0]), "c": np.array([5.0, 5.0])}
    assert candidate_center(vectors, ["a", "b", "zz"]).tolist() == pytest.approx([0.5, 0.5])
    assert candidate_center(vectors, ["a"]) is None  # one vector: no mean to speak of

    class Stored:  # the stores' shape: an index into one matrix
        index = {"a": 1, "b": 0}
        matrix = np.array([[0.0, 4.0], [1.0, 0.0]], dtype=np.float32)

    assert candidate_center(Stored(), ["a", "b"]).tolist() == pytest.approx([0.5, 0.5])


def test_holder_sessions_keep_the_sessions_with_near_scores_outside_the_conversations_own():
    score = np.array([0.9, 0.8, 0.5, 0.3, 0.95])
    session = np.array([0, 1, 1, 2, 3])
    about = np.array([True, True, True, True, False])  # session 3 does not hold the word
    assert sorted(holder_sessions(score, session, about, None, top=10, near=0.5).tolist()) == [0, 1]
    assert sorted(holder_sessions(score, session, about, None, top=10, near=0.0).tolist()) == [0, 1, 2]
    own = np.array([True, False, False, False, False])  # session 0 holds a turn of the conversation itself
    assert holder_sessions(score, session, about, own, top=10, near=0.5).tolist() == [1]
    assert holder_sessions(score, session, None, None, top=10, near=0.5).tolist() == []


def test_sessions_tell_needs_a_lead_among_the_holders_and_a_stand_above_the_store():
    sims = np.array([0.6, 0.6, 0.1, -0.3, -0.4, np.nan])
    session = np.array([0, 0, 1, 2, 3, 4])
    held = np.array([0, 1])
    assert sessions_tell(sims, session, held, margin=0.05, stand=0.45)  # leads by 0.5, 0.5 above the median 0.1
    assert not sessions_tell(sims, session, held, margin=0.6, stand=0.45)  # no lead that large
    assert not sessions_tell(sims, session, held, margin=0.05, stand=0.55)  # does not stand out that much
    assert not sessions_tell(sims, session, np.array([0]), margin=0.05, stand=0.0)  # one session: no senses


def test_query_disagrees_when_its_own_vector_clearly_picks_another_session():
    session = np.array([0, 0, 1, 1])
    conv = np.array([-0.3, -0.3, 0.4, 0.4])  # the conversation sits by session 1
    assert query_disagrees(np.array([0.2, 0.2, -0.15, -0.15]), conv, session, None, None, lead=0.2)
    assert not query_disagrees(np.array([0.14, 0.14, 0.02, 0.02]), conv, session, None, None, lead=0.2)
    assert not query_disagrees(np.array([-0.2, -0.2, 0.3, 0.3]), conv, session, None, None, lead=0.2)  # agrees
    assert not query_disagrees(np.array([0.2, 0.2, -0.15, -0.15]), conv, session, None, None, lead=0.0)  # off


def test_top_holders_find_a_word_inside_a_compound_among_the_best_candidates_only():
    texts = ["我买了一块机械表。", "那张考勤表出错了。", "今天下雨了。", "表带是真皮的。"]
    score = np.array([0.9, 0.8, 0.7, 0.1])
    assert top_holders(holder_terms("我之前说的表怎么样了？"), texts, score, top=3).tolist() == \
        [True, True, False, False]
    assert top_holders([], texts, score, top=3).tolist() == [False] * 4


def test_the_default_recipe_decides_by_senses_under_the_conversation_gates():
    cfg = RECIPES["anchored"]
    assert cfg.anchor_senses and cfg.anchor_senses_tell == 0.05 and cfg.anchor_senses_stand == 0.55
    assert set(cfg.anchor_senses_gates.split("|")) <= set(DECIDING_GATES)
    assert "spread+conversation" not in cfg.anchor_senses_gates.split("|")


@pytest.fixture(scope="module")
def zorb():
    m = zorb_store()
    yield m
    m.close()


def test_sessions_split_a_word_the_labels_do_not(zorb):
    """Both zorb sessions are labelled food, so no label domain splits the word (gate None); the two sessions do,
    and a conversation about the tank picks the fish session when it stands out of the store enough, or (opt-in,
    anchor_senses_lead) when the fish session is clearly nearer it than the oil session, as the query's own vector."""
    ctx = ["The living room tank needs cleaning again.", "I read that fish hate sudden changes in the water."]
    q = "Is the zorb still not eating?"
    plain = zorb.search(q, user_id="u", context=ctx, limit=3,
                        recipe=parse_recipe_spec("anchored+anchor_sessions_decide=false"))
    assert {h.explain["anchor"]["gate"] for h in plain} == {None}  # 0.40 above the median: below 0.55, kept
    assert [h.memory.session_id for h in plain].count("oil") == 1
    by_sessions = zorb.search(q, user_id="u", context=ctx, limit=3)  # the default: the holder sessions decide
    assert [h.memory.session_id for h in by_sessions] == ["fish"] * 3
    lead = zorb.search(q, user_id="u", context=ctx, limit=3,
                       recipe=parse_recipe_spec("anchored+anchor_senses_lead=0.1"))
    assert [(h.memory.session_id, h.explain["anchor"]["gate"]) for h in lead] == [("fish", "senses")] * 3
    told = zorb.search(q, user_id="u", context=ctx, limit=3,
                       recipe=parse_recipe_spec("anchored+anchor_senses_stand=0.3"))
    assert [(h.memory.session_id, h.explain["anchor"]["gate"]) for h in told] == [("fish", "senses")] * 3
    off = zorb.search(q, user_id="u", context=ctx, limit=3,
                      recipe=parse_recipe_spec("anchored+anchor_senses_stand=0.3+anchor_senses=false"
                                               "+anchor_sessions_decide=false"))
    assert [h.memory.session_id for h in off].count("oil") == 1
    assert {h.explain["anchor"]["gate"] for h in off} == {None}


def test_sessions_lead_asks_a_lead_over_the_second_closest_holder_and_no_stand():
    from anchormem.context.senses import sessions_lead

    sims = np.array([0.30, 0.25, 0.12, 0.10, 0.28, np.nan])
    session = np.array([0, 0, 1, 2, 3, 4])
    # session 0 leads session 1 by 0.18 and session 2 by 0.20, though it stands only 0.14 above the median (0.25)
    assert sessions_lead(sims, session, np.array([0, 1, 2]), lead=0.1)
    assert not sessions_lead(sims, session, np.array([0, 1, 2]), lead=0.2)  # the second closest is within 0.2
    assert not sessions_tell(sims, session, np.array([0, 1, 2]), margin=0.05, stand=0.55)  # the stand bound blocks
    assert not sessions_lead(sims, session, np.array([0, 3]), lead=0.1)  # 0.02 apart: the conversation cannot tell
    assert not sessions_lead(sims, session, np.array([0, 4]), lead=0.1)  # session 4 has no vector: one left
    assert not sessions_lead(sims, session, np.array([0, 1]), lead=0.0)  # off


def test_closest_held_is_the_held_session_with_the_best_cosine():
    from anchormem.context.senses import closest_held

    sims = np.array([0.30, 0.25, 0.12, 0.40, np.nan])
    session = np.array([0, 0, 1, 2, 3])
    assert closest_held(sims, session, np.array([0, 1])) == 0
    assert closest_held(sims, session, np.array([0, 1, 2])) == 2
    assert closest_held(sims, session, np.array([3])) is None  # no vector
