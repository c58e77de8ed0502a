"""Issue #22: deleting the memory that superseded a value removes that claim and never resurrects the older one as
current: it stays superseded (history ``SUCCESSOR_DELETED``), or is closed by a later successor from that one's time.
Updating the superseding memory so that it no longer states the slot (a correction: "I only visited Rome") reopens it;
so does an expiry."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest


T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.fixture
def mem(mem_det):
    return mem_det


def _add(m, text, day, session="s1"):
    ev = m.add(text, user_id="sam", session_id=session, timestamp=T + timedelta(days=day))
    return next(e.memory for e in ev if e.event == "ADD")


def _homes(m):
    return sorted(x.fact.value for x in m.get_all(user_id="sam") if x.fact and x.fact.attribute == "home_city")


def test_deleting_the_superseding_memory_never_resurrects_the_old_value(mem):
    lisbon = _add(mem, "I live in Lisbon.", 0)
    berlin = _add(mem, "I moved to Berlin.", 30, "s2")
    assert mem.get(lisbon.id).valid_to is not None
    mem.delete(berlin.id)
    old = mem.get(lisbon.id)
    assert old.valid_to == T + timedelta(days=30) and old.superseded_by == berlin.id and not old.current
    assert _homes(mem) == []
    assert mem.ask("Where do I live?", user_id="sam").abstained  # no current home: Lisbon is no longer it
    past = mem.ask("Where did I live before?", user_id="sam")  # the past stays reachable, said as past
    assert past.citations and past.citations[0].id == lisbon.id
    assert [(h.event, h.reason) for h in mem.history(lisbon.id)] == [
        ("ADD", None), ("SUPERSEDE", f"superseded by {berlin.id}"),
        ("SUCCESSOR_DELETED", f"stays superseded: its successor {berlin.id} was deleted")]


def test_a_later_successor_keeps_the_old_value_closed_from_its_own_time(mem):
    lisbon = _add(mem, "I live in Lisbon.", 0)
    berlin = _add(mem, "I moved to Berlin.", 30, "s2")
    paris = _add(mem, "I moved to Paris.", 60, "s3")
    mem.delete(berlin.id)
    old = mem.get(lisbon.id)
    assert old.superseded_by == paris.id and old.valid_to == T + timedelta(days=60)
    assert _homes(mem) == ["Paris"]


def test_delete_all_of_the_superseding_session_keeps_it_closed_and_purging_the_superseded_one_stays_gone(mem):
    lisbon = _add(mem, "I live in Lisbon.", 0)
    _add(mem, "I moved to Berlin.", 30, "s2")
    mem.delete_all(user_id="sam", session_id="s2", purge=True)
    assert mem.get(lisbon.id).valid_to is not None and _homes(mem) == []
    berlin = _add(mem, "I moved to Berlin.", 40, "s3")
    mem.delete_all(user_id="sam", session_id="s1", purge=True)  # the superseded Lisbon is forgotten
    assert _homes(mem) == ["Berlin"] and mem.get(berlin.id).valid_to is None
    assert all("Lisbon" not in x.text for x in mem.get_all(user_id="sam", include_superseded=True))


def test_updating_the_superseding_memory_to_no_longer_state_the_slot_reopens(mem):
    lisbon = _add(mem, "I live in Lisbon.", 0)
    rome = _add(mem, "I moved to Rome.", 30, "s2")
    mem.update(rome.id, "I visited Rome for a week.")
    assert mem.get(lisbon.id).valid_to is None and _homes(mem) == ["Lisbon"]
    assert mem.ask("Where do I live?", user_id="sam").citations[0].id == lisbon.id


def test_the_claim_an_utterance_carries_stays_closed_when_its_successor_is_deleted(mem):
    ev = mem.add("Hi, I'm Sam. I live in Lisbon and I work as a nurse.", user_id="sam", timestamp=T)
    turn = next(e.memory for e in ev if e.memory.kind == "utterance")
    berlin = _add(mem, "I moved to Berlin.", 30, "s2")
    home = [c for c in mem.get(turn.id).claims if c.slot == "user|home_city"]
    assert home and home[0].valid_to is not None and home[0].superseded_by == berlin.id
    mem.delete(berlin.id)
    back = mem.get(turn.id)
    assert back.valid_to is None  # still current for the job
    assert [(c.value, c.valid_to is not None) for c in back.claims if c.slot == "user|home_city"] == [("Lisbon", True)]
