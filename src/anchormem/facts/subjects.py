"""Whose action a clause states, read from its structure: a possessed noun before the verb is someone or something
else, not the speaker.

"My bestie moved to Denver", "我闺蜜搬到杭州了", "我舍友搬去上海", "the office moved to Kings Cross": the subject of
the verb is a noun the speaker possesses or names ("my" / "the" + a noun phrase: ``subject_determiners`` of
frames.json; 我 / 我们 (+ 的) + a noun, by jieba's parts of speech), so the move, the new job or the quitting is that
person's or thing's, whatever the noun is; no list of relations is needed. The speaker's own slot nouns are the
exception ("my rent went up", 我工资涨到一万二, 我体重降到60公斤: a numeric slot noun of ``slots.numeric_slots``, and
the ``speaker`` words of ``frames.json``: 我家, 我们家), as is a noun phrase with the speaker in it ("my wife and I
moved"). After 我的 the word before the verb is a possessed noun whatever jieba tags it (我的发小, 我的邻居: tagged
v); without 的 a mis-tagged noun is missed (我发小搬到…). Trailing adverbs (``cues.adverbs``: "my bestie just moved",
我闺蜜上个月/刚搬到) do not end the noun phrase.

    possessed_subject("My bestie just ", "en")   # -> "bestie"
    possessed_subject("我闺蜜", "zh")             # -> "闺蜜"
    possessed_subject("我工资", "zh")             # -> ""  (the speaker's own slot noun)
    clause_subject("我舍友搬去上海了")              # -> "舍友"

Nothing is read before first use (jieba and the data files load on the first call).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk, pos_tags

__all__ = ["not_names", "possessed_subject", "named_subject", "clause_subject", "opens_with_someone", "speakers",
           "person_owner", "without_name", "is_given_name", "claim_owner", "named_relatives", "owned_facts"]

# nouns, person names, organisations, and an English word inside Chinese (我roommate搬去Tokyo了: code-switching)
_NOUN_TAGS = frozenset({"n", "nr", "nrfg", "nrt", "ng", "nt", "vn", "eng"})


@lru_cache(maxsize=2)
def not_names(lang: str) -> frozenset[str]:
    """Words that name no one and nothing though they may be capitalised (``not_names`` of
    data/lang/<lang>/names.json, the one list of them: months, weekdays, holidays, pronouns, openers, titles; 今天,
    老板), casefolded."""
    return frozenset(w.casefold() for w in langdata.load("names", lang).get("not_names", []))


@lru_cache(maxsize=2)
def _own(lang: str) -> frozenset[str]:
    """Nouns that are the speaker's own when possessed: numeric slot nouns and the frames' speaker words."""
    words = {w for ws in langdata.load("slots", lang).get("numeric_slots", {}).values() for w in ws}
    words |= set(langdata.load("frames", lang).get("speaker", []))
    return frozenset(w.casefold() for w in words)


@lru_cache(maxsize=2)
def _adverbs(lang: str) -> re.Pattern:
    alt = langdata.alternation(langdata.words("cues", "adverbs", (lang,)), raw=lang == "zh")
    if lang == "zh":
        return re.compile(r"(?:" + alt + r")+$")
    return re.compile(r"(?:\s+(?:" + alt + r"))+\s*$", re.I)


@lru_cache(maxsize=1)
def _speaker_en() -> re.Pattern:
    alt = langdata.alternation(tuple(langdata.load("frames", "en").get("speaker", [])))
    return re.compile(r"(?<![\w'’])(?:" + alt.replace("'", "['’]") + r"|and|&)(?![\w'’])", re.I)


def possessed_subject(pre: str, lang: str) -> str:
    """The noun the speaker possesses that ends ``pre`` (the words before a verb), or "" (see the module doc)."""
    if lang == "zh":
        return _zh(pre)
    p = _adverbs("en").sub("", " " + pre.rstrip()).strip()
    dets = langdata.alternation(tuple(langdata.load("frames", "en").get("subject_determiners", ["my", "our"])))
    m = re.search(r"(?:^|[^\w'’])(?:" + dets + r")\s+(?P<np>(?:[\w'’-]+\s+){0,2}[\w'’-]+)$", p, re.I)
    if not m:
        return ""
    np = m.group("np")
    if _speaker_en().search(np) or re.search(r"['’]s\b", np):
        return ""  # "my wife and I", "my sister's" (the possessor's own rule reads that)
    head = np.split()[-1].casefold()
    if head in _own("en") or np.casefold() in _own("en"):
        return ""
    return head


def _zh(pre: str) -> str:
    p = _adverbs("zh").sub("", pre.rstrip())
    m = list(re.finditer(r"我们|咱们|我", p))
    if not m:
        return ""
    after = p[m[-1].end():]
    if not after or after.startswith(("们", "家")):
        return ""
    toks = [t for t in pos_tags(after) if t.word.strip()]
    de = bool(toks) and toks[0].word == "的"  # 我的 + a word: a possessed noun whatever jieba tags it (我的发小: v)
    while toks and toks[0].word == "的":
        toks = toks[1:]
    if not toks or not all(t.flag in _NOUN_TAGS or t.word == "的" or
                           de and not t.flag.startswith(("d", "t", "p", "c", "x", "u", "r", "m")) for t in toks):
        return ""
    head = toks[-1].word
    if len(head) < 2:
        return ""  # a one-character "noun" is mostly a verb jieba mis-tagged (我换工作了: 换 nz)
    if head in _own("zh") or after.strip("的") in _own("zh"):
        return ""
    return head


@lru_cache(maxsize=2)
def _verbs(lang: str) -> re.Pattern:
    """The verbs of the frame classes of ``lang`` that fill a person's slot (moves, jobs, endings: an action of a
    person; not a switch, "my address changed to …", whose possessed noun names the speaker's own slot)."""
    verbs = tuple(v for spec in langdata.load("frames", lang).get("classes", {}).values() if spec.get("slot")
                  for v in spec["verbs"])
    alt = langdata.alternation(verbs)
    return re.compile(alt if lang == "zh" else r"(?<![\w'’])(?:" + alt.replace("'", "['’]") + r")(?![\w'’])", re.I)


def clause_subject(clause: str) -> str:
    """The subject of the clause's first action verb (a verb of a frame class with a slot: frames.json) when it is
    someone or something else: a possessed noun or a person named without one, or "": "我舍友搬去上海了" -> "舍友",
    "My roommate just took a job at Apple" -> "roommate", "Tom just moved to Singapore" -> "Tom",
    "小李上周搬到北京了" -> "小李"."""
    lang = "zh" if has_cjk(clause) else "en"
    m = _verbs(lang).search(clause)
    if not m:
        return ""
    pre = clause[: m.start()]
    return possessed_subject(pre, lang) or named_subject(pre, lang)


_NAME_TAGS = frozenset({"nr", "nrfg", "nrt"})
_PREPOSITION_TAGS = frozenset({"p"})  # jieba's tag of a preposition (在, 跟, 从, 给)


def named_subject(pre: str, lang: str) -> str:
    """The person named right before a verb (``pre``: the words before it, trailing adverbs and time words of
    ``cues.adverbs`` aside), with no possessor and no first person: "Tom just " -> "Tom", "Anna Li " -> "Anna Li",
    "小李上周" -> "小李"; "" for "I ", "Finally ", "After the lease ended, " (no name adjacent to the verb)."""
    chunk = re.split(r"[,;:!?，。；：！？、…—()（）\n]", pre)[-1]
    if lang == "zh":
        p = _adverbs("zh").sub("", chunk.rstrip()).strip()
        if not p or re.search(r"我|咱", p):
            return ""
        toks = [t for t in pos_tags(p) if t.word.strip()]
        if not toks:
            return ""
        name = toks[-1].word
        first = len(toks) - 1
        prefixes = langdata.words("cues", "name_prefixes", ("zh",))
        if len(toks) > 1 and toks[-2].word in prefixes:  # 小李, 老王: jieba cuts the familiar prefix off
            name, first = toks[-2].word + name, first - 1
        if first > 0 and toks[first - 1].flag in _PREPOSITION_TAGS:
            return ""  # the object of a preposition is no subject: 在阿里巴巴工作, 跟小李搬家 (the speaker's)
        familiar = len(name) == 2 and name[0] in prefixes and has_cjk(name[1])
        return name if toks[-1].flag in _NAME_TAGS or familiar else ""
    p = _adverbs("en").sub("", " " + chunk.rstrip()).strip()
    openers = langdata.alternation(langdata.words("cues", "clause_openers", ("en",)))
    m = re.fullmatch(r"(?:(?:" + openers + r")\s+)?((?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*){0,2})", p, re.I)
    if not m:
        return ""
    words = m.group(1).split()
    if any(w.casefold() in not_names("en") or w in ("I", "I'm", "I’m") for w in words):
        return ""
    if _adverbs("en").search(" " + words[0]):
        return ""  # a capitalised opener ("Finally", "Recently") is no name
    return " ".join(words)


@lru_cache(maxsize=1)
def _someone_rx() -> re.Pattern:
    from .keys import relation_words

    dets = langdata.alternation(tuple(langdata.load("relative", "en").get("noun_subject", [])))
    rel = langdata.alternation(tuple(w for w in relation_words() if not has_cjk(w)))
    return re.compile(rf"^\W*(?:(?:{dets})\s+\w|(?:my|our)\s+(?:\w+\s+)?(?:{rel})(?:s|es)?\b)", re.I)


def opens_with_someone(text: str) -> bool:
    """An English clause opens with a subject other than the speaker: a determiner and a noun ("A recruiter …",
    ``noun_subject`` of relative.json) or a relation of the speaker's ("My parents …")."""
    return not has_cjk(text) and bool(_someone_rx().search(text))


def speakers(clause: str) -> bool:
    """The speaker is the subject of ``clause``, or it has none ("My wife works at Apple", "A recruiter from Boeing
    called", "我闺蜜搬去西安了", "Tom just moved" are someone else's)."""
    from .rules import _speaker_subject

    return not opens_with_someone(clause) and not clause_subject(clause) and _speaker_subject(clause) != "other"


@lru_cache(maxsize=2)
def _relation_name(lang: str) -> re.Pattern:
    """A relation of the speaker's and the name said beside it: "my (little) sister Mei", "our friend Tom Li",
    我妹妹小美, 我的朋友Tom (relation words: :func:`~anchormem.facts.keys.person_words`)."""
    from .keys import person_modifiers, person_words, relation_pattern

    if lang == "zh":
        return re.compile(r"(?:我的?|我们的?)(?P<rel>" + relation_pattern(True, person_words()) + r")\s*(?P<name>"
                          r"[A-Z][A-Za-z'’-]*|[\u4e00-\u9fff]{2,3}?)(?=\s*(?:" + _ZH_AFTER_NAME + r"))")
    return re.compile(r"(?<![\w'’])(?:my|our)\s+(?P<rel>(?:" + person_modifiers() + r"\s+)*(?:" +
                      relation_pattern(False, person_words()) + r"))\s+(?P<name>(?-i:[A-Z])[\w'’-]*)(?![\w'’])", re.I)


# what follows a name said beside a relation in Chinese (我妹妹小美住在…, 我老公Tom在…): a verb, an adverb or a time
_ZH_AFTER_NAME = r"住|搬|在|是|跳槽|去|入职|辞职|今年|现在|刚|已经|上个?月|最近|也|还|又|[，,。]"


def person_owner(clause: str) -> tuple[str, str]:
    """Whose action ``clause`` states when it is someone else's: (entity, relation). A person named beside a relation
    ("My sister Mei just moved to Beijing", 我妹妹小美搬到杭州了) -> ("Mei", "sister"); a relation alone ("My wife
    just started at Stripe", 我老公跳槽去阿里了) -> ("user", "wife" / "husband": the relation's slot form,
    :func:`~anchormem.facts.keys.person_key`); a person named alone ("Tom just moved to Seattle", 小美搬到杭州了) ->
    ("Tom", ""); a possessed noun that is no person ("the office moved") or the speaker -> ("", "")."""
    from .keys import is_person, person_key

    lang = "zh" if has_cjk(clause) else "en"
    m = _verbs(lang).search(clause)
    pre = clause[: m.start()] if m else clause
    rn = _said_name(clause, lang)
    if rn:
        return rn.group("name"), person_key(rn.group("rel")).casefold()
    if not m:
        return "", ""
    owned = possessed_subject(pre, lang)
    if owned:
        return ("user", person_key(owned).casefold()) if is_person(owned) else ("", "")
    named = named_subject(pre, lang)
    if named and is_person(named):  # "Mom finally moved to York": a relation said as a name
        return "user", person_key(named).casefold()
    return (named, "") if named else ("", "")


def _said_name(clause: str, lang: str) -> re.Match | None:
    """The relation and the name said beside it in ``clause`` (:func:`_relation_name`), or None: an English name is
    no month, pronoun or opener; a Chinese one is a Latin name, a familiar name (小美, 老王) or a word jieba tags as
    a person's name (not a verb: 我老公跳槽…)."""
    rn = _relation_name(lang).search(clause)
    return rn if rn and is_given_name(rn.group("name"), lang) else None


def is_given_name(name: str, lang: str) -> bool:
    """``name``, said beside a relation ("my sister Mei", 我妹妹小美), is a person's name: an English one is no month,
    pronoun or opener (:func:`not_names`); a Chinese one is a Latin name, a familiar name (小美, 老王: ``name_prefixes``
    of cues.json) or one word jieba tags as a person's name (not a verb: 我老公跳槽…)."""
    if lang == "en":
        return bool(name) and name.casefold() not in not_names("en")
    if not has_cjk(name):
        return True
    prefixes = langdata.words("cues", "name_prefixes", ("zh",))
    if len(name) == 2 and name[0] in prefixes:
        return True
    toks = [t for t in pos_tags(name) if t.word.strip()]
    return len(toks) == 1 and toks[0].flag in _NAME_TAGS





def without_name(clause: str) -> str:
    """``clause`` with the name said beside a relation taken out ("My sister Mei lives in Chengdu" -> "My sister
    lives in Chengdu", 我妹妹小美住在成都 -> 我妹妹住在成都), so that a person's rules read it; unchanged otherwise and
    when the name opens a joint subject ("My husband Tom and I are separating")."""
    lang = "zh" if has_cjk(clause) else "en"
    rn = _said_name(clause, lang)
    if not rn or (lang == "en" and re.match(r"\s*(?:and|&)\s", clause[rn.end("name"):])):
        return clause  # "My husband Tom and I are separating": the name is one of a joint subject, kept
    return (clause[:rn.end("rel")] + clause[rn.end("name"):]).replace("  ", " ")


def claim_owner(slot: Any) -> tuple[str, str, str]:
    """Whose claim a slot fact (a :class:`~anchormem.types.FactSlot`) is and of what: (entity, relation,
    attribute): "mei|home_city" -> ("mei", "", "home_city"); "user|sister_home_city" -> ("user", "sister",
    "home_city"); "user|home_city" -> ("user", "", "home_city")."""
    from .keys import is_person

    ent = slot.entity.casefold()
    head, sep, rest = slot.attribute.partition("_")
    if sep and ":" not in slot.attribute and is_person(head):
        return ent, head, rest
    return ent, "", slot.attribute


def named_relatives(relation: str, attribute: str, claims: list[Any]) -> list[Any]:
    """Of ``claims`` (memories with a ``fact``), the current positive claims of ``attribute`` held by a person named
    beside ``relation`` in the claim's own words ("My sister Mei lives in Chengdu" for "sister", ``home_city``),
    when they are all one person's; [] otherwise (two named friends: which one is meant is unknown)."""
    from .keys import kin_canonical

    rel = kin_canonical(relation)
    found = []
    for c in claims:
        f = getattr(c, "fact", None)
        if f is None or f.polarity < 0 or getattr(c, "valid_to", None) is not None:
            continue
        ent, r2, attr = claim_owner(f)
        if attr != attribute or r2 or ent == "user":
            continue
        name, said = person_owner(c.text)
        if name.casefold() == ent and said and kin_canonical(said) == rel:
            found.append(c)
    return found if len({c.fact.entity.casefold() for c in found}) == 1 else []

def owned_facts(changes: list[tuple[str, str, int]], got: tuple[str, str, int, str] | None, owner: tuple[str, str],
           other: bool) -> tuple[list[tuple], tuple[str, str, int, str] | None]:
    """The clause's facts given to the person whose action it states (``owner``: (entity, relation) of
    :func:`~anchormem.facts.subjects.person_owner`), so that a change of theirs supersedes their own earlier claim of
    the slot and nothing else: a person's home, employer or job goes to that person's slot (a relation alone:
    ``husband_employer``; a named person: entity "Mei", ``home_city``), as does a slot already typed to the relation
    when the person is also named ("My sister Mei lives in …": Mei's ``home_city``). With ``other`` (someone else is
    the subject) and no person to give it to ("the office moved to …"), a home, employer or job is nobody's:
    dropped. A fact given to someone else is returned in ``changes`` as (attribute, value, polarity, entity)."""
    ent, rel = owner
    from .keys import is_person

    def _typed_to_person(attr: str) -> bool:  # "brother_home_city", "sister_occupation": a person's slot
        return is_person(attr.split(":", 1)[0].split("_", 1)[0])

    def _person_action(attr: str) -> bool:  # a home, an employer, a job or a habit: what a person does
        return attr in ("home_city", "employer", "occupation") or attr.startswith("does:")

    def give(attr: str) -> tuple[str, str] | None:
        if _typed_to_person(attr):  # "sister_home_city": hers; when she is named, her name's
            head, _, rest = attr.partition("_")
            return (rest, ent) if ent and ent != "user" and rest in ("home_city", "employer", "occupation") \
                else None
        if not _person_action(attr) or attr.startswith("does:"):
            return None
        if ent and ent != "user":
            return attr, ent
        if rel:
            return f"{rel}_{attr}", "user"
        return ("", "") if other else None  # (dropped: a possessed noun that is no person)

    out: list[tuple] = []
    for c in changes:
        g = give(c[0]) if other else None
        if g is None:
            out.append(c)
        elif g[0]:
            out.append((g[0], c[1], c[2], g[1]))
    if got and got[3] == "user" and other:
        g = give(got[0])
        if g is not None:
            if g[0]:
                out.append((g[0], got[1], got[2], g[1]))
            got = None
    if other and ent == "" and rel == "":  # a possessed noun that is no person: its does: facts stay, others drop
        out = [c for c in out if len(c) > 3 or not _person_action(c[0])]
    return out, got
