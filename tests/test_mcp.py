"""The MCP server (``anchormem mcp``): tools driven by the official SDK's client, in process, over a real stdio
subprocess and over streamable HTTP on a loopback port; all on the deterministic hash embedder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver")

from mcp import Client, StdioServerParameters  # noqa: E402

from anchormem import Memory  # noqa: E402
from anchormem.mcp_server import create_mcp_server  # noqa: E402
from anchormem.testing import DeterministicEmbedder  # noqa: E402

ANCHORMEM = str(Path(sys.executable).with_name("anchormem"))  # the console script of this environment
NO_RECORD = "I have no record of that."
NO_RECORD_ZH = "我没有这方面的记录。"
MARATHON = "I ran the Lisbon half marathon in 1:52:40."
RENT_ZH = "我上周三刚搬到杭州，月租4500元。"


@pytest.fixture
def mem(tmp_path):
    m = Memory(str(tmp_path / "mcp.db"), embedder=DeterministicEmbedder())
    yield m
    m.close()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORMEM_")}
    env["ANCHORMEM_EMBEDDER"] = "hash"
    return env


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    """Call a tool that must succeed; returns its structured result."""
    res = await client.call_tool(tool, args)
    assert not res.is_error, res.content
    return res.structured_content


async def call_error(client: Client, tool: str, **args: Any) -> str:
    """Call a tool that must fail with a tool error; returns the error text."""
    res = await client.call_tool(tool, args)
    assert res.is_error, res.structured_content
    return res.content[0].text


async def _scenario(client: Client) -> None:
    """The end-to-end story every transport must tell the same way."""
    added = await call(client, "add_memory", user_id="alice", text=MARATHON, session_id="s1",
                       timestamp="2024-03-20T20:00:00Z", metadata={"channel": "chat"})
    [event] = added["events"]
    assert event["event"] == "ADD"
    mid = event["memory"]["id"]
    assert event["memory"]["text"] == MARATHON and event["memory"]["user_id"] == "alice"
    assert event["memory"]["created_at"].startswith("2024-03-20T20:00:00")

    hits = (await call(client, "search_memories", user_id="alice", query="Lisbon half marathon"))["hits"]
    assert [h["id"] for h in hits] == [mid]
    assert hits[0]["text"] == MARATHON and hits[0]["source"] == "user" and hits[0]["score"] > 0
    assert hits[0]["created_at"].startswith("2024-03-20T20:00:00") and isinstance(hits[0]["labels"], list)

    ans = await call(client, "ask_memory", user_id="alice", query="What was my half marathon time in Lisbon?")
    assert ans["abstained"] is False
    assert [(c["id"], c["quote"], c["date"]) for c in ans["citations"]] == [(mid, MARATHON, "2024-03-20")]
    assert MARATHON in ans["answer"]

    ans = await call(client, "ask_memory", user_id="alice", query="What is the name of my dentist?")
    assert ans == {"answer": NO_RECORD, "abstained": True, "citations": []}

    # user isolation: bob sees nothing of alice's, and cannot reach her memory by id
    assert (await call(client, "search_memories", user_id="bob", query="Lisbon half marathon"))["hits"] == []
    assert (await call(client, "ask_memory", user_id="bob",
                       query="What was my half marathon time in Lisbon?"))["abstained"] is True
    assert "not_found" in await call_error(client, "get_memory", user_id="bob", memory_id=mid)
    assert "not_found" in await call_error(client, "forget_memories", user_id="bob", memory_id=mid)

    # a turn with nothing to keep says so (a SKIP event with its reason), never a silent empty result
    skipped = (await call(client, "add_memory", user_id="alice", text="hi"))["events"]
    assert [(e["event"], e["reason"], e["memory"]["text"]) for e in skipped] == \
        [("SKIP", "chit-chat: nothing to remember", "hi")]

    # messages as one string is one user turn, as in the library and over REST
    one = (await call(client, "add_memory", user_id="carol", messages="I keep bees on the roof."))["events"]
    assert [(e["event"], e["memory"]["text"], e["memory"]["source"]) for e in one] == \
        [("ADD", "I keep bees on the roof.", "user")]

    # bad input comes back as a tool error with the library's message; the server keeps serving
    assert "empty text" in await call_error(client, "add_memory", user_id="alice", text="   ")
    err = await call_error(client, "search_memories", user_id="alice", query="marathon", filters={"nope": 1})
    assert "invalid_filter" in err and "unknown filter key 'nope'" in err
    assert (await call(client, "get_memory", user_id="alice", memory_id=mid))["text"] == MARATHON

    forgot = await call(client, "forget_memories", user_id="alice", memory_id=mid)
    assert forgot["memories_deleted"] == 1 and forgot["deleted"]["memories"] == 1
    assert (await call(client, "search_memories", user_id="alice", query="Lisbon half marathon"))["hits"] == []
    assert "not_found" in await call_error(client, "get_memory", user_id="alice", memory_id=mid)


# ------------------------------------------------------------------------------------------ in process
def test_in_process_scenario(mem):
    async def main() -> None:
        async with Client(create_mcp_server(mem)) as client:
            await _scenario(client)
    anyio.run(main)
    assert mem.get_all(user_id="alice") == []  # the tools acted on the Memory that was passed in


def test_tool_schemas_are_precise(mem):
    async def main() -> dict[str, Any]:
        async with Client(create_mcp_server(mem)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}
    tools = anyio.run(main)
    assert sorted(tools) == ["add_memory", "ask_memory", "forget_memories", "get_memory", "memory_history",
                             "search_memories"]
    search = tools["search_memories"].input_schema
    assert sorted(search["required"]) == ["query", "user_id"]
    assert search["properties"]["limit"]["type"] == "integer"
    assert (search["properties"]["limit"]["minimum"], search["properties"]["limit"]["maximum"]) == (1, 100)
    assert all(p.get("description") for p in search["properties"].values())
    add = tools["add_memory"].input_schema
    assert add["required"] == ["user_id"]
    role = add["$defs"]["ChatMessage"]["properties"]["role"]
    assert role["enum"] == ["user", "assistant", "system"]
    assert tools["ask_memory"].output_schema["properties"]["citations"]["type"] == "array"
    assert tools["forget_memories"].annotations.destructive_hint is True
    assert tools["search_memories"].annotations.read_only_hint is True


def test_messages_metadata_filters_history_and_chinese(mem):
    async def main() -> None:
        async with Client(create_mcp_server(mem)) as client:
            events = (await call(client, "add_memory", user_id="lin", session_id="2024-05-06", metadata={"app": "x"},
                                 messages=[{"role": "user", "content": RENT_ZH, "name": "林晓",
                                            "timestamp": "2024-05-06T21:00:00+08:00"},
                                           {"role": "assistant", "content": "恭喜乔迁！周末可以去西溪湿地走走。"}]))["events"]
            assert [(e["event"], e["memory"]["source"], e["memory"]["kind"]) for e in events] == [
                ("ADD", "user", "utterance"), ("ADD", "user", "fact"), ("ADD", "user", "fact"),
                ("ADD", "assistant", "assistant")]  # the turn is kept beside its home and rent facts' own clauses
            rent = events[0]["memory"]
            assert rent["speaker"] == "林晓" and rent["created_at"].startswith("2024-05-06T13:00:00")
            # 上周三 against the turn's own date (Monday 2024-05-06, UTC+8): Wednesday 2024-05-01 00:00 +08:00
            assert rent["event_time"].startswith("2024-04-30T16:00:00")

            hits = (await call(client, "search_memories", user_id="lin", query="月租多少",
                               filters={"source": "user", "metadata.app": "x"}))["hits"]
            assert [h["text"] for h in hits] == [RENT_ZH]
            ans = await call(client, "ask_memory", user_id="lin", query="我的月租是多少？")
            assert [(c["id"], c["quote"], c["speaker"]) for c in ans["citations"]] == [(rent["id"], RENT_ZH, "林晓")]
            assert (await call(client, "ask_memory", user_id="lin", query="我会说日语吗？"))["answer"] == NO_RECORD_ZH

            hist = await call(client, "memory_history", user_id="lin", memory_id=rent["id"])
            assert [(h["version"], h["event"], h["new_text"]) for h in hist["history"]] == [(1, "ADD", RENT_ZH)]

            # argument errors: both text and messages, a limit out of range, an unknown message role
            assert "exactly one of text or messages" in await call_error(
                client, "add_memory", user_id="lin", text="hi there", messages=[{"content": "x"}])
            # schema violations read as the library's invalid_input: the field, what is wrong, the value given
            assert await call_error(client, "search_memories", user_id="lin", query="月租", limit=0) == (
                "Error executing tool search_memories: invalid_input: limit: "
                "Input should be greater than or equal to 1 (got 0)")
            assert await call_error(client, "add_memory", user_id="lin",
                                    messages=[{"role": "robot", "content": "beep"}]) == (
                "Error executing tool add_memory: invalid_input: messages.0.role: "
                "Input should be 'user', 'assistant' or 'system' (got 'robot')")
            assert await call_error(client, "search_memories", user_id="lin") == (
                "Error executing tool search_memories: invalid_input: query: Field required")
            assert (await call_error(client, "search_memories", user_id="lin", query="月租", bogus=True)).startswith(
                "Error executing tool search_memories: invalid_input: unknown argument(s) 'bogus'; arguments: ")
            # a flag is a JSON boolean, as over REST: "yes" is refused and nothing is forgotten
            assert await call_error(client, "forget_memories", user_id="lin", purge="yes") == (
                "Error executing tool forget_memories: invalid_input: purge: Input should be a valid boolean "
                "(got 'yes')")
            forgot = await call(client, "forget_memories", user_id="lin")
            assert forgot["memories_deleted"] == 4  # the rent turn, its home and rent facts, the reply
    anyio.run(main)
    assert mem.get_all(user_id="lin") == []


def test_pinned_user(mem):
    mem.add("My sister Lena lives in Toronto.", user_id="carol")

    async def main() -> None:
        async with Client(create_mcp_server(mem, default_user_id="dave")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["search_memories"].input_schema["required"] == ["query"]
            assert "required" not in tools["forget_memories"].input_schema
            added = await call(client, "add_memory", text="My brother Sam lives in Oslo.")
            assert added["events"][0]["memory"]["user_id"] == "dave"
            hits = (await call(client, "search_memories", query="Where does my brother live?"))["hits"]
            assert [h["text"] for h in hits] == ["My brother Sam lives in Oslo."]
            err = await call_error(client, "search_memories", query="sister Lena Toronto", user_id="carol")
            assert "invalid_scope" in err and "pinned to user 'dave'" in err
            assert (await call(client, "search_memories", query="Oslo", user_id="dave"))["hits"][0]["user_id"] == "dave"
    anyio.run(main)
    assert [m.text for m in mem.get_all(user_id="carol")] == ["My sister Lena lives in Toronto."]


def test_a_blank_query_is_a_tool_error_for_search_and_ask(mem):
    async def main() -> None:
        async with Client(create_mcp_server(mem)) as client:
            for tool, arg in (("search_memories", "query"), ("ask_memory", "query")):
                err = await call_error(client, tool, user_id="u", **{arg: "   "})
                assert err.endswith("invalid_input: query: empty text"), (tool, err)
    anyio.run(main)


# ------------------------------------------------------------------------------------------ real transports
def test_stdio_subprocess(tmp_path):
    db = tmp_path / "stdio.db"
    params = StdioServerParameters(command=ANCHORMEM, args=["--db", str(db), "mcp"], env=_env())

    async def main() -> None:
        with anyio.fail_after(120):
            async with Client(params) as client:
                await _scenario(client)
                await call(client, "add_memory", user_id="erin", text="I adopted a cat named Pixel last week.",
                           timestamp="2024-03-20T20:00:00Z")
    anyio.run(main)
    with Memory(str(db), embedder="hash") as m:  # the server wrote to the --db file
        assert [x.text for x in m.get_all(user_id="erin")] == ["I adopted a cat named Pixel last week."]
        assert m.get_all(user_id="alice") == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_subprocess(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([ANCHORMEM, "--db", str(tmp_path / "http.db"), "mcp", "--transport", "http",
                             "--port", str(port)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("MCP HTTP server did not start: " + proc.stderr.read().decode()) from None
                time.sleep(0.1)

        async def main() -> None:
            with anyio.fail_after(120):
                async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                    await _scenario(client)
                async with Client(f"http://127.0.0.1:{port}/mcp") as again:  # a second session, same store
                    assert (await call(again, "search_memories", user_id="alice", query="marathon"))["hits"] == []
        anyio.run(main)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/mcp" in err.decode()


# ------------------------------------------------------------------------------------------ CLI edges
def _run(*code_lines: str, argv: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "\n".join(code_lines), *(argv or [])], env=_env(),
                          capture_output=True, text=True, timeout=120)


def test_anchormem_imports_without_the_sdk_and_cli_gives_install_hint(tmp_path):
    blocked = "import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None"  # as if not installed
    res = _run(blocked, "import anchormem, anchormem.cli; print(anchormem.Memory.__name__)")
    assert res.returncode == 0 and res.stdout.strip() == "Memory", res.stderr
    res = _run(blocked, "from anchormem.cli import main; sys.argv[0] = 'anchormem'; main()",
               argv=["--db", str(tmp_path / "x.db"), "mcp"])
    assert res.returncode == 2
    assert "pip install 'anchormem[mcp]'" in res.stderr and "Traceback" not in res.stderr
    res = _run("import sys, anchormem, anchormem.cli; print(sorted(m for m in ('mcp', 'mcp_types') "
               "if m in sys.modules))")
    assert res.stdout.strip() == "[]", res.stderr  # importing anchormem (and its CLI) never imports the SDK


def test_cli_rejects_bad_options(tmp_path):
    res = subprocess.run([ANCHORMEM, "--db", str(tmp_path / "x.db"), "mcp", "--transport", "sse"], env=_env(),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "--transport must be stdio or http" in res.stderr
    res = subprocess.run([ANCHORMEM, "--db", str(tmp_path / "x.db"), "mcp", "--user-id", " "], env=_env(),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "default_user_id must be a non-empty string" in res.stderr
