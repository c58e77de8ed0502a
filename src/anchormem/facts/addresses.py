"""Street addresses, and moves said with one (issue #22).

One behaviour in every language: a move said with a street address ("I moved to 45 Elm Road, Manchester",
我搬到上海市浦东新区世纪大道100号了, "I moved to 世纪大道100号") gives

- the new home city, the address's town or 市, when it names one (``home_city``: not sensitive, it supersedes);
- the new home address (``address``, the whole street address), which also stands against the user's other
  current address slots (``shipping_address``, ``delivery_address``, 收货地址: :func:`is_address_slot`): a
  different address there is a conflict, and an address is sensitive (:func:`~anchormem.facts.model.is_sensitive`),
  so it goes to the review queue (:mod:`.reconcile`), where approving it replaces the old address.

A statement of an address slot keeps the whole address ("My shipping address is 12 Oak Street, Leeds.": the town
after the comma is part of the value, :func:`whole_address`). A place that is no street address ("I moved to
Bristol") is never an address slot's value (:func:`street_address` is None for it; the relative reader checks).
Language data: ``data/lang/<lang>/addresses.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .. import langdata

__all__ = ["StreetAddress", "street_address", "moved_to_address", "whole_address", "is_address_slot", "is_move"]


@dataclass(frozen=True)
class StreetAddress:
    """A street address found in a text: ``text`` the whole address as said (with its town when one follows),
    ``city`` the town / 市 it names ("" when none), ``start`` / ``end`` its character offsets in the text."""

    text: str
    city: str
    start: int
    end: int


@lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(English, Chinese) street-address patterns built from ``street_types``."""
    en_types = langdata.alternation(langdata.words("addresses", "street_types", ("en",)))
    zh_types = langdata.alternation(langdata.words("addresses", "street_types", ("zh",)))
    cap = r"[A-Z][\w'’-]*"
    en = re.compile(
        rf"\b\d+[A-Za-z]?,?\s+(?:{cap}\s+){{1,4}}(?i:{en_types})\b\.?"
        rf"(?:\s*[,，]\s*(?P<city>{cap}(?:\s+{cap}){{0,2}}(?![\w'’-])|[\u4e00-\u9fff]{{2,3}}(?![\u4e00-\u9fff])))?")
    stop = re.escape(str(langdata.load("addresses", "zh").get("not_in_names", "")))
    han = rf"(?:(?![{stop}])[\u4e00-\u9fff])" if stop else r"[\u4e00-\u9fff]"
    zh = re.compile(
        rf"(?:(?P<city>{han}{{2,4}}?)市)?(?:{han}{{1,6}}?[区县])?"
        rf"{han}{{1,8}}?(?:{zh_types})[\d一二三四五六七八九十百零〇]+号(?:[\d\-]+室)?"
        rf"(?:\s*[,，]\s*(?P<town>[\u4e00-\u9fff]{{2,3}})(?![\u4e00-\u9fff]))?")
    return en, zh


@lru_cache(maxsize=1)
def _move_cue() -> re.Pattern[str]:
    return re.compile("(?:" + langdata.alternation(langdata.words("addresses", "move_cues"), raw=True) + ")", re.I)


def street_address(text: str, *, at: int | None = None) -> StreetAddress | None:
    """The first street address in ``text`` (or the one starting exactly at offset ``at``, after optional spaces);
    None when there is none. A town or city alone is no street address ("Bristol", 上海)."""
    for pat in _patterns():
        if at is None:
            m = pat.search(text)
        else:
            m = pat.match(text, at + len(text[at:]) - len(text[at:].lstrip()))
        if m:
            city = (m.group("city") or (m.groupdict().get("town") or "")).strip()
            return StreetAddress(m.group(0).strip().rstrip("."), city, m.start(), m.end())
    return None


def moved_to_address(sentence: str) -> StreetAddress | None:
    """The street address a move in ``sentence`` is to ("I moved to 45 Elm Road, Manchester last week" -> 45 Elm
    Road, Manchester with city Manchester; 新地址是世纪大道100号 -> 世纪大道100号), or None: no move cue
    (``move_cues``) right before a street address."""
    for m in _move_cue().finditer(sentence):
        got = street_address(sentence, at=m.end())
        if got is not None:
            return got
    return None


def is_move(clause: str) -> bool:
    """``clause`` says the speaker moved to (or now lives at) a street address."""
    return moved_to_address(clause) is not None


def whole_address(sentence: str, value: str) -> str:
    """``value`` of an address slot widened to the whole street address of ``sentence`` it begins ("12 Oak Street"
    in "My shipping address is 12 Oak Street, Leeds." -> "12 Oak Street, Leeds"); ``value`` itself otherwise."""
    got = street_address(sentence)
    if got is not None and got.text.startswith(value) and len(got.text) > len(value):
        return got.text
    return value


@lru_cache(maxsize=1)
def _slot_words() -> re.Pattern[str]:
    return re.compile(langdata.alternation(langdata.words("addresses", "address_slot_words")), re.I)


def is_address_slot(attribute: str) -> bool:
    """``attribute`` holds an address (``address``, ``shipping_address``, 收货地址), not an amount about one."""
    return bool(_slot_words().search(attribute)) and ":" not in attribute
