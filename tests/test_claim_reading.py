"""A question about the user reads as the slot of their own claim nearest in meaning (answering.claim_reading):
in the other language, in other words, for an ending, and for the past; a turn near for what else it says, a
relative's slot and a plan are not read as the user's slot."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.claim_reading import nearest_claim_slots, own_slot, person_singular
from anchormem.answering.tense import asks_present

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("slot, owners, own", [
    ("user|home_city", frozenset(), True),
    ("user|count:child", frozenset(), True),  # the user's own count of children
    ("user|amount:3f9a1c2b.0", frozenset(), True),
    ("user|brother_home_city", frozenset(), False),  # a relative's
    ("user|哥哥_home_city", frozenset(), False),
    ("user|daughter_age", frozenset(), False),
    ("user|dog_breed", frozenset(), False),  # the dog's: "What breed is my horse?" does not read as it
    ("user|dog_breed", frozenset({"dog"}), True),
    ("caroline|home_city", frozenset(), False),  # another speaker's
    ("user|count:child", frozenset({"children"}), True),  # "How many children do I have?"
    ("user|daughter_age", frozenset({"daughter"}), True),
    ("user|home_city", frozenset({"children"}), False),  # a question about the children is not about the home
])
def test_whose_slot_a_question_may_read(slot, owners, own):
    assert own_slot(slot, owners) is own


@pytest.mark.parametrize("word, singular", [("children", "child"), ("kids", "kid"), ("Moms", "mother"),
                                            ("弟弟", "弟弟"), ("commute", "commute")])
def test_person_words_in_the_singular(word, singular):
    assert person_singular(word) == singular


def test_how_long_it_takes_is_no_plan():
    assert asks_present("我上班路上要多久？")  # 要多久: what it takes now
    assert asks_present("我的健身卡要多少钱？")
    assert not asks_present("我下个月要搬去哪？")  # 要 + a verb: a plan


@pytest.fixture
def mem(e5):
    from anchormem.eval.embed_cache import eval_embedder

    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    yield m
    m.close()


def _first(mem: Memory, question: str, user: str) -> str:
    ans = mem.ask(question, user_id=user)
    assert not ans.abstained, question
    return ans.citations[0].text


def test_a_count_asked_in_the_other_language_cites_the_current_count(mem):
    mem.add("I have two rabbits, 叫 Coco 和 Bean。", user_id="a", timestamp=T)
    mem.add("又领养了一只, so three rabbits now.", user_id="a", timestamp=T + timedelta(days=30))
    assert "three rabbits" in _first(mem, "我有几只兔子？", "a")


def test_a_paraphrased_question_cites_the_current_value_and_its_past_form_the_old_one(mem):
    mem.add("我每天通勤要一个小时，公交换两趟。", user_id="b", timestamp=T)
    mem.add("搬家以后，通勤只要十分钟了。", user_id="b", timestamp=T + timedelta(days=60))
    assert "十分钟" in _first(mem, "我上班路上要多久？", "b")
    assert "一个小时" in _first(mem, "我以前通勤多久？", "b")


def test_an_ending_answers_its_slot(mem):
    mem.add("I'm a line cook at Nopa, and I take pottery classes on Sundays.", user_id="c", timestamp=T)
    mem.add("Handed in my notice at Nopa, Saturday was my last shift.", user_id="c",
            timestamp=T + timedelta(days=45))
    assert "notice" in _first(mem, "Where do I work at the moment?", "c")


def test_a_turn_near_for_what_else_it_says_gives_no_slot(mem):
    mem.add("I have 12 bonsai trees, my favorite is a juniper named Kenji.", user_id="d", timestamp=T)
    mem.add("the garden centre had a sale. tree count: 17.", user_id="d", timestamp=T + timedelta(days=20))
    scope = mem._scope("d", None, None)
    qv = mem._searcher.embed_query("how many trees do I own?", scope)
    assert nearest_claim_slots(qv, mem.store, scope, mem.embedder) == []  # not the favourite


def test_a_relatives_claim_is_not_the_users_slot(mem):
    mem.add("My brother moved to Denver last spring.", user_id="e", timestamp=T)
    scope = mem._scope("e", None, None)
    qv = mem._searcher.embed_query("Which city am I based in these days?", scope)
    assert nearest_claim_slots(qv, mem.store, scope, mem.embedder) == []


@pytest.mark.parametrize("question, past", [
    ("What did the rent use to be?", True),
    ("What was my previous employer?", True),
    ("what was my old job title?", True),
    ("我上一家公司是哪个？", True),
    ("我第一份工作在哪？", True),
    ("How old is my daughter?", False),  # "old" alone is no past
    ("What is my first name?", False),
    ("我目前住哪？", False),
])
def test_past_words_without_before(question, past):
    from anchormem.facts.claims import asks_past

    assert asks_past(question) is past
