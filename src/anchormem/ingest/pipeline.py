"""Draft memories from normalised messages, without any LLM.

- user turns → verbatim ``utterance`` memories (``question`` when the turn only asks), split into chunks of
  at most ``chunk_chars`` characters on sentence boundaries;
- assistant turns → ``assistant`` memories with ``source="assistant"``: context, never user facts;
- system turns and chit-chat → nothing;
- every memory keeps its provenance (source message id and verbatim turn), the turn's timestamp, the first
  date it mentions resolved against that timestamp (``event_time``/``event_time_end``), and its entities.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..stores.protocol import StoredMessage
from ..text.dates import resolve_dates
from ..text.entities import extract_entities
from ..text.segment import chunk_text
from ..text.tokenize import index_text
from ..types import MemoryItem, Message, Scope
from .classify import content_hash, is_chitchat, is_question

__all__ = ["Draft", "Prepared", "draft_memories"]


@dataclass
class Draft:
    """A memory before embedding: the item, its dedupe hash and its keyword-index text."""

    item: MemoryItem
    content_hash: str
    index_text: str


@dataclass
class Prepared:
    """Everything one ``add`` call will write: raw messages, drafts, and what was skipped (with reasons)."""

    messages: list[StoredMessage] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)


def draft_memories(messages: list[Message], *, scope: Scope, metadata: dict[str, Any] | None, now: datetime,
                   chunk_chars: int = 600) -> Prepared:
    """Build drafts for ``messages`` (already validated; timestamps aware, in any UTC offset).

    Relative dates resolve on the speaker's calendar day (the timestamp's own offset); everything stored is UTC.
    """
    out = Prepared()
    meta = dict(metadata or {})
    for i, msg in enumerate(messages):
        msg_id = uuid.uuid4().hex
        local_ts = msg.timestamp or now
        ts = local_ts.astimezone(timezone.utc)
        msg_meta = {**meta, **msg.metadata} if msg.metadata else meta
        if msg.role == "system":
            out.skipped.append((i, "system message"))
            continue
        out.messages.append(StoredMessage(id=msg_id, scope=scope, role=msg.role, content=msg.content, ts=ts,
                                          name=msg.name, metadata=msg_meta))
        if is_chitchat(msg.content):
            out.skipped.append((i, "chit-chat"))
            continue
        if msg.role == "assistant":
            kind, source = "assistant", "assistant"
        else:
            kind, source = ("question" if is_question(msg.content) else "utterance"), "user"
        for chunk in chunk_text(msg.content, chunk_chars):
            if is_chitchat(chunk):
                continue
            dates = resolve_dates(chunk, local_ts)
            item = MemoryItem(
                id=uuid.uuid4().hex, text=chunk, tenant=scope.tenant, user_id=scope.user_id,
                agent_id=scope.agent_id, session_id=scope.session_id, kind=kind, role=msg.role, speaker=msg.name,
                source=source, created_at=ts, event_time=dates[0].start if dates else None,
                event_time_end=dates[0].end if dates else None, valid_from=ts,
                confidence=1.0 if source == "user" else 0.5, entities=extract_entities(chunk, dates),
                metadata=dict(msg_meta), source_message_ids=[msg_id], source_text=msg.content,
            )
            out.drafts.append(Draft(item, content_hash(chunk, kind=kind, source=source, speaker=msg.name),
                                    index_text(chunk + (" " + msg.name if msg.name else ""))))
    return out
