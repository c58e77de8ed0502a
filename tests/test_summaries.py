"""Structured session summaries: verbatim lines keep numbers and negations, link to messages, supersede the
previous summary; every N turns automatically; the LLM path drops unsupported lines."""

from __future__ import annotations

import json

from anchormem import Memory
from anchormem.config import Settings
from anchormem.llms import OpenAICompatLLM
from anchormem.summaries import summarize_messages
from anchormem.testing.fake_llm import FakeLLMServer

TURNS = [
    {"role": "user", "content": "I moved to Lisbon last month. The rent is 1,200 euros."},
    {"role": "assistant", "content": "I will send you a list of movers tomorrow."},
    {"role": "user", "content": "We agreed to meet on Friday. I don't eat meat any more."},
    {"role": "user", "content": "我现在不喝咖啡了。下周三前我要交房租3200元。"},
    {"role": "user", "content": "ok thanks"},
]


def test_offline_summary_sections_are_verbatim_and_linked():
    msgs = [{"id": f"m{i}", **t} for i, t in enumerate(TURNS)]
    s = summarize_messages(msgs, session_id="s1")
    got = [(ln.section, ln.text, ln.message_id) for ln in s.lines]
    assert got == [
        ("facts", "I moved to Lisbon last month.", "m0"),
        ("details", "The rent is 1,200 euros.", "m0"),
        ("todos", "I will send you a list of movers tomorrow.", "m1"),
        ("agreements", "We agreed to meet on Friday.", "m2"),
        ("facts", "I don't eat meat any more.", "m2"),
        ("facts", "我现在不喝咖啡了。", "m3"),
        ("todos", "下周三前我要交房租3200元。", "m3"),
    ]
    text = s.render()
    for kept in ("1,200 euros", "don't eat meat", "不喝咖啡", "3200元"):  # numbers and negations survive
        assert kept in text
    assert s.message_ids == ["m0", "m1", "m2", "m3"]


def test_summarize_stores_a_summary_memory_that_supersedes_the_previous_one():
    with Memory(":memory:", embedder="hash", settings=Settings(summary_every=0)) as m:
        m.add(TURNS[:2], user_id="u", session_id="s1", timestamp="2024-05-22T10:00:00Z")
        first = m.summarize(user_id="u", session_id="s1")
        assert (first.kind, first.source, first.session_id) == ("summary", "inferred", "s1")
        assert "The rent is 1,200 euros." in first.text
        assert json.loads(first.metadata["summary_lines"])[0]["text"] == "I moved to Lisbon last month."
        assert m.summarize(user_id="u", session_id="s1").id == first.id  # nothing new: same summary (NOOP)
        m.add(TURNS[2:], user_id="u", session_id="s1", timestamp="2024-05-22T11:00:00Z")
        second = m.summarize(user_id="u", session_id="s1")
        assert second.id != first.id and "I don't eat meat any more." in second.text
        assert m.get(first.id).valid_to is not None and m.get(first.id).superseded_by == second.id
        assert [x.id for x in m.get_all(user_id="u", filters={"kind": "summary"})] == [second.id]
        hits = m.search("what did we agree", user_id="u", limit=10)
        assert any(h.memory.kind == "summary" for h in hits)
        assert m.summarize(user_id="u", session_id="empty-session") is None


def test_summary_every_n_turns():
    with Memory(":memory:", embedder="hash", settings=Settings(summary_every=4)) as m:
        evs = m.add(TURNS[:3], user_id="u", session_id="s1")
        assert not any(e.memory.kind == "summary" for e in evs)
        evs = m.add(TURNS[3:], user_id="u", session_id="s1")  # 5 messages: crossed 4
        assert [e.memory.kind for e in evs if e.memory.kind == "summary"] == ["summary"]
        assert m.add("I bought a bike for 300 euros.", user_id="u", session_id="s2") and \
            m.get_all(user_id="u", filters={"kind": "summary", "session_id": "s2"}) == []


def test_llm_summary_lines_without_support_are_dropped():
    reply = json.dumps({"topic": ["moving"], "lines": [
        {"section": "facts", "text": "The user moved to Lisbon last month.", "message": 1},
        {"section": "details", "text": "The rent is 1,500 euros.", "message": 1},        # wrong number
        {"section": "facts", "text": "The user owns a boat.", "message": 2},            # not said
        {"section": "todos", "text": "Send a list of movers tomorrow.", "message": 9},  # no such message
    ]})
    with FakeLLMServer([reply]) as srv:
        with Memory(":memory:", embedder="hash", llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0),
                    settings=Settings(summary_every=0, fact_extractor="rules", labeller="offline")) as m:
            m.add(TURNS[:2], user_id="u", session_id="s1")
            s = m.summarize(user_id="u", session_id="s1")
            assert s.text == "Topic: moving\nFacts:\n- The user moved to Lisbon last month."
            assert "1,500" not in s.text and "boat" not in s.text


def test_deleting_a_memory_drops_the_summaries_that_quote_it():
    """Case C15 for summaries: after a delete, no summary line about it comes back, now or when rebuilt."""
    with Memory(":memory:", embedder="hash", settings=Settings(summary_every=0)) as m:
        evs = m.add([{"role": "user", "content": "Person T manages the office in City C. The lease is 4,000 euros."},
                     {"role": "user", "content": "I moved to Lisbon last month."}], user_id="u", session_id="s1")
        first = m.summarize(user_id="u", session_id="s1")
        assert "The lease is 4,000 euros." in first.text and "person" in first.text
        counts = m.delete(evs[0].memory.id)
        assert counts["summaries"] == 1
        assert m.get_all(user_id="u", filters={"kind": "summary"}) == []
        rebuilt = m.summarize(user_id="u", session_id="s1")
        assert "4,000" not in rebuilt.text and "person" not in rebuilt.text.lower()
        assert "I moved to Lisbon last month." in rebuilt.text
        assert all("Person T" not in h.memory.text for h in m.search("Person T office", user_id="u"))


def _ticket_turns(start: int, n: int) -> list[dict]:
    return [{"role": "user", "content": f"Ticket {i} cost {100 + i} euros."} for i in range(start, start + n)]


def test_a_long_sessions_summary_keeps_its_latest_lines_and_facts_over_details():
    """Rolling summary: a 300-turn session's summary holds its newest lines (not its first 40 sentences), the
    user's facts outlive older details, and a line whose message was deleted is gone from the next summary."""
    with Memory(":memory:", embedder="hash", settings=Settings(summary_every=20, labeller="offline")) as m:
        m.add([{"role": "user", "content": "I live in Lisbon."}], user_id="u", session_id="s1")
        for start in range(0, 300, 20):
            m.add(_ticket_turns(start, 20), user_id="u", session_id="s1")
        [s] = m.get_all(user_id="u", filters={"kind": "summary"})
        lines = json.loads(s.metadata["summary_lines"])
        assert len(lines) == 40
        assert lines[0]["text"] == "I live in Lisbon." and lines[0]["section"] == "facts"
        assert [ln["text"] for ln in lines[-2:]] == ["Ticket 298 cost 398 euros.", "Ticket 299 cost 399 euros."]
        assert "Ticket 261 cost" in s.text and "Ticket 260 cost" not in s.text  # the 39 newest details
        assert s.metadata["summary_messages"] == 301
        newest = m.get_all(user_id="u", filters={"session_id": "s1"}, limit=1000)
        gone = next(x for x in newest if x.text == "Ticket 299 cost 399 euros.")
        m.delete(gone.id)
        m.add(_ticket_turns(300, 1), user_id="u", session_id="s1")
        again = m.summarize(user_id="u", session_id="s1")
        assert "Ticket 299 cost" not in again.text and "Ticket 300 cost 400 euros." in again.text
        assert "I live in Lisbon." in again.text


def test_each_llm_summary_call_sees_only_the_new_turns():
    """The LLM path reads the messages after the current summary (bounded prompt), and its lines merge with the
    ones already summarised."""
    first = json.dumps({"topic": ["moving"], "lines": [
        {"section": "facts", "text": "The user moved to Lisbon last month.", "message": 1}]})
    second = json.dumps({"topic": ["bike"], "lines": [
        {"section": "details", "text": "The user bought a bike for 300 euros.", "message": 1}]})
    with FakeLLMServer([first, second]) as srv:
        with Memory(":memory:", embedder="hash", llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0),
                    settings=Settings(summary_every=0, fact_extractor="rules", labeller="offline")) as m:
            m.add(TURNS[:1], user_id="u", session_id="s1")
            m.summarize(user_id="u", session_id="s1")
            m.add([{"role": "user", "content": "I bought a bike for 300 euros."}], user_id="u", session_id="s1")
            s = m.summarize(user_id="u", session_id="s1")
            prompts = [r["messages"][-1]["content"] for r in srv.requests if "Summarise" in
                       r["messages"][0]["content"]]
    assert len(prompts) == 2 and "Lisbon" in prompts[0]
    assert "bike" in prompts[1] and "Lisbon" not in prompts[1]
    assert s.text == ("Topic: moving, bike\nFacts:\n- The user moved to Lisbon last month.\n"
                      "Details:\n- The user bought a bike for 300 euros.")
