"""The subject asked is the subject cited: a gate on every citation of ``ask``, whichever path made it.

A question asks about one person (:func:`~.recency.asked_person`): the asker ("Where do I work?", 我住在哪里？),
a relation of theirs ("Where does my wife work?", 我妈住在哪里？) or someone named ("Where does Tom live?"). An
answer about that person cites only memories that say something of them:

- asked about the asker, a memory is left out when none of its words are the speaker's own (no "I", "me", "my
  job", 我 that is not 我妈 / 我的狗…) and its statements are someone or something else's: a relation or a person
  (:func:`~.recency._clause_person`: "My brother is vegan." for "Am I vegan?", "My wife works at Tencent." for
  "Where do I work?"), a third person pronoun ("She is vegan."), a pet (``pet_kinds`` / ``pet_category`` of
  data/lang/*/slots.json: "My dog Rex is 5 years old." for "How old am I?") or a name opening the statement ("Tom
  is vegetarian."; overruled by a claim of the speaker's own: "Landlord bumped the rent…"), or its claims are all
  someone else's (:func:`owners`: tom|employer); unless the question names that other subject itself ("How old is
  my dog?", "What pets do I have?", 小美在哪里工作？ when 小美 is the subject read). A statement with no subject
  before any other's is the speaker's (鱼竿都送人了，…，老婆很开心。);
- asked about someone else, a memory is left out when they did not say it (its ``speaker``), none of its claims
  is theirs, and it names neither that person (their name, or the name said beside their relation in the memories
  found: "My daughter Mia is 6" makes "Mia turned seven" hers) nor their relation (:func:`~.persons.kin_words`,
  a broader word covering it: asked 哥哥, said "brother").

A citation that is the current part of a partly superseded memory is read in the memory's whole words.
When no citation is left, ``ask`` abstains ("I have no record of that."): someone else's value is never the answer.
A statement opens with someone else also when the person is said in the other script or without a possessive
("我 boyfriend 换工作了", "my 男朋友 moved…", 朋友小李现在在深圳工作). Asked about the asker now, a memory all of
whose statements are set in a scene that is not the present (:func:`scene_only`: "小时候我住在福州。", "I used to dream
of living in Paris as a kid.", a remark about a place in general) is left out when another citation is kept.
A question about the past or a plan, or about two people, has no single subject and is not gated
(:func:`~.recency.asked_person` is None). Relation words, pet words and the first-person words are the existing
language data (``relation_words`` of :mod:`anchormem.facts.keys`, data/lang/zh/kin.json, slots.json).

    of_subject(ans, "Am I vegan?", found)   # -> an abstention when ans cites only "My brother is vegan."
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

from .. import langdata
from ..text.tokenize import has_cjk

__all__ = ["of_subject", "about_asked", "others_only", "owners", "scene_only"]


@lru_cache(maxsize=1)
def _pets() -> tuple[frozenset[str], re.Pattern[str], re.Pattern[str]]:
    """(pet words, a pet word as what the speaker has — "my dog", "our cat Miso", 我的狗, 我家猫 —, a pet or pet
    category word anywhere) from ``pet_kinds`` and ``pet_category`` of data/lang/*/slots.json."""
    kinds = langdata.mapping("slots", "pet_kinds")
    words = {k.casefold() for k in kinds} | {v.casefold() for v in kinds.values()}
    cats = {w.casefold() for w in langdata.words("slots", "pet_category")}
    en = langdata.alternation(tuple(w for w in words | cats if not has_cjk(w)))
    zh = langdata.alternation(tuple(w for w in words | cats if has_cjk(w)))
    owned = re.compile(rf"\b(?:my|our)\s+(?:\w+\s+)?(?:{en})(?:e?s)?\b|我(?:们)?(?:的|家)?(?:的)?(?:{zh})", re.I)
    anywhere = re.compile(rf"\b(?:{en})(?:e?s)?\b|{zh}", re.I)
    return frozenset(words | cats), owned, anywhere


@lru_cache(maxsize=1)
def _self_rx() -> re.Pattern[str]:
    """The speaker's own words: "I", "me", "myself", "we", "us", "my" / "our" not opening a relation or a pet of
    theirs ("my brother", "my dog": someone else; "my job": the speaker's); 我 / 我们 likewise (我妈, 我的同事,
    我家的狗)."""
    from .persons import kin_alternations

    from ..facts.keys import person_modifiers

    en_kin, zh_kin = kin_alternations()
    en_pets = langdata.alternation(tuple(w for w in _pets()[0] if not has_cjk(w)))
    zh_pets = langdata.alternation(tuple(w for w in _pets()[0] if has_cjk(w)))
    zh_other = rf"\s*(?:{zh_kin}|{zh_pets})"  # (either script after either possessive: "my 男朋友", "我 boyfriend")
    en_other = rf"\s*(?:(?:{person_modifiers()}|\w+)\s+)?(?:{en_kin}|{en_pets})(?:e?s)?\b"
    return re.compile(r"\b(?:i|i'm|i’m|i've|i’ve|i'd|i'll|me|myself|we|we're|us|ourselves)\b|"
                      rf"\b(?:my|our)\b(?!{en_other}|{zh_other})|"
                      rf"我(?:们)?(?!(?:的|家)?(?:的)?(?:{zh_other}|{en_other}))", re.I)


_CLAUSES = re.compile(r"(?:[^,，;；.。!！?？]|(?<=\d)[,.](?=\d))+[,，;；.。!！]*")  # (not "1,850" nor "3.5")
_ASKS = re.compile(r"[?？]\s*$|[吗呢么]\W*$")


def _statements(text: str) -> list[str]:
    """The clauses of ``text`` that state something (a question's clauses are left out)."""
    from ..text.segment import split_sentences

    out: list[str] = []
    for sent in split_sentences(text):
        if _ASKS.search(sent.strip()):
            continue
        out += [c.strip() for c in _CLAUSES.findall(sent) if c.strip(" ,，;；.。!！")]
    return out


def _other_subject(clause: str, question: str) -> str:
    """How the clause's subject is someone or something of the speaker's that the question does not name: "person"
    (a relation or a person read by :func:`~.recency._clause_person`, a third person pronoun: "She is vegan."),
    "pet" ("My dog Rex is 5"), "name" (a capitalised name opening it: "Tom is vegetarian."), or "" (the speaker's,
    no subject, or the subject the question asks about)."""
    from ..facts.stance import opens_with_person
    from .persons import kin_base
    from .recency import _clause_person

    ent, rel = _clause_person(clause)
    if ent or rel:
        if ent and ent != "user" and _names_person(question, ent):
            return ""  # 小美在哪里工作？: the question names the subject read
        if rel and not (ent and ent != "user") and (_names_relation(question, rel) or
                                                     any(_names_person(question, n) for n in _beside_kin(clause))):
            return ""  # 我女儿朵朵…: the question asks about 朵朵
        return "person"
    kin = opens_with_person(clause)  # (in a mixed clause or without a possessive: what person_owner and the
    if kin and not _names_relation(question, kin):  # relation readers do not read; overruled as a name is:
        return "name"  # "Landlord bumped the rent…" holds the speaker's claim)
    pet = _pets()[1].search(clause)
    if pet and not _pets()[2].search(question) and not kin_base(pet.group(0).split()[-1]):
        return "pet"
    if _third_rx().match(clause):  # "She is vegan.", 他住在广州。
        return "person"
    name = _leading_name(clause)
    return "name" if name and not _names_person(question, name) else ""


def _beside_kin(clause: str) -> list[str]:
    """The names said right after a relation word in ``clause`` ("my daughter Mia" -> Mia, 我女儿朵朵六一… -> 朵朵):
    a capitalised word, or two Chinese characters."""
    from ..text.tokenize import pos_tags
    from .persons import _kin_rx

    out = []
    for m in _kin_rx()["word"].finditer(clause):
        after = clause[m.end():]
        n = re.match(r"\s*((?-i:[A-Z])[A-Za-z'’-]+)", after)
        if n:
            out.append(n.group(1))
        elif m.group(2) and after[:1] in langdata.words("cues", "name_prefixes", ("zh",)):
            out.append(after[:2])  # 我妹妹小美…
        elif m.group(2):
            toks = [t for t in pos_tags(after[:8]) if t.word.strip()]
            if toks and len(toks[0].word) >= 2 and has_cjk(toks[0].word) and \
                    not toks[0].flag.startswith(("v", "p", "d", "t", "m", "c", "u", "r", "f")):
                out.append(toks[0].word)  # 我女儿朵朵六一…; not 我爸住在…, 我儿子今年…
    return out


@lru_cache(maxsize=1)
def _third_rx() -> re.Pattern[str]:
    """A clause opening with a third person pronoun (``third_person_subjects`` of cues.json, the words alone)."""
    en = [w for w in langdata.words("cues", "third_person_subjects", ("en",)) if " " not in w]
    zh = langdata.words("cues", "third_person_subjects", ("zh",))
    return re.compile(rf"^\W*(?:(?:{langdata.alternation(en)})\b|(?:{langdata.alternation(zh)}))", re.I)


@lru_cache(maxsize=1)
def _predicate_rx() -> re.Pattern[str]:
    """What follows a person's name that opens a statement about them: adverbs (``adverbs`` of cues.json), then a
    tense word (``present_tense_words`` / ``past_tense_words``: "is", "has", "was") or a verb's third person or past
    form ("Tom lives", "Anna moved")."""
    adv = langdata.alternation(langdata.words("cues", "adverbs", ("en",)))
    tense = langdata.alternation(langdata.words("cues", "present_tense_words", ("en",)) +
                                 langdata.words("cues", "past_tense_words", ("en",)))
    return re.compile(rf"\s+(?:(?:{adv})\s+)*(?:(?:{tense})\b|[a-z]{{2,}}(?:s|ed)\b)")


def _leading_name(clause: str) -> str:
    """The person named as the clause's subject when it opens with a name ("Tom is vegetarian." -> "Tom", "Sarah
    lives in Madrid" -> "Sarah", "Lily's company relocated her" -> "Lily": a possessive and a noun or two before the
    verb, 小王在阿里巴巴上班 -> 小王: in Chinese a familiar name only), not a known place
    ("Berlin is great"); "" otherwise."""
    from ..facts.places import known_place
    from ..facts.subjects import named_subject
    from ..text.tokenize import pos_tags

    if has_cjk(clause):  # a familiar name only (小王, 老李: ``name_prefixes``): jieba tags 车库里 or 卡罗 a name too
        pre = ""
        for t in pos_tags(clause.strip()):
            if t.flag.startswith(("v", "p", "x", "d")) or t.word in "是在":
                break
            pre += t.word
        name = named_subject(pre, "zh") if pre else ""
        return name if name == pre and len(name) == 2 and name[0] in langdata.words("cues", "name_prefixes",
                                                                                  ("zh",)) else ""
    m = re.match(r"\W*((?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*){0,2})(?=\s)", clause)
    if not m:
        return ""
    rest, said = clause[m.end():], m.group(1)
    owner = re.match(r"(.+?)['’]s$", said)  # a possessive subject: "Lily's company relocated her…" is Lily's
    if owner:  # the noun it owns, one or two words, then the verb
        said = owner.group(1)
        nouns = [n for n in (re.match(r"\s+[a-z][\w-]*" * k + r"(?=\s)", rest) for k in (1, 2)) if n]
        rest = next((rest[n.end():] for n in nouns if _predicate_rx().match(rest[n.end():])), rest)
    if not _predicate_rx().match(rest):
        return ""
    name = named_subject(said + " ", "en")
    return "" if not name or known_place(name) else name


def _names_relation(text: str, relation: str) -> bool:
    """``text`` names ``relation`` or a relation it covers (asked "sister", said 姐姐)."""
    from ..facts.keys import kin_canonical, kin_covers
    from .persons import kin_words

    rel = kin_canonical(relation)
    return any(kin_covers(rel, r) or kin_covers(r, rel) for r in kin_words(text))


def owners(memory: Any) -> set[tuple[str, str]]:
    """Whose claims ``memory`` holds, from its structured fact and current claims: (entity, relation) pairs —
    ("user", "") the speaker's own ("user|employer"), ("user", "daughter") a relation's ("user|daughter_age"),
    ("tom", "") a named person's ("tom|employer"). Empty for a memory with no claim."""
    from ..facts.keys import is_person, kin_canonical

    slots = []
    fact = getattr(memory, "fact", None)
    if fact is not None:
        slots.append((fact.entity, fact.attribute))
    slots += [tuple(c.slot.partition("|")[::2]) for c in getattr(memory, "claims", ()) or ()
              if c.valid_to is None]
    out: set[tuple[str, str]] = set()
    for ent, attr in slots:
        head, sep, _ = attr.partition("_")
        rel = kin_canonical(head) if sep and ":" not in attr and is_person(head) else ""
        out.add((ent.casefold(), rel))
    return out


def _named_other(owner: tuple[str, str], question: str) -> bool:
    """A claim owner (:func:`owners`) that is not the asker and that the question does not name."""
    ent, rel = owner
    if ent == "user" and not rel:
        return False
    if ent != "user":
        return not _names_person(question, ent)
    return not _names_relation(question, rel)


def _names_person(text: str, name: str) -> bool:
    """``text`` names the person ``name`` (a Chinese name inside it; an English one as a word, any case)."""
    from .persons import same_name

    return name.casefold() in text.casefold() if has_cjk(name) else \
        any(same_name(name, w) for w in re.findall(r"[A-Za-z][\w'’-]*", text))


def others_only(memory: Any, question: str, text: str | None = None) -> bool:
    """``memory`` (its words: ``text``, default its text) says nothing of its speaker: none of its words are the
    speaker's own ("I", "me", "my job", 我 not opening 我妈 / 我的狗), and its statements are someone else's: the
    first has another subject the question does not name (:func:`_other_subject`), and each after it names another
    or none (it goes on about them: "My brother is vegan, loves tofu."); a statement with no subject before any
    other's is the speaker's (鱼竿都送人了，…，老婆很开心). A subject read only from a capitalised word ("Tom is
    vegetarian.") is overruled by the speaker's own claim ("Landlord bumped the rent…": user|rent), and claims all
    someone else's (:func:`owners`: "Tom drives to Google", tom|employer) tell a subject the words do not.
    "My brother is vegan." for "Am I vegan?": True; "I work at a bank and my wife works at Tencent.": False;
    "Vegan since 2019.": False (no other subject)."""
    stated = _statements(memory.text if text is None else text)
    if not stated or any(_self_rx().search(c) for c in stated) or getattr(memory, "source", None) == "assistant":
        return False
    own = owners(memory)
    mine = ("user", "") in own
    seen = ""
    for c in stated:
        kind = _other_subject(c, question)
        if kind == "name" and mine:
            kind = ""
        if kind:
            seen = seen or kind
        elif not seen:
            break  # a statement of no one else's before any other's: the speaker's
    if seen:
        return True
    return bool(own) and all(_named_other(o, question) for o in own)


def scene_only(text: str) -> bool:
    """No statement of ``text`` says what holds for the speaker now: each is set in a scene that is not the present
    (:func:`~anchormem.facts.stance.scene`: the past, a trip, what was only seen: "小时候我住在福州。", "I used to dream
    of living in Paris as a kid."; a remark about a place in general, :func:`~anchormem.facts.stance.remark_of_place`:
    "Rent in London is like 2000 pounds these days.") or opens with
    a person of the speaker's (:func:`~anchormem.facts.stance.opens_with_person`: "Rent 在 Sydney 越来越贵了, 朋友那边每周要
    900。"), and at least one is a scene: no answer to a question about the asker now beside one that is."""
    from ..facts.stance import opens_with_person, remark_of_place, scene

    stated = _statements(text)
    scenes = [bool(scene(c, others=False)) or remark_of_place(c) for c in stated]
    return any(scenes) and all(sc or opens_with_person(c) for c, sc in zip(stated, scenes))


def about_asked(memory: Any, person: tuple[str, str], theirs: Any = None, text: str | None = None) -> bool:
    """``memory`` is about the person ``person`` (:func:`~.recency.asked_person`, not the asker): they said it (its
    ``speaker``: a conversation between named people), one of its claims is theirs (:func:`owners`), or its text names them (their name, their relation or one it covers), or a clause
    ``theirs`` reads as theirs (a name said beside the relation elsewhere). ``text``: its words (default its
    text)."""
    from .persons import mentions

    from .persons import same_name

    name, rel = person
    text = memory.text if text is None else text
    speaker = getattr(memory, "speaker", None)
    if name and speaker and same_name(name, speaker):
        return True  # "I moved from Sweden", said by Caroline, for "Where is Caroline from?"
    for ent, r in owners(memory):
        if (name and ent != "user" and _names_person(name, ent)) or \
                (rel and ent == "user" and r and _names_relation(rel, r)):
            return True
    if name and (name in text if has_cjk(name) else mentions(name, text)):
        return True
    if rel and _names_relation(text, rel):
        return True
    return theirs is not None and any(theirs(c) for c in _statements(text))


def _claimed_names(relation: str, found: Iterable[Any]) -> set[str]:
    """The names the user's name claims (``<relation>_name`` / ``_names``, current or closed) among ``found`` give
    ``relation`` or a relation it covers ("user|boyfriend_name" = 阿杰 of "我男朋友叫阿杰。" for 男朋友): the claims
    say whose a name is where the words do not read it."""
    from ..facts.claims import own_claims
    from ..facts.keys import kin_canonical, kin_covers

    if not relation:
        return set()
    asked = kin_canonical(relation)
    out: set[str] = set()
    for m in found:
        for c in own_claims(m):
            owner, _, attr = c.slot.partition("|")
            rel, _, tail = attr.rpartition("_")
            if owner == "user" and c.polarity > 0 and tail in ("name", "names") and rel and c.value.strip() and \
                    kin_covers(asked, kin_canonical(rel)):
                out.add(c.value.strip())
    return out


def _says_name(name: str, text: str) -> bool:
    from .persons import mentions

    return name in text if has_cjk(name) else mentions(name, text)


def of_subject(ans: Any, question: str, found: Iterable[Any] = (), own: Iterable[str] = ()) -> Any:
    """``ans`` (an :class:`~anchormem.types.Answer`) citing only memories about the person ``question`` asks about
    (see the module doc); an abstention when none is. ``found``: the memories search found; they tell which name
    goes with which relation, and a citation that is the current part of one of them ("obsessed with dinosaurs."
    of "My daughter Mia is 6 and obsessed with dinosaurs.") is read in its whole words. ``ans`` unchanged when it
    abstained, the question has no single subject, or every citation is about its subject; the kept citations
    re-quoted otherwise. ``own``: ids of memories that hold the claim of the asker's own slot the question asks
    (slot evidence: "My girlfriend Sarah is a nurse." holds ``girlfriend_name`` for "Am I seeing anyone?"): about
    the asker whatever else their words say."""
    from .recency import _theirs, asked_person

    if ans.abstained or not ans.citations:
        return ans
    person = asked_person(question)
    if person is None:
        return ans
    found = list(found)
    whole = {m.id: m.text for m in found}
    if person == ("user", ""):
        mine = set(own)
        kept = [c for c in ans.citations if c.id in mine or not others_only(c, question, whole.get(c.id, c.text))]
        now = [c for c in kept if not scene_only(whole.get(c.id, c.text))]
        kept = now or kept  # (a scene the only evidence left: the evidence test's answer stands)
    else:
        theirs = _theirs(person, list(whole.values()))
        named = _claimed_names(person[1], found)
        kept = [c for c in ans.citations if about_asked(c, person, theirs, whole.get(c.id, c.text)) or
                any(_says_name(n, whole.get(c.id, c.text)) for n in named)]
    from .extractive import with_citations

    return with_citations(ans, question, kept)
