"""Parse chat logs into batches for :meth:`Memory.add`. Pure functions: no I/O except reading the given text.

Every parser returns ``list[Batch]``; a batch is ``(scope_kwargs, messages)`` where ``scope_kwargs`` holds the
keyword arguments for ``Memory.add`` (``user_id``, optional ``session_id``, ``timestamp``, ``metadata``) and
``messages`` is a list of ``{"role", "content", "timestamp"?, "name"?}`` dicts. One batch = one ``add`` call.
OpenAI-style chat messages are taken as they are: tool steps and text-less turns left out, content parts joined
(:func:`anchormem.ingest.normalize.chat_turn`). In a session without a timestamp, a turn without one takes the
previous turn's (``add``).

Formats:

- ``json``: a list of messages, ``{"messages": [...]}``, or a list of sessions
  ``[{"session_id": "s1", "timestamp"?: ISO, "messages": [...]}, ...]`` (also under ``{"sessions": [...]}``).
- ``jsonl``: one message object per line (blank lines ignored); a ``session_id`` key on a line groups it.
- ``locomo``: the LoCoMo benchmark file (a list of samples with ``conversation`` and ``sample_id``): one batch
  per session, timestamp = the session's date, ``name`` = the speaker; each sample becomes
  ``user_id=sample_id`` unless a user is given.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from .errors import InvalidInputError
from .ingest.normalize import chat_turn

__all__ = ["Batch", "FORMATS", "detect_format", "parse", "parse_json", "parse_jsonl", "parse_locomo",
           "parse_locomo_date"]

Batch = tuple[dict[str, Any], list[dict[str, Any]]]
FORMATS = ("json", "jsonl", "locomo")
_MSG_KEYS = ("role", "content", "timestamp", "name")
_ROLE_ALIASES = {"human": "user", "ai": "assistant", "bot": "assistant", "model": "assistant", "gpt": "assistant"}


def _message(raw: Any, where: str) -> dict[str, Any] | None:
    """One message as ``add`` takes it, or None for an OpenAI-style turn without conversation text (a tool step,
    an image alone: :func:`anchormem.ingest.normalize.chat_turn`)."""
    if isinstance(raw, str):
        return {"role": "user", "content": raw}
    if not isinstance(raw, dict):
        raise InvalidInputError(f"{where}: a message must be an object with 'content', got {type(raw).__name__}")
    role = str(raw.get("role") or "user").lower()
    turn = chat_turn({**raw, "role": _ROLE_ALIASES.get(role, role), "content": raw.get("content", raw.get("text"))},
                     where)
    if turn is None:
        return None
    content, role = turn["content"], turn["role"]
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError(f"{where}: message has no 'content' text")
    msg: dict[str, Any] = {"role": role, "content": content}
    ts = raw.get("timestamp", raw.get("created_at"))
    if ts is not None:
        msg["timestamp"] = ts
    name = raw.get("name", raw.get("speaker"))
    if name is not None:
        msg["name"] = str(name)
    return msg


def _messages(raw: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise InvalidInputError(f"{where}: 'messages' must be a list")
    return [m for m in (_message(m, f"{where}, message {i}") for i, m in enumerate(raw)) if m is not None]


def _scope(user_id: str | None, **extra: Any) -> dict[str, Any]:
    if not user_id:
        raise InvalidInputError("this import needs a user: pass --user")
    out: dict[str, Any] = {"user_id": user_id}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def parse_json(data: Any, *, user_id: str | None) -> list[Batch]:
    """Parse already-decoded JSON (see module docstring). Raises InvalidInputError on an unknown shape."""
    if isinstance(data, dict):
        if isinstance(data.get("sessions"), list):
            data = data["sessions"]
        elif "messages" in data:
            msgs = _messages(data["messages"], "messages")
            return [(_scope(user_id, session_id=data.get("session_id"), timestamp=data.get("timestamp")),
                     msgs)] if msgs else []
        else:
            raise InvalidInputError("JSON object must have 'messages' or 'sessions'")
    if not isinstance(data, list):
        raise InvalidInputError(f"expected a JSON list or object, got {type(data).__name__}")
    if not data:
        return []
    if all(isinstance(x, dict) and "messages" in x for x in data):
        batches = []
        for i, s in enumerate(data):
            msgs = _messages(s["messages"], f"session {i}")
            if msgs:
                sid = s.get("session_id")
                batches.append((_scope(user_id, session_id=str(sid) if sid is not None else None,
                                       timestamp=s.get("timestamp")), msgs))
        return batches
    msgs = [m for m in (_message(m, f"message {i}") for i, m in enumerate(data)) if m is not None]
    return [(_scope(user_id), msgs)] if msgs else []


def parse_jsonl(text: str, *, user_id: str | None) -> list[Batch]:
    """One message per line. Consecutive lines with the same ``session_id`` form one batch."""
    batches: list[Batch] = []
    current: str | None = object()  # type: ignore[assignment]  # sentinel: no batch yet
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"line {n}: not valid JSON ({exc.msg})") from exc
        sid = raw.get("session_id") if isinstance(raw, dict) else None
        sid = str(sid) if sid is not None else None
        msg = _message(raw, f"line {n}")
        if msg is None:
            continue
        if sid != current:
            batches.append((_scope(user_id, session_id=sid), []))
            current = sid
        batches[-1][1].append(msg)
    return batches


_LOCOMO_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)


def parse_locomo_date(value: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → ``2023-05-08T13:56:00+00:00``. Raises InvalidInputError."""
    m = _LOCOMO_DATE.match(value or "")
    if not m:
        raise InvalidInputError(f"unrecognised LoCoMo session date {value!r}")
    hh, mm, ampm, day, month, year = m.groups()
    try:
        dt = datetime.strptime(f"{int(hh)}:{mm} {ampm.upper()} {int(day)} {month[:3].title()} {year}",
                               "%I:%M %p %d %b %Y")
    except ValueError as exc:
        raise InvalidInputError(f"unrecognised LoCoMo session date {value!r}: {exc}") from exc
    return dt.replace(tzinfo=timezone.utc)


def _session_numbers(conv: dict[str, Any]) -> list[int]:
    nums = []
    for key, value in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(value, list):
            nums.append(int(m.group(1)))
    return sorted(nums)


_CAPTION_LEAD = re.compile(r"^(?:a )?(?:photo|photography|picture|image) of\s+", re.I)


def locomo_turn_text(turn: dict[str, Any]) -> str:
    """The turn's text, with a shared photo's caption appended as ``[photo: ...]``. The captioner's boilerplate
    lead ("a photo of", "a photography of": every LoCoMo caption starts so) is dropped: it says nothing and
    costs ~6 tokens of embedding per photo turn."""
    text = str(turn.get("text") or "").strip()
    caption = _CAPTION_LEAD.sub("", str(turn.get("blip_caption") or "").strip())
    if caption:
        text = f"{text} [photo: {caption}]".strip()
    return text


def parse_locomo(data: Any, *, user_id: str | None = None) -> list[Batch]:
    """LoCoMo samples → one batch per (sample, session). Speakers become ``name``; every turn is ``role="user"``
    (both LoCoMo speakers are people). Metadata records ``sample_id``, ``session`` and nothing else; sessions
    without turns (conv-26 has empty date-only keys) are skipped."""
    if isinstance(data, dict) and "conversation" in data:
        data = [data]
    if not isinstance(data, list) or not all(isinstance(s, dict) and "conversation" in s for s in data):
        raise InvalidInputError("not a LoCoMo file: expected a list of samples with 'conversation'")
    batches: list[Batch] = []
    for i, sample in enumerate(data):
        conv = sample["conversation"]
        sample_id = str(sample.get("sample_id") or f"sample-{i}")
        uid = user_id or sample_id
        for n in _session_numbers(conv):
            turns = conv[f"session_{n}"]
            msgs = []
            for t in turns:
                text = locomo_turn_text(t)
                if text:
                    msg: dict[str, Any] = {"role": "user", "content": text}
                    if t.get("speaker"):
                        msg["name"] = str(t["speaker"])
                    msgs.append(msg)
            if not msgs:
                continue
            date = conv.get(f"session_{n}_date_time")
            if not date:
                raise InvalidInputError(f"{sample_id}: session_{n} has no session_{n}_date_time")
            batches.append(({"user_id": uid, "session_id": f"session_{n}", "timestamp": parse_locomo_date(date),
                             "metadata": {"sample_id": sample_id, "session": n}}, msgs))
    return batches


_EXPORT_HEAD = re.compile(r'^\{\s*"format"\s*:\s*"anchormem\.export/')
_MEM0_HEAD = re.compile(r'^\{[^\[]*"results"\s*:\s*\[\s*\{[^{}]*"memory"\s*:', re.S)


def detect_format(filename: str, text: str) -> str:
    """Guess ``json``/``jsonl``/``locomo`` from the file name and content; ``anchormem`` for an anchormem export
    (its first key is ``"format": "anchormem.export/..."``) and ``mem0`` for ``{"results": [{"memory": ...}]}``
    (these two are read by :meth:`anchormem.Memory.import_memories`, not by :func:`parse`)."""
    if filename.endswith(".jsonl"):
        return "jsonl"
    head = text.lstrip()[:4000]
    if _EXPORT_HEAD.match(head):
        return "anchormem"
    if _MEM0_HEAD.match(head):
        return "mem0"
    if head.startswith("[") and '"conversation"' in head and '"sample_id"' in text[:200_000]:
        return "locomo"
    if head.startswith("{") and "\n" in text.strip():
        first = text.strip().splitlines()[0]
        try:
            json.loads(first)
            return "jsonl"
        except json.JSONDecodeError:
            pass
    return "json"


def parse(text: str, fmt: str | None = None, *, user_id: str | None = None, filename: str = "") -> list[Batch]:
    """Parse ``text`` in format ``fmt`` (``None``: detect). Raises InvalidInputError."""
    fmt = fmt or detect_format(filename, text)
    if fmt in ("anchormem", "mem0"):
        raise InvalidInputError(f"{fmt} exports are read by Memory.import_memories (anchormem import), not parse")
    if fmt not in FORMATS:
        raise InvalidInputError(f"unknown import format {fmt!r}; formats: {', '.join(FORMATS)}, anchormem, mem0")
    if fmt == "jsonl":
        return parse_jsonl(text, user_id=user_id)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from exc
    if fmt == "locomo":
        return parse_locomo(data, user_id=user_id)
    return parse_json(data, user_id=user_id)
