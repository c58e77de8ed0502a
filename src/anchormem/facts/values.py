"""One value parser: amounts, weights, durations, ages and counts as said in English and Chinese.

Every reader of a value (the rules' change patterns, the clause frames, the change-by-meaning fallback, the slot
comparison :func:`~anchormem.facts.keys.value_key` and the grounding check) reads numbers here, so "三千五", "3500"
and "3,500 块" are one value wherever they are compared. Number words are read by libraries: ``text2num``
(``text_to_num.text2num``: "seventy-two thousand" -> 72000) for English and ``cn2an`` ("一万二" -> 12000, "三千五" ->
3500) for Chinese; what they do not know lives in ``data/lang/<lang>/values.json`` (multipliers "k" / "grand" / 万,
fractions "and a half" / 半, currencies, units with their factor to a base unit, periods, age cues, approximate
markers, date suffixes). Adding a unit, a currency or a way of saying a number is editing that file.

    parse("Rent is €1,299.50 a month", "en")[0]
    # -> Value(number=1299.5, kind="money", unit="EUR", period="month", text="€1,299.50 a month", ...)
    parse("我每天通勤要一个半小时")[0].number, parse("我每天通勤要一个半小时")[0].base   # -> 1.5, 90.0 (minutes)
    number_of("一万二") == number_of("12,000") == "12000"

Nothing is imported or read before first use (the libraries and the data files load on the first parse).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["Value", "parse", "number_of", "plain", "same_number", "duration_at", "counted_cover", "one_counted",
           "after_delta"]


@dataclass(frozen=True)
class Value:
    """A value said in a text.

    ``number``: as said, in the unit said (1.5 for "an hour and a half"); ``base``: in the kind's base unit (kg for
    a weight, minutes for a duration, years for an age; ``number`` otherwise); ``kind``: "money", "weight",
    "duration", "age", "count" or "number"; ``unit``: an ISO currency code, the unit word as said, or the counted
    noun's key ("cat"); ``period``: "month" / "year" / "week" / "day" / "hour" / ""; ``approx``: said as an
    approximation (两百来块, "about 200"); ``start`` / ``end``: the span of ``text`` in the parsed string
    (characters); ``said``: the number alone as said ("two" of "two cats", 三 of 三只猫); ``measure``: the measure
    word said right after a Chinese number (条 of 只剩三条了 and of 五条金鱼), else "". A ``distance`` is in km.
    """

    number: float
    kind: str
    unit: str
    period: str
    approx: bool
    start: int
    end: int
    text: str
    base: float
    said: str = ""
    measure: str = ""


def plain(n: float) -> str:
    """A number as a plain string: 3500.0 -> "3500", 1299.5 -> "1299.5"."""
    return str(int(n)) if float(n).is_integer() else f"{n:.6g}"


def number_of(value: str) -> str | None:
    """The first amount said in ``value`` as a plain number string, in the unit said (no conversion): "1,350 euros"
    -> "1350", "90k" -> "90000", "两万五" -> "25000", "一万二" -> "12000", "6岁" -> "6", "seven" -> "7",
    "seventy-two thousand" -> "72000"; None without one."""
    vals = parse(value)
    return plain(vals[0].number) if vals else None


def same_number(a: str, b: str) -> bool:
    """``a`` and ``b`` say the same amount in the same kind (its base unit): "三千五" / "3500", "140斤" / "70 kg"."""
    va, vb = parse(a), parse(b)
    if not va or not vb:
        return False
    x, y = va[0], vb[0]
    return abs(x.base - y.base) < 1e-6 * max(1.0, abs(x.base)) and (x.kind == y.kind or "number" in (x.kind, y.kind))


def parse(text: str, lang: str | None = None) -> list[Value]:
    """The values said in ``text``, in order (see the module doc). ``lang``: "en" or "zh" (default: "zh" when the
    text holds Chinese characters; a Chinese text's Latin digits and English number words are read too). A year
    (2024, 2024年), a time (8:30, 8点), a date (三月份, 5号) and an ordinal are no value. Never raises."""
    return list(_parsed(text, lang or ("zh" if has_cjk(text) else "en")))


@lru_cache(maxsize=4096)
def _parsed(text: str, lang: str) -> tuple[Value, ...]:
    """:func:`parse`, cached by (text, language): the fact rules, the change-by-meaning fallback and the relative
    changes read the values of the same clause in turn (a bulk load parsed each clause ~2 times); a Value is
    frozen, the list handed out is a fresh one."""
    try:
        if lang == "zh":
            zh = _parse_zh(text)
            taken = [(v.start, v.end) for v in zh]
            en = [v for v in _parse_en(text, words_only=True) if not any(s < v.end and v.start < e for s, e in taken)]
            return tuple(sorted(zh + en, key=lambda v: v.start))
        return tuple(_parse_en(text))
    except (ValueError, TypeError, KeyError, IndexError):  # a library refusing an odd span: no value from it
        return ()


# -- data ------------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=2)
def _data(lang: str) -> dict[str, Any]:
    d = dict(langdata.load("values", lang))
    d["_units"] = sorted(((k, v) for k, v in d.get("units", {}).items()), key=lambda kv: -len(kv[0]))
    d["_curr"] = sorted(((k, v) for k, v in d.get("currencies", {}).items()), key=lambda kv: -len(kv[0]))
    d["_periods"] = sorted(((k, v) for k, v in d.get("periods", {}).items()), key=lambda kv: -len(kv[0]))
    d["_fractions"] = sorted(((k, v) for k, v in d.get("fractions", {}).items()), key=lambda kv: -len(kv[0]))
    counted = langdata.load("slots", lang).get("counted", {})
    d["_counted"] = sorted(((w, k) for k, ws in counted.items() for w in ws), key=lambda kv: -len(kv[0]))
    # the English parser's word sets, case-folded once (not per parse)
    d["_vocab"] = frozenset(w.casefold() for w in d.get("number_words", []))
    d["_arts"] = frozenset(a.casefold() for a in d.get("articles", []))
    d["_mults"] = {k.casefold(): float(v) for k, v in d.get("multipliers", {}).items()}
    for name in ("_units", "_curr", "_periods", "_fractions", "_counted"):
        _FOLDED[id(d[name])] = (d[name], [k.casefold() for k, _ in d[name]])
    return d


# the keys of :func:`_data`'s sorted tables case-folded once: id(table) -> (table, keys); the table is kept beside
# its keys, so its id never names another list
_FOLDED: dict[int, tuple[list[tuple[str, Any]], list[str]]] = {}


def _folded_keys(table: list[tuple[str, Any]]) -> list[str]:
    """The keys of ``table`` case-folded: from :data:`_FOLDED` for a table of :func:`_data`, else computed."""
    got = _FOLDED.get(id(table))
    return got[1] if got is not None and got[0] is table else [k.casefold() for k, _ in table]


def _starts(rest: str, table: list[tuple[str, Any]], *, words: bool) -> tuple[str, Any] | None:
    """The longest entry of ``table`` that ``rest`` starts with (after blanks; as a whole word when ``words``)."""
    low = rest.lstrip().casefold()
    for (k, v), kk in zip(table, _folded_keys(table)):
        if low.startswith(kk) and (not words or not kk[-1:].isalnum() or not low[len(kk):len(kk) + 1].isalnum()):
            return k, v
    return None


def _ends(before: str, table: list[tuple[str, Any]] | list[str], *, words: bool) -> str | None:
    b = before.rstrip().casefold()
    for e in table:
        k = (e[0] if isinstance(e, tuple) else e).casefold()
        if b.endswith(k) and (not words or not b[-len(k) - 1:-len(k)].isalnum()):
            return k
    return None


def _tail(text: str, start: int, end: int, number: float, lang: str, approx: bool, symbol: str = "") -> Value:
    """The value with what follows the number (multiplier, fraction, currency, unit, period, counted noun) and what
    precedes it (currency symbol, period, age cue)."""
    d = _data(lang)
    zh = lang == "zh"
    said = text[start:end].strip()
    pos = end
    rest = text[pos:]
    kind, unit, period, factor = "number", "", "", 1.0
    measure = ""
    mfac = 1.0
    if zh:
        ap = _starts(rest, [(a, True) for a in sorted(d.get("approx", []), key=len, reverse=True)], words=False)
        if ap:
            approx, pos = True, pos + len(rest) - len(rest.lstrip()) + len(ap[0])
            rest = text[pos:]
        mw = _starts(rest, [(m, True) for m in d.get("measure_words", [])], words=False)
        half = d.get("half", "")
        if mw and half and text[pos + len(mw[0]):].startswith(half):  # 一个半小时
            number, pos = number + 0.5, pos + len(mw[0]) + len(half)
            rest = text[pos:]
    else:
        mult = _starts(rest, [(k, v) for k, v in sorted(d.get("multipliers", {}).items(), key=lambda kv: -len(kv[0]))
                              if k.isalpha() and len(k) > 1], words=True)
        if mult and not re.match(r"\s*\w+\s+(?:" + re.escape(mult[0]) + ")", rest):
            number *= float(mult[1])
            mfac = float(mult[1])
            pos += len(rest) - len(rest.lstrip()) + len(mult[0])
            rest = text[pos:]
    frac = _starts(rest, d["_fractions"], words=True)
    if frac:  # "a grand and a half": half of the multiplier
        number, pos = number + float(frac[1]) * mfac, pos + len(rest) - len(rest.lstrip()) + len(frac[0])
        rest = text[pos:]
    cur = _starts(rest, [c for c in d["_curr"] if not c[0][:1].isascii() or c[0][:1].isalpha()], words=not zh)
    u = None if cur else _starts(rest, d["_units"], words=not zh)
    if not zh and not cur and not u and rest.startswith("-"):  # a unit joined by a hyphen: "a 20-minute ride"
        u = _starts(rest[1:], d["_units"], words=True)
        pos += 1 if u else 0
        rest = text[pos:]
    if cur:
        kind, unit = "money", cur[1]
        pos += len(rest) - len(rest.lstrip()) + len(cur[0])
    elif u:
        kind, unit, factor = u[1][0], u[0], float(u[1][1])
        pos += len(rest) - len(rest.lstrip()) + len(u[0])
        rest = text[pos:]
        frac = _starts(rest, d["_fractions"], words=True)  # "an hour and a half"
        if frac:
            number, pos = number + float(frac[1]), pos + len(rest) - len(rest.lstrip()) + len(frac[0])
    rest = text[pos:]
    if kind == "number" and symbol:
        kind, unit = "money", d.get("currencies", {}).get(symbol, symbol)
    if kind == "number":
        sym = _ends(text[:start], [c for c in d["_curr"] if not c[0][:1].isalnum()], words=False)
        if sym:
            kind, unit = "money", d["currencies"][sym] if sym in d["currencies"] else sym
            start = text.rfind(sym, 0, start) if sym in text[:start] else start
    if kind == "number":
        if zh:
            mw = _starts(rest, [(m, True) for m in d.get("measure_words", [])], words=False)
            measure = mw[0] if mw and rest.startswith(mw[0]) else ""
        c, n = _counted_after(rest, lang)
        if c:
            kind, unit, pos = "count", c, pos + n
    per = _starts(text[pos:], d["_periods"], words=not zh)
    if per and kind in ("number", "money"):
        period = per[1]
        pos += len(text[pos:]) - len(text[pos:].lstrip()) + len(per[0])
    elif kind in ("number", "money"):
        before = _ends(text[:start], d["_periods"], words=not zh)
        if before:
            period = dict(d["_periods"])[next(k for k, _ in d["_periods"] if k.casefold() == before)]
    if kind == "number" and not zh and _ends(text[:start], d.get("age_before", []), words=True):
        kind, unit = "age", "years"
    if not zh and _ends(text[:start], d.get("approx", []), words=True):
        approx = True
    return Value(number=number, kind=kind, unit=unit, period=period, approx=approx, start=start, end=pos,
                 text=text[start:pos].strip(), base=number * factor, said=said, measure=measure)


def _counted_after(rest: str, lang: str) -> tuple[str, int]:
    """(the counted noun's key, characters up to its end) right after a number ("three cats", 三只猫, 一只小橘猫,
    "two more dogs", 两只 dog: an English noun after a Chinese measure word), or ("", 0)."""
    d = _data(lang)
    if lang == "zh":
        mw = _starts(rest, [(m, True) for m in d.get("measure_words", [])], words=False)
        skip = len(rest) - len(rest.lstrip()) + (len(mw[0]) if mw else 0)
        skip += len(rest[skip:]) - len(rest[skip:].lstrip())  # (两个 monitor: the blank before a noun)
        for extra in range(0, 4):  # up to three characters of a modifier: 一只小橘猫, 两条小的金鱼
            got = _starts(rest[skip + extra:], d["_counted"], words=False)
            if got and (mw or extra == 0):
                return got[1], skip + extra + len(got[0])
        if mw or rest[:1].isspace():  # code-switching: a Chinese number and measure word, or a number and a blank,
            # then an English noun (两只 dog, 三个 kids, 现在4 guitars了)
            got = _starts(rest[skip:], _data("en")["_counted"], words=False)
            after = rest[skip + len(got[0]):skip + len(got[0]) + 1] if got else ""
            if got and not (after.isascii() and after.isalnum()):
                return got[1], skip + len(got[0])
        return "", 0
    h = re.match(r"-([A-Za-z]+)\s+([A-Za-z]+)", rest)
    if h and h.group(2).casefold() in {w.casefold() for w in d.get("count_compound_heads", [])}:
        got = _starts(h.group(1), d["_counted"], words=True)  # "a two-car household", "we're a two-dog family"
        return (got[1], h.end(2)) if got and len(got[0]) == len(h.group(1)) else ("", 0)
    m = re.match(r"\s*(?:more\s+)?", rest, re.I)
    not_mod = {w.casefold() for w in d.get("count_modifier_not", [])}
    for mods in range(0, 3):  # up to two modifiers: "5 tomato plants", "three tabby cats", "two more old bikes"
        w = re.match(r"(?:[A-Za-z][\w-]*\s+){%d}" % mods, rest[m.end():])
        if not w or any(x.casefold() in not_mod or x.isdigit() for x in w.group(0).split()):
            break
        at = m.end() + w.end()
        got = _starts(rest[at:], d["_counted"], words=True)
        if got:
            return got[1], at + len(rest[at:]) - len(rest[at:].lstrip()) + len(got[0])
    return "", 0


# -- English ---------------------------------------------------------------------------------------------------------
_TOKEN = re.compile(r"(?P<d>(?:[$£€¥]\s?)?\d[\d,]*(?:\.\d+)?)(?P<s>[A-Za-z]*)|(?P<w>[A-Za-z]+(?:-[A-Za-z]+)*)")


def _t2n(words: str) -> float | None:
    from text_to_num import text2num  # lazy: the library loads on first use

    try:
        return float(text2num(words, "en"))
    except (ValueError, TypeError):
        return None


_DIGIT = re.compile(r"\d")  # (as _TOKEN's: any Unicode decimal digit)
_COMPOUND_KINDS = ("count", "duration", "weight", "distance", "age")  # a number word joined to its unit or noun


@lru_cache(maxsize=1)
def _en_words_rx() -> re.Pattern:
    """What :func:`_parse_en` can read a value from without a digit: a ``number_words`` word as a whole token part
    ("two", "twenty-five"), or an article token followed by a ``multipliers`` word ("a grand") or a ``units`` entry
    ("an hour", "a kilo"); ASCII letters, case-insensitive, as the parser's tokens."""
    d = _data("en")

    def alt(ws: Any) -> str:
        return "|".join(re.escape(w) for w in sorted(set(ws), key=len, reverse=True)) or "(?!)"

    units = alt(_folded_keys(d["_units"]))
    return re.compile(rf"(?<![A-Za-z])(?:(?:{alt(d['_vocab'])})(?![A-Za-z])|(?:{alt(d['_arts'])})[^A-Za-z]+"
                      rf"(?:(?:{alt(d['_mults'])})(?![A-Za-z])|{units}))", re.I | re.A)


def _may_hold_en(text: str) -> bool:
    """False only when :func:`_parse_en` reads no value from ``text``: it holds no digit, no number or multiplier
    word and no unit (most chat turns; the parser's per-token walk is not run). The casefolded text is checked too
    when it is not ASCII (the parser compares units casefolded)."""
    if _DIGIT.search(text):
        return True
    rx = _en_words_rx()
    return rx.search(text) is not None or (not text.isascii() and rx.search(text.casefold()) is not None)


def _elided_pair(text: str, toks: list[re.Match], i: int, d: dict[str, Any]) -> float | None:
    """Hundreds said as two numbers one after the other, the second of two digits, when the two are no one
    number ("sixteen fifty" = 1650, "one eighty-nine" = 189; ``elided_hundreds`` of values.json); None for a
    time of day (a ``clock_before`` word before them: "at one thirty") or any other run."""
    if i + 1 >= len(toks) or not toks[i + 1].group("w") or \
            not re.fullmatch(r" ", text[toks[i].end():toks[i + 1].start()]):
        return None
    if _ends(text[:toks[i].start()], d.get("clock_before", []), words=True):
        return None
    x = _t2n(toks[i].group(0).replace("-", " "))
    y = _t2n(toks[i + 1].group(0).replace("-", " "))
    if x is None or y is None or not (1 <= x <= 99 and x == int(x) and 10 <= y <= 99 and y == int(y)):
        return None
    return x * 100 + y


def _compound(text: str, out: list[Value], d: dict[str, Any]) -> list[Value]:
    """``out`` with a larger unit and the smaller one said right after it joined into one value ("3h 10m",
    "1 hour 10 minutes": 190 and 70 minutes): a ``compound_units`` unit after the number, or a value of the same
    kind in a smaller unit, with only blanks or "and" between."""
    small = {k.casefold(): v for k, v in d.get("compound_units", {}).items()}
    res: list[Value] = []
    for v in out:
        a = res[-1] if res else None
        if a is not None and a.kind in ("duration", "weight", "distance") and a.number and \
                re.fullmatch(r"\s+(?:and\s+)?", text[a.end:v.start]):
            factor = a.base / a.number
            tail = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([A-Za-z]+)", v.text)
            extra = None
            if tail and tail.group(2).casefold() in small and small[tail.group(2).casefold()][0] == a.kind:
                extra = float(tail.group(1)) * float(small[tail.group(2).casefold()][1])
            elif v.kind == a.kind and v.number and v.base / v.number < factor:
                extra = v.base
            if extra is not None:
                res[-1] = Value(a.number + extra / factor, a.kind, a.unit, a.period, a.approx, a.start, v.end,
                                text[a.start:v.end], a.base + extra, a.said, a.measure)
                continue
        res.append(v)
    return res


def _parse_en(text: str, words_only: bool = False) -> list[Value]:
    if not _may_hold_en(text):
        return []
    d = _data("en")
    vocab, arts, mults = d["_vocab"], d["_arts"], d["_mults"]
    toks = list(_TOKEN.finditer(text))
    out: list[Value] = []
    i = 0
    while i < len(toks):
        m = toks[i]
        if m.group("d") and words_only:
            i += 1
            continue
        if m.group("d"):
            raw = m.group("d")
            digits = re.sub(r"^[$£€¥]\s?", "", raw)
            if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", digits) is None:
                digits = digits.replace(",", "")
            try:
                n = float(digits.replace(",", ""))
            except ValueError:
                i += 1
                continue
            suf = m.group("s").casefold()
            end = m.end("d")
            after = text[m.end():]
            if suf in ("st", "nd", "rd", "th"):  # an ordinal: an age only before "birthday"
                if _starts(after, [(w, True) for w in d.get("age_ordinal_after", [])], words=True):
                    out.append(Value(n, "age", "years", "", False, m.start(), m.end(), m.group(0), n))
                i += 1
                continue
            if suf in mults and suf.isalpha() and len(suf) <= 2:
                n, end = n * mults[suf], m.end()
            elif suf:
                end = m.start("s")  # "84kg": the unit is read after the number
            if re.match(r"\s*[:.]\d", after) or re.match(r"\s*(?:am|pm)\b", after, re.I):
                i += 1
                continue  # a time
            v = _tail(text, m.start(), end, n, "en", False, raw[:1] if raw[:1] in "$£€¥" else "")
            if re.fullmatch(r"(?:19|20)\d\d", digits) and v.kind == "number" and not v.period and not raw[:1] in "$£€¥":
                i += 1
                continue  # a year
            out.append(v)
            i += 1
            while i < len(toks) and toks[i].start() < v.end:
                i += 1
            continue
        w = m.group("w").casefold()
        nxt = toks[i + 1].group("w").casefold() if i + 1 < len(toks) and toks[i + 1].group("w") else ""
        if w in arts and nxt and (nxt in mults and not nxt in vocab or _starts(text[m.end():], d["_units"], words=True)
                                  and nxt not in ("year", "years")):
            v = _tail(text, m.start(), m.end(), 1.0, "en", False)  # "a grand", "an hour"
            if v.kind != "number" or v.number != 1.0:
                out.append(v)
                i += 1
                while i < len(toks) and toks[i].start() < v.end:
                    i += 1
                continue
        head, hyphen, _ = w.partition("-")
        if hyphen and head in vocab and head not in arts and not all(p in vocab for p in w.split("-")):
            n = _t2n(head)  # "a two-car household": the number of a compound, a count only
            v = _tail(text, m.start(), m.start() + len(head), n, "en", False) if n is not None else None
            if v is not None and v.kind in _COMPOUND_KINDS:  # "a two-car household", "a twenty-minute ride"
                out.append(v)
                i += 1
                while i < len(toks) and toks[i].start() < v.end:
                    i += 1
                continue
        if all(p in vocab for p in w.split("-")):
            j = i
            while j + 1 < len(toks) and toks[j + 1].group("w") and \
                    all(p in vocab or p == "and" for p in toks[j + 1].group("w").casefold().split("-")) and \
                    re.fullmatch(r"\s+", text[toks[j].end():toks[j + 1].start()]):
                j += 1
            while j > i and toks[j].group("w").casefold() == "and":
                j -= 1
            n = None
            top = j
            while j >= i:
                n = _t2n(text[m.start():toks[j].end()].replace("-", " "))
                if n is not None:
                    break
                j -= 1
            if j < top and d.get("elided_hundreds"):  # the run is no one number: "sixteen fifty", "one eighty-nine"
                pair = _elided_pair(text, toks, i, d)
                if pair is not None:
                    n, j = pair, i + 1
            if n is None and "-" in w and d.get("elided_hundreds"):  # "three-fifty" = 350
                a, _, b = w.partition("-")
                x, y = _t2n(a), _t2n(b.replace("-", " "))
                if x is not None and y is not None and 1 <= x <= 9 and 10 <= y <= 99:
                    n, j = x * 100 + y, i
            if n is not None:
                v = _tail(text, m.start(), toks[j].end(), n, "en", False)
                out.append(v)
                i = j + 1
                while i < len(toks) and toks[i].start() < v.end:
                    i += 1
                continue
        i += 1
    return _compound(text, out, d)


# -- Chinese ---------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _zh_rx() -> re.Pattern:
    d = _data("zh")
    num = d.get("numerals", "零〇一二两三四五六七八九十百千万亿")
    mult = "".join(k for k in d.get("multipliers", {}) if len(k) == 1)
    # (a multiplier letter starting a unit is none: "70.5kg", "5km")
    coll = "".join(d.get("collective_numerals", {})) or "(?!)"
    return re.compile(rf"(?P<d>\d+(?:,\d{{3}})*(?:\.\d+)?)(?:(?P<m>[{re.escape(mult)}])(?![A-Za-z])(?P<z>\d(?![\d.])|[{num}]*))?|"
                      rf"(?P<c>[{num}]+(?:点[{num}]+)?)|(?P<q>[{coll}])")


def zh_number(s: str) -> float | None:
    """A run of Chinese numerals as a number ("三千五" -> 3500.0, "两万" -> 20000.0, "一二三" -> 123.0, cn2an's
    "smart" reading); None when it is not one."""
    return _cn(s)


def _cn(s: str) -> float | None:
    import cn2an  # lazy: the library loads on first use

    try:
        return float(cn2an.cn2an(s, "smart"))
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    except Exception:  # noqa: BLE001 -- cn2an raises a bare Exception on a span it does not read
        return None


def _parse_zh(text: str) -> list[Value]:
    d = _data("zh")
    mults = {k: float(v) for k, v in d.get("multipliers", {}).items()}
    out: list[Value] = []
    for m in _zh_rx().finditer(text):
        if m.group("d"):
            try:
                n = float(m.group("d").replace(",", ""))
            except ValueError:
                continue
            end = m.end()
            z = m.group("z") or ""
            if z and not z.isdigit() and (_starts(text[m.start("z"):], d["_periods"], words=False) or _starts(
                    text[m.end("z"):], [(w, True) for w in d.get("measure_words", [])], words=False)):
                z, end = "", m.end("m")  # 30k一个月, 2万三个: the numeral after starts the next phrase
            if m.group("m"):
                n *= mults.get(m.group("m"), 1.0)
                if z:  # 1万2 = 12000
                    rest = float(z) if z.isdigit() else _cn(z)
                    n += (rest or 0) * mults.get(m.group("m"), 1.0) / 10 if rest is not None and rest < 10 else 0
            raw = m.group("d")
        elif m.group("q"):  # 俩孩子, 仨娃: a collective numeral, read only as a count
            v = _tail(text, m.start(), m.end(), float(d["collective_numerals"][m.group("q")]), "zh", False)
            if v.kind == "count":
                out.append(v)
            continue
        else:
            raw = m.group("c")
            n = _cn(raw)
            if n is None:
                continue
            end = m.end()
        after = text[end:]
        if re.match(r"[：:.]\d", after):
            continue  # a time
        if len(raw) == int(d.get("year_digits", 4)) and raw.isdigit() and after.startswith("年"):
            continue  # a year
        if _starts(after, [(w, True) for w in d.get("date_after", [])], words=False) and \
                not _starts(text[m.start():], d["_periods"], words=False):
            continue  # 三月份, 5号, 8点, 3楼
        if m.group("c") and _starts(text[m.start():], d["_periods"], words=False):
            continue  # 一个月三千二, 一年2999: the period of an amount, no value
        if m.group("c") and raw in ("一",) and not _starts(after, [(w, True) for w in
                                                                  d.get("measure_words", [])] + d["_units"] +
                                                          d["_curr"], words=False):
            continue  # 一 alone is mostly an article (一起, 一下)
        out.append(_tail(text, m.start(), end, n, "zh", False))
    return out


def duration_at(text: str) -> int:
    """Where the first length of time in ``text`` starts: a number (digits or words, :func:`parse`) followed by a
    ``duration_units`` word of data/lang/*/dates.json ("two months", 两个月, "3 years"); -1 when there is none.
    A value ends there ("戒烟两个月了": the habit is 烟)."""
    lang = "zh" if has_cjk(text) else "en"
    units = _duration_units()
    for val in parse(text, lang):
        rest = text[val.end:].lstrip()
        if lang == "en":
            m = re.match(r"[a-z]+", rest, re.I)
            if m and m.group(0).casefold() in units:
                return val.start
        elif any(rest.startswith(u) for u in units):
            return val.start
    return -1


@lru_cache(maxsize=1)
def _duration_units() -> frozenset[str]:
    return frozenset(w.casefold() for w in langdata.words("dates", "duration_units", ("en", "zh")))


@lru_cache(maxsize=1)
def _counted_kinds() -> dict[str, str]:
    """Counted noun key -> the broader key whose count covers it (``counted_kinds`` of slots.json, both languages:
    daughter -> child, cat -> pet)."""
    out: dict[str, str] = {}
    for lang in ("en", "zh"):
        for broad, keys in langdata.load("slots", lang).get("counted_kinds", {}).items():
            out.update({k: broad for k in keys})
    return out


def counted_cover(a: str, b: str) -> str:
    """The counted noun key whose count covers both ``a`` and ``b``: the key itself when they are one, the broader
    one when one is a kind of the other (``counted_cover("daughter", "child")`` -> "child"), else "" (a cat and a
    dog are two things counted, not one)."""
    if a == b:
        return a
    kinds = _counted_kinds()
    return b if kinds.get(a) == b else a if kinds.get(b) == a else ""


def one_counted(text: str) -> list[tuple[str, str, str]]:
    """A count of one said without a number (``one_before`` of values.json, English: "Our only dog is Bruno", "my
    only child"), as [(words said, the words before the noun, counted noun key)]; [] when there is none."""
    words = langdata.load("values", "en").get("one_before", [])
    if not words or has_cjk(text):
        return []
    m = re.search(r"\b(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b", text, re.I)
    if not m:
        return []
    noun, n = _counted_after(text[m.end():], "en")
    return [(text[m.start():m.end() + n].strip(), m.group(0), noun)] if noun else []


def after_delta(before: str, lang: str) -> bool:
    """The words right before a value make it a difference, no amount held ("down 9 pounds", "would save 40",
    少三公斤, 能省六百: ``delta`` of data/lang/<lang>/quantities.json), blanks and a currency sign between at most.
    ``after_delta("moving would save", "en") is True``; ``after_delta("rent is", "en") is False``."""
    b = before.rstrip(" \t$£€¥").casefold()
    for w in langdata.load("quantities", lang).get("delta", []):
        w = w.casefold()
        if b.endswith(w) and (has_cjk(w) or not b[-len(w) - 1:-len(w)].isalnum()):
            return True
    return False
