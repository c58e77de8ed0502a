"""Amounts as evidence: a question word that names the kind of amount asked for is covered by an amount of that kind.

"苹果多少钱一斤？" is answered by "苹果一斤八块。", "我手机套餐多少钱？" by "My phone plan is $40 a month.", "How much does my
streaming plan cost per month?" by "$17.99 a month now": the memory says no word of the question's 钱 / "cost" /
"month", it states the amount itself. :func:`amount_covers` reads the memory's amounts with the value reader
(:func:`anchormem.facts.values.parse`: currencies, units, periods of ``data/lang/<lang>/values.json``) and covers

- a word that asks for a kind of amount (``value_kinds`` of ``data/lang/*/answers.json``: 钱, 费用, "cost", "price",
  "pay" by an amount of money; "old", 多大, 几岁 by an age: "How old is Mia?" by "Mia turned seven"), and
- a period word (一个月, 每月, "month", "monthly": the ``periods`` of ``values.json`` and the periods they name) by an
  amount said per that period ("$40 a month", "200刀一个月").

A number with no unit ("包月要三十了") states no kind: it covers nothing here (the question's other words must).
"""

from __future__ import annotations

from functools import lru_cache

from ..text.tokenize import has_cjk, stem

__all__ = ["amount_covers", "asked_kind", "asked_period"]


@lru_cache(maxsize=1)
def _kind_words() -> dict[str, str]:
    """{question word, lower-cased and stemmed: the kind of amount it asks for} from ``value_kinds`` of
    ``answers.json`` ({kind: [words]}, every language)."""
    from ..langdata import LANGUAGES, load

    out: dict[str, str] = {}
    for lang in LANGUAGES:
        for kind, ws in (load("answers", lang).get("value_kinds") or {}).items():
            for w in ws:
                out.setdefault(w.casefold(), kind)
                out.setdefault(stem(w), kind)
    return out


@lru_cache(maxsize=1)
def _periods() -> dict[str, str]:
    """{period word or phrase, lower-cased: the period it names} (``periods`` of ``values.json``, every language, and
    the period names themselves: "month", "months")."""
    from ..langdata import LANGUAGES, load

    out: dict[str, str] = {}
    for lang in LANGUAGES:
        for k, v in (load("values", lang).get("periods") or {}).items():
            out[k.casefold()] = v
            out[v] = v
    return out


def asked_kind(term: str) -> str | None:
    """The kind of amount (``"money"``, ``"age"``...) a question word asks for ("钱", "cost", "costs" -> "money";
    "old" -> "age"), else None."""
    t = term.casefold()
    return _kind_words().get(t) or (None if has_cjk(t) else _kind_words().get(stem(t)))


def asked_period(term: str) -> str | None:
    """The period a question word names ("一个月", "每月", "month", "monthly" -> "month"), else None."""
    t = term.casefold()
    got = _periods().get(t)
    if got is None and not has_cjk(t):
        got = _periods().get(stem(t))
    return got


@lru_cache(maxsize=4096)
def _amounts(stated: str) -> tuple[tuple[str, str], ...]:
    """(kind, period) of each amount ``stated`` says (:func:`anchormem.facts.values.parse`)."""
    from ..facts.values import parse

    return tuple((v.kind, v.period) for v in parse(stated))


def amount_covers(term: str, stated: str) -> bool:
    """``stated`` (a memory's stated text) states the amount question word ``term`` asks for: an amount of its
    kind (:func:`asked_kind`), or an amount per its period (:func:`asked_period`). Never raises."""
    kind, period = asked_kind(term), asked_period(term)
    if kind is None and period is None or not stated.strip():
        return False
    return any((kind is not None and k == kind) or (period is not None and p == period) for k, p in _amounts(stated))
