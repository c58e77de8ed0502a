"""Anchoring that decides the sense from the conversation's closeness to each candidate's session, not from label
lexicons (issue #23): session-pooled context cosines, labels that only break ties the sessions leave open, and a
"singled out" memory that must be about the word the memories split on. The word ("vorp") and its senses are made
up here: they are in none of the polysemy sets."""

from __future__ import annotations

import numpy as np
import pytest

from anchormem import Memory
from anchormem.context.anchor import _session_means
from anchormem.context.rerank import _session_gap
from anchormem.retrieval.config import RECIPES


def turns(*texts):
    return [{"role": "user", "content": t} for t in texts]


def test_session_means_pool_each_candidates_cosine_with_its_session_mates():
    sims = np.array([0.5, 0.3, np.nan, 0.2, 0.6])
    session = np.array([0, 0, 0, 1, -5])  # -5: a session-less memory, its own session
    out = _session_means(sims, session)
    assert out[:2].tolist() == pytest.approx([0.4, 0.4])  # (0.5 + 0.3) / 2: the NaN is left out
    assert np.isnan(out[2])  # no vector: stays without a cosine
    assert out[3:].tolist() == pytest.approx([0.2, 0.6])


def test_session_gap_is_the_lead_of_the_closest_session_among_the_word_holders():
    sims = np.array([0.45, 0.45, 0.38, 0.60, np.nan])
    session = np.array([0, 0, 1, 2, 3])
    about = np.array([True, True, True, False, False])  # session 2 does not name the word: not a rival
    assert _session_gap(sims, session, about) == pytest.approx(0.07)
    assert _session_gap(sims, session, None) == pytest.approx(0.15)  # nobody named: every candidate
    assert _session_gap(sims[:2], session[:2], about[:2]) == 0.0  # one session only: no lead to speak of
    own = np.array([False, True, False, False, False])  # session 0 holds the conversation's own stored turn
    assert _session_gap(sims, session, about, own) == 0.0  # session 1 alone is left among the holders


@pytest.fixture(scope="module")
def vorp():
    m = Memory(":memory:", search="anchored", cache=False)
    m.add(turns("My tango teacher says my vorp turn drifts off the line of dance.",
                "We practise it at the studio on Wednesdays.",
                "The showcase is in three weeks and my partner is nervous."), user_id="u", session_id="dance")
    m.add(turns("The physio says the vorp in my knee is a torn meniscus.",
                "The MRI is booked for next month at the hospital.",
                "I have to ice it twice a day and avoid stairs."), user_id="u", session_id="knee")
    m.add(turns("We repainted the kitchen a pale green.", "The landlord agreed to pay for the paint."),
          user_id="u", session_id="home")
    yield m
    m.close()


def test_a_conversation_close_to_one_session_outweighs_labels_that_point_elsewhere(vorp):
    """A rehearsal conversation that says "my legs ache" reads as health to the label lexicon, and two of the three
    dance memories are labelled health too; the conversation sits by the dance session, so the session decides:
    the three dance memories share one context cosine (their session's) and none is held back by its labels."""
    ctx = ["Rehearsal ran three hours tonight and my legs ache.",
           "My partner keeps stepping on my feet in the milonga."]
    first = RECIPES["anchored"].model_copy(update=dict(anchor_context_first=True))  # opt-in (off by default)
    hits = vorp.search("What was that about the vorp again?", user_id="u", context=ctx, limit=3, recipe=first)
    assert [h.memory.session_id for h in hits] == ["dance"] * 3
    a = [h.explain["anchor"] for h in hits]
    assert {x["gate"] for x in a} == {"template"}
    assert len({round(x["context_sim"], 6) for x in a}) == 1  # pooled over the session
    assert [x["factor"] for x in a] == [1.0, 1.0, 1.0]
    # labels first (the recipe before issue #23's session rule): the same order, but the labels hold the dance
    # memories back
    old = RECIPES["anchored"].model_copy(update=dict(anchor_context_session=0.0, anchor_context_first=False,
                                                     anchor_context_decisive=0.0, anchor_context_delta=0.1))
    before = vorp.search("What was that about the vorp again?", user_id="u", context=ctx, limit=3, recipe=old)
    assert min(h.explain["anchor"]["factor"] for h in before) < 0.9
    # the other sense's conversation: the knee session, all three
    hits = vorp.search("What was that about the vorp again?", user_id="u", limit=3, recipe=first,
                       context=["The waiting room was packed again.", "The doctor wants another scan before deciding."])
    assert [h.memory.session_id for h in hits] == ["knee"] * 3
