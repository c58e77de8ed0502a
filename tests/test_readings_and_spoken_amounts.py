"""A value said in a form no reader knew (issue #22, en17): an instrument's reading ("Scale said 189 this morning")
is no one's reported speech, and amounts said as people say them ("sixteen fifty", "one eighty-nine", "3h 10m", "a
twenty-minute ride") are one value each. Both are read against the user's current claim of the slot's type by the
quantity reader (a bare number takes the one current claim its kind and range fit)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.facts.changes import blocked, reading
from anchormem.facts.values import parse
from fact_helpers import add_events

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


@pytest.fixture
def mem():
    m = Memory(":memory:")
    yield m
    m.close()


def _values(text):
    return [(v.kind, v.text, v.base) for v in parse(text, "en")]


def _supersedes(evs):
    return [(a, v) for e, _, a, v in evs if e == "SUPERSEDE" and a is not None]


def test_spoken_hundreds_are_one_number_unless_a_time_of_day():
    assert _values("I'm paying sixteen fifty now") == [("number", "sixteen fifty", 1650.0)]
    assert _values("scale said one eighty-nine") == [("number", "one eighty-nine", 189.0)]
    assert _values("rent is two twenty a week") == [("number", "two twenty a week", 220.0)]
    assert _values("see you at one thirty") == [("number", "one", 1.0), ("number", "thirty", 30.0)]
    assert _values("the kids are five and seven") == [("number", "five", 5.0), ("number", "seven", 7.0)]
    assert _values("I'm thirty five") == [("number", "thirty five", 35.0)]  # one number already: unchanged


def test_a_larger_unit_and_a_smaller_one_said_after_it_are_one_value():
    assert _values("daily average dropped to 3h 10m") == [("duration", "3h 10m", 190.0)]
    assert _values("it takes 1 hour 10 minutes") == [("duration", "1 hour 10 minutes", 70.0)]
    assert _values("2 hrs and 5 mins") == [("duration", "2 hrs and 5 mins", 125.0)]
    assert _values("it takes 1.5h") == [("duration", "1.5h", 90.0)]
    assert _values("they paid 10m for it") == [("number", "10m", 10_000_000.0)]  # "m" alone is a million


def test_a_unit_joined_by_a_hyphen_is_the_numbers_unit():
    assert _values("now it's a twenty-minute bike ride") == [("duration", "twenty-minute", 20.0)]
    assert _values("a 45-minute commute") == [("duration", "45-minute", 45.0)]
    assert [(k, round(b, 2)) for k, _, b in _values("my usual 10-mile loop")] == [("distance", 16.09)]
    assert _values("we're a two-car household") == [("count", "two-car household", 2.0)]


def test_an_instruments_words_are_a_reading_a_persons_are_reported_speech():
    for clause in ("Scale said 189 this morning", "the bathroom scale says 201", "my watch says my resting heart "
                   "rate is 58", "according to my bank app it's down to 900", "体重秤说我瘦了两斤"):
        assert not blocked(clause), clause
    for clause in ("My boss said she moved to Denver", "Mom says I weigh too much", "according to my sister it's "
                   "900", "my brother's scale said 95 kg", "her watch says 58", "他说他搬到了深圳", "I might move to Leeds"):
        assert blocked(clause), clause
    at = "Scale said 189".find("said")
    assert reading("Scale said 189", at, at + 4)


def test_a_scale_reading_changes_the_weight(mem):
    add_events(mem, "Starting weight for the record: 212 lbs. Goal is to hike Kilimanjaro next year.", T1)
    evs = add_events(mem, "Scale said 189 this morning!!! Twenty-three pounds gone.", T2)
    assert _supersedes(evs) == [("weight", "212 lbs")]
    assert [(e, v) for e, _, a, v in evs if a == "weight" and e == "ADD"] == [("ADD", "189")]
    # written after the fix, in other words: the reading said with spoken numbers, the instrument after the verb
    add_events(mem, "Weighed in at 230 this morning.", T1, user="b")
    evs = add_events(mem, "According to the bathroom scale I'm at two oh five now", T2, user="b")
    assert [(e, a) for e, _, a, _ in evs if e == "ADD" and a == "weight"] in ([], [("ADD", "weight")])
    add_events(mem, "I weigh 95 kg.", T1, user="c")
    evs = add_events(mem, "my smart scale says 91.4 kg today", T2, user="c")
    assert _supersedes(evs) == [("weight", "95 kg")]


def test_spoken_amounts_change_the_one_current_claim_of_their_kind(mem):
    add_events(mem, "rent here is $1,450 a month, which for Denver is honestly not terrible", T1)
    evs = add_events(mem, "lease renewed and I'm paying fifteen twenty now", T2)
    assert _supersedes(evs) == [("rent", "$1,450 a month")]
    assert [v for e, _, a, v in evs if e == "ADD" and a == "rent"] == ["fifteen twenty"]
    add_events(mem, "My commute is 50 minutes each way.", T1, user="d")
    evs = add_events(mem, "new flat, and now it's a fifteen-minute walk", T2, user="d")
    assert _supersedes(evs) == [("commute", "50 minutes each way")]


def test_readings_and_spoken_amounts_of_no_present_value_retire_nothing(mem):
    cases = [
        ("I weigh 80 kg.", "My brother's scale said 95 kg this morning."),  # someone else's instrument
        ("I weigh 80 kg.", "My trainer said I should get down to seventy five."),  # a person's words, a goal
        ("I weigh 80 kg.", "If the scale says 75 next week I'm buying cake."),  # a hypothetical
        ("rent here is $1,450 a month", "Could I really afford sixteen fifty for the bigger place?"),  # a question
        ("rent here is $1,450 a month", "My friend in Austin is paying sixteen fifty now."),  # another person's
        ("My commute is 50 minutes each way.", "We went on a twenty-minute walk to the lake on our trip."),  # a trip
        ("My commute is 50 minutes each way.", "Thinking of moving closer, it'd be a ten-minute bike ride."),
        ("I weigh 80 kg.", "The meeting is at one thirty tomorrow."),  # a time of day
    ]
    for n, (old, new) in enumerate(cases):
        add_events(mem, old, T1, user=f"n{n}")
        evs = add_events(mem, new, T2, user=f"n{n}")
        assert _supersedes(evs) == [], new


def test_a_count_said_by_the_members_that_remain(mem):
    add_events(mem, "We own 2 cars, a Subaru Outback and an old Civic with 200k miles.", T1)
    evs = add_events(mem, "Civic went to my nephew for a dollar, so it's just the Outback now", T2)
    assert _supersedes(evs) == [("count:car", "2 cars")]
    assert [v for e, _, a, v in evs if e == "ADD" and a == "count:car"] == ["1 car"]
    add_events(mem, "Three roommates (Dana, Theo, and Marcus) and one bathroom.", T1, user="r")
    evs = add_events(mem, "Marcus moved out, so it's just Dana, Theo and me now.", T2, user="r")
    assert [(a, v) for e, _, a, v in evs if e in ("ADD", "SUPERSEDE") and a == "count:roommate"] == [
        ("count:roommate", "Two roommates"), ("count:roommate", "Three roommates")]
    add_events(mem, "养了两只仓鼠，一只叫Mochi一只叫Tofu", T1, user="z")
    evs = add_events(mem, "Mochi走了 😢 只剩Tofu了", T2, user="z")
    assert _supersedes(evs) == [("count:hamster", "两只仓鼠")]
    # written after the fix, in other words
    add_events(mem, "I own 3 guitars, a Strat, a Tele and a Martin.", T1, user="g")
    evs = add_events(mem, "Sold the Strat and the Tele to pay rent. Only the Martin left.", T2, user="g")
    assert [v for e, _, a, v in evs if e == "ADD" and a == "count:guitar"] == ["1 guitar"]


def test_members_said_of_someone_else_or_not_in_the_count_change_nothing(mem):
    cases = [
        ("We own 2 cars, a Subaru Outback and an old Civic.", "My sister sold hers, so it's just her Mini left."),
        ("We own 2 cars, a Subaru Outback and an old Civic.", "If the Civic dies it'll be just the Outback left."),
        ("We own 2 cars, a Subaru Outback and an old Civic.", "Is it just the Outback now?"),
        ("We own 2 cars, a Subaru Outback and an old Civic.", "Road trip! Just the Outback and me now, 400 miles."),
        ("We have two cats, Mochi and Dumpling.", "Only Dumpling came to the vet, Mochi stayed home."),
    ]
    for n, (old, new) in enumerate(cases):
        add_events(mem, old, T1, user=f"m{n}")
        evs = add_events(mem, new, T2, user=f"m{n}")
        assert [s for s in _supersedes(evs) if s[0].startswith("count:")] == [], new


def test_an_age_said_of_no_one_is_of_the_one_name_the_turn_said_before(mem):
    add_events(mem, "Biscuit turned 3 last week, we got him a dog-safe peanut butter cake.", T1)
    evs = add_events(mem, "Biscuit's birthday again! Four years old and still eats shoes.", T2)
    assert _supersedes(evs) == [("biscuit_age", "3")]
    add_events(mem, "my son Eli just turned 4 and is obsessed with garbage trucks", T1, user="e")
    evs = add_events(mem, "Eli's party was yesterday. can't believe he's five already", T2, user="e")
    assert _supersedes(evs) == [("son_age", "4")]
    for n, new in enumerate(["Eli's friend Sam came over, he's five already.",  # another person named
                             "Went to Tom's party, he's five already.",  # a name with no age claim of the user's
                             "Eli was sick, he's 5 days into antibiotics."]):  # no age: a length of time
        add_events(mem, "my son Eli just turned 4", T1, user=f"a{n}")
        assert _supersedes(add_events(mem, new, T2, user=f"a{n}")) == [], new


def test_a_negation_of_the_next_clause_or_an_idiom_negates_no_state(mem):
    evs = add_events(mem, "I've been vegetarian for 8 years so no meat recipes pls. also allergic to walnuts", T1)
    assert [(a, v) for e, _, a, v in evs if e == "ADD" and a == "diet"] == [("diet", "vegetarian")]
    evs = add_events(mem, "ok confession: had a burger at my brother's bbq and... I'm eating meat again.", T2)
    assert _supersedes(evs) == [("diet", "vegetarian")]
    got = mem.add("I'm not vegetarian so meat is fine", user_id="n", timestamp=T1)  # its own clause is negated
    assert [(e.memory.fact.attribute, e.memory.fact.polarity) for e in got if e.memory.fact] == [("diet", -1)]


def test_a_job_someone_else_gives_the_speaker_is_theirs(mem):
    add_events(mem, "I'm a park ranger at Zion, mostly yelling at tourists.", T1)
    evs = add_events(mem, "Said farewell to the flat hat. The county hired me as an emergency dispatcher.", T2)
    assert ("occupation", "park ranger") in _supersedes(evs)
    add_events(mem, "I'm a barista at Blue Bottle.", T1, user="j")
    evs = add_events(mem, "Good news: the hospital took me on as a ward clerk.", T2, user="j")  # other words
    assert ("occupation", "barista") in _supersedes(evs)
    for n, new in enumerate(["The county hired my brother as a dispatcher.", "A recruiter from Boeing called me "
                             "about a job.", "If Google hired me as an engineer I would move."]):
        add_events(mem, "I'm a park ranger at Zion.", T1, user=f"h{n}")
        assert _supersedes(add_events(mem, new, T2, user=f"h{n}")) == [], new
