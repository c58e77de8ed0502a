"""Anchoring reorders, it does not drop (issue #23, ``SearchConfig.anchor_demote``): a candidate both the labels and
the conversation reject goes after every candidate they keep, so a search for k returns k hits when the store holds
them. Real model, a fresh user: a football session, a pitch-deck session, a guitar session and small talk."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from anchor_helpers import sessions_memory
from anchormem.context.anchor import QueryContext
from anchormem.context.rerank import rank_candidates
from anchormem.context.taxonomy import DOMAIN_NAMES
from anchormem.retrieval.config import RECIPES, parse_recipe_spec
from anchormem.types import Hit, Label, MemoryItem

SESSIONS = {
    "football": ["The pitch was muddy after the rain, we lost 2-1.",
                 "Our striker got injured in the first half.",
                 "Coach wants us to train on the new pitch on Thursday.",
                 "I bought new football boots for the season."],
    "deck": ["I'm still polishing the pitch deck for the investors on Monday.",
             "The pitch needs a slide about revenue.",
             "Our startup's valuation came up in the investor meeting.", "I rewrote the market size slide twice."],
    "guitar": ["My guitar is out of tune, the pitch of the high E is off.", "I practice scales every evening."],
    "misc": ["I had ramen for lunch today.", "My sister moved to Berlin last month.", "I walked the dog in the park."],
}
CONVERSATION = [{"role": "user", "content": "We played a great match yesterday, the referee was terrible though."},
                {"role": "user", "content": "Our goalkeeper saved two penalties."}]


@pytest.fixture(scope="module")
def mem():
    yield from sessions_memory(SESSIONS)


def test_the_default_recipe_demotes():
    assert RECIPES["anchored"].anchor_demote is True


def test_a_search_for_ten_returns_ten_with_the_favoured_sense_first(mem):
    hits = mem.search("What did I say about the pitch?", user_id="u", context=CONVERSATION, limit=10)
    assert len(hits) == 10  # was 4: the pitch-deck, guitar and small-talk memories were dropped
    sessions = [h.memory.session_id for h in hits]
    assert sessions[:4] == ["football"] * 4  # the conversation's sense leads, as before
    assert {"deck", "guitar"} <= set(sessions[4:])  # the other senses are below it, not gone
    demoted = [h for h in hits if h.explain["anchor"].get("demoted")]
    assert demoted and all(h.memory.session_id != "football" for h in demoted)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_the_old_drop_is_still_there_when_asked(mem):
    cfg = parse_recipe_spec("anchored:anchor_demote=false")
    hits = mem.search("What did I say about the pitch?", user_id="u", context=CONVERSATION, limit=10, recipe=cfg)
    assert [h.memory.session_id for h in hits] == ["football"] * 4


def _hit(i: int, domain: str, score: float) -> Hit:
    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    m = MemoryItem(id=f"m{i}", text=f"memory {i}", user_id="u", created_at=t, valid_from=t,
                   labels=[Label(domain=domain, score=1.0)])
    return Hit(memory=m, score=score, explain={})


def test_rank_candidates_places_rejected_candidates_last_in_their_own_order():
    a, b = DOMAIN_NAMES[0], DOMAIN_NAMES[1]
    hits = [_hit(0, b, 0.9), _hit(1, a, 0.5), _hit(2, b, 0.8), _hit(3, a, 0.4)]
    dist = np.zeros(len(DOMAIN_NAMES))
    dist[0] = 1.0
    qc = QueryContext(dist=dist, source="query+context")
    dropped = rank_candidates(hits, qc, weight=1.0, min_label=0.2, drop=0.05, demote=False)
    assert [h.memory.id for h in dropped.hits] == ["m1", "m3"]
    kept = rank_candidates(hits, qc, weight=1.0, min_label=0.2, drop=0.05)
    assert [h.memory.id for h in kept.hits] == ["m1", "m3", "m0", "m2"]
    assert kept.demoted == [False, False, True, True]
