"""One value-type check of every fact before reconciliation (issue #22): a slot's value must be of the slot's type.

Each slot family has a value type declared as data (``data/lang/<lang>/slot_types.json``: ``home_city`` a place,
``employer`` an organisation, ``occupation`` a job, ``salary`` an amount of money, ``count:<noun>`` a count...). A
fact found by any reader (rules, frames, jobs, places, meaning, relative, an LLM) is checked against its slot's type
with what is already known, and one that fails is dropped, never stored as a claim:

- a name the user's memory gives to a pet or a person is no place, organisation, job or amount ("back home, Pepper
  ignored me all day" after "my cat Pepper": no home_city "Pepper");
- a place, an organisation or a job holds no pronoun (``first_person`` of keys.json, ``pronouns`` of lines.json:
  an occupation "ugh my boss"; one last is the next clause's subject run into the value: "Microsoft I" passes) and, in Chinese, no function word (jieba tags of ``function_tags``: a conjunction, an
  adverb, a particle, a pronoun) unless a place word (``ns``) is in it (employer 但一想到房贷还是忍, home_city 得也近);
- a place or an organisation is no word for a person (``persons_not_values``: 我们家添了个宝宝，是个女儿 names no
  home 个女儿; "Hugo Boss", capitalised, is a name);
- a place is no job title (:func:`~anchormem.facts.jobs.is_title`), a job no known place;
- an amount reads (:func:`~anchormem.facts.values.parse`) as a value of its unit class or a bare number, when it
  reads at all (a salary "212 lbs" fails).

A value said of someone else is that person's slot (:func:`said_of`): a clause whose subject is a person of the
user's (``own_people``: "my brother", 我弟, 媳妇) or a person the user's memory names ("Ray" with ``husband_name``
Ray), with no word of the speaker's in it, states that person's value: "我弟刚找到工作，月薪一万二" is the brother's
salary (``弟弟_salary``), "Ray got a raise to $90k" Ray's (entity "Ray"), neither retires the user's.

A clause whose verb ends, sells or leaves a thing ("Sold the Tesla", "my last day at Google", 把特斯拉卖了: ``ended_objects``
of slot_types.json) yields no positive claim of that thing for any slot (:func:`ended_objects`): its ending is
the ending readers' (a ``gone`` or -1 fact), never a value held ("employer Tesla", ``last_day_at_google``).

A question whose statement part is only a role adjunct and the value ("As a brand-new accountant, what should I
wear?", 作为…: ``question_adjuncts``) presupposes the role and states no change of it (:func:`presupposed`).

    checked(facts, text, names)   # -> (kept facts, [(dropped fact, reason)])
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import datetime, timezone
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk
from .model import Fact

__all__ = ["Names", "slot_type", "type_failure", "said_of", "presupposed", "ended_objects", "ended_claims", "checked", "known_names",
           "gate"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Names:
    """The names the user's memory gives: ``pets`` and ``persons`` (casefolded), and ``person_entities`` (the
    entities other than the user that facts are stored under, as written: "Ray")."""

    pets: frozenset[str] = frozenset()
    persons: frozenset[str] = frozenset()
    person_entities: tuple[str, ...] = field(default_factory=tuple)


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    """slot_types.json of every language, merged (lists joined, dicts updated)."""
    out: dict[str, Any] = {}
    for lang in langdata.LANGUAGES:
        for k, v in langdata.load("slot_types", lang).items():
            if isinstance(v, dict):
                out.setdefault(k, {}).update(v)
            elif isinstance(v, list):
                out[k] = list(dict.fromkeys(out.get(k, []) + v))
    return out


@lru_cache(maxsize=4096)
def slot_type(attribute: str) -> str:
    """The value type of ``attribute`` ("place", "organisation", "job", "money", "count"...), or "" for a slot
    whose type is not declared (its facts are not checked). ``slot_type("brother_home_city") == "place"``."""
    d = _data()
    a = attribute.strip()
    if a in d.get("families", {}):
        return d["families"][a]
    for p, t in d.get("prefixes", {}).items():
        if a.startswith(p):
            return t
    for s, t in sorted(d.get("suffixes", {}).items(), key=lambda kv: -len(kv[0])):
        if a.endswith(s):
            return t
    return ""


@lru_cache(maxsize=1)
def _pronoun_rx() -> re.Pattern:
    ws = [w for lang in langdata.LANGUAGES for w in (*langdata.load("keys", lang).get("first_person", []),
                                                     *langdata.load("lines", lang).get("pronouns", []))]
    en = [re.escape(w) for w in dict.fromkeys(ws) if not has_cjk(w)]
    zh = [re.escape(w) for w in sorted(dict.fromkeys(w for w in ws if has_cjk(w)), key=len, reverse=True)]
    return re.compile(r"(?<![\w'’])(?:" + "|".join(en) + r")(?![\w'’])|" + "|".join(zh), re.I)


def _name_in(value: str, names: frozenset[str]) -> str:
    """The name of ``names`` that ``value`` is or holds as a word ("Pepper" in "Pepper's place"), or ""."""
    v = value.casefold().strip()
    for n in names:
        if not n or (not has_cjk(n) and len(n) < 2):
            continue
        if v == n or (has_cjk(n) and len(n) >= 2 and n in v) or \
                (not has_cjk(n) and re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", v)):
            return n
    return ""


@lru_cache(maxsize=1)
def _travel_rx() -> re.Pattern:
    """``travel_openers`` of slot_types.json (all languages): the words a way of getting somewhere opens with."""
    ws = sorted(set(_data().get("travel_openers", [])), key=len, reverse=True)
    return re.compile("|".join(re.escape(w) if has_cjk(w) else re.escape(w) + r"\b" for w in ws) or "(?!)", re.I)


def _person_noun(value: str) -> bool:
    """Whether ``value``'s head is a word for a person (:func:`~anchormem.facts.kin.person_words`): an English last
    word in lower case ("my sister"; "Hugo Boss" is a name), a Chinese value ending in a person word of two
    characters or more, or one that is only a count and a person word (个女儿, 一个朋友, 两个孩子)."""
    from .kin import person_words

    words = person_words()
    v = value.strip().rstrip(" .,!?;:，。！？；：'\"")
    if not has_cjk(v):
        last = re.findall(r"[^\W\d_][\w'’-]*", v)
        return bool(last) and last[-1] == last[-1].casefold() and last[-1] in words
    bare = re.sub(r"^[\d一二两三四五六七八九十几]*[个位名只]?", "", v)
    return bare in words or any(len(w) >= 2 and has_cjk(w) and v.endswith(w) for w in words)


def _clause_like(value: str) -> bool:
    """A Chinese value of two words or more holding a function word (``function_tags``) and no place word (tagged
    ``ns`` or known to the gazetteer): a piece of a clause, no name."""
    if not has_cjk(value):
        return False
    from ..text.tokenize import pos_tags

    from .places import place_known

    tags = [(w, t) for w, t in pos_tags(value) if w.strip()]
    if len(tags) < 2 or any(t == "ns" or place_known(w) for w, t in tags):
        return False  # (one word is a name, whatever its tag: 大连 is tagged an adverb)
    fn = set(_data().get("function_tags", []))
    return any(t in fn for i, (_, t) in enumerate(tags) if not (i == 0 and t == "p"))  # (自媒体: a leading 自 is no clause)


def type_failure(f: Fact, names: Names = Names()) -> str:
    """Why ``f``'s value is not of its slot's type ("" when it is, or the slot has no declared type, or ``f`` ends
    a value: a -1 fact names what ended in its own words). Reasons: "pet name <n>", "person name <n>", "pronoun",
    "person noun", "clause", "travel", "job title", "place", "unit <kind>"."""
    if f.polarity < 0:
        return ""
    kind = slot_type(f.attribute)
    if not kind:
        return ""
    d = _data()
    v = f.value.strip()
    if kind in d.get("names_not_values", []):
        n = _name_in(v, names.pets)
        if n:
            return f"pet name {n}"
        n = _name_in(v, names.persons)
        if n:
            return f"person name {n}"
    if kind in d.get("words_not_values", []):
        tail = len(v.rstrip(" .,!?;:，。！？；：'\""))
        if any(m.end() < tail for m in _pronoun_rx().finditer(v)):
            return "pronoun"  # (one last: the next clause's subject run into the value, "Microsoft I": no cause)
        if _clause_like(v):
            return "clause"
    if kind == "organisation" and _travel_rx().match(v):
        return "travel"  # 骑电动车 (上班), "ride an e-bike (to work)": how the user gets there, no employer
    if kind in d.get("persons_not_values", []) and _person_noun(v):
        return "person noun"
    if kind == "place":
        from .jobs import is_title

        if not has_cjk(v) and is_title(v):
            return "job title"
    if kind == "job" and not has_cjk(v):
        from .places import known_place

        if known_place(v):
            return "place"
    allowed = d.get("unit_kinds", {}).get(kind)
    if allowed:
        from .values import parse

        read = parse(v, "zh" if has_cjk(v) else "en")
        if read and not any(x.kind in allowed for x in read):
            return f"unit {read[0].kind}"
    return ""


# -- whose value ------------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _speaker_rx() -> re.Pattern:
    from .stance import _remark_rx

    return _remark_rx()[1]


@lru_cache(maxsize=1)
def _own_people() -> tuple[frozenset[str], frozenset[str]]:
    d = _data()
    return (frozenset(w.casefold() for w in d.get("own_people", [])),
            frozenset(w.casefold() for w in d.get("unpossessed_own", [])))


def _clauses(sentence: str) -> list[str]:
    from ..text.segment import CLAUSE_PIECE

    return [c for c in CLAUSE_PIECE.findall(sentence) if c.strip()]


def _sentence_of(text: str, span: str, value: str) -> str:
    from ..text.segment import split_sentences

    sents = split_sentences(text) or [text]
    for probe in (span, value):
        p = probe.strip().casefold()
        for s in sents:
            if p and p in s.casefold():
                return s
    return text


@lru_cache(maxsize=1)
def _own_rx() -> re.Pattern:
    """A clause opening with a relation of ``own_people`` (group ``w``), possessed (group ``own``: "my", 我, 我的)
    or not, after at most a few modifiers (kin.json ``modifiers``: "best", "older")."""
    from .kin import person_modifiers

    ws = sorted(_own_people()[0], key=len, reverse=True)
    en = "|".join(re.escape(w) for w in ws if not has_cjk(w))
    zh = "|".join(re.escape(w) for w in ws if has_cjk(w))
    return re.compile(rf"^[\W_]*(?P<own>(?:my|our)\s+|我们?的?\s*)?(?:(?:{person_modifiers()})\s+)*"
                      rf"(?P<w>(?:{en})(?:e?s)?(?![\w'’])|{zh})(?!\s*(?:(?:and|&)\s*(?:i|me)\b|(?:和|跟|与|同)我))",
                      re.I)


def _opening_person(clause: str) -> tuple[str, bool, int]:
    """The relation word ``clause`` opens with, whether it is possessed ("my brother", 我弟), and where the opening
    ends; or ("", False, 0)."""
    m = _own_rx().match(clause)
    if not m:
        return "", False, 0
    w = m.group("w")
    return (w[:-1] if w.casefold() not in _own_people()[0] and w.endswith("s") else w), bool(m.group("own")), m.end()


def _zh_subject(before: str) -> str:
    """The Chinese relation word of ``own_people`` that ends the modifiers opening ``before`` (the words of a clause
    before its value) and starts its predicate: "组里最靠谱的同事" of 组里最靠谱的同事跳槽去了vivo; "" when none does or a
    word of the speaker's is there."""
    if not has_cjk(before):
        return ""
    words = sorted((w for w in _own_people()[0] if has_cjk(w)), key=len, reverse=True)
    m = re.match(r"^[\W_]*[\u4e00-\u9fff]{0,8}?的(" + "|".join(map(re.escape, words)) + ")", before)
    return m.group(1) if m else ""


def said_of(f: Fact, text: str, names: Names = Names()) -> Fact:
    """``f`` as the fact of the person it is said of, when the clause holding its value is said of a person of the
    user's (see the module doc); else ``f`` unchanged. Only the user's own +1 facts of a typed, non-person slot are
    moved: a relation word makes the slot ``<relation>_<attribute>`` (the relation's slot form,
    :func:`~anchormem.facts.keys.person_key`), a named person the entity."""
    from .keys import is_person, person_key

    if f.polarity < 0 or f.entity != "user" or not slot_type(f.attribute) or \
            is_person(f.attribute.split(":", 1)[0].split("_", 1)[0]):
        return f
    sentence = _sentence_of(text, f.source_span, f.value)
    clauses = _clauses(sentence)
    v = f.value.casefold().strip()
    at = next((i for i, c in enumerate(clauses) if v and v in c.casefold()), None)
    if at is None:
        return f
    own, bare = _own_people()
    speaker = _speaker_rx()
    # the subject: the value's clause when it opens with a person, else the clause right before it (a value said
    # without a subject of its own takes the one of the clause before: "我弟刚找到工作，月薪一万二"; not one further
    # back: "孩子转学手续办完了，户口也迁了，现在算是在苏州园区定居了" is the family's move)
    shared = slot_type(f.attribute) in _data().get("household_types", [])
    for i in dict.fromkeys((at, max(at - 1, 0))):
        if any(speaker.search(c) for c in clauses[i + 1:at + 1]) or (i != at and shared):
            continue  # (a home is the household's: "孩子们转学手续都办完了，苏州这边…" tells the family's move)
        c = clauses[i]
        word, possessed, end = _opening_person(c)
        if word and not speaker.search(c[end:]):
            w = word.casefold()
            if w in own and (possessed or w in bare or has_cjk(w)):  # (Chinese says no possessive: 同事跳槽去了vivo)
                return f.model_copy(update={"attribute": f"{person_key(word)}_{f.attribute}"})
        if i == at and not speaker.search(c):  # a Chinese subject after its modifiers: 组里最靠谱的同事跳槽去了vivo
            word = _zh_subject(c[:c.casefold().find(v)])
            if word:
                return f.model_copy(update={"attribute": f"{person_key(word)}_{f.attribute}"})
        for n in names.person_entities:
            m = re.match(rf"^[\W_]*{re.escape(n)}(?![\w])", c, re.I if not has_cjk(n) else 0)
            if m and not speaker.search(c[m.end():]):
                return f.model_copy(update={"entity": n})
    return f


# -- the check --------------------------------------------------------------------------------------------------


def known_names(items: list[Any]) -> Names:
    """The names the user's current facts give (``items``: memories with a ``fact``): pets (the pet-name slots,
    :data:`~anchormem.facts.keys.NAMED_SLOTS`) and persons (a relation's ``<relation>_name`` slots, the partner
    slots, and the entities other than the user facts are stored under)."""
    from .keys import NAMED_SLOTS, is_person

    pets: set[str] = set()
    persons: set[str] = set()
    entities: dict[str, None] = {}
    for m in items:
        f = getattr(m, "fact", None)
        if f is None or f.polarity < 0:
            continue
        if f.entity not in ("user", "") and not is_person(f.entity):
            entities[f.entity] = None
            persons.add(f.entity.casefold())
        a = f.attribute
        if a in NAMED_SLOTS:
            pets.update(_split_names(f.value))
        elif a.endswith("_name") or a.endswith("_names"):
            head = a.rsplit("_", 1)[0]
            if is_person(head):
                persons.update(_split_names(f.value))
    persons -= pets
    return Names(frozenset(pets), frozenset(persons), tuple(entities))


def _split_names(value: str) -> list[str]:
    parts = re.split(r"\s*(?:,|，|、|\band\b|&|和|跟|与)\s*", value)
    return [p.casefold().strip() for p in parts if p.strip() and not re.search(r"\d", p)]


def presupposed(f: Fact, text: str) -> bool:
    """``f`` is read from a question sentence (:func:`~anchormem.ingest.classify.is_question`) whose statement part is
    only a role adjunct and the value (``question_adjuncts`` of slot_types.json): "As a brand-new accountant, what
    should I wear?" asks about clothes and presupposes a role, it states no change of job (作为一个新手会计，穿什么好？)."""
    from ..ingest.classify import is_question

    sentence = _sentence_of(text, f.source_span, f.value)
    if not is_question(sentence):
        return False
    clause = (f.clause or f.source_span or "").strip().rstrip(",，;；:： ")
    adj = sorted(_data().get("question_adjuncts", []), key=len, reverse=True)
    if not clause or not adj:
        return False
    rx = rf"^[\W_]*(?:{'|'.join(map(re.escape, adj))})\s*(?:(?:a|an|the|一个|一名|个)\s*)?(?:[\w'’-]+\s+){{0,2}}?" \
         rf"{re.escape(f.value.strip())}$"
    return re.match(rx, clause, re.I) is not None


@lru_cache(maxsize=2)
def _ended_rx(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, 0 if lang == "zh" else re.I)
                 for p in langdata.load("slot_types", lang).get("ended_objects", []))


def ended_objects(text: str) -> list[str]:
    """The things ``text`` says are ended, sold or left (``ended_objects`` of data/lang/<lang>/slot_types.json), as
    said: "Sold the Tesla last month, now I ride an e-bike to work." -> ["Tesla"]; "上周五是我在阿里的最后一天" ->
    ["阿里"]; [] when none is."""
    out: list[str] = []
    for lang in (("zh", "en") if has_cjk(text) else ("en",)):
        for rx in _ended_rx(lang):
            out += [o for m in rx.finditer(text) if (o := m.group("o").strip().rstrip(".,;:!?'’ "))]
    return list(dict.fromkeys(out))


def _holds_ended(f: Fact, ended: list[str]) -> str:
    """The ended thing of ``ended`` that ``f`` claims positively (its value, or a word of its attribute), or ""."""
    from .keys import ENDING_EVENTS, names_within

    if f.polarity < 0 or f.attribute in ENDING_EVENTS:
        return ""
    attr = f.attribute.replace("_", " ")
    for o in ended:
        if names_within(o, f.value) or names_within(f.value, o) or names_within(o, attr):
            return o
    return ""


def checked(facts: list[Fact], text: str, names: Names = Names()) -> tuple[list[Fact], list[tuple[Fact, str]]]:
    """``facts`` of one user turn (``text``), each moved to the person it is said of (:func:`said_of`), then split
    into those whose value is of their slot's type and those dropped, each with its reason (:func:`type_failure`).
    Order is kept. Never raises."""
    kept: list[Fact] = []
    dropped: list[tuple[Fact, str]] = []
    ended = ended_objects(text)
    for f in facts:
        f = said_of(f, text, names)
        gone = _holds_ended(f, ended) if ended else ""
        why = (f"ended {gone}" if gone else "") or type_failure(f, names) or ("presupposed by a question" if slot_type(f.attribute) and
                                         f.polarity > 0 and presupposed(f, text) else "")
        if why:
            dropped.append((f, why))
        else:
            kept.append(f)
    return kept, dropped


def gate(facts: list[Fact], text: str, current: Callable[[], list[Any]]) -> list[Fact]:
    """The facts of one user turn (``text``) that pass :func:`checked`, with the names of the user's current facts
    (``current()``: memories with a ``fact``, read only when a fact has a typed slot); each one dropped is logged
    (debug) with its reason."""
    ended = ended_objects(text)
    if not any(slot_type(f.attribute) for f in facts) and not ended:
        return facts
    kept, dropped = checked(facts, text, known_names(current()))
    for f, why in dropped:
        _log.debug("value-type check dropped %s|%s=%r (%s)", f.entity, f.attribute, f.value, why)
    return kept + ended_claims(ended, kept, current(), text) if ended else kept


def _not_the_speakers_now(sentence: str, thing: str) -> bool:
    """The sentence tells no ending of the speaker's that holds now: someone else's (a person of the user's or a
    third person opens it), a modal, plan or reported speech (:func:`~anchormem.facts.changes.blocked`), or a time
    ahead (a date :func:`~anchormem.text.dates.resolve_dates` reads after the sentence's own time)."""
    from ..text.dates import resolve_dates
    from .changes import blocked
    from .rules import not_the_speakers

    if blocked(sentence) or _opening_person(sentence)[0] or not_the_speakers(sentence, thing):
        return True
    now = datetime(2000, 6, 15, 12, tzinfo=timezone.utc)
    return any(d.start > now for d in resolve_dates(sentence, now, tense="present"))


def ended_claims(ended: list[str], facts: list[Fact], current: list[Any], text: str) -> list[Fact]:
    """The -1 facts of the user's current claims whose value is a thing ``text`` ends, sells or leaves (``ended``:
    :func:`ended_objects`; 上周五是我在字节的最后一天 with employer 字节 held), unless a fact of the turn (``facts``)
    is of that slot (a new value or its own ending) or names that thing ending (a ``gone`` fact), or the sentence is
    not the speaker's ending now (someone else's, a modal or plan, a time ahead). ``current``: the user's current
    fact memories."""
    from .keys import ENDING_EVENTS, names_within

    out: list[Fact] = []
    for m in current:
        f = m.fact
        if f is None or f.polarity < 0 or f.attribute in ENDING_EVENTS or m.valid_to is not None:
            continue
        said = next((o for o in ended if names_within(o, f.value)), "")
        if not said or any(x.attribute == f.attribute or  # (the turn says the slot's new value or ends it itself)
                           x.attribute in ENDING_EVENTS and names_within(x.value, f.value) for x in facts + out):
            continue
        sentence = _sentence_of(text, said, said)
        if _not_the_speakers_now(sentence, said):
            continue  # "My brother left Google", "I might leave Google", "I'm leaving Google next month"
        try:
            out.append(Fact(entity=f.entity, attribute=f.attribute, value=f.value, polarity=-1, source_span=sentence,
                            clause=sentence, language="zh" if has_cjk(sentence) else "en", extractor="ended"))
        except ValueError:
            continue
    return out
