"""A statement about the past told as a state is a past value (issue #22, fresh24 D1/D2): it is stored already
closed, never closes the present value, present questions keep citing the present one and past questions find it;
a change told in the past tense still replaces the present value (anchormem.facts.aspect.past_state,
anchormem.facts.past_values)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.facts.aspect import past_state

JAN = datetime(2026, 1, 5, 9, tzinfo=timezone.utc)
APR = datetime(2026, 4, 22, 9, tzinfo=timezone.utc)
FIRST = "I live in Hangzhou and my rent is 5000 yuan a month."


@pytest.mark.parametrize("clause, value, past", [
    ("Before Shanghai I lived in Nanjing.", "", True),
    ("rent was 3500 there.", "", True),
    ("Rent was 3500 when I was in Nanjing.", "3500", True),
    ("以前在南京的时候房租才3500。", "", True),
    ("那时候住在南京。", "", True),
    ("I worked as a nurse.", "", True),
    ("I was living in Leeds.", "Leeds", True),
    ("I lived in Nanjing for three years before moving to Hangzhou.", "Nanjing", True),
    ("I lived in Nanjing for three years before moving to Hangzhou.", "Hangzhou", False),  # the move governs it
    # changes told in the past tense
    ("I moved to Berlin last month", "", False),
    ("I quit Google", "", False),
    ("My rent went up to 1400", "", False),
    ("My rent was raised to 1400.", "", False),  # a passive of an event verb
    ("I got promoted to lead", "", False),
    ("I was hired by Google.", "", False),
    ("I got a job at Google.", "", False),
    ("我搬到杭州了", "", False),
    ("房租涨到3500了", "", False),
    ("换了工作", "", False),
    ("我以前的房租是3000，现在涨到3500了。", "", False),
    # present, perfect, comparison, future
    ("I live in Hangzhou.", "", False),
    ("I've lived here for 5 years.", "", False),
    ("我住在南京。", "", False),
    ("房租比以前贵了。", "", False),
    ("I will be living in Leeds.", "", False),
    ("I'm based in Amsterdam.", "", False),  # a participle after a present auxiliary
    ("Weighed in at 212 this morning.", "", False),  # a reading of the last hours is the latest value
    ("It was 104 today.", "", False),
    ("If I were a baker I'd be so much happier.", "", False),
    ("Friday was my last shift.", "", True),  # a state clause; the ending fact it gives is a change (past_values)
])
def test_past_state_reads_state_against_change(clause, value, past):
    assert past_state(clause, value=value) is past


def test_a_past_frame_of_an_earlier_clause_sets_a_chinese_clause_in_the_past():
    assert past_state("房租才3500。", "以前在南京的时候，房租才3500。") is True
    assert past_state("房租才3500。", "在南京的时候，房租才3500。") is False


@pytest.fixture
def mem(e5):
    from anchormem.eval.embed_cache import eval_embedder

    m = Memory(":memory:", embedder=eval_embedder(e5), cache=False)
    yield m
    m.close()


def _said(m: Memory, text: str) -> list[tuple[str, str | None, str | None]]:
    m.add(FIRST, user_id="a", timestamp=JAN)
    return [(e.event, e.memory.fact.attribute if e.memory.fact else None, e.memory.fact.value if e.memory.fact else None)
            for e in m.add(text, user_id="a", timestamp=APR)]


def _first(m: Memory, question: str) -> str:
    ans = m.ask(question, user_id="a")
    assert not ans.abstained
    return ans.citations[0].text


@pytest.mark.parametrize("turn, stored", [
    ("Before Shanghai I lived in Nanjing for three years, rent was 3500 there.",
     [("rent", "3500"), ("home_city", "Nanjing")]),
    ("Before Shanghai I lived in Nanjing.", [("home_city", "Nanjing")]),
    ("Rent was 3500 when I was in Nanjing.", [("rent", "3500")]),
    ("以前在南京的时候房租才3500。", [("rent", "3500")]),
])
def test_a_past_state_is_stored_closed_and_the_present_stays(mem, turn, stored):
    events = _said(mem, turn)
    assert "SUPERSEDE" not in [e for e, _, _ in events]
    past = [(m.fact.attribute, m.fact.value, m.valid_to) for m in mem.get_all(user_id="a", include_superseded=True)
            if m.fact is not None and m.valid_to is not None]
    # held until the present value was said (2026-01-05), said on 2026-04-22
    assert sorted(past) == sorted((a, v, JAN) for a, v in stored)
    assert "Hangzhou" in _first(mem, "Where do I live?")
    assert "5000" in _first(mem, "How much is my rent?")
    assert "Hangzhou" in _first(mem, "我现在住哪？")


def test_past_questions_find_the_past_value(mem):
    _said(mem, "Before Shanghai I lived in Nanjing.")
    ans = mem.ask("Where did I live before?", user_id="a")
    assert ans.citations[0].text == "Before Shanghai I lived in Nanjing." and ans.citations[0].valid_to == JAN
    assert "true until 2026-01" in ans.text
    assert _first(mem, "我以前住哪里？") == "Before Shanghai I lived in Nanjing."


def test_a_past_rent_is_found_by_a_past_rent_question(mem):
    _said(mem, "以前在南京的时候房租才3500。")
    assert _first(mem, "我以前房租多少？") == "以前在南京的时候房租才3500。"
    assert _first(mem, "How much was my rent before?") == "以前在南京的时候房租才3500。"


def test_a_past_told_besides_a_restated_value_is_kept(mem):  # fresh24 D2
    events = _said(mem, "I lived in Nanjing for three years before moving to Hangzhou.")
    assert events == [("ADD", None, None), ("NOOP", "home_city", "Hangzhou")]
    assert _first(mem, "How long did I live in Nanjing?") == \
        "I lived in Nanjing for three years before moving to Hangzhou."
    assert "Hangzhou" in _first(mem, "Where do I live?")


@pytest.mark.parametrize("turn", ["Back in college I lived in Nanjing.", "我来杭州之前在南京住了三年。",
                                  "I grew up in Nanjing."])
def test_past_scenes_still_change_nothing(mem, turn):
    assert _said(mem, turn) == [("ADD", None, None)]
    assert "Hangzhou" in _first(mem, "Where do I live?")
    assert "5000" in _first(mem, "How much is my rent?")


@pytest.mark.parametrize("turn, slot, value, question", [
    ("I moved to Nanjing last month.", "home_city", "Nanjing", "Where do I live?"),
    ("我搬到南京了。", "home_city", "南京", "Where do I live?"),
    ("My rent went up to 5500.", "rent", "5500", "How much is my rent?"),
    ("房租涨到5500了。", "rent", "5500", "How much is my rent?"),
])
def test_a_change_told_in_the_past_still_replaces_the_present(mem, turn, slot, value, question):
    events = _said(mem, turn)
    assert ("ADD", slot, value) in events and [e for e, s, _ in events if s == slot] == ["ADD", "SUPERSEDE"]
    assert _first(mem, question) == turn


@pytest.mark.parametrize("turn, value", [("My rent was 3500.", "3500"), ("I lived in Nanjing for three years.", "Nanjing")])
def test_a_first_statement_in_the_past_tense_is_the_value_known(mem, turn, value):
    evs = list(mem.add(turn, user_id="b", timestamp=JAN))
    assert [(e.event, e.memory.fact.value if e.memory.fact else None, e.memory.valid_to) for e in evs] == \
        [("ADD", value, None)]


def test_past_value_reads_the_clause_holding_the_value_and_never_an_ending():
    from anchormem.facts.model import Fact
    from anchormem.facts.past_values import past_besides, past_value
    from anchormem.types import FactSlot

    def fact(attribute, value, span, polarity=1):
        f = Fact(attribute=attribute, value=value, source_span=span, polarity=polarity)
        return f, FactSlot(entity="user", attribute=attribute, value=f.value, polarity=polarity)

    said = "Before Shanghai I lived in Nanjing for three years, rent was 3500 there."
    assert past_value(*fact("rent", "3500", said)) is True
    assert past_value(*fact("home_city", "Nanjing", said)) is True
    moved = "I lived in Nanjing for three years before moving to Hangzhou."
    assert past_value(*fact("home_city", "Hangzhou", moved)) is False
    assert past_besides(*fact("home_city", "Hangzhou", moved)) is True
    assert past_besides(*fact("home_city", "Hangzhou", "I live in Hangzhou.")) is False
    assert past_value(*fact("employer", "shift", "Friday was my last shift.", polarity=-1)) is False
