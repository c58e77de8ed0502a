"""Answer types: what kind of answer a question asks for, and whether a memory's words hold one.

A question that asks for a name ("What is my sister's name?", 我女儿叫什么？) is answered only by a memory that
states a name: "My sister visits on 12 May" mentions the sister but names no one, so ``ask`` abstains instead of
quoting it (English statements; a Chinese one cannot be told by capitals and passes). The question patterns, the cue words that introduce a name and the capitalised words that are no name
are language data (``data/lang/<lang>/answers.json``).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["asked_value_kinds", "asks_name", "states_name"]

@lru_cache(maxsize=1)
def _name_data() -> tuple[re.Pattern[str], re.Pattern[str], frozenset[str]]:
    from ..langdata import alternation, load, words

    ask = re.compile("|".join(f"(?:{p})" for p in words("answers", "name_question")) or "(?!)", re.I)
    cue = re.compile(r"(?<![A-Za-z])(?:" + alternation(words("answers", "name_cues")) + r")(?![A-Za-z])", re.I)
    from ..facts.subjects import not_names

    return ask, cue, not_names("en") | not_names("zh")


def asks_name(question: str) -> bool:
    """The question asks for a name ("What is my sister's name?", 我女儿叫什么？; data: ``answers.json``)."""
    return bool(_name_data()[0].search(question))


def states_name(stated: str, question_words: set[str]) -> bool:
    """``stated`` names someone or something: a name cue ("named", "called", 叫) or a capitalised word that does not
    start its sentence, is not in the question and is no month, weekday or pronoun (``not_names`` of ``names.json``)
    nor a relation ("Mom"). Chinese text always passes (no capitals to tell a name by: "我女儿朵朵…")."""
    from .persons import kin_base  # a relation said as a name ("Mom called") is no name

    _ask, cue, not_names = _name_data()
    if cue.search(stated) or re.search(r"[\u4e00-\u9fff]", stated):
        return True  # Chinese names carry no capital: a Chinese statement is given the benefit of the doubt
    for m in re.finditer(r"(?<![.!?。！？]\s)(?<!^)\b([A-Z][\w'-]*)", stated.strip()):
        w = m.group(1)
        if w.casefold() not in not_names and kin_base(w) is None and w.lower() not in question_words:
            return True
    return False


@lru_cache(maxsize=1)
def _kind_questions() -> tuple[tuple[str, re.Pattern[str]], ...]:
    from ..langdata import LANGUAGES, load

    pats: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        for kind, ps in (load("answers", lang).get("typed_kind_questions") or {}).items():
            pats.setdefault(kind, []).extend(ps)
    return tuple((k, re.compile("|".join(f"(?:{p})" for p in ps), re.I)) for k, ps in pats.items() if ps)


def asked_value_kinds(question: str) -> frozenset[str]:
    """The kinds of typed value (:func:`~anchormem.facts.meaning.typed_values`: ``name``, ``count``, ``number``,
    ``age``, ``job``) ``question`` asks for (``typed_kind_questions`` of ``answers.json``): "Where do I work now?"
    -> {"name"}, 我有几只猫？ -> {"count"}; empty when it asks for none of them ("Do I still drink bubble tea?")."""
    return frozenset(k for k, rx in _kind_questions() if rx.search(question))
