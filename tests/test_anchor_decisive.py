"""Labels read off a lexicon never filter the session the conversation sits by (issue #23): the ``decisive`` scaling
of the label weight wherever a context factor is read (``SearchConfig.anchor_context_decisive_always``), and the
label-free "senses" test under gate "spread" (``SearchConfig.anchor_senses_spread``)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from anchormem.context.anchor import ContextMatch, QueryContext
from anchormem.context.rerank import rank_candidates
from anchormem.context.taxonomy import DOMAIN_NAMES
from anchormem.retrieval.config import RECIPES, SearchConfig, parse_recipe_spec
from anchormem.types import Hit, Label, MemoryItem

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _hit(mid: str, session: str, domain: str, score: float) -> Hit:
    item = MemoryItem(id=mid, user_id="u", text=mid, session_id=session, created_at=NOW, valid_from=NOW,
                      labels=[Label(domain=domain, score=1.0, primary=True)])
    return Hit(memory=item, score=score, explain={})


def _case():
    """Two sessions holding the query's word: the conversation sits by "sky" (cosine 0.45 against 0.15), the query's
    labels say finance, the lexicon labelled the sky session transport; a third memory names nothing the query
    names."""
    hits = [_hit("sky1", "sky", "transport", 0.05), _hit("sky2", "sky", "transport", 0.04),
            _hit("lab1", "lab", "finance", 0.06), _hit("other", "misc", "finance", 0.03)]
    q = np.zeros(len(DOMAIN_NAMES), dtype=np.float32)
    q[DOMAIN_NAMES.index("finance")] = 1.0
    about = np.array([True, True, True, False])
    sims = np.array([0.45, 0.45, 0.15, 0.30])
    return hits, QueryContext(dist=q), about, sims


def _rank(decisive_always: bool):
    hits, qc, about, sims = _case()
    cm = ContextMatch(sims=sims.copy(), reference=0.0, source="best", weight=0.97, delta=0.1)
    return rank_candidates(hits, qc, weight=0.8, min_label=0.2, full_label=0.6, context=cm, about=about,
                           decisive=0.06, decisive_always=decisive_always)


def test_labels_filter_the_conversations_session_without_the_decisive_rule():
    r = _rank(False)
    by = dict(zip([h.memory.id for h in r.hits], r.factors))
    # the best holder by labels ("lab") is the context reference's rival: the sky memories are label-filtered
    assert by["sky1"] == pytest.approx(0.2) and by["sky2"] == pytest.approx(0.2)
    assert r.hits[0].memory.id != "sky1"


def test_a_decisive_session_lead_leaves_the_labels_no_say():
    r = _rank(True)
    ids = [h.memory.id for h in r.hits]
    by = dict(zip(ids, r.factors))
    assert ids[:2] == ["sky1", "sky2"]  # the session the conversation sits by, whatever its labels
    assert by["sky1"] == pytest.approx(1.0) and by["sky2"] == pytest.approx(1.0)
    # the other holder session is 0.30 below the reference: its context factor is the floor 1 - 0.97
    assert by["lab1"] == pytest.approx(0.03)


def test_a_close_session_lead_keeps_the_labels_as_tie_breaker():
    hits, qc, about, sims = _case()
    sims = np.array([0.45, 0.45, 0.42, 0.30])  # the holder sessions are 0.03 apart: half of decisive 0.06
    cm = ContextMatch(sims=sims, reference=0.0, source="best", weight=0.97, delta=0.1)
    r = rank_candidates(hits, qc, weight=0.8, min_label=0.2, full_label=0.6, context=cm, about=about, decisive=0.06,
                        decisive_always=True)
    by = dict(zip([h.memory.id for h in r.hits], r.factors))
    assert by["sky1"] == pytest.approx(1.0 - 0.4)  # label weight 0.8 · (1 - 0.03 / 0.06) = 0.4, ramp 0


def test_the_settings_are_opt_in_and_parse_from_a_spec():
    cfg = RECIPES["anchored"]
    assert cfg.anchor_context_decisive_always is False and cfg.anchor_senses_spread is False  # LoCoMo-conv cost
    on = parse_recipe_spec("anchored+anchor_context_decisive_always=true+anchor_senses_spread=true")
    assert on.anchor_context_decisive_always is True and on.anchor_senses_spread is True
    assert SearchConfig().anchor_senses_spread is False
    assert parse_recipe_spec("anchored:anchor_one_word_sessions=false").anchor_one_word_sessions is False
    assert RECIPES["anchored"].anchor_one_word_sessions is True  # on: it changed no LoCoMo-conv question
