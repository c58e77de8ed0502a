"""Preferences that change: what the user prefers for a kind of thing (issue #22).

A preference is a slot per kind, ``prefers:<kind>`` (``contact``, ``courier``, ``language``, ``seat``,
``payment``...; the kind names are shared by every language), whose value is the preferred thing in the user's
words. So a later preference of the same kind is another value of the same slot and supersedes the earlier one,
whatever language either was said in: "I prefer email." -> "I now prefer phone calls instead of email."
(``prefers:contact``: email -> phone calls); 我喜欢用顺丰快递。 -> 以后请用京东快递, 顺丰太慢了。 (``prefers:courier``:
顺丰 -> 京东). A question naming the kind ("Which courier do I prefer?", 我喜欢用哪家快递？) reaches the slot through
``slot_questions`` of ``data/lang/<lang>/answers.json`` (:mod:`anchormem.answering.slot_questions`).

What is read is data, per language (``data/lang/<lang>/preferences.json``): ``kinds`` (the words of each kind's
values) and ``cues`` (regular expressions in which ``{VALUE}`` stands for a value of any kind: "prefer X", "switch
me to X", "X instead of Y", 以后用X, 改用X; ``{OTHER}``: another value, matched but not read). A thing outside every kind ("I prefer tea") is no preference slot (the
opinion rules read it as a liking).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata

__all__ = ["preference_facts", "kind_of"]


def _kinds() -> dict[str, str]:
    """{value word (case-folded): kind} over every language."""
    return langdata.word_groups("preferences", "kinds", casefold=True)


def kind_of(value: str) -> str:
    """The kind of a preferred thing ("phone calls" -> "contact", 顺丰 -> "courier"), "" when it is of none."""
    v = value.casefold().strip()
    v = re.sub(r"^(?:an?|the)\s+", "", v)
    return _kinds().get(v, "") or _kinds().get(value.casefold().strip(), "")


@lru_cache(maxsize=1)
def _cues() -> tuple[re.Pattern[str], ...]:
    values = langdata.alternation(tuple(_kinds()))
    value = rf"(?P<value>{values})(?![A-Za-z])"
    out = []
    for lang in langdata.LANGUAGES:
        for cue in langdata.load("preferences", lang).get("cues") or []:
            other = rf"(?:{values})(?![A-Za-z])"
            out.append(re.compile(cue.replace("{VALUE}", value).replace("{OTHER}", other), re.I))
    return tuple(out)


def preference_facts(sentence: str) -> list[tuple[str, str, str]]:
    """``(attribute, value, clause)`` of each preference ``sentence`` states, at most one per kind (the first a cue
    names): "I now prefer phone calls instead of email." -> [("prefers:contact", "phone calls", <sentence>)].
    The caller has checked the sentence is the speaker's own statement (no question, condition or reported
    speech)."""
    found: dict[str, tuple[int, str]] = {}
    for pat in _cues():
        for m in pat.finditer(sentence):
            value = m.group("value")
            kind = kind_of(value)
            if kind and (kind not in found or m.start("value") < found[kind][0]):
                found[kind] = (m.start("value"), value)
    return [(f"prefers:{kind}", value, sentence) for kind, (_, value) in sorted(found.items(), key=lambda x: x[1][0])]
