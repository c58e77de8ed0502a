"""Validate and normalise what callers pass to ``add``: strings, message dicts, timestamps, scope ids."""

from __future__ import annotations

import logging
import re
import unicodedata
import warnings
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from ..errors import InvalidInputError, ScopeError
from ..timeutil import to_aware
from ..types import Message

__all__ = ["normalize_messages", "normalize_context", "check_text", "check_scope_id"]

log = logging.getLogger("anchormem")


def check_text(text: Any, *, what: str, max_chars: int,
               hint: str = "split the text into several messages, or raise max_message_chars") -> str:
    """Return ``text`` as a clean str or raise InvalidInputError.

    Accepts str or UTF-8 bytes. Rejects empty/whitespace-only text, invalid UTF-8 (incl. lone surrogates) and
    text longer than ``max_chars`` characters (the message ends with ``hint``: what to do instead). NUL characters
    are replaced by spaces; Unicode is NFC-normalised.
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"{what}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    if not isinstance(text, str):
        raise InvalidInputError(f"{what}: expected a string, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{what}: not valid Unicode text ({exc.reason} at index {exc.start})") from exc
    text = unicodedata.normalize("NFC", text.replace("\x00", " "))
    if not text.strip():
        raise InvalidInputError(f"{what}: empty text")
    if len(text) > max_chars:
        raise InvalidInputError(
            f"{what}: {len(text):,} characters is over the limit of {max_chars:,} "
            f"({hint})")
    return text


def check_scope_id(value: Any, name: str, *, required: bool) -> str | None:
    """Scope ids are non-empty strings of at most 256 characters, without control characters (U+0000-U+001F,
    U+007F-U+009F: NUL, tab, newline, escape, ...) or lone surrogates. Raises ScopeError."""
    if value is None:
        if required:
            raise ScopeError(f"{name} is required")
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 256:
        raise ScopeError(f"{name} must be a non-empty string of at most 256 characters, got {value!r:.80}")
    bad = _SCOPE_BAD.search(value)
    if bad is not None:
        what = "a lone surrogate" if "\ud800" <= bad.group() <= "\udfff" else "a control character"
        raise ScopeError(f"{name} must not contain {what} (U+{ord(bad.group()):04X} at index {bad.start()})")
    return value


_SCOPE_BAD = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def normalize_messages(messages: Any, *, default_time: datetime, max_chars: int) -> list[Message]:
    """Turn ``str | list[dict | Message]`` into validated :class:`Message` objects with aware timestamps.

    Timestamps keep the caller's UTC offset (so relative dates resolve on the speaker's calendar day); convert
    with ``astimezone(timezone.utc)`` before storing. Messages without a timestamp get ``default_time``.
    Unknown keys in a message dict (e.g. ``kind``, ``session_id`` from another system's export) are ignored
    with a warning. Raises InvalidInputError naming the bad message.
    """
    if isinstance(messages, (str, bytes, bytearray)):
        messages = [{"role": "user", "content": messages}]
    if isinstance(messages, (dict, Message)):
        messages = [messages]
    if not isinstance(messages, (list, tuple)) or not messages:
        raise InvalidInputError("messages must be a non-empty string or a non-empty list of messages")
    out: list[Message] = []
    for i, raw in enumerate(messages):
        if isinstance(raw, Message):
            raw = raw.model_dump()
        if not isinstance(raw, dict):
            raise InvalidInputError(f"message {i}: expected a dict with role and content, got {type(raw).__name__}")
        raw = dict(raw)
        unknown = sorted(str(k) for k in raw if k not in _MESSAGE_KEYS)
        if unknown:
            for k in list(raw):
                if k not in _MESSAGE_KEYS:
                    del raw[k]
            msg = f"anchormem: message {i}: ignoring unknown keys {', '.join(unknown)}"
            warnings.warn(msg, UserWarning, stacklevel=4)
            log.warning(msg)
        raw["content"] = check_text(raw.get("content"), what=f"message {i} content", max_chars=max_chars)
        ts = raw.get("timestamp")
        raw["timestamp"] = to_aware(ts, field=f"message {i} timestamp") if ts is not None else default_time
        try:
            out.append(Message(**raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(x) for x in first["loc"])
            raise InvalidInputError(f"message {i}: {loc}: {first['msg']}") from exc
    return out


_MESSAGE_KEYS = frozenset(Message.model_fields)


def normalize_context(context: Any, *, default_time: datetime, max_chars: int) -> tuple[list[dict], list[Message]]:
    """Check a ``search``/``ask`` conversation and return it twice: as plain turn dicts (the hot cache's key) and
    as validated :class:`Message` objects (oldest first).

    ``context``: None or any iterable (list, tuple, generator: read once) of turns, each a non-blank ``str`` (a
    user turn) or a message dict / :class:`Message` as ``add`` takes them. None or an empty iterable is no
    conversation. Nothing is decoded or dropped silently; raises InvalidInputError for a bare ``str``/``bytes``
    (it would be read as one turn per character), a dict or another non-iterable in place of the list, and, naming
    the turn (``context[i]``), a ``bytes`` turn or content (decode it first), a blank turn, or a turn of another
    type. Tool steps of an OpenAI-style message list are not turns of the conversation and are left out, by shape
    alone: a message with role ``tool`` or ``function``, and an assistant message whose ``content`` is None and that
    carries ``tool_calls`` (or ``function_call``); so a chat's ``messages`` can be passed as they are.
    """
    if context is None:
        return [], []
    if isinstance(context, (str, bytes, bytearray, dict, Message)) or not isinstance(context, Iterable):
        raise InvalidInputError(
            f"context must be a list of turns (strings or message dicts), not a bare {type(context).__name__}; "
            "for one turn write context=[turn]")
    turns: list[dict] = []
    for i, turn in enumerate(list(context)):
        if isinstance(turn, Message):
            turn = turn.model_dump()
        if _tool_step(turn):
            continue
        if not isinstance(turn, (str, bytes, bytearray, dict)):
            raise InvalidInputError(f"context[{i}]: expected a str or a message dict, got {type(turn).__name__}")
        text = turn.get("content") if isinstance(turn, dict) else turn
        if isinstance(text, (bytes, bytearray)):
            raise InvalidInputError(f"context[{i}]: {type(text).__name__}, not str; decode it first "
                                    "(e.g. .decode('utf-8')): anchormem decodes nothing silently")
        if isinstance(text, str) and not text.strip():
            raise InvalidInputError(f"context[{i}]: blank turn; pass only turns with text (context=None or [] "
                                    "for no conversation)")
        turns.append(dict(turn) if isinstance(turn, dict) else {"role": "user", "content": turn})
    if not turns:
        return [], []
    try:
        return turns, normalize_messages(turns, default_time=default_time, max_chars=max_chars)
    except InvalidInputError as exc:
        raise InvalidInputError(re.sub(r"^message (\d+)", r"context[\1]", str(exc))) from None


def _tool_step(turn: Any) -> bool:
    """An OpenAI-style tool step (a tool's result, or an assistant message that only calls tools): no conversation
    text of its own."""
    if not isinstance(turn, dict):
        return False
    if turn.get("role") in ("tool", "function"):
        return True
    return turn.get("content") is None and bool(turn.get("tool_calls") or turn.get("function_call"))
