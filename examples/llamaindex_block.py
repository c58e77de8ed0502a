"""anchormem as a LlamaIndex memory block (pip install -e '.[llamaindex]').

Run: python examples/llamaindex_block.py
"""

import asyncio

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import Memory as LlamaMemory

from anchormem import Memory
from anchormem.integrations.llamaindex import AnchormemMemoryBlock


async def main() -> None:
    with Memory(":memory:") as mem:
        block = AnchormemMemoryBlock(memory=mem, user_id="sam")
        memory = LlamaMemory.from_defaults(session_id="chat-1", memory_blocks=[block], token_limit=400,
                                           chat_history_token_ratio=0.1, token_flush_size=10)
        await memory.aput_messages([
            ChatMessage(role="user", content="I work as a nurse at Santa Maria hospital in Lisbon."),
            ChatMessage(role="assistant", content="That sounds demanding."),
            ChatMessage(role="user", content="My sister Ana lives in Porto."),
            ChatMessage(role="assistant", content="Porto is lovely."),
        ])
        await memory.aput(ChatMessage(role="user", content="Which hospital do I work at?"))
        for message in await memory.aget():  # what an agent would send to its model
            print(f"{message.role.value}: {message.content}")


asyncio.run(main())
