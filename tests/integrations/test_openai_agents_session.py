"""AnchormemSession is an OpenAI Agents SDK Session: the SDK's Runner replays its history, the user's turns become
long-term memories that a later session recalls into the agent's instructions. The model is the scripted
OpenAI-protocol fake (anchormem.testing), reached through the SDK's own Chat Completions model."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("agents")

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled  # noqa: E402
from agents.memory import SQLiteSession  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

from anchormem import Memory  # noqa: E402
from anchormem.integrations.openai_agents import AnchormemSession, item_message  # noqa: E402
from anchormem.testing import HashEmbedder  # noqa: E402
from anchormem.testing.fake_llm import FakeLLMServer  # noqa: E402

set_tracing_disabled(True)  # the SDK would otherwise try to export traces to OpenAI


def test_item_message_keeps_only_user_and_assistant_text():
    assert item_message({"role": "user", "content": "I live in Porto."}) == {"role": "user",
                                                                             "content": "I live in Porto."}
    assert item_message({"type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": "Noted."}]}) == {"role": "assistant",
                                                                                     "content": "Noted."}
    assert item_message({"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}) is None
    assert item_message({"type": "function_call_output", "call_id": "c", "output": "x"}) is None
    assert item_message({"role": "system", "content": "be nice"}) is None
    assert item_message({"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}) is None


def test_runner_uses_the_session_and_a_later_session_recalls_the_fact(tmp_path):
    prompts: list[list[dict]] = []

    def reply(req: dict) -> str:
        prompts.append(req["messages"])
        return "Noted!"

    async def main():
        with FakeLLMServer(reply) as server, Memory(str(tmp_path / "m.db"), embedder=HashEmbedder()) as mem:
            model = OpenAIChatCompletionsModel(model="fake", openai_client=AsyncOpenAI(base_url=server.base_url,
                                                                                     api_key="x"))
            s1 = AnchormemSession("chat-1", mem, user_id="alice")
            agent = Agent(name="A", instructions=s1.instructions("You are helpful."), model=model)
            r = await Runner.run(agent, "I moved to Lisbon last month.", session=s1)
            assert r.final_output == "Noted!"
            await Runner.run(agent, "My dog is called Rex.", session=s1)
            items = await s1.get_items()
            assert [item_message(i)["content"] for i in items if item_message(i)] == [
                "I moved to Lisbon last month.", "Noted!", "My dog is called Rex.", "Noted!"]
            # the second run replayed the first exchange to the model
            assert any(m.get("content") == "I moved to Lisbon last month." for m in prompts[1])
            stored = {m.text for m in mem.get_all(user_id="alice", session_id="chat-1")}
            assert "I moved to Lisbon last month." in stored

            # a new session: empty history, but long-term memory recalls Lisbon into the instructions
            s2 = AnchormemSession("chat-2", mem, user_id="alice")
            assert await s2.get_items() == []
            hits = await s2.recall("Where do I live?")
            assert "Lisbon" in hits[0].memory.text
            agent2 = Agent(name="A", instructions=s2.instructions("You are helpful."), model=model)
            await Runner.run(agent2, "Where do I live?", session=s2)
            system = [m for m in prompts[-1] if m["role"] in ("system", "developer")][0]["content"]
            assert system.startswith("You are helpful.") and "I moved to Lisbon last month." in system
            await s1.aclose()
            await s2.aclose()
    asyncio.run(main())


def test_pop_and_clear_with_and_without_forgetting():
    async def main():
        with Memory(":memory:", embedder=HashEmbedder()) as mem:
            keep = AnchormemSession("s1", mem, user_id="bob", history=SQLiteSession("s1"))
            await keep.add_items([{"role": "user", "content": "I play the violin."},
                                  {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c1"}])
            popped = await keep.pop_item()
            assert popped["type"] == "function_call"
            assert len(await keep.get_items()) == 1
            await keep.clear_session()
            assert await keep.get_items() == []
            assert [m.text for m in mem.get_all(user_id="bob")] == ["I play the violin."]
            forget = AnchormemSession("s2", mem, user_id="bob", forget_on_clear=True)
            await forget.add_items([{"role": "user", "content": "I play the drums on Fridays."}])
            await forget.clear_session()
            assert [m.text for m in mem.get_all(user_id="bob")] == ["I play the violin."]
            await keep.aclose()
            await forget.aclose()
    asyncio.run(main())
