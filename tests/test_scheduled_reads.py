"""A value scheduled for a date still ahead, on every read path (issue #22, sched13b): the value it replaces is
current until then; the scheduled one is listed and shown as planned ("planned: from 2027-01-01" / "计划2027年1月1日起")."""

from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from anchormem import Memory
from anchormem.facts.claims import closed_claims, past_note, schedule_note
from anchormem.mcp_server import MemoryOut
from anchormem.timeutil import utcnow
from anchormem.types import validity_state

NOW = utcnow()
SAID = NOW - timedelta(hours=1)
# "next month" as said an hour ago: the first day of the month after SAID
START = (SAID.replace(day=1, hour=0, minute=0, second=0, microsecond=0) + timedelta(days=32)).replace(day=1)


@pytest.fixture()
def mem():
    m = Memory(":memory:", embedder="hash")
    m.add("My rent is 1200 a month.", user_id="u", timestamp=NOW - timedelta(days=30), session_id="s")
    m.add("My rent goes up to 1500 next month.", user_id="u", timestamp=SAID, session_id="s")
    yield m
    m.close()


def test_validity_state_rule():
    t = datetime(2024, 3, 1, tzinfo=timezone.utc)
    day = timedelta(days=1)
    assert validity_state(t, None, t, t + day) == "current"
    assert validity_state(t + 9 * day, None, t, t + day) == "scheduled"  # said at t, holds from t+9
    assert validity_state(t + 9 * day, None, t, t + 10 * day) == "current"  # its date has come
    assert validity_state(t, t + 9 * day, t, t + day) == "current"  # closed at a date still ahead: holds till then
    assert validity_state(t, t + 9 * day, t, t + 9 * day) == "superseded"
    assert validity_state(t + 2 * day, None, t + 2 * day, t + day) == "current"  # dated ahead as said: no plan


def test_get_all_reads_as_of_now(mem):
    rows = {it.text: it for it in mem.get_all(user_id="u")}
    old, new = rows["My rent is 1200 a month."], rows["My rent goes up to 1500 next month."]
    assert (old.state, old.current, old.valid_to) == ("current", True, START)
    assert (new.state, new.current, new.valid_from) == ("scheduled", False, START)
    assert new.model_dump()["state"] == "scheduled" and old.model_dump()["current"] is True
    assert closed_claims(old) == [] and past_note(old) is None  # its claim holds until START
    assert len(mem.get_all(user_id="u", limit=1)) == 1
    # include_superseded lists every row as before
    assert len(mem.get_all(user_id="u", include_superseded=True)) == 2
    # once the date has passed (read after it), the old value is closed: past_note marks it
    assert past_note(old, START + timedelta(days=1)) == f"until {START:%Y-%m}"


def test_ask_and_context_mark_the_plan(mem):
    d = START.date().isoformat()
    answer = mem.ask("How much is my rent?", user_id="u")
    assert answer.text == (f'On {(NOW - timedelta(days=30)).date().isoformat()}, you said (current; until {d}, a '
                           f'change is planned): "My rent is 1200 a month."')
    text = mem.context(user_id="u", query="How much is my rent?").text
    assert f"My rent is 1200 a month. (current; until {d}, a change is planned)" in text
    assert f"My rent goes up to 1500 next month. (planned: from {d})" in text
    assert "(until " not in text


def test_chinese_wording():
    m = Memory(":memory:", embedder="hash")
    m.add("我住在杭州。", user_id="z", timestamp=NOW - timedelta(days=30))
    m.add("我下个月搬到上海。", user_id="z", timestamp=SAID)
    rows = {it.text: it for it in m.get_all(user_id="z")}
    assert rows["我下个月搬到上海。"].state == "scheduled"
    assert schedule_note(rows["我下个月搬到上海。"], zh=True) == f"计划{START.year}年{START.month}月1日起"
    assert m.ask("我住在哪里？", user_id="z").text == (
        f"{(NOW - timedelta(days=30)).date().isoformat()}，你说过（目前如此，计划{START.year}年{START.month}月1日起改变）：“我住在杭州。”")
    m.close()


def test_session_summary_keeps_the_current_value_and_marks_the_plan(mem):
    summary = mem.summarize(user_id="u", session_id="s")
    assert "My rent is 1200 a month." in summary.text
    assert f"[1200 a month → 1500, planned: from {START.date().isoformat()}]" in summary.text


def test_mcp_and_rest_serialise_the_state(mem):
    new = next(it for it in mem.get_all(user_id="u") if it.state == "scheduled")
    out = MemoryOut.of(new)
    assert (out.state, out.current, out.valid_from) == ("scheduled", False, START)
    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyStore

    keys = KeyStore(":memory:")
    key = keys.create("acme", "admin", name="t")[1]
    app = create_app(":memory:", embedder="hash", keys=keys, rate_limit=None)
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        for text, when in (("My rent is 1200 a month.", NOW - timedelta(days=30)),
                           ("My rent goes up to 1500 next month.", SAID)):
            r = c.post("/v1/memories", json={"messages": [{"role": "user", "content": text,
                                                            "timestamp": when.isoformat()}], "user_id": "r"})
            assert r.status_code == 201, r.text
        listed = {m["text"]: m for m in c.get("/v1/memories", params={"user_id": "r"}).json()["memories"]}
        assert (listed["My rent goes up to 1500 next month."]["state"],
                listed["My rent goes up to 1500 next month."]["current"]) == ("scheduled", False)
        assert (listed["My rent is 1200 a month."]["state"], listed["My rent is 1200 a month."]["current"]) == (
            "current", True)
        spec = c.get("/openapi.json").json()["components"]["schemas"]["MemoryItem"]["properties"]["state"]
        assert "scheduled" in spec["enum"]
