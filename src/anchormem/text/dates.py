"""Resolve dates mentioned in a turn ("yesterday", "last week", "上周三", "8 May 2023") against the turn's own
timestamp, not against the current clock.

Each mention becomes a :class:`DateSpan` with an inclusive day range ``[start, end]`` (timezone-aware UTC; day
boundaries are taken in the anchor's own UTC offset). Calendar weeks run Monday-Sunday. Absolute dates found by
the patterns here are parsed with ``dateparser`` (missing years come from the anchor, preferring the past).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from ..timeutil import in_range

__all__ = ["DateSpan", "resolve_dates"]


@dataclass(frozen=True)
class DateSpan:
    """A resolved date mention: ``text`` as written, ``start``/``end`` aware UTC (inclusive day range).
    ``yearless``: an absolute date written without its year ("May 4th", "5月4日", "in April"), its year taken from
    the anchor (:func:`_nearest_year`; a question's reader may infer another: :mod:`anchormem.retrieval.dated`)."""

    text: str
    start: datetime
    end: datetime
    relative: bool
    yearless: bool = False


_NUM_EN = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a few": 3, "few": 3, "a couple of": 2, "couple of": 2,
    "several": 3,
}
_NUM_ZH = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
           "半": 0.5, "几": 3}
_WEEKDAYS_EN = {d.lower(): i for i, d in enumerate(calendar.day_name)}
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_MON_ABBR = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"

_EN_NUM_RE = r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_ZH_NUM_RE = r"(\d+|[一两二三四五六七八九十半几]+)"

_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("day_before_yesterday", re.compile(r"\b(the )?day before yesterday\b", re.I)),
    ("day_after_tomorrow", re.compile(r"\b(the )?day after tomorrow\b", re.I)),
    ("yesterday", re.compile(r"\byesterday\b|\blast night\b", re.I)),
    ("today", re.compile(r"\btoday\b|\btonight\b|\bthis (morning|afternoon|evening)\b", re.I)),
    ("tomorrow", re.compile(r"\btomorrow\b", re.I)),
    ("ago", re.compile(_EN_NUM_RE + r"\s+(day|week|month|year)s?\s+ago\b", re.I)),
    ("in_n", re.compile(r"\bin\s+" + _EN_NUM_RE + r"\s+(day|week|month|year)s?\b", re.I)),
    ("rel_weekday", re.compile(r"\b(last|this|next|past)\s+(" + "|".join(_WEEKDAYS_EN) + r")\b", re.I)),
    ("rel_weekend", re.compile(r"\b(last|this|next|past)\s+weekend\b", re.I)),
    ("rel_unit", re.compile(r"\b(last|this|next|past)\s+(week|month|year)\b", re.I)),
    # Chinese
    ("zh_day", re.compile(r"大前天|前天|昨天|昨晚|昨日|今天|今晚|今早|今日|明天|明晚|后天|大后天")),
    ("zh_week", re.compile(r"(上上|上|这|本|下下|下)(个)?(周|星期|礼拜)([一二三四五六日天末])?")),
    ("zh_month", re.compile(r"(上上|上|这|本|下)个?月")),
    ("zh_year", re.compile(r"前年|去年|今年|明年|后年")),
    # not after 月/年/a digit: "6月30日前" is "before June 30", not "30 days ago"
    ("zh_ago", re.compile(r"(?<![月年\d])" + _ZH_NUM_RE + r"\s*(天|日|周|星期|个星期|个月|月|年)(前|以前|之前|后|以后|之后)")),
    # absolute
    ("zh_abs", re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?")),
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("en_abs", re.compile(
        r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(" + _MONTHS + "|" + _MON_ABBR + r")\.?,?\s+(\d{4})\b"
        r"|\b(" + _MONTHS + "|" + _MON_ABBR + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b"
        r"|\b(" + _MONTHS + r")\s+(\d{4})\b", re.I)),
]


def _num(tok: str) -> float:
    tok = tok.lower().strip()
    if tok.isdigit():
        return int(tok)
    if tok in _NUM_EN:
        return _NUM_EN[tok]
    if tok in _NUM_ZH:
        return _NUM_ZH[tok]
    if all(c in _NUM_ZH for c in tok):  # 十二, 二十
        if tok.startswith("十"):
            return 10 + (_NUM_ZH.get(tok[1:], 0) if len(tok) > 1 else 0)
        if "十" in tok:
            a, _, b = tok.partition("十")
            return _NUM_ZH.get(a, 1) * 10 + (_NUM_ZH.get(b, 0) if b else 0)
    return 1


def _add_months(d: date, n: int) -> date:
    m = d.month - 1 + n
    y = d.year + m // 12
    m = m % 12 + 1
    return date(y, m, min(d.day, calendar.monthrange(y, m)[1]))


def _month_range(d: date) -> tuple[date, date]:
    return d.replace(day=1), d.replace(day=calendar.monthrange(d.year, d.month)[1])


def _week_range(d: date) -> tuple[date, date]:
    start = d - timedelta(days=d.weekday())
    return start, start + timedelta(days=6)


def _span(text: str, a: date, b: date, tz, relative: bool = True, yearless: bool = False) -> DateSpan:
    start = datetime.combine(a, time.min, tzinfo=tz).astimezone(timezone.utc)
    end = datetime.combine(b, time(23, 59, 59), tzinfo=tz).astimezone(timezone.utc)
    return DateSpan(text, start, end, relative, yearless)


def _unit_offset(today: date, n: float, unit: str, sign: int) -> tuple[date, date]:
    unit = unit.lower()
    if unit in ("day", "天", "日"):
        d = today + timedelta(days=sign * int(n))
        return d, d
    if unit in ("week", "周", "星期", "个星期"):
        d = today + timedelta(days=sign * int(round(7 * n)))
        return (d, d) if n >= 1 else (min(d, today), max(d, today))
    if unit in ("month", "个月", "月"):
        d = _add_months(today, sign * max(1, int(n)))
        return d, d
    d = _add_months(today, sign * 12 * max(1, int(n)))
    return d, d


def _resolve_one(kind: str, m: re.Match, today: date, tz) -> tuple[date, date, bool] | None:
    g = m.groups()
    if kind == "day_before_yesterday":
        d = today - timedelta(days=2)
    elif kind == "day_after_tomorrow":
        d = today + timedelta(days=2)
    elif kind == "yesterday":
        d = today - timedelta(days=1)
    elif kind == "today":
        d = today
    elif kind == "tomorrow":
        d = today + timedelta(days=1)
    elif kind == "ago":
        a, b = _unit_offset(today, _num(g[0]), g[1], -1)
        return a, b, True
    elif kind == "in_n":
        a, b = _unit_offset(today, _num(g[0]), g[1], +1)
        return a, b, True
    elif kind == "rel_weekday":
        which, wd = g[0].lower(), _WEEKDAYS_EN[g[1].lower()]
        if which in ("last", "past"):
            delta = (today.weekday() - wd) % 7 or 7
            d = today - timedelta(days=delta)
        elif which == "next":
            delta = (wd - today.weekday()) % 7 or 7
            d = today + timedelta(days=delta)
        else:
            d = _week_range(today)[0] + timedelta(days=wd)
    elif kind == "rel_weekend":
        which = g[0].lower()
        shift = {"last": -7, "past": -7, "this": 0, "next": 7}[which]
        sat = _week_range(today)[0] + timedelta(days=5 + shift)
        return sat, sat + timedelta(days=1), True
    elif kind == "rel_unit":
        which, unit = g[0].lower(), g[1].lower()
        n = {"last": -1, "past": -1, "this": 0, "next": 1}[which]
        if unit == "week":
            a, b = _week_range(today + timedelta(days=7 * n))
        elif unit == "month":
            a, b = _month_range(_add_months(today.replace(day=1), n))
        else:
            y = today.year + n
            a, b = date(y, 1, 1), date(y, 12, 31)
        return a, b, True
    elif kind == "zh_day":
        off = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "昨日": -1, "今天": 0, "今晚": 0, "今早": 0,
               "今日": 0, "明天": 1, "明晚": 1, "后天": 2, "大后天": 3}[m.group()]
        d = today + timedelta(days=off)
    elif kind == "zh_week":
        n = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}[g[0]]
        a, b = _week_range(today + timedelta(days=7 * n))
        if g[3] == "末":
            return a + timedelta(days=5), b, True
        if g[3]:
            d = a + timedelta(days=_WEEKDAYS_ZH[g[3]])
            return d, d, True
        return a, b, True
    elif kind == "zh_month":
        n = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}[g[0]]
        a, b = _month_range(_add_months(today.replace(day=1), n))
        return a, b, True
    elif kind == "zh_year":
        y = today.year + {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}[m.group()]
        return date(y, 1, 1), date(y, 12, 31), True
    elif kind == "zh_ago":
        sign = -1 if g[2] in ("前", "以前", "之前") else 1
        a, b = _unit_offset(today, _num(g[0]), g[1], sign)
        return a, b, True
    elif kind == "zh_abs":
        y = int(g[0]) if g[0] else today.year
        mo = int(g[1])
        if not 1 <= mo <= 12:
            return None
        if g[2]:
            dd = int(g[2])
            if not 1 <= dd <= calendar.monthrange(y, mo)[1]:
                return None
            d = date(y, mo, dd) if g[0] else _nearest_year(mo, dd, today)
            return d, d, not g[0]
        return _month_range(date(y, mo, 1)) + (not g[0],)
    elif kind == "iso":
        try:
            d = date(int(g[0]), int(g[1]), int(g[2]))
        except ValueError:
            return None
        return d, d, False
    elif kind == "en_abs":
        return _parse_en_abs(m.group(), today)
    else:  # pragma: no cover - every pattern kind is handled above
        return None
    return d, d, True


def _nearest_year(month: int, day: int, today: date) -> date:
    """A day-month without a year means the occurrence nearest to the anchor ("March 22" said on 2024-03-04 is
    2024-03-22; "Dec 30" said on 2024-01-02 is 2023-12-30)."""
    best = None
    for y in (today.year - 1, today.year, today.year + 1):
        try:
            d = date(y, month, day)
        except ValueError:  # 29 February in a non-leap year
            continue
        if best is None or abs((d - today).days) < abs((best - today).days):
            best = d
    return best or date(today.year, month, min(day, 28))


def _parse_en_abs(text: str, today: date) -> tuple[date, date, bool] | None:
    import dateparser

    has_day = bool(re.search(r"\b\d{1,2}(st|nd|rd|th)?\b", re.sub(r"\b\d{4}\b", "", text)))
    has_year = bool(re.search(r"\b\d{4}\b", text))
    base = datetime.combine(today, time(12, 0))
    parsed = dateparser.parse(
        text,
        languages=["en"],
        settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past", "PREFER_DAY_OF_MONTH": "first"},
    )
    if parsed is None:
        return None
    d = parsed.date()
    if has_day and not has_year:
        d = _nearest_year(d.month, d.day, today)
    if not has_day:
        a, b = _month_range(d)
        return a, b, not has_year
    return d, d, not has_year


def resolve_dates(text: str, anchor: datetime) -> list[DateSpan]:
    """Every date mention in ``text`` resolved against ``anchor`` (an aware datetime: the turn's timestamp).

    Returns spans in order of appearance; overlapping matches keep the first, longest pattern. A mention that
    resolves outside the supported time range (:data:`anchormem.timeutil.MIN_TIME` ..
    :data:`~anchormem.timeutil.MAX_TIME`, e.g. "in 9000 years" or "9999-12-31") is left out: it stays in the
    text, unresolved. Never raises for a date's size.
    """
    if anchor.tzinfo is None:
        anchor = anchor.replace(tzinfo=timezone.utc)
    tz = anchor.tzinfo
    today = anchor.date()
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, DateSpan]] = []
    for kind, pat in _PATTERNS:
        for m in pat.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            if kind == "en_abs" and m.group().lower().startswith("may ") and not re.search(r"\d{4}|\d", m.group()):
                continue
            try:
                res = _resolve_one(kind, m, today, tz)
                yearless = kind in ("zh_abs", "en_abs") and not re.search(r"\d{4}", m.group())
                span = None if res is None else _span(m.group(), res[0], res[1], tz, res[2], yearless)
            except (OverflowError, ValueError):  # beyond Python's years 1-9999 ("in 99999 days")
                continue
            if span is None or not (in_range(span.start) and in_range(span.end)):
                continue  # outside the supported time range (anchormem.timeutil): left unresolved, as text
            taken.append((s, e))
            found.append((s, span))
    found.sort(key=lambda x: x[0])
    return [sp for _, sp in found]
