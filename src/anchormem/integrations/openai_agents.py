"""An OpenAI Agents SDK ``Session`` whose turns also become anchormem long-term memories.

    from agents import Agent, Runner
    from anchormem import Memory
    from anchormem.integrations.openai_agents import AnchormemSession

    mem = Memory("memories.db")
    session = AnchormemSession("chat-42", mem, user_id="alice")
    agent = Agent(name="Assistant", instructions=session.instructions("You are a helpful assistant."))
    await Runner.run(agent, "I moved to Lisbon last month.", session=session)

- The conversation history the SDK replays (``get_items`` / ``add_items`` / ``pop_item`` / ``clear_session``)
  is kept verbatim by ``history``: an SDK session you choose (default ``SQLiteSession(session_id)``, in memory;
  ``SQLiteSession(session_id, "chats.db")`` keeps it on disk). Tool calls and their outputs stay there.
- Every user and assistant message added is also given to ``Memory.add`` (``user_id``, ``session_id`` =
  this session's id), so facts are extracted, changes supersede older values and later sessions can recall them.
  Tool calls, tool outputs and reasoning items are not remembered long term.
- :meth:`recall` searches long-term memory with the session's recent turns as context; :meth:`instructions`
  makes a dynamic ``Agent(instructions=...)`` that appends what is remembered about the current request
  (quoted memories with their dates) to your base instructions.
- ``pop_item`` removes the item from the history only: what ``Memory.add`` stored stays (``Memory.delete`` it by
  id if needed). ``clear_session`` clears the history; with ``forget_on_clear=True`` it also deletes this
  session's long-term memories (``Memory.delete_all(user_id=..., session_id=...)``).

``memory`` may be a :class:`~anchormem.Memory` (calls run in worker threads) or an
:class:`~anchormem.AsyncMemory`. Needs ``pip install 'anchormem[openai-agents]'``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..aio import AsyncMemory
from ..ingest.normalize import check_scope_id
from ..memory import Memory
from ..retrieval.currency import shown_hits
from ..types import Hit
from . import require

_sdk = require("agents.memory", "openai-agents")
SessionABC = _sdk.SessionABC

__all__ = ["AnchormemSession", "item_message"]

_ROLES = ("user", "assistant")


def item_message(item: Any) -> dict[str, str] | None:
    """The ``{"role", "content"}`` turn of an SDK input item, or None for tool calls, tool outputs, reasoning and
    items without text. Content parts' ``text`` (``input_text``, ``output_text``) are joined with newlines."""
    if not isinstance(item, dict) or item.get("role") not in _ROLES:
        return None
    if item.get("type") not in (None, "message"):
        return None
    content = item.get("content")
    if isinstance(content, list):
        content = "\n".join(p["text"] for p in content
                            if isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"].strip())
    if not isinstance(content, str) or not content.strip():
        return None
    return {"role": item["role"], "content": content}


class AnchormemSession(SessionABC):
    """OpenAI Agents SDK session backed by an SDK history session and anchormem long-term memory.

    Args:
        session_id: this conversation's id (also the anchormem ``session_id`` of its memories).
        memory: a Memory or AsyncMemory.
        user_id: whose memories these are.
        history: the SDK session keeping the verbatim item list (default: ``SQLiteSession(session_id)``).
        forget_on_clear: ``clear_session`` also deletes this session's long-term memories (default False).
        recall_limit: memories :meth:`instructions` adds (default 5).

    Raises ScopeError (bad ids); ``add_items`` raises what ``Memory.add`` raises (InvalidInputError...), after
    the history got the items.
    """

    session_settings = None

    def __init__(self, session_id: str, memory: Memory | AsyncMemory, *, user_id: str, history: Any = None,
                 forget_on_clear: bool = False, recall_limit: int = 5) -> None:
        self.session_id = check_scope_id(session_id, "session_id", required=True)
        self.user_id = check_scope_id(user_id, "user_id", required=True)
        self.memory = memory if isinstance(memory, AsyncMemory) else AsyncMemory(memory=memory, max_workers=2)
        self._owns = not isinstance(memory, AsyncMemory)
        self.history = history if history is not None else _sdk.SQLiteSession(session_id)
        self.forget_on_clear = forget_on_clear
        self.recall_limit = recall_limit

    # ------------------------------------------------------------------ the SDK's Session protocol
    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The history, oldest first (the latest ``limit`` items when given)."""
        return await self.history.get_items(limit)

    async def add_items(self, items: list[Any]) -> None:
        """Append ``items`` to the history, then remember their user and assistant messages."""
        await self.history.add_items(items)
        turns = [t for t in (item_message(i) for i in items) if t is not None]
        if turns:
            await self.memory.add(turns, user_id=self.user_id, session_id=self.session_id)

    async def pop_item(self) -> Any:
        """Remove and return the latest history item (None when empty); long-term memories are kept."""
        return await self.history.pop_item()

    async def clear_session(self) -> None:
        """Clear the history; with ``forget_on_clear``, delete this session's long-term memories too."""
        await self.history.clear_session()
        if self.forget_on_clear:
            await self.memory.delete_all(user_id=self.user_id, session_id=self.session_id)

    # ------------------------------------------------------------------ recall
    async def recall(self, query: str, *, limit: int | None = None, context_turns: int = 6) -> list[Hit]:
        """anchormem search over this user's memories (every session), anchored in the last ``context_turns``
        user/assistant messages of the history. The request itself (a stored question of the same text, which
        the SDK saves before the run) is left out. Returns Hits, best first."""
        recent = [t for t in (item_message(i) for i in await self.history.get_items(context_turns * 3))
                  if t is not None]
        if recent and recent[-1]["content"].strip() == query.strip():
            recent = recent[:-1]  # the request itself is the query, not its context
        recent = recent[-context_turns:]
        n = limit or self.recall_limit
        hits = await self.memory.search(query, user_id=self.user_id, context=recent or None, limit=n + 1)
        return [h for h in hits if h.memory.text.strip() != query.strip()][:n]

    def instructions(self, base: str) -> Callable[..., Any]:
        """A dynamic ``Agent(instructions=...)`` callable: ``base`` plus the memories :meth:`recall` finds for the
        latest user message, each quoted with its date as it holds now (the words of a superseded fact left out, as
        ``Memory.context`` shows them; none: ``base`` alone)."""
        async def dynamic(run_context: Any, agent: Any) -> str:
            items = await self.history.get_items(20)
            last = next((t["content"] for t in reversed([item_message(i) for i in items])
                         if t is not None and t["role"] == "user"), None)
            if last is None:
                return base
            hits = shown_hits(await self.recall(last))  # as each holds now: superseded words left out
            if not hits:
                return base
            lines = [f"- [{h.memory.created_at.date().isoformat()}] {h.memory.text}" for h in hits]
            return base + "\n\nWhat you remember about this user (quoted from earlier conversations):\n" + \
                "\n".join(lines)
        return dynamic

    async def aclose(self) -> None:
        """Close the worker threads this session started (not a Memory or AsyncMemory you passed in)."""
        if self._owns:
            await asyncio.to_thread(self.memory._pool.shutdown, wait=True)
