"""Issue #22 (corr17): a self-correction is a change of the same slot whose old value never held.

"I work at Siemens, oops, I meant Bosch", "No, not Biscuit, Pickle.", "我住在成都，不对，是重庆。", "说错了，是一万五。":
the value taken back is no claim (within the turn) or is closed at its own start (across turns): it reads as
corrected in history, context and quotes, never as "true until <date>", and the value said instead holds from when
the corrected one was said. The inputs here were written after the fix (the ones the rule was developed on are not
among them).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.facts.corrections import corrections

T1 = datetime(2026, 2, 2, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2026, 2, 9, 9, 0, tzinfo=timezone.utc)
T3 = datetime(2026, 2, 16, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def m():
    mem = Memory(":memory:", embedder="hash", cache=False, llm=None)
    yield mem
    mem.close()


def _facts(mem: Memory, attribute: str) -> list[tuple[str, bool]]:
    """(value, current) of every fact memory of ``attribute``, oldest first."""
    return [(x.fact.value, x.valid_to is None) for x in mem.get_all(user_id="u", include_superseded=True)
            if x.fact is not None and x.fact.attribute == attribute]


@pytest.mark.parametrize("text,right,wrong", [
    ("I work at Siemens, oops, I meant Bosch.", "Bosch", ""),
    ("No, not Biscuit, Pickle.", "Pickle", "Biscuit"),
    ("Whoops, make that Porto.", "Porto", ""),
    ("我住在成都，不对，是重庆。", "重庆", ""),
    ("说错了，不是一万二，是一万五。", "一万五", "一万二"),
    ("不叫团团，叫圆圆。", "圆圆", "团团"),
])
def test_the_ways_of_taking_a_value_back_are_read(text, right, wrong):
    got = corrections(text)
    assert [(c.right, c.wrong) for c in got] == [(right, wrong)]


@pytest.mark.parametrize("text", [
    "I mean, it's fine.",                      # a filler, no value
    "It's not Monday yet, is it",              # no correction marker, a lower-case value
    "I'm not a teacher any more.",
    "我不是很喜欢这个地方。",
    "我现在不在阿里了，在腾讯。",               # 了: a change, no correction
    "我是说真的。",
    "Wait, it's 5pm already.",
])
def test_no_correction_without_its_words(text):
    assert corrections(text) == []


@pytest.mark.parametrize("text,attribute,value", [
    ("I work at Siemens, oops, I meant Bosch.", "employer", "Bosch"),
    ("我住在成都，不对，是重庆。", "home_city", "重庆"),
])
def test_a_value_taken_back_in_its_own_turn_is_never_a_claim(m, text, attribute, value):
    m.add(text, user_id="u", timestamp=T1)
    assert _facts(m, attribute) == [(value, True)]
    ans = m.ask("Where do I work?" if attribute == "employer" else "我住在哪里？", user_id="u")
    assert value in ans.citations[0].text


def test_a_correction_in_the_next_turn_closes_the_old_value_as_never_held(m):
    m.add("My cat is called Biscuit.", user_id="u", timestamp=T1)
    events = m.add("No, not Biscuit, Pickle.", user_id="u", timestamp=T2)
    closed = [e.memory for e in events if e.event == "SUPERSEDE"]
    assert [(x.fact.value, x.valid_from, x.valid_to) for x in closed] == [("Biscuit", T1, T1)]  # never held
    new = next(e.memory for e in events if e.event == "ADD" and e.memory.fact is not None)
    assert (new.fact.attribute, new.fact.value, new.valid_from) == ("cat_name", "Pickle", T1)  # dated then
    assert _facts(m, "cat_name") == [("Biscuit", False), ("Pickle", True)]
    reasons = [h.reason for h in m.history(closed[0].id) if h.event == "SUPERSEDE"]
    assert reasons == [f"superseded by {new.id} (corrected: it never held)"]
    # read as of any time, the mistaken name never held; once corrected, the name said instead holds
    for when, names in ((T1, []), (T2, ["Pickle"]), (T3, ["Pickle"])):
        hits = m.search("cat name", user_id="u", as_of=when)
        assert [h.memory.fact.value for h in hits if h.memory.fact is not None] == names


def test_the_corrected_value_reads_as_a_mistake_not_a_past_value(m):
    m.add("I live in Aarhus.", user_id="u", timestamp=T1)
    m.add("Sorry, I meant Odense.", user_id="u", timestamp=T2)
    line = next(x for x in m.context("Where did I live before?", user_id="u").text.splitlines() if "Aarhus" in x)
    assert "(corrected: said by mistake, never held (superseded))" in line and "until" not in line
    ans = m.ask("Where do I live?", user_id="u")
    assert "Odense" in ans.citations[0].text and "Aarhus" not in ans.citations[0].text


def test_a_zh_correction_across_turns(m):
    m.add("我的月薪是一万二。", user_id="u", timestamp=T1)
    m.add("说错了，是一万五。", user_id="u", timestamp=T2)
    assert _facts(m, "salary") == [("一万二", False), ("一万五", True)]
    old = next(x for x in m.get_all(user_id="u", include_superseded=True) if x.fact and x.fact.value == "一万二")
    assert old.valid_to == old.valid_from == T1
    line = next(x for x in m.context("我以前的工资是多少？", user_id="u").text.splitlines() if "一万二" in x)
    assert "已更正：之前说错了，从未成立" in line


def test_a_correction_naming_no_value_takes_back_the_claim_said_last(m):
    m.add("I live in Lyon.", user_id="u", timestamp=T1)
    m.add("My brother works at Airbus.", user_id="u", timestamp=T2)
    m.add("Sorry, I meant Safran.", user_id="u", timestamp=T3)
    assert _facts(m, "home_city") == [("Lyon", True)]  # the claim said first is untouched
    got = [(x.fact.attribute, x.fact.value, x.valid_to is None) for x in m.get_all(user_id="u", include_superseded=True)
           if x.fact is not None and x.fact.value in ("Airbus", "Safran")]
    assert got == [("brother_employer", "Airbus", False), ("brother_employer", "Safran", True)]


def test_a_correction_of_a_value_never_said_changes_nothing(m):
    m.add("I live in Lyon.", user_id="u", timestamp=T1)
    m.add("My brother lives in Nantes.", user_id="u", timestamp=T2)
    m.add("No, not Grenoble, Annecy.", user_id="u", timestamp=T3)  # Grenoble was never said: which slot is not known
    assert _facts(m, "home_city") == [("Lyon", True)]
    assert _facts(m, "brother_home_city") == [("Nantes", True)]


def test_a_change_said_with_no_longer_is_not_a_correction(m):
    m.add("我在阿里工作。", user_id="u", timestamp=T1)
    m.add("我不在阿里干了，跳槽去了腾讯。", user_id="u", timestamp=T2)
    old = next(x for x in m.get_all(user_id="u", include_superseded=True) if x.fact and x.fact.value == "阿里")
    assert (old.valid_from, old.valid_to) == (T1, T2) and "corrected_by" not in old.metadata  # it held until then
    assert ("腾讯", True) in _facts(m, "employer")


@pytest.mark.parametrize("correction", [
    "No wait, I said Leeds but the flat is actually in York, not Leeds.",
    "Oops, it's York not Leeds.",
    "Actually the new flat is in York, not Leeds.",
])
def test_the_value_said_before_not_the_corrected_one(correction):
    """fresh27 D4: "<right>, not <wrong>" after a correction cue (wait, oops, actually: ``corrections`` of
    en/changes.json) corrects the home said the day before."""
    from anchormem import Memory

    m = Memory(":memory:")
    m.add("I live in Bath and teach yoga.", user_id="u", timestamp="2025-03-03T15:00:00Z")
    m.add("Finally moved, I live in Leeds now.", user_id="u", timestamp="2025-04-28T20:00:00Z")
    ev = m.add(correction, user_id="u", timestamp="2025-04-29T08:00:00Z")
    assert "SUPERSEDE" in [e.event for e in ev]
    assert "York" in m.ask("Where do I live?", user_id="u").citations[0].text
