"""Every read path honours claim currency (issue 22): search, ask, context(), summaries, MCP serialisation."""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.mcp_server import MemoryOut

SAM = "Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital."


@pytest.fixture
def mem():
    m = Memory(":memory:", embedder="hash", llm=None)
    m.add(SAM, user_id="u", session_id="s1", timestamp="2024-01-10T10:00:00Z")
    m.add("I drink coffee every morning.", user_id="u", session_id="s1", timestamp="2024-01-10T10:01:00Z")
    m.add("I moved to Berlin last month.", user_id="u", session_id="s2", timestamp="2024-03-10T10:00:00Z")
    yield m
    m.close()


def test_search_puts_the_current_value_first_and_hides_the_superseded_one(mem):
    hits = mem.search("Where do I live?", user_id="u")
    assert hits[0].memory.text == "I moved to Berlin last month."
    assert all(h.memory.valid_to is None for h in hits)
    assert "I live in Lisbon" not in [h.memory.text for h in hits]
    # the utterance that also said Lisbon stays findable for its other content, behind the current value
    utt = next(h for h in hits if h.memory.kind == "utterance")
    assert utt.memory.text == SAM and [c.value for c in utt.memory.claims if c.valid_to] == ["Lisbon"]
    assert hits.index(utt) > 0


def test_search_reaches_the_past_by_filter_or_past_question(mem):
    past = mem.search("Lisbon", user_id="u", filters={"valid_to": {"exists": True}})
    assert [h.memory.text for h in past] == ["I live in Lisbon"]
    hits = mem.search("Where did I live before?", user_id="u")
    assert hits[0].memory.text == "I live in Lisbon" and hits[0].explain["past"] == "until 2024-03"


def test_ask_cites_the_current_value_first_and_only(mem):
    ans = mem.ask("Where do I live?", user_id="u")
    assert ans.text == 'On 2024-03-10, you said: "I moved to Berlin last month."'
    assert all("Lisbon" not in c.text for c in ans.citations)
    job = mem.ask("What is my job?", user_id="u")
    assert job.citations[0].text == "Hi, I'm Sam. I work as a nurse at Santa Maria hospital."


@pytest.mark.parametrize("question", ["Did I ever live in Lisbon?", "Where did I live before?", "我以前住哪里？"])
def test_past_questions_answer_from_the_past_and_say_so(mem, question):
    ans = mem.ask(question, user_id="u")
    assert not ans.abstained
    assert ans.citations[0].text == "I live in Lisbon"
    assert "until 2024-03" in ans.text or "2024-03以前如此" in ans.text


def test_context_shows_only_the_current_state_or_marks_the_past(mem):
    now = mem.context(user_id="u", session_id="s3", query="Where do I live now?")
    lines = [it["text"] for it in now.section("memories").items]
    assert "I moved to Berlin last month." in lines
    assert not any("Lisbon" in t for t in lines)
    before = mem.context(user_id="u", session_id="s3", query="Where did I live before?")
    assert "I live in Lisbon (until 2024-03)" in before.section("memories").text


def test_summaries_hold_the_current_state_and_a_change_reads_as_a_change(mem):
    s1 = mem.summarize(user_id="u", session_id="s1").text
    assert "Lisbon" not in s1.split("Facts:")[1]
    assert "- I work as a nurse at Santa Maria hospital." in s1
    s2 = mem.summarize(user_id="u", session_id="s2").text
    assert "- I moved to Berlin last month. [Lisbon → Berlin, 2024-03]" in s2
    user = mem.summarize(user_id="u").text
    assert "Lisbon" not in user.replace("[Lisbon → Berlin, 2024-03]", "")
    block = mem.context(user_id="u", session_id="s4", query="Tell me about me")
    dashes = [ln for ln in block.text.splitlines() if ln.startswith("- ") and not ln.startswith("- [")]
    assert len(dashes) == len(set(dashes))  # no summary line twice in one block


def test_mcp_and_json_show_a_superseded_claim(mem):
    utt = next(m for m in mem.get_all(user_id="u") if m.kind == "utterance" and m.text == SAM)
    out = MemoryOut.of(utt).model_dump()
    assert out["current"] is True
    assert [(c["value"], c["valid_to"] is not None) for c in out["claims"] if c["slot"] == "user|home_city"] == \
        [("Lisbon", True)]
    old = next(m for m in mem.get_all(user_id="u", include_superseded=True) if m.text == "I live in Lisbon")
    assert old.model_dump(mode="json")["current"] is False


def test_ask_takes_as_of_as_a_string_like_search():
    """`ask(as_of="...Z")` reads the past as `search` does (it raised a TypeError); a bad string is a clear error."""
    from anchormem import Memory
    from anchormem.errors import InvalidInputError

    m = Memory(":memory:", embedder="hash")
    m.add("I live in Leeds.", user_id="u", timestamp="2025-01-01T00:00:00Z")
    m.add("I moved to York.", user_id="u", timestamp="2025-03-01T00:00:00Z")
    then = m.ask("Where do I live?", user_id="u", as_of="2025-02-01T00:00:00Z")
    assert "Leeds" in then.text and "York" not in then.text
    assert "York" in m.ask("Where do I live?", user_id="u").text
    with pytest.raises(InvalidInputError, match="as_of"):
        m.ask("Where do I live?", user_id="u", as_of="garbage")


def test_a_past_question_on_a_turn_with_two_closed_claims_returns_them():
    """Two claims of one turn closed by one change (job and employer): a past question returns the turn as it was
    said (closed as a whole, marked past), not the clauses repeating it, and does not fail on the second clause (it
    raised ValueError)."""
    m = Memory(":memory:", embedder="hash", llm=None)
    m.add("I'm a nurse at St Mary's.", user_id="u", session_id="s0", timestamp="2024-01-01T09:00:00Z")
    m.add("I quit nursing and joined Google as an engineer.", user_id="u", session_id="s1",
          timestamp="2024-03-01T09:00:00Z")
    for q in ("Where did I work before?", "Was I a nurse at St Mary's before?"):
        hits = m.search(q, user_id="u", limit=10)
        closed = [h for h in hits if h.memory.valid_to is not None]
        assert closed and hits[0].memory.valid_to is not None and hits[0].explain["past"] == "until 2024-03"
        assert [(h.memory.kind, h.memory.text) for h in closed] == [("utterance", "I'm a nurse at St Mary's.")]
    assert m.ask("Where did I work before?", user_id="u").text == \
        'On 2024-01-01, you said (true until 2024-03): "I\'m a nurse at St Mary\'s."'
