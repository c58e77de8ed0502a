"""A question about one of the asker's own slots reaches its current value, however it is worded.

"How much do I earn?" / "What do they pay me?" / "我一个月挣多少？" ask for the salary, "Where am I based?" for the
home, but share no word with "My salary is 52000." / "I live in Lisbon.", so the evidence test
(:mod:`.evidence`) finds no memory answering them. The question words of each slot are language data
(``data/lang/<lang>/answers.json`` ``slot_questions``: {attribute: words}); a question asked about the asker
themself (first person, no relative and no other name: :func:`about_user`) that names a slot is answered from
the slot's current fact memories (the claims the store holds as current, ``Store.current_facts``), quoted as they
hold now. Nothing is answered for a slot with no current fact: no answer where nothing was recorded.
"""

from __future__ import annotations

import re
from functools import lru_cache
from datetime import datetime
from typing import Any

from .. import langdata
from ..facts.claims import current_view
from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem, Scope
from .extractive import quoted
from .persons import asks_about_self, kin_words

__all__ = ["asked_slots", "about_user", "slot_answer", "slot_answer_as_of", "held_first"]


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern[str], str, int]]:
    """(pattern, attribute, length) per question word of every language, longest first."""
    out: list[tuple[re.Pattern[str], str, int]] = []
    for lang in langdata.LANGUAGES:
        for attr, words in (langdata.load("answers", lang).get("slot_questions") or {}).items():
            for w in words:
                body = re.escape(w).replace(r"\ ", r"\s+")
                pat = body if re.search(r"[^\x00-\x7f]", w) else rf"\b{body}\b"
                out.append((re.compile(pat, re.I), attr, len(w)))
    return sorted(out, key=lambda x: -x[2])


def _families() -> dict[str, tuple[str, ...]]:
    """Slot families a question may ask for as a whole ("Am I seeing anyone?": whichever partner slot holds, or
    held), by their ``slot_questions`` key: ``partner`` -> :data:`~anchormem.facts.keys.PARTNER_SLOTS`."""
    from ..facts.keys import PARTNER_SLOTS

    return {"partner": PARTNER_SLOTS}


def asked_slots(question: str) -> list[str]:
    """The attributes ``question`` names by their question words, longest word first, each once ("How much do I
    earn?" -> ["salary"]); a slot family's words name each of its attributes ("Am I seeing anyone?" ->
    ["girlfriend_name", "boyfriend_name", …], :func:`_families`)."""
    fam = _families()
    return list(dict.fromkeys(a for pat, attr, _ in _patterns() if pat.search(question)
                              for a in fam.get(attr, (attr,))))


def about_user(question: str) -> bool:
    """The question asks about the asker themself: first person, no relative ("my brother") and no other name
    (a capitalised word past the first, other than "I")."""
    if not asks_about_self(question) or kin_words(question):
        return False
    return not re.search(r"(?<!^)(?<![.?!]\s)\b(?!I\b|I'm\b|I've\b|I'd\b)[A-Z][a-z]+", question.strip())


def slot_answer(question: str, store: Any, scope: Scope, filters: Any = None) -> tuple[Answer, list[Any]] | None:
    """The answer citing the current fact memories of the first slot ``question`` names that has any (each as it
    holds now; in ``scope``'s agent and session when it names them), for a question about the asker
    (:func:`about_user`); None otherwise, and for a read with ``filters`` (the caller narrowed what may answer)."""
    if filters or not about_user(question):
        return None
    for attr in asked_slots(question):
        found: list[MemoryItem] = [v for m in store.current_facts(scope.tenant, scope.user_id, [f"user|{attr}"])
                                   if m.fact is not None and m.fact.polarity > 0 and
                                   all(getattr(scope, k) in (None, getattr(m, k)) for k in ("agent_id", "session_id"))
                                   and (v := current_view(m)) is not None]
        if found:
            cites = found[-1:]  # the newest said holds (a slot has one current value)
            zh = has_cjk(question)
            text, cites = quoted(cites, zh=zh)
            return Answer(text=text, citations=cites, abstained=False), []
    return None


def _held_then(m: MemoryItem, slot: str, as_of: datetime) -> datetime | None | bool:
    """Whether ``m`` stated ``slot`` (positively) and it held at ``as_of``: the end of that claim (None: it holds
    now), or False."""
    for c in m.claims:
        if c.slot == slot and c.polarity > 0 and c.valid_from <= as_of and (c.valid_to is None or c.valid_to > as_of):
            return c.valid_to
    if m.fact is not None and m.fact.slot == slot and m.fact.polarity > 0 and m.created_at <= as_of and \
            (m.valid_to is None or m.valid_to > as_of):
        return m.valid_to
    return False


def slot_answer_as_of(question: str, found: list[Hit], as_of: datetime) -> tuple[Answer, list[Hit]] | None:
    """The answer ``ask(question, as_of=...)`` gives from the user's claims valid then, when the evidence test
    found none: for a question about the asker naming a slot (:func:`asked_slots`: "Where am I based?", 我在哪住？),
    the first of ``found`` (the search as of ``as_of``, best first, as the memories read then) that carried a claim of
    that slot holding at ``as_of``, quoted with the end of that claim ("true until 2024-03", the asked slot's end,
    not the memory's). None when no such memory was found."""
    if not about_user(question):
        return None
    for attr in asked_slots(question):
        for h in found:
            m = h.memory
            if m.kind == "summary" or m.source == "assistant":
                continue
            end = _held_then(m, f"user|{attr}", as_of)
            if end is False:
                continue
            view = m.model_copy(update={"valid_to": end}) if end != m.valid_to else m
            zh = has_cjk(question)
            text, cites = quoted([view], zh=zh)
            return Answer(text=text, citations=cites, abstained=False), \
                [h.model_copy(update={"memory": view, "explain": {**h.explain, "as_of_slot": attr}})]
    return None


def held_first(ans: Answer, question: str, found: list[Hit], as_of: datetime, max_citations: int
               ) -> tuple[Answer, list[Hit]] | None:
    """``ans`` (an answer read as of ``as_of``) when its first citation is a value scheduled for a time after
    ``as_of`` ("My rent goes up to 1,500 from the 1st", read before the 1st: :func:`anchormem.types.validity_state`)
    and the asked slot's value holding then is found (:func:`slot_answer_as_of`): that value quoted first, the
    answer's own citations after it (at most ``max_citations`` in all). None otherwise: as of then the scheduled
    value is not yet the current one."""
    from ..types import validity_state

    if ans.abstained or not ans.citations:
        return None
    first = ans.citations[0]
    if validity_state(first.valid_from, first.valid_to, first.created_at, as_of) != "scheduled":
        return None
    then = slot_answer_as_of(question, found, as_of)
    if then is None:
        return None
    held = then[0].citations[0]
    cites = ([held] + [c for c in ans.citations if c.id != held.id])[:max_citations]
    zh = has_cjk(question)
    text, citations = quoted(cites, zh=zh)
    return Answer(text=text, citations=citations, abstained=False, evidence=list(ans.evidence) + then[1]), then[1]
