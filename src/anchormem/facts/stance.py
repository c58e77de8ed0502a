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

Two checks of one clause serve every reader through the one gate of :func:`~anchormem.facts.reconcile.plan_facts`
(:func:`others_value`): a remark about a place in general (:func:`remark_of_place`: "Rent in London is like 2000
pounds these days", Sydney的房租) holds no value of the speaker's, and neither does a clause opening with a person the
speaker possesses, named in either script ("我 boyfriend 换工作了, now at Canva", "my 男朋友 moved to …").

Nothing is read before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from .. import langdata
from ..text.tokenize import has_cjk
from ..text.segment import CLAUSE_PIECE

__all__ = ["scene", "SCENES", "present_clauses", "person_clauses", "remark_of_place", "remarked_place", "others_value",
           "opens_with_person"]

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


@lru_cache(maxsize=1)
def _remark_rx() -> tuple[re.Pattern, re.Pattern, re.Pattern, re.Pattern]:
    """(a slot noun of either language: ``numeric_slots`` of slots.json, rent / 房租; the speaker's words of
    ``general_speaker``; the words between a slot noun and the place after it, ``general_place_before``: "in", 在;
    the words between a place and the slot noun after it, ``general_place_after``: 的, or none) of relative.json."""
    def alt(words: list[str] | tuple[str, ...], plural: bool = False) -> str:
        en = tuple(w for w in words if not has_cjk(w))
        zh = tuple(w for w in words if has_cjk(w))
        tail = r"(?:e?s)?" if plural else ""
        parts = ([rf"(?<![\w'’])(?:{langdata.alternation(en)}){tail}(?![\w'’])"] if en else []) + \
                ([langdata.alternation(zh)] if zh else [])
        return "|".join(parts) or r"(?!)"

    nouns = [w for lang in ("en", "zh") for ws in langdata.load("slots", lang).get("numeric_slots", {}).values()
             for w in ws]
    before = langdata.words("relative", "general_place_before", ("en", "zh"))
    after = langdata.words("relative", "general_place_after", ("en", "zh"))
    return (re.compile(alt(nouns, plural=True), re.I),
            re.compile(alt(langdata.words("relative", "general_speaker", ("en", "zh"))), re.I),
            re.compile(rf"^\s*(?:{alt(before)})\s*$", re.I), re.compile(rf"^\s*(?:{alt(after)})?\s*$", re.I))


def remark_of_place(clause: str) -> bool:
    """``clause`` is a remark about a place in general: a slot noun (rent, 房租) qualified by a known place rather
    than owned by the speaker ("Rent in London is like 2000 pounds these days", "Rent 在 Sydney 越来越贵了",
    "Sydney的房租涨了", "London rents are mad"), with none of the speaker's words in it ("My rent in London is
    2000" is the speaker's). A value it holds is the place's, no fact of the speaker's."""
    return bool(remarked_place(clause))


def remarked_place(clause: str) -> str:
    """The place ``clause`` remarks on in general (:func:`remark_of_place`), or ""."""
    nouns, speaker, before, after = _remark_rx()
    found = list(nouns.finditer(clause))
    if not found or speaker.search(clause):
        return ""
    from .places import places_in

    for at, name in places_in(clause):
        end = at + len(name)
        for n in found:
            if n.end() <= at and before.match(clause[n.end():at]) or \
                    end <= n.start() and after.match(clause[end:n.start()]):
                return name
    return ""


def others_value(sentence: str, value: str) -> str:
    """Why the clause of ``sentence`` that holds ``value`` states no fact of the speaker's, or "": "place:<place>", a
    remark about a place in general (:func:`remark_of_place`: "Rent in London is like 2000 pounds these days" ->
    "place:London": the speaker's only if they live there, which the caller knows); "person", it opens with a person
    the speaker possesses, said in either script after either possessive (:func:`opens_with_person`: "我 friend
    那边每周要 900", "my 男朋友 moved to Canva"), with none of the speaker's words after the person and no slot noun
    named ("My landlord raised the rent to 2050" names the rent it changed: the speaker's), or a person not possessed
    opening it after a remark about a place in the same sentence ("Rent 在 Sydney 越来越贵了, 朋友那边每周要 900": the
    example the remark goes on with; "Landlord bumped it to 1,450" alone is the speaker's rent). When no clause holds
    the value, the whole sentence is read as one."""
    nouns, speaker = _remark_rx()[:2]
    v = value.casefold().strip()
    clauses = _CLAUSE.findall(sentence)
    at = next((i for i, c in enumerate(clauses) if v and v in c.casefold()), None)
    clause = sentence if at is None else clauses[at]
    place = remarked_place(clause)
    if place:
        return "place:" + place
    m = _person_rx().match(clause)
    if not m or speaker.search(clause[m.end():]) or nouns.search(clause):
        return ""
    if m.group("own"):
        return "person"
    # a person not possessed ("Landlord bumped it to 1,450": acts on the speaker's) is someone else only as the
    # example a remark about a place goes on with ("Rent 在 Sydney 越来越贵了, 朋友那边每周要 900")
    return "person" if at and any(remark_of_place(c) for c in clauses[:at]) else ""


@lru_cache(maxsize=1)
def _person_rx() -> re.Pattern:
    """A clause opening with a person of the speaker's (``person_words`` / ``other_person_words`` of
    data/lang/*/kin.json, :func:`~anchormem.facts.kin.relation_pattern`), possessed or not, in either script after
    either possessive ("My boyfriend …", "我 boyfriend …", "my 男朋友 …", 朋友小李…), not with the speaker beside them
    ("my wife and I", 我老婆和我); group ``own``: the possessive, group 2: the person word."""
    from .kin import person_modifiers, relation_pattern

    en, zh = relation_pattern(False), relation_pattern(True)
    return re.compile(rf"^[\W_]*(?P<own>(?:my|our)\s*|我们?的?\s*)?(?:(?:{person_modifiers()})\s+)*"
                      rf"((?:{en})(?:e?s)?(?![\w'’])|{zh})(?!\s*(?:(?:and|&)\s*(?:i|me)\b|(?:和|跟|与|同)我))", re.I)


def opens_with_person(clause: str) -> str:
    """The person word ``clause`` opens with (see :func:`_person_rx`), or ""."""
    m = _person_rx().match(clause)
    return m.group(2) if m else ""


_CLAUSE = CLAUSE_PIECE  # (anchormem.text.segment: not inside "1,850" nor "3.5")


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


def of_others(text: str) -> bool:
    """Every sentence of ``text`` (a user's turn) opens with a clause that is a supposition (``hypothetical`` of
    cues.json) or whose subject is a person other than the speaker (a name, a person of the speaker's:
    :func:`~anchormem.facts.subjects.clause_subject`): "My mate Dave just moved to Glasgow for a new job.", 要是我搬回老家长沙，房租能省一半。 -> True; "I work
    at Airbnb.", "A glass of wine with dinner every night for me." -> False; False for no sentence."""
    from ..text.segment import split_sentences
    from .meaning import _person_of_speaker
    from .rules import _cue_patterns, _speaker_subject
    from .subjects import clause_subject

    firsts = [next((c.strip() for c in _CLAUSE.findall(s) if c.strip(",，;；.。!！?？ ")), "")
              for s in split_sentences(text)]
    firsts = [c for c in firsts if c]
    return bool(firsts) and all(_cue_patterns()[1].search(c) or clause_subject(c) or _speaker_subject(c) == "other"
                                or _person_of_speaker(c) for c in firsts)


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

