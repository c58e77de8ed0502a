"""Plans are not the present: what a memory plans is no evidence that it holds now.

"I'm moving to Edinburgh next month." says where the speaker will live, not where they live: for a question about
the present ("Do I live in Edinburgh?", "Where do I live?", 我住在爱丁堡吗？) the sentences of a memory that state a
plan (a slot fact said for a date after the day it was said, as the write path reads one:
:func:`anchormem.facts.plans.plan_sentences`) are left out of its words, as
questions and suppositions are (:func:`anchormem.answering.persons.stated_text`). A question about what is planned
or what happened ("Am I moving?", "When is the move?", "Did I move to Edinburgh?", 我打算搬去哪？) still reads them.

Which questions ask the present: those with no word of ``future_question`` nor of ``past_question_tense``
(``data/lang/<lang>/cues.json``: whole words in English, substrings in Chinese), no match of
``future_question_patterns`` (the present progressive: "Where is my sister getting married?") unless a
``present_markers`` word places the question now ("Which restaurant am I cooking at now?", "Where am I staying these
days?", "Am I still running D&D on Fridays?": the progressive of what holds, no arrangement), and not about the past
(:func:`anchormem.facts.claims.asks_past`).
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from .. import langdata
from ..facts.claims import asks_past
from ..facts.plans import plan_sentences
from ..text.segment import CLAUSE_PIECE

__all__ = ["asks_present", "asks_plan", "without_plans", "present_markers"]


def _word_parts(words: tuple[str, ...]) -> list[str]:
    """Regex parts of cue words: a Chinese one as a substring, an English one as whole words (spaces: any)."""
    return [re.escape(w) if re.search(r"[^\x00-\x7f]", w) else r"\b" + re.escape(w).replace(r"\ ", r"\s+") + r"\b"
            for w in sorted(words, key=len, reverse=True)]


@lru_cache(maxsize=2)
def _tense(past: bool = True) -> re.Pattern[str]:
    """The words of a plan (``future_question``) and, with ``past``, of the past (``past_question_tense``)."""
    words = langdata.words("cues", "future_question") + (langdata.words("cues", "past_question_tense") if past else ())
    return re.compile("|".join(_word_parts(words)) or "(?!)", re.I)


@lru_cache(maxsize=1)
def _progressive() -> re.Pattern[str]:
    """The patterns of an arrangement (``future_question_patterns``: the present progressive, "Where is my sister
    getting married?"; 要 in Chinese)."""
    parts = [p for lang in langdata.LANGUAGES for p in langdata.load("cues", lang).get("future_question_patterns", [])]
    return re.compile("|".join(parts) or "(?!)", re.I)


@lru_cache(maxsize=1)
def present_markers() -> re.Pattern[str]:
    """The words that place a question now (``present_markers`` of ``data/lang/<lang>/cues.json``: "now", "these
    days", "at the moment", 现在, 目前), English ones as whole words, Chinese ones as substrings."""
    return re.compile("|".join(_word_parts(langdata.words("cues", "present_markers"))) or "(?!)", re.I)


@lru_cache(maxsize=1)
def _state_progressives() -> re.Pattern[str]:
    """Progressives that name a state (``state_progressives`` of ``data/lang/<lang>/cues.json``: "seeing anyone")."""
    return re.compile("|".join(_word_parts(langdata.words("cues", "state_progressives"))) or "(?!)", re.I)


def _arranged(question: str) -> bool:
    """The question's present progressive asks about an arrangement ("Where is my sister getting married?"), not
    what holds: no present marker places it now ("Which restaurant am I cooking at now?") and it names no state
    ("Am I seeing anyone?")."""
    return bool(_progressive().search(question)) and not present_markers().search(question) and \
        not _state_progressives().search(question)


def asks_present(question: str) -> bool:
    """The question asks what holds now ("Do I live in Edinburgh?", "Where do I live?", "Where am I living these
    days?", 我住哪里？), not what is planned ("Am I moving?", "When is the move?", "Where is my sister getting
    married?"), what happened ("Did I move?") or what held before."""
    return not _tense().search(question) and not _arranged(question) and not asks_past(question)


def _someone_named(clause: str) -> bool:
    """The clause's subject is a person named other than the speaker ("My friend Ahmed just moved", 我朋友Ahmed刚搬到
    深圳)."""
    from ..facts.subjects import person_owner

    ent, _ = person_owner(clause)
    return bool(ent) and ent != "user"


def asks_plan(question: str) -> bool:
    """The question asks what is planned or coming ("Am I moving?", "When is the move?", 我什么时候搬家？: the
    ``future_question`` words and patterns of ``data/lang/<lang>/cues.json``), not what holds or happened."""
    return bool(_tense(False).search(question)) or _arranged(question)


_CLAUSE = CLAUSE_PIECE  # (anchormem.text.segment: not inside "1,850" nor "3.5")


def without_plans(text: str, said_at: datetime | None, *, own_state: bool = False) -> str:
    """``text`` (a memory's stated words, said at ``said_at``) without its plan sentences; with ``own_state`` (the
    question asks the asker's own present state: "Where do I live?", 我现在住在哪里？) also without the clauses that
    state no present fact of the speaker's (a modal or a plan, "I'm thinking about moving to London",
    我在考虑要不要搬到上海; reported speech: :func:`~anchormem.facts.changes.blocked`), which answer questions about
    inclinations ("Would Caroline pursue writing?") but not what holds, and the clauses whose subject is someone
    named (:func:`~anchormem.facts.subjects.person_owner`: "My friend Ahmed just moved to Shenzhen." is no evidence
    of where the asker lives). ``text`` itself when it holds none."""
    from ..facts.changes import blocked

    plans = plan_sentences(text, said_at)
    for p in plans:
        text = text.replace(p, " ")
    clauses = _CLAUSE.findall(text) if own_state else []
    kept = [c for c in clauses if not blocked(c) and not _someone_named(c)]
    if len(kept) < len(clauses):
        text = "".join(kept)
    return " ".join(text.split()) if plans or len(kept) < len(clauses) else text
