"""Latest said first when the write path read no change (answering.recency, issue #22 read path): the user's later
statement leads when the two statements are in one language whatever the question's ("Do I still play League?" of
"I play League every night, 基本打到两点。" and "游戏我已经不玩了"), when both are counts keyed by the word said ("4 hens"
/ "six birds"), and when the question counts the asker's relations ("How many children do I have?"); a statement
about someone else or a supposition is never marked earlier than an unrelated later one (fresh24 D11)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.recency import _keyed, asked_person
from anchormem.facts.stance import of_others

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("question, person", [
    ("how many children do I have?", ("user", "")),  # the asker's relations counted: the asker's own state
    ("我有几个孩子？", ("user", "")),
    ("How many kids do I have now?", ("user", "")),
    ("How old is my son?", ("", "son")),  # one relation's state
    ("我的女儿几岁？", ("", "daughter")),
    ("我姐姐有几个孩子？", None),  # a relation's relations
])
def test_asked_person_reads_a_count_of_the_askers_relations_as_theirs(question, person):
    assert asked_person(question) == person


@pytest.mark.parametrize("text, others", [
    ("My mate Dave just moved to Glasgow for a new job.", True),
    ("要是我搬回老家长沙，房租能省一半。", True),  # a supposition
    ("我朋友搬去上海了", True),
    ("My sister lives in Vancouver.", True),
    ("I work at Airbnb.", False),
    ("A glass of wine with dinner every night for me.", False),  # no person as the subject
    ("每天 screen time 平均 9 小时，iPhone 报告吓死人", False),  # (its present clauses are none: "平均")
    ("有点贵。", False),
    ("", False),
])
def test_of_others(text, others):
    assert of_others(text) is others


@pytest.mark.parametrize("slots, keyed", [
    ({"user|count:chicken"}, False), ({"user|does:league"}, False),  # keyed by the word said
    ({"user|home_city"}, True), ({"user|count:cat", "user|employer"}, True), (set(), False),
])
def test_keyed(slots, keyed):
    assert _keyed(slots) is keyed


@pytest.fixture
def mem(e5):
    from anchormem.eval.embed_cache import eval_embedder

    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    yield m
    m.close()


def test_two_statements_in_one_language_compare_whatever_the_questions_language(mem):
    # both statements are read in Chinese (text_language of the mixed turn): their lifts share one background, so
    # an English question does not keep the later one out (it was cited first only when all three were one language)
    mem.add("I play Overwatch every night, 基本打到一点。", user_id="g", timestamp=T)
    later = "守望先锋我已经不玩了，账号都卖了。"
    assert "SUPERSEDE" not in [e.event for e in mem.add(later, user_id="g", timestamp=T + timedelta(days=90))]
    ans = mem.ask("Do I still play Overwatch?", user_id="g")
    assert [c.text for c in ans.citations[:2]] == [later, "I play Overwatch every night, 基本打到一点。"]
    assert "an earlier statement, before 2024-03-31" in ans.text


def test_someone_elses_news_is_never_marked_earlier_than_an_unrelated_statement(mem):
    texts = ["I live in Leeds and rent is £900 a month.", "My mate Dave just moved to Glasgow for a new job.",
             "要是我搬回老家长沙，房租能省一半。", "Our cat Miso died last week, the flat is so quiet."]
    for i, text in enumerate(texts):
        mem.add(text, user_id="d", timestamp=T + timedelta(days=30 * i))
    block = mem.context(user_id="d", session_id="probe", query="Help me budget my monthly expenses")
    lines = [ln for s in block.sections if s.name == "memories" for ln in s.text.splitlines()[1:]]
    assert any("Dave" in ln for ln in lines) or any("长沙" in ln for ln in lines)
    assert not any(("Dave" in ln or "长沙" in ln) and ("earlier statement" in ln or "较早的说法" in ln) for ln in lines)


def test_an_ending_of_something_else_is_no_later_statement_of_a_typed_value(mem):
    """fresh26 D4: a later ending that names what it ends ("不跑步了") is no later statement of a value the write path
    typed (the rent): context() does not mark the current rent as earlier."""
    texts = ["月租6500，有点贵。", "杭州这边房租便宜多了，现在每月4200。", "膝盖不行了，不跑步了，改成每周游泳三次。"]
    for i, text in enumerate(texts):
        mem.add(text, user_id="r", timestamp=T + timedelta(days=20 * i))
    block = mem.context(user_id="r", session_id="probe", query="帮我推荐个周末运动")
    lines = [ln for s in block.sections if s.name == "memories" for ln in s.text.splitlines()[1:]]
    rent = [ln for ln in lines if "4200" in ln]
    assert rent and not any("较早的说法" in ln or "earlier statement" in ln for ln in rent)


def test_one_more_of_something_else_leaves_the_earlier_statement_current(mem):
    """fresh26 D16: "我们又领养了一只狗" adds a dog beside the cat; the cat is not "an earlier statement". One more of a
    count the earlier statement holds is still read as its later statement."""
    mem.add("我养了一只猫，叫豆豆。", user_id="p", timestamp=T)
    mem.add("我们又领养了一只狗，叫旺财。", user_id="p", timestamp=T + timedelta(days=20))
    ans = mem.ask("How many pets do I have?", user_id="p")
    assert {c.text for c in ans.citations} >= {"我养了一只猫，叫豆豆。", "我们又领养了一只狗，叫旺财。"}
    assert "earlier statement" not in ans.text and "较早的说法" not in ans.text
    from anchormem.answering.recency import _adds_other
    from types import SimpleNamespace
    holds = SimpleNamespace(claims=[SimpleNamespace(slot="user|count:cat", valid_to=None)])
    assert _adds_other("Adopted another dog yesterday", holds) is True
    assert _adds_other("Adopted another cat yesterday", holds) is False  # one more of the count it holds
    assert _adds_other("I moved to Berlin", holds) is False
