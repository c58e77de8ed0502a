"""Resolve dates mentioned in a turn ("yesterday", "last week", "上周三", "8 May 2023") against the turn's own
timestamp, not against the current clock.

Each mention becomes a :class:`DateSpan` with an inclusive day range ``[start, end]`` (timezone-aware UTC; day
boundaries are taken in the anchor's own UTC offset). Calendar weeks run Monday-Sunday. Absolute dates found by
the patterns here are parsed with ``dateparser`` (missing years come from the anchor, preferring the past).

Read with a clause's tense (``resolve_dates(text, anchor, tense="future" | "past" | "present")``: the reader of a
clause's time, :mod:`anchormem.text.clause_time`), a mention that only the tense places is read too: a bare day of the
month ("on the 1st", "from the 15th", 1号起, 15号开始: the next such day on or after the anchor's, or in the past tense
the last one on or before it), a day of a month named relatively (下个月15号, "the 15th of next month") and a part of
a month or year ("the end of next month", 这个月底, 年底): ``clause_time`` of ``data/lang/<lang>/dates.json``.
Without a tense they are not read (a bare "the 3rd" in a question or an event's words stays text); a day or part of a
month named relatively ("the 1st of next month", 下个月1号, 下个月底, 明年初) is read with or without one.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache

from .. import langdata
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


def _table(key: str, lang: str) -> dict:
    return langdata.load("dates", lang).get(key, {})


def _alt(entries, bounded: bool) -> str:
    alt = langdata.alternation(tuple(entries))
    return rf"\b(?:{alt})\b" if bounded else f"(?:{alt})"


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[str, re.Pattern]]:
    """The mention patterns, built on first use from ``data/lang/<lang>/dates.json`` (day_offsets,
    relative_modifiers, count_words, weekdays, calendar_units, ago / in_future, months...). Order matters: an
    earlier pattern's match wins an overlap."""
    en = langdata.load("dates", "en")
    zh = langdata.load("dates", "zh")
    cnt = r"(\d+|" + langdata.alternation(tuple(en["count_words"])) + ")"
    unit = "(" + langdata.alternation(tuple(en["calendar_units"])) + ")"
    mod = "(" + langdata.alternation(tuple(en["relative_modifiers"])) + ")"
    week_units = tuple(w for w, u in en["calendar_units"].items() if u != "day" and not w.endswith("s"))
    months = tuple(en["months"])
    full_months = "|".join(m for m in months if len(m) > 4 or m in ("may", "june", "july"))
    abbr = "|".join(m for m in months if m not in full_months.split("|"))
    zh_cnt = "(\\d+|[" + "".join(zh["count_words"]) + "]+)"
    zh_mod = "(" + langdata.alternation(tuple(zh["relative_modifiers"])) + ")"
    zh_measure = "(?:" + langdata.alternation(tuple(zh["measure_word"])) + ")"
    zh_units = "(" + langdata.alternation(tuple(zh["calendar_units"])) + ")"
    zh_dir = "(" + langdata.alternation(tuple(zh["ago"]) + tuple(zh["in_future"])) + ")"
    zh_num = "(\\d{1,2}|[" + "".join(zh["count_words"]) + "十]{1,3})"
    all_months = "(" + "|".join(sorted(months, key=len, reverse=True)) + r")\.?"
    return [
        # a month (and day) of a year named relatively: 明年三月, 去年3月15日, "next March", "March next year"
        ("zh_year_month", re.compile("(" + langdata.alternation(tuple(zh["year_offsets"])) + ")" + zh_num + "月(?:"
                                     + zh_num + "[日号])?")),
        ("en_rel_month", re.compile(r"\b(next|last|this)\s+" + all_months + r"(?!\s+\d)\b", re.I)),
        ("en_month_rel_year", re.compile(r"\b(?:in\s+)?" + all_months + r"\s+(?:of\s+)?(next|last|this)\s+year\b", re.I)),
        ("day", re.compile(_alt(en["day_offsets"], True), re.I)),
        ("ago", re.compile(cnt + r"\s+" + unit + r"\s+" + _alt(en["ago"], True), re.I)),
        ("in_n", re.compile(_alt(en["in_future"], True) + r"\s+" + cnt + r"\s+" + unit + r"\b", re.I)),
        ("rel_weekday", re.compile(r"\b" + mod + r"\s+(" + langdata.alternation(tuple(en["weekdays"])) + r")\b", re.I)),
        ("rel_weekend", re.compile(r"\b" + mod + r"\s+" + _alt(en["weekend"], True), re.I)),
        ("rel_unit", re.compile(r"\b" + mod + r"\s+(" + langdata.alternation(week_units) + r")\b", re.I)),
        # Chinese
        ("zh_day", re.compile(_alt(zh["day_offsets"], False))),
        ("zh_week", re.compile(zh_mod + f"({zh_measure})?(" + langdata.alternation(tuple(zh["week_words"])) + ")(["
                               + "".join(zh["weekdays"]) + "".join(zh["weekend"]) + "])?")),
        ("zh_month", re.compile(zh_mod + zh_measure + "?" + _alt(zh["month_words"], False))),
        ("zh_year", re.compile(_alt(zh["year_offsets"], False))),
        # not after 月/年/a digit: "6月30日前" is "before June 30", not "30 days ago"
        ("zh_ago", re.compile(r"(?<![月年\d])" + zh_cnt + r"\s*" + zh_units + zh_dir)),
        # absolute
        ("zh_abs", re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?")),
        ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
        ("en_abs", re.compile(
            r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(" + full_months + "|" + abbr + r")\.?,?\s+(\d{4})\b"
            r"|\b(" + full_months + "|" + abbr + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b"
            r"|\b(" + full_months + r")\s+(\d{4})\b", re.I)),
    ]


@lru_cache(maxsize=1)
def _tensed_patterns() -> tuple[list[tuple[str, re.Pattern]], list[tuple[str, re.Pattern]]]:
    """(patterns read before the others, patterns read after them) when a tense is known: parts of months and years
    and days of a month named relatively first (they hold a shorter mention: 这个月底 holds 这个月), bare days of the
    month last (3月15号 is an absolute date). Built from ``clause_time`` of data/lang/<lang>/dates.json."""
    en, zh = langdata.load("dates", "en"), langdata.load("dates", "zh")
    ce, cz = en.get("clause_time", {}), zh.get("clause_time", {})
    mod = "(" + langdata.alternation(tuple(en["relative_modifiers"])) + ")"
    zh_mod = "(" + langdata.alternation(tuple(zh["relative_modifiers"])) + ")"
    zh_measure = "(?:" + langdata.alternation(tuple(zh["measure_word"])) + ")?"
    zh_num = r"(\d{1,2}|[" + "".join(zh["count_words"]) + "十]{1,3})"
    marks = cz.get("day_marks", ["号"])
    zh_not = langdata.alternation(tuple(cz.get("not_day_after", [])))
    zh_before = r"(?<![\d" + "".join(re.escape(c) for c in cz.get("not_day_before", []) if len(c) == 1) + "".join(
        zh["count_words"]) + "十])"  # (not inside a longer number: 九十九号 is no 十九号)
    en_not = langdata.alternation(tuple(ce.get("not_day_after", [])))
    en_parts = langdata.alternation(tuple(ce.get("month_parts", {})))
    en_units = langdata.alternation(tuple(ce.get("month_part_units", {})))
    zh_parts = langdata.alternation(tuple(cz.get("month_parts", {})))
    zh_units = langdata.alternation(tuple(cz.get("month_part_units", {})))
    years = langdata.alternation(tuple(zh["year_offsets"]))
    first = [
        ("zh_month_day", re.compile(zh_mod + zh_measure + "月" + zh_num + "(?:" + langdata.alternation(tuple(marks))
                                    + ")(?!" + zh_not + ")")),
        ("zh_part", re.compile("(?:" + zh_mod + zh_measure + "(" + zh_units + ")|(" + years + ")|(" + zh_units
                               + "))(" + zh_parts + ")")),
        ("en_part", re.compile(r"\b(?:the\s+)?(" + en_parts + r")\s+of\s+(?:the\s+|" + mod + r"\s+)?(" + en_units
                               + r")\b", re.I)),
        ("en_month_day", re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\s+of\s+" + mod + r"\s+month\b", re.I)),
    ]
    last = [
        # 15号, 十五号; 日 after digits only (一日三餐 is no date): never after a digit nor a not_day_before word
        # (3月15号, 第3号, 建国路1号)
        ("zh_dom", re.compile(zh_before + zh_num + "(" + marks[0] + ")(?!" + zh_not + ")|" + zh_before + r"(\d{1,2})("
                              + langdata.alternation(tuple(marks[1:])) + ")(?!" + zh_not + ")")),
        ("en_dom", re.compile(r"\b(?:" + langdata.alternation(tuple(ce.get("day_frames", []))) + r")\s+(?:the\s+)?"
                              r"(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:" + en_not + r")\b)", re.I)),
        # a bare weekday (周五, "by Friday"): the next one after the day said in a plan, the last one before it in
        # the past (said on a Friday, "on Friday" is a week away or ago); never one said with
        # a modifier (上周五, "next Friday": read before), nor a habit's (每周五, "every Friday", "on Fridays")
        ("zh_wd", re.compile(r"(?<![" + "".join(zh["relative_modifiers"]) + "每])(?:周|星期|礼拜)([" + "".join(
            zh["weekdays"]) + "])(?![" + "".join(zh["weekend"]) + "])")),
        ("en_wd", re.compile(r"(?<!every )(?<!each )\b(" + langdata.alternation(tuple(en["weekdays"])) +
                             r")\b(?!s\b|\s+(?:mornings|afternoons|evenings|nights)\b)", re.I)),
    ]
    return first, last


def _day_of_month(today: date, day: int, direction: int) -> date | None:
    """The first day numbered ``day`` on or after ``today`` (``direction`` +1), or the last one on or before it
    (-1); months too short for it are passed over. None for a day no month has."""
    if not 1 <= day <= 31:
        return None
    start = today.replace(day=1)
    for k in range(13):
        m = _add_months(start, direction * k)
        if day <= calendar.monthrange(m.year, m.month)[1]:
            d = m.replace(day=day)
            if (d >= today) if direction > 0 else (d <= today):
                return d
    return None


def _part(a: date, b: date, part: str) -> date:
    """The day a part of the range [a, b] (a month or a year) names: its first, middle (the 15th; 1 July) or last."""
    if part == "start":
        return a
    if part == "end":
        return b
    return a.replace(day=15) if a.month == b.month else a.replace(month=7)


def _resolve_tensed(kind: str, m: re.Match, today: date, direction: int) -> tuple[date, date, bool] | None:
    """A mention only a tense places (see the module doc); ``direction`` +1 for a future or present clause, -1 for
    one in the past."""
    g = m.groups()
    if kind in ("zh_wd", "en_wd"):
        if direction == 0:
            return None
        wd = _table("weekdays", "zh" if kind == "zh_wd" else "en")[g[0] if kind == "zh_wd" else g[0].lower()]
        delta = (wd - today.weekday()) % 7 or 7 if direction > 0 else -((today.weekday() - wd) % 7 or 7)
        d = today + timedelta(days=delta)
        return d, d, True
    if kind in ("zh_dom", "en_dom"):
        num = g[0] if kind == "en_dom" or g[0] else g[2]
        d = _day_of_month(today, int(_num(num)), direction)
        return None if d is None else (d, d, True)
    if kind in ("zh_month_day", "en_month_day"):
        n = _modifier(g[0], "zh") if kind == "zh_month_day" else _modifier(g[1], "en")
        mo = _add_months(today.replace(day=1), n)
        day = int(_num(g[1] if kind == "zh_month_day" else g[0]))
        if not 1 <= day <= calendar.monthrange(mo.year, mo.month)[1]:
            return None
        d = mo.replace(day=day)
        return d, d, True
    if kind == "zh_part":
        units = _table("clause_time", "zh").get("month_part_units", {})
        part = _table("clause_time", "zh").get("month_parts", {})[g[4]]
        if g[2]:  # 年底, 今年底, 明年初
            y = today.year + _table("year_offsets", "zh")[g[2]]
            a, b = date(y, 1, 1), date(y, 12, 31)
            return (d := _part(a, b, part)), d, True
        unit = units[g[1] or g[3]]
        n = _modifier(g[0], "zh") if g[0] else None
    else:  # en_part
        part = _table("clause_time", "en").get("month_parts", {})[g[0].lower()]
        unit = _table("clause_time", "en").get("month_part_units", {})[g[2].lower()]
        n = _modifier(g[1], "en") if g[1] else None
    if n is None and direction == 0 and not (kind == "zh_part" and g[2]):
        return None  # 月初, "the end of the month": which one only a tense tells
    d = _unit_part(today, unit, part, 0 if n is None else n)
    if n is None and ((direction > 0 and d < today) or (direction < 0 and d > today)):
        d = _unit_part(today, unit, part, direction)  # 月初 said on the 7th of a plan: the next month's
    return d, d, True


def _unit_part(today: date, unit: str, part: str, n: int) -> date:
    """The ``part`` (start / mid / end) of the month or year ``n`` months or years from ``today``'s."""
    if unit == "year":
        y = today.year + n
        return _part(date(y, 1, 1), date(y, 12, 31), part)
    return _part(*_month_range(_add_months(today.replace(day=1), n)), part)


def _num(tok: str) -> float:
    tok = tok.lower().strip()
    if tok.isdigit():
        return int(tok)
    words = {**_table("count_words", "en"), **_table("count_words", "zh")}
    if tok in words:
        return words[tok]
    zh = _table("count_words", "zh")
    if all(c in zh for c in tok):  # 十二, 二十
        if tok.startswith("十"):
            return 10 + (zh.get(tok[1:], 0) if len(tok) > 1 else 0)
        if "十" in tok:
            a, _, b = tok.partition("十")
            return zh.get(a, 1) * 10 + (zh.get(b, 0) if b else 0)
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
    unit = _calendar_unit(unit)
    if unit == "day":
        d = today + timedelta(days=sign * int(n))
        return d, d
    if unit == "week":
        d = today + timedelta(days=sign * int(round(7 * n)))
        return (d, d) if n >= 1 else (min(d, today), max(d, today))
    if unit == "month":
        d = _add_months(today, sign * max(1, int(n)))
        return d, d
    d = _add_months(today, sign * 12 * max(1, int(n)))
    return d, d


@lru_cache(maxsize=1)
def _lasting_rx() -> re.Pattern[str]:
    """``in_lasting`` of data/lang/en/dates.json as one pattern (whole words)."""
    return re.compile(_alt(langdata.load("dates", "en").get("in_lasting", []), True), re.I)


def _lasting_before(before: str) -> bool:
    """The clause before an "in N units" says a length of time up to now ("Haven't smoked in three weeks", "the
    first time in two years"), not a date ahead: an ``in_lasting`` word since the clause began."""
    clause = re.split(r"[.!?;。！？；]", before)[-1]
    return bool(_lasting_rx().search(clause))


def _calendar_unit(word: str) -> str:
    """"weeks" / "个星期" -> "week" (data/lang/*/dates.json calendar_units)."""
    return langdata.mapping("dates", "calendar_units").get(word.lower(), "year")


def _modifier(word: str, lang: str) -> int:
    return _table("relative_modifiers", lang)[word.lower()]


def _resolve_one(kind: str, m: re.Match, today: date, tz) -> tuple[date, date, bool] | None:
    g = m.groups()
    if kind == "day":
        d = today + timedelta(days=_table("day_offsets", "en")[" ".join(m.group().lower().split())])
    elif kind == "ago":
        a, b = _unit_offset(today, _num(g[0]), g[1], -1)
        return a, b, True
    elif kind == "in_n":
        a, b = _unit_offset(today, _num(g[0]), g[1], +1)
        return a, b, True
    elif kind == "rel_weekday":
        which, wd = _modifier(g[0], "en"), _table("weekdays", "en")[g[1].lower()]
        if which < 0:
            delta = (today.weekday() - wd) % 7 or 7
            d = today - timedelta(days=delta)
        elif which > 0:
            delta = (wd - today.weekday()) % 7 or 7
            d = today + timedelta(days=delta)
        else:
            d = _week_range(today)[0] + timedelta(days=wd)
    elif kind == "rel_weekend":
        sat = _week_range(today)[0] + timedelta(days=5 + 7 * _modifier(g[0], "en"))
        return sat, sat + timedelta(days=1), True
    elif kind == "rel_unit":
        n, unit = _modifier(g[0], "en"), _calendar_unit(g[1])
        if unit == "week":
            a, b = _week_range(today + timedelta(days=7 * n))
        elif unit == "month":
            a, b = _month_range(_add_months(today.replace(day=1), n))
        else:
            y = today.year + n
            a, b = date(y, 1, 1), date(y, 12, 31)
        return a, b, True
    elif kind == "zh_day":
        d = today + timedelta(days=_table("day_offsets", "zh")[m.group()])
    elif kind == "zh_week":
        n = _modifier(g[0], "zh")
        a, b = _week_range(today + timedelta(days=7 * n))
        if g[3] and g[3] in _table("weekend", "zh"):
            return a + timedelta(days=5), b, True
        if g[3]:
            d = a + timedelta(days=_table("weekdays", "zh")[g[3]])
            return d, d, True
        return a, b, True
    elif kind == "zh_month":
        a, b = _month_range(_add_months(today.replace(day=1), _modifier(g[0], "zh")))
        return a, b, True
    elif kind in ("zh_year_month", "en_rel_month", "en_month_rel_year"):
        return _year_month(kind, g, today)
    elif kind == "zh_year":
        y = today.year + _table("year_offsets", "zh")[m.group()]
        return date(y, 1, 1), date(y, 12, 31), True
    elif kind == "zh_ago":
        sign = -1 if g[2] in _table("ago", "zh") else 1
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


def _year_month(kind: str, g: tuple, today: date) -> tuple[date, date, bool] | None:
    """A month (and day) of a year named relatively: 明年三月 (that month of next year), 去年3月15日, "March next year";
    "next March" is the first March after this month, "last March" the last one before it, "this March" this
    year's."""
    months = _table("months", "en")
    word = g[0] if kind == "en_month_rel_year" else g[1] if kind == "en_rel_month" else ""
    if word == "may":  # "next may be better": the verb, unless written as the month
        return None
    if kind == "zh_year_month":
        y, mo = today.year + _table("year_offsets", "zh")[g[0]], int(_num(g[1]))
        dd = int(_num(g[2])) if g[2] else None
    elif kind == "en_month_rel_year":
        mo, y, dd = months[g[0].lower()], today.year + _modifier(g[1].lower(), "en"), None
    else:  # en_rel_month
        which, mo, dd = g[0].lower(), months[g[1].lower()], None
        y = today.year + (1 if which == "next" and mo <= today.month else
                          -1 if which == "last" and mo >= today.month else 0)
    if not 1 <= mo <= 12:
        return None
    if dd is None:
        return _month_range(date(y, mo, 1)) + (True,)
    if not 1 <= dd <= calendar.monthrange(y, mo)[1]:
        return None
    return date(y, mo, dd), date(y, mo, dd), True


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


def resolve_dates(text: str, anchor: datetime, *, tense: str | None = None) -> list[DateSpan]:
    """Every date mention in ``text`` resolved against ``anchor`` (an aware datetime: the turn's timestamp).
    ``tense`` ("future", "past" or "present": the clause's, :func:`anchormem.text.clause_time.tense_of`) reads the
    mentions only a tense places too (see the module doc); "past" reads a bare day as the last such day.

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
    direction = 0 if tense is None else -1 if tense == "past" else 1
    # a day or part of a month named relatively ("the 1st of next month", 下个月1号, 下个月底) needs no tense; a bare
    # day of the month (1号, "on the 3rd") and a part of an unnamed month (月初) are read only with one
    kinds = _tensed_patterns()[0] + _patterns() + ([] if tense is None else [
        (k, p) for k, p in _tensed_patterns()[1] if not (tense == "present" and k in ("zh_wd", "en_wd"))])
    # (a bare weekday in the present is a habit's more often than a day's: "I run on Saturday", 周六我一般加班)
    tensed = {k for k, _ in _tensed_patterns()[0] + _tensed_patterns()[1]}
    for kind, pat in kinds:
        for m in pat.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            if kind == "en_abs" and m.group().lower().startswith("may ") and not re.search(r"\d{4}|\d", m.group()):
                continue
            try:
                res = _resolve_tensed(kind, m, today, direction) if kind in tensed else _resolve_one(kind, m, today, tz)
                if kind == "in_n" and res is not None and _lasting_before(text[:s]):
                    res = (_unit_offset(today, _num(m.group(1)), m.group(2), -1)[0], today, True)
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
