"""Event plans that state no slot (a trip, a party, a visit) and their calling off (issue #22, fresh20 D1/D3/D9).

A trip is no employer: "成都的trip取消了" ends the trip plan, never the current job; the plan is closed whoever its
subject is, in either language, and a question about it ("When is the Chengdu trip?", "Are we still going to
Chengdu?") cites the turn that called it off. An assistant's promise to remember is no commitment."""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.facts.called_off import event_plan
from anchormem.facts.commitments import is_commitment


def _add(m: Memory, turns: list[tuple[str, str]], user: str = "u") -> list[list[tuple[str, str, str]]]:
    return [[(e.event, e.memory.kind, e.memory.text) for e in m.add(t, user_id=user, timestamp=ts)] for t, ts in turns]


@pytest.mark.parametrize("text,attribute", [
    ("We're planning a family trip to Chengdu on December 12.", "plan:trip:chengdu"),
    ("我们计划下个月去成都旅行。", "plan:trip:成都"),
    ("We're throwing a birthday party for Sarah on May 14.", "plan:party"),
    ("My parents are planning to visit us in Seattle next month.", "plan:visit:seattle"),
])
def test_event_plan_keys_kind_and_place(text, attribute):
    got = event_plan(text)
    assert got is not None and got.attribute == attribute


def test_no_event_no_event_plan():
    assert event_plan("I'm moving to Paris next month.") is None


PLAN = ("We're planning a family trip to Chengdu on December 12.", "2026-11-23T09:00:00Z")


@pytest.mark.parametrize("off", ["成都的旅行取消了，因为孩子生病了。", "We called off the Chengdu trip, my son got sick.",
                                 "The trip got cancelled.", "成都的trip取消了，because Leo got sick."])
def test_a_trip_called_off_closes_the_plan_in_either_language(off):
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [PLAN, (off, "2026-11-27T09:00:00Z")])
        assert events[1] == [("ADD", "utterance", off), ("SUPERSEDE", "utterance", PLAN[0])]


@pytest.mark.parametrize("other", ["My flight to Beijing got cancelled.", "小李的东京旅行取消了。",
                                   "The concert we wanted to see got cancelled."])
def test_cancelling_something_else_keeps_the_trip(other):
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [PLAN, (other, "2026-11-27T09:00:00Z")])
        assert events[1] == [("ADD", "utterance", other)]


def test_questions_about_a_called_off_trip_cite_the_cancellation(e5):
    from anchormem.eval.embed_cache import eval_embedder

    with Memory(":memory:", embedder=eval_embedder(e5), cache=False) as m:
        _add(m, [PLAN, ("成都的旅行取消了，因为孩子生病了。", "2026-11-27T09:00:00Z")])
        note = ' (calls off the plan of 2026-11-23: "We\'re planning a family trip to Chengdu on December 12.")'
        want = 'On 2026-11-27, you said: "成都的旅行取消了，因为孩子生病了。"' + note
        assert m.ask("When is the Chengdu trip?", user_id="u").text == want
        assert m.ask("Are we still going to Chengdu?", user_id="u").text == want
        assert m.ask("我们还去成都吗？", user_id="u").text == \
            "2026-11-27，你说过：“成都的旅行取消了，因为孩子生病了。”（取消了2026-11-23的计划：“We're planning a family trip " \
            "to Chengdu on December 12.”）"


def test_a_cancelled_trip_ends_no_job(e5):
    from anchormem.eval.embed_cache import eval_embedder

    with Memory(":memory:", embedder=eval_embedder(e5), cache=False) as m:
        events = _add(m, [("我上周从腾讯辞职了，现在在字节跳动做产品经理。", "2026-11-20T10:00:00Z"),
                          ("成都的trip取消了，because Leo got sick.", "2026-11-21T10:00:00Z")])
        # before: an employer fact "成都的trip" (-1) that superseded 字节跳动 and 产品经理
        assert events[1] == [("ADD", "utterance", "成都的trip取消了，because Leo got sick.")]
        assert "字节跳动" in m.ask("Where do I work?", user_id="u").text


@pytest.mark.parametrize("text,promise", [
    ("Got it, I'll remember your mom's birthday.", False),
    ("好的，我会记住你妈妈的生日。", False),
    ("I will keep that in mind.", False),
    ("Sure, I'll remind you about your dentist appointment on Friday.", True),
    ("我会帮你订好酒店。", True),
])
def test_an_assistant_promise_to_remember_is_no_commitment(text, promise):
    assert is_commitment(text, speaker_role="assistant") is promise


def test_an_acknowledgement_is_not_due():
    with Memory(":memory:", embedder="hash") as m:
        m.add("My mom's birthday is on March 3.", user_id="w", timestamp="2026-11-23T09:00:00Z")
        events = m.add([{"role": "assistant", "content": "Got it, I'll remember your mom's birthday."}], user_id="w",
                       timestamp="2026-11-23T09:00:05Z")
        assert [e.memory.kind for e in events] == ["assistant"]
        assert m.due(user_id="w") == []


def test_a_trip_scrapped_is_called_off():
    """fresh21 D3: the words that call a plan off include the common ones ("scrapped", "ditched", "had to cancel":
    plans.json called_off.any), not only "called off"."""
    from anchormem import Memory

    with Memory(":memory:", embedder="hash") as m:
        m.add("We're planning a family trip to Lisbon on March 12.", user_id="c", timestamp="2026-02-01T09:00:00Z")
        ev = m.add("We scrapped the Lisbon trip, the kids have exams.", user_id="c", timestamp="2026-02-10T09:00:00Z")
        assert ("SUPERSEDE", "We're planning a family trip to Lisbon on March 12.") in \
            [(e.event, e.memory.text) for e in ev]
        assert m.ask("When is the Lisbon trip?", user_id="c").text.startswith(
            'On 2026-02-10, you said: "We scrapped the Lisbon trip')


def test_a_dated_plan_to_be_somewhere_is_a_trip_whatever_verb_says_it():
    """fresh22 D8: "I'm going to Chengdu … on May 3rd" names no event word; being at a place at a time ahead is a
    trip there, so "We called off the Chengdu trip" closes it (and a trip elsewhere does not)."""
    assert event_plan("I'm going to Chengdu with my sister on May 3rd.", dated=True).attribute == "plan:trip:chengdu"
    assert event_plan("I'm going to Chengdu with my sister on May 3rd.") is None  # not dated ahead: no plan
    plan = ("I'm going to Chengdu with my sister on May 3rd.", "2025-04-01T09:00:00Z")
    for off, closes in (("We called off the Chengdu trip.", True), ("The Tokyo trip got cancelled.", False)):
        with Memory(":memory:", embedder="hash") as m:
            events = _add(m, [plan, (off, "2025-04-20T09:00:00Z")])
            assert any(e[0] == "SUPERSEDE" and e[2] == plan[0] for e in events[1]) is closes
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("我五一要去成都。", "2025-04-01T09:00:00+08:00"), ("成都那趟旅行取消了。", "2025-04-20T09:00:00+08:00")])
        assert events[1] == [("ADD", "utterance", "成都那趟旅行取消了。"), ("SUPERSEDE", "utterance", "我五一要去成都。")]
