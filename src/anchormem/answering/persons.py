"""Who a memory is about: its speaker, the people it names as third persons, and the people it addresses.

The person rules of the evidence test (:mod:`.evidence`), English and Chinese. Relation words come from the one
list of :mod:`anchormem.facts.keys` (``relation_words``), each read as its relation's canonical word ("mom", 妈妈,
母亲 -> "mother": ``kin_canonical_map``; :func:`kin_words`, :func:`kin_base`, :func:`in_kin`):

- :func:`stated_text`: the sentences that state something (questions are no evidence); read as the speaker's own
  statement (``about_speaker``), without what is said to or about the person addressed ("That charity race sounds
  great, Mel!", "I love your turtles", 你的…);
- :func:`subject_role`: how the question's named subject figures in a memory (speaker, mentioned, or not at all;
  being addressed — "Thanks, Melanie!", "Woohoo Melanie!" — does not count);
- :func:`claims_other`: whether a memory is another named person's own statement (the person-swap check of
  :func:`anchormem.answering.evidence.select` compares it with the subject's best evidence).
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ..facts.keys import person_modifiers, kin_canonical, kin_covers, relation_pattern
from ..facts.places import known_place
from ..text.segment import split_sentences
from ..types import Hit

if TYPE_CHECKING:
    from .evidence import QuestionInfo

__all__ = ["users_own_evidence", "KIN_EN", "KIN_ZH", "kin_alternations", "stated_text", "subject_role",
           "claims_other", "same_name", "mentions", "name_in", "asked", "kin_words", "with_speaker_names",
           "asks_about_self", "is_kin", "kin_base", "in_kin"]


def stated_text(text: str, *, about_speaker: bool = False, kin: frozenset[str] = frozenset(),
                questions: bool = False) -> str:
    """The sentences of ``text`` that state something: questions ask, they are no evidence ("What motivated you to
    pursue counseling?" says nothing about who did). ``about_speaker``: only what the speaker says of themself or
    others, not of the person addressed (a sentence with "you" or a vocative name and no "I/my/we": "That charity
    race sounds great, Mel!" is not about the speaker's race; a greeting that opens a sentence — "Hey Caroline, that
    roadtrip was insane!" — addresses nobody in what follows), and without what belongs to the addressee ("I love
    your turtles": the turtles are not the speaker's; 你的…), nor what they say of a relative or friend as the
    subject of a sentence ("My brother Sam works as a doctor." says nothing of the speaker's job) unless ``kin`` (the
    question's relation words, :func:`kin_words`) names that relation ("What does Tom's brother do?"); nor what a
    relative clause or an apposition says of a relative ("I visited my brother, who is a doctor." is read as "I
    visited my brother."), unless ``kin`` names the relation. "我哥哥和我都是老师" is about the speaker too.
    ``questions``: keep the questions too (the question asks what the user asked: "What did I ask about returns?")."""
    keep = []
    rx = _kin_rx()
    for sent in split_sentences(text):
        if not questions and (_ASKS.search(sent.strip()) or _conditional().search(sent)):  # nor does a supposition
            continue
        third = (rx["third_party"].match(sent) or rx["third_party_zh"].match(sent)) if about_speaker else None
        if third and not in_kin(kin_base(third.group(1)) or "", kin):
            continue
        body = _OPENING.sub("", sent, count=1)  # "Hey Caroline, that roadtrip was insane!" states the speaker's news
        to_other = _SECOND_PERSON.search(body) or _addresses(body)  # "you…", "That sounds great, Mel!"
        if about_speaker and to_other and not _FIRST_PERSON.search(sent):
            continue
        if about_speaker:  # "I love your turtles": the turtles are the addressee's
            sent = _YOUR_NP.sub(" ", sent)
            sent = rx["clause"].sub(lambda m: m.group(0) if in_kin(kin_base(m.group(2)) or "", kin) else m.group(1),
                                   sent)
        keep.append(sent)
    return " ".join(keep)


@lru_cache(maxsize=1)
def _conditional() -> re.Pattern[str]:
    """A condition or supposition ("If I got the job in London I would move there", 如果…; ``cues.json``)."""
    from ..langdata import alternation, load

    en, zh = load("cues", "en").get("conditional", []), load("cues", "zh").get("conditional", [])
    return re.compile(rf"\b(?:{alternation(en)})\b|{alternation(zh)}", re.I)


@lru_cache(maxsize=1)
def _kin_rx() -> dict[str, "re.Pattern[str] | str"]:
    """The relation-word patterns, built on first use (the relation words of :mod:`anchormem.facts.keys`, the
    one-character guard of data/lang/zh/kin.json): ``en`` / ``zh`` the alternations; ``third_party`` a sentence whose
    subject is the speaker's relative or friend ("My brother Sam works…", "And my mom is…"), ``third_party_zh`` the
    same in Chinese ("我弟弟小明在上海当医生。", "我的同事…"); ``clause`` what a relative clause or an apposition says of
    the speaker's relative ("my brother, who is a doctor,", "my sister (a lawyer)", "my mom, a nurse,"; group 1: the
    noun phrase kept; group 2: the relation word); ``word`` a relation word in a text ("brothers": "brother"),
    ``full`` one as a whole word; ``self_zh`` the asker as a Chinese question's subject (我, not 我弟弟)."""
    kin, kin_zh = relation_pattern(False), relation_pattern(True)
    return {
        "en": kin, "zh": kin_zh,
        "third_party": re.compile(rf"^\W*(?:(?:and|but|so|also|oh|well)\s+)?my\s+(?:{person_modifiers()}\s+)?({kin})"
                                  rf"(?:e?s)?\b(?!\s*(?:and\s+i|&\s*i)\b)", re.I),
        "third_party_zh": re.compile(rf"^\W*(?:而且|还有|另外)?我(?:的)?({kin_zh})(?!(?:和|跟|与|同)我)"),
        "clause": re.compile(rf"(\bmy\s+(?:{person_modifiers()}\s+)?({kin})(?:e?s)?\b"
                             rf"(?:\s+[A-Z][a-zA-Z\-]+)?)(?:\s*,?\s*(?:who|that|which)\b[^,.;:!?()]*|"
                             rf"\s*,\s*(?:an?|the)\s+[^,.;:!?()]*(?=,)|\s*\((?:an?|the)\s+[^)]*\))(?:\s*,)?", re.I),
        "word": re.compile(rf"\b({kin})(?:e?s)?\b|({kin_zh})", re.I),
        "full": re.compile(rf"({kin})(?:e?s)?|({kin_zh})", re.I),
        "self_zh": re.compile(rf"我(?!们)(?!(?:的)?(?:{kin_zh}))"),
    }


def kin_alternations() -> tuple[str, str]:
    """The relation words as regex alternations (no group): (English, Chinese)."""
    rx = _kin_rx()
    return rx["en"], rx["zh"]  # type: ignore[return-value]


def __getattr__(name: str) -> str:
    """``KIN_EN`` / ``KIN_ZH``: the relation words as regex alternations (:func:`kin_alternations`), built on first
    use."""
    if name in ("KIN_EN", "KIN_ZH"):
        return kin_alternations()[name == "KIN_ZH"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# the asker as the question's subject: "Am I a doctor?", "What is my name?", "Where do I live?", 我是律师吗？
_SELF_Q = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|mine|myself)\b", re.I)


def asks_about_self(question: str) -> bool:
    """The question asks about the asker (first person, no name): "Am I a doctor?", "What's my job?", 我住在哪里？
    Then only what the asker said of themself answers it: "My brother works as a doctor." does not say the asker is
    one (:func:`stated_text` with ``about_speaker``). A question about the asker's relative ("What does my brother
    do?", 我弟弟做什么工作？) is one too; its relation words (:func:`kin_words`) keep the relative's sentences."""
    rx = _kin_rx()
    return bool(_SELF_Q.search(question) or rx["self_zh"].search(question) or rx["third_party_zh"].search(question))


def is_kin(word: str) -> bool:
    """``word`` is a relation word ("brother", "brothers", "wife", 弟弟, 同事)."""
    return kin_base(word) is not None


@lru_cache(maxsize=8192)
def kin_base(word: str) -> str | None:
    """The relation a relation word names, singular and canonical as :func:`kin_words` gives it ("Brothers" →
    "brother", "Moms" / 妈妈 / 母亲 → "mother", 弟弟 → 弟弟: :func:`~anchormem.facts.keys.kin_canonical`); None for
    any other word."""
    m = _kin_rx()["full"].fullmatch(word.lower())
    return kin_canonical(m.group(1) or m.group(2)) if m else None


def kin_words(question: str) -> frozenset[str]:
    """The relations a text names, singular and canonical ("What does Tom's brother do?" → {"brother"}; "What do my
    brothers do?" → {"brother"}; "Where does my mom live?" / 我妈妈住在哪里？ → {"mother"}; "林晓的弟弟…" →
    {"弟弟"})."""
    return frozenset(kin_canonical(m.group(1) or m.group(2)) for m in _kin_rx()["word"].finditer(question))


def in_kin(relation: str, kin: frozenset[str]) -> bool:
    """What is said of ``relation`` (canonical, :func:`kin_base`) answers a question about the relations ``kin``
    (:func:`kin_words`): one of them is that relation or a broader one (asked "brother", said 哥哥: yes; asked 哥哥,
    said "brother" or 弟弟: no, :func:`~anchormem.facts.keys.kin_covers`)."""
    return any(kin_covers(k, relation) for k in kin)


# what belongs to the person addressed: "your" and the noun phrase after it (up to three words, to punctuation
# or a joining word); 你的 and the next two characters
_YOUR_NP = re.compile(r"\b(?:your|yours)\b(?:\s+[\w'’-]+){0,3}?(?=\s*(?:[,.!?;:]|$|\s(?:and|but|so|is|are|was|were|"
                      r"has|have|to|for|with|in|on|at|of|that|which)\b))|你的[\u4e00-\u9fff]{0,2}", re.I)


_ASKS = re.compile(r"[?？]\W*$|[吗呢么]\W*$")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|we|our|us)\b|我", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|you've|you'll|yourself)\b|你", re.I)


_GREETING = r"(?:hey|hi|hello|thanks|thank you|yo|yep|yeah|yes|wow|woah|oh|aw|aww|congrats|congratulations|sorry|" \
    r"bye|dear|ok|okay|great|nice|haha)"
# Chinese greetings before a name ("谢谢你，Melanie！", "嗨 Tom，"): CJK characters have no word boundary between them
_GREETING_ZH = r"(?:你好|您好|嗨|哈喽|谢谢你?|多谢|亲爱的|恭喜你?)"
# a name between sentence or clause punctuation, or after a greeting ("Thanks, Melanie!", "…，Melanie！"); the greeting
# in any case, the name capitalised (", affectionately." ends a sentence, it addresses no one)
_VOCATIVE = re.compile(rf"(?:^|[.!?。！？]\s*|[,，]\s*|\b{_GREETING}\s*,?\s*|{_GREETING_ZH}\s*[,，]?\s*)"
                       r"((?-i:[A-Z])[a-zA-Z\-]+)\s*(?=[,!.?;:，。！？；：]|$)", re.I)


# a greeting that opens a sentence and goes on to say something: "Hey Caroline, …", "Hi Mel, …", "嗨 Tom，…"
_OPENING = re.compile(rf"^\s*(?:(?i:{_GREETING})|{_GREETING_ZH})\s+[A-Z][a-zA-Z\-]+\s*[,，]\s*(?=\S)")


def same_name(a: str, b: str) -> bool:
    """Same person: equal, or one is a nickname prefix (≥ 3 letters) of the other ("Mel" / "Melanie")."""
    a, b = a.lower(), b.lower()
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


# a name after one opening word of a sentence, before punctuation: "Woohoo Melanie!", "Sure Caroline,"
def _addresses(sentence: str) -> bool:
    """The sentence addresses someone by name ("That sounds great, Mel!"); a known place after a comma is no one
    addressed ("Please ship it to 12 Baker Street, London.": :func:`~anchormem.facts.places.place_kind`)."""
    return any(not known_place(m.group(1)) for m in _VOCATIVE.finditer(sentence))


_LEAD_VOCATIVE = re.compile(r"(?:^|[.!?]\s+)[A-Za-z']+\s+([A-Z][a-zA-Z\-]+)\s*(?=[,!?])")


# a name that ends an exclamation or a question, not after a preposition: "That's really cool Joanna!"
_END_VOCATIVE = re.compile(r"\b(?!(?:to|in|at|from|with|for|about|of|by|on|into|visit|visited|see|saw|meet|met|"
                           r"and|or|like|love)\s)[A-Za-z']+\s+([A-Z][a-zA-Z\-]+)\s*(?=[!?])")


def _vocatives(text: str) -> set[int]:
    """Start offsets of the words of ``text`` that address someone ("Thanks, Melanie!", "Woohoo Melanie!")."""
    return {v.start(1) for pat in (_VOCATIVE, _LEAD_VOCATIVE, _END_VOCATIVE) for v in pat.finditer(text)}


# a capitalised word; in Chinese text a name touches the characters around it ("我和Melanie去了"): no \b there
_WORD_NAME = re.compile(r"(?<![A-Za-z])[A-Z][a-zA-Z\-]+")


def mentions(name: str, text: str) -> bool:
    """``text`` names the person as a third person (being addressed does not count)."""
    voc = _vocatives(text)
    return any(same_name(name, w.group()) and w.start() not in voc for w in _WORD_NAME.finditer(text))


def name_in(name: str, hit: Hit) -> bool:
    """The person is the memory's speaker or is mentioned in it — as a third person: being addressed
    ("Thanks, Melanie!", "Hey Caroline,") does not make the memory about them."""
    m = hit.memory
    if m.speaker and same_name(name, m.speaker):
        return True
    return mentions(name, stated_text(m.text))


def with_speaker_names(q: QuestionInfo, hits: list[Hit]) -> QuestionInfo:
    """``q`` with its subject taken from the memories' speakers when it found no name itself: a Chinese question
    names its person in characters ("林晓在哪里当医生？"), which the capitalised-name rule cannot see; a speaker
    name the question contains is its subject. English questions and questions with names come back as they are."""
    if q.names or not q.zh:
        return q
    found = sorted({h.memory.speaker for h in hits if h.memory.speaker and h.memory.speaker in q.text},
                   key=q.text.index)
    return dataclasses.replace(q, names=found, subjects=found[:1]) if found else q


def subject_role(q: QuestionInfo, hit: Hit) -> str | None:
    """How the question's subject (``q.subjects``: ``q.names[0]`` and the names joined to it by "and") figures in
    the memory: ``"any"`` (the question names nobody), ``"speaker"``, ``"mentioned"`` (named as a third person in a
    statement; being addressed — "Thanks, Melanie!" — or named inside a question does not count) or None (the
    memory is not about the subject)."""
    if not q.names:
        return "any"
    m = hit.memory
    subjects = q.subjects or q.names[:1]
    if m.speaker and any(same_name(n, m.speaker) for n in subjects):
        return "speaker"
    plain = stated_text(m.text)
    if any(mentions(n, plain) for n in subjects):
        return "mentioned"
    return None


def asked(turn: str) -> str:
    """The question sentences of a turn, as plain words ("How did they handle the accident?" → its words)."""
    return " ".join(re.sub(r"[?？]+", " ", x) for x in split_sentences(turn) if _ASKS.search(x.strip()))


def claims_other(q: QuestionInfo, hit: Hit, role: str | None) -> bool:
    """The memory is another named person's own statement: the question names a subject, the memory has a speaker
    and is not about the subject (``role`` from :func:`subject_role` is None). Read as its speaker's statement
    (:func:`stated_text` with ``about_speaker``), it is the evidence that the event the question attributes to the
    subject is the other person's ("What did Caroline realize after her charity race?" when Melanie ran it)."""
    return bool(q.names) and role is None and bool(hit.memory.speaker)


@lru_cache(maxsize=1)
def _addressee() -> re.Pattern[str]:
    """The words naming the assistant in a question (``addressee`` of ``data/lang/*/answers.json``)."""
    from .. import langdata

    parts = [re.escape(w) if re.search(r"[^\x00-\x7f]", w) else rf"\b{re.escape(w)}\b"
             for w in langdata.words("answers", "addressee")]
    return re.compile("|".join(parts) or "(?!)", re.I)


def users_own_evidence(question: str, hits: list[Hit]) -> list[Hit]:
    """``hits`` without the assistant's turns when ``question`` asks for one of the asker's own facts (a slot of
    theirs: :func:`~.slot_questions.asked_slots` of a first-person question, :func:`asks_about_self`: "Do I live in
    Lisbon?", 我以前住哪里？) and does not name the assistant ("What did you say my rent was?"; the conversation's
    own phrases such as "can you remind me" aside: :func:`~anchormem.agents.signals.strip_meta`): the assistant
    repeating a user's fact ("So you live in Lisbon!") is no evidence of it, and after a change it repeats the old
    value. ``hits`` unchanged otherwise (the assistant's own advice answers "Where could I take Lena?")."""
    from ..agents.signals import strip_meta
    from ..facts.claims import without_past_words
    from .slot_questions import asked_slots

    if not asks_about_self(question) or _addressee().search(strip_meta(question)) or \
            not asked_slots(without_past_words(question)):
        return hits
    return [h for h in hits if h.memory.source != "assistant"]
