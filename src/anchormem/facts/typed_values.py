"""Typed values of a clause, as the relative change reader compares them (:mod:`.relative`): amounts with their
unit class, counts with their counted noun or classifier, names, jobs (:func:`clause_values`), and the words of
``data/lang/<lang>/relative.json`` that decide what a number is (a frequency, a share, a price, a count of a noun).

    clause_values("换了个套餐，每个月39块")   # [TypedValue("amount", "39块", "39块", unit="money")]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk
from .values import after_delta, counted_cover, number_of, one_counted

__all__ = ["TypedValue", "clause_values", "masked", "data", "settings"]

_MASK = {"amount": "<NUM>", "count": "<N>", "name": "<NAME>", "job": "<JOB>", "age": "<AGE>"}


@dataclass(frozen=True)
class TypedValue:
    """A value of a clause: ``kind`` ("amount", "count", "name", "job", "age"), ``value`` (as said), ``span`` (the
    words masked: the value, with a count's number only), ``unit`` (an amount's class: "money", "weight",
    "duration", "distance" or ""), ``noun`` / ``cls`` (a count's counted-noun key and classifier, or "")."""

    kind: str
    value: str
    span: str
    unit: str = ""
    noun: str = ""
    cls: str = ""

    def compatible(self, other: "TypedValue") -> bool:
        """Same kind, and the same thing measured: amounts whose unit classes agree (or one has none), counts of one
        counted noun (or, one noun unsaid, one classifier: "三条" ~ "五条金鱼")."""
        if self.kind != other.kind:
            return False
        if self.kind == "amount":
            return not self.unit or not other.unit or self.unit == other.unit
        if self.kind == "count":
            if self.noun and other.noun:
                return bool(counted_cover(self.noun, other.noun))
            return bool(self.cls) and self.cls == other.cls
        return True

    def same_value(self, other: "TypedValue") -> bool:
        """The two say one value ("1,850" = "1850", "Leeds" = "leeds", 三千二 = 3200; numbers read by
        :func:`~anchormem.facts.values.number_of`)."""
        if self.kind in ("amount", "count", "age"):
            a, b = number_of(self.value), number_of(other.value)
            if a is not None and b is not None:
                return a == b
        x, y = self.value.casefold().strip(), other.value.casefold().strip()
        return x == y or (len(x) > 1 and len(y) > 1 and (x in y or y in x))


def data(lang: str) -> dict[str, Any]:
    """``data/lang/<lang>/relative.json``."""
    return langdata.load("relative", lang)


def settings(lang: str, kind: str = "") -> dict[str, float]:
    """The calibration of ``lang`` (for values of ``kind``, its own entries over the shared ones): ``match``,
    ``match_shared``, ``margin``, ``end`` (cosines), ``k``."""
    cal = data(lang).get("calibration", {})
    out = {k: float(v) for k, v in cal.items() if not isinstance(v, (dict, str))}
    out.update({k: float(v) for k, v in cal.get(kind, {}).items()} if isinstance(cal.get(kind), dict) else {})
    return out


def _lang(text: str) -> str:
    return "zh" if has_cjk(text) else "en"


def clause_values(text: str) -> list[TypedValue]:
    """The typed values of one clause, in order (a new list; the reading is cached by text: an old clause is read
    again for every new turn it is a neighbour of). ``clause_values("换了个套餐，每个月39块")`` holds the amount "39块"
    (unit "money"); ``clause_values("只剩三条了")`` the count "三条" (classifier 条); ``clause_values("I have two
    cats")`` the count "two cats" (noun "cat"); names, jobs and ages as :func:`~anchormem.facts.meaning.typed_values`
    reads them."""
    return list(_clause_values(text))


@lru_cache(maxsize=8192)
def _clause_values(text: str) -> tuple[TypedValue, ...]:
    from .meaning import typed_values

    from .values import parse

    lang = _lang(text)
    out: list[TypedValue] = []
    tv = typed_values(text, "zh" if lang == "zh" and len(re.findall(r"[\u4e00-\u9fff]", text)) >= 2 else "en")
    ages = tv.get("age", [])
    for v in parse(text, lang):
        zh = has_cjk(v.text)
        if v.start and text[v.start - 1].isascii() and text[v.start - 1].isalpha():
            continue  # "L4", "x5": a level or a name, no value
        if v.kind == "number" and text[v.end:v.end + 1].isascii() and text[v.end:v.end + 1].isalpha():
            continue  # "4S店", "5G", "3D": a digit run into Latin letters no unit was read from is a name
        if v.kind == "number" and v.measure and (_not_amount(text[v.end:], "zh") or v.number == 1 and re.match(
                rf"{re.escape(v.measure)}[\u4e00-\u9fff]", text[v.end:])):
            continue  # 两个月: a period; 一名护士, 一口气: 一 and a measure word before a noun is an article
        if v.kind == "count" or v.kind == "number" and v.measure:  # 三只猫, "two cats", 只剩三条了
            out.append(TypedValue("count", v.text + (v.measure if v.kind == "number" else ""), v.said or v.text,
                                  noun=v.unit if v.kind == "count" else "", cls=v.measure))
            continue
        if v.kind not in ("money", "weight", "duration", "distance", "number") or v.text in ages or v.said in ages:
            continue  # (an age is always someone's: the meaning fallback reads it with its person)
        if _not_amount(text[v.end:], "zh" if zh else "en"):
            continue  # "3 times a week", "20%", 三次, 5层: a frequency, a share, a floor
        if after_delta(text[:v.start], "zh" if zh else "en"):
            continue  # "能省六百", "lost 5 kg": a difference, no amount held (the quantity reader's own rule)
        digits = bool(re.search(r"\d", v.text))
        if v.kind == "number" and not (digits or v.period or v.number >= 100 or _priced(text)):
            continue  # a small number said in words, no unit: a mention ("five years", 三十), as the meaning reads
            # (unless the clause is about a price: "包月要三十了", "换了个五十八的套餐": price_words)
        if v.kind == "number" and not v.period and not zh and re.fullmatch(r"[\d,.]+", v.text) and \
                _counts_a_noun(text[v.end:]):
            continue  # "30 people": a bare number before a noun counts it, it is no amount
        unit = v.kind if v.kind != "number" else "money" if v.period else ""
        out.append(TypedValue("amount", v.text, v.text, unit=unit))
    if not any(v.kind == "count" for v in out):  # "Our only dog is Bruno": a count of one, no number said
        out += [TypedValue("count", said, span, noun=noun) for said, span, noun in one_counted(text)]
    for kind in ("name", "job"):  # (an age is always someone's: the meaning fallback reads it with its person)
        for v in tv.get(kind, []):
            if kind == "name" and re.search(rf"(?:^|[,，]\s*){re.escape(v)}\s*(?:[,，.!?。！？]|$)", text.strip()):
                continue  # "Thanks, Melanie!", "Mel, glad you…": someone addressed, no value
            if kind == "name" and any(v in x.value or x.value in v for x in out if x.kind == "job") or \
                    any(v in x.value for x in out if x.kind in ("amount", "count")):
                continue  # (a currency or a counted noun is part of its value: "8500 HKD a month")
            out.append(TypedValue(kind, v, v))
    return tuple(out)


def _value_piece(text: str, value: TypedValue) -> str:
    """The comma- or stop-delimited piece of ``text`` holding ``value`` ("…a beagle called Penny, so two dogs now
    with Bruno." -> "so two dogs now with Bruno."), or ``text`` when none does."""
    pieces = [p for p in re.split(r"(?<=[,，;；。.!！?？])\s*", text) if p.strip()]
    return next((p.strip() for p in pieces if value.span and value.span in p), text)


def _priced(text: str) -> bool:
    """The clause is about a price (``price_words`` of relative.json: 套餐, 包月, "subscription")."""
    return _says_word(text, _lang(text), "price_words")


def _counts_a_noun(rest: str) -> bool:
    """The word after a bare number is no word an amount is followed by (``after_bare_number``, relative.json): the
    number counts it ("30 people in the class")."""
    m = re.match(r"\s+([a-z]+)\b", rest, re.I)
    if not m:
        return False
    ok = {w.casefold() for w in data("en").get("after_bare_number", {}).get("words", [])}
    return m.group(1).casefold() not in ok


def _not_amount(rest: str, lang: str) -> bool:
    """What follows a number makes it no amount (``not_amount_after`` of relative.json: "times", "%", 次, 层)."""
    r = rest.lstrip().casefold() if lang == "en" else rest
    for w in data(lang).get("not_amount_after", []):
        w = w.casefold()
        if r.startswith(w) and (lang == "zh" or not r[len(w):len(w) + 1].isalnum()):
            return True
    return False


def masked(text: str, values: list[TypedValue], kind: str) -> str:
    """``text`` with the spans of its values of ``kind`` replaced by the kind's mask ("<NUM>", "<N>", "<NAME>"...)."""
    for v in sorted((v for v in values if v.kind == kind), key=lambda v: len(v.span), reverse=True):
        if v.span and v.span in text:
            text = text.replace(v.span, _MASK[kind])
    return text


@lru_cache(maxsize=64)
def _words_rx(lang: str, keys: tuple[str, ...], fold: bool) -> tuple[re.Pattern | None, tuple[str, ...]]:
    """The entries under ``keys`` of relative.json for ``lang`` as one matcher: a pattern of the Latin-script ones as
    whole words (case-insensitive unless ``fold``: then casefolded, matched against casefolded text) and the CJK
    ones (matched inside the text)."""
    ws = [w.casefold() if fold else w for k in keys for w in data(lang).get(k, [])]
    latin = [re.escape(w) for w in dict.fromkeys(ws) if not has_cjk(w)]
    rx = re.compile(r"\b(?:" + "|".join(latin) + r")\b", 0 if fold else re.I) if latin else None
    return rx, tuple(w for w in dict.fromkeys(ws) if has_cjk(w))


def _says_word(text: str, lang: str, *keys: str, fold: bool = False) -> bool:
    """``text`` holds an entry of ``keys`` (relative.json, ``lang``): a Latin word as a whole word, a CJK one
    anywhere."""
    rx, cjk = _words_rx(lang, keys, fold)
    return any(w in text for w in cjk) or (rx is not None and rx.search(text) is not None)
