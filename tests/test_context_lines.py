"""``context()`` a user can hand to an LLM (issue #22): a user-level block without ``session_id``; one line per source
turn, no fact fragment as a line of its own; a plan called off and a relative's future never read as done."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

from anchormem import AsyncMemory, Memory
from anchormem.facts.called_off import called_off
from anchormem.session.turn_lines import one_per_turn, self_standing
from anchormem.types import Hit, MemoryItem

T0 = datetime(2026, 1, 5, 10, tzinfo=timezone.utc)


def _add(m: Memory, turns: list[tuple[str, str]]) -> list[list[tuple[str, str, str]]]:
    return [[(e.event, e.memory.kind, e.memory.text) for e in m.add(t, user_id="u", session_id=f"s{i}", timestamp=ts)]
            for i, (t, ts) in enumerate(turns)]


def _memory_lines(block) -> list[str]:
    sec = block.section("memories")
    return sec.text.splitlines()[1:] if sec is not None else []


SAM = [("Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital.", "2026-01-05T10:00:00Z"),
       ("I left Google and joined Stripe.", "2026-01-07T10:00:00Z"),
       ("我住在上海，在一家银行工作。", "2026-01-08T10:00:00Z"),
       ("I moved to Berlin last month.", "2026-02-04T10:00:00Z")]


# ------------------------------------------------------------------------------------- 1. session_id is optional
def test_context_without_a_session_is_a_user_level_block():
    with Memory(":memory:", embedder="hash") as m:
        _add(m, SAM)
        block = m.context(user_id="u", query="Where do I work?", show_ids=False)
        assert block.text == (
            "## Relevant memories\n"
            "- [2026-01-08] user: 我…在一家银行工作。\n"
            "- [2026-01-05] user: I work as a nurse\n"
            "- [2026-02-04, about 2026-01-01..2026-01-31] user: I moved to Berlin last month.\n"
            "\n"
            "## Recent conversation\n"
            "user: Where do I work?")
        assert [s.name for s in block.sections] == ["memories", "recent_turns"]
        # with a session, its latest turns are there too; without, no session's turns are
        m.add("Morning! Busy day ahead.", user_id="u", session_id="today")
        with_session = m.context(user_id="u", session_id="today", query="Where do I work?", show_ids=False)
        assert with_session.section("recent_turns").text == \
            "## Recent conversation\nuser: Morning! Busy day ahead.\nuser: Where do I work?"
        assert m.context(user_id="u", query="Where do I work?", show_ids=False).section("recent_turns").text == \
            "## Recent conversation\nuser: Where do I work?"


def test_user_level_block_holds_the_user_summary_when_there_is_one():
    with Memory(":memory:", embedder="hash") as m:
        _add(m, SAM)
        m.summarize(user_id="u")
        block = m.context(user_id="u", query="Where do I live?", show_ids=False)
        assert block.sections[0].title == "## User summary"
        assert block.text.endswith("## Recent conversation\nuser: Where do I live?")


def test_async_memory_context_without_a_session():
    async def go() -> str:
        async with AsyncMemory(":memory:", embedder="hash") as m:
            await m.add("I live in Lisbon.", user_id="u", timestamp="2026-01-05T10:00:00Z")
            return (await m.context(user_id="u", query="Where do I live?", show_ids=False)).text

    assert asyncio.run(go()) == ("## Relevant memories\n- [2026-01-05] user: I live in Lisbon.\n\n"
                                 "## Recent conversation\nuser: Where do I live?")


def test_rest_context_without_a_session(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyStore

    db = str(tmp_path / "api.db")
    ks = KeyStore(db + ".keys.db")
    key = ks.create("acme", "admin", name="a")[1]
    with TestClient(create_app(db, embedder="hash", keys=ks, rate_limit="off"),
                    headers={"Authorization": "Bearer " + key}) as c:
        c.post("/v1/memories", json={"messages": "I live in Lisbon.", "user_id": "u",
                                     "timestamp": "2026-01-05T10:00:00Z"}).raise_for_status()
        r = c.post("/v1/context", json={"query": "Where do I live?", "user_id": "u"})
        assert r.status_code == 200, r.text
        text = r.json()["text"]
        assert text.startswith("## Relevant memories\n- [2026-01-05] user: I live in Lisbon. (id ")
        assert text.endswith("\n\n## Recent conversation\nuser: Where do I live?")
    ks.close()


# ------------------------------------------------------------------------ 2. one line per source turn, no fragment
@pytest.mark.parametrize("text,standing", [
    ("I work as a nurse", True), ("I quit.", True), ("My rent went up to 1350 euros.", True),
    ("Anna is a teacher.", True), ("我住在上海", True), ("工资涨到一万二", True), ("我家在杭州。", True),
    ("我戒烟了。", True), ("我每天喝咖啡。", True), ("我不当老师了。", True),
    ("joined Stripe.", False), ("My job.", False), ("I hate it honestly.", False), ("I moved there in May.", False),
    ("在一家银行工作。", False), ("我的工作。", False), ("戒烟了", False), ("是一名护士。", False), ("它很可爱", False),
])
def test_self_standing(text, standing):
    assert self_standing(text) is standing


def _item(mid: str, kind: str, text: str, turn: str, source_text: str = "") -> MemoryItem:
    return MemoryItem(id=mid, text=text, user_id="u", kind=kind, created_at=T0, valid_from=T0,
                      source_message_ids=[turn], source_text=source_text or text)


def test_one_line_per_source_turn():
    turn = "I left Google and joined Stripe. My job is great."
    u = _item("u1", "utterance", turn, "m1")
    piece = _item("f1", "fact", "joined Stripe.", "m1", turn)
    whole = _item("f2", "fact", "My job is great.", "m1", turn)
    other = _item("f3", "fact", "I live in Oslo.", "m2")
    hits = [Hit(memory=whole, score=0.9), Hit(memory=other, score=0.8), Hit(memory=u, score=0.7)]
    kept, dropped = one_per_turn(hits)
    # the utterance takes its fact's place (it holds the fact's words), at the fact's rank and score
    assert [(h.memory.id, h.score) for h in kept] == [("u1", 0.9), ("f3", 0.8)] and dropped == 1
    # a fragment fact is never a line of its own: its turn is read in its place, or it is left out
    kept, dropped = one_per_turn([Hit(memory=piece, score=0.5)], turn_of=lambda f: u)
    assert [h.memory.text for h in kept] == [turn] and kept[0].explain["turn_of"] == "f1"
    assert one_per_turn([Hit(memory=piece, score=0.5)], turn_of=lambda f: None) == ([], 1)
    # a fact that is the whole turn is that turn's line
    alone = _item("f4", "fact", "joined Stripe.", "m3")
    assert [h.memory.id for h in one_per_turn([Hit(memory=alone, score=0.5)])[0]] == ["f4"]


def test_a_past_question_shows_each_turn_once():
    with Memory(":memory:", embedder="hash") as m:
        _add(m, SAM)
        block = m.context(user_id="u", query="Where did I live before?", show_ids=False)
        # before: "- [2026-01-05] user: I work as a nurse" too, a second line of Sam's first turn
        assert _memory_lines(block) == [
            "- [2026-01-05] user: I live in Lisbon (until 2026-01)",
            "- [2026-01-08] user: 我住在上海 (until 2026-02)",
            "- [2026-02-04, about 2026-01-01..2026-01-31] user: I moved to Berlin last month."]


def test_a_fragment_fact_is_shown_as_its_turn():
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("I left Google and joined Stripe.", "2026-01-07T10:00:00Z")])
        assert ("ADD", "fact", "joined Stripe.") in events[0]
        lines = _memory_lines(m.context(user_id="u", query="Where do I work now? Stripe?", show_ids=False))
        assert lines == ["- [2026-01-07] user: I left Google and joined Stripe."]


# ------------------------------------------------------------------------------- 3. plans called off, a relative's
@pytest.mark.parametrize("text,attributes,named", [
    ("Actually the Paris move is off, we decided to stay.", ("home_city",), False),
    ("The Stripe offer fell through.", ("employer", "occupation"), False),
    ("搬去杭州的计划取消了。", (), True),
    ("不搬了，还是留在上海。", ("home_city",), False),
])
def test_called_off(text, attributes, named):
    off = called_off(text)
    assert off is not None and off.attributes == attributes and off.named is named


def test_called_off_is_no_question_and_no_plan_word():
    assert called_off("Is the Paris move off?") is None
    assert called_off("I moved to Paris after all.") is None


def test_a_plan_called_off_is_closed_and_shown_as_such():
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("I live in Lisbon.", "2026-01-05T10:00:00Z"),
                          ("I'm moving to Paris next month.", "2026-01-15T10:00:00Z"),
                          ("Actually the Paris move is off, we decided to stay.", "2026-01-25T10:00:00Z")])
        # the dated plan is a scheduled value (sched13): calling it off closes it and Lisbon holds again
        assert ("SUPERSEDE", "fact", "I'm moving to Paris next month.") in events[2]
        assert ("ADD", "fact", "I live in Lisbon.") in events[2]
        block = m.context(user_id="u", query="Where do I live?", show_ids=False)
        assert _memory_lines(block) == [
            "- [2026-01-05] user: I live in Lisbon.",
            "- [2026-01-25] user: Actually the Paris move is off, we decided to stay. (calls off the plan of "
            "2026-01-15: \"I'm moving to Paris next month.\")"]
        assert m.ask("Where do I live?", user_id="u").text == 'On 2026-01-05, you said: "I live in Lisbon."'


def test_a_plan_called_off_in_chinese_ends_no_home():
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("我住在上海。", "2026-01-05T10:00:00Z"), ("我下个月搬去杭州。", "2026-01-15T10:00:00Z"),
                          ("搬去杭州的计划取消了。", "2026-01-25T10:00:00Z")])
        # before: a home_city fact 杭州 that superseded 我住在上海。
        assert ("SUPERSEDE", "fact", "我下个月搬去杭州。") in events[2] and ("ADD", "fact", "我住在上海。") in events[2]
        assert _memory_lines(m.context(user_id="u", query="我住在哪里？", show_ids=False)) == [
            "- [2026-01-05] user: 我住在上海。",
            "- [2026-01-25] user: 搬去杭州的计划取消了。 (取消了2026-01-15的计划：“我下个月搬去杭州。”)"]
        assert m.ask("我住在哪里？", user_id="u").text == "2026-01-05，你说过：“我住在上海。”"


def test_a_job_offer_that_fell_through_keeps_the_employer():
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("I work at Google.", "2026-01-05T10:00:00Z"),
                          ("I'm starting at Stripe next month.", "2026-01-15T10:00:00Z"),
                          ("The Stripe offer fell through.", "2026-01-25T10:00:00Z")])
        assert ("SUPERSEDE", "fact", "I'm starting at Stripe next month.") in events[2]
        assert ("ADD", "fact", "I work at Google.") in events[2]
        assert m.ask("Where do I work?", user_id="u").text == 'On 2026-01-05, you said: "I work at Google."'


def test_a_relatives_future_is_no_later_value():
    with Memory(":memory:", embedder="hash") as m:
        _add(m, [("My sister lives in Milan.", "2026-01-05T10:00:00Z"),
                 ("My sister is moving to Rome next spring.", "2026-01-15T10:00:00Z")])
        # before: the Rome plan first, and "My sister lives in Milan. (an earlier statement, before 2026-01-15)"
        assert _memory_lines(m.context(user_id="u", query="Where does my sister live?", show_ids=False)) == [
            "- [2026-01-05] user: My sister lives in Milan.",
            "- [2026-01-15] user: My sister is moving to Rome next spring."]
        assert m.ask("Where does my sister live?", user_id="u").text == \
            'On 2026-01-05, you said: "My sister lives in Milan."'


def test_an_own_plan_without_a_resolved_date_is_no_done_fact():
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("I live in Lisbon.", "2026-01-05T10:00:00Z"),
                          ("I'm moving to Paris next spring.", "2026-01-15T10:00:00Z")])
        # before: a home_city fact Paris that superseded "I live in Lisbon."
        assert events[1] == [("ADD", "utterance", "I'm moving to Paris next spring.")]
        assert m.ask("Where do I live?", user_id="u").text == 'On 2026-01-05, you said: "I live in Lisbon."'


def test_a_cancelled_flight_to_the_plans_city_calls_nothing_off():
    with Memory(":memory:", embedder="hash") as m:
        events = _add(m, [("I live in Lisbon.", "2026-01-05T10:00:00Z"),
                          ("I'm moving to Paris next month.", "2026-01-15T10:00:00Z"),
                          ("My flight to Paris got cancelled.", "2026-01-20T10:00:00Z"),
                          ("The Paris plan is cancelled.", "2026-01-25T10:00:00Z")])
        assert events[2] == [("ADD", "utterance", "My flight to Paris got cancelled.")]
        assert ("SUPERSEDE", "fact", "I'm moving to Paris next month.") in events[3]
