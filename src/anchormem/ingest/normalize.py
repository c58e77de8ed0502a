"""Validate and normalise what callers pass to ``add``: strings, message dicts, timestamps, scope ids."""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from ..errors import InvalidInputError, ScopeError
from ..timeutil import on_calendar, said_time
from ..types import Message
from ..validate import check_str

__all__ = ["normalize_messages", "normalize_context", "check_text", "check_scope_id", "chat_turn"]

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


def normalize_messages(messages: Any, *, default_time: datetime, max_chars: int,
                       neighbour_times: bool = False) -> list[Message]:
    """Turn ``str | list[dict | Message]`` into validated :class:`Message` objects with aware timestamps.

    Timestamps keep the caller's UTC offset (so relative dates resolve on the speaker's calendar day); convert
    with ``astimezone(timezone.utc)`` before storing. Messages without a timestamp get ``default_time``; with
    ``neighbour_times`` (no time given for the call) they get the previous message's timestamp (the next one's
    before the first timestamped message), and ``default_time`` only when no message has one: a chat log's untimed
    turn was said when the turns around it were, not now. OpenAI-style chat messages are read as
    :func:`chat_turn` reads them (tool steps and text-less turns left out, ``developer`` = ``system``, content
    parts joined). Other unknown keys in a message dict (e.g. ``kind``, ``session_id`` from another system's
    export) are ignored with a :class:`UserWarning`. Raises InvalidInputError naming the bad message, or when no
    message has text.
    """
    if isinstance(messages, (str, bytes, bytearray)):
        messages = [{"role": "user", "content": messages}]
    if isinstance(messages, (dict, Message)):
        messages = [messages]
    if not isinstance(messages, (list, tuple)) or not messages:
        raise InvalidInputError("messages must be a non-empty string or a non-empty list of messages")
    out: list[Message] = []
    untimed: list[int] = []  # positions in ``out`` of messages without a timestamp
    for i, raw in enumerate(messages):
        if isinstance(raw, Message):
            raw = raw.model_dump()
        if not isinstance(raw, dict):
            raise InvalidInputError(f"message {i}: expected a dict with role and content, got {type(raw).__name__}")
        raw = chat_turn(raw, f"message {i}")
        if raw is None:
            continue
        unknown = sorted(str(k) for k in raw if k not in _MESSAGE_KEYS)
        if unknown:
            for k in list(raw):
                if k not in _MESSAGE_KEYS:
                    del raw[k]
            warnings.warn(f"anchormem: message {i}: ignoring unknown keys {', '.join(unknown)}", UserWarning,
                          stacklevel=4)
        if "content" not in raw:  # ({"text": ...}: the unknown key is dropped above, with a warning)
            raise InvalidInputError(f"message {i}: missing 'content' (a message is a dict with 'role' and 'content'"
                                    + (f"; got keys {', '.join(unknown)}" if unknown else "") + ")")
        raw["content"] = check_text(raw.get("content"), what=f"message {i} content", max_chars=max_chars)
        if isinstance(raw.get("name"), str):
            check_str(raw["name"], f"message {i} name")
            if len(raw["name"]) > 256:
                raise InvalidInputError(f"message {i} name: {len(raw['name']):,} characters is over the limit of 256")
        ts = raw.get("timestamp")
        if ts is None:
            untimed.append(len(out))
        raw["timestamp"] = on_calendar(said_time(ts, field=f"message {i} timestamp")) if ts is not None else default_time
        try:
            out.append(Message(**raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(x) for x in first["loc"])
            raise InvalidInputError(f"message {i}: {loc}: {first['msg']}") from exc
    if not out:
        raise InvalidInputError("no message has conversation text: every one is a tool step or has no text part")
    if neighbour_times and untimed and len(untimed) < len(out):
        _fill_times(out, set(untimed))
    return out


def _fill_times(out: list[Message], untimed: set[int]) -> None:
    """Untimed messages take the previous timed message's timestamp, leading ones the first timed one's."""
    first = next(m.timestamp for j, m in enumerate(out) if j not in untimed)
    last = first
    for j, m in enumerate(out):
        if j in untimed:
            m.timestamp = last
        else:
            last = m.timestamp


_MESSAGE_KEYS = frozenset(Message.model_fields)
_CHAT_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id", "refusal", "audio", "annotations"})
_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})


def chat_turn(raw: dict[str, Any], where: str) -> dict[str, Any] | None:
    """An OpenAI-style chat message as a turn ``add`` stores: None for a tool step (a tool's result, an assistant
    message that only calls tools) or a turn whose content parts hold no text (an image alone: nothing to
    remember); role ``developer`` read as ``system``; ``content`` as a list of parts (``{"type": "text", "text":
    ...}``, also ``input_text`` / ``output_text``) becomes their texts joined by newlines, other parts (images,
    audio, files) left out; the protocol's own keys (``tool_calls``, ``tool_call_id``, ``refusal``…) dropped.
    Raises InvalidInputError (``where`` names the message) for an empty list of parts, a part that is not an object
    with a ``type``, or a text part without a string ``text``."""
    if _tool_step(raw):
        return None
    turn = {k: v for k, v in raw.items() if k not in _CHAT_KEYS}
    if turn.get("role") == "developer":
        turn["role"] = "system"
    parts = turn.get("content")
    if isinstance(parts, list):
        if not parts:
            raise InvalidInputError(f"{where} content: empty list of content parts")
        texts = []
        for j, part in enumerate(parts):
            if not isinstance(part, dict) or not isinstance(part.get("type"), str):
                raise InvalidInputError(f"{where} content[{j}]: a content part must be an object with a 'type', "
                                        f"got {type(part).__name__}")
            if part["type"] in _TEXT_PARTS:
                texts.append(part.get("text"))
        if not texts:
            return None  # images, audio, files only
        if not all(isinstance(t, str) for t in texts):
            raise InvalidInputError(f"{where} content: a text part's 'text' must be a string")
        turn["content"] = "\n".join(t for t in texts if t.strip())  # blank parts alone: an empty text, refused
    return turn


def normalize_context(context: Any, *, default_time: datetime, max_chars: int) -> tuple[list[dict], list[Message]]:
    """Check a ``search``/``ask`` conversation and return it twice: as plain turn dicts (the hot cache's key) and
    as validated :class:`Message` objects (oldest first).

    ``context``: None or any iterable (list, tuple, generator: read once) of turns, each a non-blank ``str`` (a
    user turn) or a message dict / :class:`Message` as ``add`` takes them; ``bytes`` are decoded as UTF-8, strictly,
    as ``add`` and ``search`` decode them. None or an empty iterable is no conversation. Raises InvalidInputError
    for a bare ``str``/``bytes`` (it would be read as one turn per character), a dict or another non-iterable in
    place of the list, and, naming the turn (``context[i]``), invalid UTF-8, a blank turn, or a turn of another
    type. Turns of an OpenAI-style message list without conversation text are left out, by shape alone
    (:func:`chat_turn`): a message with role ``tool`` or ``function``, an assistant message whose ``content`` is None
    and that carries ``tool_calls`` (or ``function_call``), a turn whose content parts hold no text; so a chat's
    ``messages`` can be passed as they are.
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
        if isinstance(turn, dict):
            turn = chat_turn(turn, f"context[{i}]")
            if turn is None:
                continue
        if not isinstance(turn, (str, bytes, bytearray, dict)):
            raise InvalidInputError(f"context[{i}]: expected a str or a message dict, got {type(turn).__name__}")
        text = turn.get("content") if isinstance(turn, dict) else turn
        if isinstance(text, (bytes, bytearray)):  # UTF-8, strictly, as add and search take it
            text = check_text(text, what=f"context[{i}]", max_chars=max_chars)
            turn = {**turn, "content": text} if isinstance(turn, dict) else text
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
