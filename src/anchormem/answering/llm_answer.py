"""Grounded answers with an LLM: the model sees only the memories that passed the evidence test and must
answer from them with their ids, or abstain. The reply is checked; anything unchecked falls back to the
extractive answer (quotes), never to a guess.

Checks on the reply ``{"answer": str, "cited_ids": [...]}`` / ``{"abstain": true}``:

- it parses (one retry with a reminder, then fallback);
- every cited id is one of the memories given (short ``m1``… labels or full ids);
- every number, month/weekday and capitalised name in the answer appears in a cited memory (its text, speaker
  or date) — :func:`anchormem.facts.grounding.check_support`;
- no sentence of the prompt is echoed in the answer.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from ..tracing import staged
from ..errors import LLMError, LLMParseError
from ..facts.grounding import check_support
from ..llms.jsonparse import parse_json_reply
from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem
from ..timeutil import day_of
from .extractive import abstain, quoted

__all__ = ["llm_answer", "SYSTEM_PROMPT", "ANSWER_SCHEMA"]

log = logging.getLogger("anchormem")

SYSTEM_PROMPT = (
    "You answer a user's question strictly from the memories listed below, which are quotes from past "
    "conversations with their id, speaker and date. Rules: use only facts stated in the memories; never add "
    "numbers, dates, names or details that are not in them; cite the id of every memory you used. If the "
    "memories do not answer the question, abstain. Answer in the language of the question, in one or two "
    'short sentences. Reply with JSON only: {"answer": "...", "cited_ids": ["m1"]} or '
    '{"abstain": true}.'
)
_RETRY = ('Your reply was not valid JSON. Reply again with JSON only: {"answer": "...", "cited_ids": ["m1"]} '
          'or {"abstain": true}.')
ANSWER_SCHEMA: dict[str, Any] = {
    "title": "grounded_answer",
    "type": "object",
    "properties": {"answer": {"type": "string"}, "cited_ids": {"type": "array", "items": {"type": "string"}},
                   "abstain": {"type": "boolean"}},
    "additionalProperties": False,
}
_PROMPT_SENTENCES = [s.strip().lower() for s in re.split(r"(?<=[.:;])\s+", SYSTEM_PROMPT + " " + _RETRY)
                     if len(s.strip()) >= 24]


def _date_words(m: MemoryItem) -> str:
    out = []
    for d in (m.created_at, m.event_time, m.event_time_end):
        if d is not None:
            out.append(f"{d.date().isoformat()} {d.day} {d.strftime('%B %b %A %Y')} {d.year}年{d.month}月{d.day}日")
    return " ".join(out)


def _prompt(question: str, mems: list[MemoryItem]) -> list[dict]:
    lines = [json.dumps({"id": f"m{i}", "speaker": m.speaker or ("assistant" if m.source == "assistant" else "user"),
                         "date": day_of(m.created_at), "text": m.text}, ensure_ascii=False)  # the users' calendar
             for i, m in enumerate(mems, start=1)]
    user = "Memories:\n" + "\n".join(lines) + f"\n\nQuestion: {question}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _ask(llm: Any, messages: list[dict]) -> Any:
    """The parsed reply, retrying once on unparseable text. Raises LLMError / LLMParseError."""
    raw = llm.complete(messages, json_schema=ANSWER_SCHEMA, temperature=0.0, max_tokens=400)
    try:
        return parse_json_reply(raw, expect="object").value
    except LLMParseError:
        retry = messages + [{"role": "assistant", "content": raw[:2000]}, {"role": "user", "content": _RETRY}]
        raw = llm.complete(retry, json_schema=ANSWER_SCHEMA, temperature=0.0, max_tokens=400)
        return parse_json_reply(raw, expect="object").value


def _leaks_prompt(answer: str) -> bool:
    a = " ".join(answer.lower().split())
    return any(s in a for s in _PROMPT_SENTENCES) or "cited_ids" in a or '"abstain"' in a


@staged("answer")
def llm_answer(question: str, candidates: list[Hit], fallback: Answer, llm: Any) -> Answer:
    """Ask ``llm`` for a grounded answer from ``candidates`` (the compressed evidence). Returns the checked LLM
    answer, an abstention the LLM chose, or ``fallback`` (the extractive answer) when the reply fails a
    check. Never raises on a bad reply or an unreachable endpoint."""
    mems = [h.memory for h in candidates]
    if not mems:
        return fallback
    try:
        reply = _ask(llm, _prompt(question, mems))
    except (LLMError, LLMParseError) as exc:
        log.warning("anchormem ask: LLM answer failed (%s); using the extractive answer", exc)
        return fallback
    if not isinstance(reply, dict):
        return fallback
    if reply.get("abstain") is True or (not reply.get("answer") and not reply.get("cited_ids")):
        return abstain(question, fallback.evidence)
    text, ids = reply.get("answer"), reply.get("cited_ids")
    if not isinstance(text, str) or not text.strip() or not isinstance(ids, list) or not ids:
        log.info("anchormem ask: LLM reply without answer or citations; using the extractive answer")
        return fallback
    by_id = {f"m{i}": m for i, m in enumerate(mems, start=1)} | {m.id: m for m in mems}
    cited: list[MemoryItem] = []
    for i in ids:
        m = by_id.get(str(i).strip())
        if m is None:
            log.info("anchormem ask: LLM cited unknown id %r; using the extractive answer", i)
            return fallback
        if m not in cited:
            cited.append(m)
    source = "\n".join(f"{m.speaker or ''} {m.text} {_date_words(m)}" for m in cited)
    sup = check_support(text, source)
    bad = [r for r in sup.reasons if r.startswith(("number", "date word", "name not in source"))]
    if bad or _leaks_prompt(text):
        log.info("anchormem ask: LLM answer not grounded (%s); using the extractive answer",
                 "; ".join(bad) or "prompt echoed")
        return fallback
    text = text.strip()
    sep = "" if has_cjk(text[-1:]) or text.endswith((".", "!", "?")) else "."
    quotes, cites = quoted(cited)
    return Answer(text=f"{text}{sep} " + quotes, citations=cites, abstained=False,
                  evidence=fallback.evidence)
