"""Whether a clause can state what holds for the speaker now: the scene it is set in.

A clause set in the past ("back in college I lived in Ithaca", 大学那会儿我在哈尔滨待了四年), on a trip ("Flying to
Lisbon for two weeks", 下周去云南玩十天), about people in general ("Rents in my city went up 10% on average"), about
what belongs to someone else ("My neighbour's rent", 我邻居的房租) or about something the speaker only saw, heard of
or was quoted ("saw a two-bed listed at $2,600", 看到一套挂牌五百万) states no change of the speaker's own facts,
whatever value it holds. The change readers that compare a clause with the user's memories (the change-by-meaning
fallback :mod:`.meaning` and the relative reader :mod:`.relative`) read no clause this gate holds. The words are
data: ``past_time``, ``visit``, ``general`` and ``observed`` of ``data/lang/<lang>/relative.json``, read after
the ``not_scene`` phrases that only look like one are masked ("not used to the heat") (both languages
are looked up in every clause: a mixed clause says its scene in either).

    scene("back in college I lived in Ithaca")   # -> "past_time"
    scene("I live in Leeds")                      # -> ""

Nothing is read before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["scene", "SCENES", "present_clauses", "person_clauses"]

SCENES = ("past_time", "visit", "general", "observed")


@lru_cache(maxsize=1)
def _others_rx() -> re.Pattern:
    from .keys import relation_words

    alt = langdata.alternation(tuple(relation_words()))
    return re.compile(rf"\b(?:{alt})['’]s\b|(?:{alt})的", re.I)


@lru_cache(maxsize=1)
def _scene_rx() -> dict[str, re.Pattern]:
    out = {}
    for key in SCENES:
        en = [w for w in langdata.words("relative", key, ("en", "zh")) if not has_cjk(w)]
        zh = [w for w in langdata.words("relative", key, ("en", "zh")) if has_cjk(w)]
        parts = ([rf"\b(?:{langdata.alternation(tuple(en))})\b"] if en else []) + \
                ([langdata.alternation(tuple(zh))] if zh else [])
        if key == "past_time":  # a past adverb opening the clause: "before that I lived in…", 之前住在…, 原来在…上班
            parts += _opening_parts()
        out[key] = re.compile("|".join(parts) or r"(?!)", re.I)
    return out


def _opening_parts() -> list[str]:
    """Patterns of ``past_opening`` of relative.json: one of its adverbs at the start of a clause, after at most one
    of ``past_opening_subjects`` ("before that I lived in Austin", 我之前住在无锡, 原来在腾讯上班); the same word inside a
    clause may be a time ("三天之前搬的", "the week before") and is left to the ``past_time`` phrases."""
    out = []
    for lang in ("en", "zh"):
        words = langdata.words("relative", "past_opening", (lang,))
        subjects = langdata.words("relative", "past_opening_subjects", (lang,))
        if not words:
            continue
        sep = r"\s+" if lang == "en" else r"\s*"
        subj = rf"(?:(?:{langdata.alternation(tuple(subjects))}){sep})?" if subjects else ""
        word = langdata.alternation(tuple(words))
        out.append(rf"^[\W_]*{subj}(?:{word})" + (r"\b" if lang == "en" else ""))
    return out


@lru_cache(maxsize=1)
def _not_scene_rx() -> re.Pattern:
    words = langdata.words("relative", "not_scene", ("en", "zh"))
    en, zh = tuple(w for w in words if not has_cjk(w)), tuple(w for w in words if has_cjk(w))
    parts = ([rf"\b(?:{langdata.alternation(en)})\b"] if en else []) + ([langdata.alternation(zh)] if zh else [])
    return re.compile("|".join(parts) or r"(?!)", re.I)  # (a Chinese phrase anywhere: 不玩了 is no trip, 玩了)


def scene(clause: str, others: bool = True) -> str:
    """The scene that keeps ``clause`` from stating a present fact of the speaker's: "past_time", "visit",
    "general", "observed", "others" (a possessive of someone else: "my neighbour's rent"; only with ``others``: a
    reader of a person's own facts, "my daughter's 9th birthday", asks without), or "" (none)."""
    if others and _others_rx().search(clause):
        return "others"
    clause = _not_scene_rx().sub(" ", clause)  # "still not used to the heat": no past habit
    for key, rx in _scene_rx().items():
        if rx.search(clause):
            return key
    return ""



_CLAUSE = re.compile(r"(?:[^,，;；.。!！?？]|(?<=\d)[,.](?=\d))+[,，;；.。!！?？]*")  # (not "2,600" nor "3.5")


def present_clauses(text: str) -> list[str]:
    """The clauses of ``text`` (a user's turn) that can state what holds for its speaker now, in order. Clauses are
    cut at punctuation; a sentence that is a question states none; a clause giving an opinion (``opinion`` of
    relative.json: "I don't like the office coffee", 这家店的咖啡很难喝) is left out; a clause that is a supposition
    (``hypothetical`` of cues.json: "If I moved to Berlin", 要是能在西安找到工作), a modal, plan or reported clause
    (:func:`~anchormem.facts.changes.blocked`: "Thinking about jumping ship", 他说他搬到了深圳), set in a
    :func:`scene` (the past, a trip, people in general, what is only seen, what is someone else's) or whose subject is
    someone else (:func:`~anchormem.facts.subjects.speakers`: "My friend moved to Berlin", 我表哥搬去了上海; a person
    of the speaker's: 我侄子今年都十岁了) leaves out the rest of its sentence too ("…, so jealous", "…，我就搬过去"):
    what follows is said within it. ``[]`` when no clause can."""
    from ..text.segment import split_sentences
    from .changes import blocked
    from .meaning import _person_of_speaker
    from .rules import _cue_patterns, _is_question
    from .subjects import speakers
    from .typed_values import _says_word

    out: list[str] = []
    for sentence in split_sentences(text):
        if _is_question(sentence):
            continue
        for clause in _CLAUSE.findall(sentence):
            c = clause.strip()
            if not c.strip(",，;；.。!！?？ "):
                continue
            if _cue_patterns()[1].search(c) or blocked(c) or scene(c) or not speakers(c) or _person_of_speaker(c):
                break  # the rest of the sentence is said within the supposition, the scene, the other's story
            if not _says_word(c, "zh" if has_cjk(c) else "en", "opinion"):
                out.append(c)
    return out


def person_clauses(text: str, theirs: Callable[[str], bool]) -> list[str]:
    """The clauses of ``text`` (a user's turn) that can state what holds now for another person, the one
    ``theirs`` (a clause -> whether its subject is that person) tells: a sentence's clauses from the first whose
    subject is theirs ("My sister Mei just moved to Beijing", 我妈妈搬到广州了), with the clauses after it that name
    no other subject ("…, she's thrilled"), up to one that does. As :func:`present_clauses`, a question states
    none, and a supposition, a modal, plan or reported clause or a :func:`scene` (the past, a trip: "My sister is
    visiting Rome next week", 我姐姐下个月去三亚旅游) leaves out the rest of its sentence; an opinion is left out.
    ``[]`` when no clause can."""
    from ..text.segment import split_sentences
    from .changes import blocked
    from .rules import _cue_patterns, _is_question
    from .subjects import person_owner, speakers

    out: list[str] = []
    for sentence in split_sentences(text):
        if _is_question(sentence):
            continue
        on = False
        for clause in _CLAUSE.findall(sentence):
            c = clause.strip()
            if not c.strip(",，;；.。!！?？ "):
                continue
            if _cue_patterns()[1].search(c) or blocked(c) or scene(c, others=False):
                break
            mine = theirs(c)
            if not mine and (person_owner(c) != ("", "") or (on and speakers(c) and _first_person(c))):
                if on:
                    break  # another subject: the rest is theirs
                continue
            on = on or mine
            if on and not _says_word_opinion(c):
                out.append(c)
    return out


_FIRST = re.compile(r"\b(?:i|i'm|i’m|i've|we|we're)\b|我|咱", re.I)


def _first_person(clause: str) -> bool:
    return bool(_FIRST.search(clause))


def _says_word_opinion(clause: str) -> bool:
    from .typed_values import _says_word

    return _says_word(clause, "zh" if has_cjk(clause) else "en", "opinion")

