"""Issue #22 (own16): first statements about what the user has and does, and their endings.

A first statement no reader typed could never be superseded. These are read now: a partner named beside the
relation whatever else the sentence says ("My boyfriend Callum and I just hit two years together", 我跟男朋友阿杰在一起
三年了: ``boyfriend_name``), a possession said with own / drive / ride ("I drive a 2012 Subaru Outback named Moose",
我开一辆白色的飞度: ``possession:<name>``), a count said as a household compound ("a two-car household"), with 俩 / 娃,
or code-switched ("现在4 guitars了"). Their endings close them by the name or noun: a parting with the speaker second or
unsaid (小雨和我 broke up, 和小雨分了, "called it off"), a hand-on ("sold the Corolla", "Moose has a new owner",
飞度出手了), and a lasting abstinence ("today makes 100 days without a cigarette").
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem.facts import extract_facts_rules
from anchormem.facts.values import parse

T1 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)


def _facts(text: str) -> list[tuple[str, str, int]]:
    return [(f.attribute, f.value, f.polarity) for f in extract_facts_rules(text)]


@pytest.mark.parametrize("text,fact", [
    ("My boyfriend Callum and I just hit two years together.", ("boyfriend_name", "Callum", 1)),
    ("me and my boyfriend Theo have been together 2 years", ("boyfriend_name", "Theo", 1)),
    ("my boyfriend 阿凯 and I are planning a trip to 大理 in October", ("boyfriend_name", "阿凯", 1)),
    ("My girlfriend 小雨 and I have been together since 大学", ("girlfriend_name", "小雨", 1)),
    ("我跟男朋友阿杰在一起三年了，他是消防员", ("boyfriend_name", "阿杰", 1)),
    ("我是程序员，和女朋友小雨在一起三年了", ("girlfriend_name", "小雨", 1)),
    ("My wife Priya teaches yoga.", ("wife_name", "Priya", 1)),
])
def test_a_partner_named_beside_the_relation_is_a_claim(text, fact):
    assert fact in _facts(text)


@pytest.mark.parametrize("text", [
    "My ex Tom and I still talk sometimes.",
    "My sister's boyfriend Tom and I went hiking.",
    "Should my boyfriend Tom and I move in together?",
    "If my boyfriend Tom and I broke up, I'd move to Berlin.",
    "她和男朋友阿杰在一起三年了",
])
def test_no_partner_claim_for_an_ex_someone_elses_a_question_or_a_hypothetical(text):
    assert not [a for a, _, _ in _facts(text) if a.endswith("_name")]


def test_a_parting_said_in_the_sentence_is_no_partner_claim():
    assert _facts("My husband Tom and I are separating.") == [("gone", "Tom", 1)]


@pytest.mark.parametrize("before,after,closed", [
    ("My boyfriend Callum and I just hit two years together.", "Callum and I called it quits. Amicable, mostly.",
     "Callum"),
    ("my boyfriend Marcus and I signed up for a cooking class together", "Marcus and I called it off last month.",
     "Marcus"),
    ("My girlfriend 小雨 and I have been together since 大学", "小雨和我 broke up last month. 还在慢慢走出来", "小雨"),
    ("我是程序员，和女朋友小雨在一起三年了，打算明年见家长", "和小雨分了，现在一个人", "小雨"),
])
def test_a_parting_closes_the_partner_named_at_first(mem, before, after, closed):
    mem.add(before, user_id="u", timestamp=T1)
    events = mem.add(after, user_id="u", timestamp=T2)
    sup = [e.memory.fact for e in events if e.event == "SUPERSEDE" and e.memory.fact is not None]
    assert [(f.attribute.endswith("friend_name"), f.value) for f in sup] == [(True, closed)]


@pytest.mark.parametrize("text,fact", [
    ("I drive a 2012 Subaru Outback named Moose, 180k miles and still going.",
     ("possession:subaru outback", "2012 Subaru Outback named Moose", 1)),
    ("I own a 2009 Corolla I baby.", ("possession:corolla", "2009 Corolla", 1)),
    ("I ride a Brompton to work", ("possession:brompton", "Brompton", 1)),
    ("我开一辆白色的飞度，开了七年", ("possession:飞度", "飞度", 1)),
    ("我有辆二手的思域", ("possession:思域", "思域", 1)),
])
def test_a_possession_is_a_claim_keyed_by_its_name(text, fact):
    assert fact in _facts(text)


@pytest.mark.parametrize("text", [
    "I have a Zoom call at 3",
    "I drive a lot for work",
    "我开一辆车上班",
    "My friend sold her Corolla.",
    "I sold the Corolla's old tires.",
])
def test_no_possession_or_hand_on_read_from_other_words(text):
    assert not [a for a, _, _ in _facts(text) if a.startswith("possession:") or a == "gone"]


@pytest.mark.parametrize("before,after", [
    ("I drive a 2012 Subaru Outback named Moose.", "Moose has a new owner. I'm fully carless now."),
    ("I own a 2009 Corolla I baby.", "I sold the Corolla."),
    ("Sold my Brompton last week.", None),
    ("我开一辆白色的飞度，开了七年", "飞度出手了，现在天天挤地铁"),
    ("我有辆二手的思域", "思域卖了"),
])
def test_a_hand_on_closes_the_possession_it_names(mem, before, after):
    if after is None:  # a hand-on of nothing the user said is no fact
        assert [e.event for e in mem.add(before, user_id="u", timestamp=T1)] == ["ADD"]
        return
    mem.add(before, user_id="u", timestamp=T1)
    events = mem.add(after, user_id="u", timestamp=T2)
    sup = [e.memory.fact.attribute for e in events if e.event == "SUPERSEDE" and e.memory.fact is not None]
    assert len(sup) == 1 and sup[0].startswith("possession:")
    held = [m for m in mem.get_all(user_id="u") if m.fact is not None and m.fact.attribute.startswith("possession:")]
    assert held == []


@pytest.mark.parametrize("text,value", [
    ("We're a two-car household", ("two-car household", "car", 2.0)),
    ("we're a three-cat household now", ("three-cat household", "cat", 3.0)),
    ("Down to one vehicle, the truck.", ("one vehicle", "car", 1.0)),
    ("家里俩孩子了", ("俩孩子", "child", 2.0)),
    ("我们家一个娃", ("一个娃", "child", 1.0)),
    ("现在4 guitars了", ("4 guitars", "guitar", 4.0)),
])
def test_counts_said_as_compounds_colloquially_or_code_switched(text, value):
    assert [(v.text, v.unit, v.number) for v in parse(text) if v.kind == "count"] == [value]


@pytest.mark.parametrize("text", ["a two-car garage", "咱俩去吃饭", "a three-year-old", "two-thirds of it"])
def test_no_count_from_other_compounds_or_a_pronoun(text):
    assert [v for v in parse(text) if v.kind == "count"] == []


@pytest.mark.parametrize("before,after,old,new", [
    ("We're a two-car household: my old Corolla and my husband's truck.",
     "Corolla went to a college kid. Down to one vehicle, the truck.", "two-car household", "one vehicle"),
    ("我们家一个娃，儿子叫豆豆，今年四岁", "二宝出生了，是个闺女！豆豆当哥哥了，家里俩孩子了", "一个娃", "俩孩子"),
    ("I have 3 guitars：一把Martin木吉他，两把电吉他", "又入了一把Gibson，现在4 guitars了", "3 guitars", "4 guitars"),
])
def test_a_new_count_replaces_the_one_said_first(mem, before, after, old, new):
    mem.add(before, user_id="u", timestamp=T1)
    events = mem.add(after, user_id="u", timestamp=T2)
    sup = [e.memory.fact.value for e in events if e.event == "SUPERSEDE" and e.memory.fact is not None]
    added = [e.memory.fact.value for e in events if e.event == "ADD" and e.memory.fact is not None]
    assert sup == [old] and new in added


def test_a_lasting_abstinence_said_today_ends_the_habit(mem_e5):
    mem_e5.add("I smoke about half a pack a day, trying to cut down but it's rough", user_id="u", timestamp=T1)
    events = mem_e5.add("today makes 100 days without a cigarette 🎉 Kofi bought me a cake", user_id="u", timestamp=T2)
    sup = [e.memory.fact.attribute for e in events if e.event == "SUPERSEDE" and e.memory.fact is not None]
    assert sup == ["does:smoke"]


@pytest.mark.parametrize("text,value", [
    ("I'm a mom of two, so mornings are chaos.", "mom of two"),
    ("Proud dad of three here.", "Proud dad of three"),
    ("我是二胎妈妈，天天忙", "二胎妈妈"),
])
def test_children_counted_by_a_parent_role(text, value):
    assert ("count:child", value, 1) in _facts(text)


def test_a_parent_role_of_someone_else_is_no_count_of_the_speakers():
    assert not [a for a, _, _ in _facts("My sister is a mom of two.") if a == "count:child"]


def test_a_count_by_role_is_replaced_by_the_count_said_later(mem):
    mem.add("I'm a mom of two, so mornings are chaos.", user_id="u", timestamp=T1)
    events = mem.add("so I've got three kids now", user_id="u", timestamp=T2)
    assert [(e.event, e.memory.fact.value) for e in events if e.memory.fact is not None] == [
        ("ADD", "three kids"), ("SUPERSEDE", "mom of two")]


@pytest.mark.parametrize("before,after", [
    ("我跟男朋友阿杰在一起三年了，他是消防员", "分了。别问，问就是性格不合"),
    ("My boyfriend Callum and I just hit two years together.", "We broke up last month."),
])
def test_a_parting_naming_no_one_closes_the_one_partner(mem, before, after):
    mem.add(before, user_id="u", timestamp=T1)
    events = mem.add(after, user_id="u", timestamp=T2)
    assert [e.memory.fact.attribute for e in events if e.event == "SUPERSEDE"] == ["boyfriend_name"]


def test_a_parting_naming_no_one_closes_nothing_when_two_partners_are_held(mem):
    mem.add("My boyfriend Callum and I just hit two years together.", user_id="u", timestamp=T1)
    mem.add("My girlfriend Jess and I moved in together.", user_id="u", timestamp=T1)
    events = mem.add("We broke up last month.", user_id="u", timestamp=T2)
    assert [e.event for e in events if e.event == "SUPERSEDE"] == []


@pytest.mark.parametrize("text", ["we split up the bill", "分了一半给他", "他们分了。", "Did we break up?"])
def test_no_parting_read_from_other_splits(text):
    assert "parted" not in [a for a, _, _ in _facts(text)]
