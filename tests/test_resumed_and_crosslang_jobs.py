"""fix19: a negation relaxed is a change (a habit or diet taken up again or newly allowed replaces its negation, in
English and Chinese), and a job said in Chinese with a generic employer (一家银行) and a field of work (做风控) is the
same employer / occupation slot an English change supersedes."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem.facts.jobs import job_facts
from anchormem.facts.rules import extract_from_text

T1 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 10, 9, 0, tzinfo=timezone.utc)


def _facts(text: str) -> list[tuple[str, str, int]]:
    return [(f.attribute, f.value, f.polarity) for f in extract_from_text(text)]


@pytest.mark.parametrize("text,want", [
    ("现在可以吃一点辣了", [("does:spicy food", "吃辣", 1)]),
    ("我又开始喝咖啡了", [("does:coffee", "喝咖啡", 1)]),
    ("我现在能喝一点酒了", [("does:alcohol", "喝酒", 1)]),
    ("back on coffee, one cup a day", [("does:coffee", "coffee", 1)]),
    ("I'm back on coffee", [("does:coffee", "coffee", 1)]),
    ("I started eating meat again", [("diet", "meat", 1)]),
    ("I'm not drinking coffee", [("does:coffee", "drink coffee", -1)]),
])
def test_a_habit_taken_up_again_or_negated_in_the_progressive_is_read(text: str, want) -> None:
    assert _facts(text) == want


@pytest.mark.parametrize("text", ["I'm not going to the party", "他现在可以吃辣了", "我可以吃辣"])
def test_plans_others_and_plain_abilities_read_no_resumption(text: str) -> None:
    assert _facts(text) == []


@pytest.mark.parametrize("first,later,old", [
    ("我不吃辣", "现在可以吃一点辣了", "我不吃辣"),
    ("I'm not drinking coffee", "back on coffee, one cup a day", "I'm not drinking coffee"),
    ("我不喝咖啡", "我又开始喝咖啡了", "我不喝咖啡"),
])
def test_a_relaxed_negation_supersedes_the_negation(mem, first: str, later: str, old: str) -> None:
    mem.add(first, user_id="u", timestamp=T1)
    events = mem.add(later, user_id="u", timestamp=T2)
    assert [e.memory.text for e in events if e.event == "SUPERSEDE"] == [old]


def test_a_chinese_job_with_a_generic_bank_and_a_field_of_work_is_read() -> None:
    assert [(f.attribute, f.value) for f in job_facts("我在一家银行做风控")] == [("occupation", "风控"),
                                                                          ("employer", "银行")]
    assert [(f.attribute, f.value) for f in job_facts("我在医院工作")] == [("employer", "医院")]
    assert [(f.attribute, f.value) for f in job_facts("我是银行柜员")] == [("occupation", "银行柜员")]


def test_a_job_change_in_english_supersedes_the_chinese_job(mem) -> None:
    mem.add("我在一家银行做风控", user_id="u", timestamp=T1)
    events = mem.add("I just joined Alibaba as a data analyst", user_id="u", timestamp=T2)
    closed = {e.memory.fact.attribute: e.memory.fact.value for e in events
              if e.event == "SUPERSEDE" and e.memory.fact is not None}
    assert closed == {"employer": "银行", "occupation": "风控"}
    assert "Alibaba" in mem.ask("Where do I work?", user_id="u").citations[0].text


def test_a_chinese_job_at_a_hospital_changes_the_occupation_and_names_the_employer(mem) -> None:
    first = mem.add("我是一名护士。", user_id="u", timestamp=T1)
    events = mem.add("我在医院当医生。", user_id="u", timestamp=T2)
    assert [(e.event, e.memory.fact.attribute if e.memory.fact else None) for e in events if e.event != "ADD"] == [
        ("SUPERSEDE", "occupation")]
    assert events[[e.event for e in events].index("SUPERSEDE")].memory.id == first[0].memory.id
    assert sorted((e.memory.fact.attribute, e.memory.fact.value) for e in events
                  if e.event == "ADD" and e.memory.fact) == [("employer", "医院"), ("occupation", "医生")]
