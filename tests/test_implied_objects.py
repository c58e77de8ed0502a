"""Issue #22 (corr17): changes whose object is implied, and ending clauses that claim nothing.

- an ending that names no object ("We split up", "He died last night", "Traded it in", 它走丢了, 上周卖了) closes the
  user's one current claim of the slots its words name (``implied_endings`` of changes.json: a partner, a pet, a
  possession); with two such claims or none it closes nothing;
- an amount said per period with its topic but no slot noun ("Our landlady bumped it up, 1950 a month", 中介说续租要涨，
  4000一个月) is the slot its topic words name (``topic_words`` of quantities.json);
- a clause whose verb ends, sells or leaves a thing ("I sold the Audi …", "my last day at Deloitte", 把奥迪卖了) yields
  no positive claim of that thing for any slot (``ended_objects`` of slot_types.json, the value-type gate).

The inputs were written after the fix, in other words than those it was developed on.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.facts.keys import implied_by
from anchormem.facts.model import Fact
from anchormem.facts.value_types import checked, ended_objects

T1 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2026, 3, 9, 9, 0, tzinfo=timezone.utc)
T3 = datetime(2026, 3, 16, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def m():
    mem = Memory(":memory:", embedder="hash", cache=False, llm=None)
    yield mem
    mem.close()


def _current(mem: Memory) -> list[tuple[str, str]]:
    """(attribute, value) of the user's current positive claims."""
    return sorted((x.fact.attribute, x.fact.value) for x in mem.get_all(user_id="u")
                  if x.fact is not None and x.fact.polarity > 0 and x.fact.attribute not in ("parted", "gone"))


@pytest.mark.parametrize("ending,slot,closes", [
    ("split up", "boyfriend_name", True), ("分开", "wife_name", True), ("split up", "dog_name", False),
    ("died", "dog_name", True), ("走丢", "rabbit_name", True), ("died", "grandmother_home_city", True),
    ("It died", "grandmother_home_city", False), ("She died", "grandmother_home_city", True),
    ("died", "home_city", False), ("died", "possession:honda civic", False),
    ("Traded it in", "possession:honda civic", True), ("卖", "possession:奥迪", True), ("卖", "cat_name", False),
])
def test_which_slots_an_ending_closes_is_data(ending, slot, closes):
    assert implied_by(ending, slot) is closes


@pytest.mark.parametrize("turns,gone", [
    (["My boyfriend's name is Mateo.", "We split up over the summer."], ("boyfriend_name", "Mateo")),
    (["We have a dog called Pixel.", "He died last night, he was 14."], ("dog_name", "Pixel")),
    (["I drive a Honda Civic.", "Traded it in last weekend."], ("possession:honda civic", "Honda Civic")),
    (["我养了一只兔子叫团团。", "它走丢了。"], ("rabbit_name", "团团")),
    (["我开一辆黑色的奥迪。", "上周卖了。"], ("possession:奥迪", "奥迪")),
])
def test_an_ending_without_its_object_closes_the_one_current_claim(m, turns, gone):
    for t, when in zip(turns, (T1, T2)):
        m.add(t, user_id="u", timestamp=when)
    assert gone not in _current(m)
    closed = [x for x in m.get_all(user_id="u", include_superseded=True)
              if x.fact is not None and (x.fact.attribute, x.fact.value) == gone]
    assert closed and all(x.valid_to == T2 for x in closed)


def test_an_ending_with_two_candidates_closes_neither(m):
    m.add("My dog is called Pixel.", user_id="u", timestamp=T1)
    m.add("My cat is called Mochi.", user_id="u", timestamp=T2)
    m.add("She passed away on Sunday.", user_id="u", timestamp=T3)
    assert _current(m) == [("cat_name", "Mochi"), ("dog_name", "Pixel")]


def test_a_departure_with_a_pet_and_a_relative_held_closes_neither(m):
    m.add("We have a dog called Pixel.", user_id="u", timestamp=T1)
    m.add("My grandma lives in Hull.", user_id="u", timestamp=T2)
    m.add("She passed away on Sunday.", user_id="u", timestamp=T3)
    assert _current(m) == [("dog_name", "Pixel"), ("grandmother_home_city", "Hull")]


def test_a_pet_ending_closes_no_partner_and_a_parting_no_pet(m):
    m.add("My girlfriend is called Ines.", user_id="u", timestamp=T1)
    m.add("It died last week.", user_id="u", timestamp=T2)  # a pet's ending: no pet named, nothing closed
    assert _current(m) == [("girlfriend_name", "Ines")]


def test_a_pronoun_ending_after_someone_else_named_in_the_turn_closes_nothing(m):
    m.add("We have a cat called Soot.", user_id="u", timestamp=T1)
    m.add("My grandad was ill for a long time. He passed away on Friday.", user_id="u", timestamp=T2)
    assert ("cat_name", "Soot") in _current(m)


@pytest.mark.parametrize("turns,value", [
    (["I pay 1800 a month in rent.", "Our landlady bumped it up, 1950 a month from now on."], "1950 a month"),
    (["我的房租是每月3500。", "中介说续租要涨，4000一个月。"], "4000一个月"),
])
def test_an_amount_per_period_with_its_topic_is_that_slot(m, turns, value):
    for t, when in zip(turns, (T1, T2)):
        m.add(t, user_id="u", timestamp=when)
    assert [v for a, v in _current(m) if a == "rent"] == [value]


@pytest.mark.parametrize("text", [
    "My brother's landlord raised it, 1950 a month.",   # someone else's
    "The landlord fixed the boiler, it cost 300.",      # no period: no rent
])
def test_a_topic_names_no_slot_for_someone_elses_or_a_one_off_amount(m, text):
    m.add(text, user_id="u", timestamp=T1)
    assert [a for a, _ in _current(m) if a == "rent"] == []


@pytest.mark.parametrize("text,objects", [
    ("I sold the Audi and now I cycle to the office.", ["Audi"]),
    ("Thursday was my final day at Deloitte.", ["Deloitte"]),
    ("上周五是我在字节的最后一天。", ["字节"]),
    ("我把奥迪卖了，现在坐地铁上班。", ["奥迪"]),
    ("我和老婆搬到了苏州。", []),
    ("I left my keys at home.", []),
])
def test_the_things_a_clause_ends_are_read(text, objects):
    assert ended_objects(text) == objects


def test_an_ended_thing_is_no_positive_claim_of_any_slot():
    text = "My last day at Deloitte was Thursday, and I start at KPMG in May."
    facts = [Fact(attribute="employer", value="Deloitte"), Fact(attribute="last_day_at_deloitte", value="Thursday"),
             Fact(attribute="employer", value="Deloitte", polarity=-1), Fact(attribute="employer", value="KPMG")]
    kept, dropped = checked(facts, text)
    assert [(f.attribute, f.value, f.polarity) for f in kept] == [("employer", "Deloitte", -1), ("employer", "KPMG", 1)]
    assert [why for _, why in dropped] == ["ended Deloitte", "ended Deloitte"]


def test_a_last_day_ends_the_employer_and_claims_nothing_of_it(m):
    m.add("I work at Deloitte.", user_id="u", timestamp=T1)
    m.add("My last day at Deloitte was Thursday.", user_id="u", timestamp=T2)
    assert _current(m) == []  # no employer Deloitte, no "last_day_at_deloitte" = Thursday


@pytest.mark.parametrize("turns,kept", [
    (["我在字节工作。", "上周五是我在字节的最后一天。"], []),
    (["I work at Deloitte.", "My brother left Deloitte last week."], [("employer", "Deloitte")]),
    (["I work at Deloitte.", "I might leave Deloitte."], [("employer", "Deloitte")]),
])
def test_an_ending_clause_closes_the_thing_held_only_when_it_is_the_speakers_now(m, turns, kept):
    for t, when in zip(turns, (T1, T2)):
        m.add(t, user_id="u", timestamp=when)
    assert _current(m) == kept


def test_a_sold_car_is_never_the_employer(m):
    m.add("I work at Deloitte.", user_id="u", timestamp=T1)
    m.add("Sold the Audi in May, and now I cycle to the office.", user_id="u", timestamp=T2)
    m.add("我把奥迪卖了，现在坐地铁上班。", user_id="u2", timestamp=T2)
    assert [v for a, v in _current(m) if a == "employer"] == ["Deloitte"]
    assert [x.fact.value for x in m.get_all(user_id="u2") if x.fact and x.fact.attribute == "employer"] == []
