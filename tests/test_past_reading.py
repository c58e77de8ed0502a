"""A past-tense question with no past word asks the past when its predicate is what the old value's turn said
(answering.past_reading); the change itself ("Which city did I move to?") and present questions still cite the
current value; 在哪住 asks the home."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.past_reading import past_tense
from anchormem.answering.slot_questions import asked_slots

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("question, past", [
    ("Which city did I share a house in?", True),
    ("What subject did I teach?", True),
    ("Where was my first apartment?", True),
    ("Which company employed me?", True),  # a verb in its simple past form
    ("Where do I live?", False),
    ("Where am I based?", False),  # "based" after a present auxiliary is a participle
    ("How many cats do I have left?", False),
    ("What is my job?", False),
    ("读研的时候我在哪个城市？", True),
    ("我去过哪些城市？", True),
    ("我对什么过敏？", False),  # 过敏 says no past
    ("我现在住在哪儿？", False),
])
def test_past_tense(question, past):
    assert past_tense(question) is past


@pytest.mark.parametrize("question", ["我在哪住？", "我现在在哪儿住？", "我在哪边住？"])
def test_zai_na_zhu_asks_the_home(question):
    assert asked_slots(question)[:1] == ["home_city"]


@pytest.fixture
def mem(e5):
    from anchormem.eval.embed_cache import eval_embedder

    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    yield m
    m.close()


def test_a_past_tense_question_about_the_old_turn_cites_the_past_then_the_present(mem):
    mem.add("I rent a room in a shared house in Leeds", user_id="a", timestamp=T)
    mem.add("Moved to Manchester last week, the new flat even has a balcony", user_id="a",
            timestamp=T + timedelta(days=70))
    ans = mem.ask("Which city did I share a house in?", user_id="a")
    assert not ans.abstained
    assert "Leeds" in ans.citations[0].text and ans.citations[0].valid_to is not None
    assert "true until 2024-03" in ans.text
    assert "Manchester" in ans.citations[1].text and ans.citations[1].valid_to is None
    assert ans.evidence[-1].explain["past_tense_of"] == ans.citations[0].id
    now = mem.ask("Where do I live?", user_id="a")  # the present is unchanged
    assert "Manchester" in now.citations[0].text


def test_a_past_tense_question_naming_the_change_asks_the_present(mem):
    mem.add("I live in Lisbon and work as a nurse.", user_id="b", timestamp=T)
    mem.add("I moved to Berlin last month.", user_id="b", timestamp=T + timedelta(days=60))
    ans = mem.ask("Which city did I move to?", user_id="b")
    assert not ans.abstained and "Berlin" in ans.citations[0].text
    assert "true until" not in ans.text.split('"')[0]


def test_a_chinese_aspect_question_reads_the_past(mem):
    mem.add("在武汉读研，住学校宿舍，四人间。", user_id="c", timestamp=T)
    mem.add("宿舍退了，在长沙租了个单间，离岳麓山不远。", user_id="c", timestamp=T + timedelta(days=180))
    ans = mem.ask("读研的时候我在哪个城市？", user_id="c")
    assert not ans.abstained and "武汉" in ans.citations[0].text
    assert "以前如此" in ans.text
