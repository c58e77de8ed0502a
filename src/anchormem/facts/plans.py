"""Plans: a fact said with a date after the turn's own day is what the speaker plans, not what holds now.

"I'm moving to York next month", "下个月搬去苏州", "下周一去美团报到": the clause's date
(:func:`anchormem.text.dates.resolve_dates`, against the turn's time on the speaker's calendar) starts after the day
the turn was said, so its home, employer or job is not the current value yet and closes nothing. An amount announced
for a date ahead ("the rent goes up to 2,050 starting next month", 下个月开始三千五) is a decided price, not a plan
of the speaker's: numeric slots (rent, salary, an age: :func:`~anchormem.facts.changes.is_numeric_slot`) are not
gated here; nor is a value said beside the end of the old one ("我从字节离职了，下周一去美团报到": a verb of a
frame class of polarity -1, frames.json; "I'm starting at Puma next week after leaving Adidas").

A plan is not stored as a pending change (its turn stays an ordinary utterance memory, findable by search); making it
current when its date passes is not built (noted in the CHANGELOG).

    planned(Fact(attribute="home_city", value="York", clause="I'm moving to York next month", ...),
            said_at=datetime(2024, 3, 4, tzinfo=timezone.utc))   # -> DateSpan("next month", 2024-04-01 ...)
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from .. import langdata
from ..text.dates import DateSpan, resolve_dates
from ..text.tokenize import has_cjk
from .changes import is_numeric_slot
from .model import Fact

__all__ = ["planned", "drop_plans", "plan_sentences"]


def planned(fact: Fact, said_at: datetime | None) -> DateSpan | None:
    """The date ahead that makes ``fact`` a plan (a date span of its clause starting after ``said_at``'s day), or
    None (no such date, no time known, or a numeric slot)."""
    if said_at is None or is_numeric_slot(fact.attribute):
        return None
    clause = fact.clause or fact.source_span
    if not clause or _ends_now(fact.source_span or clause):
        return None
    day = said_at.date()
    value = (fact.value or "").casefold()
    for span in resolve_dates(clause, said_at):
        if value and _overlaps(span.text.casefold(), value):
            continue  # the date is the fact's value ("My wife's birthday is on March 3"), not when it happens
        if span.start.astimezone(said_at.tzinfo).date() > day:
            return span
    return None


def _overlaps(span: str, value: str) -> bool:
    """The date's text and the fact's value share their words (one holds the other)."""
    return span in value or value in span


@lru_cache(maxsize=2)
def _enders(lang: str) -> re.Pattern:
    """The verbs of the frame classes that end a value (polarity -1: "left", "quit", 离职, 辞职; frames.json), and in
    English their -ing form after a completed marker ("after leaving", ``completed_markers``)."""
    verbs = tuple(v for spec in langdata.load("frames", lang).get("classes", {}).values()
                  if int(spec.get("polarity", 1)) < 0 for v in spec["verbs"])
    alt = langdata.alternation(verbs)
    if lang == "zh":
        return re.compile(alt)
    from lemminflect import getInflection, getLemma  # lazy: tables load on first use

    done = langdata.alternation(tuple(langdata.load("frames", "en").get("completed_markers", [])))
    ing = set()  # "after leaving Adidas", "since quitting": the -ing form of an ending verb after a completed marker
    for v in verbs:
        head, _, rest = v.partition(" ")
        lemma = (getLemma(head.casefold(), upos="VERB") or (head,))[0]
        ing.update(f"{g} {rest}".strip() for g in getInflection(lemma, tag="VBG") or ())
    gerunds = langdata.alternation(tuple(ing))
    return re.compile(r"(?<![\w'’])(?:" + alt.replace("'", "['’]") + r"|(?:" + done + r")\s+(?:" + gerunds +
                      r"))(?![\w'’])", re.I)


def _ends_now(sentence: str) -> bool:
    """The sentence says the old value ended ("我从字节离职了，下周一去美团报到", "I quit Acme, I start at Initech next
    week"): the new value said with its date ahead replaces an ended one, it is no plan beside a current one."""
    return bool(_enders("en").search(sentence) or (has_cjk(sentence) and _enders("zh").search(sentence)))


def drop_plans(facts: list[Fact], said_at: datetime | None) -> list[Fact]:
    """``facts`` without the plans among them (:func:`planned`)."""
    return [f for f in facts if planned(f, said_at) is None]


def plan_sentences(text: str, said_at: datetime | None) -> list[str]:
    """The sentences of ``text`` (said at ``said_at``) that state a plan as the write path reads one: a slot fact
    of the sentence (:func:`anchormem.facts.rules.extract_from_text`) that :func:`planned` finds planned ("I'm
    moving to Edinburgh next month.", "我下个月搬去杭州。"). A sentence that only names a date ahead ("There were 7
    people, 6 want to do it again next month!", "getting ready for a fundraiser next week") is none. ``[]``
    without a time."""
    from ..text.segment import split_sentences
    from .rules import extract_from_text

    if said_at is None:
        return []
    return [sent for sent in split_sentences(text)
            if any(planned(f, said_at) is not None for f in extract_from_text(sent))]
