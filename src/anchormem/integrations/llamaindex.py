"""A LlamaIndex memory block backed by anchormem.

    from llama_index.core.memory import Memory as LlamaMemory
    from anchormem import Memory
    from anchormem.integrations.llamaindex import AnchormemMemoryBlock

    block = AnchormemMemoryBlock(memory=Memory("memories.db"), user_id="alice")
    memory = LlamaMemory.from_defaults(session_id="chat-1", memory_blocks=[block], token_limit=40000)
    agent.run(..., memory=memory)   # or: await memory.aget() before each model call

LlamaIndex keeps the recent chat itself (its short-term chat store) and hands a memory block the messages that
overflow it (``aput``, when ``chat_history_token_ratio`` of ``token_limit`` is passed). This block then gives
their user and assistant text to ``Memory.add`` (facts extracted, changes superseding older values; tool and
system messages left out). On every ``aget`` it searches anchormem with the latest user message as the query and
the earlier messages as the conversation, and returns the memories found, one per line with their date
(``"[2024-05-06] I moved to Lisbon last month."``), each as it holds now (the words of a superseded fact left out),
or an empty string. Messages LlamaIndex never flushes are not
remembered long term: call ``await block.aput(messages)`` yourself to remember a turn at once.

Needs ``pip install 'anchormem[llamaindex]'``.
"""

from __future__ import annotations

from typing import Any

from ..aio import AsyncMemory
from ..memory import Memory
from ..retrieval.currency import shown_hits
from . import require

_mem = require("llama_index.core.memory", "llamaindex")
_pyd = require("pydantic", "llamaindex")

__all__ = ["AnchormemMemoryBlock"]

_ROLES = ("user", "assistant")


def _turn(message: Any) -> dict[str, str] | None:
    role = getattr(getattr(message, "role", None), "value", getattr(message, "role", None))
    text = getattr(message, "content", None)
    if role not in _ROLES or not isinstance(text, str) or not text.strip():
        return None
    return {"role": role, "content": text}


class AnchormemMemoryBlock(_mem.BaseMemoryBlock[str]):
    """LlamaIndex ``BaseMemoryBlock[str]`` over anchormem (see the module docstring).

    Fields: ``memory`` (a Memory or AsyncMemory), ``user_id``, ``session_id`` (default None: the memories get the
    LlamaIndex session id given to ``aput``, if any), ``limit`` (memories per ``aget``, default 5),
    ``context_turns`` (earlier messages used as the conversation, default 6), ``name`` (default
    ``"anchormem"``), ``priority`` (default 1: LlamaIndex truncates it before priority-0 blocks).
    Raises what ``Memory.add`` / ``Memory.search`` raise (anchormem errors).
    """

    model_config = _pyd.ConfigDict(arbitrary_types_allowed=True)

    name: str = "anchormem"
    description: str | None = "Long-term memories about the user, quoted from earlier conversations."
    priority: int = 1
    memory: Any
    user_id: str
    session_id: str | None = None
    limit: int = 5
    context_turns: int = 6

    def model_post_init(self, __context: Any) -> None:
        if isinstance(self.memory, Memory):
            self.memory = AsyncMemory(memory=self.memory, max_workers=2)
        elif not isinstance(self.memory, AsyncMemory):
            from ..errors import ConfigError
            raise ConfigError("memory must be an anchormem Memory or AsyncMemory")

    async def _aget(self, messages: list[Any] | None = None, **block_kwargs: Any) -> str:
        turns = [t for t in (_turn(m) for m in messages or []) if t is not None]
        last = next((i for i in range(len(turns) - 1, -1, -1) if turns[i]["role"] == "user"), None)
        if last is None:
            return ""
        query = turns[last]["content"]
        context = turns[:last][-self.context_turns:] or None
        hits = await self.memory.search(query, user_id=self.user_id, context=context, limit=self.limit + 1)
        lines = [f"[{h.memory.created_at.date().isoformat()}] {h.memory.text}" for h in shown_hits(hits)
                 if h.memory.text.strip() != query.strip()][:self.limit]
        return "\n".join(lines)

    async def _aput(self, messages: list[Any]) -> None:
        turns = [t for t in (_turn(m) for m in messages) if t is not None]
        if not turns:
            return
        session = self.session_id or next(
            (m.additional_kwargs.get("session_id") for m in messages
             if isinstance(getattr(m, "additional_kwargs", None), dict) and m.additional_kwargs.get("session_id")),
            None)
        await self.memory.add(turns, user_id=self.user_id, session_id=session)
