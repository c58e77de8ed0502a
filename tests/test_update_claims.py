"""Issue #22: ``update`` of a user's turn re-plans its claims as ``add`` plans a turn (anchormem.memory_update), and
a turn whose claims are all closed reads as not current on every read path."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from anchormem.facts.claims import current_view
from anchormem.timeutil import set_clock

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=60)
TURN = "Hi there, I live in Lisbon and I work as a nurse at the city hospital."


def _turn(events):
    return next(e.memory for e in events if e.memory.kind == "utterance")


def _facts(m, user, **kw):
    return sorted((x.fact.attribute, x.fact.value, x.current) for x in m.get_all(user_id=user, **kw)
                  if x.kind == "fact")


def test_updating_a_turn_replaces_the_claims_it_no_longer_says(mem_det):
    turn = _turn(mem_det.add(TURN, user_id="u", timestamp=T1))
    set_clock(lambda: T2)
    lisbon = next(c.fact_id for c in turn.claims if c.value == "Lisbon")
    nurse = next(c.fact_id for c in turn.claims if c.value == "nurse")
    item = mem_det.update(turn.id, TURN.replace("Lisbon", "Porto"))
    assert _facts(mem_det, "u") == [("employer", "city hospital", True), ("home_city", "Porto", True),
                                    ("occupation", "nurse", True)]
    assert item.current and sorted((c.value, c.valid_to is None) for c in item.claims) == \
        [("Porto", True), ("city hospital", True), ("nurse", True)]  # it no longer carries what it no longer says
    assert nurse in {c.fact_id for c in item.claims if c.valid_to is None}  # a restated claim keeps its fact
    porto = mem_det.get(next(c.fact_id for c in item.claims if c.value == "Porto"))
    assert porto.source_message_ids == turn.source_message_ids and porto.valid_from == T1  # the turn's provenance
    old = mem_det.get(lisbon)  # retracted at the edit, replaced by the new home, with a history entry saying why
    assert (old.current, old.valid_to, old.superseded_by) == (False, T2, porto.id)
    assert [(h.event, h.actor) for h in mem_det.history(lisbon)][-1] == ("SUPERSEDE", "update")
    assert "no longer says it" in mem_det.history(lisbon)[-1].reason
    assert [h.event for h in mem_det.history(turn.id)][-1] == "UPDATE"
    answer = mem_det.ask("Where do I live?", user_id="u")
    assert "Lisbon" not in " ".join(c.text for c in answer.citations)


def test_a_turn_updated_to_say_nothing_of_its_claims_answers_none_of_them(mem_det):
    turn = _turn(mem_det.add("我住在成都，在一家银行做柜员。我女儿叫小雨。", user_id="u", timestamp=T1))
    assert sorted(c.value for c in turn.claims) == ["小雨", "成都", "柜员", "银行"]  # 一家银行: the employer
    item = mem_det.update(turn.id, "今天天气不错。")
    assert item.current and item.claims == [] and _facts(mem_det, "u") == []
    gone = [x for x in mem_det.get_all(user_id="u", include_superseded=True) if x.kind == "fact"]
    assert len(gone) == 4 and all(x.superseded_by is None and not x.current for x in gone)  # nothing replaced them
    assert mem_det.ask("我住在哪里？", user_id="u").abstained


def test_a_turn_updated_to_state_no_change_lets_the_older_value_hold_again(mem_det):
    mem_det.add("I live in Madrid.", user_id="u", timestamp=T1)
    turn = _turn(mem_det.add("Big news: I moved to Lisbon and I started working as a nurse.", user_id="u",
                             timestamp=T2))
    assert _facts(mem_det, "u") == [("home_city", "Lisbon", True), ("occupation", "nurse", True)]
    mem_det.update(turn.id, "Big news: I visited Lisbon and I started working as a nurse.")
    assert _facts(mem_det, "u") == [("home_city", "Madrid", True), ("occupation", "nurse", True)]


def test_a_turn_updated_to_another_value_supersedes_the_users_older_value(mem_det):
    mem_det.add("I live in Madrid.", user_id="u", timestamp=T1)
    turn = _turn(mem_det.add("Big news: I moved to Lisbon and I started working as a nurse.", user_id="u",
                             timestamp=T2))
    mem_det.update(turn.id, "Big news: I moved to Porto and I started working as a nurse.")
    assert _facts(mem_det, "u") == [("home_city", "Porto", True), ("occupation", "nurse", True)]
    madrid = next(x for x in mem_det.get_all(user_id="u", include_superseded=True)
                  if x.fact and x.fact.value == "Madrid")
    porto = next(x for x in mem_det.get_all(user_id="u") if x.fact and x.fact.value == "Porto")
    assert (madrid.valid_to, madrid.superseded_by) == (T2, porto.id)


def test_a_turn_whose_claims_are_all_closed_is_not_current_anywhere(mem_det):
    turn = _turn(mem_det.add("Hi there, I live in Lisbon and I work as a nurse.", user_id="u", timestamp=T1))
    mem_det.add("I moved to Porto.", user_id="u", timestamp=T2)
    part = mem_det.get(turn.id)  # partly superseded: current for the rest, never for the home
    assert (part.current, part.state) == (True, "partly_superseded")
    assert current_view(part).text == "I work as a nurse."
    cited = mem_det.ask("Where do I live?", user_id="u").citations
    assert cited and "Porto" in cited[0].text and all("Lisbon" not in c.text for c in cited)
    mem_det.add("I quit nursing and I'm a teacher now.", user_id="u", timestamp=T2 + timedelta(days=30))
    gone = mem_det.get(turn.id)
    assert (gone.current, gone.state) == (False, "superseded")
    assert turn.id not in {x.id for x in mem_det.get_all(user_id="u")}
    assert [x.current for x in mem_det.get_all(user_id="u", include_superseded=True) if x.id == turn.id] == [False]
    assert turn.id not in {h.memory.id for h in mem_det.search("Lisbon nurse", user_id="u")}
    exported = next(x for x in mem_det.export(user_id="u")["memories"] if x["id"] == turn.id)
    assert exported["valid_to"] is not None and exported.get("current", False) is False


def test_a_turn_updated_to_restate_another_turns_fact_carries_its_claim(mem_det):
    mem_det.add("I live in Porto.", user_id="u", timestamp=T1)
    turn = _turn(mem_det.add("Hi there, I drive a Honda and I work as a nurse.", user_id="u", timestamp=T2))
    item = mem_det.update(turn.id, "Hi there, I live in Porto and I work as a nurse.")
    porto = next(x for x in mem_det.get_all(user_id="u") if x.fact and x.fact.value == "Porto")
    assert [c.fact_id for c in item.claims if c.value == "Porto"] == [porto.id]  # no second Porto fact
    assert [x.fact.value for x in mem_det.get_all(user_id="u") if x.fact and x.fact.attribute == "home_city"] == \
        ["Porto"]
    mem_det.add("I moved to Berlin.", user_id="u", timestamp=T2 + timedelta(days=30))
    now = mem_det.get(turn.id)  # the home it restated closes on it too
    assert now.current and current_view(now).text == "I work as a nurse."
