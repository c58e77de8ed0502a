"""The bounds of one ``add`` call, checked before anything is drafted, embedded or written.

One call may carry at most ``Settings.max_add_messages`` messages (default 1,000; ``ANCHORMEM_MAX_ADD_MESSAGES``)
and ``Settings.max_add_chars`` characters of message text in all (default 100,000; ``ANCHORMEM_MAX_ADD_CHARS``),
besides ``max_message_chars`` per message. The time of an ``add`` grows linearly with its text (embedding each
memory dominates; see ``bench/add_bounds.py``), so these bound the time one call can take; a caller with more
raises them (``Memory(path, max_add_messages=5_000)``) or splits the input into several calls. Over a limit is an
InvalidInputError naming the limit and the setting; nothing is stored.

The turns a call appends to its session buffer (:mod:`anchormem.session`) are built and validated here too,
before the write, so a turn the buffer would refuse cannot leave the call half-stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInputError
from ..session.buffer import Turn, make_turn

__all__ = ["check_message_count", "check_total_chars", "session_turns"]


def check_message_count(messages: Any, limit: int) -> None:
    """Raise InvalidInputError when ``messages`` (a list as ``add`` takes it) holds more than ``limit`` items.
    Runs first: a list of a million messages is refused without reading them."""
    if isinstance(messages, Sequence) and not isinstance(messages, (str, bytes, bytearray)) \
            and len(messages) > limit:
        raise InvalidInputError(f"messages: {len(messages):,} messages in one add is over the limit of {limit:,} "
                                "(split them into several add calls, or raise max_add_messages)")


def check_total_chars(texts: Sequence[str], limit: int) -> None:
    """Raise InvalidInputError when the message texts of one call hold more than ``limit`` characters in all."""
    total = sum(len(t) for t in texts)
    if total > limit:
        raise InvalidInputError(f"messages: {total:,} characters in one add is over the limit of {limit:,} "
                                "(split them into several add calls, or raise max_add_chars)")


def session_turns(messages: Sequence[Any], *, max_chars: int) -> list[Turn]:
    """The session-buffer turns of a call's stored messages (``role``, ``content``, ``timestamp``, ``name``),
    validated as the buffer validates them (:func:`anchormem.session.buffer.make_turn`). Raises
    InvalidInputError naming the message."""
    turns = []
    for i, m in enumerate(messages):
        raw = {"role": m.role, "content": m.content, "timestamp": m.ts.isoformat(),
               **({"name": m.name} if m.name else {})}
        try:
            turns.append(make_turn(raw, index=i, max_chars=max_chars))
        except InvalidInputError as exc:
            raise InvalidInputError(str(exc).replace("turn ", "message ", 1)) from None
    return turns
