"""Issue #23: conversation-aware queries, batched turn embeddings, the anchoring gate, the paired bootstrap and the
second held-out polysemy set."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from anchormem import Memory
from anchormem.errors import InvalidInputError
from anchormem.eval.paired import paired_bootstrap
from anchormem.retrieval.conversation import conversation_query, points_back, resolve_query

NOW = datetime(2024, 5, 10, tzinfo=timezone.utc)


def test_resolve_query_takes_the_referent_and_the_date_from_earlier_turns():
    assert resolve_query("When can it start again?", ["The crane on the site broke down."], NOW) == \
        ("When can it start again? (crane site broke)", None)
    assert resolve_query("那个后来怎么样了？", ["我上周去医院做了体检。"], NOW) == ("那个后来怎么样了？(上周 医院 体检)", "上周")
    # the date phrase sets the time window only, it is not added to the query's words
    assert resolve_query("Who was I with?", ["I went hiking last weekend."], NOW) == ("Who was I with?", "last weekend")
    # nothing to resolve: the query as given
    assert resolve_query("Where did Anna move to yesterday?", ["I went hiking last weekend."], NOW) == \
        ("Where did Anna move to yesterday?", None)
    assert resolve_query("When can it start again?", [], NOW) == ("When can it start again?", None)
    assert points_back("Is that one still for sale?") and points_back("它多少钱？") and not points_back("Italy?")
    # a determiner of a word the query names is no reference: the query says what it means
    assert not points_back("那个基金呢？") and not points_back("How is that fund doing?")
    assert points_back("那个后来怎么样了？") and not points_back("What was that about the bank again?")


def test_conversation_query_mixes_the_query_and_the_turns():
    q = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    turns = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    cq = conversation_query("q?", ["a", "b"], weight=0.25, query_vector=lambda: q, turn_vectors=lambda t: turns)
    assert cq.text == "a b q?" and cq.weight == 0.25
    assert np.linalg.norm(cq.vector) == pytest.approx(1.0, abs=1e-6)
    # turn weights 1/(1 + age/3): the newest (b) 1, a 0.75 -> the turns' mean direction, then the unit mix with q
    c = np.array([0.0, 0.75, 1.0]) / 1.75
    want = q / 1 + c / np.linalg.norm(c)
    assert np.allclose(cq.vector, want / np.linalg.norm(want), atol=1e-6)
    assert conversation_query("q?", [], weight=0.25) is None and conversation_query("q?", ["a"], weight=0) is None


class _Counting:
    def __init__(self, inner):
        self.inner, self.calls = inner, []
        self.name, self.dim = inner.name, inner.dim

    def embed_documents(self, texts):
        self.calls.append(len(texts))
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_unstored_turns_cost_one_batched_embedding(db_path):
    from anchormem.embedders import make_embedder

    from anchormem.retrieval.config import RECIPES

    # the conversation is always read; its new turns share one embedding of their content words (off by default)
    always = RECIPES["anchored"].model_copy(update={"anchor_gate": False, "conversation_turn_budget": 12})
    emb = _Counting(make_embedder("hash"))
    with Memory(db_path, embedder=emb, cache=False) as m:
        m.add("I opened a savings account at the bank.", user_id="u")
        emb.calls.clear()
        ctx = ["My budget is tight.", "Rent went up again.", "I want to save more.", "Interest rates are up.",
               "What about the bank?"]
        m.search("What did I say about the bank?", user_id="u", context=ctx, recipe=always)
        assert emb.calls == [1]  # the five turns together, once: one text of their content words
        m.search("Anything new about the bank?", user_id="u", context=ctx, recipe=always)
        assert emb.calls == [1]  # cached: no new embedding
        m.search("Anything new about the bank?", user_id="u", context=[*ctx[1:], "Savings matter."], recipe=always)
        assert emb.calls == [1, 1]  # only the new turn
        exact = always.model_copy(update={"conversation_turn_budget": 0})  # each new turn's own text, batched
        m.search("Anything new about the bank?", user_id="u", context=["Loans are dear.", "So are cars."],
                 recipe=exact)
        assert emb.calls == [1, 1, 2]
        # the default: nothing is ambiguous (one memory holds "bank"), the gate keeps the hybrid order and no turn
        # is embedded at all
        m.search("Anything new about the bank?", user_id="u", context=["A brand new turn."])
        assert emb.calls == [1, 1, 2]


def test_gate_keeps_the_hybrid_order_for_an_ordinary_question(mem):
    mem.add("Caroline went to the LGBTQ support group on Tuesday.", user_id="u", session_id="a")
    mem.add("Melanie painted a sunrise over the lake.", user_id="u", session_id="b")
    ctx = ["I have been painting a lot lately.", "Art helps me relax."]
    plain = mem.search("When did Caroline go to the support group?", user_id="u", recipe="hybrid_rrf", limit=2)
    anch = mem.search("When did Caroline go to the support group?", user_id="u", context=ctx, limit=2)
    assert [h.memory.id for h in anch][:1] == [h.memory.id for h in plain][:1]
    assert anch[0].explain["anchor"]["gate"] is None and anch[0].explain["anchor"]["factor"] == 1.0


def test_paired_bootstrap():
    r = paired_bootstrap([1, 0, 1, 1], [1, 0, 0, 1], n_resamples=500, seed=1)
    assert r["diff"] == 0.25 and r["wins"] == 1 and r["losses"] == 0 and r["n"] == 4
    assert 0.0 <= r["low"] <= r["diff"] <= r["high"] <= 0.75
    same = paired_bootstrap([0.5] * 10, [0.5] * 10)
    assert same["low"] == same["high"] == 0.0
    with pytest.raises(InvalidInputError):
        paired_bootstrap([1, 0], [1])


def test_heldout2_set_shape_and_words_apart():
    from anchormem.eval.polysemy import EN_HELDOUT, EN_WORDS, heldout2_cases, load_cases

    cases = heldout2_cases()
    by = {g: sum(c.group == g for c in cases) for g in ("en_heldout2", "zh_heldout2")}
    assert by == {"en_heldout2": 28, "zh_heldout2": 16}
    words = {c.word for c in cases}
    dev_zh = {c.word for c in load_cases() if c.lang == "zh"}
    assert not words & (set(EN_WORDS) | set(EN_HELDOUT) | dev_zh)
    assert all(len(c.sessions) == 2 and c.target in c.sessions and c.wrong for c in cases)


def test_the_conversations_date_sets_the_time_window(mem):
    mem.add("Hiking with Tom on the ridge trail.", user_id="u", timestamp="2024-05-09T10:00:00Z")
    mem.add("Hiking with Sara by the lake.", user_id="u", timestamp="2024-03-01T10:00:00Z")
    hits = mem.search("Who was I hiking with?", user_id="u", context=["I went out yesterday, it was great."],
                      as_of="2024-05-10T12:00:00Z", recipe="hybrid_rrf")
    assert hits[0].memory.text.startswith("Hiking with Tom")
    assert hits[0].explain["time_match"] is True and hits[1].explain["time_match"] is False
    bare = mem.search("Who was I hiking with?", user_id="u", as_of="2024-05-10T12:00:00Z", recipe="hybrid_rrf")
    assert "time_match" not in bare[0].explain  # no date anywhere: no window


def test_a_memory_naming_what_the_query_names_is_not_dropped_by_labels(mem_e5):
    """Issue #23: "When can the crane start again?" inside a conversation about a project schedule keeps the crane
    memories in the top 3, whatever the conversation's labels (code and OS memories lie closer to "schedule")."""
    m = mem_e5

    def said(*texts):
        return [{"role": "user", "content": t} for t in texts]
    m.add(said("The tower crane on the building site broke down on Monday.",
           "The crane operator says the hydraulic pump has to be replaced first."), user_id="u", session_id="site")
    m.add(said("We saw a pair of cranes wading in the marsh at dawn."), user_id="u", session_id="birds")
    m.add(said("The cron job that builds the release runs every night at two.",
           "I rescheduled the kernel update to Friday after the outage."), user_id="u", session_id="ops")
    m.add(said("Sprint planning moved to Wednesday; the backlog is too long."), user_id="u", session_id="plan")
    ctx = ["The project schedule slipped by two weeks.", "The concrete pour is waiting for the steel frame.",
           "We need a new plan for the next milestone."]
    hits = m.search("When can the crane start again?", user_id="u", context=ctx, limit=3)
    site = [h for h in hits if h.memory.session_id == "site"]
    assert site, [h.memory.text for h in hits]
    assert hits[0].memory.session_id == "site"


def test_conversation_tells_the_senses_apart_only_with_a_lead():
    from anchormem.context.candidates import Candidates
    from anchormem.context.hook import conversation_tells
    from anchormem.context.taxonomy import DOMAIN_INDEX, DOMAIN_NAMES

    def cand(domains, sessions):
        n = len(domains)
        labels = np.zeros((n, len(DOMAIN_NAMES)), dtype=np.float32)
        for i, d in enumerate(domains):
            labels[i, DOMAIN_INDEX[d]] = 1.0
        nan = np.full(n, np.nan)
        return Candidates(hits=[], ids=[str(i) for i in range(n)], session=np.array(sessions, dtype=np.int64),
                          score=np.linspace(1.0, 0.5, n), bm25=nan, bm25_rank=nan, dense=nan, labels=labels,
                          labelled=np.ones(n, dtype=bool))

    c = cand(["work", "shopping", "work", "food"], [0, 1, 2, 3])
    about = np.array([True, True, True, False])
    none = np.zeros(4, dtype=bool)
    sims = np.array([0.60, 0.40, 0.55, 0.90])  # the food memory names nothing the query names: not counted
    assert conversation_tells(sims, c, about, none, top=10, margin=0.1)  # work 0.60 leads shopping 0.40 by 0.2
    assert not conversation_tells(sims, c, about, none, top=10, margin=0.25)
    assert not conversation_tells(sims, c, about, none, top=10, margin=0.0)  # 0: never
    # the conversation's own session (a stored turn of it) is left out: its closeness says nothing of the sense
    own = np.array([True, False, False, False])
    assert conversation_tells(sims, c, about, own, top=10, margin=0.1)  # work 0.55 still leads 0.40
    assert not conversation_tells(np.array([0.60, 0.50, 0.52, 0.9]), c, about, own, top=10, margin=0.1)
    # the best holder must stand out of the whole pool: a conversation close to every memory tells nothing
    assert not conversation_tells(sims, c, about, none, top=10, margin=0.1, stand=0.15)  # 0.60 - median 0.575
    assert conversation_tells(np.array([0.70, 0.40, 0.55, 0.10]), c, about, none, top=10, margin=0.1, stand=0.15)
    # one domain among the holders: nothing to tell apart
    assert not conversation_tells(sims, cand(["work"] * 4, [0, 1, 2, 3]), about, none, top=10, margin=0.1)
