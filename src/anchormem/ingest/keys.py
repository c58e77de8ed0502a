"""Retrieval keys: extra keyword-index terms a memory gets at write time, so it is found by what it means and not
only by its own words.

A turn in a conversation often says little by itself: "Yes, last Saturday, it was so powerful!" answers a
question the other speaker asked, names neither person, and dates the event only relative to when it was said.
The keys put that back into the memory's keyword index (the FTS5 column / ``tsvector``; the text and its
embedding are unchanged):

- ``reply``: the content words of the turn it answers (the previous turn of the same ``add`` call, by another
  speaker, when that turn asks something): the question it answers; ``context``: the previous turn's words
  whatever it says (off by default: it also copies a statement's words onto the reaction to it);
- ``names``: who the turn is about: the speaker's name once more when they speak of themselves ("I", "my", "我":
  a turn by Caroline saying "I" is indexed under Caroline above turns that only address her), and the person
  addressed ("you" → the other speaker's name); ``self``: the speaker's own name only (not the addressee's: a
  turn that speaks to a person is not about them as the person's own turn is);
- ``dates``: each resolved date as day, month and weekday words ("last Saturday" said on 8 May 2023 →
  "6 May 2023 Saturday");
- ``topic``: the session's topic: the few content words most turns of the call share, on every turn (off by
  default: on every turn of a session, they blur which turn says what).

Keys come from the call's own messages and, for the first of them, the session's stored turn just before it
(:func:`previous_turn`: one indexed read of the newest message; an agent adds one turn per call, so the question a
reply answers was stored by the call before). No model: cheap, deterministic, offline.
Pronoun lists are language data (``data/lang/<lang>/keys.json``, :mod:`anchormem.langdata`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from ..errors import ConfigError
from ..langdata import words as lang_words
from ..text.dates import DateSpan, resolve_dates
from ..text.tokenize import has_cjk, query_terms
from .classify import is_question

__all__ = ["KEY_KINDS", "DEFAULT_KEY_KINDS", "KeyTurn", "parse_key_kinds", "previous_turn", "retrieval_keys",
           "date_keys", "memory_keys", "pronoun_pattern"]

#: every kind of key
KEY_KINDS = ("reply", "context", "names", "self", "dates", "topic")
#: the kinds ``Settings.index_keys`` turns on by default: ``topic`` and ``context`` cost LoCoMo recall@10 on the
#: tuning conversations (bench/results/locomo_keys_ablation.json)
DEFAULT_KEY_KINDS = ("reply", "names", "dates")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
REPLY_TERMS = 16  # at most this many words of the turn answered
TOPIC_TERMS = 5  # the session topic's size, in words


@dataclass
class KeyTurn:
    """One message of an ``add`` call, as the keys see it: ``text``, ``speaker`` (None when unknown) and the
    dates resolved in each of its chunks (``chunk_dates[i]`` for chunk i)."""

    text: str
    speaker: str | None
    chunk_dates: list[list[DateSpan]] = field(default_factory=list)
    role: str | None = None  # "user" / "assistant"; None when unknown


def _replies_to(prev: KeyTurn, t: KeyTurn) -> bool:
    """``t`` may answer ``prev``: they are said by two parties. Two named speakers are two parties when their names
    differ; two unnamed turns of the same role are one party (a user asking "Should I quit my job?" and then saying
    "My sister's rent went up." is not answering themselves); otherwise the turns count as two parties."""
    if prev.speaker and t.speaker:
        return prev.speaker != t.speaker
    if not prev.speaker and not t.speaker and prev.role and prev.role == t.role:
        return False
    return True


def parse_key_kinds(spec: str | Sequence[str] | None) -> frozenset[str]:
    """``"reply,names"`` / ``["reply"]`` / ``"default"`` / ``"all"`` / ``"off"`` or ``""`` → the set of key kinds.
    Raises ConfigError naming an unknown kind."""
    if spec is None:
        return frozenset()
    parts = [p.strip().lower() for p in (spec.split(",") if isinstance(spec, str) else spec) if p.strip()]
    if parts in (["all"], ["on"], ["true"]):
        return frozenset(KEY_KINDS)
    if parts in ([], ["off"], ["none"], ["false"]):
        return frozenset()
    if parts == ["default"]:
        return frozenset(DEFAULT_KEY_KINDS)
    bad = sorted(set(parts) - set(KEY_KINDS))
    if bad:
        raise ConfigError(f"unknown index key kind(s) {', '.join(bad)}; kinds are {', '.join(KEY_KINDS)}")
    return frozenset(parts)


def previous_turn(store, scope, messages: Sequence, kinds: frozenset[str]) -> KeyTurn | None:
    """The session's newest stored message as a :class:`KeyTurn`, when it comes before ``messages`` (normalised
    messages; the first one's timestamp, when it has one, is not earlier than the stored turn's) and the ``reply``
    or ``context`` keys are on; else None. ``scope`` without a session: None (session-less turns have no order)."""
    if not scope.session_id or not messages or not ({"reply", "context"} & kinds):
        return None
    last = store.messages(scope, session_id=scope.session_id, last=1)
    if not last:
        return None
    prev, first = last[-1], messages[0].timestamp
    if first is not None and prev.get("timestamp") and first < datetime.fromisoformat(prev["timestamp"]):
        return None  # an older turn imported late: the stored one does not precede it
    if prev.get("role") == "system" or not prev.get("content"):
        return None
    return KeyTurn(str(prev["content"]), prev.get("name"), role=prev.get("role"))


def prior_turn(store, scope, messages: Sequence) -> KeyTurn | None:
    """The session's stored turn before ``messages`` for the assistant-echo test (:mod:`.echo`), read whatever
    keys are on, and only when ``messages`` hold an assistant turn (else None: no read)."""
    if not any(getattr(m, "role", None) == "assistant" for m in messages):
        return None
    return previous_turn(store, scope, messages, frozenset({"reply"}))


@lru_cache(maxsize=4)
def pronoun_pattern(key: str) -> re.Pattern[str]:
    """The pronouns of list ``key`` of ``data/lang/*/keys.json`` (``"first_person"``, ``"second_person"``) as one
    case-insensitive pattern: Latin words whole, CJK ones anywhere; a pattern matching nothing for an empty list."""
    ws = lang_words("keys", key)
    latin = [re.escape(w) for w in ws if not has_cjk(w)]
    cjk = [re.escape(w) for w in ws if has_cjk(w)]
    alts = ([r"\b(?:" + "|".join(latin) + r")\b"] if latin else []) + (["(?:" + "|".join(cjk) + ")"] if cjk else [])
    return re.compile("|".join(alts) or r"(?!x)x", re.I)


def _asks(text: str) -> bool:
    """True when a turn asks something: a question mark anywhere, or a question by its form."""
    return "?" in text or "？" in text or is_question(text)


def date_keys(dates: Sequence[DateSpan]) -> list[str]:
    """Day-level words of resolved one-day dates: ``"6 May 2023 Saturday 2023年5月6日"``, one string per date.
    Ranges longer than a day get nothing here (their month and year are indexed with the memory already)."""
    out: list[str] = []
    for d in dates[:3]:
        s = d.start
        if d.end.date() != s.date():
            continue
        out.append(f"{s.day} {_MONTHS[s.month - 1]} {s.year} {_WEEKDAYS[s.weekday()]} {s.year}年{s.month}月{s.day}日")
    return out


def _topic(turns: Sequence[KeyTurn], names: set[str]) -> list[str]:
    """The words most turns share: in at least two turns and at least a fifth of them, most turns first."""
    if len(turns) < 3:
        return []
    df: Counter[str] = Counter()
    for t in turns:
        df.update({w for w in query_terms(t.text) if w not in names and not w.isdigit()})
    least = max(2, len(turns) // 5)
    return [w for w, n in sorted(df.items(), key=lambda kv: (-kv[1], kv[0])) if n >= least][:TOPIC_TERMS]


def retrieval_keys(turns: Sequence[KeyTurn], kinds: frozenset[str]) -> list[list[str]]:
    """Keys per turn and chunk: ``out[i][j]`` the space-joined key text of chunk j of turn i ("" when none).

    ``turns``: the call's messages in order (system turns left out); ``kinds``: from :func:`parse_key_kinds`.
    """
    names = {t.speaker.casefold() for t in turns if t.speaker}
    topic = _topic(turns, names) if "topic" in kinds else []
    out: list[list[str]] = []
    for i, t in enumerate(turns):
        shared: list[str] = []
        prev = turns[i - 1] if i > 0 else None
        other = prev if prev is not None and _replies_to(prev, t) else None
        if other is not None and ("context" in kinds or ("reply" in kinds and _asks(other.text))):
            own = set(query_terms(t.text))
            shared += [w for w in query_terms(other.text) if w not in own and w not in names][:REPLY_TERMS]
        if ("names" in kinds or "self" in kinds) and t.speaker:
            addressee = next((u.speaker for u in reversed(turns[:i]) if u.speaker and u.speaker != t.speaker),
                             None) or next((u.speaker for u in turns[i + 1:] if u.speaker and u.speaker != t.speaker),
                                           None)
            if pronoun_pattern("first_person").search(t.text):
                shared.append(t.speaker)
            if "names" in kinds and addressee and pronoun_pattern("second_person").search(t.text):
                shared.append(addressee)
        shared += topic
        n_chunks = max(1, len(t.chunk_dates))
        per_chunk = []
        for j in range(n_chunks):
            ks = list(shared)
            if "dates" in kinds and j < len(t.chunk_dates):
                ks += date_keys(t.chunk_dates[j])
            per_chunk.append(" ".join(ks))
        out.append(per_chunk)
    return out


def memory_keys(text: str, speaker: str | None, said_at: datetime, prev: dict | None, kinds: frozenset[str],
                role: str | None = None) -> str:
    """The keys of one stored memory rebuilt from its stored turns (``Memory.update`` of its text, an import of an
    export): ``text`` said by ``speaker`` at ``said_at`` (aware; its dates resolve against it), after the message
    ``prev`` (a stored message dict: ``content``, ``name``, ``role``; None for the first of a session); ``role``: the
    memory's own role (None: unknown). The same
    kinds as a write (``topic`` needs the whole call and is left out). Returns the space-joined key text."""
    turns = []
    if prev is not None and prev.get("content") and prev.get("role") != "system":
        turns.append(KeyTurn(str(prev["content"]), prev.get("name"), role=prev.get("role")))
    turns.append(KeyTurn(text, speaker, [resolve_dates(text, said_at)], role=role))
    return retrieval_keys(turns, kinds - {"topic"})[-1][0]
