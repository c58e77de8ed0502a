"""Change detection by meaning (anchormem.facts.meaning): the offline fallback for wordings the rules and frames
do not list. The changes below are worded unlike every exemplar of data/lang/*/slot_exemplars.json (checked by
``test_the_wordings_are_not_exemplars``), so they test the mechanism, not a listed sentence."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import langdata
from anchormem.facts.llm_extract import pick_extractor
from anchormem.facts.meaning import clause_units, typed_values
from anchormem.facts.rules import extract_from_text

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 6, 1, tzinfo=timezone.utc)

CHANGES = [  # (first, change, slot, old value, new value)
    ("I've lived in Glasgow my whole life.", "We just bought a house in Edinburgh and moved in on Saturday.",
     "home_city", "Glasgow", "Edinburgh"),
    ("I'm living in Quebec City.", "I'm a Montreal resident now.", "home_city", "Quebec City", "Montreal"),
    ("My salary is 50000.", "They pay me 56000 now.", "salary", "50000", "56000"),
    ("My daughter is 8.", "We threw a party for my daughter's 9th birthday.", "daughter_age", "8", "9"),
    ("My gym membership is 25 a month.", "The gym put the price up to 30.", "gym_membership", "25 a month", "30"),
]
NEAR_MISSES = [  # (first, a turn that must retire nothing)
    ("I live in Hamburg.", "I'm flying to Munich for a conference next week."),
    ("I work at Airbus.", "I had an interview with Boeing yesterday."),
    ("My gym membership is 25 a month.", "The gym had 30 people in the class today."),
    ("I drink wine most evenings.", "I had a glass of wine with dinner."),
    ("I'm a vegetarian.", "I cooked chicken for my kids."),
    ("I live in Oslo.", "I spent a week in Bergen."),
]


def _events(m, first, then, user="u"):
    m.add(first, user_id=user, timestamp=T1)
    return list(m.add(then, user_id=user, timestamp=T2))


def test_the_wordings_are_not_exemplars():
    bank = langdata.load("slot_exemplars", "en")
    texts = {t for s in bank["slots"].values() for t in s["examples"]} | set(bank["none"])
    for row in CHANGES + NEAR_MISSES:
        assert row[1] not in texts


def test_the_rules_alone_miss_these_changes():
    for _, change, slot, _, _ in CHANGES:
        assert all(f.attribute != slot for f in extract_from_text(change))


@pytest.mark.parametrize("first,change,slot,old,new", CHANGES)
def test_a_change_worded_unlike_any_exemplar_supersedes(mem_e5, first, change, slot, old, new):
    evs = _events(mem_e5, first, change)
    sup = [e for e in evs if e.event == "SUPERSEDE"]
    assert [e.memory.fact.value for e in sup] == [old]
    added = [e.memory.fact for e in evs if e.event == "ADD" and e.memory.fact is not None]
    # (a home at a known place with a home word, "bought a house in Edinburgh", is read first by the place reader;
    # an amount or an age of a known attribute by the quantity reader: facts.quantities)
    by = "places" if new == "Edinburgh" else "quantities" if slot in ("salary", "daughter_age") else "meaning"
    assert [(f.attribute, f.value, f.polarity, f.extractor) for f in added] == [(slot, new, 1, by)]
    cur = [m.fact.value for m in mem_e5.get_all(user_id="u") if m.fact is not None and m.fact.attribute == slot]
    assert cur == [new]


def test_an_ending_closes_the_habit_it_names(mem_e5):
    evs = _events(mem_e5, "I drink wine most evenings.", "I've been sober for three months now, no wine at all.")
    assert [e.memory.fact.value for e in evs if e.event == "SUPERSEDE"] == ["drink wine most evenings"]
    ended = [e.memory.fact for e in evs if e.event == "ADD" and e.memory.fact is not None]
    assert [(f.attribute, f.value, f.polarity) for f in ended] == \
        [("does:wine most evening", "wine", -1)]  # the turn's word for it


def test_a_diet_ending_by_meaning(mem_e5):
    evs = _events(mem_e5, "I'm a vegetarian.", "I started eating fish and chicken again.")
    assert [(e.memory.fact.attribute, e.memory.fact.value) for e in evs if e.event == "SUPERSEDE"] == \
        [("diet", "vegetarian")]


@pytest.mark.parametrize("first,then", NEAR_MISSES)
def test_a_near_miss_retires_nothing(mem_e5, first, then):
    evs = _events(mem_e5, first, then)
    assert [e for e in evs if e.event == "SUPERSEDE"] == []


def test_no_first_fact_without_a_clear_lead(mem_e5):
    # a typed fallback changes a claim; alone it adds one only when its slot leads clearly ("add_margin")
    evs = list(mem_e5.add("I spent a week in Bergen.", user_id="v", timestamp=T1))
    assert [e.memory.fact for e in evs if e.memory.fact is not None] == []


def test_values_by_type_anywhere_in_the_clause():
    assert typed_values("I'm starting at Puma next week after leaving Adidas.", "en") == {"name": ["Puma", "Adidas"]}
    assert typed_values("We threw a party for my daughter's 9th birthday.", "en")["age"] == ["9"]
    assert typed_values("Our landlord raised the rent, it's 1650 now.", "en") == {"number": ["1650"]}
    assert "泉州" in typed_values("我们上周搬家了，新家在泉州。", "zh")["name"]
    assert typed_values("I moved in with my sister in March.", "en") == {}  # a month is no place


def test_gates_run_first():
    assert clause_units("Should I move to Porto?", []) == []
    assert clause_units("I might move to Porto.", []) == []
    assert clause_units("My sister moved to Boston.", []) == []
    assert clause_units("我姐姐去年搬到了济南。", []) == []
    (u,) = clause_units("We threw a party for my daughter's 9th birthday.", [])
    assert (u.person, u.other) == ("daughter", False)


def test_off_without_meaning_or_with_an_llm(e5):
    class Lexical:
        semantic = False

    lexical = pick_extractor("rules", None, Lexical(), {})
    assert lexical.__wrapped__ is extract_from_text and not hasattr(lexical, "meaning")  # (with the place reader)
    assert hasattr(pick_extractor("auto", None, e5, {}), "meaning")
    llm_mode = pick_extractor("auto", object(), e5, {"facts_extracted": 0, "facts_rejected": 0})
    assert not hasattr(llm_mode, "meaning")  # with an LLM the LLM proposes; no fallback
