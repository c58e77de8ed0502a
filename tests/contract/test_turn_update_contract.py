"""``update`` of a user's turn re-plans its claims (anchormem.memory_update) the same way on every store: a claim
its new text no longer says is retracted (``close_fact``), what it had superseded holds again, a new claim is
written with the turn's provenance and carried by the turn."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=60)


def _homes(mem):
    return sorted((x.fact.value, x.current) for x in mem.get_all(user_id="u", include_superseded=True)
                  if x.fact is not None and x.fact.attribute == "home_city")


def test_updating_a_turn_retracts_and_replans_its_claims(mem):
    mem.add("I live in Madrid.", user_id="u", timestamp=T1)
    ev = mem.add("Big news: I moved to Lisbon and I started working as a nurse.", user_id="u", timestamp=T2)
    turn = next(e.memory for e in ev if e.memory.kind == "utterance")
    lisbon = next(c.fact_id for c in turn.claims if c.value == "Lisbon")
    mem.update(turn.id, "Big news: I visited Lisbon and I started working as a nurse.")
    assert _homes(mem) == [("Lisbon", False), ("Madrid", True)]  # retracted; the older home holds again
    assert [(h.event, h.actor) for h in mem.history(lisbon)][-1] == ("SUPERSEDE", "update")
    mem.update(turn.id, "Big news: I moved to Porto and I started working as a nurse.")
    assert _homes(mem) == [("Lisbon", False), ("Madrid", False), ("Porto", True)]
    now = mem.get(turn.id)
    porto = next(c for c in now.claims if c.value == "Porto")
    assert now.current and porto.valid_to is None and porto.valid_from == T2
    assert mem.get(porto.fact_id).source_message_ids == turn.source_message_ids


def test_a_turn_updated_to_restate_another_turns_fact_carries_its_claim(mem):
    mem.add("I live in Porto.", user_id="u", timestamp=T1)
    ev = mem.add("Hi there, I drive a Honda and I work as a nurse.", user_id="u", timestamp=T2)
    turn = next(e.memory for e in ev if e.memory.kind == "utterance")
    item = mem.update(turn.id, "Hi there, I live in Porto and I work as a nurse.")
    assert _homes(mem) == [("Porto", True)]
    porto = next(c for c in item.claims if c.value == "Porto")
    assert porto.valid_to is None and porto.valid_from == T1 and mem.get(porto.fact_id).text == "I live in Porto."


def test_a_turn_updated_back_to_the_value_it_had_replaced_leaves_one_fact_of_it(mem):
    mem.add("I live in Porto.", user_id="u", timestamp=T1)
    ev = mem.add("Hi there, I live in Lisbon and I'm a nurse.", user_id="u", timestamp=T2)
    turn = next(e.memory for e in ev if e.memory.kind == "utterance")
    item = mem.update(turn.id, "Hi there, I live in Porto and I'm a nurse.")
    assert _homes(mem) == [("Lisbon", False), ("Porto", True)]  # the first Porto holds again, not a second one
    porto = next(x for x in mem.get_all(user_id="u") if x.fact and x.fact.value == "Porto")
    assert [c.fact_id for c in item.claims if c.value == "Porto"] == [porto.id]
