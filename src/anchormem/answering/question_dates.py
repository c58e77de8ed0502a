"""The calendar date a question names, for the evidence test (:mod:`.evidence`): the date is ONE key term, covered
when a memory was said or its event happened then.

:func:`question_date` reads the first date of a question in any form the write path's resolver reads
(:func:`anchormem.text.dates.resolve_dates`: "2025-01-10", "10 January 2025", "January 10th", "1月10号",
"2025年1月10日") plus the forms a question uses without a day ("in February", "in 2022", "2022年"). A question that
names a date and otherwise only asks what was said or what happened then ("What did I say on 2025-01-10?", "What
happened in February?", "1月10号我说了什么") has the date as its only key term: the words that ask for "what was
said / happened" are language data (``data/lang/<lang>/dates.json`` ``said_words``), dropped from a dated question's
key terms by :func:`said_word`; the month names a question may use are data too (``months``).
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import lru_cache
from typing import Any

from ..langdata import mapping, words
from ..text.dates import resolve_dates
from ..text.tokenize import stem

__all__ = ["QDate", "question_date", "date_matches", "said_word", "state_time"]

QDate = tuple[int | None, int, int | None]  # (year or None, month 1-12 or 0 for a year alone, day or None)


@lru_cache(maxsize=1)
def _months() -> dict[str, int]:
    """{month name or abbreviation: 1-12} (``data/lang/en/dates.json`` ``months``)."""
    return {k.casefold(): int(v) for k, v in mapping("dates", "months", ("en",)).items()}


@lru_cache(maxsize=1)
def _date_patterns() -> list[re.Pattern[str]]:
    """The forms the resolver leaves to a question: "3 of June", a month without a year after a preposition, a
    year alone; the month names are data (:func:`_months`)."""
    mon = r"(?P<mon>" + "|".join(sorted(map(re.escape, _months()), key=len, reverse=True)) + r")\.?"
    day = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
    year = r"(?P<year>(?:19|20)\d{2})"
    return [re.compile(p, re.I) for p in (
        rf"\b{day}\s+(?:of\s+)?{mon}(?:,?\s+{year})?\b",      # 3 June, 2023
        rf"\b{mon}\s+{day}\b(?:,?\s+{year})?",                 # May 3, 2023
        rf"\b{mon}(?:,?\s+(?:of\s+)?{year})\b",                  # August 2023
        rf"\b(?:in|during|of|since|before|after|around)\s+{mon}\b(?!\s+\d)",  # in June (a month without a year)
        r"(?:(?P<year>\d{4})\s*年)?\s*(?P<mon>\d{1,2})\s*月(?:\s*(?P<day>\d{1,2})\s*[日号])?",  # 2023年5月3日
        rf"(?:\bin\s+|\bof\s+|\bduring\s+|\bsince\s+|\bbefore\s+|\bafter\s+)?\b{year}\b(?!\s*[-/])|(?P<zy>\d{{4}})\s*年",
    )]


_ANCHOR = _dt.datetime(2000, 6, 15, 12, tzinfo=_dt.timezone.utc)  # years are read off the text, never this


def _from_pattern(question: str) -> tuple[QDate, tuple[int, int]] | None:
    """The earliest match of :func:`_date_patterns` (first pattern on a tie)."""
    best: tuple[QDate, tuple[int, int]] | None = None
    for pat in _date_patterns():
        for m in pat.finditer(question):
            g = m.groupdict()
            mon = g.get("mon")
            if mon is None:
                qd: QDate = (int(g.get("year") or g.get("zy")), 0, None)
            else:
                month = int(mon) if mon.isdigit() else _months()[mon.casefold().rstrip(".")]
                if not 1 <= month <= 12:
                    continue
                qd = (int(g["year"]) if g.get("year") else None, month, int(g["day"]) if g.get("day") else None)
            if best is None or m.start() < best[1][0]:
                best = (qd, m.span())
            break  # a pattern's first valid match only
    return best


def _from_resolver(question: str) -> tuple[QDate, tuple[int, int]] | None:
    """The first absolute date :func:`~anchormem.text.dates.resolve_dates` reads ("2025-01-10", "10 January
    2025"): a day, a month or a year; relative ones ("yesterday") name no calendar date."""
    for span in resolve_dates(question, _ANCHOR):
        if span.relative and not span.yearless:
            continue
        a, b = span.start.date(), span.end.date()
        year = None if span.yearless else a.year
        if a == b:
            qd: QDate = (year, a.month, a.day)
        elif (a.month, a.day, b.month, b.day) == (1, 1, 12, 31) and a.year == b.year:
            qd = (year, 0, None)
        elif (a.year, a.month) == (b.year, b.month):
            qd = (year, a.month, None)
        else:
            continue
        at = question.find(span.text)
        if at >= 0:
            return qd, (at, at + len(span.text))
    return None


def question_date(question: str) -> tuple[QDate | None, set[str], tuple[int, int] | None]:
    """The first calendar date named in ``question``: ((year, month, day), the date's words, its character span),
    or (None, set(), None). Month 0 = a year alone ("in 2022", "2022年"). English month names (a bare "May" only
    with a day or year), ISO dates and Chinese ``年/月/日/号`` numerals. Of two readings of one place the earlier
    start wins, then the longer one (the resolver's "10 January 2025" over the pattern's "10 January")."""
    found = [x for x in (_from_resolver(question), _from_pattern(question)) if x is not None]
    if not found:
        return None, set(), None
    qd, (s, e) = min(found, key=lambda x: (x[1][0], -(x[1][1] - x[1][0])))
    return qd, set(re.findall(r"\w+", question[s:e].lower())), (s, e)


def date_matches(qdate: QDate, hit: Any, slack_days: int = 3) -> bool:
    """The memory was said (``created_at``), or its event happened (``event_time``…``event_time_end``), at the
    question's date: the same day ± ``slack_days``, the same month, or the same year (a part the question leaves
    out — year or day — matches anything)."""
    year, month, day = qdate
    m = hit.memory
    spans = [(m.created_at.date(), m.created_at.date())]
    if m.event_time is not None:
        spans.append((m.event_time.date(), (m.event_time_end or m.event_time).date()))
    for lo, hi in spans:
        if day is not None and month:
            for y in ([year] if year else sorted({lo.year, hi.year})):
                try:
                    t = _dt.date(y, month, day)
                except ValueError:
                    continue
                if lo - _dt.timedelta(days=slack_days) <= t <= hi + _dt.timedelta(days=slack_days):
                    return True
            continue
        d = lo
        while d <= hi:  # event spans are short (a day, a weekend, a month)
            if (year is None or d.year == year) and (not month or d.month == month):
                return True
            if (d.year, d.month) == (hi.year, hi.month):
                break
            d = (d.replace(day=1) + _dt.timedelta(days=32)).replace(day=1)
    return False


@lru_cache(maxsize=1)
def _said() -> frozenset[str]:
    ws = words("dates", "said_words")
    return frozenset(w.casefold() for w in ws) | frozenset(stem(w.casefold()) for w in ws if w.isascii())


def said_word(term: str) -> bool:
    """``term`` (a query term) only asks what was said or what happened ("say", "happened", "说", "发生"): no key
    term in a question that names a date (``data/lang/<lang>/dates.json`` ``said_words``)."""
    t = term.casefold()
    return t in _said() or (t.isascii() and stem(t) in _said())


_BEFORE = re.compile(r"(?:\bbefore\s*|之前|以前|前)$", re.I)
_POINT_PREP = re.compile(r"(?:\b(?:in|during|of|around|on|at the end of|by)\s*|的时候|那时候?|时)$", re.I)


def state_time(question: str, now: _dt.datetime) -> tuple[str, _dt.datetime] | None:
    """A question asking what held at a calendar period it names ("Where did I live in March 2024?",
    "2024年3月我住在哪里？", "What was my rent before 2023?"): (the question without the date, the last instant of
    that period, or the instant before it after "before" / 之前), or None when the question names no date with a
    year, names one that has not ended by ``now``, or relates it otherwise ("since", "after"). The caller reads the
    question as of that instant when it asks about one of the user's slots."""
    qd, _, span = question_date(question)
    if qd is None or span is None or qd[0] is None:
        return None
    year, month, day = qd
    head, tail = question[:span[0]], question[span[1]:]
    lead = re.match(r"\s*(before|since|after|in|during|of|around|on)\s+", question[span[0]:span[1]], re.I)
    if lead:  # (the date's own words may open with their preposition: "before 2023")
        head += lead.group(0)
    before = bool(_BEFORE.search(head.rstrip()) or re.match(r"\s*(?:之前|以前)", tail))
    if not before and re.search(r"(?:\bsince|\bafter|以来|之后|以后)\s*$", head.rstrip(), re.I) or \
            re.match(r"\s*(?:以来|之后|以后)", tail):
        return None
    try:
        if before:
            at = _dt.datetime(year, month or 1, day or 1, tzinfo=_dt.timezone.utc) - _dt.timedelta(seconds=1)
        elif day:
            at = _dt.datetime(year, month, day, 23, 59, 59, tzinfo=_dt.timezone.utc)
        elif month:
            nxt = _dt.datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=_dt.timezone.utc)
            at = nxt - _dt.timedelta(seconds=1)
        else:
            at = _dt.datetime(year, 12, 31, 23, 59, 59, tzinfo=_dt.timezone.utc)
    except ValueError:
        return None
    if at >= now:
        return None
    head = _POINT_PREP.sub("", _BEFORE.sub("", head.rstrip()))
    tail = re.sub(r"^\s*(?:之前|以前)", "", tail)
    rest = re.sub(r"\s+([?？.!,，])", r"\1", (head.rstrip() + " " + tail.lstrip()).strip())
    return (rest, at) if re.search(r"\w", rest) else None
