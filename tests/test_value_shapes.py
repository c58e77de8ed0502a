"""A slot's value must have the slot's shape: a name is no run of function words, a home is a place (issue #22:
memory that does not make things up)."""

from __future__ import annotations

import pytest

from anchormem import Memory


@pytest.fixture
def mem():
    m = Memory(":memory:")
    yield m
    m.close()


def _facts(events):
    return [(e.event, e.memory.fact.attribute, e.memory.fact.value) for e in events if e.memory.fact is not None]


def test_call_me_reads_a_name_only_when_one_is_said(mem):
    assert _facts(mem.add("Actually please call me instead of emailing, I'm busy.", user_id="al")) == []
    assert _facts(mem.add("Call me when you can.", user_id="al")) == []
    assert _facts(mem.add("Hi! Call me Priya.", user_id="al")) == [("ADD", "name", "Priya")]
    assert _facts(mem.add("lol just call me jojo", user_id="bo")) == [("ADD", "name", "jojo")]


def test_a_capitalised_plan_name_is_no_home_a_later_move_can_replace(mem):
    mem.add("I'm on the Family plan, 25 pounds a month.", user_id="bob", timestamp="2024-01-01T10:00:00Z")
    events = mem.add("I moved to Bristol last month.", user_id="bob", timestamp="2024-03-01T10:00:00Z")
    assert _facts(events) == [("ADD", "home_city", "Bristol")]
    plan = [m for m in mem.get_all(user_id="bob") if m.text.startswith("I'm on the Family plan")]
    assert [(m.state, [c.value for c in m.claims]) for m in plan] == [("current", [])]
    answer = mem.ask("Where did I live before?", user_id="bob")
    assert all("Family plan" not in c.text for c in answer.citations)
