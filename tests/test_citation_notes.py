"""Each citation of an answer carries the qualifier its quote shows (``Citation.note``): "true until 2024-03" for a
value that no longer holds, "planned: from …" for one scheduled ahead, a pending change; None for one that holds
now. The CLI (plain and --json), REST and MCP read it from there, never from ``Answer.text``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import anyio
import pytest
from cli_helpers import hash_cli_env, invoke, invoke_json  # noqa: F401 - the fixture

from anchormem import Memory
from anchormem.types import Answer, Citation, MemoryItem, as_citation

T0 = datetime(2024, 1, 10, 9, tzinfo=timezone.utc)
T1 = datetime(2024, 3, 5, 9, tzinfo=timezone.utc)


@pytest.fixture
def moved():
    m = Memory(":memory:", embedder="hash", llm=None, cache=False)
    m.add("I live in Lisbon.", user_id="u", timestamp=T0)
    m.add("I moved to Berlin.", user_id="u", timestamp=T1)
    yield m
    m.close()


def test_a_current_citation_has_no_note(moved):
    ans = moved.ask("Where do I live?", user_id="u")
    assert [(type(c), c.text, c.note) for c in ans.citations] == [(Citation, "I moved to Berlin.", None)]
    assert ans.text == 'On 2024-03-05, you said: "I moved to Berlin."'


def test_a_superseded_citation_asked_in_the_past_tense_says_until_when(moved):
    ans = moved.ask("Where did I live before?", user_id="u")
    assert [(c.text, c.note) for c in ans.citations] == [("I live in Lisbon.", "true until 2024-03")]
    assert ans.text == 'On 2024-01-10, you said (true until 2024-03): "I live in Lisbon."'  # the same words


def test_the_note_is_in_the_question_language():
    m = Memory(":memory:", embedder="hash", llm=None, cache=False)
    m.add("我住在上海。", user_id="z", timestamp=T0)
    m.add("我搬到北京了。", user_id="z", timestamp=T1)
    ans = m.ask("我以前住在哪里？", user_id="z")
    assert [(c.text, c.note) for c in ans.citations] == [("我住在上海。", "2024-03以前如此")]
    assert "（2024-03以前如此）" in ans.text
    m.close()


def test_a_pending_change_is_the_citations_note(mem_det):
    mem_det.add("My phone number is 555-0100.", user_id="p", timestamp=T0)
    assert [e.event for e in mem_det.add("My phone number is now 555-0199.", user_id="p",
                                         timestamp=T0 + timedelta(days=3))] == ["REVIEW"]
    ans = mem_det.ask("What is my phone number?", user_id="p")
    assert [(c.text, c.note) for c in ans.citations] == [
        ("My phone number is 555-0100.", "a change to 555-0199 is pending review")]


def test_a_scheduled_change_is_the_citations_note():
    now = datetime.now(timezone.utc)
    m = Memory(":memory:", embedder="hash", llm=None, cache=False)
    m.add("My rent is 1200 a month.", user_id="r", timestamp=now - timedelta(days=30))
    m.add("My rent goes up to 1500 next month.", user_id="r", timestamp=now - timedelta(hours=1))
    ans = m.ask("How much is my rent?", user_id="r")
    [c] = ans.citations
    assert c.text == "My rent is 1200 a month." and c.note.startswith("current; until ")
    assert f"({c.note})" in ans.text  # exactly what the text shows
    m.close()


def test_a_plain_memory_item_given_as_a_citation_is_one_without_a_note(moved):
    item = moved.get_all(user_id="u")[0]
    assert type(item) is MemoryItem
    ans = Answer(text="x", citations=[item])
    assert type(ans.citations[0]) is Citation and ans.citations[0].note is None
    assert ans.citations[0].id == item.id and ans.citations[0].text == item.text
    noted = as_citation(item, "true until 2024-03")
    assert noted.note == "true until 2024-03" and noted.model_dump()["note"] == "true until 2024-03"
    assert noted.valid_from == item.valid_from and noted.current == item.current


def test_the_cli_shows_and_serialises_the_note(tmp_path, hash_cli_env):

    db = str(tmp_path / "c.db")
    assert invoke(db, "add", "I live in Lisbon.", "--user", "u", "--timestamp", T0.isoformat()).exit_code == 0
    assert invoke(db, "add", "I moved to Berlin.", "--user", "u", "--timestamp", T1.isoformat()).exit_code == 0
    out = invoke_json(db, "ask", "Where did I live before?", "--user", "u")
    assert [(c["quote"], c["note"]) for c in out["citations"]] == [("I live in Lisbon.", "true until 2024-03")]
    now = invoke_json(db, "ask", "Where do I live?", "--user", "u")
    assert [(c["quote"], c["note"]) for c in now["citations"]] == [("I moved to Berlin.", None)]
    plain = invoke(db, "ask", "Where did I live before?", "--user", "u").output
    assert "(true until 2024-03)" in plain


def test_rest_ask_returns_the_note():
    from fastapi.testclient import TestClient

    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyStore

    keys = KeyStore(":memory:")
    key = keys.create("acme", "admin", name="t")[1]
    app = create_app(":memory:", embedder="hash", keys=keys, rate_limit=None)
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as c:
        for text, when in (("I live in Lisbon.", T0), ("I moved to Berlin.", T1)):
            r = c.post("/v1/memories", json={"messages": [{"role": "user", "content": text,
                                                            "timestamp": when.isoformat()}], "user_id": "r"})
            assert r.status_code == 201, r.text
        past = c.post("/v1/ask", json={"query": "Where did I live before?", "user_id": "r"}).json()
        assert [(x["text"], x["note"]) for x in past["citations"]] == [("I live in Lisbon.", "true until 2024-03")]
        now = c.post("/v1/ask", json={"query": "Where do I live?", "user_id": "r"}).json()
        assert [(x["text"], x["note"]) for x in now["citations"]] == [("I moved to Berlin.", None)]
        schema = c.get("/openapi.json").json()["components"]["schemas"]
        assert "note" in schema["Citation"]["properties"]


def test_mcp_ask_returns_the_note(moved):
    pytest.importorskip("mcp.server.mcpserver")
    from mcp import Client

    from anchormem.mcp_server import create_mcp_server

    async def main() -> list[tuple[str, str | None]]:
        async with Client(create_mcp_server(moved)) as client:
            out = []
            for q in ("Where did I live before?", "Where do I live?"):
                res = await client.call_tool("ask_memory", {"user_id": "u", "query": q})
                assert not res.is_error, res.content
                out += [(x["quote"], x["note"]) for x in res.structured_content["citations"]]
            return out

    assert anyio.run(main) == [("I live in Lisbon.", "true until 2024-03"), ("I moved to Berlin.", None)]


def test_notes_of_a_read_as_of_before_a_scheduled_change_are_worded_as_of_then():
    """fresh22 D3: asked as of a day before the new rent takes effect, the new rent is planned from its date (not a
    plain current value); the old one is quoted first, held until then."""
    from anchormem import Memory

    with Memory(":memory:") as m:
        m.add("My rent is 850 pounds a month.", user_id="u", timestamp="2025-02-03T09:00:00Z")
        m.add("Landlord put the rent up, it's 920 quid from the 1st of next month.", user_id="u",
              timestamp="2025-02-24T20:04:00Z")
        cites = m.ask("How much is my rent?", user_id="u", as_of="2025-02-26T00:00:00Z").citations
        assert [(c.text, c.note) for c in cites] == [
            ("My rent is 850 pounds a month.", "true until 2025-03"),
            ("Landlord put the rent up, it's 920 quid from the 1st of next month.", "planned: from 2025-03-01")]
        now = m.ask("How much is my rent?", user_id="u").citations  # read today: the change took effect long ago
        assert now[0].text.startswith("Landlord put the rent up") and now[0].note is None
