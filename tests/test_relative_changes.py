"""Change detection relative to the user's own memories (anchormem.facts.relative): a value of the same type said of
the same thing supersedes the older one, whether or not any slot inventory names the thing (open claims)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem.facts.relative import _piece, clause_values, masked, units_of

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)
T3 = datetime(2024, 8, 1, tzinfo=timezone.utc)


def _add(m, text, when, user="u", session=None):
    return list(m.add(text, user_id=user, session_id=session, timestamp=when))


def _facts(evs, event):
    return [(e.memory.text, e.memory.fact.attribute, e.memory.fact.value, e.memory.fact.polarity)
            for e in evs if e.event == event and e.memory.fact is not None]


def test_values_by_type_with_units_nouns_and_classifiers():
    vals = clause_values("换了个套餐，每个月39块，流量还更多。")
    assert [(v.kind, v.value, v.unit) for v in vals] == [("amount", "39块", "money")]
    old, new = clause_values("鱼缸里养了五条金鱼"), clause_values("只剩三条了")
    assert [(v.kind, v.value, v.noun, v.cls) for v in old] == [("count", "五条金鱼", "fish", "条")]
    assert [(v.kind, v.value, v.noun, v.cls) for v in new] == [("count", "三条", "", "条")]
    assert new[0].compatible(old[0]) and not new[0].same_value(old[0])
    assert [(v.kind, v.value, v.unit) for v in clause_values("Down to 84kg!!")] == [("amount", "84kg", "weight")]
    assert [v.value for v in clause_values("My raise went through, seventy-two thousand now.")] == \
        ["seventy-two thousand"]
    assert masked("我的手机套餐每月59块。", clause_values("我的手机套餐每月59块。"), "amount") == "我的手机套餐每月<NUM>。"


def test_gates_before_anything_is_compared():
    assert units_of("My neighbour's rent went up to 1300.", []) == []
    assert units_of("Back in college I lived in Boston for four years.", []) == []
    assert units_of("Should I ask my landlord to drop the rent to 1200?", []) == []
    assert units_of("国庆去了趟三亚，刚回来。", []) == []
    assert [u.text for u in units_of("换了个套餐，每个月39块，流量还更多。", [])] == ["换了个套餐，每个月39块，流量还更多。"]
    assert _piece("I'm in Austin, been here about five years", "Austin") == "I'm in Austin"


def test_an_open_slot_amount_change(mem_e5):
    first = _add(mem_e5, "我的手机套餐每月59块。", T1)
    assert [e.memory.fact for e in first] == [None]  # no slot of any inventory: an utterance
    evs = _add(mem_e5, "换了个套餐，每个月39块，流量还更多。", T2)
    added = _facts(evs, "ADD")
    slot = added[0][1]
    assert slot.startswith("amount:") and [(t, v) for t, _, v, _ in added] == \
        [("换了个套餐，每个月39块，流量还更多。", "39块")]
    # the open claim made for the old words is closed with the utterance carrying it: one SUPERSEDE, the utterance's
    # (the utterance said nothing else), as for a change the rules read; the claim itself is in the store
    assert [(e.memory.text, e.memory.kind) for e in evs if e.event == "SUPERSEDE"] == \
        [("我的手机套餐每月59块。", "utterance")]
    old = [m for m in mem_e5.get_all(user_id="u", include_superseded=True) if m.fact and m.valid_to is not None]
    assert [(m.text, m.fact.attribute, m.fact.value) for m in old] == [("我的手机套餐每月59块。", slot, "59块")]
    current = [m.text for m in mem_e5.get_all(user_id="u")]
    assert "换了个套餐，每个月39块，流量还更多。" in current and "我的手机套餐每月59块。" not in current
    hits = mem_e5.search("我的手机套餐每月多少钱？", user_id="u")
    assert "39块" in hits[0].memory.text
    then = mem_e5.search("我的手机套餐每月多少钱？", user_id="u", as_of=datetime(2024, 2, 1, tzinfo=timezone.utc))
    assert "59块" in then[0].memory.text


def test_a_past_question_after_an_open_slot_change(mem_e5):
    _add(mem_e5, "我的手机套餐每月59块。", T1)
    _add(mem_e5, "换了个套餐，每个月39块，流量还更多。", T2)
    now = mem_e5.ask("我手机套餐每月多少钱？", user_id="u")
    assert [c.text for c in now.citations] == ["换了个套餐，每个月39块，流量还更多。"]
    past = mem_e5.ask("我以前手机套餐每月多少钱？", user_id="u")
    assert not past.abstained and past.citations[0].text == "我的手机套餐每月59块。"
    assert past.citations[0].valid_to == T2  # shown as past: it held until the change


def test_chaining_a_third_value(mem_e5):
    _add(mem_e5, "我的手机套餐每月59块。", T1)
    second = _add(mem_e5, "换了个套餐，每个月39块，流量还更多。", T2)
    slot = _facts(second, "ADD")[0][1]
    third = _add(mem_e5, "套餐又改了，现在每个月49块。", T3)
    assert [(a, v) for _, a, v, _ in _facts(third, "ADD")] == [(slot, "49块")]  # the same open slot
    assert [(a, v) for _, a, v, _ in _facts(third, "SUPERSEDE")] == [(slot, "39块")]
    assert [h.value for h in mem_e5.store.current_facts("default", "u", [f"user|{slot}"])[0:1]
            for h in [h.fact]] == ["49块"]


def test_a_count_change_keeps_the_names(mem_e5):
    first = _add(mem_e5, "我们家两只狗，豆豆和旺财。", T1)  # the count is typed when said (facts.quantities)
    assert [(t, a, v) for t, a, v, _ in _facts(first, "ADD")] == [("我们家两只狗", "count:dog", "两只狗")]
    evs = _add(mem_e5, "旺财去年冬天走了，现在就剩豆豆一只狗了。", T2)
    assert [(t, a, v) for t, a, v, _ in _facts(evs, "ADD")] == [("现在就剩豆豆一只狗了。", "count:dog", "一只狗")]
    assert [(t, v) for t, _, v, _ in _facts(evs, "SUPERSEDE")] == [("我们家两只狗", "两只狗")]
    kept = [m for m in mem_e5.get_all(user_id="u") if m.text == "我们家两只狗，豆豆和旺财。"]
    assert len(kept) == 1 and kept[0].valid_to is None  # not closed: its other words (the names) still hold
    assert [(c.value, c.valid_to == T2) for c in kept[0].claims] == [("两只狗", True)]
    from anchormem.facts.claims import current_view
    assert current_view(kept[0]).text == "我们…豆豆和旺财。"  # read paths show the names, not the old count
    change = next(e.memory for e in evs if e.event == "ADD" and e.memory.fact is not None)
    mem_e5.delete(change.id)  # the old count stays superseded (a delete resurrects nothing); the names stay
    again = {m.text: m for m in mem_e5.get_all(user_id="u")}
    assert current_view(again["我们家两只狗，豆豆和旺财。"]).text == "我们…豆豆和旺财。"
    assert "我们家两只狗" not in again


def test_an_ending_of_an_unlisted_habit(mem_e5):
    first = _add(mem_e5, "I'm learning Japanese on Duolingo every night, 200-day streak.", T1)
    assert [e.memory.fact for e in first] == [None]  # no habit slot read from it
    evs = _add(mem_e5, "Dropped Japanese, the streak died and I just don't have the energy for it anymore.", T2)
    ended = _facts(evs, "ADD")
    slot = ended[0][1]
    assert slot.startswith("habit:") and [(v, p) for _, _, v, p in ended] == [("streak", -1)]
    assert [(e.memory.text, e.memory.kind) for e in evs if e.event == "SUPERSEDE"] == \
        [("I'm learning Japanese on Duolingo every night, 200-day streak.", "utterance")]  # one event: the turn
    old = [m for m in mem_e5.get_all(user_id="u", include_superseded=True) if m.fact and m.valid_to is not None]
    assert [(m.fact.attribute, m.fact.value) for m in old] == \
        [(slot, "learning Japanese on Duolingo every night, 200-day streak")]
    answer = mem_e5.ask("Am I still learning Japanese?", user_id="u")
    assert answer.citations[0].text.startswith("Dropped Japanese")


def test_an_ending_of_a_habit_with_a_claim(mem_e5):
    _add(mem_e5, "我每周打三次羽毛球。", T1)
    evs = _add(mem_e5, "自从腰伤了以后，羽毛球就没再打过。", T2)
    assert [(a, v, p) for _, a, v, p in _facts(evs, "ADD")] == [("does:badminton", "羽毛球", -1)]
    assert [t for t, _, _, _ in _facts(evs, "SUPERSEDE")] == ["我每周打三次羽毛球。"]


def test_a_friends_rent_retires_nothing(mem_e5):
    _add(mem_e5, "My rent is 1100 dollars.", T1)
    for then in ("My neighbour's rent went up to 1300.", "Rents in my city went up to 1000 on average.",
                 "Should I ask my landlord to drop the rent to 900?"):
        evs = _add(mem_e5, then, T2)
        assert [e for e in evs if e.event == "SUPERSEDE"] == []
    assert any(m.text == "My rent is 1100 dollars." and m.current for m in mem_e5.get_all(user_id="u"))


def test_a_name_said_by_someone_else_or_a_trip_retires_nothing(mem_e5):
    _add(mem_e5, "I work at Airbus.", T1)
    _add(mem_e5, "I live in Hamburg.", T1)
    for then in ("A recruiter from Boeing called me about a job.", "My parents moved to Nice last year.",
                 "I'm flying to Munich for a conference next week."):
        assert [e for e in _add(mem_e5, then, T2) if e.event == "SUPERSEDE"] == []


def test_an_amount_changes_only_what_it_is_of(mem_e5):
    """An occasion's amount (a donation, one walk) is no new value of a standing amount that shares a word or a
    unit with it; a standing one said as new still is."""
    _add(mem_e5, "我每个月定投两千块的指数基金。", T1, user="fund")
    evs = _add(mem_e5, "我给一个救助流浪动物的慈善基金捐了五百块。", T2, user="fund")
    assert [e.event for e in evs] == ["ADD"]
    _add(mem_e5, "我的手表每天慢五分钟。", T1, user="watch")
    evs = _add(mem_e5, "国庆假期我们去爬了八达岭长城，人山人海，走了三个小时。", T2, user="watch")
    assert [e.event for e in evs if e.event == "SUPERSEDE"] == []
    assert [m.text for m in mem_e5.get_all(user_id="watch")][0] == "我的手表每天慢五分钟。"
    _add(mem_e5, "Bought whites for 60 pounds.", T1, user="kit")
    evs = _add(mem_e5, "Bought Blundstone boots for winter, size 8.", T2, user="kit")
    assert [e.event for e in evs] == ["ADD"]
    _add(mem_e5, "Netflix costs me 15.49 a month.", T1, user="tv")
    evs = _add(mem_e5, "netflix went up again, 17.99 now, might cancel", T2, user="tv")
    assert [(e.event, e.memory.text) for e in evs if e.event == "SUPERSEDE"] == \
        [("SUPERSEDE", "Netflix costs me 15.49 a month.")]


def test_where_the_speaker_is_from_is_no_home_of_now(mem_e5):
    _add(mem_e5, "老家哈尔滨的，现在人在深圳打工。", T1)
    evs = _add(mem_e5, "深圳房租顶不住了，年后跑路去了东莞，松山湖那边。", T2)
    closed = [e.memory.text for e in evs if e.event == "SUPERSEDE"]
    assert closed and all("哈尔滨" not in t for t in closed) and any("深圳" in t for t in closed)


def test_someone_elses_job_said_with_a_pronoun_after_a_comma_retires_nothing_of_the_users(mem_e5):
    """fresh21 D1: "Priya switched careers, she's a nurse now." is no change of the user's occupation (a unit with a
    clause opening with a third-person pronoun changes no job of the speaker's: relative._third_person)."""
    mem_e5.add("I work as a dispatcher at Northwind.", user_id="a", timestamp="2026-11-02T10:00:00Z")
    mem_e5.add("My sister Priya is a pharmacist.", user_id="a", timestamp="2026-11-02T10:01:00Z")
    ev = mem_e5.add("Priya switched careers, she's a nurse now.", user_id="a", timestamp="2026-11-18T10:00:00Z")
    assert [e.event for e in ev] == ["ADD"] and ev[0].memory.fact is None


@pytest.mark.parametrize("first,then,kept", [
    ("We have two kids, Max and Ella.", "I work at Google now, on the Maps team.", "Max and Ella"),  # fresh25 D1
])
def test_a_value_the_rules_read_as_another_slot_changes_no_typed_claim(mem_e5, first, then, kept):
    _add(mem_e5, first, T1)
    evs = _add(mem_e5, then, T2)
    assert _facts(evs, "SUPERSEDE") == []
    assert [e.memory.fact.attribute for e in evs if e.event == "ADD" and e.memory.fact] == ["employer"]
    names = [m.fact.value for m in mem_e5.get_all(user_id="u", filters={"kind": "fact"}) if m.fact.attribute.endswith("_names")]
    assert names == [kept]


def test_an_amount_with_a_thousands_comma_is_one_clause():
    """fresh25 D2: the home fact of "… in Portland and pay $1,850 a month." was cut to "… pay $1"."""
    from anchormem import Memory

    m = Memory(":memory:", embedder="hash")
    evs = m.add("I rent a one-bedroom in Portland and pay $1,850 a month.", user_id="u", timestamp=T1)
    home = [e.memory.text for e in evs if e.memory.fact and e.memory.fact.attribute == "home_city"]
    assert home == ["I rent a one-bedroom in Portland"]  # (its words end where the clause goes on: claims.value_clause)
    rent = [e.memory.fact.value for e in evs if e.memory.fact and e.memory.fact.attribute == "rent"]
    assert rent and "1,850" in rent[0]
    m.close()
