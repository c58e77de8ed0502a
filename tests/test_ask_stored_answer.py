"""ask answers present-state questions whose answer is stored in other words (issue #22/#23 abstentions): an amount
for a price question (多少钱 by 八块), a child word by a son or daughter (孩子 by 女儿), an inflected word by its stem
(shipping by ship), a place after a comma that addresses no one ("…Baker Street, London."), a compound by its
translation (手机套餐 by "phone plan"), a membership that is no owner (网易云会员); and the same questions abstain when
nothing stored answers them. Real multilingual-e5-small (the eval embed cache when $ANCHORMEM_EVAL_EMBED_CACHE is
set)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.amounts import amount_covers, asked_kind, asked_period
from anchormem.answering.evidence import _undoubled
from anchormem.answering.persons import stated_text
from anchormem.answering.question import analyze_question
from anchormem.eval.embed_cache import eval_embedder
from anchormem.facts.keys import kin_covers
from anchormem.facts.places import known_place

T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)

# (stored turns, question, the first citation, or None: must abstain)
CASES = [
    (["苹果一斤八块。"], "苹果多少钱一斤？", "苹果一斤八块。"),
    (["我女儿今年上小学三年级，学校在西湖区。"], "孩子在哪上学？", "我女儿今年上小学三年级，学校在西湖区。"),
    (["我开的是本田思域。", "把思域卖了，换了台比亚迪汉。"], "我开什么车？", "把思域卖了，换了台比亚迪汉。"),
    (["Please ship it to 12 Baker Street, London."], "What's my shipping address?",
     "Please ship it to 12 Baker Street, London."),
    (["My phone plan is $40 a month."], "我手机套餐多少钱？", "My phone plan is $40 a month."),
    (["订了腾讯视频、网易云黑胶和B站大会员。", "网易云会员退订了，听歌现在用QQ音乐免费的。"], "我还开着网易云会员吗？",
     "网易云会员退订了，听歌现在用QQ音乐免费的。"),
    (["I live in Toronto.", "I moved to Vancouver."], "Where did I live before Vancouver?", "I live in Toronto."),
    (["My daughter Mia is 6 and obsessed with dinosaurs.",
      "Mia turned seven on Saturday, we did a dino cake obviously."], "How old is Mia?",
     "Mia turned seven on Saturday, we did a dino cake obviously."),
    # nothing stored answers these: abstain
    (["I love hiking in the mountains."], "我手机套餐多少钱？", None),
    (["I'm allergic to peanuts."], "What's my shipping address?", None),
    (["苹果很甜，我每天吃一个。"], "苹果多少钱一斤？", None),
    (["我女儿今年上小学三年级，学校在西湖区。"], "我儿子在哪上学？", None),
    (["I was born in 1990.", "I have a cat."], "How old is my cat?", None),
]


@pytest.fixture(scope="module")
def answers(e5):
    """{question index: (abstained, first cited text)}."""
    out = {}
    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    try:
        for k, (texts, q, _) in enumerate(CASES):
            for i, text in enumerate(texts):
                m.add(text, user_id=f"u{k}", timestamp=T0 + timedelta(days=i))
            a = m.ask(q, user_id=f"u{k}")
            out[k] = (a.abstained, a.citations[0].text if a.citations else None)
    finally:
        m.close()
    return out


@pytest.mark.parametrize("k", range(len(CASES)), ids=[f"{c[1]}|{c[0][-1][:20]}" for c in CASES])
def test_stored_answer_is_cited_or_abstains(answers, k):
    abstained, first = answers[k]
    gold = CASES[k][2]
    if gold is None:
        assert abstained, first
    else:
        assert not abstained
        assert first == gold


@pytest.mark.parametrize("term, text, covered", [
    ("钱", "苹果一斤八块。", True),
    ("钱", "苹果很甜。", False),
    ("钱", "苹果一斤。", False),  # a weight is no price
    ("cost", "netflix is $17.99 a month now", True),
    ("month", "$17.99 a month", True),
    ("month", "$17.99", False),
    ("一个月", "升到Pro了，200刀一个月。", True),
    ("price", "I have 3 cats.", False),
    ("apple", "$5 a month", False),  # not an amount word
])
def test_amount_covers(term, text, covered):
    assert amount_covers(term, text) is covered


def test_amount_words():
    assert asked_kind("钱") == asked_kind("cost") == asked_kind("价格") == "money"
    assert asked_kind("old") == asked_kind("几岁") == "age"
    assert asked_kind("apple") is None and asked_kind("birthday") is None
    assert asked_period("monthly") == asked_period("一个月") == asked_period("months") == "month"
    assert asked_period("money") is None


@pytest.mark.parametrize("word, stem_", [("shipping", "ship"), ("shipped", "ship"), ("ship", "ship"),
                                         ("planning", "plan"), ("addresses", "address"), ("calling", "call"),
                                         ("running", "run")])
def test_undoubled_stem(word, stem_):
    assert _undoubled(word) == stem_


@pytest.mark.parametrize("asked, said, covers", [
    ("孩子", "daughter", True), ("child", "son", True), ("kid", "孩子", True),
    ("daughter", "孩子", False), ("son", "daughter", False), ("daughter", "daughter", True),
])
def test_child_words(asked, said, covers):
    assert kin_covers(asked, said) is covers


def test_place_after_a_comma_addresses_no_one():
    assert known_place("London") and not known_place("Melanie") and not known_place("london")
    text = "Please ship it to 12 Baker Street, London."
    assert stated_text(text, about_speaker=True) == text
    assert stated_text("That sounds great, Mel!", about_speaker=True) == ""


def test_question_about_the_asker_names_a_place_not_a_subject():
    q = analyze_question("Where did I live before Vancouver?")
    assert q.names == [] and q.places == ["Vancouver"]
    assert ("vancouver", 1.0) in q.terms
    q = analyze_question("When did Caroline go to Sweden?")  # about a person: unchanged
    assert q.names[0] == "Caroline" and q.places == []


def test_membership_is_no_owner():
    assert ("会员", 1.0) in analyze_question("我还开着网易云会员吗？").terms
    assert all(t != "用户" for t, _ in analyze_question("用户喜欢吃辣吗？").terms)
    assert all(t != "客户" for t, _ in analyze_question("这位客户对什么过敏？").terms)
