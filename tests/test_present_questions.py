"""A question placed now by a present marker ("now", "these days", "at the moment", 现在) asks what holds now, also
in the present progressive ("Which restaurant am I cooking at now?"), and its marker is a light term; a household
question ("we", 我家) reads a known place it names as a place, not as someone else (issue #22, cite15)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.answering.question import analyze_question
from anchormem.answering.slot_evidence import about_household, asked_user_slots
from anchormem.answering.tense import asks_plan, asks_present

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("question, present", [
    ("Which restaurant am I cooking at now?", True),
    ("Where am I staying these days?", True),
    ("Am I still running D&D on Fridays?", True),
    ("How am I earning money at the moment?", True),
    ("Where am I living nowadays?", True),
    ("Where is my sister getting married?", False),  # the progressive with no present marker: an arrangement
    ("Am I still moving to Berlin next month?", False),  # a plan word ("moving", "next") stays a plan
    ("What am I doing this weekend?", False),
    ("我现在住哪？", True),
    ("我打算搬去哪里？", False),
])
def test_a_present_marker_makes_the_progressive_present(question, present):
    assert asks_present(question) is present
    assert asks_plan(question) is (not present)


def test_present_markers_are_light_terms():
    terms = dict(analyze_question("What city am I based in at the moment?").terms)
    assert terms == {"city": 0.35, "based": 1.0, "moment": 0.35}
    assert dict(analyze_question("Where am I living nowadays?").terms) == {"living": 1.0, "nowadays": 0.35}
    assert dict(analyze_question("我目前住哪？").terms) == {"目前": 0.35, "住": 1.0}
    # "What do I do for a living?" asks for a job with a present marker after it too
    assert dict(analyze_question("What do I do for a living now?").terms) == {"now": 0.35, "occupation": 1.0}


def test_function_words_and_the_household_are_no_key_terms():
    assert [t for t, _ in analyze_question("How much does my streaming plan cost per month?").terms] == \
        ["streaming", "plan", "cost", "month"]
    assert [t for t, _ in analyze_question("我家狗多大了？").terms] == ["狗", "大"]  # 我家: "our", not 家 (home)


def test_a_household_question_reads_a_known_place_as_a_place():
    q = "Which Tokyo neighborhood do we live in now?"
    info = analyze_question(q)
    assert info.names == [] and info.places == ["Tokyo"]
    assert about_household(q) and asked_user_slots(q) == ["home_city"]
    assert not about_household("Which city does Anna live in?")  # a person named: someone else
    assert not about_household("Where does Melanie live in Tokyo?")
    assert not about_household("Do I live in London?")  # whether the place is the value: the evidence test's


def test_a_yes_no_question_naming_a_place_is_not_answered_by_the_slot():
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        m.add("I live in Leeds.", user_id="u")
        assert m.ask("Do I live in Paris?", user_id="u").abstained


@pytest.fixture()
def mem():
    m = Memory(":memory:", embedder="hash", cache=False)
    yield m
    m.close()


def test_a_household_question_naming_a_place_cites_the_current_home(mem):
    mem.add("We live in Osaka, twelve minutes to the station.", user_id="h", timestamp=T)
    mem.add("Moving truck came this morning. We moved to Kyoto.", user_id="h", timestamp=T + timedelta(days=150))
    a = mem.ask("Which Japan city do we live in now?", user_id="h")  # "Japan": a place, not someone else
    assert not a.abstained and "Kyoto" in a.citations[0].text
