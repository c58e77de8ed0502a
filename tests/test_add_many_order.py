"""A bulk import decides as if its turns were added one by one in time order (issue #22, fresh23 D1/D3/D9/D15).

``add_many`` takes the turns in the order said and plans each against the memories the earlier turns of the same
call leave (:class:`anchormem.facts.store_reads.PlanReads`): a plan and its cancellation in one call close the plan,
an older statement in the call is closed by the next one said after it, and the stored rows (current values,
superseded rows and their ``valid_to``, plan states) are those of ``add`` called once per turn in time order. With
``on_conflict="skip"`` a re-import of the same turns draws nothing again."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchormem import Memory
from anchormem.errors import InvalidInputError
from pg_fixtures import pg_server  # noqa: F401 (a fixture: PostgreSQL for the example below)

T = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)

# the generator's turns: homes (two languages), jobs, a scheduled move and its calling off, an event plan and its
# cancellation; each drawn turn gets its own day
HOMES = ["I live in Leeds.", "I live in York now.", "I moved to Sheffield.", "我住在成都。", "I live in Bristol."]
JOBS = ["I work at Google.", "I work at Stripe now.", "I quit my job at Stripe."]
PLANS = [("We move to Edinburgh next month.", "Actually the Edinburgh move is off, we decided to stay."),
         ("We're planning a family trip to Chengdu on December 12.", "We called off the Chengdu trip, my son got sick.")]


def _rows(m: Memory) -> list[tuple]:
    """Every memory of user u, superseded ones included, as comparable values (ids replaced by what they name)."""
    items = [getattr(x, "memory", x) for x in m.get_all(user_id="u", include_superseded=True)]
    by_id = {it.id: it for it in items}

    def name(i):
        o = by_id.get(i)
        return None if o is None else (o.kind, o.text, o.valid_from)

    return sorted((it.kind, it.text, it.valid_from, it.valid_to, name(it.superseded_by),
                   (it.fact.slot, str(it.fact.value), it.fact.polarity) if it.fact else None) for it in items)


def _msgs(turns: list[tuple[str, int]]) -> list[dict]:
    return [{"role": "user", "content": text, "timestamp": (T + timedelta(days=day)).isoformat()}
            for text, day in turns]


def _one_by_one(turns: list[tuple[str, int]], before: list[tuple[str, int]] = ()) -> Memory:
    m = Memory(":memory:", embedder="hash", llm=None, cache=False)
    for msg in _msgs(list(before)) + _msgs(sorted(turns, key=lambda t: t[1])):
        m.add([msg], user_id="u")
    return m


def _bulk(turns: list[tuple[str, int]], before: list[tuple[str, int]] = (), **kw) -> tuple[Memory, dict]:
    m = Memory(":memory:", embedder="hash", llm=None, cache=False)
    for msg in _msgs(list(before)):
        m.add([msg], user_id="u")
    return m, m.add_many(_msgs(turns), user_id="u", return_events=True, **kw)


@st.composite
def stories(draw):
    texts = draw(st.lists(st.sampled_from(HOMES + JOBS), min_size=1, max_size=5))
    for plan, off in draw(st.lists(st.sampled_from(PLANS), max_size=2, unique=True)):
        texts += [plan, off]
    days = draw(st.permutations(range(0, 3 * len(texts), 3)))
    turns = list(zip(texts, days))
    for plan, off in PLANS:  # a cancellation is said after its plan
        p = next((k for k, (t, _) in enumerate(turns) if t == plan), None)
        o = next((k for k, (t, _) in enumerate(turns) if t == off), None)
        if p is not None and o is not None and turns[p][1] > turns[o][1]:
            turns[p], turns[o] = (plan, turns[o][1]), (off, turns[p][1])
    order = draw(st.permutations(range(len(turns))))  # the input order: not the time order
    split = draw(st.integers(0, min(2, len(turns) - 1)))  # the earliest said, added before the import
    by_time = sorted(turns, key=lambda t: t[1])
    before, rest = by_time[:split], [t for t in (turns[k] for k in order) if t not in by_time[:split]]
    return before, rest


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stories())
def test_add_many_stores_what_adds_in_time_order_store(story):
    before, turns = story
    with _one_by_one(turns, before) as one, _bulk(turns, before)[0] as bulk:
        assert _rows(bulk) == _rows(one)


def test_a_plan_and_its_cancellation_in_one_call():
    """fresh23 D1: the cancellation closes the plan of the same call; a scheduled move called off leaves the old home
    current again (its restored copy), as one add per turn does."""
    turns = [("I live in Leeds.", 0), ("We move to Edinburgh next month.", 1),
             ("Actually the Edinburgh move is off, we decided to stay.", 3),
             ("We're planning a family trip to Chengdu on December 12.", 4),
             ("We called off the Chengdu trip, my son got sick.", 8)]
    m, got = _bulk(turns)
    with m:
        current = {it.text for it in m.get_all(user_id="u")}
        assert "We move to Edinburgh next month." not in current
        assert "We're planning a family trip to Chengdu on December 12." not in current
        homes = [it.fact.value for it in m.get_all(user_id="u") if it.fact and it.fact.attribute == "home_city"]
        assert homes == ["Leeds"]
        sup = [e.memory.text for e in got["events"] if e.event == "SUPERSEDE"]
        assert sup == ["I live in Leeds.", "We move to Edinburgh next month.",
                       "We're planning a family trip to Chengdu on December 12."]
        assert _rows(m) == _rows(_one_by_one(turns))


def test_an_older_statement_in_the_call_is_closed_by_the_next_one_said():
    """fresh23 D3: York (Jan), Leeds (May) and Sheffield (March) in one call, in that input order: York holds until
    March, Sheffield until May, Leeds is current; one home at every instant."""
    turns = [("I live in York.", 0), ("I live in Leeds now.", 120), ("I live in Sheffield.", 60)]
    m, got = _bulk(turns)
    with m:
        rows = {it.text: (it.valid_from, it.valid_to) for it in m.get_all(user_id="u", include_superseded=True)}
        assert rows == {"I live in York.": (T, T + timedelta(days=60)),
                        "I live in Sheffield.": (T + timedelta(days=60), T + timedelta(days=120)),
                        "I live in Leeds now.": (T + timedelta(days=120), None)}
        assert [(e.event, e.memory.text) for e in got["events"]] == [
            ("ADD", "I live in York."), ("ADD", "I live in Sheffield."), ("SUPERSEDE", "I live in York."),
            ("ADD", "I live in Leeds now."), ("SUPERSEDE", "I live in Sheffield.")]


def test_an_import_older_than_the_current_value_is_stored_superseded():
    """fresh23 D3/D15: a call holding only a statement older than the store's current value stores it already closed
    and reports that (ADD_SUPERSEDED, as add does), never a plain ADD; the current value stays."""
    m, got = _bulk([("I live in Sheffield.", 30)], before=[("I live in Leeds.", 0), ("I moved to York.", 60)])
    with m:
        assert [(e.event, e.memory.text) for e in got["events"]] == [("ADD_SUPERSEDED", "I live in Sheffield.")]
        homes = [it.fact.value for it in m.get_all(user_id="u") if it.fact and it.fact.attribute == "home_city"]
        assert homes == ["York"]


def test_a_reimport_with_skip_draws_nothing_again():
    """fresh23 D9: the same log imported again with on_conflict="skip" adds no message, utterance, fact or summary;
    a turn not stored yet is still added."""
    turns = [("I live in Leeds.", 0), ("I work at Google as an engineer.", 2), ("I moved to York.", 5)]
    m, _ = _bulk(turns)
    with m:
        rows = _rows(m)
        n_msgs = len(m.store.messages(m._scope("u")))
        again = m.add_many(list(reversed(_msgs(turns))), user_id="u", on_conflict="skip", return_events=True)
        assert (again["duplicates"], again["messages"], again["events"]) == (3, 0, [])
        assert _rows(m) == rows and len(m.store.messages(m._scope("u"))) == n_msgs
        more = m.add_many(_msgs(turns + [("I quit my job at Google.", 9)]), user_id="u", on_conflict="skip")
        assert (more["duplicates"], more["messages"]) == (3, 1)
        assert len(m.store.messages(m._scope("u"))) == n_msgs + 1


def test_a_reimport_with_skip_writes_no_second_summary(tmp_path):
    """D9: the session summary of an imported session is not written again by a skipped re-import."""
    from anchormem import Settings

    msgs = [{"role": "user", "content": f"Note {i}: I bought {i} apples at the market.",
             "timestamp": (T + timedelta(minutes=i)).isoformat()} for i in range(6)]
    with Memory(str(tmp_path / "m.db"), embedder="hash", settings=Settings(summary_every=4)) as m:
        m.add_many(msgs, user_id="u", session_id="s")
        kinds = sorted(it.kind for it in m.get_all(user_id="u", include_superseded=True))
        m.add_many(msgs, user_id="u", session_id="s", on_conflict="skip")
        assert sorted(it.kind for it in m.get_all(user_id="u", include_superseded=True)) == kinds


def test_on_conflict_is_checked():
    with Memory(":memory:", embedder="hash") as m, pytest.raises(InvalidInputError, match="on_conflict"):
        m.add_many(["hi"], user_id="u", on_conflict="error")


def test_add_many_on_postgres_stores_what_adds_store(pg_server):  # noqa: F811
    """One PostgreSQL example of the property: a plan, its cancellation and an older restatement in one call."""
    server = pg_server
    turns = [("I live in Leeds.", 0), ("Actually the Edinburgh move is off, we decided to stay.", 6),
             ("We move to Edinburgh next month.", 3), ("I live in York now.", 40), ("I live in Sheffield.", 20)]
    one = Memory(url=server.new_database(), embedder="hash")
    bulk = Memory(url=server.new_database(), embedder="hash")
    try:
        for msg in _msgs(sorted(turns, key=lambda t: t[1])):
            one.add([msg], user_id="u")
        bulk.add_many(_msgs(turns), user_id="u")
        assert _rows(bulk) == _rows(one)
        assert [it.fact.value for it in bulk.get_all(user_id="u") if it.fact and it.fact.attribute == "home_city"] \
            == ["York"]
    finally:
        one.close()
        bulk.close()
