"""Change detection on wordings no rule was written for (issue #22, detect12): a count held by the members it lists,
a count said with modifiers or with an English noun in a Chinese clause, a wish that states no change, a saving
that is no amount held, colloquial kin words. Sentences written for these tests, not drawn from any story set."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.facts.quantities import quantity_facts
from anchormem.facts.values import parse
from fact_helpers import add_events

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


def _read(text):
    return [(f.attribute, f.value) for f in quantity_facts(text)]


def _counts(text, lang="en"):
    return [(v.text, v.unit) for v in parse(text, lang) if v.kind == "count"]


def _sup(evs):
    return [(a, v) for e, _, a, v in evs if e == "SUPERSEDE"]


# -- a count held by the members it lists ---------------------------------------------------------------------------
def test_a_count_followed_by_as_many_named_members_is_held():
    assert _read("Three rabbits in the garden shed: Pip, Moss and Clover.") == [
        ("count:rabbit", "Three rabbits"), ("rabbit_names", "Pip, Moss and Clover")]
    assert _read("Two bikes, a Brompton and an old Peugeot, live in the hallway.") == [
        ("count:bike", "Two bikes"), ("bike_names", "a Brompton and an old Peugeot")]
    assert _read("两只兔子：豆豆和 Lulu") == [("count:rabbit", "两只兔子"), ("rabbit_names", "豆豆和 Lulu")]


def test_a_list_that_does_not_match_the_count_or_names_nothing_holds_nothing():
    assert _read("Three rabbits in the shed: Pip and Moss.") == []  # two members for three
    assert _read("Two bikes: a red one and a blue one.") == []  # no names
    assert _read("Four dogs at the beach yesterday: Rex, Bo, Pip and Ace.") == []  # a scene of a day
    assert _read("Three rabbits at the fair this morning: Pip, Moss and Clover.") == []


def test_a_held_count_keeps_its_names_to_the_rules():
    # a count a frame already holds ("I keep") is read as before: its names are the rules' own facts
    assert _read("I keep three chickens: Nugget, Pepper and Dolly.") == [("count:chicken", "three chickens")]


def test_a_count_held_by_its_list_changes_when_it_goes_down(mem_e5):
    evs = add_events(mem_e5, "Two guitars in the spare room: a Gibson and a Yamaha.", T1)
    assert ("ADD", "count:guitar", "Two guitars") in [(e, a, v) for e, _, a, v in evs]
    evs = add_events(mem_e5, "Sold the Yamaha last weekend, down to one guitar.", T2)
    assert ("count:guitar", "Two guitars") in _sup(evs)
    assert ("guitar_names", "a Gibson and a Yamaha") not in _sup(evs)  # the names are no count


# -- how a count is said -------------------------------------------------------------------------------------------
def test_a_count_with_modifiers_before_its_noun():
    assert _counts("we have four rescue dogs") == [("four rescue dogs", "dog")]
    assert _counts("6 cherry tomato plants on the balcony") == [("6 cherry tomato plants", "plant")]
    assert _counts("I walked 3 of my dogs") == []  # "of my": no modifier
    assert _counts("spent 2 hours with the dogs") == []  # a duration
    assert _counts("three more cats") == [("three more cats", "cat")]


def test_an_english_noun_after_a_chinese_measure_word_is_counted():
    assert _counts("家里有三只 rabbits", "zh") == [("三只 rabbits", "rabbit")]
    assert _read("我们家养了两只 hamsters") == [("count:hamster", "两只 hamsters")]
    assert _counts("家里有两台 monitor", "zh") == [("两台 monitor", "monitor")]  # the blank is no part of the noun


# -- gates: a wish, a saving ---------------------------------------------------------------------------------------
def test_a_wish_to_quit_retires_no_job(mem_e5):
    add_events(mem_e5, "我在华为做测试工程师", T1, user="zh")
    assert _sup(add_events(mem_e5, "加班到十一点，好想辞职，算了明天还得上班", T2, user="zh")) == []
    add_events(mem_e5, "I work at Siemens as an electrical engineer.", T1, user="en")
    assert _sup(add_events(mem_e5, "Another 12-hour day. I'm so tempted to quit my job.", T2, user="en")) == []
    # the control: said as done, the same words retire it
    assert _sup(add_events(mem_e5, "我辞职了，下周开始休息", T2 + (T2 - T1), user="zh"))


def test_a_difference_is_no_value_of_any_reader():
    from anchormem.facts.meaning import typed_values
    from anchormem.facts.typed_values import clause_values
    from anchormem.facts.values import after_delta

    assert after_delta("搬去城东每月能省", "zh") and after_delta("switching would save", "en")
    assert not after_delta("my rent is", "en") and not after_delta("房租涨到", "zh")
    assert "number" not in typed_values("换过去每个月能省五百", "zh")
    assert [v.value for v in clause_values("换过去每个月能省五百，房租三千")] == ["三千"]
    assert typed_values("switching plans would save 300 a month, rent is 1200", "en")["number"] == ["1200"]


def test_a_saving_is_no_amount_held(mem_e5):
    add_events(mem_e5, "房租三千五，两室一厅", T1)
    assert _sup(add_events(mem_e5, "换到河对面每个月能省六百，不过懒得折腾", T2)) == []


# -- colloquial kin words ------------------------------------------------------------------------------------------
def test_a_colloquial_kin_word_names_the_relative():
    assert _read("我闺女今年七岁") == [("daughter_age", "七岁")]
    assert _read("家里三个小孩") == [("count:child", "三个小孩")]


# -- job nouns -----------------------------------------------------------------------------------------------------
def test_more_job_nouns_name_an_occupation(mem_e5):
    from anchormem.facts.keys import is_occupation

    assert is_occupation("clinical educator") and is_occupation("a dispatcher") and is_occupation("nutritionist")
    assert not is_occupation("a fan of curators")
    add_events(mem_e5, "I'm a staff nurse at the county hospital.", T1)
    evs = add_events(mem_e5, "Moved off the wards: I'm a clinical educator at the county hospital now.", T2)
    assert ("occupation", "staff nurse") in _sup(evs)
