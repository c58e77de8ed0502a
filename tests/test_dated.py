"""Dated questions (anchormem.retrieval.dated): the named date's year read off the user's memories, the window's
memories as candidates, a proximity prior (never a filter), day recaps in time order."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from types import SimpleNamespace

from anchormem import Memory
from anchormem.retrieval.config import RECIPES
from anchormem.retrieval.dated import date_query, is_recap, proximity
from anchormem.text.dates import resolve_dates

DATED = RECIPES["anchored"].model_copy(update={"track_access": False})  # date_query is on by default
UTC = timezone.utc


def _d(s: str) -> datetime:
    return datetime.fromisoformat(s).replace(tzinfo=UTC)


def test_yearless_dates_look_back_from_the_search_time_never_forward():
    ref = _d("2026-12-06T12:00:00")  # a Sunday
    dq = date_query("On May 4th, I shared with you some problems I encountered.", ref)
    assert dq.text == "May 4th" and dq.day and not dq.recap
    assert [w[0].date().isoformat() for w in dq.windows[:3]] == ["2026-05-04", "2025-05-04", "2024-05-04"]
    assert dq.windows[0][1] == _d("2026-05-04T23:59:59")
    # "January 10th" asked on 5 January: last year's, not next week's (resolve_dates alone says the nearest: 2026)
    assert resolve_dates("January 10th", _d("2026-01-05T00:00:00"))[0].yearless
    assert date_query("what did I do on January 10th?", _d("2026-01-05T00:00:00")).windows[0][0] == \
        _d("2025-01-10T00:00:00")
    zh = date_query("我曾经在5月2日提到过我去了博物馆", ref)
    assert zh.windows[0][0] == _d("2026-05-02T00:00:00") and len(zh.windows) == 8
    # a year said is kept: one window
    assert [w[0] for w in date_query("what happened on 4 May 2023?", ref).windows] == [_d("2023-05-04T00:00:00")]
    # bare weekdays: the latest such day before the search day
    assert date_query("what did I cook on Monday?", ref).windows == ((_d("2026-11-30T00:00:00"),
                                                                      _d("2026-11-30T23:59:59")),)
    assert date_query("周三我做了什么菜？", ref).windows[0][0] == _d("2026-12-02T00:00:00")
    assert date_query("I go swimming on Mondays", ref) is None
    assert date_query("where do I live?", ref) is None


def test_recap_phrases_and_proximity_values():
    ref = _d("2026-12-06T12:00:00")
    assert date_query("What topic did we talk about on April 27th?", ref).recap
    assert date_query("在4月27号我们聊了什么话题？", ref).recap
    assert not date_query("On April 27th, how long did I run in the park?", ref).recap
    assert is_recap("那天我们聊了哪些") and not is_recap("how long did I run")
    win = (_d("2023-05-04T00:00:00"), _d("2023-05-04T23:59:59"))
    item = lambda t, ev=None: SimpleNamespace(created_at=_d(t), event_time=ev and _d(ev), event_time_end=None)
    assert proximity(item("2023-05-04T09:00:00"), win, 1.0) == 1.0
    assert proximity(item("2023-05-05T09:00:00", ev="2023-05-04T00:00:00"), win, 1.0) == 1.0  # "yesterday I..."
    assert math.isclose(proximity(item("2023-05-05T23:59:59"), win, 1.0), math.exp(-1.0))
    assert proximity(item("2023-05-08T09:00:00"), win, 1.0) == 0.0  # beyond 3 spreads
    assert proximity(item("2023-05-05T12:00:00"), win, 0.0) == 0.0


def _hiking(m: Memory) -> dict[str, str]:
    ids = {}
    for day, text in [("2023-05-01", "I went hiking in the hills with my sister, a long hike."),
                      ("2023-05-04", "I went hiking by the river and saw herons."),
                      ("2023-05-06", "I went hiking up the mountain trail with friends."),
                      ("2023-05-08", "I went hiking around the lake at sunset.")]:
        ids[day] = m.add(text, user_id="u", timestamp=f"{day}T10:00:00Z")[0].memory.id
    return ids


def test_a_dated_question_ranks_that_days_turn_first_among_same_topic_turns():
    assert DATED.date_query and RECIPES["hybrid_rrf"].date_query
    with Memory(":memory:", embedder="hash") as m:
        ids = _hiking(m)
        for q in ("On May 4th, where did I go hiking?", "我5月4日去哪里徒步了？ hiking"):
            hits = m.search(q, user_id="u", recipe=DATED)  # searched in 2026: the year comes from the memories
            assert hits[0].memory.id == ids["2023-05-04"], q
            assert hits[0].explain["time_match"] is True and hits[0].explain["date_prior"] == 1.0
            assert {h.memory.id for h in hits} == set(ids.values())  # a prior, not a filter: every day stays
            others = {h.memory.id: h.explain["date_prior"] for h in hits[1:]}
            # 05-06 10:00 is 34 h after the window: exp(-34/24); 05-08 is beyond three days
            assert math.isclose(others[ids["2023-05-06"]], math.exp(-(34 * 3600 + 1) / 86400))
            assert others[ids["2023-05-08"]] == 0.0
        # off: the plain window (resolved to May 2026 or 2027, searched in 2026) boosts nothing
        off = m.search("On May 4th, where did I go hiking?", user_id="u",
                       recipe=DATED.model_copy(update={"date_query": False}))
        assert not any(h.explain["time_match"] for h in off) and "date_prior" not in off[0].explain
        # a date nothing falls in changes no order and empties nothing
        assert len(m.search("On June 20th, where did I go hiking?", user_id="u", recipe=DATED)) == 4
        # the user's own filter is still a filter
        hits = m.search("On May 4th, where did I go hiking?", user_id="u", recipe=DATED,
                        filters={"created_at": {"gte": "2023-05-05T00:00:00Z"}})
        assert ids["2023-05-04"] not in {h.memory.id for h in hits} and len(hits) == 2


def test_what_did_we_talk_about_returns_that_days_topics_in_order():
    with Memory(":memory:", embedder="hash") as m:
        _hiking(m)
        day = [m.add(t, user_id="u", timestamp=f"2023-05-02T{h}:00:00Z")[0].memory.id
               for t, h in [("My boss asked me to rewrite the quarterly report.", "09"),
                            ("I baked a lemon cake for my neighbour.", "11"),
                            ("The lemon cake for my neighbour came out well.", "12"),
                            ("I booked train tickets to Kyoto for the summer.", "15")]]
        hits = m.search("What did we talk about on May 2nd?", user_id="u", recipe=DATED)
        top = [h.memory.id for h in hits[:4]]
        assert set(top) == set(day)
        # one per topic first: the second lemon-cake memory waits behind the train tickets
        assert top[:3] == [day[0], day[1], day[3]] and top[3] == day[2]
        zh = m.search("5月2号我们聊了哪些话题？", user_id="u", recipe=DATED)
        assert [h.memory.id for h in zh[:3]] == [day[0], day[1], day[3]]


def test_the_conversations_date_steers_a_question_that_names_none():
    with Memory(":memory:", embedder="hash") as m:
        ids = _hiking(m)
        # hybrid_rrf: anchoring's context factor on the hash embedder's vectors is not what is tested here
        plain = RECIPES["hybrid_rrf"].model_copy(update={"date_query": True, "track_access": False})
        hits = m.search("Where did I go hiking?", user_id="u", recipe=plain,
                        context=["Let me tell you about May 4th.", "Sure, what happened?"])
        assert hits[0].memory.id == ids["2023-05-04"] and hits[0].explain["date_prior"] == 1.0
        # a year the question says is kept: 2022 holds no memory, so no memory is boosted and none dropped
        hits = m.search("On May 4th 2022, where did I go hiking?", user_id="u", recipe=DATED)
        assert len(hits) == 4 and all(h.explain.get("date_prior") in (None, 0.0) for h in hits)


def test_weighted_fusion_keeps_the_dated_boost():
    with Memory(":memory:", embedder="hash") as m:
        ids = _hiking(m)
        hits = m.search("On May 4th, where did I go hiking?", user_id="u", recipe="hybrid_weighted")
        assert hits[0].memory.id == ids["2023-05-04"] and hits[0].explain["date_prior"] == 1.0
