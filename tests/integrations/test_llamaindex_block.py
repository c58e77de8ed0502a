"""AnchormemMemoryBlock is a real LlamaIndex memory block: messages LlamaIndex flushes from its short-term chat
are remembered by anchormem, and aget() brings the relevant ones back into the prompt."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core.memory")

from llama_index.core.base.llms.types import ChatMessage  # noqa: E402
from llama_index.core.memory import Memory as LlamaMemory  # noqa: E402

from anchormem import ConfigError, Memory  # noqa: E402
from anchormem.integrations.llamaindex import AnchormemMemoryBlock  # noqa: E402
from anchormem.testing import HashEmbedder  # noqa: E402


def test_block_put_and_get_directly():
    async def main():
        with Memory(":memory:", embedder=HashEmbedder()) as mem:
            block = AnchormemMemoryBlock(memory=mem, user_id="alice", session_id="s1")
            await block.aput([ChatMessage(role="user", content="I moved to Lisbon last month."),
                              ChatMessage(role="assistant", content="Congratulations on the move!"),
                              ChatMessage(role="tool", content="weather: sunny"),
                              ChatMessage(role="user", content="My dog is called Rex.")])
            texts = {m.text for m in mem.get_all(user_id="alice", session_id="s1")}
            assert "I moved to Lisbon last month." in texts and "weather: sunny" not in texts
            out = await block.aget([ChatMessage(role="user", content="Where did I move last month?")])
            assert out.splitlines()[0].endswith("I moved to Lisbon last month.")
            assert out.splitlines()[0].startswith("[")
            assert await block.aget([ChatMessage(role="assistant", content="Hello")]) == ""
    asyncio.run(main())


def test_inside_llamaindex_memory_flush_and_prompt():
    async def main():
        with Memory(":memory:", embedder=HashEmbedder()) as mem:
            block = AnchormemMemoryBlock(memory=mem, user_id="bob")
            lm = LlamaMemory.from_defaults(session_id="chat-7", memory_blocks=[block], token_limit=400,
                                           chat_history_token_ratio=0.1, token_flush_size=10)
            await lm.aput_messages([
                ChatMessage(role="user", content="I work as a nurse at Santa Maria hospital in Lisbon."),
                ChatMessage(role="assistant", content="That sounds like demanding but rewarding work."),
                ChatMessage(role="user", content="My sister Ana lives in Porto with her two cats."),
                ChatMessage(role="assistant", content="Porto is lovely; do you visit her often?"),
            ])
            await lm.aput(ChatMessage(role="user", content="Which hospital do I work at as a nurse?"))
            msgs = await lm.aget()
            # LlamaIndex flushed the oldest turns to the block; anchormem stored them for the LlamaIndex session
            stored = {m.text for m in mem.get_all(user_id="bob")}
            assert "I work as a nurse at Santa Maria hospital in Lisbon." in stored
            assert {m.session_id for m in mem.get_all(user_id="bob")} == {"chat-7"}
            # and the block's recall is in the prompt LlamaIndex builds
            prompt = "\n".join(str(m.content) for m in msgs)
            assert "<anchormem>" in prompt and "Santa Maria hospital" in prompt
    asyncio.run(main())


def test_memory_must_be_an_anchormem_memory():
    with pytest.raises(ConfigError):
        AnchormemMemoryBlock(memory="not a memory", user_id="u")
