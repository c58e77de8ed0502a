"""Context labels from an LLM, validated against the taxonomy and checked against the text they label.

    labeller = LLMLabeller(llm)
    labeller.label(["it's 20k locked for three years"], context=["I opened a savings account."])
    # -> [[Label(domain="finance", topic="savings", intent="report", score=0.9, primary=True)]]

Used by :class:`anchormem.context.anchor.ContextAnchor` on the write side when an LLM is configured
(``Settings.labeller``: ``auto`` / ``llm``); queries keep the offline labeller (a search makes no LLM call).

The model gets the turns to label, numbered, after the earlier turns of their conversation (context only), and is
asked for ``{"labels": [{"turn", "domain", "topic", "intent", "score", "secondary"}]}`` (``response_format``
json_schema where the server supports it). Every reply goes through
:func:`anchormem.llms.jsonparse.parse_json_reply`; a reply with no usable JSON (or the wrong shape) is retried ONCE
with a correction message, then LLMParseError is raised (the caller falls back to the offline labels and counts it:
a broken reply never becomes silently missing labels). A reply that labels turns that were not given (a small
model echoing the prompt labelled "turns" 1, 2, 3... for one turn) is unusable in the same way. What is kept,
per turn:

- ``domain`` and ``secondary`` domains only from the fixed taxonomy (:data:`.taxonomy.DOMAIN_NAMES`, after
  :func:`.taxonomy.norm_tag`); an unknown domain is rejected (counted in ``rejected``), and a turn with no valid
  domain gets None (the offline labels stay);
- ``topic`` only when it is grounded: each of its words (Latin words by stem, Chinese as a substring) appears in
  the turn or its conversation, so the model cannot attach a topic nobody said; else it is dropped (counted);
- ``intent`` normalised (the offline intents ask / plan / preference / report / statement are suggested);
- ``score`` clipped to [0, 1] (default 0.9 primary, 0.6 secondary).

Results are cached (LRU of ``cache_size`` entries, per labeller) by the normalised turn text together with its
normalised context, so a phrase repeated in the same conversation, a re-add or a relabel costs no LLM call.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import LLMParseError
from ..llms.jsonparse import parse_json_reply
from ..text.tokenize import has_cjk, term_coverage, words
from ..types import Label
from .taxonomy import DOMAIN_NAMES, DOMAINS, norm_tag

__all__ = ["LLMLabeller", "LabelStats", "LABELS_SCHEMA", "SYSTEM_PROMPT"]

LABELS_SCHEMA: dict = {
    "title": "labels",
    "type": "object",
    "properties": {
        "labels": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "turn": {"type": "integer", "minimum": 1},
                    "domain": {"type": "string", "enum": list(DOMAIN_NAMES)},
                    "topic": {"type": "string"},
                    "intent": {"type": "string"},
                    "score": {"type": "number", "minimum": 0, "maximum": 1},
                    "secondary": {"type": "array", "items": {"type": "string", "enum": list(DOMAIN_NAMES)}},
                },
                "required": ["turn", "domain", "topic", "intent"],
            },
        },
    },
    "required": ["labels"],
}

SYSTEM_PROMPT = ("You label turns of a conversation with their context, for a long-term memory that must not mix "
                 "up senses of a word (a savings bank vs a river bank).\n\n"
                 "Domains (use exactly these names):\n"
                 + "\n".join(f"- {d.name}: {d.en}" for d in DOMAINS) + """

For each numbered turn to label give:
- domain: the one domain the turn is about, read with the conversation before it ("it's 20k locked for three
  years" after talk of savings is finance);
- secondary: other domains the turn is also about (a turn that uses one word in two senses), else [];
- topic: 1-3 words naming what the turn is about, taken from the turn or the conversation, in their language;
- intent: one of ask, plan, preference, report, statement (or a short verb phrase);
- score: how sure you are, 0 to 1.
The earlier turns are context only: label only the numbered turns. Never copy anything from these instructions.

Reply with ONE JSON object {"labels": [{"turn": 1, "domain": "...", "topic": "...", "intent": "...",
"score": 0.9, "secondary": []}, ...]} with one entry per numbered turn, and nothing else: no prose, no code
fence.""")

_RETRY_PROMPT = ("Your previous reply could not be used ({why}). Reply again with only one JSON object of the "
                 'form {{"labels": [...]}} as specified, with valid JSON and nothing else.')


def _stray_turns(items: list, n: int) -> list[int]:
    """Turn numbers in a reply's labels outside 1..n (a small model copying the example or the domain list labels
    "turns" 1, 2, 3... whatever it was given)."""
    out = []
    for item in items:
        try:
            t = int(item.get("turn", 0)) if isinstance(item, dict) else 0
        except (TypeError, ValueError):
            continue
        if t > n:
            out.append(t)
    return out


@dataclass
class LabelStats:
    """Counters of one labeller: ``calls`` (LLM requests), ``cached`` (turns answered from the cache),
    ``labelled`` (turns given LLM labels), ``rejected`` (domains outside the taxonomy), ``topics_dropped``
    (topics not grounded in the text), ``failed`` (turns left to the offline labels: an unusable reply or an
    LLM error), ``notes`` (the last repairs of replies, for logs)."""

    calls: int = 0
    cached: int = 0
    labelled: int = 0
    rejected: int = 0
    topics_dropped: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)


def _key(text: str, context: Sequence[str]) -> str:
    return "\x1f".join(" ".join(t.split()).casefold() for t in (*context, text))


def _grounded(topic: str, sources: Sequence[str]) -> bool:
    """Every word of ``topic`` appears in one of ``sources`` (:func:`anchormem.text.tokenize.term_coverage`)."""
    terms = [w for w in words(topic) if w.strip()] if not has_cjk(topic) else [topic.replace(" ", "")]
    if not terms:
        return False
    found: set[int] = set()
    for f in term_coverage(terms, list(sources)):
        found |= f
    return len(found) == len(terms)


class LLMLabeller:
    """Labels turns with ``llm`` (an :class:`anchormem.llms.LLM`); see the module doc. Thread-safe. ``stats``:
    :class:`LabelStats`."""

    def __init__(self, llm: Any, *, cache_size: int = 4096, max_tokens: int | None = 1024) -> None:
        self.llm = llm
        self.cache_size = cache_size
        self.max_tokens = max_tokens
        self.stats = LabelStats()
        self._cache: OrderedDict[str, list[Label] | None] = OrderedDict()
        self._lock = threading.Lock()

    def label(self, texts: Sequence[str], *, context: Sequence[str] = ()) -> list[list[Label] | None]:
        """Labels for consecutive ``texts`` of one conversation (``context``: its earlier turns, oldest first),
        primary first; None for a turn the model gave no valid domain. One LLM call for the turns not cached.
        Raises LLMParseError (after one retry) when the replies hold no usable JSON, LLMError when the endpoint
        fails; either way nothing is cached."""
        keys = [_key(t, [*context, *texts[:i]][-6:]) for i, t in enumerate(texts)]
        out: list[list[Label] | None] = [None] * len(texts)
        todo: list[int] = []
        with self._lock:
            for i, k in enumerate(keys):
                if k in self._cache:
                    self._cache.move_to_end(k)
                    out[i] = self._cache[k]
                    self.stats.cached += 1
                else:
                    todo.append(i)
        if todo:
            got = self._ask([texts[i] for i in todo], [*context][-6:], texts)
            with self._lock:
                for i, labs in zip(todo, got):
                    out[i] = labs
                    self._cache[keys[i]] = labs
                    self.stats.labelled += labs is not None
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        # copies: callers edit the lists they get (a fact slot names the topic), the cache must not change
        return [[lab.model_copy() for lab in labs] if labs else None for labs in out]

    def _ask(self, todo: list[str], context: list[str], batch: Sequence[str]) -> list[list[Label] | None]:
        prompt = ("Conversation so far (context only):\n" + "\n".join(f"- {c}" for c in context) + "\n\n"
                  if context else "") + "Turns to label:\n" + "\n".join(f"{n}. {t}" for n, t in enumerate(todo, 1))
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}]
        why = ""
        for attempt in range(2):
            if attempt:
                messages += [{"role": "user", "content": _RETRY_PROMPT.format(why=why)}]
            self.stats.calls += 1
            reply = self.llm.complete(messages, json_schema=LABELS_SCHEMA, max_tokens=self.max_tokens)
            try:
                parsed = parse_json_reply(reply, expect="object")
            except LLMParseError as exc:
                why = str(exc)
            else:
                items = parsed.value.get("labels") if isinstance(parsed.value, dict) else None
                stray = _stray_turns(items, len(todo)) if isinstance(items, list) else []
                if stray:  # turns nobody asked for: the model is echoing a pattern, not labelling these turns
                    why = f"labels for turn(s) {stray[:5]} but only {len(todo)} turn(s) were given"
                elif isinstance(items, list):
                    self.stats.notes = (self.stats.notes + parsed.notes)[-20:]
                    return self._validate(items, todo, [*context, *batch])
                else:
                    why = "no JSON object with a labels list"
            messages.append({"role": "assistant", "content": reply})
        raise LLMParseError(f"labeller: unusable reply after one retry: {why}")

    def _validate(self, items: list, todo: list[str], sources: list[str]) -> list[list[Label] | None]:
        out: list[list[Label] | None] = [None] * len(todo)
        for item in items:
            if not isinstance(item, dict):
                continue
            try:
                n = int(item.get("turn", 0)) - 1
            except (TypeError, ValueError):
                continue
            if not 0 <= n < len(todo) or out[n] is not None:
                continue
            dom = norm_tag(item.get("domain") if isinstance(item.get("domain"), str) else None)
            if dom not in DOMAIN_NAMES:
                self.stats.rejected += 1
                continue
            topic = norm_tag(item.get("topic")) if isinstance(item.get("topic"), str) else None
            if topic and not _grounded(topic, [todo[n], *sources]):
                self.stats.topics_dropped += 1
                topic = None
            intent = norm_tag(item.get("intent")) if isinstance(item.get("intent"), str) else None
            score = _score(item.get("score"), 0.9)
            labs = [Label(domain=dom, topic=topic, intent=intent, score=score, primary=True)]
            extra = item.get("secondary") if isinstance(item.get("secondary"), list) else []
            for s in extra:
                d2 = norm_tag(s) if isinstance(s, str) else None
                if d2 not in DOMAIN_NAMES:
                    self.stats.rejected += 1
                elif d2 not in {lab.domain for lab in labs} and len(labs) < 3:
                    labs.append(Label(domain=d2, topic=None, intent=intent, score=min(score, 0.6), primary=False))
            out[n] = labs
        return out


def _score(v: Any, default: float) -> float:
    try:
        return min(1.0, max(0.0, float(v)))
    except (TypeError, ValueError):
        return default

