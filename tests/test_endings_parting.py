"""Issue #22 (fresh24 D3-D5): endings of relationships, pets and diets read by meaning.

A parting ("Sarah and I broke up", 我和李明分手了) or a departure ("Miso died", 年糕走丢了) is a ``gone`` fact naming
someone the user holds: it closes the partner-name or pet-name claim and the claims said of that person, and a pet
count of one. A diet said not to have lasted ("the vegetarian thing didn't last") ends the diet.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem.facts import extract_facts_rules

T1 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("text,name", [
    ("Sarah and I broke up last week. Still a bit raw.", "Sarah"),
    ("Sarah and I broke up.", "Sarah"),
    ("My husband Tom and I are separating. He's moved out.", "Tom"),
    ("I broke up with Sarah.", "Sarah"),
    ("我和李明分手了。", "李明"),
    ("馒头 died last week 😢 only 花卷 left.", "馒头"),
    ("我把豆豆送人了。", "豆豆"),
])
def test_a_parting_or_departure_is_a_gone_fact(text, name):
    assert [(f.attribute, f.value, f.polarity) for f in extract_facts_rules(text)] == [("gone", name, 1)]


@pytest.mark.parametrize("text", [
    "My friend Jake and his girlfriend broke up.",
    "My sister's cat died last week.",
    "If Sarah and I broke up, I'd move to Berlin.",
    "My friend Jake and I split the bill.",
])
def test_someone_elses_or_a_hypothetical_parting_is_no_gone_fact(text):
    assert [f.attribute for f in extract_facts_rules(text)] == []


@pytest.mark.parametrize("before,after,closed,kept", [
    ("My girlfriend Sarah is a primary school teacher.", "Sarah and I broke up.",
     "My girlfriend Sarah is a primary school teacher.", []),
    ("My husband Tom is a chef.", "My husband Tom and I are separating. He's moved out.",
     "My husband Tom is a chef.", []),
])
def test_a_parting_closes_the_partners_claims(mem, before, after, closed, kept):
    first = mem.add(before, user_id="u", timestamp=T1)
    events = mem.add(after, user_id="u", timestamp=T2)
    sup = [e.memory for e in events if e.event == "SUPERSEDE"]
    # the partner's claim and her name said beside the relation (a claim of its own since own16) both close
    assert sorted((m.fact.attribute, m.text, m.valid_to) for m in sup) == sorted(
        [(first[0].memory.fact.attribute, closed, T2), (first[1].memory.fact.attribute, closed, T2)])
    assert {first[0].memory.fact.attribute, first[1].memory.fact.attribute} & {"girlfriend_name", "husband_name"}
    assert closed not in [m.text for m in mem.get_all(user_id="u")]


def test_a_zh_parting_closes_the_boyfriend_name(mem):
    mem.add("我男朋友叫李明，他在广州上班。", user_id="u", timestamp=T1)
    events = mem.add("我和李明分手了。", user_id="u", timestamp=T2)
    assert [(e.event, e.memory.text) for e in events] == [("ADD", "我和李明分手了。"), ("SUPERSEDE", "我男朋友叫李明")]
    assert [m.fact.attribute for m in mem.get_all(user_id="u") if m.fact is not None] == ["gone"]


def test_someone_elses_breakup_closes_nothing(mem):
    mem.add("My girlfriend Sarah is a teacher.", user_id="u", timestamp=T1)
    events = mem.add("My friend Jake and his girlfriend broke up.", user_id="u", timestamp=T2)
    assert [e.event for e in events] == ["ADD"]
    assert "My girlfriend Sarah is a teacher." in [m.text for m in mem.get_all(user_id="u")]


def test_a_lost_pet_closes_its_name_and_a_count_of_one(mem):
    mem.add("我住在苏州，养了一只猫叫年糕。", user_id="u", timestamp=T1)
    events = mem.add("年糕走丢了，找了一周没找到。现在家里没有宠物了。", user_id="u", timestamp=T2)
    closed = sorted(e.memory.fact.attribute for e in events if e.event == "SUPERSEDE")
    assert closed == ["cat_name", "count:cat"]
    assert [m.fact.attribute for m in mem.get_all(user_id="u") if m.fact is not None and
            m.fact.attribute.startswith(("count:", "cat_"))] == []


@pytest.mark.parametrize("text,facts", [
    ("These days I'm eating fish again, the vegetarian thing didn't last.",
     [("does:fish", "eat fish", 1), ("diet", "vegetarian", -1)]),
    ("I gave up on being vegetarian.", [("diet", "vegetarian", -1)]),
    ("The vegan phase is over.", [("diet", "vegan", -1)]),
    ("I'm eating fish again.", [("does:fish", "eat fish", 1)]),
    ("I can eat spicy food again.", [("does:spicy food", "eat spicy food", 1)]),
])
def test_a_diet_that_did_not_last(text, facts):
    assert [(f.attribute, f.value, f.polarity) for f in extract_facts_rules(text)] == facts


def test_a_diet_that_did_not_last_supersedes_it(mem):
    first = mem.add("I'm vegetarian, have been for about five years.", user_id="u", timestamp=T1)
    events = mem.add("These days I'm eating fish again, the vegetarian thing didn't last.", user_id="u", timestamp=T2)
    sup = [e.memory for e in events if e.event == "SUPERSEDE"]
    assert [(m.id, m.valid_to) for m in sup] == [(first[0].memory.id, T2)]
