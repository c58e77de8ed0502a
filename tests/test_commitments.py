"""Commitments, decisions and todos: their own kind, a due date from the turn's own time, due() and complete()."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from anchormem import Memory
from anchormem.errors import ConflictError, InvalidInputError
from anchormem.facts.commitments import due_date, is_commitment
from anchormem.testing import DeterministicEmbedder

SAID = "2024-05-22T10:00:00+08:00"  # a Wednesday, in UTC+8


@pytest.fixture
def mem():
    with Memory(":memory:", embedder=DeterministicEmbedder()) as m:
        yield m


@pytest.mark.parametrize("text, want", [
    ("We agreed to send the documents by Monday.", True),
    ("I will call you tomorrow.", True),
    ("I'll send the invoice next week.", True),
    ("Remind me to renew my passport.", True),
    ("Let's meet on Friday to sign.", True),
    ("双方同意在6月30日前完成付款。", True),
    ("我会在下周一前把合同发给你。", True),
    ("提醒我明天交房租。", True),
    ("I went to the gym yesterday.", False),
    ("Will you call me tomorrow?", False),
    ("If I will be late, what happens?", False),
    ("你会来吗？", False),
    ("我昨天去了超市。", False),
    # fresh-user trial: speech acts and vows are not commitments; reported promises and 约好 are
    ("I have to admit the movie was good.", False),
    ("I will never buy from you again.", False),
    ("I must say, great service.", False),
    ("I won't forget.", False),
    ("我要说的是这个很好。", False),
    ("我们约好周五前退款。", True),
    ("You promised me a refund by Friday!", True),
    ("你们答应周五前退款。", True),
    ("We will ship it by Friday.", True),
    ("I have to go now, bye.", False),
    ("I will think about it.", False),
    ("我们没有约定任何事情。", False),
    ("I have to go to the bank tomorrow.", True),
])
def test_is_commitment(text, want):
    assert is_commitment(text) is want


def test_the_assistants_advice_is_not_its_commitment():
    assert is_commitment("骑车记得戴头盔。") is True  # the user reminding themself
    assert is_commitment("骑车记得戴头盔。", speaker_role="assistant") is False
    assert is_commitment("Don't forget to bring your ID.", speaker_role="assistant") is False
    assert is_commitment("I will call you tomorrow.", speaker_role="assistant") is True
    assert is_commitment("我会在明天之前回复您。", speaker_role="assistant") is True


def test_due_dates_resolve_on_the_speakers_own_day():
    said = datetime.fromisoformat(SAID)
    start, end = due_date("We agreed to send the documents by Monday.", said)
    # the Monday after Wednesday 2024-05-22, midnight in UTC+8
    assert (start, end.date()) == (datetime(2024, 5, 26, 16, 0, tzinfo=timezone.utc), datetime(2024, 5, 27).date())
    assert due_date("双方同意在6月30日前完成付款。", said)[0] == datetime(2024, 6, 29, 16, 0, tzinfo=timezone.utc)
    assert due_date("I will call you tomorrow.", said)[0] == datetime(2024, 5, 22, 16, 0, tzinfo=timezone.utc)
    assert due_date("Remind me to renew my passport.", said) is None


def test_commitments_are_stored_listed_by_due_date_and_completed(mem):
    evs = mem.add([
        {"role": "user", "content": "We agreed to send the documents by Monday. The client was happy."},
        {"role": "assistant", "content": "I will call you tomorrow to confirm."},
        {"role": "user", "content": "双方同意在6月30日前完成付款。"},
        {"role": "user", "content": "I went to the gym yesterday."},
        {"role": "user", "content": "Remind me to renew my passport."},
    ], user_id="u", timestamp=SAID)
    assert [(e.memory.kind, e.memory.source, e.memory.text) for e in evs] == [
        ("utterance", "user", "We agreed to send the documents by Monday. The client was happy."),
        ("commitment", "user", "We agreed to send the documents by Monday."),
        ("commitment", "assistant", "I will call you tomorrow to confirm."),
        ("commitment", "user", "双方同意在6月30日前完成付款。"),
        ("utterance", "user", "I went to the gym yesterday."),
        ("commitment", "user", "Remind me to renew my passport."),
    ]
    # provenance: the commitment from a longer turn cites that turn
    assert evs[1].memory.source_message_ids == evs[0].memory.source_message_ids
    assert evs[1].memory.source_text == evs[0].memory.text
    due = mem.due(user_id="u")
    assert [(m.text, m.event_time) for m in due] == [
        ("I will call you tomorrow to confirm.", datetime(2024, 5, 22, 16, 0, tzinfo=timezone.utc)),
        ("We agreed to send the documents by Monday.", datetime(2024, 5, 26, 16, 0, tzinfo=timezone.utc)),
        ("双方同意在6月30日前完成付款。", datetime(2024, 6, 29, 16, 0, tzinfo=timezone.utc)),
        ("Remind me to renew my passport.", None),
    ]
    soon = mem.due(user_id="u", before="2024-05-27T00:00:00Z", include_undated=False)
    assert [m.text for m in soon] == ["I will call you tomorrow to confirm.",
                                      "We agreed to send the documents by Monday."]
    done = mem.complete(due[0].id, reason="called")
    assert done.valid_to is not None
    assert [(h.event, h.reason) for h in mem.history(due[0].id)] == [("ADD", None), ("DONE", "called")]
    assert [m.text for m in mem.due(user_id="u")][0] == "We agreed to send the documents by Monday."
    with pytest.raises(ConflictError):
        mem.complete(due[0].id)
    with pytest.raises(InvalidInputError, match="not a commitment"):
        mem.complete(evs[4].memory.id)
    assert mem.due(user_id="someone-else") == []
    # the commitment is searchable, and its turn is not shown twice
    hits = mem.search("send the documents", user_id="u")
    assert sum("send the documents" in h.memory.text for h in hits) == 1


@pytest.mark.parametrize("text, due", [
    ("我答应周五之前把体检报告发给你。", "2025-07-11"), ("我保证星期三前把钥匙还给房东。", "2025-07-09"),
    ("I promised to return the drill before Thursday.", "2025-07-10"), ("I'll send the invoice by Monday.", "2025-07-14"),
])
def test_a_bare_weekday_in_a_promise_is_the_next_one(text, due):
    """fresh27 D13: a bare weekday (周五之前, "before Thursday") is the next such day after the day it was said
    (here a Monday, 2025-07-07 in Asia/Shanghai), not undated."""
    m = Memory(":memory:", timezone="Asia/Shanghai")
    ev = m.add(text, user_id="h", timestamp="2025-07-07T09:00:00+08:00")
    got = [e.memory for e in ev if e.memory.kind == "commitment"]
    assert got and got[0].event_time is not None
    assert got[0].event_time.astimezone(ZoneInfo("Asia/Shanghai")).date().isoformat() == due


def test_a_habit_weekday_and_a_past_weekday_are_no_due_day():
    from anchormem.text.dates import resolve_dates

    said = datetime(2025, 7, 7, 9, tzinfo=timezone.utc)  # a Monday
    assert resolve_dates("每周五打羽毛球", said, tense="future") == []
    assert resolve_dates("I swim on Fridays", said, tense="present") == []
    assert [d.start.date().isoformat() for d in resolve_dates("周五我去看了牙医", said, tense="past")] == ["2025-07-04"]
