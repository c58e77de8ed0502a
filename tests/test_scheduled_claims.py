"""Scheduled claims (issue #22, sched13): a value said for a date ahead of when it was said holds from that date."""

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.facts.model import Fact
from anchormem.facts.plans import scheduled_start
from anchormem.timeutil import utcnow

T = datetime(2024, 3, 10, 9, tzinfo=timezone.utc)


@pytest.fixture()
def mem():
    m = Memory(":memory:", embedder="hash")
    yield m
    m.close()


def test_scheduled_start_resolves_the_date_ahead():
    f = Fact(attribute="son_age", value="7", clause="My son turns 7 next month.")
    assert scheduled_start(f, T) == datetime(2024, 4, 1, tzinfo=timezone.utc)
    # a date on or before the day said schedules nothing; nor does a time ahead no date resolves
    assert scheduled_start(Fact(attribute="son_age", value="7", clause="My son turned 7 last month."), T) is None
    assert scheduled_start(Fact(attribute="home_city", value="Madrid", clause="we'll move to Madrid next spring"),
                           T) is None
    # the old value ended now: no schedule
    assert scheduled_start(Fact(attribute="employer", value="Initech",
                                clause="I quit Acme, I start at Initech next week"), T) is None
    assert scheduled_start(Fact(attribute="son_age", value="7", clause="My son turns 7 next month."), None) is None


def test_age_scheduled_holds_from_its_date(mem):
    mem.add("My son is 6 years old.", user_id="u", timestamp=T)
    ev = mem.add("My son turns 7 next month.", user_id="u", timestamp=T + timedelta(days=5))
    new = next(e.memory for e in ev if e.event == "ADD")
    old = next(e.memory for e in ev if e.event == "SUPERSEDE")
    assert new.valid_from == datetime(2024, 4, 1, tzinfo=timezone.utc)  # not the day it was said
    assert old.valid_to == datetime(2024, 4, 1, tzinfo=timezone.utc)
    assert new.claims[0].valid_from == datetime(2024, 4, 1, tzinfo=timezone.utc)
    before = mem.ask("How old is my son?", user_id="u", as_of=T + timedelta(days=10))
    assert before.citations[0].text == "My son is 6 years old."
    after = mem.ask("How old is my son?", user_id="u", as_of=T + timedelta(days=30))
    assert after.citations[0].text == "My son turns 7 next month."
    hits = mem.search("How old is my son?", user_id="u", as_of=T + timedelta(days=10))
    # the value in effect first; the scheduled one, said by then, after it (a plan, findable: "When does he turn 7?")
    assert [h.memory.text for h in hits] == ["My son is 6 years old.", "My son turns 7 next month."]
    assert mem.ask("How old is my son?", user_id="u").citations[0].text == "My son turns 7 next month."


def test_value_scheduled_ahead_of_now_is_not_current_yet(mem):
    now = utcnow()
    mem.add("My rent is 1200 a month.", user_id="u", timestamp=now - timedelta(days=30))
    mem.add("My rent goes up to 1500 next month.", user_id="u", timestamp=now - timedelta(hours=1))
    # read as of now (no write when the date comes): the old rent holds until the new one takes effect
    assert mem.ask("How much is my rent?", user_id="u").citations[0].text == "My rent is 1200 a month."
    assert mem.search("How much is my rent?", user_id="u")[0].memory.text == "My rent is 1200 a month."
    later = mem.ask("How much is my rent?", user_id="u", as_of=now + timedelta(days=62))
    assert later.citations[0].text == "My rent goes up to 1500 next month."


def test_said_today_without_date_supersedes_at_once(mem):
    mem.add("My rent is 1200 a month.", user_id="u", timestamp=T)
    ev = mem.add("My rent went up to 1500.", user_id="u", timestamp=T + timedelta(days=3))
    new = next(e.memory for e in ev if e.event == "ADD")
    old = next(e.memory for e in ev if e.event == "SUPERSEDE")
    assert new.valid_from == T + timedelta(days=3) == old.valid_to


from pg_fixtures import pg_server  # noqa: E402,F401 (a fixture: PostgreSQL for the "postgres" stores below)


@pytest.fixture(params=["sqlite", "postgres"])
def store_mem(request, tmp_path):
    if request.param == "sqlite":
        m = Memory(str(tmp_path / "m.db"), embedder="hash")
    else:
        m = Memory(url=request.getfixturevalue("pg_server").new_database(), embedder="hash")
    yield m
    m.close()


def test_job_start_scheduled_and_called_off_on_both_stores(store_mem):
    m = store_mem
    m.add("I work at Google as an engineer.", user_id="u", timestamp=T)
    ev = m.add("I start at Stripe next month.", user_id="u", timestamp=T + timedelta(days=2))
    start = datetime(2024, 4, 1, tzinfo=timezone.utc)
    assert [(e.event, e.memory.text) for e in ev if e.event == "SUPERSEDE"] == [("SUPERSEDE", "I work at Google")]
    assert next(e.memory.valid_from for e in ev if e.event == "ADD") == start
    assert m.ask("Where do I work?", user_id="u", as_of=start - timedelta(days=1)).citations[0].text.startswith(
        "I work at Google")
    assert m.ask("Where do I work?", user_id="u").citations[0].text == "I start at Stripe next month."
    m.add("I live in Leeds.", user_id="u", timestamp=T)
    m.add("We move to Edinburgh next week.", user_id="u", timestamp=T + timedelta(days=1))
    ev = m.add("Actually the Edinburgh move is off, we decided to stay.", user_id="u", timestamp=T + timedelta(days=3))
    assert ("ADD", "I live in Leeds.") in [(e.event, e.memory.text) for e in ev]
    homes = [it.fact.value for it in m.get_all(user_id="u") if it.fact and it.fact.attribute == "home_city"]
    assert homes == ["Leeds"]


def _homes_at(m, when):
    """The home_city values of the fact memories in effect at ``when`` (valid_from <= when < valid_to)."""
    rows = m.get_all(user_id="u", include_superseded=True)
    return sorted(it.fact.value for it in rows if it.kind == "fact" and it.fact and it.fact.attribute == "home_city"
                  and it.valid_from <= when and (it.valid_to is None or it.valid_to > when))


def test_a_value_said_before_the_scheduled_date_ends_the_old_one_then(store_mem):
    """Toronto; Vancouver scheduled for next month (said day 10); Seattle said on day 20, before that date: Toronto
    ends on day 20 (not on Vancouver's date), Vancouver never holds, exactly one home at every instant."""
    m = store_mem
    m.add("I live in Toronto.", user_id="u", timestamp=T)
    m.add("I'm moving to Vancouver next month.", user_id="u", timestamp=T + timedelta(days=10))
    m.add("I moved to Seattle.", user_id="u", timestamp=T + timedelta(days=20))
    toronto = next(it for it in m.get_all(user_id="u", include_superseded=True) if it.text == "I live in Toronto.")
    seattle = next(it for it in m.get_all(user_id="u") if it.text == "I moved to Seattle.")
    assert toronto.valid_to == T + timedelta(days=20) and toronto.superseded_by == seattle.id
    assert toronto.claims[0].valid_to == T + timedelta(days=20)
    for day in range(0, 70):
        want = ["Toronto"] if day < 20 else ["Seattle"]
        assert _homes_at(m, T + timedelta(days=day, hours=12)) == want, day


def test_a_called_off_schedule_leaves_one_home_at_every_instant(store_mem):
    """Leeds; Edinburgh scheduled for next month; called off before the date: Leeds holds throughout (the original
    until the call-off, its restored copy from then), Edinburgh never."""
    m = store_mem
    m.add("I live in Leeds.", user_id="u", timestamp=T)
    m.add("We move to Edinburgh next month.", user_id="u", timestamp=T + timedelta(days=1))
    m.add("Actually the Edinburgh move is off, we decided to stay.", user_id="u", timestamp=T + timedelta(days=3))
    leeds = sorted((it for it in m.get_all(user_id="u", include_superseded=True) if it.text == "I live in Leeds."),
                   key=lambda it: it.valid_from)
    assert [(it.valid_from, it.valid_to) for it in leeds] == [(T, T + timedelta(days=3)), (T + timedelta(days=3), None)]
    for day in range(0, 60):
        assert _homes_at(m, T + timedelta(days=day, hours=12)) == ["Leeds"], day


def test_scheduled_ahead_is_one_read_of_the_current_slot_memories(mem):
    """The test every search runs (is a value scheduled ahead?) reads the partial index of current slot memories,
    never the scope by time: 35 ms per search at 100k memories before (bench/results/quiet14_search_*.json)."""
    from anchormem.types import Scope

    now = utcnow()
    scope = Scope(user_id="u")
    assert mem.store.has_scheduled_ahead(scope, now) is False
    mem.add("My rent is 1200 a month.", user_id="u", timestamp=now - timedelta(days=30))
    assert mem.store.has_scheduled_ahead(scope, now) is False  # a current fact, in effect since it was said
    mem.add("My rent goes up to 1500 next month.", user_id="u", timestamp=now - timedelta(hours=1))
    assert mem.store.has_scheduled_ahead(scope, now) is True
    assert mem.store.has_scheduled_ahead(scope, now + timedelta(days=62)) is False  # in effect by then
    assert mem.store.has_scheduled_ahead(Scope(user_id="other"), now) is False
    plan = mem.store._read("EXPLAIN QUERY PLAN SELECT 1 FROM memories m WHERE m.tenant = ? AND m.user_id = ? AND "  # noqa: SLF001
                           "m.valid_to IS NULL AND (m.slot IS NOT NULL AND m.valid_from > 0) AND (m.kind || '') = "
                           "'fact' AND m.valid_from > m.created_at LIMIT 1", ["default", "u"])  # (its own SQL's shape)
    assert "ix_mem_slot" in " ".join(str(r) for r in plan)
