"""Decisions, commitments and todos as their own memory kind (``kind="commitment"``), with a due date.

Offline rules, English and Chinese, as language data (``data/lang/<lang>/commitments.json``). A sentence is a commitment when it binds someone to a future action:

- promises and plans: "I will / I'll / I'm going to / I promise to / I need to / I have to / I must <verb>",
  "we will / we'll / let's <verb> ... by <date>"; 我会 / 我要 / 我得 / 我答应 / 我保证 / 我负责 / 我来;
- agreements and decisions: "we agreed / we decided / it was agreed (that|to)", "the deadline is";
  双方同意 / 我们约定 / 说好了 / 商定 / 决定 / 截止;
- todos and reminders: "remind me to", "don't forget to", "todo:", "I still need to"; 提醒我 / 记得 / 别忘了 / 待办;
- the other party's promise as the user reports it: "You promised me a refund by Friday!"; 你答应 / 你们保证.

Not: a speech act after a modal ("I have to admit…", "I must say…", 我要说…) or a vow never to act ("I will
never buy from you again").

Questions, hypotheticals ("if I will…", "如果") and past narration are not commitments. The assistant's own
promises ("I will call you tomorrow") count too, with ``source="assistant"``: they are the agent's to keep.

Due date (``MemoryItem.event_time``/``event_time_end``): the first date in the sentence resolved against the
turn's time ("tomorrow", "下周一前", "by May 24", "6月30日前"); a bare weekday or day of the month ("by Monday",
周五之前, "on the 15th") is read as ahead: the next one after the turn's day
(:func:`~anchormem.text.dates.resolve_dates` with ``tense="future"``). No date: ``event_time`` stays None (undated).
A commitment is open while current; :meth:`anchormem.Memory.complete` closes it (``valid_to``). A commitment
taken from a longer turn shares that turn's vector (it is found by keyword and by its turn; listing by due date
needs no vector), which keeps ingest cost flat.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from functools import lru_cache

from .. import langdata
from ..ingest.classify import content_hash
from ..ingest.pipeline import Draft, time_terms
from ..text.dates import resolve_dates
from ..text.segment import split_sentences
from ..text.tokenize import index_text
from . import rulebook

__all__ = ["is_commitment", "due_date", "split_commitments"]

@lru_cache(maxsize=8)
def _rx(name: str, langs: tuple[str, ...] = langdata.LANGUAGES) -> re.Pattern:
    """The pattern ``name`` of data/lang/<lang>/commitments.json (``commitment``, ``not_commitment``, ``promise``),
    the languages' joined (:func:`anchormem.facts.rulebook.pattern`)."""
    return rulebook.pattern(name, langs, "commitments")


def is_commitment(sentence: str, *, speaker_role: str = "user") -> bool:
    """True when ``sentence`` binds someone to a future action (see the module doc for the patterns). For the
    assistant only its own promises count ("I will call you", "我会…"), not advice to the user ("记得戴头盔")."""
    s = sentence.strip()
    if not s or _rx("not_commitment").search(s):
        return False
    if speaker_role == "assistant":  # (a promise to remember or note, "Got it, I'll remember your mom's birthday",
        from ..ingest.echo import acknowledges_at  # 我会记住…, acknowledges: nothing is due)

        return any(not acknowledges_at(s, m.start(), m.end()) for m in _rx("promise").finditer(s))
    return bool(_rx("commitment", ("en",)).search(s) or _rx("commitment", ("zh",)).search(s))


def due_date(sentence: str, said_at: datetime) -> tuple[datetime, datetime] | None:
    """(start, end) of the due day(s), aware UTC, resolved against ``said_at``; None when no date is stated or
    the date falls outside the supported time range (:mod:`anchormem.timeutil`)."""
    dates = resolve_dates(sentence, said_at) or resolve_dates(sentence, said_at, tense="future")  # (a promise is
    if dates:  # about what is ahead: a bare weekday or day of the month is the next one, 周五之前, "before Friday")
        return dates[0].start, dates[0].end
    return None


def split_commitments(drafts: list[Draft]) -> list[Draft]:
    """Turn the commitments in user and assistant turns into ``kind="commitment"`` drafts, in order. A turn that
    is one commitment sentence becomes that commitment; a longer turn keeps its utterance and gains one
    commitment memory per committing sentence (verbatim, same provenance)."""
    out: list[Draft] = []
    for d in drafts:
        it = d.item
        if it.kind not in ("utterance", "assistant"):
            out.append(d)
            continue
        sentences = split_sentences(it.text)
        found = [s for s in sentences if is_commitment(s, speaker_role=it.role)]
        if not found:
            out.append(d)
            continue
        if len(sentences) > 1:
            out.append(d)
        for s in found:
            due = due_date(s, d.said_at or it.created_at)
            if len(sentences) == 1 and it.event_time is not None:
                due = (it.event_time, it.event_time_end or it.event_time)  # resolved on the speaker's own day
            item = it.model_copy(update={
                "id": uuid.uuid4().hex, "text": s, "kind": "commitment", "labels": [],
                "event_time": due[0] if due else None, "event_time_end": due[1] if due else None,
                "entities": [e for e in it.entities if e.value in s], "metadata": {**it.metadata}})
            same = len(sentences) == 1
            extra = " ".join(x for x in (it.speaker, time_terms(it.created_at)) if x)
            out.append(Draft(item, content_hash(s, kind="commitment", source=it.source, speaker=it.speaker),
                             d.index_text if same else index_text(s, extra), reuse=None if same else d))
    return out
