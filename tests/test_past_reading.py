"""A past-tense question with no past word asks the past when its predicate is what the old value's turn said
(answering.past_reading); the change itself ("Which city did I move to?") and present questions still cite the
current value; 在哪住 asks the home."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.past_reading import asks_about_asker, past_tense
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


@pytest.mark.parametrize("question, asker", [
    ("Which city did I share a house in?", True),
    ("涨之前房租是多少？", True),  # Chinese drops the subject: the asker's
    ("刚开始减肥时多重？", True),
    ("他之前住哪？", False),
    ("你之前说过什么？", False),  # the addressee
    ("Where did Caroline live before?", False),
])
def test_who_a_question_asks_about(question, asker):
    assert asks_about_asker(question) is asker


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


def test_an_as_of_question_in_other_words_reads_the_claims_valid_then(mem):
    mem.add("Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.", user_id="d", timestamp=T)
    mem.add("I moved to Berlin last month.", user_id="d", timestamp=T + timedelta(days=60))
    mem.add("我住在南京，在华为做硬件测试。", user_id="e", timestamp=T)
    mem.add("上个月搬到杭州了。", user_id="e", timestamp=T + timedelta(days=60))
    then = T + timedelta(days=1)
    ans = mem.ask("Where am I based?", user_id="d", as_of=then)
    assert not ans.abstained and "Lisbon" in ans.citations[0].text
    assert "Berlin" not in ans.text  # (as of then, a later end may or may not be noted: "based" is now read by its
    zh = mem.ask("我在哪住？", user_id="e", as_of=then)  # words, cite15, and the quote found is cited as it was then)
    assert not zh.abstained and "南京" in zh.citations[0].text and "杭州" not in zh.text
    assert "杭州" in mem.ask("我在哪住？", user_id="e").citations[0].text


def test_a_past_quote_ends_when_the_asked_slot_did():
    from anchormem.answering.successors import _past_view
    from anchormem.types import Claim, MemoryItem

    home_end, rent_end = T + timedelta(days=60), T + timedelta(days=120)
    claims = [Claim(fact_id="f-home", slot="user|home_city", value="Leeds", said_at=T, valid_from=T,
                    valid_to=home_end, superseded_by="f-new-home"),
              Claim(fact_id="f-rent", slot="user|rent", value="600", said_at=T, valid_from=T, valid_to=rent_end,
                    superseded_by="f-new-rent")]
    m = MemoryItem(id="m1", user_id="u", text="I live in Leeds and pay 600 rent.", created_at=T, valid_from=T,
                   valid_to=rent_end, claims=claims)
    assert _past_view(m, "f-new-home").valid_to == home_end
    assert _past_view(m, "f-new-rent").valid_to == rent_end


def test_a_chinese_past_question_without_a_subject_reads_the_closed_turns(mem):
    mem.add("房租一个月三千五，押一付三，跟对象合租，水电另算。", user_id="f", timestamp=T)
    mem.add("这个月开始房租变四千二了，房东说行情涨了。", user_id="f", timestamp=T + timedelta(days=300))
    ans = mem.ask("涨之前房租是多少？", user_id="f")
    assert not ans.abstained and "三千五" in ans.citations[0].text and "以前如此" in ans.text
    assert "四千二" in mem.ask("我每个月租金多少？", user_id="f").citations[0].text


@pytest.mark.parametrize("question, past, bare", [
    ("我跳槽前在哪家公司？", True, "我跳槽在哪家公司？"),  # a verb + 前: before that event
    ("续约前房租多少？", True, "续约房租多少？"),
    ("我目前住在哪个城市？", False, "我目前住在哪个城市？"),  # 目前: at present
    ("前端代码写好了吗？", False, "前端代码写好了吗？"),
])
def test_before_an_event_in_chinese_asks_the_past(question, past, bare):
    from anchormem.facts.claims import asks_past, without_past_words

    assert asks_past(question) is past
    assert without_past_words(question) == bare
