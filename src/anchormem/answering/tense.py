"""Plans are not the present: what a memory plans is no evidence that it holds now.

"I'm moving to Edinburgh next month." says where the speaker will live, not where they live: for a question about
the present ("Do I live in Edinburgh?", "Where do I live?", 我住在爱丁堡吗？) the sentences of a memory that state a
plan (a slot fact said for a date after the day it was said, as the write path reads one:
:func:`anchormem.facts.plans.plan_sentences`) are left out of its words, as
questions and suppositions are (:func:`anchormem.answering.persons.stated_text`). A question about what is planned
or what happened ("Am I moving?", "When is the move?", "Did I move to Edinburgh?", 我打算搬去哪？) still reads them.

Which questions ask the present: those with no word of ``future_question`` nor of ``past_question_tense``
(``data/lang/<lang>/cues.json``: whole words in English, substrings in Chinese), no match of
``future_question_patterns`` (the present progressive: "Where is my sister getting married?"), and not about the past
(:func:`anchormem.facts.claims.asks_past`).
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from .. import langdata
from ..facts.claims import asks_past
from ..facts.plans import plan_sentences

__all__ = ["asks_present", "asks_plan", "without_plans"]


@lru_cache(maxsize=2)
def _tense(past: bool = True) -> re.Pattern[str]:
    words = langdata.words("cues", "future_question") + (langdata.words("cues", "past_question_tense") if past else ())
    parts = [re.escape(w) if re.search(r"[^\x00-\x7f]", w) else r"\b" + re.escape(w).replace(r"\ ", r"\s+") + r"\b"
             for w in sorted(words, key=len, reverse=True)]
    for lang in langdata.LANGUAGES:  # patterns (the present progressive: "Where is my sister getting married?")
        parts += list(langdata.load("cues", lang).get("future_question_patterns", []))
    return re.compile("|".join(parts) or "(?!)", re.I)


def asks_present(question: str) -> bool:
    """The question asks what holds now ("Do I live in Edinburgh?", "Where do I live?", 我住哪里？), not what is
    planned ("Am I moving?", "When is the move?"), what happened ("Did I move?") or what held before."""
    return not _tense().search(question) and not asks_past(question)


def _someone_named(clause: str) -> bool:
    """The clause's subject is a person named other than the speaker ("My friend Ahmed just moved", 我朋友Ahmed刚搬到
    深圳)."""
    from ..facts.subjects import person_owner

    ent, _ = person_owner(clause)
    return bool(ent) and ent != "user"


def asks_plan(question: str) -> bool:
    """The question asks what is planned or coming ("Am I moving?", "When is the move?", 我什么时候搬家？: the
    ``future_question`` words and patterns of ``data/lang/<lang>/cues.json``), not what holds or happened."""
    return bool(_tense(False).search(question))


_CLAUSE = re.compile(r"[^,，;；.。!！?？]+[,，;；.。!！?？]*")


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
