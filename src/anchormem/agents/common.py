"""What both reference agents share: turning a turn into ``Memory.add`` messages with per-sentence metadata,
citation lines, and the grounded LLM rewrite of an offline reply.

Everything here uses the public :class:`anchormem.Memory` API and plain data. The LLM rewrite follows
:meth:`anchormem.Memory.ask`: the model sees only the memories the reply cites, must cite them by label, and its
reply is checked (:func:`anchormem.facts.grounding.check_support`): a number, month/weekday or capitalised name
that is in neither the offline draft nor a cited memory, an unknown citation, or an unparseable reply returns
the offline draft unchanged.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from ..errors import InvalidInputError, LLMError, LLMParseError
from ..facts.grounding import check_support
from ..llms.jsonparse import parse_json_reply
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk
from ..timeutil import to_aware, utcnow
from ..types import MemoryItem
from .templates import fmt_date, quoted, render

__all__ = ["AgentReply", "plan_messages", "turn_time", "cite", "grounded_rewrite", "REWRITE_PROMPT"]

log = logging.getLogger("anchormem")
_ABBREV = re.compile(r"\b(?:No|Nr|Dr|Mr|Mrs|Ms|Prof|St|vs|etc|approx|Inc|Ltd|Co|e\.g|i\.e)\.$", re.I)


@dataclass
class AgentReply:
    """One reply of a reference agent.

    ``text``: the reply (lines joined by newlines; ``lines`` holds them). ``citations``: the memories quoted,
    in order (every quote in ``text`` is one of them). ``events``: what ``Memory.add`` did with the turn.
    ``metadata``: JSON-ready details (stage, ids of citations, raised commitments, review ids… per agent).
    ``llm``: True when an LLM wrote ``text`` (and it passed the grounding check).
    """

    text: str
    lines: list[str]
    citations: list[MemoryItem] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    llm: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: text, lines, metadata, and each citation as ``{id, text, speaker, date}``."""
        return {"text": self.text, "lines": self.lines, "llm": self.llm, "metadata": self.metadata,
                "citations": [{"id": m.id, "text": m.text, "speaker": m.speaker, "kind": m.kind,
                               "date": m.created_at.isoformat()} for m in self.citations]}


def turn_time(at: datetime | str | None) -> datetime:
    """The turn's time, keeping its UTC offset (so dates in replies are the speaker's local days); default the
    library clock. Raises InvalidInputError for a bad timestamp."""
    return to_aware(at, field="at") if at is not None else utcnow()


def plan_messages(text: str, *, at: datetime, name: str | None,
                  classify: Callable[[str], dict[str, Any]]) -> list[dict[str, Any]]:
    """``Memory.add`` messages for one user turn: the turn split into sentences (not after an abbreviation such
    as "No." or "Dr.", nor before a fragment of three characters or less), each given metadata by
    ``classify(sentence)``, consecutive sentences with the same metadata joined again (a turn whose sentences
    all agree stays one verbatim message). Raises InvalidInputError for an empty turn."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("a turn needs non-empty text")
    sentences: list[str] = []
    for piece in split_sentences(text) or [text.strip()]:
        if sentences and (_ABBREV.search(sentences[-1]) or len(re.sub(r"\W", "", piece)) <= 3):
            sentences[-1] += " " + piece  # "Fund No. 3 yielded…" was split after "No.": keep it whole
        else:
            sentences.append(piece)
    out: list[dict[str, Any]] = []
    for sentence in sentences:
        meta = classify(sentence)
        if out and out[-1]["metadata"] == meta:
            sep = "" if has_cjk(sentence[:1]) or has_cjk(out[-1]["content"][-1:]) else " "
            out[-1]["content"] += sep + sentence
            continue
        msg: dict[str, Any] = {"role": "user", "content": sentence, "timestamp": at, "metadata": meta}
        if name:
            msg["name"] = name
        out.append(msg)
    return out


def cite(template: str, item: MemoryItem, lang: str, tz: tzinfo | None, **fields: Any) -> str:
    """One citation line: the reply template ``template`` (:mod:`.templates`) filled with the day the memory was
    said (``date``, in ``tz``), its verbatim text (``text``) and ``fields``."""
    return render(template, lang, date=fmt_date(item.created_at, lang, tz), text=quoted(item.text), **fields)


REWRITE_PROMPT = (
    "You are {role}. Rewrite the draft reply below as one natural, friendly message in {language}, addressed to "
    "{name}. Rules: use only what the draft and the listed memories say; never add numbers, dates, names, "
    "promises or details that are not in them; keep quotes from memories exact. Cite the label of every "
    "memory you use. Reply with JSON only: "
    '{{"reply": "...", "cited_ids": ["m1"]}}.'
)
_LANG = {"en": "English", "zh": "Chinese (简体中文)"}
# capitalised openers the grounding check would otherwise read as names ("Thanks Maya" is not a name)
_COURTESY = "thanks thank you sure great hello hi dear sorry okay ok of course noted understood certainly welcome"
_SCHEMA = {"title": "agent_reply", "type": "object", "additionalProperties": False,
           "properties": {"reply": {"type": "string"}, "cited_ids": {"type": "array", "items": {"type": "string"}}}}


def _date_words(m: MemoryItem) -> str:
    d = m.created_at
    return f"{d.date().isoformat()} {d.day} {d.strftime('%B %b %A %Y')} {d.year}年{d.month}月{d.day}日"


def grounded_rewrite(llm: Any, *, draft: str, memories: list[MemoryItem], lang: str, role: str,
                     name: str, context: str = "") -> tuple[str, list[MemoryItem] | None]:
    """Ask ``llm`` to rewrite ``draft`` naturally from ``memories`` only. ``context``: optional conversation
    context shown to the model (e.g. a :func:`anchormem.session.build_context` block); it counts as a source in
    the check, so pass only what this reader may see. Returns ``(text, cited)``: the checked LLM text and the
    memories it cited, or ``(draft, None)`` when the reply fails a check (unparseable, unknown citation, a
    number/date/name in neither the draft, the context nor a cited memory; courtesy openers such as "Thanks" or
    "Sure" are not names) or the endpoint fails. Never raises on a bad reply."""
    labelled = {f"m{i}": m for i, m in enumerate(memories, start=1)}
    mems = "\n".join(json.dumps({"id": k, "speaker": m.speaker or "user", "date": m.created_at.date().isoformat(),
                                 "text": m.text}, ensure_ascii=False) for k, m in labelled.items())
    messages = [{"role": "system", "content": REWRITE_PROMPT.format(role=role, language=_LANG.get(lang, lang),
                                                                    name=name)},
                {"role": "user", "content": (f"Conversation context:\n{context}\n\n" if context else "")
                 + f"Memories:\n{mems or '(none)'}\n\nDraft reply:\n{draft}"}]
    try:
        reply = parse_json_reply(llm.complete(messages, json_schema=_SCHEMA, temperature=0.2, max_tokens=500),
                                 expect="object").value
    except (LLMError, LLMParseError) as exc:
        log.warning("anchormem agent: LLM reply failed (%s); using the offline reply", exc)
        return draft, None
    text, ids = (reply.get("reply"), reply.get("cited_ids") or []) if isinstance(reply, dict) else (None, None)
    if not isinstance(text, str) or not text.strip() or not isinstance(ids, list):
        return draft, None
    cited = [labelled.get(str(i).strip()) for i in ids]
    if any(m is None for m in cited):
        log.info("anchormem agent: LLM cited an unknown memory %r; using the offline reply", ids)
        return draft, None
    quotes = "\n".join(f"{m.speaker or ''} {m.text} {_date_words(m)}" for m in cited if m is not None)
    source = "\n".join((draft, context, name, _COURTESY, quotes))
    bad = [r for r in check_support(text, source).reasons
           if r.startswith(("number", "date word", "name not in source"))]
    if bad:
        log.info("anchormem agent: LLM reply not grounded (%s); using the offline reply", "; ".join(bad))
        return draft, None
    return text.strip(), [m for m in cited if m is not None]
