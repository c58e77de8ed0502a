"""Which memory the query's own words single out (ContextAnchor.singled_out): a lead in BM25 counts only when it is
a lead in *telling* words (coverage); the singled-out memory agrees fully with the query's labels; candidates that
both anchoring signals reject are dropped, never all of them."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from anchormem import Memory
from anchormem.context.anchor import ContextAnchor, QueryContext
from anchormem.context.wording import coverage
from anchormem.context.taxonomy import DOMAIN_NAMES
from anchormem.embedders import make_embedder
from anchormem.text.tokenize import term_coverage
from anchormem.types import Hit, Label, MemoryItem

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def anchor():
    return ContextAnchor(make_embedder("hash"))


def hit(text: str, session: str, *, bm25: float | None, dense: float, domain: str = "nature",
        score: float = 1.0) -> Hit:
    item = MemoryItem(id=f"{session}:{text}", user_id="u", text=text, session_id=session, created_at=NOW,
                      valid_from=NOW, labels=[Label(domain=domain, score=1.0, primary=True)])
    return Hit(memory=item, score=score, explain={"dense": dense, "bm25": bm25})


def test_term_coverage_stems_latin_words_and_finds_chinese_terms_inside_compounds():
    got = term_coverage(["pounds", "hedgehog", "云", "小米"], ["Five pounds of hedgehogs.", "云盘满了，黄小米", "pound"])
    assert got == [{0, 1}, {2, 3}, {0}]
    assert term_coverage([], ["anything"]) == [set()]


def test_coverage_weighs_telling_words_only():
    hits = [hit("I paid a pound, a pound and a pound.", "a", bm25=9.0, dense=0.8),
            hit("It weighs a pound.", "b", bm25=4.0, dense=0.8),
            hit("A pound of apples.", "c", bm25=4.0, dense=0.8)]
    # "pound" is held by every candidate and "say" frames the request: nothing tells
    assert {k: v[0] for k, v in coverage("What did I say about the pound?", hits).items()} == \
        {h.memory.id: 0.0 for h in hits}
    cov = coverage("How many apples in a pound?", hits)
    assert cov[hits[2].memory.id][1] == frozenset({"apples"}) and cov[hits[2].memory.id][0] > 0
    assert cov[hits[0].memory.id] == (0.0, frozenset())
    assert coverage("what did you say about it?", hits) == {}  # no query terms at all


def test_a_bm25_lead_from_repeating_the_word_singles_out_nothing(anchor):
    heavy = hit("There were coins of one pound, five pounds and ten pounds.", "money", bm25=12.0, dense=0.86)
    light = hit("The puppy weighed one pound at birth.", "weight", bm25=5.0, dense=0.84)
    q = "What did I say about the pound?"
    assert anchor.singled_out([heavy, light], 0.02, 1.5) is heavy  # BM25 scores alone: 12 ≥ 1.5 × 5
    assert anchor.singled_out([heavy, light], 0.02, 1.5, query=q) is None  # both hold the same word
    assert anchor.singled_out([heavy, light], 0.02, 1.5, query="What did you tell me?") is None  # no words at all


def test_more_of_the_query_words_single_a_memory_out(anchor):
    target = hit("Bestiae contained pig, armadillo, hedgehog, mole, shrew.", "taxon", bm25=14.0, dense=0.83)
    rival = hit("Molars are present in shrew, mole, and bat.", "teeth", bm25=12.0, dense=0.84)
    spies = [hit(f"He was unmasked as a mole in {1650 + i}.", f"spy{i}", bm25=3.0, dense=0.80) for i in range(4)]
    hits = [target, rival, *spies]
    q = 'What did I say about "hedgehog, mole, shrew"?'
    assert anchor.singled_out(hits, 0.02, 1.5) is None  # BM25 14 < 1.5 × 12, no dense lead
    assert anchor.singled_out(hits, 0.02, 1.5, query=q) is target  # hedgehog + shrew against shrew


def test_a_rare_word_alone_does_not_single_out_a_memory_without_the_query_noun(anchor):
    """"是山西产的黄小米" holds 产, rarer than 芒果, but not 芒果: no lead in words."""
    millet = hit("是山西产的黄小米。", "millet", bm25=6.6, dense=0.87, domain="food")
    mango = [hit("我在菜市场买了一箱芒果。", "mango", bm25=9.3, dense=0.917, domain="food"),
             hit("芒果上新出的那部古装剧我追完了。", "video", bm25=4.9, dense=0.88, domain="entertainment"),
             hit("我开通了芒果的年度会员。", "video2", bm25=5.2, dense=0.888, domain="entertainment")]
    rest = [hit(f"无关的第{i}条。", f"x{i}", bm25=None, dense=0.5, domain="work") for i in range(6)]
    hits = [millet, *mango, *rest]
    q = "我买的芒果是哪里产的？"
    assert coverage(q, [h for h in hits if h.explain["bm25"] is not None])[millet.memory.id][1] == frozenset({"产"})
    # the BM25 + dense branch still singles out the memory that holds 芒果 and leads in both retrievers
    assert anchor.singled_out(hits, 0.02, 1.5, query=q) is mango[0]


def test_the_singled_out_memory_agrees_fully_and_rejected_candidates_are_dropped(anchor):
    q = np.zeros(len(DOMAIN_NAMES), dtype=np.float32)
    q[DOMAIN_NAMES.index("nature")] = 1.0
    multi = hit("A taxon of hedgehogs and moles.", "taxon", bm25=1.0, dense=0.8, score=0.080)
    multi.memory.labels = [Label(domain="nature", score=1.0, primary=True),
                           Label(domain="entertainment", score=0.9, primary=False)]
    plain = hit("Moles eat worms.", "worms", bm25=1.0, dense=0.8, score=0.075)
    far = hit("The spreadsheet has a mole column.", "sheet", bm25=1.0, dense=0.8, score=0.2, domain="work")
    out = anchor.rerank([multi, plain, far], QueryContext(dist=q), weight=0.8, min_label=0.2, full_label=0.6)
    assert [h.memory.id for h in out] == [plain.memory.id, multi.memory.id, far.memory.id]  # multi: factor 0.85
    for h, score in ((multi, 0.080), (plain, 0.075), (far, 0.2)):
        h.score = score
    out = anchor.rerank([multi, plain, far], QueryContext(dist=q), weight=0.8, min_label=0.2, full_label=0.6,
                        pick=multi, drop=0.5)
    assert [h.memory.id for h in out] == [multi.memory.id, plain.memory.id]  # far: factor 0.2 < 0.5 × 1.0
    assert multi.explain["anchor"]["label_rel"] == 1.0 and multi.explain["anchor"]["factor"] == 1.0
    # every candidate rejected alike: the best stay (a search never comes back empty)
    lone = hit("Only this one.", "s", bm25=1.0, dense=0.8, score=0.1, domain="work")
    assert len(anchor.rerank([lone], QueryContext(dist=q), weight=0.8, min_label=0.2, drop=0.5)) == 1


def test_template_query_follows_the_conversation_not_the_memory_that_repeats_the_word():
    m = Memory(":memory:", search="anchored", cache=False)
    try:
        u = "pound"
        m.add(turns("The exchange rate of the pound fell again: pound, pound, pound, all down.",
                    "I changed my savings from pounds to euros at the bank."), user_id=u, session_id="currency")
        m.add(turns("The puppy weighed one pound at birth.", "Now she gains a pound of weight every week."),
              user_id=u, session_id="weight")
        ctx = ["The vet weighed my puppy on the scale today.", "She is growing so fast."]
        hits = m.search("What did I say about the pound?", user_id=u, context=ctx, limit=2)
        assert hits[0].explain["anchor"]["query_label_source"] == "query+context"  # nothing singled out
        assert [h.memory.session_id for h in hits] == ["weight", "weight"]
    finally:
        m.close()


def turns(*texts):
    return [{"role": "user", "content": t} for t in texts]


def test_a_word_only_one_memory_holds_finds_it_inside_a_conversation_about_something_else():
    """The trial's case: "What did I say about the ducks?" in a conversation about money must not lose the one
    memory with "ducks" (it used to be label-filtered, then dropped); the same in Chinese with 朋友圈."""
    m = Memory(":memory:", search="anchored", cache=False)
    try:
        def sess(sid, texts):
            m.add([{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(texts)],
                  user_id="u", session_id=sid, timestamp="2024-03-01T10:00:00Z")

        sess("money", ["I need to sort out my finances this month.", "Sure, what do you want to start with?",
                       "I opened a savings account at the bank with a 4% interest rate."])
        sess("picnic", ["We had a lovely picnic last Sunday by the river.", "Sounds nice!",
                        "We sat on the bank and watched the ducks for hours."])
        sess("fruit", ["我想做个水果沙拉。", "我拿着苹果手机拍了一篮子苹果，发到朋友圈。"])
        hits = m.search("What did I say about the ducks?", user_id="u", limit=10,
                        context=["I'm checking my budget for next month.", "How much do I have saved?"])
        assert hits[0].memory.text == "We sat on the bank and watched the ducks for hours."
        assert hits[0].explain["anchor"]["gate"] is None  # one memory holds it: the hybrid order stands
        hits = m.search("我发到朋友圈的是什么？", user_id="u", limit=10, context=["我的手机最近很卡。", "想换个新手机。"])
        assert hits[0].memory.text == "我拿着苹果手机拍了一篮子苹果，发到朋友圈。"
    finally:
        m.close()


def test_chinese_terms_lose_only_the_pronoun_or_particle_jieba_glued_on():
    from anchormem.context.wording import _strip_function_chars

    assert [_strip_function_chars(t) for t in ("我用", "你说的", "买的", "之前", "关于", "提过", "我", "bank")] == [
        "用", "说", "买", "之前", "关于", "提过", "我", "bank"]
    hits = [hit(t, f"s{i}", bm25=1.0, dense=0.8) for i, t in enumerate(["我之前说过苹果。", "苹果很好吃。", "我买了苹果。"])]
    # recall-framing words (之前, 说过, 关于, 提过) never tell, stripped or not
    assert all(v == (0.0, frozenset()) for v in coverage("我之前说的苹果怎么样了？", hits).values())
    assert all(v == (0.0, frozenset()) for v in coverage("关于苹果我说过什么？", hits).values())


def test_an_answer_type_word_does_not_single_out_the_other_sense():
    """"How much did the apple cost?" at the market must not find the iPhone that "cost 6000" (and 苹果多少钱？ about
    phones must not find the fruit bought with 钱): words naming the kind of answer (cost, 钱, when, 哪里) tell
    nothing about which sense is meant, so the conversation decides."""
    m = Memory(":memory:", search="anchored", cache=False)
    try:
        def sess(sid, texts, ts):
            m.add(turns(*texts), user_id="u", session_id=sid, timestamp=ts)

        sess("market", ["I went to the farmers market this morning.",
                        "I bought a bag of apples there, they were so crisp."], "2024-03-01T10:00:00Z")
        sess("phone", ["My old phone finally died.", "I bought a new Apple iPhone, it cost 6000 yuan."],
             "2024-03-05T10:00:00Z")
        sess("水果", ["今天去菜市场买水果。", "我买了几斤苹果，花了二十块钱。"], "2024-03-08T10:00:00Z")
        sess("手机", ["我的手机屏幕碎了。", "我换了一部苹果手机，是最新款。"], "2024-03-09T10:00:00Z")
        market = ["I'm planning what fruit to buy at the market this weekend.", "Fresh produce is cheaper there."]
        hits = m.search("How much did the apple cost?", user_id="u", context=market, limit=3)
        assert hits[0].memory.text == "I bought a bag of apples there, they were so crisp."
        # anchoring reorders, it does not drop (anchor_demote): the other sense only after every memory of this one
        wrong = [i for i, h in enumerate(hits) if h.memory.session_id in ("phone", "手机")]
        assert all(hits[i].explain["anchor"].get("demoted") for i in wrong)
        assert not wrong or all(h.memory.session_id not in ("phone", "手机") for h in hits[:wrong[0]])
        phones = ["我想换个新手机。", "现在的手机都好贵。"]
        hits = m.search("苹果多少钱？", user_id="u", context=phones, limit=3)
        assert hits[0].memory.text == "我换了一部苹果手机，是最新款。"
        wrong = [i for i, h in enumerate(hits) if h.memory.session_id in ("market", "水果")]
        assert all(hits[i].explain["anchor"].get("demoted") for i in wrong)
        # no price of the phone was recorded: ask says so rather than quoting the fruit's price
        ans = m.ask("苹果多少钱？", user_id="u", context=phones)
        assert ans.abstained and ans.citations == []
    finally:
        m.close()


def test_answer_type_words_never_tell():
    hits = [hit(t, f"s{i}", bm25=1.0, dense=0.8) for i, t in
            enumerate(["My phone cost 6000.", "A bag of apples.", "我买了苹果，花了二十块钱。", "苹果手机。"])]
    assert coverage("How much did it cost?", hits) == {} and coverage("多少钱？", hits) == {}  # no telling terms left
    cov = coverage("How much did the apple cost?", hits)
    assert cov[hits[0].memory.id] == (0.0, frozenset())  # "cost" is no lead for the phone
    assert cov[hits[1].memory.id][1] == frozenset({"apple"})
    cov = coverage("苹果多少钱？", hits)
    assert cov[hits[2].memory.id] == cov[hits[3].memory.id]  # 钱 gives the fruit memory no lead over the phone
    assert cov[hits[2].memory.id][1] == frozenset({"苹果"})
