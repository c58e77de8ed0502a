"""An OpenAI Agents SDK agent with an anchormem session (pip install -e '.[openai-agents]').

Needs a chat model: set OPENAI_BASE_URL / OPENAI_API_KEY for any OpenAI-compatible server (Ollama:
OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_API_KEY=ollama MODEL=qwen2.5). Without one, the script uses
anchormem's scripted fake server so that it still runs offline.

Run: python examples/openai_agents_session.py
"""

import asyncio
import os

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from anchormem import Memory
from anchormem.integrations.openai_agents import AnchormemSession
from anchormem.testing.fake_llm import FakeLLMServer

set_tracing_disabled(True)


async def main(base_url: str, api_key: str, model_name: str) -> None:
    model = OpenAIChatCompletionsModel(model=model_name, openai_client=AsyncOpenAI(base_url=base_url,
                                                                                   api_key=api_key))
    with Memory(":memory:") as mem:
        first = AnchormemSession("monday", mem, user_id="sam")
        agent = Agent(name="Assistant", instructions=first.instructions("You are a helpful assistant."),
                      model=model)
        await Runner.run(agent, "I moved to Berlin last month and I'm vegetarian.", session=first)

        later = AnchormemSession("friday", mem, user_id="sam")  # a new conversation, empty history
        agent = Agent(name="Assistant", instructions=later.instructions("You are a helpful assistant."),
                      model=model)
        result = await Runner.run(agent, "Can you suggest a restaurant near me?", session=later)
        print("recalled:", [h.memory.text for h in await later.recall("Where do I live? What do I eat?")])
        print("agent:", result.final_output)


if os.environ.get("OPENAI_BASE_URL"):
    asyncio.run(main(os.environ["OPENAI_BASE_URL"], os.environ.get("OPENAI_API_KEY", "x"),
                     os.environ.get("MODEL", "gpt-4o-mini")))
else:
    with FakeLLMServer(lambda req: "(scripted reply) Try a vegetarian place in Berlin.") as server:
        asyncio.run(main(server.base_url, "x", "fake"))
