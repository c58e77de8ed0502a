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


def test_updating_the_superseding_memory_with_a_new_value_keeps_the_old_one_closed(mem):
    """The edited text is read as add reads a turn: the slot stays, with the new value; the old value stays past."""
    _add(mem, "My rent is 1200 a month.", 0)
    new = _add(mem, "Rent is now 1350.", 30)
    edited = mem.update(new.id, "Rent is now 1400.")
    assert (edited.fact.attribute, edited.fact.value) == ("rent", "1400")
    rents = {x.fact.value: x.valid_to is None for x in mem.get_all(user_id="sam")
             if x.fact and x.fact.attribute == "rent"}
    assert rents == {"1400": True}  # 1200 stays superseded (get_all lists current memories)


def test_an_edit_keeps_the_slot_of_a_value_the_change_reader_read(mem_e5):
    """A value read on add by the change reader (relative to the stored 299) has no rule of its own: the edited
    text's one value of the same type (an amount of money) is the slot's new value, and 299 stays past."""
    mem_e5.add("我的健身房月费是299块", user_id="sam", timestamp=T)
    ev = mem_e5.add("btw 健身房涨价了，现在一个月399，离谱", user_id="sam", timestamp=T + timedelta(days=10))
    new = next(e.memory for e in ev if e.event == "ADD" and e.memory.fact)
    assert (new.fact.attribute, new.fact.value) == ("健身房月费", "399")
    edited = mem_e5.update(new.id, "健身房现在一个月459了")
    assert (edited.fact.attribute, edited.fact.value) == ("健身房月费", "459")
    assert [c.value for c in edited.claims] == ["459"]
    current = [(x.text, x.fact.value) for x in mem_e5.get_all(user_id="sam") if x.fact]
    assert current == [("健身房现在一个月459了", "459")]
    assert "459" in mem_e5.ask("健身房月费多少？", user_id="sam").citations[0].text
