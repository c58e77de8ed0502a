"""A question about one of the user's own slots cites that slot's current claim, in either language and whoever
else the store holds facts about (answering.slot_evidence); one value said in two forms is one value; a claim's
words end where its clause goes on about something else (claims.value_clause)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.slot_evidence import about_household, asked_user_slots
from anchormem.facts.claims import claim_words, value_clause

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("question, slots", [
    ("我的狗叫什么？", ["dog_name", "dog_names"]),  # jieba glues 狗叫: read as 狗 + 叫
    ("What is my dog's name?", ["dog_name", "dog_names"]),
    ("我女儿多大了？", ["daughter_age", "kid_age", "child_age", "孩子_age"]),  # never son_age
    ("Where do I live?", ["home_city"]),
    ("我们家现在落脚在哪？", ["home_city"]),  # "we" / 我们家 is the user's household
    ("What is my wife called?", ["wife_name", "wife_names"]),
    ("Where do I work?", ["employer"]),
    ("我的房租是多少？", ["rent"]),  # 房租 is a word of its own: not 租 (live)
    ("Where does my brother live?", ["brother_home_city", "哥哥_home_city", "弟弟_home_city"]),
    ("Where does Caroline live?", []),  # someone else
    ("Where did I live before?", []),  # the past
    ("我打算搬去哪里？", []),  # a plan
    ("What did I eat yesterday?", []),  # no slot
])
def test_the_slot_a_question_asks_for(question, slots):
    assert asked_user_slots(question) == slots


def test_we_is_the_user():
    assert about_household("Where do we live now?") and about_household("我们住在哪里？")
    assert not about_household("Where does Melanie live?") and not about_household("他们住在哪里？")


@pytest.mark.parametrize("text, value, clause", [
    ("I live in 上海 with my wife 小红.", "上海", "I live in 上海"),
    ("I live in Lisbon together with my sister Ana.", "Lisbon", "I live in Lisbon"),
    ("I live in Lisbon near the river.", "Lisbon", "I live in Lisbon near the river."),  # describes the home
    ("I moved to Berlin last month.", "Berlin", "I moved to Berlin last month."),  # filler: nothing else said
    ("I drink wine with dinner.", "wine", "I drink wine with dinner."),  # one habit, not a name
])
def test_a_value_clause_ends_where_the_clause_goes_on(text, value, clause):
    assert value_clause(text, value) == clause
    assert claim_words(text, value) == clause


@pytest.fixture()
def mem():
    m = Memory(":memory:", embedder="hash", cache=False)
    yield m
    m.close()


def _first(mem: Memory, question: str, user: str) -> str | None:
    a = mem.ask(question, user_id=user)
    return None if a.abstained else a.citations[0].text


def test_a_question_in_the_other_language_cites_the_slot(mem):
    mem.add("My dog is called Rex.", user_id="a", timestamp=T)
    mem.add("My daughter turned 7 last week.", user_id="a", timestamp=T + timedelta(days=1))
    assert _first(mem, "我的狗叫什么？", "a") == "My dog is called Rex."
    assert _first(mem, "我女儿多大了？", "a") == "My daughter turned 7 last week."
    assert _first(mem, "我儿子多大了？", "a") is None  # no son recorded: no daughter for him


def test_a_relatives_fact_is_no_evidence_for_the_users_own_slot(mem):
    mem.add("I live in Boston.", user_id="b", timestamp=T)
    mem.add("My brother moved to Denver.", user_id="b", timestamp=T + timedelta(days=1))
    a = mem.ask("Where do I live?", user_id="b")
    assert [c.text for c in a.citations] == ["I live in Boston."]
    assert _first(mem, "Where does my brother live?", "b") == "My brother moved to Denver."


def test_a_partly_superseded_turn_answers_for_what_else_it_said(mem):
    mem.add("I live in 上海 with my wife 小红.", user_id="c", timestamp=T)
    mem.add("I moved to Hangzhou last month.", user_id="c", timestamp=T + timedelta(days=30))
    wife = _first(mem, "What is my wife called?", "c")
    assert wife is not None and "小红" in wife and "上海" not in wife
    assert _first(mem, "Where do I live?", "c") == "I moved to Hangzhou last month."


def test_one_place_in_two_scripts_is_no_change(mem):
    mem.add("I live in Tokyo.", user_id="d", timestamp=T)
    events = mem.add("我现在住在东京。", user_id="d", timestamp=T + timedelta(days=5))
    assert "SUPERSEDE" not in {e.event for e in events}
    assert _first(mem, "Where do I live?", "d") == "I live in Tokyo."


def test_we_live_is_the_users_home(mem):
    mem.add("我们住在苏州。", user_id="e", timestamp=T)
    assert _first(mem, "Where do I live?", "e") == "我们住在苏州。"
    assert _first(mem, "我住在哪里？", "e") == "我们住在苏州。"


@pytest.mark.parametrize("attribute, a, b, same", [
    ("salary", "1.2w", "一万二", True),
    ("salary", "12k", "twelve thousand", True),
    ("rent", "forty-five hundred", "4,500", True),
    ("rent", "forty-five hundred", "四千五", True),
    ("rent", "forty-five hundred", "四千二", False),
    ("home_city", "Tokyo", "东京", True),
])
def test_one_value_in_its_forms(attribute, a, b, same):
    from anchormem.facts.keys import same_value

    assert same_value(attribute, a, b) is same


def test_one_amount_said_in_two_forms_is_one_current_value(mem):
    mem.add("My rent is forty-five hundred a month.", user_id="f", timestamp=T)
    events = mem.add("我的房租是四千五。", user_id="f", timestamp=T + timedelta(days=3))
    assert "SUPERSEDE" not in {e.event for e in events}
    a = mem.ask("How much is my rent?", user_id="f")
    assert len([c for c in a.citations if c.fact is not None and c.fact.attribute == "rent"]) == 1


@pytest.mark.parametrize("token, parts", [
    ("狗叫", ("狗", "叫")),  # jieba glued the dog to its name verb
    ("猫叫", ("猫", "叫")),
    ("房租", ("房租",)),  # a word of its own
    ("喝咖啡", ("喝咖啡",)),  # a light verb and its object stay one term
    ("名字", ("名字",)),
])
def test_a_glued_chinese_token_reads_as_its_words(token, parts):
    from anchormem.answering.question import glued_parts

    assert glued_parts(token) == parts


def test_a_count_change_leaves_the_names_citable(e5):
    from anchormem.eval.embed_cache import eval_embedder

    mem = Memory(":memory:", embedder=eval_embedder(e5), cache=False)  # the change is read by meaning
    mem.add("家里有两只dog，Mochi和Latte。", user_id="g", timestamp=T)
    mem.add("又领养了一只shiba叫Kinako，现在三只狗了。", user_id="g", timestamp=T + timedelta(days=10))
    cited = [c.text for c in mem.ask("我的狗叫什么名字？", user_id="g").citations]
    assert any("Mochi" in t for t in cited) and any("Kinako" in t for t in cited)
    assert not any("两只" in t for t in cited)  # the old count is not shown as current
    mem.close()


def test_latest_first_puts_the_newest_citation_first_for_a_present_question_about_the_user():
    from anchormem.answering.slot_evidence import latest_first
    from anchormem.types import Answer, MemoryItem

    def item(i: int, text: str, day: int) -> MemoryItem:
        when = T + timedelta(days=day)
        return MemoryItem(id=f"m{i}", tenant="default", user_id="u", text=text, created_at=when, updated_at=when,
                          valid_from=when)

    old, new = item(1, "We own 2 cars.", 0), item(2, "It's just the Outback now.", 9)
    ans = Answer(text="", citations=[old, new], abstained=False)
    assert [m.id for m in latest_first(ans, "How many cars do we have?").citations] == ["m2", "m1"]
    assert [m.id for m in latest_first(ans, "How many cars did Melanie have?").citations] == ["m1", "m2"]
    assert [m.id for m in latest_first(ans, "How many cars did I have before?").citations] == ["m1", "m2"]
