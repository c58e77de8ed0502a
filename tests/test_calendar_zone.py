"""The users' calendar (``Config.timezone``, fresh22 D12 / fresh23 D6): a time given in UTC is read on the
configured zone's days, and the days and months shown in ask, context() and notes are that zone's."""

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.errors import ConfigError
from anchormem.timeutil import day_of, in_calendar, month_of, on_calendar, zone_of

SHANGHAI = zone_of("Asia/Shanghai")
FIRST = datetime(2026, 10, 1, 23, tzinfo=timezone.utc)  # 2026-10-02 07:00 in Shanghai
SECOND = datetime(2026, 11, 20, 23, tzinfo=timezone.utc)  # 2026-11-21 07:00 in Shanghai


def test_days_and_months_follow_the_calendar():
    t = datetime(2026, 11, 30, 16, 30, tzinfo=timezone.utc)
    assert (day_of(t), month_of(t)) == ("2026-11-30", "2026-11")
    with in_calendar(SHANGHAI):
        assert (day_of(t), month_of(t)) == ("2026-12-01", "2026-12")
        assert on_calendar(t).utcoffset().total_seconds() == 8 * 3600
        own = datetime(2026, 11, 30, 10, tzinfo=zone_of("Europe/Berlin"))
        assert on_calendar(own) is own  # a caller's own offset is kept
    assert day_of(t) == "2026-11-30"  # outside the call: UTC again


@pytest.mark.parametrize("zone,said_day,closes", [
    (None, "2026-10-01", datetime(2026, 12, 1, tzinfo=timezone.utc)),
    ("Asia/Shanghai", "2026-10-02", datetime(2026, 11, 30, 16, tzinfo=timezone.utc)),
])
def test_a_scheduled_change_and_its_quote_on_the_users_calendar(zone, said_day, closes):
    m = Memory(":memory:", embedder="hash", **({"timezone": zone} if zone else {}))
    m.add("我住在上海。", user_id="u", timestamp=FIRST)
    m.add("我下个月1号起搬到杭州。", user_id="u", timestamp=SECOND)
    old = next(it for it in m.get_all(user_id="u", include_superseded=True) if it.text == "我住在上海。")
    assert old.valid_to == closes  # "下个月1号" is the first of the next month on that calendar
    answer = m.ask("我以前住哪里？", user_id="u")
    assert answer.text.startswith(f"{said_day}，你说过")
    m.close()


def test_an_unknown_zone_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown zone 'Mars/Olympus'"):
        Memory(":memory:", embedder="hash", timezone="Mars/Olympus")
