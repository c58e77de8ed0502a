"""Plans: a fact said with a date after the turn's own day is what the speaker plans, not what holds now.

"I'm moving to York next month", "下个月搬去苏州", "下周一去美团报到": the clause's date
(:func:`anchormem.text.dates.resolve_dates`, against the turn's time on the speaker's calendar) starts after the day
the turn was said, so its home, employer or job is not the current value yet and closes nothing. An amount announced
for a date ahead ("the rent goes up to 2,050 starting next month", 下个月开始三千五) is a decided price, not a plan
of the speaker's: numeric slots (rent, salary, an age: :func:`~anchormem.facts.changes.is_numeric_slot`) are not
gated here; nor is a value said beside the end of the old one ("我从字节离职了，下周一去美团报到": a verb of a
frame class of polarity -1, frames.json; "I'm starting at Puma next week after leaving Adidas").

A plan whose date resolves ("next month", "on the 15th", 下周一) is **scheduled** (:func:`scheduled_start`,
:func:`schedule`): its fact is stored with ``valid_from`` = that date and closes the value it replaces then, so it is
current from its date with no write at that moment (reads decide against their ``as_of``, else now:
:func:`anchormem.facts.claims.scheduled_ahead`). A plan whose time ahead does not resolve ("next spring", 开春) is
not stored as a change (its turn stays an ordinary utterance memory, findable by search). It becomes current when
the speaker later says it came true without restating the value ("Done moving!", 搬完了, 入职了, "it's official":
:func:`completed_attributes`, words of ``completion`` in ``data/lang/<lang>/plans.json``):
:func:`~anchormem.facts.reconcile.plan_facts` then reads the latest open plan of that action (:func:`plan_facts_of`)
as the completion's own fact, from its time (for a scheduled plan, a restatement: NOOP).

A **maybe** (:func:`maybe`: "明年可能会跳槽去阿里吧，还没想好", "Thinking about jumping ship, haven't decided") is no
plan and no change either: its sentence says the speaker has not decided (``undecided``), or its clause hedges
what will happen (``hedged_future``: 可能会, "might") about a date ahead. It is dropped like a plan: never current,
never queued for review.

    planned(Fact(attribute="home_city", value="York", clause="I'm moving to York next month", ...),
            said_at=datetime(2024, 3, 4, tzinfo=timezone.utc))   # -> DateSpan("next month", 2024-04-01 ...)
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import lru_cache

from .. import langdata
from ..text.clause_time import clause_dates
from ..text.dates import DateSpan
from ..text.tokenize import has_cjk
from .changes import is_numeric_slot
from .model import Fact

__all__ = ["planned", "scheduled_start", "schedule", "maybe", "drop_plans", "plan_sentences", "plan_facts_of", "completed_attributes", "says_future",
           "says_ahead", "action_patterns"]


def _fact_dates(fact: Fact, clause: str, said_at: datetime, values: tuple[str, ...],
                turn: str = "") -> list[DateSpan]:
    """The dates of ``fact``'s clause read by its tense, else the time phrase of its sentence, else an onset sentence
    right after it in ``turn`` (:func:`anchormem.text.clause_time.clause_dates`; ``values``: the values its turn
    states)."""
    at = turn.find(fact.source_span) if turn and fact.source_span else -1
    return clause_dates(clause, said_at, sentence=fact.source_span,
                        values=tuple(v for v in values if v) or ((fact.value or ""),),
                        after=turn[at + len(fact.source_span):] if at >= 0 else "")


def planned(fact: Fact, said_at: datetime | None, values: tuple[str, ...] = ()) -> DateSpan | None:
    """The date ahead that makes ``fact`` a plan (a date span of its clause, or of its sentence's time phrase,
    starting after ``said_at``'s day: :func:`_fact_dates`; for an ``ahead`` phrase of plans.json beside the value,
    in a clause where no date resolves, "next spring", the day after ``said_at``'s), or None (no such date, no time
    known, or a numeric slot). ``values``: the values the fact's turn states (:func:`clause_dates`)."""
    if said_at is None or is_numeric_slot(fact.attribute):
        return None
    clause = fact.clause or fact.source_span
    if not clause or _ends_now(fact.source_span or clause):
        return None
    day = said_at.date()
    value = (fact.value or "").casefold()
    dated = False
    for span in _fact_dates(fact, clause, said_at, values):
        if value and _overlaps(span.text.casefold(), value):
            continue  # the date is the fact's value ("My wife's birthday is on March 3"), not when it happens
        if span.start.astimezone(said_at.tzinfo).date() > day:
            return span
        dated = True
    own = "" if dated or not value else next(  # the piece of the clause that holds the value ("…, $17.99 a month
        (p for p in _CLAUSE_END.split(clause) if value in p.casefold()), "")  # now. cancelling soon.": not soon)
    ahead = _words_rx("ahead", "zh" if has_cjk(own) else "en").search(own) if own else None
    if ahead is not None:  # a time ahead no date resolves ("next spring", 开春): from the next day on
        start = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=said_at.tzinfo)
        return DateSpan(ahead.group(0), start, start + timedelta(days=1, microseconds=-1), relative=True)
    return None


def scheduled_start(fact: Fact, said_at: datetime | None, values: tuple[str, ...] = (),
                    turn: str = "") -> datetime | None:
    """When ``fact`` takes effect, when its clause dates it ahead of the day it was said ("My son turns 7 next
    month", "the rent goes up to 1,500 from March 1", 下个月开始三千五): the start of that date, resolved against
    ``said_at`` (:func:`_fact_dates`: "on the 1st", 1号起 read by the clause's tense; a clause with no date of its
    own takes its sentence's time phrase: "我下个月搬家，搬到杭州滨江"). None when no date of the clause resolves ahead of that
    day (an ``ahead`` phrase no date resolves, "next spring", schedules nothing), when no time is known, or when the
    sentence says the old value ended now ("I quit Acme, I start at Initech next week": the old one ends today).
    ``turn``: the words of the whole turn, for an onset sentence after the fact's ("Starting next March.")."""
    if said_at is None:
        return None
    clause = fact.clause or fact.source_span
    if not clause or _ends_now(fact.source_span or clause):
        return None
    day, value = said_at.date(), (fact.value or "").casefold()
    for span in _fact_dates(fact, clause, said_at, values, turn):
        if value and _overlaps(span.text.casefold(), value):
            continue  # the date is the value itself ("my birthday is on March 3")
        if span.start.astimezone(said_at.tzinfo).date() > day:
            return span.start
        return None  # dated on or before the day said ("last month I turned 30"): no schedule
    return None


def schedule(facts: list[Fact], said_at: datetime | None, turn: str = "") -> list[Fact]:
    """``facts`` (plans and maybes already out: :func:`drop_plans`) with ``starts`` set on each one that takes effect
    on a date ahead (:func:`scheduled_start`; ``turn``: the words of the turn they were read from): the write path
    stores it with ``valid_from`` = that time and closes the value it replaces then, not when it was said."""
    out = []
    values = tuple(f.value or "" for f in facts)
    for f in facts:
        start = scheduled_start(f, said_at, values, turn)
        out.append(f if start is None else f.model_copy(update={"starts": start}))
    return out


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


@lru_cache(maxsize=8)
def _words_rx(key: str, lang: str) -> re.Pattern:
    """The words of list ``key`` of data/lang/<lang>/plans.json as one pattern (English as whole words; a clitic
    such as "'ll" right after its word)."""
    entries = tuple(langdata.load("plans", lang).get(key, []))
    if lang == "zh":
        return re.compile(langdata.alternation(entries))
    clitics = langdata.alternation(tuple(e for e in entries if e[:1] in "'’")).replace("'", "['’]")
    whole = langdata.alternation(tuple(e for e in entries if e[:1] not in "'’")).replace("'", "['’]")
    return re.compile(r"(?:(?<![\w'’])(?:" + whole + r")|(?<=\w)(?:" + clitics + r"))(?![\w'’])", re.I)


def says_future(text: str) -> bool:
    """``text`` holds a ``future_markers`` word of plans.json: it tells what will happen ("I'll run the Lisbon half",
    "我女儿六一要参加钢琴演出")."""
    return _says("future_markers", text)


def says_ahead(text: str) -> bool:
    """``text`` tells what will happen: a ``future_markers`` word or an ``ahead`` phrase of plans.json ("My sister
    is moving to Rome next spring", 我妹妹明年要搬去罗马), whether or not its date resolves."""
    return _says("future_markers", text) or _says("ahead", text)


def _says(key: str, text: str) -> bool:
    """``text`` holds a word of list ``key`` of plans.json (English; Chinese too when it has Chinese)."""
    return bool(_words_rx(key, "en").search(text) or (has_cjk(text) and _words_rx(key, "zh").search(text)))


def maybe(fact: Fact, said_at: datetime | None, values: tuple[str, ...] = ()) -> bool:
    """``fact`` is only a maybe (see the module doc): its sentence holds an ``undecided`` word of plans.json ("还没想好",
    "haven't decided") and its clause says what will happen (a hedge, a future marker or a date ahead; "I moved to
    Berlin, not sure yet if I'll stay" is a move), or its clause a ``hedged_future`` word (可能, "maybe") and a ``future_markers`` word (会, 要,
    "will", "'ll": 可能会, "Maybe I'll move to Rome") or a date ahead of ``said_at``. A numeric slot too: "maybe
    30k, 但还没决定"."""
    sentence = fact.source_span or fact.clause
    if not sentence:
        return False
    clause = fact.clause or sentence

    def ahead() -> bool:  # a date of the clause after the day said
        return said_at is not None and any(span.start.astimezone(said_at.tzinfo).date() > said_at.date()
                                           for span in _fact_dates(fact, clause, said_at, values))

    if _says("undecided", sentence):  # (of what the clause says will happen: "I moved to Berlin, not sure yet if
        return _says("undecided", clause) or _says("future_markers", clause) or \
            _says("hedged_future", clause) or ahead()  # I'll stay" is a move)
    if not _says("hedged_future", clause):
        return False
    return _says("future_markers", clause) or ahead()  # 可能会 / 也许要 / "Maybe I'll": on what will happen


def drop_plans(facts: list[Fact], said_at: datetime | None) -> list[Fact]:
    """``facts`` without the plans (:func:`planned`) and the maybes (:func:`maybe`) among them. A plan whose date
    resolves ("I start at Stripe next month", 下周一开始去新公司上班) is kept: it is scheduled (:func:`schedule`), current
    from that date; one whose time ahead does not resolve ("next spring", "someday") stays a plan."""
    values = tuple(f.value or "" for f in facts)
    return [f for f in facts if not maybe(f, said_at, values) and
            (planned(f, said_at, values) is None or scheduled_start(f, said_at, values) is not None)]


def plan_facts_of(text: str, said_at: datetime | None, *, entity: str = "user") -> list[Fact]:
    """The facts ``text`` (said at ``said_at``) states as a plan (:func:`planned`, not a :func:`maybe`), as the
    rules, the job reader and the place reader read them ("下个月搬去温哥华" -> [home_city=温哥华], "I'm starting at
    Stripe next month" -> [employer=Stripe]); ``[]`` without a time."""
    from .jobs import job_facts
    from .places import home_facts
    from .rules import extract_from_text

    if said_at is None:
        return []
    facts = extract_from_text(text, entity=entity)
    facts += [f for f in job_facts(text, entity=entity, current=lambda a: []) if f.polarity > 0]  # 下周一去美团报到
    if not any(f.attribute == "home_city" for f in facts):
        facts += home_facts(text, entity=entity)
    return [f for f in facts if planned(f, said_at) is not None and not maybe(f, said_at)]


def _completions(lang: str) -> tuple[tuple[re.Pattern, tuple[str, ...]], ...]:
    """(pattern, attributes) per action of ``completion`` in data/lang/<lang>/plans.json."""
    return action_patterns(lang, "completion")


@lru_cache(maxsize=16)
def action_patterns(lang: str, key: str) -> tuple[tuple[re.Pattern, tuple[str, ...]], ...]:
    """(pattern, attributes) per action of the table ``key`` of data/lang/<lang>/plans.json (``completion``,
    ``called_off``): each action's words as whole words (any case; a Chinese word anywhere), with the attributes
    it completes or calls off."""
    out = []
    for spec in (langdata.load("plans", lang).get(key) or {}).values():
        alt = langdata.alternation(tuple(spec.get("words", [])))
        rx = re.compile(alt if lang == "zh" else r"(?<![\w'’])(?:" + alt.replace("'", "['’]") + r")(?![\w'’])", re.I)
        out.append((rx, tuple(spec.get("attributes", []))))
    return tuple(out)


_CLAUSE_END = re.compile(r"[,.;:!?，。；：！？~～]")


def completed_attributes(text: str) -> tuple[str, ...] | None:
    """The attributes of the plans ``text`` says came true (``completion`` words of plans.json: "Done moving!" ->
    ("home_city",), 入职了 -> ("employer", "occupation"); ``()`` for an action of any attribute: "it's official"), or
    None when it says none. A completion word after a ``not_done`` word of its clause ("还没搬完", "not done moving",
    "can't wait to be moved in") or before a ``not_done_after`` one ("moved in yet?", 入职了吗) does not count; nor a
    question."""
    if text.rstrip().endswith(("?", "？")):
        return None
    langs = ("en", "zh") if has_cjk(text) else ("en",)
    for lang in langs:
        for rx, attrs in _completions(lang):
            for m in rx.finditer(text):
                cut = max((c.end() for c in _CLAUSE_END.finditer(text, 0, m.start())), default=0)
                before, after = text[cut:m.start()], text[m.end():]
                nxt = _CLAUSE_END.search(after)
                after = after[:nxt.start()] if nxt else after
                if any(_words_rx(k, lg).search(t) for lg in langs for k, t in (("not_done", before),
                                                                              ("not_done_after", after))):
                    continue
                return attrs
    return None


def plan_sentences(text: str, said_at: datetime | None) -> list[str]:
    """The sentences of ``text`` (said at ``said_at``) that state a plan as the write path reads one: a slot fact
    of the sentence (:func:`anchormem.facts.rules.extract_from_text`) that :func:`planned` finds planned ("I'm
    moving to Edinburgh next month.", "我下个月搬去杭州。") or that is a :func:`maybe` ("我可能会搬到北京。"). A sentence that only names a date ahead ("There were 7
    people, 6 want to do it again next month!", "getting ready for a fundraiser next week") is none. ``[]``
    without a time."""
    from ..text.segment import split_sentences
    from .rules import extract_from_text

    if said_at is None:
        return []
    return [sent for sent in split_sentences(text)
            if any(planned(f, said_at) is not None or maybe(f, said_at) for f in extract_from_text(sent))]
