"""Deterministic, offline fact extraction for English and Chinese user turns.

The rules are language data: ``data/lang/<lang>/rules.json`` (loaded and compiled by :mod:`.rulebook`; tried in
file order, the first match per clause wins; adding a paraphrase is adding a rule or a word there). This module
holds how they are applied: how a rule's attribute is made from its match, how a value is cleaned, how a negated or
ended statement is re-read with its polarity flipped, and whose fact a clause states. What they read (see the tests
for the full list of sentences):

- name: "my name is X", "call me X", "I'm called X", "我叫X", "我的名字是X", "大家叫我X" / "你可以叫我X" (叫我X only as what
  people call the speaker: "我妈妈叫我回家" is no name);
- "my X is Y" / "我的X是Y" / "我最喜欢的X是Y" -> attribute X; "my cat is called Y", "my cat's name is Y",
  "I have a cat called Y", "我的猫叫Y" -> ``cat_name``; when X is a person ("my brother", 我弟弟) the slot is
  typed by the value (:func:`~anchormem.facts.keys.person_slot`): "My brother is Tom." -> ``brother_name``,
  "My brother is a doctor." -> ``brother_occupation``, "My sister moved to Berlin." / "My sister lives in
  Berlin." -> ``sister_home_city``, "我妈妈住在上海" -> ``mother_home_city``, "My brother is tall." -> ``brother``; so
  only a change of the same kind supersedes; several ("My brothers are doctors.") are a person of their own:
  ``brothers_occupation``; one relation said several ways is one person ("mom", "mother", 妈妈, 母亲 -> ``mother``:
  :func:`~anchormem.facts.keys.kin_groups`), 哥哥 / 弟弟 and "brother" are three;
- home: "I live in Y", "I'm based in Y", "I moved to Y", "I moved out of X and now live in Y", "我住在Y",
  "我搬到了Y", "我搬出了X，现在住在Y" (a Chinese clause without a subject that goes on about the home is the
  speaker's) -> ``home_city``; "I moved out of X", "我搬出了X" -> ``home_city`` X, -1;
- work: "I work at/for Y", "new job at Y", "我在Y工作", "入职Y" -> ``employer``; "I work as Y", "I'm a nurse",
  "I'm a software engineer at Google" (a job noun: :func:`~anchormem.facts.keys.occupation_en`),
  "我是一名Y", "我是老师", "我在医院当护士" -> ``occupation``; "I work at a hospital as a nurse" / "I work as a nurse
  at a hospital" -> both; "I used to be a teacher", "I quit my job as a nurse", "我不再是老师了", "我不当老师了"
  -> ``occupation``, -1;
- preferences: "I like/love/enjoy/prefer X", "I'm a fan of X", "我喜欢X" -> ``likes:X`` (+1);
  "I don't like / hate / can't stand X", "我不喜欢X", "我讨厌X" -> ``likes:X`` (-1), the SAME slot;
- "I no longer X", "I don't X any more", "I used to X", "我不再X", "我已经不是X": X is parsed as above with the
  polarity flipped ("I no longer live in Y", "I used to live in Y" -> ``home_city`` -1); otherwise (no longer, 不再)
  ``does:X`` -1. "I stopped/quit X-ing" -> ``does:X`` -1;
- "I'm allergic to X", "我对X过敏" -> ``allergy:X`` (sensitive);
- third person: "Person Q enjoys chess", "Person Q lives in Y" -> entity "Person Q";
- someone else's home, employer or job is that person's claim (:func:`~anchormem.facts.subjects.owned_facts`;
  whose action a clause states: :func:`~anchormem.facts.subjects.person_owner`): "My wife just started at
  Stripe" -> ``wife_employer``, 我老公跳槽去阿里了 -> ``husband_employer``, "My sister Mei moved to Beijing" /
  "Tom just moved to Seattle" -> entity "Mei" / "Tom", ``home_city``; a possessed noun that is no person ("the
  office moved to …") states nothing.

Only user turns are read (assistant and system turns never become user facts). Questions, hypotheticals
("if I lived in…", "I would love…", "如果…") and wishes are skipped. Hedges ("maybe", "I think", "probably",
"可能", "也许", "大概") give confidence 0.6 instead of 1.0. Values are stored without their article
(:func:`~anchormem.facts.keys.clean_value`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from .. import langdata
from ..ingest.classify import stated_part
from ..text.dates import resolve_dates
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk
from . import rulebook, triggers
from .keys import (value_key, pet_kind, is_occupation, is_person, negated_person_value, person_key, person_slot,
                   possessed_attribute)
from .changes import blocked, clause_changes, sentence_changes
from .addresses import is_address_slot, moved_to_address, whole_address
from .preferences import preference_facts
from .frames import frame_facts, merge_frames
from .values import duration_at
from .subjects import clause_subject, owned_facts as _owned, person_owner, without_name
from .model import Fact, detect_language, is_sensitive, normalize_object
from .claims import value_head
from .value_types import slot_type

__all__ = ["extract_facts_rules", "extract_from_text", "HEDGED_CONFIDENCE", "hedge_confidence", "not_the_speakers"]

HEDGED_CONFIDENCE = 0.6


@lru_cache(maxsize=1)
def _cue_patterns() -> tuple[re.Pattern, re.Pattern]:
    """(hedge, hypothetical) cue patterns from data/lang/*/cues.json (English as whole words, Chinese as substrings)."""
    def build(key: str) -> re.Pattern:
        en = langdata.alternation(langdata.words("cues", key, ("en",)))
        zh = langdata.alternation(langdata.words("cues", key, ("zh",)))
        return re.compile(r"\b(?:" + en + r")\b|" + zh, re.I)
    return build("hedge"), build("hypothetical")


def _lead(clause: str) -> str:
    """``clause`` without the words it opens with that say nothing ("actually", "I think", 其实, 我觉得: ``lead`` of
    data/lang/*/rules.json), by its script."""
    return bookrx("lead", ("zh",) if has_cjk(clause[:2]) else ("en",)).sub("", clause)


@lru_cache(maxsize=1)
def _clause_split() -> re.Pattern:
    """Clause boundaries (``clause_split`` of data/lang/en/rules.json): Chinese commas and semicolons; ", I…" /
    " and I…"; and " and <verb>" for a verb that starts a clause of its own ("I left Google and joined Stripe"; the
    verbs: ``clause_verbs`` of data/lang/en/changes.json and the frames' verbs)."""
    return bookrx("clause_split", ("en",))


def _rule_clauses(sentence: str) -> list[Any]:
    """The clauses the rules read of ``sentence``: :func:`_clause_split`'s, each cut once more where an English
    clause hands over to a Chinese one after a comma (``script_switch`` of data/lang/en/rules.json: "I quit Google,
    现在在 ByteDance 上班。": the Chinese clause is read by the Chinese rules and frames, its subject the English
    one's), only when the words before it since the last boundary hold no Chinese ("keto 放弃了 lol, 昨天…",
    "帮朋友带了她女儿一个周末, 家里突然三个娃": Chinese written with ASCII commas stays one clause)."""
    switch = bookrx("script_switch", ("en",))
    out: list[Any] = []
    for part in _clause_split().split(sentence):
        while isinstance(part, str) and (m := switch.search(part)) and part[:m.start()].strip() and \
                not has_cjk(part[:m.start()]):
            out.append(part[:m.start()])
            part = part[m.end():]
        out.append(part)
    return out


@lru_cache(maxsize=1)
def _time_stops() -> re.Pattern:
    """Time phrases a value ends at, in either script (``value_stops`` of data/lang/*/dates.json): English as whole
    words after a space, Chinese as substrings."""
    en = langdata.alternation(langdata.words("dates", "value_stops", ("en",)))
    zh = langdata.alternation(langdata.words("dates", "value_stops", ("zh",)))
    return re.compile(r"(?<=[^\W\d_])\s*(?:" + zh + r")|\s+(?:" + en + r")\b|(?<=[\u3400-\u9fff])\s*(?:" + en + r")\b",
                      re.I)


_ANCHOR = datetime(2000, 6, 15, 12, tzinfo=timezone.utc)  # only where a date phrase starts matters


def time_cut(v: str) -> str:
    """``v`` up to its first time phrase past its start, in either script ("上海 last month" -> "上海", "Berlin
    上个月" -> "Berlin", "Lisbon 3 weeks ago" -> "Lisbon", "Denver on the 1st" -> "Denver"): a :data:`_time_stops`
    word or any date :func:`~anchormem.text.dates.resolve_dates` reads, with a tense (a bare day of the month too)."""
    cut = len(v)
    m = _time_stops().search(v, 1)
    if m:
        cut = m.start()
    for span in resolve_dates(v, _ANCHOR, tense="present"):  # (with a tense: "Denver on the 1st", "杭州15号")
        at = v.find(span.text)
        if 0 < at < cut:
            cut = at
    at = duration_at(v)
    if 0 < at < cut:
        cut = at
    if cut == len(v):
        return v
    head = _date_prep().sub("", " " + v[:cut].rstrip()).strip()
    return head or v  # nothing before the date but "on"/"in": the date is the value ("birthday is on March 3")


@lru_cache(maxsize=1)
def _date_prep() -> re.Pattern:
    """A word leading into a date ("in", "since", 于), left at the end of a value cut at that date."""
    en = langdata.alternation(langdata.words("dates", "date_preps", ("en",)))
    zh = langdata.alternation(langdata.words("dates", "date_preps", ("zh",)))
    return re.compile(r"(?:\s+(?:" + en + r")|\s*(?:" + zh + r"))\s*$", re.I)


@lru_cache(maxsize=1)
def _value_ends() -> re.Pattern:
    """Words after which a value has ended whatever the slot (``value_ends`` of data/lang/en/values.json: "New York
    with my wife" -> "New York", "Leeds near the university" -> "Leeds"), as whole words after a space."""
    return re.compile(r"\s+(?:" + langdata.alternation(langdata.words("values", "value_ends", ("en",))) + r")\b",
                      re.I)


def _clean(v: str, *, max_words: int = 8) -> str | None:
    v = v.strip().strip("\"'“”‘’「」")
    v = bookrx("value_lead", ("en",)).sub("", v)  # "my phone number is now 555-0101"
    v = time_cut(v)
    if not v:
        return None
    if has_cjk(v) and re.match(r"[A-Za-z<]", v):
        v = re.split(r"\s*[\u3400-\u9fff]", v, maxsplit=1)[0]  # "Company K 下周一开始" -> "Company K"
    # English (also the English head just cut from its Chinese tail), or a Chinese value with English after it
    if not has_cjk(v) or re.search(r"[A-Za-z]", v):
        v = re.split(r"[。！？；]", v, maxsplit=1)[0]  # "上海。 It is nice": a clause ends in either script
        cuts = [m.start() for m in (bookrx("value_cut", ("en",)).search(v), _value_ends().search(v)) if m]
        if cuts:
            v = v[: min(cuts)]
    v = re.sub(r"[\s.!?。！？~…]+$", "", v).strip()
    if has_cjk(v):
        v = bookrx("value_tail", ("zh",)).sub("", v).strip()
    if not v or len(v.split()) > max_words or len(v) > 80 or v.casefold() in rulebook.entries("pronouns"):
        return None
    return v


# -- rules ----------------------------------------------------------------------------------------------------
# The rules and patterns are data (data/lang/<lang>/rules.json, loaded by :mod:`.rulebook`); here is how a rule's
# attribute is made from its match (a rule's ``builder``) and how the rules are applied.


def _named(m: re.Match) -> str:
    """"my X is called Y" / "我X叫Y": ``X_name`` (a person X by its relation's slot form: mom, 妈妈 -> mother)."""
    a = m.group("a")
    if is_person(a):
        return f"{person_key(a)}_name"
    head = a.split()[-1] if " " in a else a  # the noun phrase's head: "a rescue cat named Pixel" -> cat_name
    return f"{pet_kind(a) or pet_kind(head) or head}_name"  # a golden retriever's name: dog_name


def _person_is(m: re.Match) -> str:
    """"my X is Y": X; typed by the (cleaned) value in :func:`_apply` when X is a person."""
    return m.group("a")


def _person_home(m: re.Match) -> str:
    """"my X moved to Y" / "my X lives in Y" / "我X住在Y": ``X_home_city`` for a person X (:func:`person_words`, by
    its relation's slot form: "mom", "mother", 妈妈, 母亲 -> ``mother_home_city``), else X."""
    a = m.group("a")
    return f"{person_key(a)}_home_city" if is_person(a) else a


def _person_employer(m: re.Match) -> str:
    """"my X works at Y" / "我X在Y上班": ``X_employer`` for a person X (by its relation's slot form)."""
    return f"{person_key(m.group('a'))}_employer"


def _changed(m: re.Match) -> str:
    """"my X changed to Y": X (a person's move is :func:`_person_home`'s, not a change of a value)."""
    return m.group("a")


def _likes(m: re.Match) -> str:
    return f"likes:{normalize_object(m.group('v'))}"


def _does(m: re.Match) -> str:
    return f"does:{normalize_object(m.group('v'))}"


def _allergy(m: re.Match) -> str:
    return f"allergy:{normalize_object(m.group('v'))}"


def _count(m: re.Match) -> str:
    """``count:`` + the counted noun, by its slot word (``counted_keys``: 猫 -> cat)."""
    n = m.group("n")
    return f"count:{rulebook.table('counted_keys').get(n, n)}"


_BUILD: dict[str, Callable[[re.Match], str]] = {
    "named": _named, "person_is": _person_is, "person_home": _person_home, "person_employer": _person_employer,
    "changed": _changed, "likes": _likes, "does": _does, "allergy": _allergy, "count": _count}


def _attribute(rule: rulebook.Rule, m: re.Match) -> str:
    """The attribute ``rule`` gives its match ``m``: its builder's, or its ``slot`` with ``{a}`` / ``{n}`` filled."""
    if rule.builder:
        return _BUILD[rule.builder](m)
    if "{" not in rule.slot:
        return rule.slot
    return re.sub(r"\{(\w+)\}", lambda g: m.group(g.group(1)) or "", rule.slot)


# the compiled pattern ``name`` of the rules data of ``langs``: bookrx(name, langs) (cached; no wrapper: it is called
# ~25 times a turn)
bookrx = rulebook.pattern

def hedge_confidence(text: str, base: float = 1.0) -> float:
    """``base`` lowered to :data:`HEDGED_CONFIDENCE` when ``text`` hedges ("maybe", "I think", "可能"...)."""
    return min(base, HEDGED_CONFIDENCE) if _cue_patterns()[0].search(text) else base




@lru_cache(maxsize=1)
def _not_places() -> tuple[frozenset[str], re.Pattern]:
    """What one moves to that is not a home (``not_places`` of data/lang/*/slots.json): a seat, a team, a tool, a
    plan, a version ("Slack", "front row"); in Chinese a floor, room, desk or team (楼, 工位, 部门)."""
    return (frozenset(w.lower() for w in langdata.words("slots", "not_places", ("en",))),
            re.compile(langdata.alternation(langdata.words("slots", "not_places", ("zh",)))))


def _is_place(value: str) -> bool:
    """A move's destination names a place: a capitalised name ("Berlin", "the Netherlands"), no digits, no purpose
    ("Slack for team chat"), not a seat, team, tool or plan; in Chinese, not a floor, room, desk or team."""
    if has_cjk(value):
        return not _not_places()[1].search(value)
    words = value.split()
    if words and words[0].lower() in rulebook.entries("place_articles"):
        words = words[1:]
    return bool(words) and words[0][:1].isupper() and not bookrx("not_place", ("en",)).search(value) and \
        not any(w.lower().strip(".,") in _not_places()[0] for w in words)


def _name_like(value: str) -> bool:
    """Whether ``value``, read as the speaker's name ("call me …", "my name is …"), is a name: no word of it is a
    function word (:data:`~anchormem.text.tokenize.EN_STOPWORDS`: "call me instead of emailing", "call me when
    you can"), and not every word names no one (:func:`~anchormem.facts.subjects.not_names`: "call me Monday";
    "Dr. Li" is a name)."""
    from ..text.tokenize import EN_STOPWORDS
    from .subjects import not_names

    words = [w.casefold().strip(".,!?'\"") for w in value.split()]
    return bool(words) and not any(w in EN_STOPWORDS for w in words) and \
        not all(w in not_names("en") for w in words)


def _apply(lang: str, clause: str) -> tuple[str, str, int] | None:
    """(attribute, value, polarity) of the first of ``lang``'s rules that reads a fact from ``clause``, or None."""
    moved = bookrx("move", langdata.LANGUAGES)
    for rule in rulebook.rules(lang):
        m = rule.regex.search(clause)
        if not m:
            continue
        build, pol = rule.builder, rule.polarity
        attr = _attribute(rule, m)
        value = _clean(m.group("v"), max_words=4 if build == "named" or attr == "name" else 8)
        if not value:
            continue
        if attr == "name" and not has_cjk(value) and not _name_like(value):
            continue  # "please call me instead of emailing": no name
        if build in ("person_is", "changed"):
            cut = m.group(0).casefold().find(rulebook.text("possessive", "en"))  # (none: a slot said bare)
            attr = possessed_attribute(clause[:m.start()] + (m.group(0)[:cut] if cut >= 0 else ""), attr)
            if not attr:
                continue  # "In my opinion my X is ...": a possessed noun after a preposition that heads nothing
        if build == "person_is":
            job = negated_person_value(attr, value)  # "… is not a doctor any more": closes "… is a doctor."
            if job is not None:
                return f"{person_key(attr)}_occupation", job, -pol
            attr = person_slot(attr, value)  # "My brother is Tom." / "… a doctor." / "… tall.": three slots
        home = attr == "home_city" or (build == "person_home" and attr.endswith("_home_city"))
        if build == "person_home" and not home:
            continue  # "my shipping address moved to …" is the generic change rule's, below
        if build == "changed" and _person_home(m) != attr:
            continue  # "my sister moved to a new team": no value of hers
        if build == "changed" and moved.search(m.group(0)) and _is_place(value):
            continue  # "my bestie moved to Denver": a possessed noun's move to a place is its own (:mod:`.subjects`)
        if home and moved.search(m.group(0)) and not _is_place(value):
            continue  # "I moved to the front row", "We moved to Slack for team chat", 我搬到三楼的工位了
        if attr.startswith("does:") and value_key("diet", value) == "eats meat":
            return "diet", value, pol  # "I stopped eating meat": the diet, as "I eat meat" said it
        if attr.startswith(("likes:", "allergy:", "does:")):
            head = attr.split(":", 1)[0]
            attr = f"{head}:{normalize_object(value)}"
        return attr, value, pol
    return None


def _gates() -> list[re.Pattern]:
    """Every pattern one of which a clause matches when :func:`_parse_clause` reads a fact from it (facts.triggers):
    the rules of both languages, the third-person rule and the negation / "used to" patterns that re-read a part of
    the clause."""
    en, zh = ("en",), ("zh",)
    return [bookrx("third_person", en), bookrx("used_to", en), bookrx("no_longer", en), bookrx("not_state", en),
            bookrx("no_longer", zh), bookrx("not_habit", zh), bookrx("resumed", en), bookrx("resumed", zh)] + \
        [r.regex for r in rulebook.rules("en") + rulebook.rules("zh")]


triggers.declare("rules", _gates)


def _parse_clause(clause: str) -> tuple[str, str, int, str] | None:
    """(attribute, value, polarity, entity) for one clause, or None."""
    if not triggers.may_read("rules", clause):
        return None  # no literal any rule needs: none can match
    c = _lead(clause.strip()).strip()
    if not c:
        return None
    cjk = has_cjk(c)
    # English (also for the Latin part of mixed text)
    en, zh = ("en",), ("zh",)
    i, im, me = rulebook.text("speaker", "en"), rulebook.text("speaker_state", "en"), rulebook.text("speaker", "zh")
    m = bookrx("third_person", en).match(c)
    if m and m.group("e").split()[0] not in rulebook.entries("third_person_not_names"):
        attr, pol = rulebook.table("third_person_verbs")[m.group("verb")]
        value = _clean(m.group("v"))
        if value:
            return (f"likes:{normalize_object(value)}" if attr == "likes" else attr), value, pol, m.group("e")
    used = bookrx("used_to", en).search(c)
    if used:  # "I used to be a teacher", "I used to live in Paris": the state or habit, ended
        rest = used.group("rest")
        turn = bookrx("used_to_turn", en).search(rest)  # "… but now I live in Rome": the new one
        if turn:
            got = _parse_clause(rest[turn.end():])
            if got:
                return got
            rest = rest[:turn.start()]
        be = rulebook.text("used_to_be", "en")  # "used to be a teacher": "I'm a teacher", ended
        inner = _apply("en", (im + rest[len(be):]) if be and rest.lower().startswith(be) else i + rest)
        return (inner[0], inner[1], -inner[2], "user") if inner else None
    neg = bookrx("no_longer", en).search(c)
    if neg and not bookrx("no_longer_likes", en).match(neg.group("rest")):
        inner = _apply("en", i + bookrx("any_more", en).sub("", neg.group("rest")))
        if inner:
            return inner[0], inner[1], -inner[2], "user"
        if bookrx("no_longer_says", en).match(c[neg.start():][2:].strip()):
            value = _clean(bookrx("any_more", en).sub("", neg.group("rest")))
            if value:
                return f"does:{normalize_object(value)}", value, -1, "user"
        return None
    state = bookrx("not_state", en).search(c)
    if state:  # "I'm not vegetarian any more", "I'm no longer allergic to X": the positive state, flipped
        rest = bookrx("any_more", en).sub("", state.group("rest"))
        inner = _apply("en", im + rest) or (None if bookrx("progressive_plan", en).match(rest) else
                                            _apply("en", i + _base_verb(rest)))  # "I'm not drinking coffee"
        if inner:
            return inner[0], inner[1], -inner[2], "user"
    back = _resumed(c, "en")
    if back:
        return back
    got = _apply("en", c)
    if got:
        return got[0], got[1], got[2], "user"
    if cjk:
        zneg = bookrx("no_longer", zh).search(c)
        if zneg:  # "我不再是老师了", "我已经不是老师了", "我不当老师了": the positive statement, flipped
            inner = _apply("zh", me + zneg.group("rest"))
            if inner:
                return inner[0], inner[1], -inner[2], "user"
            if zneg.group("how") in rulebook.entries("no_longer_habit"):  # "我不再熬夜": a habit given up
                value = _clean(zneg.group("rest"))
                return (f"does:{normalize_object(value)}", value, -1, "user") if value else None
        zstop = bookrx("not_habit", zh).search(c)
        if zstop:  # "我现在不吃辣了", "我不喝咖啡": the habit (or diet), flipped
            inner = _apply("zh", me + zstop.group("rest"))
            if inner:
                return inner[0], inner[1], -inner[2], "user"
        back = _resumed(c, "zh")
        if back:
            return back
        got = _apply("zh", c)
        if got:
            return got[0], got[1], got[2], "user"
    return None


def _base_verb(rest: str) -> str:
    """``rest`` with its opening gerund in the base form ("drinking coffee" -> "drink coffee"); else unchanged."""
    m = re.match(r"(\w+ing)\b", rest)
    if not m:
        return rest
    from lemminflect import getLemma  # lazy: its tables load on first use

    got = getLemma(m.group(1).lower(), upos="VERB")
    return (got[0] if got else m.group(1)) + rest[m.end():]


def _resumed(c: str, lang: str) -> tuple[str, str, int, str] | None:
    """A habit or diet taken up again or newly allowed ("back on coffee", "I started eating meat again", 又开始喝咖啡
    了, 现在可以吃一点辣了: ``resumed`` of data/lang/<lang>/rules.json): the positive statement of its rest, which
    replaces a negated or ended one of the same slot. A rest no rule reads is a ``does:`` habit of its own."""
    m = bookrx("resumed", (lang,)).search(c)
    if not m:
        return None
    rest = _base_verb(m.group("rest").strip()) if lang == "en" else \
        bookrx("degree", ("zh",)).sub("", m.group("rest").strip())
    inner = _apply(lang, (rulebook.text("speaker", lang) or "") + rest)
    if inner:
        return inner[0], inner[1], abs(inner[2]), "user"
    value = _clean(rest)
    return (f"does:{normalize_object(value)}", value, 1, "user") if value else None


def _is_question(sentence: str) -> bool:
    s = sentence.strip()
    return s.endswith(tuple(rulebook.entries("question_endings"))) or \
        bool(bookrx("question_start", ("en",)).match(s)) and "." not in s


def extract_from_text(text: str, *, entity: str = "user") -> list[Fact]:
    """Facts in one user turn, in order; one fact per slot (the last statement in the turn wins).

    Per sentence (of a question only the statement it opens with: :func:`~anchormem.ingest.classify.stated_part`):
    the sentence-wide change patterns (:func:`~anchormem.facts.changes.sentence_changes`),
    then per clause the change patterns (:func:`~anchormem.facts.changes.clause_changes`: numeric changes, job and
    employer changes, counts and names...) or else the rules above. A clause with a hypothetical, modal or reported-speech
    cue (:func:`~anchormem.facts.changes.blocked`) states nothing; a clause whose subject is someone else ("my brother
    left Google and joined Stripe", 他说…, 我弟弟跳槽到了…) gives only facts typed to that person."""
    out: dict[tuple[str, str], Fact] = {}

    def keep(attr: str, value: str, pol: int, ent: str, sentence: str, clause: str, conf: float) -> None:
        if slot_type(attr) in ("place", "organisation"):
            value = value_head(value)  # "Dublin and drive an old red Volvo": the home is Dublin
        for attr, value in _work_parts(attr, value):
            try:
                fact = Fact(entity=ent, attribute=attr, value=value, polarity=pol, confidence=conf,
                            sensitive=is_sensitive(attr, value), source_span=sentence,
                            clause=clause.strip().lstrip(",;，；").strip(),
                            language=detect_language(sentence), extractor="rules")
            except ValueError:
                continue
            out.pop(fact.slot, None)
            out[fact.slot] = fact

    hypothetical = _cue_patterns()[1]
    for sentence in split_sentences(text):
        if _is_question(sentence):  # a question states only what it opens with ("My salary is 32000, can I …?")
            sentence = stated_part(sentence)
            if not sentence:
                continue
        conf = hedge_confidence(sentence)
        said = sentence_changes(sentence)  # (first: most sentences have none, and then the gates need not run)
        if said and not blocked(sentence) and _speaker_subject(sentence) != "other":
            for attr, value, pol in said:
                if not (pol > 0 and _person_action(attr) and _elsewhere(sentence)):
                    keep(attr, value, pol, entity, sentence, sentence, conf)
        elif said and not blocked(sentence) and not _elsewhere(sentence):  # "My brother left Google and joined …"
            owner = person_owner(sentence)
            for attr, value, pol, ent in (c for c in _owned(said, None, owner, True)[0] if len(c) > 3):
                keep(attr, value, pol, ent if ent != "user" else entity, sentence, sentence, conf)
        subject = ""  # the speaker as the subject of the previous clause, if it stated one of their facts
        who = ""  # "user" / "other": the subject of the previous clause, for a clause without one
        pending = ""  # the slot a switch verb left open ("I switched jobs, now at Cisco")
        owner = ("", "")  # whose action the previous clause stated (subjects.person_owner)
        for n, clause in enumerate(_rule_clauses(sentence)):
            if not clause or not clause.strip() or hypothetical.search(clause) or blocked(clause):
                subject, who, pending = "", "", ""
                continue
            who = _speaker_subject(clause) or who
            read = without_name(_with_subject(clause, subject))  # "My sister Mei lives in …": her rules read it
            raw = clause_changes(read)
            got = _parse_clause(read)
            frames, pending = frame_facts(read, pending=pending, first=n == 0,
                                          inherited={"user": "speaker", "other": "other"}.get(who, ""))
            # whose facts they are: "My sister Mei moved to Beijing" (Mei's), 我老公跳槽去阿里了 (husband_employer),
            # "Tom just moved" (Tom's); a clause without a subject goes on about the previous one's ("… and joined X")
            mine = person_owner(clause) if _speaker_subject(clause) == "other" or (raw or got or frames) and (
                who == "other" or clause_subject(clause)) else ("", "")
            owner = mine if mine != ("", "") or who != "other" or _speaker_subject(clause) else owner
            person = who == "other" and owner != ("", "") or mine != ("", "")
            changes = raw if person else [c for c in raw if who != "other" or _typed_to_person(c[0])]
            changes, got = merge_frames(changes, got, frames, clause)
            # 大学那会儿我在兰州住过四年, 国庆去了趟三亚, "My sister is visiting Rome": no home, employer or job of now
            if (changes or got) and _elsewhere(clause):
                changes = [c for c in changes if not (c[2] > 0 and _person_action(c[0]))]
                got = None if got and got[2] > 0 and _person_action(got[0]) else got
            if (changes or got) and (person or clause_subject(clause)):
                changes, got = _owned(changes, got, owner if person else ("", ""), True)
            owned = [c for c in changes if len(c) > 3]
            changes = [c for c in changes if len(c) == 3 and (not person or c not in raw or who != "other" or
                                                              _typed_to_person(c[0]))]
            for attr, value, pol, ent in owned:
                keep(attr, value, pol, ent if ent != "user" else entity, sentence, clause, conf)
            if owned and not changes and not got:
                continue
            if changes:
                said = " ".join(c[1].casefold() for c in changes)
                if got and got[3] == "user" and who != "other" and got[0] not in {c[0] for c in changes} and \
                        got[1].casefold() not in said and not any(c[1].casefold() in got[1].casefold() for c in changes):
                    keep(got[0], got[1], got[2], entity, sentence, clause, conf)  # "I'm a nurse at X": both
                for attr, value, pol in changes:
                    keep(attr, value, pol, entity, sentence, clause, conf)
                # a clause of the speaker's facts naming no subject of its own goes on with the speaker as the
                # topic: 我叫张伟，今年32岁，…养了一只橘猫叫大黄 (the cat is the speaker's too)
                subject = _subject(_with_subject(clause, subject)) or ("" if _speaker_subject(clause) else subject)
                continue
            said_by_user = (got and got[3] == "user") or who == "user"
            subject = _subject(_with_subject(clause, subject)) if said_by_user else ""
            if not got:
                continue
            attr, value, pol, ent = got
            if ent == "user" and who == "other" and not _typed_to_person(attr) and not (
                    attr == "parted" and n == 0 and text.strip().startswith(sentence.strip())):
                continue  # "My brother left Google and joined Stripe": not the speaker's employer ("She passed away"
                # opening a turn is an ending of the user's whose object is implied: facts.keys.implied_slots)
            keep(attr, value, pol, entity if ent == "user" else ent, sentence, clause, conf)
        if not hypothetical.search(sentence):
            _partner_facts(out, sentence, entity, keep, conf)
        if not blocked(sentence) and _speaker_subject(sentence) != "other":
            _address_facts(out, sentence, entity, keep, conf)
            for attr, value, _ in preference_facts(sentence):
                _drop_opinions(out, sentence, value)  # (its own clause: "Please call me Ann; I prefer Spanish.")
                clause = next((c for c in _rule_clauses(sentence) if c and value in c), sentence)
                keep(attr, value, 1, entity, sentence, clause, conf)
    return list(out.values())


def _address_facts(out: dict, sentence: str, entity: str, keep: Callable[..., None], conf: float) -> None:
    """Addresses of ``sentence`` (:mod:`.addresses`): an address slot's value widened to the whole street address
    ("12 Oak Street, Leeds"); a move to a street address read as the home ``address`` and, when it names one, the
    new ``home_city`` (the address's town), in place of a home read from the street's words."""
    for key, f in list(out.items()):
        if f.source_span == sentence and is_address_slot(f.attribute):
            out[key] = f.model_copy(update={"value": whole_address(sentence, f.value)})
    moved = moved_to_address(sentence)
    if moved is None:
        return
    for key, f in list(out.items()):
        if f.source_span == sentence and f.attribute == "home_city" and f.entity == entity and \
                (f.value in moved.text or moved.text in f.value):
            del out[key]  # 我搬到世纪大道100号了: the street is no city
    keep("address", moved.text, 1, entity, sentence, sentence, conf)
    if moved.city:
        keep("home_city", moved.city, 1, entity, sentence, sentence, conf)


def _partner_facts(out: dict, sentence: str, entity: str, keep: Callable[..., None], conf: float) -> None:
    """The speaker's partner named beside the relation, whatever else the sentence says ("My boyfriend Callum and I
    just hit two years together", "my boyfriend 阿凯 and I are planning a trip", 我跟男朋友阿杰在一起三年了:
    ``partner_named`` of data/lang/<lang>/rules.json): ``<relation>_name`` (``boyfriend_name`` Callum), a claim of
    its own that a parting ("Callum and I called it quits", 和阿杰分了) closes by the name. None for an ex, for a
    name that is no given name (:func:`~anchormem.facts.subjects.is_given_name`) or when the sentence ends that
    partner (a ``gone`` fact of the name: "My husband Tom and I are separating")."""
    from .subjects import is_given_name

    gone = {f.value.casefold() for f in out.values() if f.attribute == "gone" and f.source_span == sentence}
    for lang in langdata.LANGUAGES:
        for m in bookrx("partner_named", (lang,)).finditer(sentence):
            name, rel = m.group("v").strip(), m.group("a")
            if not is_person(rel) or name.casefold() in gone or \
                    not is_given_name(name, "zh" if has_cjk(name) else lang):
                continue
            cuts = [0] + [c.end() for c in re.finditer(r"[，,；;。！？!?]", sentence)] + [len(sentence) + 1]
            start = max(c for c in cuts if c <= m.start())
            end = min(c for c in cuts if c > m.end("v")) - 1
            keep(f"{person_key(rel)}_name", name, 1, entity, sentence, sentence[start:end], conf)


def _drop_opinions(out: dict, sentence: str, value: str) -> None:
    """A preference read from ``sentence`` (:mod:`.preferences`) takes the place of the liking the rules read of
    the same thing there ("I prefer email": prefers:contact, not likes:email)."""
    v = value.casefold()
    for key, f in list(out.items()):
        if f.source_span == sentence and f.attribute.startswith("likes:") and \
                (v in f.value.casefold() or f.value.casefold() in v):
            del out[key]


def _subject_patterns() -> tuple[re.Pattern, re.Pattern]:
    """(someone else, the speaker) as a clause's subject: "my brother", "he", 我弟弟, 他 / "I", "we", 我, 我们
    (``other_subject`` / ``speaker_subject`` of data/lang/*/rules.json)."""
    return bookrx("other_subject", langdata.LANGUAGES), bookrx("speaker_subject", langdata.LANGUAGES)


def _speaker_subject(clause: str) -> str:
    """"other" when the clause's subject is someone else, "user" when it is the speaker, "" when it has none."""
    c = _lead(clause.strip())
    other, user = _subject_patterns()
    if user.match(c) and not other.match(c):
        return "user"
    if other.match(c):
        return "other"
    return ""


def not_the_speakers(sentence: str, value: str) -> str | None:
    """Why the clause of ``sentence`` that holds ``value`` states no present fact of the speaker's, or None: a
    question ("Should I move to Berlin?"), a hypothetical, plan or modal ("I might move to Berlin", "如果我搬到北京"),
    reported speech ("My boss said she moved to Berlin") or someone else as its subject ("My friend moved to
    Berlin", 我弟弟跳槽到了腾讯). The LLM extractor's proposed changes are checked with it."""
    if _is_question(sentence):
        return "a question states no fact"
    clauses = [c for c in _rule_clauses(sentence) if c and c.strip()] or [sentence]
    v = value.casefold()
    who = ""
    for clause in clauses:
        who = _speaker_subject(clause) or who
        if v and v not in clause.casefold():
            continue
        if _cue_patterns()[1].search(clause) or blocked(clause):
            return "a hypothetical, plan or reported clause states no fact of the speaker's"
        if who == "other":
            return "the clause is about someone else"
        return None
    return None


def _elsewhere(clause: str) -> bool:
    """The clause is set in the past, on a trip or in what was only seen (:func:`~anchormem.facts.stance.scene`):
    where the speaker lives, works or what they do now is not what it says."""
    from .stance import scene

    return scene(clause, others=False) in ("past_time", "visit", "observed")


def _person_action(attr: str) -> bool:
    """The attribute is filled by what a person does (a home, an employer, a job, a habit): a possessed noun's action
    ("my bestie moved", 我舍友跳槽到…) fills none of the speaker's."""
    return attr in ("home_city", "employer", "occupation") or attr.startswith("does:")


def _typed_to_person(attr: str) -> bool:
    """The attribute names a person's slot ("brother_home_city", "sister_occupation"), not the speaker's own."""
    head = attr.split(":", 1)[0].split("_", 1)[0]
    return is_person(head)


def _zh_goes_on() -> re.Pattern:
    """A Chinese clause that goes on about the speaker without naming them (``goes_on`` of data/lang/zh/rules.json,
    its verbs ``continuation`` of data/lang/zh/changes.json: "…，现在住在北京", "…，现在在美团上班")."""
    return bookrx("goes_on", ("zh",))


def _subject(clause: str) -> str:
    """The speaker as the Chinese clause's subject (我 / 我们 / 我们家, not 我弟弟), else ""."""
    m = bookrx("subject", ("zh",)).match(bookrx("lead", ("zh",)).sub("", clause.strip()))
    return m.group(1) if m else ""


def _with_subject(clause: str, subject: str) -> str:
    """``clause`` with the previous clause's subject when it goes on about the speaker's home without one:
    "我搬出了上海，现在住在北京" -> "我现在住在北京" (so the sentence's last word on the home is the new city)."""
    body = bookrx("lead", ("zh",)).sub("", clause.strip())
    return subject + body if subject and _zh_goes_on().match(body) else clause


def _work_parts(attr: str, value: str) -> list[tuple[str, str]]:
    """``[(attr, value)]``, or the employer and the job when one work clause names both: ``employer`` "a hospital as
    a nurse" -> employer "a hospital", occupation "nurse"; ``occupation`` "nurse at a hospital" -> occupation
    "nurse", employer "a hospital" (only when the job part is a job noun:
    :func:`~anchormem.facts.keys.is_occupation`)."""
    if attr == "employer" and (m := bookrx("as_job", ("en",)).match(value)) and is_occupation(m.group("j")):
        return [("employer", m.group("e")), ("occupation", m.group("j"))]
    if attr == "occupation" and (m := bookrx("at_employer", ("en",)).match(value)) and is_occupation(m.group("j")):
        return [("occupation", m.group("j")), ("employer", m.group("e"))]
    return [(attr, value)]
