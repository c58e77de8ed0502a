"""Facts as entity-attribute-value slots.

A :class:`Fact` says ``entity``'s ``attribute`` is ``value`` (``polarity=+1``) or is no longer / not
(``polarity=-1``). Two facts about the same :meth:`Fact.slot` are about the same thing, so a later one can
supersede an earlier one: "I really enjoy spicy food." and "I can't stand spicy food any more." are both
``("user", "likes:spicy food")``, with polarity +1 and -1.

Attribute names: snake_case English keys for well-known slots (``name``, ``home_city``, ``employer``,
``occupation``, ``birthday``, ``phone``, ``email``, ``address``, ``favourite_tea``, ``cat_name``...), and
``likes:<thing>`` / ``allergy:<thing>`` / ``does:<activity>`` with the thing in the user's own words.
"""

from __future__ import annotations

import re
from datetime import datetime
import unicodedata
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from .. import langdata
from ..text.tokenize import has_cjk
from .keys import kin_canonical_map, clean_value, topic_key

__all__ = ["Fact", "normalize_attribute", "normalize_object", "detect_language", "is_sensitive"]

Language = Literal["en", "zh", "mixed"]

# Chinese and English variants of well-known slots -> one key, so a zh and an en statement share a slot: the
# ``attribute_synonyms`` of data/lang/<lang>/slots.json (anchormem.langdata), read on first use
_BASE_SLOTS = frozenset({"job", "car", "home", "home_city", "city", "employer", "phone", "email", "address", "name",
                         "bank_card", "id_number"})


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, str]:
    out = dict(langdata.mapping("slots", "attribute_synonyms"))
    out.setdefault("最喜欢的", "favourite_")
    return out


@lru_cache(maxsize=1)
def _known_slots() -> frozenset[str]:
    return frozenset(_synonyms().values()) | _BASE_SLOTS


_SENSITIVE_ATTR = re.compile(
    r"bank|card|account|iban|routing|id_number|passport|ssn|social_security|national_id|driver|licen[cs]e|"
    r"address|phone|mobile|email|password|passcode|pin\b|tax|medical|diagnos|allergy|health|"
    r"身份证|银行|卡号|账号|地址|住址|电话|手机|邮箱|密码|护照|病", re.I)
_SENSITIVE_VALUE = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"            # email
    r"|(?<!\d)(?:\d[ -]?){8,19}\d?(?!\d)"       # long digit runs: card, ID, account, phone
    r"|\d{17}[\dXx]")                           # mainland ID number


# an attribute whose head is a price or plan is an amount about the sensitive thing, not the personal data itself
# ("phone_plan", "card_fee", 手机套餐, 电话费: a change supersedes as any price does)
_AMOUNT_HEAD = re.compile(r"(?:^|[_\s])(?:plan|bill|fee|fees|price|cost|payment|subscription|budget)$|"
                          r"(?:套餐|费|账单|资费)$", re.I)

_TOPIC_SLOTS = frozenset({"likes", "does", "allergy", "count"})


def normalize_object(text: str) -> str:
    """Key form of a liked/disliked thing: NFKC, case-folded, no leading article, no trailing punctuation,
    Chinese sentence-final particles dropped. "The Spicy food!" -> "spicy food"."""
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = re.sub(r"^(?:the|a|an|some|my)\s+", "", t)
    t = re.sub(r"[\s.!?。！？,，;；:：~…'\"“”]+$", "", t)
    t = re.sub(r"(?:了|啦|的|呢|吧|啊)+$", "", t) if has_cjk(t) else t
    return " ".join(t.split())


def normalize_attribute(attr: str) -> str:
    """``"My Favorite Tea"`` -> ``"favourite_tea"``; ``"手机号"`` -> ``"phone"``; ``"likes:Spicy Food"`` ->
    ``"likes:spicy food"`` (the part after a ``prefix:`` keeps its spaces); a relation word is its canonical one
    (``"mom_home_city"`` / ``"妈妈_home_city"`` -> ``"mother_home_city"``, ``"老婆的生日"`` -> ``"wife_birthday"``)."""
    a = unicodedata.normalize("NFKC", attr).strip()
    if ":" in a:
        head, _, obj = a.partition(":")
        head = normalize_attribute(head) if head.strip() else ""
        if head in _TOPIC_SLOTS:  # things liked, done, owned, allergic to: one key per topic (facts/keys.py)
            return f"{head}:{topic_key(obj, opinion=head == 'likes')}"
        return f"{head}:{normalize_object(obj)}" if head else normalize_object(obj)
    a = a.casefold()
    a = re.sub(r"^(?:my|the|user'?s?|我的|我)\s*", "", a)
    # "my new phone number" and "my phone number" are one slot (only for slots we know: "New York" stays)
    bare = re.sub(r"^(?:(?:new|current|latest|updated|present)[\s_]+|新的?|现在的?|最新的?)(?=\S)", "", a)
    if bare != a and normalize_attribute(bare) in _known_slots():
        return normalize_attribute(bare)
    a = re.sub(r"[\s\-/.]+", "_", a).strip("_'’\"")
    a = re.sub(r"'s_", "_", a)
    if a in _synonyms():
        return _synonyms()[a]
    if a in _known_slots():  # already a slot key ("mortgage_payment"): not re-read word by word
        return a
    if a.startswith("最喜欢的"):
        rest = a[len("最喜欢的"):]
        return "favourite_" + _synonyms().get(rest, rest)
    parts = [_word(p) for p in a.split("_")]
    out = "_".join(p for p in parts if p)
    out = _synonyms().get(out, out)
    # "猫的名字" -> "cat_name", "妈妈的生日" -> "mother_birthday"
    m = re.fullmatch(r"(.+?)的(.+)", out)
    if m:
        out = f"{_word(m.group(1))}_{_word(m.group(2))}"
    return out


def _word(part: str) -> str:
    """One word of an attribute as its slot key: a known slot's synonym ("手机号" -> "phone"), a relation's
    canonical word (:func:`~anchormem.facts.keys.kin_canonical_map`: "mom", 妈妈, 母亲 -> "mother"), else as it is."""
    return _synonyms().get(part) or kin_canonical_map().get(part, part)


def detect_language(text: str) -> Language:
    """"zh" when the text is Chinese, "mixed" when it also has two or more Latin words, else "en"."""
    if not has_cjk(text):
        return "en"
    latin = re.findall(r"[A-Za-z]{2,}", text)
    return "mixed" if len(latin) >= 2 else "zh"


def is_sensitive(attribute: str, value: str) -> bool:
    """True for personal data that should be redacted or handled with care: bank cards, ID numbers, addresses,
    phone numbers, emails, passwords, health data (a change of one is held for review). An amount that changes in
    the ordinary course of life (salary, rent) is not: "I got a raise to 45000" supersedes; nor is a price or plan of
    a sensitive thing ("phone_plan", 手机套餐: its head is an amount)."""
    if _SENSITIVE_VALUE.search(value):
        return True
    return bool(_SENSITIVE_ATTR.search(attribute)) and not _AMOUNT_HEAD.search(attribute)


class Fact(BaseModel):
    """One entity-attribute-value fact.

    ``entity``: "user" or a named entity ("Person Q"). ``attribute``: normalised slot key (see module doc).
    ``value``: in the user's own words and language, without a leading "a"/"an" (or a job's 一名;
    :func:`~anchormem.facts.keys.clean_value`). ``polarity``: +1, or -1 for "I no longer…", "I can't
    stand…", "我不再…". ``confidence`` in [0, 1]: hedges ("maybe", "I think", "可能", "大概") lower it to 0.6.
    ``sensitive``: personal data (bank card, ID, address, phone, email, health). ``source_span``: the verbatim
    sentence it came from; ``clause``: the verbatim part of it that states this fact (rules only). ``language``: "en", "zh" or "mixed". ``extractor``: "rules", "meaning" or "llm".
    ``previous_value``: for a change the LLM proposed ("I moved from Lisbon to Berlin": "Lisbon"), kept only when
    the turn itself says it (:func:`~anchormem.facts.llm_extract.extract_facts_llm`); else None.
    ``ends``: for an ending read by meaning (:mod:`~anchormem.facts.meaning`: "no wine at all" against "I drink
    wine most evenings"), the value key (:func:`~anchormem.facts.keys.value_key`) of the current claim of the same
    slot it closes; its own ``value`` stays the turn's words. "" otherwise.
    ``corrects``: for a self-correction of an earlier turn's claim (:mod:`~anchormem.facts.corrections`: "Sorry,
    not Boston, Denver."), the id of the memory holding the value taken back (it never held); "" otherwise.
    """

    entity: str = "user"
    attribute: str
    value: str
    polarity: Literal[1, -1] = 1
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    sensitive: bool = False
    source_span: str = ""
    clause: str = ""
    language: Language = "en"
    extractor: str = "rules"
    previous_value: str | None = None
    ends: str = ""
    corrects: str = ""
    starts: datetime | None = None  # a scheduled value: when it takes effect (facts.plans.scheduled_start)

    @field_validator("attribute")
    @classmethod
    def _norm_attr(cls, v: str) -> str:
        v = normalize_attribute(v)
        if not v:
            raise ValueError("empty attribute")
        return v

    @field_validator("value", "entity")
    @classmethod
    def _strip(cls, v: str) -> str:
        v = " ".join(str(v).split())
        if not v:
            raise ValueError("empty")
        return v

    @model_validator(mode="after")
    def _clean_value(self) -> "Fact":
        self.value = clean_value(self.attribute, self.value)  # "a doctor" -> "doctor" (keys.clean_value)
        return self

    @property
    def slot(self) -> tuple[str, str]:
        """``(entity, attribute)``, case-folded: facts with the same slot can supersede each other."""
        return (self.entity.casefold(), self.attribute)

    def as_text(self) -> str:
        """A one-line rendering for storage or prompts, e.g. ``"user likes: spicy food"``,
        ``"user home_city: Lisbon"``, ``"user NOT likes: spicy food"``."""
        neg = "NOT " if self.polarity < 0 else ""
        if ":" in self.attribute:
            head = self.attribute.split(":", 1)[0]
            return f"{self.entity} {neg}{head}: {self.value}"
        return f"{self.entity} {neg}{self.attribute}: {self.value}"
