"""A question about one of the user's slots at a calendar period it names is answered as of that period."""

import datetime as dt

import pytest

from anchormem import Memory
from anchormem.answering.question_dates import state_time

NOW = dt.datetime(2026, 12, 6, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("question, rest, at", [
    ("Where did I live in March 2024?", "Where did I live?", "2024-03-31T23:59:59"),
    ("2024年3月我住在哪里？", "我住在哪里？", "2024-03-31T23:59:59"),
    ("What was my rent before 2023?", "What was my rent?", "2022-12-31T23:59:59"),
    ("2023年之前我在哪工作？", "我在哪工作？", "2022-12-31T23:59:59"),
    ("Where did I work in 2019?", "Where did I work?", "2019-12-31T23:59:59"),
])
def test_state_time_reads_the_period_and_drops_its_words(question, rest, at):
    got = state_time(question, NOW)
    assert got is not None and got[0] == rest and got[1].isoformat() == at + "+00:00"


@pytest.mark.parametrize("question", ["Where have I lived since 2020?", "2020年以来我住哪？", "Where will I live in 2030?",
                                      "Where do I live?", "Where did I live in March?"])
def test_no_point_in_time_no_state_time(question):
    assert state_time(question, NOW) is None


def test_ask_answers_a_dated_question_as_of_that_period():
    with Memory(":memory:", cache=False) as m:
        m.add("I live in Hangzhou.", user_id="u", timestamp="2024-01-10T00:00:00Z")
        m.add("I moved to Shanghai.", user_id="u", timestamp="2024-06-10T00:00:00Z")
        m.add("We moved again, now we live in Suzhou.", user_id="u", timestamp="2025-02-10T00:00:00Z")
        assert m.ask("Where did I live in March 2024?", user_id="u").citations[0].text == "I live in Hangzhou."
        assert m.ask("2024年10月我住在哪里？", user_id="u").citations[0].text == "I moved to Shanghai."
        assert m.ask("Where do I live?", user_id="u").citations[0].text == "We moved again, now we live in Suzhou."
