"""Issue #22 item 4: a paraphrased question about one of the asker's slots reaches the slot's current value
(question words: data/lang/*/answers.json slot_questions); nothing is answered where nothing was recorded."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.answering.slot_questions import about_user, asked_slots

T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.fixture
def mem(mem_det):
    return mem_det


@pytest.mark.parametrize("question, slots", [
    ("How much do I earn?", ["salary"]), ("What do they pay me?", ["salary"]), ("我一个月挣多少？", ["salary"]),
    ("Where am I based?", ["home_city"]), ("我住哪？", ["home_city"]), ("What's the weather like?", []),
])
def test_question_words_name_the_slot(question, slots):
    assert asked_slots(question) == slots


@pytest.mark.parametrize("question, mine", [
    ("How much do I earn?", True), ("How much does my brother earn?", False), ("How much does Tom earn?", False),
    ("我一个月挣多少？", True), ("我哥哥一个月挣多少？", False),
])
def test_only_questions_about_the_asker(question, mine):
    assert about_user(question) is mine


@pytest.mark.parametrize("question", ["How much do I earn?", "What do they pay me?", "我一个月挣多少？"])
def test_paraphrased_salary_questions_cite_the_salary(mem, question):
    mem.add("My salary is 52000.", user_id="s", timestamp=T)
    ans = mem.ask(question, user_id="s")
    assert not ans.abstained
    assert [c.text for c in ans.citations] == ["My salary is 52000."]


def test_where_am_i_based_cites_the_current_home_only(mem):
    mem.add("I live in Lisbon.", user_id="s", timestamp=T)
    mem.add("I moved to Berlin.", user_id="s", timestamp=T + timedelta(days=30))
    ans = mem.ask("Where am I based?", user_id="s")
    assert [c.text for c in ans.citations] == ["I moved to Berlin."]
    assert ans.text == 'On 2024-01-31, you said: "I moved to Berlin."'


def test_no_answer_where_nothing_was_recorded(mem):
    mem.add("I live in Lisbon.", user_id="s", timestamp=T)
    assert mem.ask("How much do I earn?", user_id="s").abstained
    mem.add("My salary is 52000.", user_id="s", timestamp=T)
    assert mem.ask("How much does my brother earn?", user_id="s").abstained
    assert mem.ask("How much do I earn?", user_id="other").abstained
