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
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .facts.commitments import is_commitment
from .facts.grounding import _negated, check_support
from .facts.rules import extract_from_text
from .llms.jsonparse import parse_json_reply
from .text.entities import extract_entities
from .text.segment import split_sentences
from .text.tokenize import content_words

__all__ = ["SummaryLine", "Summary", "summarize_messages", "summarize_with_llm", "session_summary_memory",
           "SECTIONS"]

SECTIONS = ("facts", "agreements", "todos", "details")
_AGREED = ("agree", "decided", "deal", "同意", "约定", "说好", "商定", "决定")
_DETAIL_TYPES = {"money", "number", "date", "time", "phone", "email"}
_HEAD = {"facts": "Facts", "agreements": "Agreements", "todos": "To do", "details": "Details"}


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
                       topic_words: int = 5, max_lines: int = 40) -> Summary:
    """Offline, extractive summary of stored messages (dicts with ``id``, ``role``, ``name``, ``content``, oldest
    first): verbatim sentences sorted into sections; the first ``max_lines`` qualifying sentences are kept."""
    s = Summary(session_id=session_id, messages=len(messages))
    words: Counter[str] = Counter()
    for m in messages:
        if m.get("role") not in ("user", "assistant"):
            continue
        for sent in split_sentences(m.get("content") or ""):
            words.update(w for w in content_words(sent) if len(w) > 1)
            sec = _section(sent, m["role"])
            if sec and len(s.lines) < max_lines:
                s.lines.append(SummaryLine(sec, sent, m["id"], m.get("name") or (
                    "assistant" if m["role"] == "assistant" else None)))
    s.topic = [w for w, _ in words.most_common(topic_words)]
    return s


_PROMPT = """Summarise this conversation session for a long-term memory, in the conversation's own language.
Return ONE JSON object: {"topic": [up to 5 keywords], "lines": [{"section": "facts"|"agreements"|"todos"|"details",
"text": "...", "message": <the [n] number of the message it comes from>}]}.
facts: what the user states about themself; agreements: decisions both sides made; todos: promises and
reminders with their dates; details: other numbers, amounts and dates. Keep every number, date, name and
negation exactly as written. Never add anything that is not in the cited message. No prose, no code fence."""


def summarize_with_llm(llm: Any, messages: list[dict[str, Any]], *, session_id: str | None = None,
                       embedder: Any = None) -> Summary:
    """LLM summary; every line is checked against the message it cites and dropped when unsupported (or when
    it cites no message). Raises LLMParseError / LLMError like the fact extractor."""
    shown = [m for m in messages if m.get("role") in ("user", "assistant") and (m.get("content") or "").strip()]
    convo = "\n".join(f"[{i}] {m['role']}{(' ' + m['name']) if m.get('name') else ''}: {m['content']}"
                      for i, m in enumerate(shown, 1))
    reply = llm.complete([{"role": "system", "content": _PROMPT}, {"role": "user", "content": convo}],
                         temperature=0.0, max_tokens=1024)
    data = parse_json_reply(reply, expect="object").value
    s = Summary(session_id=session_id, messages=len(messages))
    s.topic = [str(t) for t in (data.get("topic") or [])][:5] if isinstance(data, dict) else []
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
    return s


def summary_metadata(summary: Summary) -> dict[str, Any]:
    """The JSON-safe metadata stored with a summary memory (metadata values must be scalars: lines as JSON)."""
    return {"summary_session": summary.session_id or "", "summary_lines": json.dumps(
        [ln.__dict__ for ln in summary.lines], ensure_ascii=False), "summary_messages": summary.messages}


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
    from .stores.protocol import NewMemory
    from .text.tokenize import index_text
    from .types import MemoryItem, Scope

    from .timeutil import utcnow

    user_scope = Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id)
    session_items = store.list_memories(scope, None)
    when = now or utcnow()
    # only turns that a current, unexpired memory still stands for: deleted, expired, quarantined or chit-chat
    # turns stay out of the summary
    alive = {mid for m in session_items if m.kind != "summary" and not (m.expires_at is not None and
                                                                        m.expires_at <= when)
             for mid in m.source_message_ids}
    msgs = [m for m in store.messages(user_scope) if m.get("session_id") == scope.session_id and m["id"] in alive]
    if not msgs:
        return None
    summary = summarize_with_llm(llm, msgs, session_id=scope.session_id, embedder=embedder) if llm is not None \
        else summarize_messages(msgs, session_id=scope.session_id)
    if not summary.lines:
        return None
    old = [m.id for m in session_items if m.kind == "summary"]
    cited = set(summary.message_ids)
    near = [m.id for m in session_items if m.kind != "summary" and cited & set(m.source_message_ids)]
    vecs = list(store.get_vectors(scope.tenant, near).values()) if near else []
    if vecs:
        v = np.mean(np.vstack(vecs), axis=0)
        vec = (v / (np.linalg.norm(v) or 1.0)).astype(np.float32)
    else:
        vec = np.asarray(embedder.embed_documents([summary.render()[:600]])[0], dtype=np.float32)
    last = max(datetime_of(m["timestamp"]) for m in msgs)
    text = summary.render()
    item = MemoryItem(id=uuid.uuid4().hex, text=text, tenant=scope.tenant, user_id=scope.user_id,
                      agent_id=scope.agent_id, session_id=scope.session_id, kind="summary", role="system",
                      source="inferred", created_at=last, valid_from=last, confidence=1.0 if llm is None else 0.8,
                      metadata=summary_metadata(summary), source_message_ids=summary.message_ids,
                      source_text="\n".join(ln.text for ln in summary.lines))
    return NewMemory(item, vec, content_hash(text, kind="summary", source="inferred", speaker=None),
                     index_text(text), old)


def datetime_of(value: Any) -> Any:
    """An aware UTC datetime from a stored message's ISO timestamp (or a datetime)."""
    from datetime import datetime, timezone

    dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
