"""Key-entity extraction by pattern: emails, URLs, phone numbers, money, numbers, dates and capitalised names.

Deterministic and offline. Dates come from :mod:`anchormem.text.dates` (already resolved); the rest are
regular expressions covering English and Chinese formats (mainland mobile numbers, 元/万/亿 amounts).
"""

from __future__ import annotations

import re

from ..types import Entity
from .dates import DateSpan

__all__ = ["extract_entities"]

_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_URL = re.compile(r"\bhttps?://[^\s，。)]+", re.I)
_PHONE = re.compile(r"(?<!\d)(?:\+?86[-\s]?)?1[3-9]\d(?:[-\s]?\d{4}){2}(?!\d)|(?<![\w+])\+\d{1,3}[-\s]?\(?\d{1,4}\)?(?:[-\s]?\d{2,4}){2,3}(?!\d)|\(\d{3}\)\s?\d{3}-\d{4}\b|\b\d{3}-\d{3}-\d{4}\b")
_MONEY = re.compile(
    r"(?:[$€£¥￥]\s?\d[\d,]*(?:\.\d+)?\s?(?:[kKmMbB]|million|billion|thousand)?\b)"
    r"|(?:\b\d[\d,]*(?:\.\d+)?\s?(?:dollars|usd|eur|euros|rmb|yuan|pounds)\b)"
    r"|(?:\d[\d,]*(?:\.\d+)?\s?(?:万|亿|千)?\s?(?:元|块钱|块|美元|欧元|人民币))",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:\s?%|k\b)?")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\b")
_NAME_STOP = frozenset(
    "I I'm I've I'll Im The A An And But So Oh Yeah Yes No Hey Hi Hello Thanks Thank Wow Okay Ok My Your We "
    "It It's That This There What When Where Why How Who Mr Mrs Ms Dr Monday Tuesday Wednesday Thursday Friday "
    "Saturday Sunday January February March April May June July August September October November December "
    "LGBTQ".split()
)


def extract_entities(text: str, dates: list[DateSpan] | None = None) -> list[Entity]:
    """Entities in ``text`` in order of type: date, email, url, phone, money, number, name. No duplicates."""
    out: list[Entity] = []
    seen: set[tuple[str, str]] = set()

    def add(t: str, v: str, norm: str | None = None) -> None:
        key = (t, (norm or v).lower())
        if key not in seen:
            seen.add(key)
            out.append(Entity(type=t, value=v, normalized=norm))

    for d in dates or []:
        norm = d.start.date().isoformat() if d.start.date() == d.end.date() else \
            f"{d.start.date().isoformat()}/{d.end.date().isoformat()}"
        add("date", d.text, norm)
    spans: list[tuple[int, int]] = []
    for t, pat in (("email", _EMAIL), ("url", _URL), ("phone", _PHONE), ("money", _MONEY)):
        for m in pat.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in spans):
                continue
            spans.append(m.span())
            v = m.group().strip()
            add(t, v, re.sub(r"[\s-]", "", v) if t == "phone" else None)
    date_texts = " ".join(d.text for d in dates or [])
    for m in _NUMBER.finditer(text):
        if any(m.start() < e and s < m.end() for s, e in spans) or m.group() in date_texts:
            continue
        add("number", m.group())
    for m in _NAME.finditer(text):
        words = [w for w in m.group(1).split() if w not in _NAME_STOP]
        if words:
            add("name", " ".join(words))
    return out
