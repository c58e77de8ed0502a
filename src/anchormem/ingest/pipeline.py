"""Draft memories from normalised messages, without any LLM.

- user turns → verbatim ``utterance`` memories (``question`` when the turn only asks), split into chunks of
  at most ``chunk_chars`` characters on sentence boundaries;
- assistant turns → ``assistant`` memories with ``source="assistant"``: context, never user facts; an assistant
  turn with nothing of its own (an acknowledgement, the user's words echoed: :mod:`.echo`) → nothing;
- system turns and chit-chat → nothing;
- every memory keeps its provenance (source message id and verbatim turn), the turn's timestamp, the first
  date it mentions resolved against that timestamp (``event_time``/``event_time_end``), and its entities;
- every memory's keyword-index text also carries its retrieval keys (:mod:`.keys`: the question it answers, who
  it is about, its dates as day words), taken from the other messages of the call.
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
from .echo import ECHO_REASON, adds_nothing, said_words
from .keys import DEFAULT_KEY_KINDS, KeyTurn, retrieval_keys

__all__ = ["Draft", "Prepared", "draft_memories", "embedding_text", "time_terms", "skipped_turns", "SKIP_REASONS",
           "ECHO_CODES"]

#: why ``add`` kept nothing from a turn (``MemoryEvent.reason`` of a ``SKIP`` event), by the reason code of
#: :attr:`Prepared.skipped`
SKIP_REASONS = {"chit-chat": "chit-chat: nothing to remember", "system message": "system message: not remembered",
                "nothing new": "nothing new to remember", "assistant echo": ECHO_REASON}
#: the skip codes ``add`` reports even when it stored something else (a ``NOOP`` with the reason): said, not stored
ECHO_CODES = frozenset({"assistant echo"})


def embedding_text(text: str, speaker: str | None) -> str:
    """The text a memory is embedded as: ``"<speaker>: <text>"`` when the speaker is known.

    Who said something is part of what it means: "I went to the support group" said by Caroline must match
    "When did Caroline go to the support group?". Without the name, a small embedder ranks the turns that
    merely *address* Caroline by name above the ones she said (LoCoMo, e5-small: dense R@10 21% → 50%).
    """
    return f"{speaker}: {text}" if speaker else text


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def time_terms(said_at: datetime, dates: list[Any] | None = None) -> str:
    """Keyword-index terms for when a memory was said and when what it mentions happened: month name, year
    and the Chinese form ("May 2023 2023年5月"), so "what did I do in May 2023" / "2023年5月" can match turns
    that never spell out the date ("last week I …" said in May)."""
    days = [said_at] + [d.start for d in (dates or [])[:2]]
    seen: dict[str, None] = {}
    for d in days:
        seen.setdefault(f"{_MONTHS[d.month - 1]} {d.year} {d.year}年{d.month}月", None)
    return " ".join(seen)


@dataclass
class Draft:
    """A memory before embedding: the item, its dedupe hash, its keyword-index text and the text to embed."""

    item: MemoryItem
    content_hash: str
    index_text: str
    embed_text: str = ""
    reuse: "Draft | None" = None  # take this draft's vector instead of embedding (a sentence of that turn)
    said_at: datetime | None = None  # the turn's time in the speaker's own UTC offset (for relative dates)
    carried_by: list[str] = field(default_factory=list)  # stored memories that carry this fact's claim too

    def __post_init__(self) -> None:
        if not self.embed_text:
            self.embed_text = embedding_text(self.item.text, self.item.speaker)


@dataclass
class Prepared:
    """Everything one ``add`` call will write: raw messages, drafts, and what was skipped (with reasons)."""

    messages: list[StoredMessage] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)


def skipped_turns(messages: list[Message], prepared: "Prepared", scope: Scope, now: datetime,
                  codes: frozenset[str] | None = None) -> list[tuple[MemoryItem, str]]:
    """The turns of ``messages`` an ``add`` kept nothing from, each as an unstored memory of its words and the
    reason (:data:`SKIP_REASONS`): those ``prepared`` skipped, else (every turn drafted, nothing written or
    touched) each turn with "nothing new to remember". ``codes``: only the turns skipped for these reason codes."""
    why = dict(prepared.skipped) or {i: "nothing new" for i in range(len(messages))}
    if codes is not None:
        why = {i: c for i, c in why.items() if c in codes}
    out = []
    for i, code in sorted(why.items()):
        m = messages[i]
        ts = (m.timestamp or now).astimezone(timezone.utc)
        kind = "assistant" if m.role == "assistant" else "utterance"
        out.append((MemoryItem(id=uuid.uuid4().hex, text=m.content or " ", tenant=scope.tenant, user_id=scope.user_id,
                               agent_id=scope.agent_id, session_id=scope.session_id, kind=kind, role=m.role,
                               speaker=m.name, source="assistant" if kind == "assistant" else "user", created_at=ts,
                               valid_from=ts, source_text=m.content), SKIP_REASONS.get(code, code)))
    return out


def draft_memories(messages: list[Message], *, scope: Scope, metadata: dict[str, Any] | None, now: datetime,
                   chunk_chars: int = 600, keys: frozenset[str] = frozenset(DEFAULT_KEY_KINDS),
                   before: KeyTurn | None = None, prior: KeyTurn | None = None) -> Prepared:
    """Build drafts for ``messages`` (already validated; timestamps aware, in any UTC offset).

    Relative dates resolve on the speaker's calendar day (the timestamp's own offset); everything stored is UTC.
    ``keys``: the kinds of retrieval keys added to each draft's keyword-index text (:mod:`.keys`; empty: none).
    ``before``: the session's stored turn just before ``messages`` (an agent adds one turn per call: the question
    a reply answers was stored by the call before); it only feeds the keys, nothing is drafted from it.
    ``prior``: that turn for the assistant-echo test (:mod:`.echo`; default ``before``): an assistant turn with no
    content word beyond acknowledgements and the user turns' words (of ``messages`` and ``prior``) is skipped.
    """
    out = Prepared()
    meta = dict(metadata or {})
    turns: list[KeyTurn] = [before] if before is not None else []  # non-system messages, for the retrieval keys
    pending: list[tuple[Draft, int, int, str]] = []  # (draft, turn, chunk, text to index before the keys)
    prior = prior if prior is not None else before
    user_texts = [m.content for m in messages if m.role == "user"] + \
        ([prior.text] if prior is not None and prior.role != "assistant" else [])
    said = None  # their words, taken once for every assistant turn of the call (echo.said_words)
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
        turn = KeyTurn(msg.content, msg.name, role=msg.role)
        turns.append(turn)
        if is_chitchat(msg.content):
            out.skipped.append((i, "chit-chat"))
            continue
        if msg.role == "assistant":
            said = said if said is not None else said_words(user_texts)
            if adds_nothing(msg.content, said):
                out.skipped.append((i, "assistant echo"))
                continue
            kind, source = "assistant", "assistant"
        else:
            kind, source = ("question" if is_question(msg.content) else "utterance"), "user"
        for chunk in chunk_text(msg.content, chunk_chars):
            if chunk != msg.content and is_chitchat(chunk):  # the whole turn was tested above
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
            extra = " ".join(x for x in (msg.name, time_terms(ts, dates)) if x)
            draft = Draft(item, content_hash(chunk, kind=kind, source=source, speaker=msg.name), "",
                          said_at=local_ts)
            pending.append((draft, len(turns) - 1, len(turn.chunk_dates), chunk, extra))
            turn.chunk_dates.append(dates)
            out.drafts.append(draft)
    per_turn = retrieval_keys(turns, keys) if keys else None
    for draft, t, c, chunk, extra in pending:
        draft.index_text = index_text(chunk, extra, per_turn[t][c]) if per_turn else index_text(chunk, extra)
    return out


def reported_results(results: list[Any], news: list[Any]) -> list[Any]:
    """The write ``results`` an ``add`` reports as events: an open claim (a fact memory the relative change reader
    made for older words at change time, :attr:`~anchormem.stores.protocol.NewMemory.carried_by`) that is closed in
    the same write together with every memory carrying it is bookkeeping, not something said or retired on its own:
    its ADD and SUPERSEDE are left out and the carrier's SUPERSEDE tells the change ("我的手机套餐每月59块" ->
    "换了个套餐，每个月39块": one SUPERSEDE of the old utterance, as for a change the rules read). An open claim whose
    carrier stays current for its other words keeps its events (the SUPERSEDE of the words it closed).
    ``results``: :class:`~anchormem.stores.protocol.WriteResult` items; ``news``: the write's ``NewMemory`` items."""
    carriers = {n.item.id: set(n.carried_by) for n in news if getattr(n, "carried_by", None)}
    if not carriers:
        return results
    closed = {r.item.id for r in results if r.event == "SUPERSEDE"}
    hidden = {mid for mid, by in carriers.items() if mid in closed and by and by <= closed}
    return [r for r in results if r.item.id not in hidden or r.event not in ("ADD", "SUPERSEDE")]
