"""The speaker's own age is a slot (issue #22, lead17): said at the start of a clause ("I'm 34", "I just turned 35",
我今年32岁, or "今年32岁" after a clause of the speaker's: frames.json ``speaker_age_*``), it is the ``age`` fact; a
later age supersedes it; "How old am I?" / 我多大了？ ask for it (answers.json ``slot_questions``). An age in the past
(我18岁那年), a birthday to come, someone else's age and a number with another unit are none."""

import pytest

from anchormem import Memory
from anchormem.answering.slot_questions import asked_slots
from anchormem.facts.offline import extract_facts_rules


def _ages(text):
    return [(f.attribute, f.value) for f in extract_facts_rules(text) if f.attribute.endswith("age")]


@pytest.mark.parametrize("text, want", [
    ("Hey there, I'm 41 and I fix bikes for a living.", [("age", "41")]),
    ("I am 27 years old, is that too late to learn violin?", [("age", "27")]),
    ("I’ve just turned 50, feeling ancient.", [("age", "50")]),
    ("大家好，我叫林芳，今年28岁，在厦门做老师。", [("age", "28岁")]),
    ("我都40岁了，还在租房。", [("age", "40岁")]),
    ("I'm 10 minutes late, sorry.", []), ("I'm 30 weeks along now.", []),
    ("我20岁那年去了新疆。", []), ("我下个月就满30岁了。", []),
    ("我儿子今年7岁。", [("son_age", "7岁")]),
])
def test_the_speakers_own_age_is_read(text, want):
    assert _ages(text) == want


def test_a_later_age_supersedes_and_both_languages_ask_for_it():
    m = Memory(":memory:")
    m.add("I'm 38, I manage a small café in Porto.", user_id="u", timestamp="2025-01-03T10:00:00Z")
    ev = m.add("Just turned 39 yesterday lol. I'm 39 now, weird.", user_id="u", timestamp="2025-08-03T10:00:00Z")
    assert "SUPERSEDE" in [e.event for e in ev]
    assert asked_slots("How old am I?") == ["age"] and asked_slots("我现在多大了？") == ["age"]
    assert asked_slots("How old is my son?") == [] and asked_slots("我的房子多大？") == []
    first = m.ask("How old am I?", user_id="u").citations[0].text
    assert "39" in first
    past = m.ask("How old was I before?", user_id="u").citations[0]
    assert "38" in past.text


def test_the_speaker_stays_the_topic_after_a_clause_of_their_own_facts():
    """A subjectless clause of the speaker's facts (今年29岁) keeps the speaker as the topic of the clauses after it:
    the pet named at the end of the intro is theirs, and its death closes its name (fresh27 D11)."""
    m = Memory(":memory:")
    m.add("大家好，我叫陈晨，今年29岁，住在青岛，养了一只柯基叫馒头。", user_id="u", timestamp="2025-01-03T10:00:00+08:00")
    facts = {(it.fact.attribute, it.fact.value) for it in m.get_all(user_id="u") if it.fact is not None}
    assert ("age", "29岁") in facts and ("dog_name", "馒头") in facts
    ev = m.add("馒头走了，家里空荡荡的。", user_id="u", timestamp="2025-04-03T10:00:00+08:00")
    assert any(e.event == "SUPERSEDE" and e.memory.fact and e.memory.fact.value == "馒头" for e in ev)
