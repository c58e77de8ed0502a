"""Structured session summaries that keep numbers, dates and negations, each line linked to its messages.

A summary has sections: ``topic`` (the session's most frequent content words), ``facts`` (what the user stated
about themself: the rule extractor fires on the sentence), ``agreements`` (decisions: "we agreed", "双方同意"),
``todos`` (promises and reminders, see :mod:`anchormem.facts.commitments`) and ``details`` (other sentences
carrying a number, an amount or a date). The user's negated statements ("I don't eat meat any more",
"我不喝咖啡了") count as facts. Offline, every line is a **verbatim sentence** of one stored message,
so numbers and negations survive by construction. With an LLM, the model writes the lines (same sections, the
input's language) and each must cite the message it comes from; a line that
:func:`anchormem.facts.grounding.check_support` finds unsupported by that message is dropped (and counted).

Summaries are stored as ``kind="summary"``, ``source="inferred"`` memories of the session: the text is the
rendered summary, ``source_message_ids`` lists every cited message, ``metadata["summary"]`` holds the lines.
A newer summary of the same session supersedes the older one. :meth:`anchormem.Memory.summarize` makes one on
demand (call it at session end); ``add`` makes one every ``summary_every`` turns of a session (default 20).

**Rolling.** A new summary reads only the session's messages after the last one the current summary covered
(``metadata["summary_until"]``) and merges its lines into the current summary's (lines whose message was
deleted, expired or superseded since are left out): the text work no longer grows with the session (reading
its memories, to know which turns are current, still does) and an LLM prompt stays bounded (``window`` messages
per call, :func:`summarize_with_llm`). Topic words are counted across the whole session
(``metadata["summary_topic_counts"]``). Over ``max_lines`` (40), lines are given up by section, *details*
first, then facts, agreements and todos, the oldest of a section first: the summary of a long session keeps
its latest state instead of its first 40 sentences. With no current summary (the first one, or after a
delete dropped it), the whole session is read.

**LLM failure.** When the LLM cannot be used for a summary stored by :func:`session_summary_memory` (the endpoint
fails or times out, or its reply holds no usable JSON after repair), that part of the summary is made offline
instead (logged at WARNING): a summary written by ``add`` after its memories are stored never fails the add.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .errors import LLMError, LLMParseError
from .facts.commitments import is_commitment
from .facts.grounding import _negated, check_support
from .facts.rules import extract_from_text
from .llms.jsonparse import parse_json_reply
from .text.entities import extract_entities
from .text.segment import split_sentences
from .text.tokenize import query_terms

__all__ = ["SummaryLine", "Summary", "summarize_messages", "summarize_with_llm", "session_summary_memory",
           "merge_summaries", "SECTIONS", "SUMMARY_SCHEMA"]

SECTIONS = ("facts", "agreements", "todos", "details")
_AGREED = ("agree", "decided", "deal", "同意", "约定", "说好", "商定", "决定")
_DETAIL_TYPES = {"money", "number", "date", "time", "phone", "email"}
_HEAD = {"facts": "Facts", "agreements": "Agreements", "todos": "To do", "details": "Details"}
_GIVE_UP = ("details", "facts", "agreements", "todos")  # over max_lines, lines are given up in this order
MAX_LINES = 40
_TOPIC_COUNTS_KEPT = 100  # topic word counts carried from one summary to the next


@dataclass
class SummaryLine:
    """One summary line: ``text`` (verbatim offline), its section, speaker and the message id it comes from."""

    section: str
    text: str
    message_id: str
    speaker: str | None = None


@dataclass
class Summary:
    """A session summary. ``lines`` in conversation order per section; ``dropped``: LLM lines without support."""

    session_id: str | None
    topic: list[str] = field(default_factory=list)
    lines: list[SummaryLine] = field(default_factory=list)
    messages: int = 0
    dropped: int = 0
    counts: Counter[str] = field(default_factory=Counter)  # topic word counts behind ``topic``

    def render(self) -> str:
        """Plain text, one section per block, e.g. ``Topic: rent, hangzhou`` then ``Facts:`` lines."""
        out = [f"Topic: {', '.join(self.topic)}"] if self.topic else []
        for sec in SECTIONS:
            rows = [ln for ln in self.lines if ln.section == sec]
            if rows:
                out.append(f"{_HEAD[sec]}:")
                out += [f"- {(ln.speaker + ': ') if ln.speaker else ''}{ln.text}" for ln in rows]
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "topic": self.topic, "messages": self.messages,
                "lines": [ln.__dict__ for ln in self.lines]}

    @property
    def message_ids(self) -> list[str]:
        return list(dict.fromkeys(ln.message_id for ln in self.lines))


def _section(sentence: str, role: str) -> str | None:
    if is_commitment(sentence):
        return "agreements" if any(w in sentence.lower() for w in _AGREED) else "todos"
    if role == "user" and (extract_from_text(sentence) or _negated(sentence)):
        return "facts"  # what the user states, negations included ("I don't eat meat any more")
    if any(e.type in _DETAIL_TYPES for e in extract_entities(sentence)):
        return "details"
    return None


def summarize_messages(messages: list[dict[str, Any]], *, session_id: str | None = None,
                       topic_words: int = 5, max_lines: int = MAX_LINES) -> Summary:
    """Offline, extractive summary of stored messages (dicts with ``id``, ``role``, ``name``, ``content``, oldest
    first): verbatim sentences sorted into sections, at most ``max_lines`` kept (given up as in
    :func:`merge_summaries`: details first, the oldest of a section first)."""
    s = Summary(session_id=session_id, messages=len(messages))
    for m in messages:
        if m.get("role") not in ("user", "assistant"):
            continue
        for sent in split_sentences(m.get("content") or ""):
            s.counts.update(w for w in query_terms(sent) if len(w) > 1)  # in order: ties of most_common
            sec = _section(sent, m["role"])
            if sec:
                s.lines.append(SummaryLine(sec, sent, m["id"], m.get("name") or (
                    "assistant" if m["role"] == "assistant" else None)))
    s.lines = _capped(s.lines, max_lines)
    s.topic = [w for w, _ in s.counts.most_common(topic_words)]
    return s


def _capped(lines: list[SummaryLine], max_lines: int) -> list[SummaryLine]:
    """``lines`` (conversation order) without the ones given up past ``max_lines``: whole sections in
    :data:`_GIVE_UP` order, the oldest lines of a section first."""
    extra = len(lines) - max_lines
    if extra <= 0:
        return lines
    gone: set[int] = set()
    for sec in _GIVE_UP:
        for i, ln in enumerate(lines):
            if extra <= 0:
                break
            if ln.section == sec:
                gone.add(i)
                extra -= 1
    return [ln for i, ln in enumerate(lines) if i not in gone]


def merge_summaries(prev: Summary | None, new: Summary, *, max_lines: int = MAX_LINES,
                    topic_words: int = 5) -> Summary:
    """The summary of a session so far: ``prev`` (the current summary, its lines still backed by a message)
    followed by ``new`` (the messages after it), capped at ``max_lines`` (:func:`_capped`); topic words counted
    over both. A line ``new`` repeats verbatim (same section and text) is kept once, at its newest place."""
    prev = prev or Summary(session_id=new.session_id)
    counts = prev.counts + new.counts
    seen = {(ln.section, ln.text) for ln in new.lines}
    lines = [ln for ln in prev.lines if (ln.section, ln.text) not in seen] + new.lines
    merged = Summary(session_id=new.session_id or prev.session_id, lines=lines, messages=prev.messages + new.messages,
                     dropped=prev.dropped + new.dropped, counts=counts,
                     topic=[w for w, _ in counts.most_common(topic_words)])
    merged.lines = _capped(merged.lines, max_lines)
    return merged


_PROMPT = """Summarise this conversation session for a long-term memory, in the conversation's own language.
Return ONE JSON object: {"topic": [up to 5 keywords], "lines": [{"section": "facts"|"agreements"|"todos"|"details",
"text": "...", "message": <the [n] number of the message it comes from>}]}.
facts: what the user states about themself; agreements: decisions both sides made; todos: promises and
reminders with their dates; details: other numbers, amounts and dates. Keep every number, date, name and
negation exactly as written. Never add anything that is not in the cited message. No prose, no code fence."""

SUMMARY_SCHEMA: dict = {
    "title": "summary", "type": "object", "required": ["lines"],
    "properties": {
        "topic": {"type": "array", "maxItems": 5, "items": {"type": "string"}},
        "lines": {"type": "array", "items": {
            "type": "object", "required": ["section", "text", "message"],
            "properties": {"section": {"type": "string", "enum": list(SECTIONS)}, "text": {"type": "string"},
                           "message": {"type": "integer", "minimum": 1}}}},
    },
}


def summarize_with_llm(llm: Any, messages: list[dict[str, Any]], *, session_id: str | None = None,
                       embedder: Any = None, window: int = 40) -> Summary:
    """LLM summary, one call per ``window`` messages (the prompt stays bounded however long the session), merged
    with :func:`merge_summaries`; every line is checked against the message it cites and dropped when
    unsupported (or when it cites no message). Raises LLMParseError / LLMError like the fact extractor, and
    LLMParseError when a window's reply yields no line while it was cut off or had only unsupported lines (a model
    that never closes its JSON or makes everything up gives no summary, not an empty one)."""
    shown = [m for m in messages if m.get("role") in ("user", "assistant") and (m.get("content") or "").strip()]
    out = Summary(session_id=session_id)
    step = max(window, 1)
    for start in range(0, len(shown), step):
        out = merge_summaries(out, _llm_window(llm, shown[start:start + step], session_id=session_id,
                                               embedder=embedder))
    out.messages = len(messages)
    return out


def _llm_window(llm: Any, shown: list[dict[str, Any]], *, session_id: str | None, embedder: Any) -> Summary:
    """One LLM call over ``shown`` (user/assistant messages with text, oldest first)."""
    convo = "\n".join(f"[{i}] {m['role']}{(' ' + m['name']) if m.get('name') else ''}: {m['content']}"
                      for i, m in enumerate(shown, 1))
    reply = llm.complete([{"role": "system", "content": _PROMPT}, {"role": "user", "content": convo}],
                         json_schema=SUMMARY_SCHEMA, temperature=0.0, max_tokens=1024)
    parsed = parse_json_reply(reply, expect="object")
    data = parsed.value
    s = Summary(session_id=session_id, messages=len(shown))
    s.topic = [str(t) for t in (data.get("topic") or [])][:5] if isinstance(data, dict) else []
    s.counts = Counter(s.topic)
    for ln in (data.get("lines") or []) if isinstance(data, dict) else []:
        try:
            idx, sec, text = int(ln.get("message")) - 1, str(ln.get("section")), str(ln.get("text") or "").strip()
        except (AttributeError, TypeError, ValueError):
            s.dropped += 1
            continue
        if sec not in SECTIONS or not text or not 0 <= idx < len(shown) or \
                not check_support(text, shown[idx]["content"], embedder=embedder).ok:
            s.dropped += 1
            continue
        m = shown[idx]
        s.lines.append(SummaryLine(sec, text, m["id"], m.get("name") or (
            "assistant" if m["role"] == "assistant" else None)))
    if not s.lines and (parsed.truncated or s.dropped):
        # a reply cut off before its first line, or whose every line was unsupported, is no summary
        raise LLMParseError(f"no usable summary line in the LLM reply ({'cut off' if parsed.truncated else ''}"
                            f"{'; ' if parsed.truncated and s.dropped else ''}"
                            f"{f'{s.dropped} unsupported' if s.dropped else ''})")
    return s


def summary_metadata(summary: Summary, until: str | None = None) -> dict[str, Any]:
    """The JSON-safe metadata stored with a summary memory (metadata values must be scalars: lines and topic
    counts as JSON). ``until``: the id of the last message the summary covers (the next one starts after it)."""
    meta = {"summary_session": summary.session_id or "", "summary_lines": json.dumps(
        [ln.__dict__ for ln in summary.lines], ensure_ascii=False), "summary_messages": summary.messages,
        "summary_topic_counts": json.dumps(dict(summary.counts.most_common(_TOPIC_COUNTS_KEPT)),
                                           ensure_ascii=False)}
    if until is not None:
        meta["summary_until"] = until
    return meta


def _stored_summary(meta: dict[str, Any]) -> Summary:
    """A :class:`Summary` back from :func:`summary_metadata` (lines, topic counts, message count)."""
    lines = [SummaryLine(**{k: ln.get(k) for k in ("section", "text", "message_id", "speaker")})
             for ln in json.loads(meta.get("summary_lines") or "[]") if isinstance(ln, dict)]
    counts = Counter({str(k): int(v) for k, v in json.loads(meta.get("summary_topic_counts") or "{}").items()})
    return Summary(session_id=meta.get("summary_session") or None, lines=lines, counts=counts,
                   topic=[w for w, _ in counts.most_common(5)], messages=int(meta.get("summary_messages") or 0))


def _rolling_start(current: Any, msgs: list[dict[str, Any]], alive: set[str]) -> tuple[Summary | None, int]:
    """(the current summary ``current`` (a summary memory, or None) as a :class:`Summary` with only the lines
    whose message is still ``alive``, the index in ``msgs`` of the first message it does not cover). With no
    current summary, or one from before ``summary_until`` was kept, or whose last message is gone: (None, 0),
    the whole session is read again."""
    meta = (current.metadata or {}) if current is not None else {}
    until = meta.get("summary_until")
    at = next((i for i, m in enumerate(msgs) if m["id"] == until), None) if until else None
    if at is None:
        return None, 0
    prev = _stored_summary(meta)
    prev.lines = [ln for ln in prev.lines if ln.message_id in alive]
    return prev, at + 1


def session_summary_memory(store: Any, scope: Any, *, llm: Any = None, embedder: Any = None,
                           now: Any = None) -> Any:
    """Build the ``NewMemory`` of a session's summary (``scope.session_id`` required), superseding the session's
    current summary, or None when the session has no message or nothing worth a line.

    The summary's vector is the normalised mean of the vectors of the session's memories that its lines cite
    (no extra embedding; it sits where its content sits), else an embedding of its text.
    """
    import uuid

    import numpy as np

    from .ingest.classify import content_hash
    from .summary_currency import closed_facts, current_lines, held_now
    from .stores.protocol import NewMemory
    from .text.tokenize import index_text
    from .types import MemoryItem, Scope

    from .timeutil import utcnow

    user_scope = Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id)
    when = now or utcnow()
    session_items = held_now(store, scope, when)  # (what a value scheduled ahead replaces holds until its date)
    # only turns that a current, unexpired memory still stands for: deleted, expired, quarantined or chit-chat
    # turns stay out of the summary
    alive = {mid for m in session_items if m.kind != "summary" and not (m.expires_at is not None and
                                                                        m.expires_at <= when)
             for mid in m.source_message_ids}
    msgs = [m for m in store.messages(user_scope, session_id=scope.session_id) if m["id"] in alive]
    if not msgs:
        return None
    current = [m for m in session_items if m.kind == "summary"]
    prev, start = _rolling_start(max(current, key=lambda m: m.created_at) if current else None, msgs, alive)
    window = msgs[start:]
    part = None
    if llm is not None:
        try:
            part = summarize_with_llm(llm, window, session_id=scope.session_id, embedder=embedder)
        except LLMError as exc:  # the endpoint or its reply failed: the offline summary instead, never a failed add
            logging.getLogger("anchormem").warning("LLM summary failed (%s); summarising offline", exc)
    if part is None:
        part = summarize_messages(window, session_id=scope.session_id)
    summary = merge_summaries(prev, part)
    summary.lines = current_lines(summary.lines, session_items, closed_facts(store, scope))  # the current state
    if not summary.lines:
        return None
    old = [m.id for m in current]
    cited = set(summary.message_ids)
    near = [m.id for m in session_items if m.kind != "summary" and cited & set(m.source_message_ids)]
    vecs = list(store.get_vectors(scope.tenant, near).values()) if near else []
    if vecs:
        v = np.mean(np.vstack(vecs).astype(np.float64), axis=0)  # (float64: the same vector whatever the rows' order)
        vec = (v / (np.linalg.norm(v) or 1.0)).astype(np.float32)
    else:
        vec = np.asarray(embedder.embed_documents([summary.render()[:600]])[0], dtype=np.float32)
    last = max(datetime_of(m["timestamp"]) for m in msgs)
    text = summary.render()
    item = MemoryItem(id=uuid.uuid4().hex, text=text, tenant=scope.tenant, user_id=scope.user_id,
                      agent_id=scope.agent_id, session_id=scope.session_id, kind="summary", role="system",
                      source="inferred", created_at=last, valid_from=last, confidence=1.0 if llm is None else 0.8,
                      metadata=summary_metadata(summary, msgs[-1]["id"]), source_message_ids=summary.message_ids,
                      source_text="\n".join(ln.text for ln in summary.lines))
    return NewMemory(item, vec, content_hash(text, kind="summary", source="inferred", speaker=None),
                     index_text(text), old)


def datetime_of(value: Any) -> Any:
    """An aware UTC datetime from a stored message's ISO timestamp (or a datetime)."""
    from datetime import datetime, timezone

    dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
