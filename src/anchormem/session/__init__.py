"""Short-term memory: the working buffer and session store, and the context builder that joins them with
long-term memory.

- :mod:`.buffer`: :func:`count_tokens`, :func:`decay_weight`, turn validation, :class:`WorkingBuffer` (the
  token-budgeted sliding window over a session's last turns).
- :mod:`.store`: :class:`SessionStore` protocol, :class:`InProcessSessionStore` (default),
  :class:`RedisSessionStore` (shared by API workers; ``pip install 'anchormem[redis]'``), :func:`make_session_store`.
- :mod:`.context`: :func:`build_context` → :class:`ContextBlock` (session summary, long-term memories, recent turns
  within a token budget).

Nothing here does I/O at import; the ``redis`` package is imported only when a Redis store is created.
"""

from __future__ import annotations

from .buffer import Turn, Window, WorkingBuffer, count_tokens, decay_weight, format_turn, make_turn
from .context import ContextBlock, ContextSection, build_context
from .store import (
    InProcessSessionStore,
    RedisSessionStore,
    SessionKey,
    SessionStore,
    Summary,
    make_session_store,
)

__all__ = [
    "Turn",
    "Window",
    "WorkingBuffer",
    "count_tokens",
    "decay_weight",
    "format_turn",
    "make_turn",
    "ContextBlock",
    "ContextSection",
    "build_context",
    "SessionKey",
    "SessionStore",
    "Summary",
    "InProcessSessionStore",
    "RedisSessionStore",
    "make_session_store",
]
