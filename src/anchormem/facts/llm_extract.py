"""Fact extraction with an LLM, parsed robustly and checked against the user's own words.

    result = extract_facts_llm(llm, [{"role": "user", "content": "I moved to Lisbon."}])
    result.facts      # list[Fact] that passed grounding
    result.rejected   # list[Rejected]: items the model returned that were malformed or not supported
    result.errors     # notes: repairs, truncation, retries

The model is asked for ``{"facts": [{entity, attribute, value, polarity, confidence, source_quote}]}``
(``response_format`` json_schema where the server supports it). Replies go through
:func:`anchormem.llms.jsonparse.parse_json_reply`; a reply with no usable JSON (or the wrong shape) is retried
ONCE with a correction message, then LLMParseError is raised: a broken reply never turns into "success,
0 facts". A reply cut off mid-array keeps its complete items (noted in ``errors``).

Only user turns are sources. Assistant turns are shown to the model as context, marked as such, and every
fact is grounded against the user turns only (:func:`anchormem.facts.grounding.check_support`), so nothing
said only by the assistant, or only by this module's own prompt, is ever kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, LLMParseError
from ..llms.jsonparse import parse_json_reply
from ..text.segment import split_sentences
from ..text.tokenize import content_words
from ..types import Message
from .grounding import Support, check_support
from .model import Fact, detect_language, is_sensitive
from .offline import user_turns as _turns
from .rules import _typed_to_person, extract_from_text, hedge_confidence, not_the_speakers

__all__ = ["ExtractionResult", "KNOWN_LIMIT", "Rejected", "extract_facts_llm", "pick_extractor", "FACTS_SCHEMA", "SYSTEM_PROMPT"]

FACTS_SCHEMA: dict = {
    "title": "facts",
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "entity": {"type": "string"},
                    "attribute": {"type": "string"},
                    "value": {"type": "string"},
                    "polarity": {"type": "integer", "enum": [1, -1]},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "source_quote": {"type": "string"},
                    "previous_value": {"type": ["string", "null"]},
                },
                "required": ["entity", "attribute", "value", "polarity", "confidence", "source_quote"],
            },
        },
    },
    "required": ["facts"],
}

SYSTEM_PROMPT = """You extract durable personal facts about the USER from a conversation, for a long-term memory.

Rules:
- Use only what the USER says in turns marked [user]. Turns marked [assistant] are context only: never turn the
  assistant's words into user facts, and never claim the user knows, did or proposed what the assistant said.
- Extract only stable facts: identity, where they live, work, relationships, pets, preferences, dislikes,
  plans, allergies. Small talk, greetings, thanks and questions give no facts: return {"facts": []}.
- entity: "user", or the name of another person/thing the user states a fact about, exactly as written.
- attribute: a short snake_case English key, e.g. name, home_city, employer, occupation, birthday, cat_name,
  favourite_tea; for likes and dislikes use "likes:<thing>" with <thing> in the user's own words.
- value: copied from the user's words, in the SAME language the user wrote (do not translate).
- polarity: 1, or -1 when the user negates it ("I no longer...", "I can't stand...", "我不再...", "我不喜欢...").
- confidence: 1.0 for plain statements; about 0.6 when the user hedges ("maybe", "I think", "可能", "也许", "大概").
- source_quote: the exact sentence of the user's text the fact comes from, copied verbatim.
- A change ("I moved to Berlin", "my rent went up to 1350", "I left X and joined Y", "房租涨到4800", "跳槽到…"):
  give the NEW value with polarity 1, and previous_value = the old value only when the user's words name it
  ("I moved from Lisbon to Berlin" -> "Lisbon"), else null. An ending without a new value ("I quit smoking",
  "not vegetarian anymore", "我辞职了", "我戒烟了") is polarity -1 with the ended thing as value.
- Known facts: when the request lists facts already known about the user, they are for matching only, never a
  source of values. If the user's words change or end one of them (however indirectly: "that era is over, we're in
  Raleigh now", "烟终于戒了"), use that fact's entity and attribute EXACTLY and set previous_value to its known
  value; a fact that only repeats a known one keeps its attribute too.
- Someone else's change, a plan, a wish, a question or a hypothetical ("my friend moved to X", "I might move",
  "Should I move?", "if I moved…") is no fact of the user's: leave it out.
- Never invent values. Never copy anything from these instructions or the example.

Example (illustration only, not part of the conversation):
[user] My sister Ana moved to Porto, and I can't stand loud music.
{"facts": [{"entity": "Ana", "attribute": "home_city", "value": "Porto", "polarity": 1, "confidence": 1.0,
"source_quote": "My sister Ana moved to Porto"}, {"entity": "user", "attribute": "likes:loud music",
"value": "loud music", "polarity": -1, "confidence": 1.0, "source_quote": "I can't stand loud music."}]}

Reply with ONE JSON object {"facts": [...]} and nothing else: no prose, no code fence."""

_RETRY_PROMPT = ("Your previous reply could not be used ({why}). Reply again with only one JSON object of the "
                 'form {{"facts": [...]}} as specified, with valid JSON string escapes and nothing else.')


@dataclass
class Rejected:
    """An item the model returned that was not kept: ``item`` (raw dict, or the Fact built from it) and why."""

    item: Any
    reasons: list[str]


@dataclass
class ExtractionResult:
    """``facts``: grounded facts. ``rejected``: items dropped, with reasons. ``errors``: notes about the reply
    (repairs, truncation, the retry). ``attempts``: LLM calls made (1 or 2). ``truncated``: the kept reply was
    cut off (only its complete items were used)."""

    facts: list[Fact] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    attempts: int = 0
    truncated: bool = False


def _transcript(turns: list[tuple[str, str]]) -> str:
    return "\n".join(f"[{role}] {content}" for role, content in turns if role in ("user", "assistant"))


def _items(value: Any) -> list | None:
    """The list of fact items in a parsed reply, or None when the shape is wrong."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("facts"), list):
            return value["facts"]
        if "attribute" in value and "value" in value:
            return [value]
    return None


def _polarity(v: Any) -> int:
    if isinstance(v, str):
        v = v.strip().lower()
        if v in ("-1", "negative", "neg", "false", "no"):
            return -1
        return 1
    try:
        return -1 if float(v) < 0 else 1
    except (TypeError, ValueError):
        return 1


def _confidence(v: Any) -> float:
    try:
        return min(1.0, max(0.0, float(v)))
    except (TypeError, ValueError):
        return 1.0


def _span(quote: str, source: str) -> str | None:
    """The user sentence a quote comes from: exact (normalised) match, else the sentence sharing most words."""
    q = " ".join(quote.split()).strip()
    sentences = split_sentences(source) or [source]
    if q:
        for s in sentences:
            if q.casefold() in s.casefold() or s.casefold() in q.casefold():
                return s
    return None


def _known_block(known: list[tuple[str, str, str]]) -> str:
    """The known current facts as prompt lines ("- user | home_city | Lisbon"), at most ``KNOWN_LIMIT``."""
    return "\n".join(f"- {e} | {a} | {v}" for e, a, v in known[-KNOWN_LIMIT:])


def _known_previous(prev: str, entity: str, attribute: str, known: list[tuple[str, str, str]]) -> bool:
    """``prev`` is the current value of the same (entity, attribute) among the ``known`` facts (case-insensitive):
    a previous value the model took from the store, checked against the store instead of the turn."""
    p = prev.strip().casefold()
    return any(e.casefold() == entity.casefold() and a == attribute and v.strip().casefold() == p
               for e, a, v in known)


def _build(item: Any, source: str, prompt_text: str, embedder: Any,
           known: list[tuple[str, str, str]] | None = None) -> tuple[Fact | None, list[str]]:
    if not isinstance(item, dict):
        return None, [f"not an object: {type(item).__name__}"]
    value = item.get("value")
    attribute = item.get("attribute")
    if not isinstance(value, (str, int, float)) or isinstance(value, bool) or not str(value).strip():
        return None, ["missing value"]
    if not isinstance(attribute, str) or not attribute.strip():
        return None, ["missing attribute"]
    value = str(value)
    entity = str(item.get("entity") or "user")
    quote = str(item.get("source_quote") or "")
    span = _span(quote, source)
    reasons: list[str] = []
    if quote and span is None:
        reasons.append("source_quote is not in the user's text")
    try:
        fact = Fact(entity=entity, attribute=attribute, value=value, polarity=_polarity(item.get("polarity", 1)),
                    confidence=_confidence(item.get("confidence", 1.0)), sensitive=is_sensitive(attribute, value),
                    source_span=span or "", language=detect_language(span or value), extractor="llm")
    except ValueError as exc:
        return None, [f"invalid fact: {exc}"]
    if span:
        fact.confidence = hedge_confidence(span, fact.confidence)
        if entity.casefold() == "user" and not _typed_to_person(fact.attribute):
            # a proposed change must be the speaker's own statement (a relative's slot is the user's to tell)
            why = not_the_speakers(span, value)
            if why:
                reasons.append(why)
    prev = item.get("previous_value")
    if isinstance(prev, (str, int, float)) and not isinstance(prev, bool) and str(prev).strip():
        old = fact.model_copy(update={"value": str(prev).strip(), "polarity": 1})
        # the old value must be in the turn itself, or be the current value of that slot in the store (the known
        # facts the request listed); a value the model remembers from elsewhere is not kept
        if (str(prev).strip().casefold() in source.casefold() and check_support(old, source).overlap > 0) or \
                _known_previous(str(prev), fact.entity, fact.attribute, known or []):
            fact.previous_value = str(prev).strip()
    else:
        fact.source_span = max(split_sentences(source) or [source],
                               key=lambda s: len(content_words(value) & content_words(s)))
    sup: Support = check_support(fact, source, embedder=embedder)
    reasons.extend(sup.reasons)
    if not sup.ok and prompt_text and check_support(fact, prompt_text).ok:
        reasons.append("value appears only in the extraction prompt")
    return fact, reasons


KNOWN_LIMIT = 60  # known facts listed in one request (the most recent ones): bounds the prompt


def extract_facts_llm(llm: Any, turns: str | Message | dict | list[str | Message | dict], *,
                      language_hint: str | None = None, embedder: Any = None,
                      max_tokens: int | None = 1024,
                      known: list[tuple[str, str, str]] | None = None) -> ExtractionResult:
    """Extract grounded facts from the user's turns with ``llm`` (an :class:`anchormem.llms.LLM`).

    ``turns``: a string (one user turn) or messages (dicts or :class:`Message`). ``language_hint``: "en"/"zh"
    to tell the model the user's language (else it follows the text). ``embedder``: optional, adds the
    embedding check to grounding. ``known``: the user's current facts as (entity, attribute, value), oldest first
    (the last ``KNOWN_LIMIT`` are listed): the model proposes a change of one of them under its own attribute with
    ``previous_value``, which is kept when it is that fact's known value; every new value is still grounded
    against the user's turn, never against the list.

    Returns :class:`ExtractionResult`. Raises LLMParseError after one retry when the replies hold no usable JSON,
    and LLMError when the endpoint fails. No user turns (or only blank ones) -> an empty result, no LLM call.
    """
    pairs = [(r, c) for r, c in _turns(turns) if c.strip()]
    source = "\n".join(c for r, c in pairs if r == "user")
    result = ExtractionResult()
    if not source.strip():
        return result
    system = SYSTEM_PROMPT
    if language_hint:
        system += f"\nThe user writes in {language_hint}; keep values in that language."
    messages: list[dict] = [
        {"role": "system", "content": system},
        {"role": "user", "content": ("Known current facts (entity | attribute | value), for matching only:\n"
                                     + _known_block(known) + "\n\n" if known else "")
         + "Conversation:\n" + _transcript(pairs) + "\n\nExtract the user's facts as JSON."},
    ]
    parsed = None
    last_error: LLMParseError | None = None
    for attempt in (1, 2):
        result.attempts = attempt
        reply = llm.complete(messages, json_schema=FACTS_SCHEMA, temperature=0.0, max_tokens=max_tokens)
        try:
            pr = parse_json_reply(reply, expect="any")
            items = _items(pr.value)
            if items is None:
                raise LLMParseError(f"reply JSON has no 'facts' list: {json.dumps(pr.value, ensure_ascii=False)[:120]}")
            if pr.truncated and not items:
                raise LLMParseError("reply was cut off before any complete fact")
            parsed = (pr, items)
            break
        except LLMParseError as exc:
            last_error = exc
            result.errors.append(f"attempt {attempt}: {exc}")
            messages = messages[:2] + [{"role": "assistant", "content": reply[:4000]},
                                       {"role": "user", "content": _RETRY_PROMPT.format(why=str(exc)[:200])}]
    if parsed is None:
        raise LLMParseError(f"LLM fact extraction failed after {result.attempts} attempts: {last_error}")
    pr, items = parsed
    result.truncated = pr.truncated
    result.errors.extend(pr.notes)
    prompt_text = SYSTEM_PROMPT
    seen: dict[tuple[str, str], int] = {}
    for item in items:
        fact, reasons = _build(item, source, prompt_text, embedder, known)
        if fact is None or reasons:
            result.rejected.append(Rejected(fact if fact is not None else item, reasons))
            continue
        if fact.slot in seen:
            result.facts[seen[fact.slot]] = fact
        else:
            seen[fact.slot] = len(result.facts)
            result.facts.append(fact)
    return result


def pick_extractor(mode: str, llm: Any, embedder: Any, stats: dict[str, int]) -> Any:
    """``add``'s fact extractor for the ``fact_extractor`` setting ``mode``: the offline rules
    (:func:`~.rules.extract_from_text`) for ``rules``, or ``auto`` without an LLM (with a semantic embedder, carrying
    the change-by-meaning fallback as its ``meaning`` attribute: :class:`~.meaning.MeaningFallback`); else the grounded LLM extractor,
    every fact it returns checked against the user's own words, kept/rejected facts counted in ``stats``
    (``facts_extracted``, ``facts_rejected``). Raises ConfigError (``llm`` mode without an LLM)."""
    if mode == "rules" or (mode == "auto" and llm is None):
        from .places import with_places  # (home claims said without a frame: "we're in Raleigh now")

        if not getattr(embedder, "semantic", True):
            return with_places(extract_from_text)

        def rules_facts(text: str, *, entity: str = "user") -> list[Any]:
            return extract_from_text(text, entity=entity)

        from .meaning import MeaningFallback

        rules_facts.meaning = MeaningFallback(embedder)  # type: ignore[attr-defined]  (read by plan_facts)
        return with_places(rules_facts)
    if llm is None:
        raise ConfigError("fact_extractor='llm' needs an LLM (Memory(llm=...) or ANCHORMEM_LLM_BASE_URL)")
    check = embedder if getattr(embedder, "semantic", True) else None  # the cosine check needs meaning

    def llm_facts(text: str, *, entity: str, known: list[tuple[str, str, str]] | None = None) -> list[Any]:
        res = extract_facts_llm(llm, text, embedder=check, known=known)
        stats["facts_extracted"] += len(res.facts)
        stats["facts_rejected"] += len(res.rejected)
        return [f.model_copy(update={"entity": entity}) if f.entity.casefold() == "user" else f
                for f in res.facts]

    # read by plan_facts: it passes the user's current facts (``known``), and the offline job reader stays off
    llm_facts.llm = True  # type: ignore[attr-defined]
    return llm_facts
