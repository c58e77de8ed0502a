"""Slot keys for things liked, done, owned and eaten, so that one topic said two ways is one slot.

A fact's attribute for a thing (``likes:<thing>``, ``does:<activity>``, ``allergy:<thing>``, ``count:<thing>``)
is keyed by :func:`topic_key`, not by the user's exact words, so that a change of mind is seen as one:

- "I love jogging in the park" and "I hate jogging now" -> ``likes:jog`` (+1, then -1);
- "I drink coffee every morning" and "I stopped drinking coffee" -> ``does:coffee``;
- "我喜欢吃辣" and "我现在受不了辣了" -> ``likes:辣``.

English words are lemmatised (``lemminflect``: "jogging" -> "jog", "cats" -> "cat"); articles, possessives,
light verbs ("drink", "eat", "play", "go", "do", "have", "take"; 吃/喝/玩/打/去/做) and trailing place, time and
company phrases ("in the park", "every morning", "with friends", "on weekends") are dropped. The value keeps the
user's own words; only the key is normalised.

:func:`value_key` compares values of one slot: ``diet`` values have canonical forms across languages
("vegetarian" = "素食" = "吃素"), other values compare by :func:`~anchormem.facts.model.normalize_object`.

:data:`TOPIC_HEADS` ``likes`` and ``does`` are siblings: a negative statement about one contradicts a positive one
about the other ("I love spicy food" then "I don't eat spicy food any more"), see
:func:`anchormem.facts.reconcile.conflicts`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..text.tokenize import has_cjk, words as segment

__all__ = ["topic_key", "value_key", "TOPIC_HEADS", "LIGHT_VERBS", "NAMED_SLOTS", "related_attributes",
           "sibling_attribute"]

TOPIC_HEADS = ("likes", "does")  # liking and doing the same thing: opposite polarities contradict

_STOP = frozenset("the a an some any my our your his her their this that these those to of for".split())
LIGHT_VERBS = frozenset("drink eat play go do have take get 吃 喝 玩 打 去 做 抽 看".split())
# a trailing place / time / company / frequency phrase is not part of the thing ("jogging in the park")
_TRAIL = re.compile(
    r"\s+(?:in|on|at|with|every|each|after|before|during|around|near|daily|weekly|regularly|sometimes|often|"
    r"usually|a lot|twice|once|three times|several times|all the time|together|alone|outside|outdoors|"
    r"at home|these days|again)\b.*$", re.I)
_ZH_LEAD = re.compile(r"^(?:吃|喝|玩|打|去|做|抽|看)(?=.)")
_ZH_MEASURE = re.compile(r"^(?:[一两二三几半]?(?:杯|个|碗|瓶|份|点|块|片|根|包|盒|罐|口))+")
_ZH_TRAIL = re.compile(r"(?:了|啦|的|呢|吧|啊|呀|哦|东西)+$")

_DIET = {
    "vegetarian": ("vegetarian", "veggie", "素食", "吃素", "素食者", "素食主义者", "素食主义", "素"),
    "vegan": ("vegan", "纯素", "纯素食", "纯素食者", "纯素食主义者"),
    "pescatarian": ("pescatarian", "pescetarian"),
    "eats meat": ("eat meat", "eating meat", "eats meat", "meat eater", "carnivore", "omnivore", "吃肉", "开始吃肉",
                  "meat", "steak", "steaks", "beef", "pork", "chicken", "bacon", "ham", "lamb", "burger", "burgers",
                  "sausage", "sausages", "turkey"),
}
_NUMBERS = {w: str(i) for i, ws in enumerate(
    ["zero no", "a an one 一", "two 二 两", "three 三", "four 四", "five 五", "six 六", "seven 七", "eight 八",
     "nine 九", "ten 十"]) for w in ws.split()}
_DIET_CANON = {w: canon for canon, words in _DIET.items() for w in words}


@lru_cache(maxsize=4096)
def _lemma(word: str) -> str:
    from lemminflect import getLemma  # lazy: its tables load on first use (no import-time I/O)

    upos = "VERB" if word.endswith("ing") and len(word) > 5 else "NOUN"
    got = getLemma(word, upos=upos)
    return got[0] if got else word


def topic_key(text: str) -> str:
    """Key of a thing or activity (see module doc). ``"Jogging in the park!"`` -> ``"jog"``;
    ``"drinking coffee every morning"`` -> ``"coffee"``; ``"吃辣"`` -> ``"辣"``. Never empty for non-empty
    input (falls back to the case-folded text)."""
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = re.sub(r"[\s.!?。！？,，;；:：~…'\"“”]+$", "", t)
    if not t:
        return t
    if has_cjk(t) and not re.search(r"[a-z]{2,}", t):
        z = _ZH_TRAIL.sub("", re.sub(r"\s+", "", t))
        z = _ZH_MEASURE.sub("", _ZH_LEAD.sub("", z))
        # Chinese compounds are head-final: "美式咖啡" is a kind of "咖啡"; the last word is the topic
        parts = [w for w in segment(z) if w.strip()] if len(z) > 2 else [z]
        return (parts[-1] if parts and len(parts[-1]) > 1 else z) or t
    cut = _TRAIL.sub("", " " + t).strip() or t
    words = [w for w in re.findall(r"[\w'-]+", cut) if w not in _STOP]
    lemmas = [_lemma(w) if w.isascii() and w.isalpha() else w for w in words]
    if len(lemmas) > 1 and lemmas[0] in LIGHT_VERBS:
        lemmas = lemmas[1:]
    return " ".join(lemmas) or t


def value_key(attribute: str, value: str) -> str:
    """Comparable form of a slot's value: canonical diet names, else the normalised words."""
    from .model import normalize_object

    v = normalize_object(value)
    if attribute == "diet":
        v = re.sub(r"^(?:a|an|now|strict|full|fully)\s+|\s+diet$", "", v)
        return _DIET_CANON.get(v, v)
    if attribute.partition(":")[0] in ("likes", "does", "allergy"):
        return topic_key(value)
    if attribute.startswith("count:"):
        m = re.match(r"(\d+|[a-z]+|[一二两三四五六七八九十])", v)
        return _NUMBERS.get(m.group(1), m.group(1)) if m else v
    return v


# who or what can be "gone" (died, ran away): the named slots a "gone" fact closes by value
NAMED_SLOTS = tuple(f"{a}_name" for a in ("dog", "cat", "pet", "bird", "fish", "rabbit", "hamster", "horse",
                                          "parrot", "turtle", "puppy", "kitten"))


def related_attributes(attribute: str) -> list[str]:
    """Attributes whose current facts a new fact is compared with besides its own: the ``likes``/``does``
    sibling, and for ``gone`` (a pet that died or ran away) every pet-name slot, matched by value."""
    if attribute == "gone":
        return list(NAMED_SLOTS)
    sib = sibling_attribute(attribute)
    return [sib] if sib else []


def sibling_attribute(attribute: str) -> str | None:
    """``likes:x`` <-> ``does:x``; None for any other attribute."""
    head, sep, key = attribute.partition(":")
    if not sep or head not in TOPIC_HEADS:
        return None
    return f"{TOPIC_HEADS[1 - TOPIC_HEADS.index(head)]}:{key}"
