"""What context anchoring keeps between searches, and what it writes on the hits it returns: the recent session's
labels (kept per store write generation), the conversation's vector (kept per turn texts), all dropped by a purge;
explain["anchor"] written on the returned hits only."""

from __future__ import annotations

import numpy as np
import pytest

from anchormem import Memory
from anchormem.context import anchor as anchor_mod


def turns(*texts):
    return [{"role": "user", "content": t} for t in texts]


@pytest.fixture()
def mem():
    m = Memory(":memory:", cache=False)
    yield m
    m.close()


def test_the_recent_session_is_read_once_per_write_and_follows_new_sessions(mem, monkeypatch):
    calls = []
    real = anchor_mod.recent_session_labels
    monkeypatch.setattr(anchor_mod, "recent_session_labels", lambda *a, **k: calls.append(1) or real(*a, **k))
    mem.add(turns("We sat on the river bank and watched the ducks."), user_id="u", session_id="picnic",
            timestamp="2024-02-01T10:00:00Z")
    mem.add(turns("I opened a savings account at the bank.", "The interest rate is 4%."), user_id="u",
            session_id="money", timestamp="2024-04-01T10:00:00Z")
    for _ in range(3):
        hits = mem.search("What about the bank?", user_id="u", recipe="anchored", limit=2)
        assert hits[0].explain["anchor"]["query_label_source"] == "query+recent_session"
        assert next(iter(hits[0].explain["anchor"]["query_labels"])) == "finance"
        assert hits[0].memory.text == "I opened a savings account at the bank."
    assert len(calls) == 1  # the same store generation: read once
    # a newer session about the river: the next ambiguous query leans on it, not on the kept money session
    mem.add(turns("Another walk along the river today.", "The water was high after the rain."), user_id="u",
            session_id="walk", timestamp="2024-05-01T10:00:00Z")
    hits = mem.search("What about the bank?", user_id="u", recipe="anchored", limit=2)
    assert len(calls) == 2
    assert hits[0].explain["anchor"]["query_label_source"] == "query+recent_session"
    assert next(iter(hits[0].explain["anchor"]["query_labels"])) == "nature"
    # another user's scope is its own entry
    assert mem.search("What about the bank?", user_id="nobody", recipe="anchored") == []


def test_recent_session_labels_expire_after_the_ttl(mem, monkeypatch):
    mem.add(turns("I opened a savings account at the bank."), user_id="u", session_id="money")
    calls = []
    real = anchor_mod.recent_session_labels
    monkeypatch.setattr(anchor_mod, "recent_session_labels", lambda *a, **k: calls.append(1) or real(*a, **k))
    clock = [1000.0]
    monkeypatch.setattr(anchor_mod.time, "monotonic", lambda: clock[0])
    scope = mem._scope("u", None, None)
    first = mem.anchor.recent_logits(mem.store, scope)
    assert first is not None and first.shape == (len(anchor_mod.DOMAIN_NAMES),)
    assert int(np.argmax(first)) == anchor_mod.DOMAIN_INDEX["finance"]
    clock[0] += mem.anchor.RECENT_TTL_S - 1
    assert mem.anchor.recent_logits(mem.store, scope) is first and len(calls) == 1
    clock[0] += 2  # past the TTL: read again (a memory may have expired without a write)
    again = mem.anchor.recent_logits(mem.store, scope)
    assert len(calls) == 2 and np.array_equal(again, first)


def test_returned_hits_carry_the_anchor_explain_and_fallback_is_filtered_and_returned(mem):
    mem.add(turns("I opened a savings account at the bank on Main Street.", "The interest rate is 3 percent."),
            user_id="u", session_id="money")
    mem.add(turns("We had a picnic on the bank of the river.", "We watched the ducks on the water."),
            user_id="u", session_id="river")
    hits = mem.search("What did I say about the bank?", user_id="u",
                      context=["I need to sort out my savings and my budget."], limit=3)
    assert hits[0].memory.session_id == "money"
    for h in hits:
        a = h.explain["anchor"]
        assert a["fallback"] is a["filtered"]  # every returned hit is returned: fallback = its labels disagree
        assert h.explain["final"] == h.score
        assert a["query_label_source"].startswith("query+context")
        assert 0.0 <= a["factor"] <= 1.0 and a["context_reference"] in ("best", "match")


def test_the_conversation_vector_is_the_weighted_centered_mean_and_is_kept(mem):
    anchor = mem.anchor
    texts = ["I need to sort out my savings.", "And my budget for the year."]
    embedded = []

    def embed(t):
        embedded.append(t)
        return mem.embedder.embed_documents([t])[0]

    v = anchor.conversation_vector(texts, embed)
    conv = mem.embedder.embed_documents(texts)
    w = np.array([1 / (1 + 1 / anchor.session_decay), 1.0], dtype=np.float32)  # the newest turn weighs 1
    want = anchor.labeller.centered((w @ conv) / w.sum())[0]
    assert v.shape == (mem.embedder.dim,) and v.dtype == np.float32
    assert np.allclose(v, want, atol=1e-5) and abs(float(np.linalg.norm(v)) - 1.0) < 1e-5
    assert anchor.conversation_vector(texts, embed) is v and embedded == texts  # kept: no second embedding
    assert not v.flags.writeable


def test_a_purge_drops_what_anchoring_kept_of_the_conversation(mem):
    mem.add(turns("We had a picnic on the river bank."), user_id="u", session_id="river",
            timestamp="2024-02-01T10:00:00Z")
    [ev] = [e for e in mem.add(turns("My IBAN ends in 4411, at the bank on Main Street."), user_id="u",
                                session_id="s", timestamp="2024-04-01T10:00:00Z") if e.event == "ADD"]
    ctx = ["I need to sort out my savings and the 4411 account."]
    mem.search("What about the bank?", user_id="u", context=ctx)
    mem.search("What about the bank?", user_id="u", recipe="anchored")
    anchor = mem.anchor
    assert any(k == ctx[0] for k in anchor._turn_cache) and anchor._conv_cache and anchor._recent_cache
    mem.delete(ev.memory.id, purge=True)
    assert not anchor._turn_cache and not anchor._conv_cache and not anchor._recent_cache
    # and anchoring still works afterwards
    assert mem.search("What about the bank?", user_id="u", context=["a walk by the water"])[0].memory.session_id \
        == "river"


def test_the_conversation_picks_the_sense_among_the_memories_that_name_what_the_query_names(mem):
    """Fresh-user trial: "Apple 怎么样？" inside a conversation about a portfolio returned the bond and fund memories
    (closest to the conversation, no "Apple" in them) and pushed the Apple-shares memories down or out; the context
    factor's reference is now the best of the memories holding the query's subject word."""
    def add(texts, sid, ts):
        mem.add([{"role": "user", "content": t} for t in texts], user_id="mix", session_id=sid, timestamp=ts)

    add(["最近在看股票，想买点 Apple 的股份。", "科技股波动大。", "Apple 的 earnings report 下周出来。"], "apple-co",
        "2024-08-01T10:00:00+08:00")
    add(["周末去果园 picking apples，好开心。", "秋天正是时候。", "摘了一篮 apple，做了 apple pie。"], "apple-fruit",
        "2024-08-10T10:00:00+08:00")
    add(["我最近在理财，关注股票和债券。", "稳健一点好。", "我买了一只基金，年化收益大概5%。"], "invest",
        "2024-06-01T10:00:00+08:00")
    add(["我参加了一个慈善活动，帮助山区儿童。", "很有意义。", "我们给那个基金会捐了两千元。"], "charity",
        "2024-06-05T10:00:00+08:00")
    for q, ctx in (("Apple 怎么样？", ["我在看我的投资组合。"]), ("How is Apple doing?", ["I'm checking my stock portfolio."])):
        hits = mem.search(q, user_id="mix", context=ctx, limit=5)
        top2 = [h.memory.session_id for h in hits[:2]]
        assert top2 == ["apple-co", "apple-co"], (q, [h.memory.text for h in hits])
        assert all(h.memory.session_id != "apple-fruit" for h in hits)
    hits = mem.search("那个基金呢？", user_id="mix", context=["最近股市波动很大，我的投资亏了。"], limit=5)
    assert hits[0].memory.text == "我买了一只基金，年化收益大概5%。"
    assert all(h.memory.session_id != "charity" for h in hits)


def test_an_import_brings_context_vectors_as_relabel_computes_them(mem):
    mem.add(turns("I opened a savings account at the bank.", "The interest rate is 4%."), user_id="u",
            session_id="money", timestamp="2024-04-01T10:00:00Z")
    mem.add(turns("We had a picnic on the river bank.", "The ducks were loud."), user_id="u", session_id="river",
            timestamp="2024-05-01T10:00:00Z")
    data = mem.export(user_id="u")
    with Memory(":memory:", cache=False) as other:
        other.import_memories(data)
        ids = [it.id for it in other.get_all(user_id="u")]
        imported = other.store.get_context_vectors(other.tenant, ids)
        assert sorted(imported) == sorted(ids)  # every memory has one, right after the import
        hits = other.search("What about the bank?", user_id="u", context=["a walk by the water"])
        assert hits[0].memory.session_id == "river" and hits[0].explain["anchor"]["context_sim"] is not None
        before = {i: imported[i].copy() for i in ids}
        other.relabel(user_id="u")
        after = other.store.get_context_vectors(other.tenant, ids)
        assert all(np.allclose(before[i], after[i], atol=1e-6) for i in ids)


@pytest.mark.parametrize("bad", [{"name": "x"}, 3, ["anchored"]])
def test_a_recipe_that_is_neither_a_name_nor_a_config_is_a_config_error(mem, bad):
    from anchormem import ConfigError

    with pytest.raises(ConfigError, match="a search recipe is a name"):
        mem.search("bank", user_id="u", recipe=bad)


def test_a_label_given_twice_is_refused_and_nothing_changes(mem):
    from anchormem import InvalidInputError

    item = mem.add("I deposited my salary at the bank.", user_id="u")[0].memory
    with pytest.raises(InvalidInputError, match="'finance/-/-' is given twice"):
        mem.update(item.id, labels=["finance", "finance"])
    assert mem.get(item.id).labels == item.labels
    # the same domain with two topics is two labels
    got = mem.update(item.id, labels=[{"domain": "finance", "topic": "salary"}, {"domain": "finance", "topic": "bank"}])
    assert [(lab.domain, lab.topic) for lab in got.labels] == [("finance", "salary"), ("finance", "bank")]


def test_a_config_built_without_validation_is_checked_at_search(mem):
    from anchormem import ConfigError
    from anchormem.retrieval.config import RECIPES

    bad = RECIPES["anchored"].model_copy(update={"anchor_drop": float("nan")})  # model_copy does not validate
    with pytest.raises(ConfigError, match="invalid search config"):
        mem.search("bank", user_id="u", recipe=bad)
    ok = RECIPES["anchored"].model_copy(update={"anchor_weight": 0.6})
    mem.add("I opened a savings account at the bank.", user_id="u")
    assert mem.search("bank", user_id="u", recipe=ok)[0].memory.text == "I opened a savings account at the bank."


def test_a_purge_relabels_what_the_purged_turn_coloured(mem):
    """The other memories of a session were labelled, and got context vectors, with the purged turn among their
    neighbours: after the purge they are recomputed without it (a later relabel changes nothing)."""
    secret = "I secretly owe the loan shark Vlastimir 40,000 kroner for gambling debts."
    mem.add(turns("I went to the casino in Prague last night.", secret, "Anyway the hotel breakfast was great."),
            user_id="p", session_id="sx", timestamp="2024-05-01T10:00:00Z")
    mem.add(turns("My cat Pixel likes sleeping on my laptop."), user_id="p", session_id="sy",
            timestamp="2024-05-02T10:00:00Z")
    for it in [it for it in mem.get_all(user_id="p") if "Vlastimir" in it.text]:
        mem.delete(it.id, purge=True)
    left = mem.get_all(user_id="p")
    assert left and not any("Vlastimir" in it.text for it in left)
    ids = [it.id for it in left]
    labels = {it.id: [(lab.domain, lab.topic) for lab in it.labels] for it in left}
    vecs = mem.store.get_context_vectors(mem.tenant, ids)
    mem.relabel(user_id="p")
    again = mem.store.get_context_vectors(mem.tenant, ids)
    assert {it.id: [(lab.domain, lab.topic) for lab in it.labels] for it in mem.get_all(user_id="p")} == labels
    assert all(np.allclose(vecs[i], again[i], atol=1e-6) for i in ids)
    assert not mem.get_all(user_id="p", filters={"label.topic": "loans"})


def test_filler_turns_are_no_conversation(mem):
    """"ok", "thanks!", 好的 say nothing of the topic: a conversation of filler only anchors like no conversation
    (second fresh-user trial: filler flipped the sense of bare queries in 13 of 26 searches)."""
    mem.add(turns("We sat on the river bank and watched the ducks."), user_id="u", session_id="picnic",
            timestamp="2024-02-01T10:00:00Z")
    mem.add(turns("I opened a savings account at the bank.", "The interest rate is 4%."), user_id="u",
            session_id="money", timestamp="2024-04-01T10:00:00Z")
    alone = mem.search("What about the bank?", user_id="u", limit=3)
    for filler in (["ok", "thanks!"], ["好的", "嗯嗯", "谢谢"]):
        hits = mem.search("What about the bank?", user_id="u", context=filler, limit=3)
        assert [h.memory.id for h in hits] == [h.memory.id for h in alone]
        assert hits[0].explain["anchor"]["query_label_source"] == alone[0].explain["anchor"]["query_label_source"] \
            == "query+recent_session"
        assert "context_sim" not in hits[0].explain["anchor"]
    # a real turn among the filler still counts
    mixed = mem.search("What about the bank?", user_id="u", context=["ok", "Let's walk along the river."], limit=3)
    assert mixed[0].explain["anchor"]["query_label_source"].startswith("query+context")
