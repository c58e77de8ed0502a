"""Relative dates resolve against the turn's own timestamp (and its UTC offset), never the wall clock."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.testing import frozen_clock
from anchormem.text.dates import resolve_dates

UTC = timezone.utc
CST = timezone(timedelta(hours=8))


def _days(spans):
    return [(s.start.astimezone(CST if s.start.utcoffset() else UTC).date().isoformat(),) for s in spans]


@pytest.mark.parametrize("text,anchor,start,end", [
    ("I got back from a trip to City C last week.", datetime(2023, 5, 24, 10, tzinfo=UTC),
     datetime(2023, 5, 15, tzinfo=UTC), datetime(2023, 5, 21, 23, 59, 59, tzinfo=UTC)),
    ("We met yesterday.", datetime(2023, 1, 1, 3, tzinfo=UTC),
     datetime(2022, 12, 31, tzinfo=UTC), datetime(2022, 12, 31, 23, 59, 59, tzinfo=UTC)),
    ("I'll fly out next month.", datetime(2023, 12, 20, tzinfo=UTC),
     datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 1, 31, 23, 59, 59, tzinfo=UTC)),
    ("She visited three days ago.", datetime(2024, 3, 2, tzinfo=UTC),
     datetime(2024, 2, 28, tzinfo=UTC), datetime(2024, 2, 28, 23, 59, 59, tzinfo=UTC)),
    ("The concert is on 8 May 2023.", datetime(2025, 1, 1, tzinfo=UTC),
     datetime(2023, 5, 8, tzinfo=UTC), datetime(2023, 5, 8, 23, 59, 59, tzinfo=UTC)),
])
def test_english_relative_and_absolute(text, anchor, start, end):
    spans = resolve_dates(text, anchor)
    assert (spans[0].start, spans[0].end) == (start, end)


def test_chinese_relative_dates():
    anchor = datetime(2023, 5, 24, 10, tzinfo=UTC)  # a Wednesday
    (wed,) = resolve_dates("我上周三去了医院。", anchor)
    assert (wed.start, wed.end) == (datetime(2023, 5, 17, tzinfo=UTC), datetime(2023, 5, 17, 23, 59, 59, tzinfo=UTC))
    (y,) = resolve_dates("昨天下雨了", anchor)
    assert y.start == datetime(2023, 5, 23, tzinfo=UTC)
    (nm,) = resolve_dates("我下个月搬家", anchor)
    assert (nm.start, nm.end) == (datetime(2023, 6, 1, tzinfo=UTC), datetime(2023, 6, 30, 23, 59, 59, tzinfo=UTC))
    assert [s.text for s in resolve_dates("我下个月搬到 City C，new job at Company K 下周一开始。", anchor)] == \
        ["下个月", "下周一"]
    assert resolve_dates("我下个月搬到 City C，new job at Company K 下周一开始。", anchor)[1].start == \
        datetime(2023, 5, 29, tzinfo=UTC)


def test_day_boundaries_follow_the_anchor_offset():
    anchor = datetime(2025, 7, 25, 7, 0, tzinfo=CST)  # 2025-07-24T23:00Z; local day is the 25th
    (y,) = resolve_dates("昨天", anchor)
    assert y.start == datetime(2025, 7, 24, tzinfo=CST) == datetime(2025, 7, 23, 16, tzinfo=UTC)
    assert y.end == datetime(2025, 7, 24, 23, 59, 59, tzinfo=CST)


def test_add_resolves_against_supplied_timestamp_in_2023(mem):
    item = mem.add("I got back from a trip to City C last week.", user_id="A",
                   timestamp="2023-05-24T10:00:00Z")[0].memory
    assert datetime(2023, 5, 15, tzinfo=UTC) <= item.event_time <= datetime(2023, 5, 21, 23, 59, 59, tzinfo=UTC)
    assert item.event_time_end == datetime(2023, 5, 21, 23, 59, 59, tzinfo=UTC)
    assert item.created_at == datetime(2023, 5, 24, 10, tzinfo=UTC)
    assert mem.get(item.id).event_time == datetime(2023, 5, 15, tzinfo=UTC)


def test_add_without_timestamp_uses_the_add_time(mem):
    with frozen_clock("2024-02-07T12:00:00Z"):  # a Wednesday
        item = mem.add("I got back from a trip to City C last week.", user_id="A")[0].memory
        zh = mem.add("我昨天见了老朋友。", user_id="A")[0].memory
    assert (item.event_time, item.event_time_end) == (datetime(2024, 1, 29, tzinfo=UTC),
                                                      datetime(2024, 2, 4, 23, 59, 59, tzinfo=UTC))
    assert zh.event_time == datetime(2024, 2, 6, tzinfo=UTC)


def test_message_timestamps_with_offsets(mem):
    evs = mem.add([
        {"role": "user", "content": "我昨天去了City C。", "timestamp": "2025-07-25T07:00:00+08:00"},
        {"role": "user", "content": "I went hiking yesterday.", "timestamp": "2025-07-25T07:00:00Z"},
    ], user_id="A")
    zh, en = (e.memory for e in evs)
    assert zh.created_at == datetime(2025, 7, 24, 23, 0, tzinfo=UTC) and zh.created_at.utcoffset() == timedelta(0)
    assert zh.event_time == datetime(2025, 7, 24, tzinfo=CST)  # the speaker's yesterday, not UTC's
    assert en.event_time == datetime(2025, 7, 24, tzinfo=UTC)
    assert mem.get(zh.id).event_time == datetime(2025, 7, 23, 16, tzinfo=UTC)
    item = mem.add("下周三开会。", user_id="A", timestamp="2025-07-27T23:30:00+08:00")[0].memory  # Sunday local
    assert item.event_time == datetime(2025, 7, 30, tzinfo=CST)
    assert item.created_at == datetime(2025, 7, 27, 15, 30, tzinfo=UTC)
    assert mem.store.messages(mem._scope("A"))[0]["timestamp"] == "2025-07-24T23:00:00+00:00"


@pytest.mark.parametrize("text, start, end", [
    # a negated perfect (or "first time in") makes "in N units" the length of time up to the turn
    ("Haven't touched a cigarette in three weeks, I'm done with smoking.", "2026-09-19", "2026-10-10"),
    ("We have not spoken in 3 months", "2026-07-10", "2026-10-10"),
    ("First time in two years I went skiing.", "2024-10-10", "2026-10-10"),
    # otherwise it is a date ahead, also after a negation in an earlier sentence
    ("I'll see you in three weeks.", "2026-10-31", "2026-10-31"),
    ("I haven't decided. See you in two days.", "2026-10-12", "2026-10-12"),
])
def test_in_n_units_after_a_negated_perfect_is_a_length_of_time_up_to_now(text, start, end):
    spans = resolve_dates(text, datetime(2026, 10, 10, 9, tzinfo=UTC))
    assert [(s.start.date().isoformat(), s.end.date().isoformat()) for s in spans] == [(start, end)]


@pytest.mark.parametrize("text,want", [
    ("明年三月搬去深圳", [("明年三月", "2027-03-01", "2027-03-31")]),  # fresh24 D9: was the whole of 2027
    ("明年1月15号入职", [("明年1月15号", "2027-01-15", "2027-01-15")]),
    ("去年3月15日", [("去年3月15日", "2025-03-15", "2025-03-15")]),  # was 2027-03-15
    ("next March I'm moving", [("next March", "2027-03-01", "2027-03-31")]),  # was no date
    ("last March we moved", [("last March", "2026-03-01", "2026-03-31")]),
    ("in March next year", [("in March next year", "2027-03-01", "2027-03-31")]),
    ("next may be better", []),
])
def test_a_month_of_a_year_named_relatively(text, want):
    from datetime import datetime, timezone

    from anchormem.text.dates import resolve_dates

    got = resolve_dates(text, datetime(2026, 11, 20, 9, tzinfo=timezone.utc))
    assert [(s.text, s.start.date().isoformat(), s.end.date().isoformat()) for s in got] == want
