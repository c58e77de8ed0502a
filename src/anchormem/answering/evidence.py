"""The evidence test: does a retrieved memory actually answer the question?

A memory *supports* a question when all of these hold (see :class:`EvidenceScorer`):

1. **Subject.** The question's named subject (the first capitalised name that is not a question word, e.g.
   "Melanie" in "When did Melanie go camping?"; names joined to it by "and" are subjects too: "How do Jon and Gina
   both like to destress?") is the memory's speaker or is mentioned in one of its statements (a nickname prefix
   such as "Mel" counts; being addressed — "Thanks, Melanie!", "Woohoo Melanie!", "That's really cool Joanna!" —
   or named inside a question does not). Questions about "I/my" have no named subject: every memory in the scope
   is the user's. Further names in the question are key terms.
2. **Key-term coverage** ≥ ``min_coverage`` (the main threshold). Key terms are the question's content words
   after dropping question words and pronouns (English and Chinese). Each term is covered by the memory
   lexically (same stem; for Chinese a substring, or a share of its characters), through a small bilingual
   paraphrase lexicon (live/move/住/搬, work/job/工作...; a statement of a job, "I'm a nurse" / 我在医院当护士,
   counts as the word "occupation": :func:`_job_stated`, and a job question in other words, "What do I do?" /
   我是做什么的？, asks for "occupation": :data:`_JOB_Q`), or, with a calibrated embedder, when its query
   embedding is close to one of the memory's words (cosine ≥ ``word_sim``: "dog"~"retriever" passes,
   "dog"~"cat" does not). A relation word is covered lexically by any word of its relation ("mom", 妈妈 or a
   ``mother_…`` slot for "mother": :func:`~anchormem.facts.keys.kin_groups`) or of a narrower one (哥哥 for
   "brother"), not by another relation (no wife for "husband", no 表哥 for 哥哥), nor by embedding by a contrasting
   one (:func:`contrasting`: no "brother" or 弟弟 for 哥哥). Light terms ("name", "time", "go", "名字"...) weigh
   less, and at least one heavy term must be covered, so "What is my dog's name?" never cites "a rescue cat named
   Pixel".
   A word asking for an amount is covered by an amount of its kind, whatever the memory's words (钱 by "一斤八块",
   "old" by "turned seven", "month" by "$40 a month": :mod:`.amounts`); a compound of two key terms by its
   translation in a memory said in the other language (手机套餐 by "phone plan": :meth:`EvidenceScorer._compounds`).
   A "how much / how old / 多少" question needs a number in the memory ("how many" does not: it is often answered
   by counting several memories). Plurals of light terms are light ("types", "places"), and so are nouns that name
   the kind of answer ("activity", "item", "topic", "breed", "brand", "colour", "活动", "类型", "品种"). A calendar
   date in the question ("on 3 June, 2023", "in August 2023", "2023年5月") is ONE key term, covered when the memory
   was said or its event happened then (:func:`date_matches`; such a memory found by keywords only needs no dense
   cosine, nor does one of a question that names nothing else: "What did I say on 2025-01-10?", "1月10号我说了什么":
   the words asking what was said or happened are no key terms, :mod:`.question_dates`).
3. **Dense cosine** ≥ the embedder's calibrated floor and within ``dense_margin`` of the best candidate (a fact
   whose slot the question names, e.g. ``employer`` for "where does … work", needs no floor).

What counts as the memory's words (:func:`stated_text`): only sentences that state something (a question in a
memory is no evidence); when the question's subject is the memory's speaker, only sentences about the speaker (one
that says "you" or addresses someone by name without "I/my/we" is about the addressee, and so is "your …": "I love
your turtles" is not about the speaker's turtles). Further names in the
question match as names only, never by embedding ("Barcelona" is not "Rome"), and contrasting words never cover
each other by embedding (grandma / grandpa, mom / dad, Monday / Friday: ``contrasts`` of data/lang/*/answers.json).

A term covered only by embedding similarity counts ``semantic_credit`` (0.6), a lexical or lexicon match counts 1:
a near word is weaker evidence than the word itself ("charity race" is not covered as well by "a support system").
In a memory said in the other language the word itself cannot occur: a word of that language near the term both ways
(as query and as passage, each against its own bar: :meth:`EvidenceScorer._translates`) is its translation and counts
``translation_credit`` (1.0: "married" by 结婚, 加入 by "joined"; "ago" is near 生日 one way only and stays 0.6).

Citations are the supporting memories whose coverage is within ``second_gap`` of the best one (a second
citation clears the same bar, it is not just next in rank), then supporting memories of the same exchange (session,
or said at the same instant) as a citation, at most ``max_citations``. When no single memory
passes, two memories that each cover at least ``pair_min`` and together (each term counted by the better of the
two) reach ``min_coverage`` are cited together (multi-hop: "What do Jon and Gina both have in common?").

**Denied values.** A fact that denies a job, an employer or a home (polarity -1: "I'm not a doctor.", "I used to be
a teacher.", "I moved out of Lisbon.") is no evidence for a question asking what the value is ("What's my job?",
我的工作是什么？): it answers only whether it is ("Am I a doctor?", 我是老师吗？) or what it used to be
(:func:`asks_what_is`).

The question's side (names, weighted key terms, the paraphrase groups) is read by :mod:`.question`; a question
about one of the user's own slots is answered by that slot's current claim before this test (:mod:`.slot_evidence`).

**Person swap.** A question about a named person is often about what another person did ("What did Caroline
realize after her charity race?" when Melanie ran the race): when another named speaker's own statement — read
without what it says to or about the person addressed — covers the question better than every candidate about the
subject, and passes the same heavy-term and dense gates, the event is that person's and ``ask`` abstains
(:func:`swapped`; ``AnswerConfig.person_swap``). The person rules (speaker, mentions, vocatives, what a sentence
says about its speaker) live in :mod:`.persons`.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from ..facts.keys import (kin_covers, light_verbs, not_job_words, occupation_en, occupation_zh, person_modifiers,
                          title_measures, translated_topics)
from ..text.tokenize import has_cjk, query_terms, stem
from ..types import Hit
from .amounts import amount_covers
from .answer_types import states_name
from .value_shapes import holds_asked_shape, shape_covers
from .categories import asked_categories, names_kind
from .question import (DATE_TERM, QuestionInfo, _kin, _syn_group, analyze_question, asks_about_asking,
                       paraphrase_groups)
from .question_dates import QDate, date_matches, question_date, said_word  # noqa: F401 (re-exported)
from .tense import asks_plan, asks_present, without_plans
from .persons import (kin_alternations, asked, asks_about_self, claims_other, in_kin,
                      kin_base, kin_words, name_in, stated_text, subject_role, with_speaker_names)

__all__ = ["AnswerConfig", "EvidenceScorer", "QuestionInfo", "Scored", "analyze_question", "select", "names_the_asked",
           "select_pair", "swapped", "profile_for", "PROFILES", "asks_what_is"]


class AnswerConfig(BaseModel):
    """Thresholds of the evidence test.

    ``min_coverage``: share of the question's (weighted) key terms the memory must cover (main threshold;
    0.7 from the LoCoMo curves of both splits, ``bench/abstention.py``, with reply context on: conversations 1-2
    and 3-4 both beat every earlier setting on abstention and on answers citing gold there).
    ``dense_floor`` / ``word_sim``: None = the embedder's calibrated profile (:data:`PROFILES`).
    ``dense_margin``: a cited memory's cosine is at most this far below the best candidate's.
    ``word_margin``: a term matches a memory word by embedding when their cosine is ≥ ``word_sim`` and ≥ the
    term's mean cosine to a fixed set of unrelated background words + ``word_margin`` (single-word cosines sit
    high and differ per term and language, so the bar is relative).
    ``second_gap``: further citations need coverage ≥ best coverage − second_gap (and ≥ min_coverage).
    ``max_citations``: 1-3 memories are quoted.
    ``semantic_credit``: how much a key term covered only by embedding similarity counts (lexical match: 1).
    ``translation_credit``: how much a key term counts when a word of the other language covers it by embedding
    (its translation: "married" by 结婚, 健身房 by "gym"; a question and a memory in two languages share no word,
    so ``semantic_credit`` alone would cap every cross-language answer below ``min_coverage``).
    ``pair_min``: when no memory passes alone, two memories each covering ≥ ``pair_min`` whose union reaches
    ``min_coverage`` are cited together (1.0 disables pairs).
    ``person_swap``: abstain when another named person's own statement covers the question better than every
    candidate about the question's subject (the question attributes that person's event to the subject:
    :func:`swapped`).
    ``slot_evidence``: a question about one of the user's own slots (in either language) cites that slot's current
    claim first (:mod:`anchormem.answering.slot_evidence`).
    ``latest_said``: a question about the asker's own present state cites first the latest statement of theirs that
    answers it after the first citation, the earlier one quoted as earlier, whether or not the write path read a
    change (:mod:`anchormem.answering.recency`; ``context()`` orders and marks them the same way).
    ``latest_first``: a present question about the user cites its memories newest said first
    (:func:`anchormem.answering.slot_evidence.latest_first`; off: see CHANGELOG for its measurement).
    """

    min_coverage: float = Field(0.7, ge=0, le=1)
    dense_floor: float | None = Field(None, ge=-1, le=1)
    dense_margin: float = Field(0.08, ge=0, le=2)
    word_sim: float | None = Field(None, ge=-1, le=1)
    word_margin: float = Field(0.05, ge=0, le=1)
    second_gap: float = Field(0.2, ge=0, le=1)
    max_citations: int = Field(3, ge=1, le=5)
    semantic_credit: float = Field(0.6, ge=0.5, le=1)
    translation_credit: float = Field(1.0, ge=0.5, le=1)
    pair_min: float = Field(0.5, ge=0, le=1)
    person_swap: bool = True
    slot_evidence: bool = True
    latest_said: bool = True
    latest_first: bool = False


#: Per-embedder calibration: (dense floor, word-similarity threshold). Measured with multilingual-e5-small:
#: unrelated memories reach cosine 0.75-0.82 (so the floor only removes the clearly unrelated; coverage does the
#: rest); single-word query→passage cosines: dog~retriever .868, work~job .884, dog~cat .818, 狗~猫 .849,
#: guitar~piano .837, against a background mean of .80-.85 per term (so the relative bar, mean + 0.05, does most
#: of the work: dog needs .853, 工作 needs .895). Embedders without a profile get no floor and no word similarity (lexical terms only).
PROFILES: dict[str, tuple[float | None, float | None]] = {
    "multilingual-e5-small": (0.78, 0.84),
    "hash": (None, None),
}


def profile_for(embedder_name: str | None, embedder: Any = None) -> tuple[float | None, float | None]:
    """(dense floor, word-similarity threshold) for a model: the hand-set :data:`PROFILES` entry its name starts
    with; else, given the ``embedder``, thresholds calibrated from its own background cosines
    (:func:`anchormem.retrieval.profile.calibrated_thresholds`: the same positions on its background as the
    default model's); else (None, None)."""
    name = (embedder_name or "").lower()
    for key, prof in PROFILES.items():
        if name.startswith(key):
            return prof
    if embedder is not None:
        from ..retrieval.profile import calibrated_thresholds

        return calibrated_thresholds(embedder)
    return (None, None)


@lru_cache(maxsize=1)
def _contrast_index() -> dict[str, tuple[int, int]]:
    """Words that embed close together but name different things, never a semantic match for each other ("grandpa"
    is not covered by "grandma"): word -> (its contrast, its group) over ``contrasts`` of data/lang/*/answers.json
    (merged by id, group by group; "@mother" is the relation's words and its narrower ones: :func:`_kin`)."""
    from ..langdata import LANGUAGES, load

    rows: dict[str, list[set[str]]] = {}
    for lang in LANGUAGES:
        for cid, groups in (load("answers", lang).get("contrasts") or {}).items():
            row = rows.setdefault(cid, [])
            for j, words in enumerate(groups):
                if j == len(row):
                    row.append(set())
                for w in words:
                    row[j].update(_kin(w[1:]) if w.startswith("@") else {w})
    return {w: (i, j) for i, row in enumerate(rows.values()) for j, grp in enumerate(row) for w in grp}


def contrasting(a: str, b: str) -> bool:
    """``a`` (a question's word) and ``b`` (a memory's) name different members of one contrast (grandma / grandpa,
    Monday / Friday), or relations of one group of it that ``b``'s does not answer for ``a``'s (哥哥 / 弟弟, 哥哥 /
    "brother": :func:`~anchormem.facts.keys.kin_covers`; "brother" / 哥哥 is no contrast)."""
    index = _contrast_index()
    ca, cb = index.get(a.lower()), index.get(b.lower())
    if ca is None or cb is None or ca[0] != cb[0]:
        return False
    if ca[1] != cb[1]:
        return True
    ka, kb = kin_base(a), kin_base(b)
    return ka is not None and kb is not None and not kin_covers(ka, kb)



# unrelated everyday words: a term's mean cosine to these is its background level

_HOW_MANY_ZH = re.compile(r"^(?:几|多少)(.+)$")  # "how many" glued to its measure word and noun: 几辆车, 几只
_ZH_NUMERAL = r"(?:\d+|[零一二两三四五六七八九十百千万]+)"
_NUMBER = re.compile(r"\d|[零一二两三四五六七八九十百千万]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|dozen)\b", re.I)


_IDENTIFIER = re.compile(r"(?<![\w-])(?:[A-Za-z#]{0,6}[-#]?\d[\w-]{2,}|\d[\d -]{4,}\d)")  # R-5521, #A1234, 138 0013 8000


@lru_cache(maxsize=1)
def _identifier_words() -> frozenset[str]:
    """Question words for the number or code asked for (``identifier_words`` of ``data/lang/*/answers.json``)."""
    from ..langdata import words

    return frozenset(w.casefold() for w in words("answers", "identifier_words"))


def _undoubled(word: str) -> str:
    """The stem of an English word with a doubled final consonant undone ("shipping" / "shipped" -> "ship",
    "planning" -> "plan"; "ship" -> "ship"): :func:`~anchormem.text.tokenize.stem` keeps the double ("shipp"), so
    "shipping" never met "ship" (the index keeps that stem: this is the evidence test's own reading)."""
    s = stem(word)
    return s[:-1] if len(s) >= 4 and s.isascii() and s[-1] == s[-2] and s[-1] not in "aeiouls" else s


@lru_cache(maxsize=1)
def _zh_light_verbs() -> frozenset[str]:
    """The Chinese light verbs (吃 喝 玩 打 去 做 抽 看: :func:`~anchormem.facts.keys.light_verbs`)."""
    return frozenset(v for v in light_verbs() if has_cjk(v))


def text_language(text: str) -> str:
    """"zh" when a text has at least as many Chinese characters as Latin words ("我在Shopify做前端开发。"), else
    "en"."""
    cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
    return "zh" if cjk and cjk >= len(re.findall(r"[A-Za-z]+", text)) else "en"


# ------------------------------------------------------------------------------------------- scoring
@dataclass
class Scored:
    """The evidence features of one hit. ``ok`` = every gate except the coverage threshold passed. ``group``: the
    memory's exchange (``"s:<session_id>"``, else ``"t:<created_at ISO>"``: turns stored by one ``add``).
    ``other_coverage``: for a memory that is another named person's own statement (:func:`.persons.claims_other`),
    its coverage read as that statement, when its heavy-term (and number) gates pass that way; else None."""

    index: int
    coverage: float
    subject_ok: bool
    heavy_ok: bool
    dense: float | None
    dense_ok: bool
    covered: dict[str, float] = field(default_factory=dict)
    group: str | None = None
    other_coverage: float | None = None

    @property
    def ok(self) -> bool:
        return self.subject_ok and self.heavy_ok and self.dense_ok

    @property
    def other_claim(self) -> float | None:
        """The coverage of a memory that is another person's own statement and would pass every gate were it about
        the subject (None otherwise): the person-swap check of :func:`select` compares it with the subject's best."""
        return self.other_coverage if self.other_coverage is not None and self.dense_ok else None

    def as_dict(self) -> dict[str, Any]:
        return {"coverage": round(self.coverage, 4), "subject_ok": self.subject_ok, "heavy_ok": self.heavy_ok,
                "dense_ok": self.dense_ok, "covered": self.covered, "group": self.group,
                "other_coverage": None if self.other_coverage is None else round(self.other_coverage, 4)}


def _coverage(terms: list[tuple[str, float]], cov: dict[str, float], total: float) -> float:
    """The weighted share of the key terms ``cov`` covers (1.0 for a question without key terms)."""
    return (sum(w * cov.get(t, 0.0) for t, w in terms) / total) if total else 1.0


def _heavy_ok(q: QuestionInfo, heavy: list[str], cov: dict[str, float], stated: str) -> bool:
    """At least one heavy term is covered, an amount question ("how much / 多少") finds a number, and a question for
    a name finds one (:func:`states_name`)."""
    if heavy and not any(cov.get(t, 0.0) >= 0.5 for t in heavy):
        return False
    if q.wants_name and not states_name(stated, {w.lower() for w in re.findall(r"[A-Za-z']+", q.text)}):
        return False
    return not (q.wants_number and not _NUMBER.search(stated))


# a statement of someone's job: the speaker's ("I'm a nurse", "I'm a software engineer at Google", "My brother and I
# are teachers", 我是一名护士, 我在医院当护士, 我哥哥和我都是老师) or a relative's ("My brother is a doctor", "My brothers are
# doctors", "my brother,
# who is a doctor", 我弟弟是一名医生: a question about the speaker never sees these, :func:`.persons.stated_text`);
# not "I am a fan of jazz", "I'm a good cook", "I'm tired", "I'm not a doctor", "is a doctor" said of anyone else
@lru_cache(maxsize=1)
def _job_stated() -> re.Pattern[str]:
    """The pattern of a statement of someone's job (above), built on first use (the relation words:
    :func:`.persons.kin_alternations`)."""
    _KIN_NOUNS, _KIN_NOUNS_ZH = kin_alternations()  # noqa: N806
    return re.compile(
        r"\b(?:I(?:'m|\s+am|\s+was|'ve\s+been|\s+have\s+been|\s+became)|(?:we|and\s+I)(?:'re|\s+are|\s+were)|"
        r"my\s+(?:\w+\s+)?(?:" + _KIN_NOUNS + r")(?:e?s)?(?:\s+[A-Z][a-z]+)?(?:\s*,?\s*who)?\s+"
        r"(?:is|was|are|were|has\s+been|have\s+been|became))"
        r"\s+(?!not\b|no\b)(?:(?:now|currently|still|also|both|all|actually)\s+)*(?:an?\s+)?"
        r"(?:(?!" + not_job_words() + r"\b)[\w-]+\s+){0,2}?" + occupation_en()
        + r"(?!['’]s\b)|"
        r"(?:我|我们|" + _KIN_NOUNS_ZH + r")(?:都|也|现在|目前|已经|一直|还|在[^，。！？,.!?；;在]{1,12}?)*"
        r"(?:是|当|做|成为了?|成了)(?:" + title_measures() + r")?[\u4e00-\u9fff]{0,4}?" + occupation_zh(), re.I)


def _memory_words(hit: Hit, stated: str, kin: frozenset[str]) -> list[str]:
    """The memory's words as the question's terms are matched against: its stated text's terms, its speaker's
    name, its fact slot's words (:func:`_slot_words`), and "occupation" when it states someone's job
    (:func:`_job_stated`: "I'm a nurse." answers "What's my job?")."""
    m = hit.memory
    words = list(query_terms(stated))
    # jieba glues the pronoun on (我开的是… -> 我开): the word without it too, as analyze_question reads a question
    words += [w[1:] for w in words if len(w) > 1 and has_cjk(w) and w[0] in "我你" and w != "我们"]
    if m.speaker:
        words.extend(query_terms(m.speaker))
    if _job_stated().search(stated):
        words.append("occupation")
    # a memory that states nothing for the question (its words all someone else's, plans or questions: "My friend
    # Ahmed just moved to Shenzhen." for "Where do I live?") has no slot words either
    return words + (_slot_words(hit, kin) if stated.strip() else [])


@lru_cache(maxsize=1)
def _kin_modifier() -> re.Pattern[str]:
    """A word before a relation word ("older", "best": :func:`~anchormem.facts.keys.person_modifiers`)."""
    return re.compile(person_modifiers(), re.I)



def _slot_words(hit: Hit, kin: frozenset[str]) -> list[str]:
    """A fact's slot names what it is about ("employer" answers "where does … work"): its attribute's words. A
    relative's slot ("wife_birthday", "sister_name") names nothing unless the question names the relation
    (``kin``, :func:`.persons.kin_words`): "When is my birthday?" is not answered by the wife's."""
    f = hit.memory.fact
    if f is None:  # an utterance: the slots of the claims it still carries ("Tom and Jerry." -> cat_names)
        return [w for c in hit.memory.claims if c.valid_to is None
                for w in _attribute_words(c.slot.partition("|")[2], kin)]
    return _attribute_words(f.attribute, kin)


def _attribute_words(attribute: str, kin: frozenset[str]) -> list[str]:
    """The words of a fact attribute, as :func:`_slot_words` reads them."""
    head, _, key = attribute.partition(":")
    words = [w for w in re.split(r"[_\s]+", head) + key.split() if w]
    person = next((w for w in words[:-1] if not _kin_modifier().fullmatch(w)), None)  # "older_brother_name"
    base = kin_base(person) if person is not None else None  # "brothers_occupation": the relation "brother"
    if len(words) > 1 and base is not None and not in_kin(base, kin):  # "mother_home_city" for "my mom"
        return []
    if head in ("does", "likes"):  # the key dropped the light verb ("drink coffee" -> does:coffee, 吃辣 -> 辣)
        words.extend(sorted(light_verbs()))
        words.extend(translated_topics(key))  # a key in one language names its topic in both (smoke: 烟, 抽烟)
    return words


def _kin_covered(asked: str, said: frozenset[str] | set[str]) -> bool:
    """A question's relation ``asked`` (canonical) is named by the memory, whose relations are ``said``: "mother" by
    "mom", 妈妈, 母亲 or a ``mother_…`` slot; "brother" by 哥哥 too; 哥哥 by neither "brother" nor 弟弟
    (:func:`~anchormem.facts.keys.kin_covers`)."""
    return any(kin_covers(asked, r) for r in said)


def _slot_answers(heavy: list[str], hit: Hit, kin: frozenset[str]) -> bool:
    """A heavy question term names the fact's slot (same stem or synonym group): typed evidence."""
    slot = _slot_words(hit, kin)
    stems = {stem(w) for w in slot}
    groups = {_syn_group(w) for w in slot} - {None}
    return any(stem(t) in stems or _syn_group(t) in groups for t in heavy)



# a question whether something holds ("Am I a doctor?", "Do I still work at Google?", 我是老师吗？) or about the past
# ("What was my job before?", 我以前做什么工作？): a denied value answers it
_YES_NO = re.compile(r"^\s*(?:am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|isn't|aren't|"
                     r"don't|doesn't|didn't)\b|(?:吗|(?<![什怎这那多])么)[？?。.!！\s]*$|是不是|是否|有没有|"
                     r"\b(?:used to|before|previously|formerly|former|earlier|in the past|ever)\b|以前|之前|原来|曾经|过去",
                     re.I)
_VALUE_SLOT = re.compile(r"(?:^|_)(?:occupation|employer|home_city)$")  # one value at a time: job, employer, home


def asks_what_is(question: str) -> bool:
    """The question asks what a value is now ("What's my job?", "Where do I live?", 我的工作是什么？), not whether
    one holds ("Am I a doctor?") or what it used to be ("What did I do before?")."""
    return not _YES_NO.search(question)


def _denied_value(hit: Hit) -> bool:
    """The memory is a fact that denies a job, an employer or a home ("I'm not a doctor.", "I used to be a teacher.",
    "I moved out of Lisbon.": polarity -1): it says what the value is not, so it does not answer what it is
    (:func:`asks_what_is`), though it answers whether it is ("Am I a doctor?")."""
    f = hit.memory.fact
    return f is not None and f.polarity < 0 and bool(_VALUE_SLOT.search(f.attribute))


def _exchange(hit: Hit) -> str:
    """One exchange: memories of one session, or said at the same instant (one ``add`` of several turns)."""
    m = hit.memory
    return f"s:{m.session_id}" if m.session_id else f"t:{m.created_at.isoformat()}"


class EvidenceScorer:
    """Scores hits against a question (thread-safe; caches word embeddings)."""

    def __init__(self, embedder: Any = None, config: AnswerConfig | None = None) -> None:
        self.embedder = embedder
        self.config = config or AnswerConfig()
        floor, wsim = profile_for(getattr(embedder, "name", None), embedder)
        self.dense_floor = self.config.dense_floor if self.config.dense_floor is not None else floor
        self.word_sim = self.config.word_sim if self.config.word_sim is not None else wsim
        self._bg: dict[str, np.ndarray] = {}
        self._bgs: dict[str, np.ndarray] = {}  # calibration sentences per language (:meth:`_language_fair`)
        self._qvec: dict[str, np.ndarray] = {}
        self._pvec: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    # word embeddings -------------------------------------------------------------------------------------
    def _vectors(self, words: list[str], query: bool) -> dict[str, np.ndarray]:
        cache = self._qvec if query else self._pvec
        with self._lock:
            missing = [w for w in dict.fromkeys(words) if w not in cache]
        if missing:
            if query:
                vecs = [self.embedder.embed_query(w) for w in missing]
            else:
                vecs = list(self.embedder.embed_documents(missing))
            with self._lock:
                for w, v in zip(missing, vecs):
                    cache[w] = np.asarray(v, dtype=np.float32)
                if len(cache) > 200_000:
                    cache.clear()
        with self._lock:
            return {w: cache[w] for w in words if w in cache}

    def _term_bar(self, term: str, qv: np.ndarray, lang: str | None = None) -> float:
        """The cosine a memory word of language ``lang`` (default: the term's own) needs to cover ``term``: the
        term's mean cosine to unrelated words *of that language* + ``word_margin`` (at least ``word_sim``). A
        Chinese term sits ~0.07 lower against English words than against Chinese ones (宠物: .896 vs .842), so a
        bar measured in the term's own language would shut out every translation ("宠物"~"cats" .844)."""
        lang = lang or ("zh" if has_cjk(term) else "en")
        bg = self._bg.get(lang)
        if bg is None:
            bg = self._bank("bar-words", lang)
            self._bg[lang] = bg
        return max(float(self.word_sim), float(np.mean(bg @ qv)) + self.config.word_margin)

    def _language_fair(self, q: QuestionInfo, hits: list[Hit], denses: list[float | None]) -> list[float | None]:
        """Each hit's dense cosine as if it were said in the question's language: raised by how much lower the
        question sits against unrelated sentences of the memory's language than of its own (the shipped
        calibration sentences, ``data/lang/<lang>/calibration.json``; never lowered). multilingual-e5-small puts a
        Chinese question ~0.09 lower against every English sentence than against Chinese ones (我住在哪里？: .720
        vs .825), so "I live in Bristol." missed the floor and the margin set by unrelated Chinese memories. A
        memory in the question's language (every LoCoMo one) keeps its cosine; no embedder or no semantic profile:
        unchanged."""
        if self.embedder is None or self.word_sim is None:
            return denses
        qlang = "zh" if q.zh else "en"
        mlangs = [text_language(h.memory.text) for h in hits]
        if all(lang == qlang for d, lang in zip(denses, mlangs) if d is not None):
            return denses
        qv = self._vectors([q.text], query=True).get(q.text)
        if qv is None:
            return denses
        level = {lang: float(np.mean(self._sentence_background(lang) @ qv)) for lang in {qlang, *mlangs}}
        return [d if d is None else d + max(0.0, level[qlang] - level[lang]) for d, lang in zip(denses, mlangs)]

    def _sentence_background(self, lang: str) -> np.ndarray:
        with self._lock:
            bg = self._bgs.get(lang)
        if bg is None:
            bg = self._bank("calibration", lang)
            with self._lock:
                self._bgs[lang] = bg
        return bg

    def _bank(self, bank: str, lang: str) -> np.ndarray:
        """Passage vectors (float32 (n, dim)) of the fixed bank ``bank`` of ``lang`` (``data/lang/<lang>/
        calibration.json``): shipped for the bundled embedder (:mod:`~anchormem.facts.bank_vectors`), else embedded."""
        from ..facts.bank_vectors import bank_texts, load

        texts = bank_texts(bank, lang)
        name, dim = getattr(self.embedder, "name", None), getattr(self.embedder, "dim", None)
        vecs = load(name, dim, lang, texts, bank) if isinstance(name, str) and isinstance(dim, int) else None
        return vecs if vecs is not None else np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)

    # one question ----------------------------------------------------------------------------------------
    def score(self, question: str | QuestionInfo, hits: list[Hit],
              prompts: list[str | None] | None = None) -> list[Scored]:
        """Evidence features of each hit. ``prompts`` (optional, parallel to ``hits``): the question each memory
        replies to (the other speaker's previous turn), whose words then count as the memory's: "They were scared
        but we reassured them" answers "How did they handle the accident?"."""
        q = with_speaker_names(analyze_question(question) if isinstance(question, str) else question, hits)
        roles = [subject_role(q, h) for h in hits]
        kin = kin_words(q.text)
        # a question about the asker ("Am I a doctor?") is answered by what the user said of themself, not of a
        # relative ("My brother works as a doctor.")
        about_self = asks_about_self(q.text)
        self_q = not q.names and about_self
        asking = asks_about_asking(q.text)  # "What did I ask about returns?": the user's questions are evidence
        stated = [stated_text(h.memory.text, about_speaker=r == "speaker" or (self_q and h.memory.role == "user"),
                              kin=kin, questions=asking) for h, r in zip(hits, roles)]
        if asks_present(q.text) or (q.past and not asks_plan(q.text)):  # what a memory plans is no
            # evidence of what holds now nor of what held before ("Where did I live before?") (:mod:`.tense`)
            own_state = about_self and not kin  # the asker's own state, a place named or not ("Do I live in Bristol?")
            stated = [without_plans(st, h.memory.valid_from, own_state=own_state and h.memory.role == "user")
                      for h, st in zip(hits, stated)]
        # another person's own statement, read as such (the person-swap check of select)
        others = [i for i, (h, r) in enumerate(zip(hits, roles)) if claims_other(q, h, r)]
        own = [stated_text(hits[i].memory.text, about_speaker=True, kin=kin) for i in others]
        if prompts:
            stated = [st + " " + asked(p) if p and st.strip() else st for st, p in zip(stated, prompts)]
            own = [st + " " + asked(prompts[i]) if prompts[i] and st.strip() else st for i, st in zip(others, own)]
        all_hits, all_stated = hits + [hits[i] for i in others], stated + own
        words = [_memory_words(h, st, kin) for h, st in zip(all_hits, all_stated)]
        lexical = [self._lexical(q, h, ws, st) for h, ws, st in zip(all_hits, words, all_stated)]
        if self.word_sim is not None and self.embedder is not None:
            self._semantic(q, words, lexical, all_stated)
            self._compounds(q, all_stated, lexical)
        for cov in lexical:  # a number or code answers only in the memory that says what it is of ("What is my
            ids = [t for t in cov if t in _identifier_words()]  # passport number?" is not "order #A1234")
            if ids and any(c < self.config.semantic_credit for t, c in cov.items() if t not in ids and t != DATE_TERM):
                cov.update({t: 0.0 for t in ids if cov[t] < 1.0})  # (1.0: the word itself; 0.999: a code only)
        own_cov = dict(zip(others, lexical[len(hits):]))
        own_stated = dict(zip(others, own))
        denses = self._language_fair(q, hits, [h.explain.get("dense") for h in hits])
        # the bar is set by memories that state something: a question alone ("How did your kids like the
        # museum?") is no evidence and must not rule out its own reply; nor is a memory without the value shape
        # asked ("Who am I?" is answered by "Hi, I'm Dana", however near "my Gold membership" embeds: .value_shapes)
        best = max((d for d, st, h in zip(denses, stated, hits) if d is not None and st.strip() and
                    holds_asked_shape(q.shapes, h.memory, st)), default=None)
        out = []
        total = sum(w for _, w in q.terms)
        heavy = [t for t, w in q.terms if w >= 1.0 and t != DATE_TERM]
        open_q = asks_what_is(q.text) and not q.past  # a denied value answers what it used to be
        for i, (h, cov) in enumerate(zip(hits, lexical)):
            subject_ok = roles[i] is not None
            coverage = _coverage(q.terms, cov, total)
            heavy_ok = _heavy_ok(q, heavy, cov, stated[i]) and not (open_q and _denied_value(h)) and \
                holds_asked_shape(q.shapes, h.memory, stated[i])  # an email for "my email" (.value_shapes)
            other = None
            if i in own_cov and _heavy_ok(q, heavy, own_cov[i], own_stated[i]):
                other = _coverage(q.terms, own_cov[i], total)
            d = denses[i]
            if d is None:
                dense_ok = coverage >= 0.999  # found by keywords only: every key term must be there
                if cov.get(DATE_TERM, 0.0) >= 1.0:
                    dense_ok = True  # … or the question's date is the memory's (typed evidence)
            elif not heavy and cov.get(DATE_TERM, 0.0) >= 1.0:
                dense_ok = True  # the date is all the question names ("What did I say on 2025-01-10?"): typed
            else:
                # a fact whose slot the question names needs no calibrated cosine floor (typed evidence)
                floor_ok = self.dense_floor is None or d >= self.dense_floor or _slot_answers(heavy, h, kin)
                dense_ok = floor_ok and (best is None or d >= best - self.config.dense_margin)
            out.append(Scored(i, coverage, subject_ok, heavy_ok, d, dense_ok,
                              {t: round(c, 3) for t, c in cov.items()}, _exchange(h), other))
        return out

    def _lexical(self, q: QuestionInfo, hit: Hit, words: list[str], stated: str) -> dict[str, float]:
        text = stated.lower()
        stems = {stem(w) for w in words} | {_undoubled(w) for w in words}
        groups = {g for w in words if (g := _syn_group(w)) is not None}
        for i, grp in enumerate(paraphrase_groups()[0]):  # CJK synonyms can hide inside longer jieba words
            if any(has_cjk(s) and len(s) >= 2 and s in text for s in grp):
                groups.add(i)
        extra_names = {n.lower() for n in q.names[1:] + q.places}
        said_kin = kin_words(stated) | {b for w in words if (b := kin_base(w)) is not None}  # "mom", "mother" slot
        cov: dict[str, float] = {}
        for t, _w in q.terms:
            c = 0.0
            kin = kin_base(t)  # a relation: covered by itself in any of its words, or a narrower one (_kin_covered)
            if kin is not None and has_cjk(t):
                c = 1.0 if _kin_covered(kin, said_kin) else 0.0  # 表哥 is no 哥哥, 姑妈 no 妈
            elif has_cjk(t):
                if len(t) == 1:  # one character: a word of its own or the head (last character) of a compound
                    c = 1.0 if any(w.endswith(t) for w in words) else 0.0
                elif t in text or (len(t) >= 3 and t[0] in _zh_light_verbs() and t[1:] in text):
                    c = 1.0  # 喝咖啡 is covered by 我戒咖啡了: the light verb adds nothing (facts.keys.light_verbs)
                elif (hm := _HOW_MANY_ZH.match(t)) and re.search(_ZH_NUMERAL + re.escape(hm.group(1)), text):
                    c = 1.0  # 几辆车 is covered by 一辆车 / 3辆车: the question word stands for a number
                else:
                    chars = [ch for ch in t if has_cjk(ch)]
                    c = 0.8 * sum(ch in text for ch in chars) / len(chars) if len(chars) > 1 else 0.0
            elif stem(t) in stems or _undoubled(t) in stems or (len(t) >= 4 and re.search(rf"\b{re.escape(t)}", text)):
                c = 1.0
            if t in q.date_terms and q.date is not None:  # a date: when the memory was said or its event happened
                cov[t] = 1.0 if date_matches(q.date, hit) else 0.0
                continue
            if kin is not None:
                c = 1.0 if c >= 1.0 or _kin_covered(kin, said_kin) else c  # "mom" for "mother"; no wife for "husband"
            elif c < 1.0 and _syn_group(t) in groups:
                c = 1.0
            if c < 1.0 and t in extra_names and name_in(t.capitalize(), hit):
                c = 1.0
            if c < 1.0 and t in _identifier_words() and _IDENTIFIER.search(stated):
                c = 0.999  # "ticket number" by "R-5521", 单号 by "SF123456789CN": the number or code asked for
            if c < 1.0 and (cats := asked_categories(t)) and names_kind(cats, text, words):
                c = 1.0  # "pets" by "two cats" / 金毛, 乐器 by "cello": a kind of the category (.categories)
            if c < 1.0 and q.shapes and shape_covers(q.text, t, stated):
                c = 1.0  # "email" by "carol@example.org", 地址 by 文三路88号: the value asked for (.value_shapes)
            if c < 1.0 and amount_covers(t, stated):
                c = 1.0  # 钱 by "一斤八块", "cost" / "month" by "$17.99 a month": the amount asked for (.amounts)
            cov[t] = c
        return cov

    def _semantic(self, q: QuestionInfo, words: list[list[str]], lexical: list[dict[str, float]],
                  stated: list[str] | None = None) -> None:
        names = {n.lower() for n in q.names + q.places}
        need = [t for t, _ in q.terms
                if t not in names and t != DATE_TERM and any(cov.get(t, 0.0) < 1.0 for cov in lexical)]
        if not need:
            return
        mem_words = sorted({w for ws in words for w in ws[:60] if len(w) > 1 or has_cjk(w)})
        if not mem_words:
            return
        qv = self._vectors(need, query=True)
        pv = self._vectors(mem_words, query=False)
        langs = sorted({"zh" if has_cjk(w) else "en" for w in mem_words})
        qlang = "zh" if q.zh else "en"
        light = light_verbs()  # a light verb (做, "do") adds nothing of its own: no translation of a heavy term
        bars = {(t, lang): self._term_bar(t, v, lang) for t, v in qv.items() for lang in langs}
        for k, (ws, cov) in enumerate(zip(words, lexical)):
            # a memory said in the other language; only the words it says translate (not its slot's words: 做 of a
            # does:… slot, nor the English slot words of a Chinese memory), light verbs aside (做意大利面 is no "work")
            said = stated[k].casefold() if stated is not None and k < len(stated) else ""
            other = bool(said.strip()) and text_language(said) != qlang
            cand = [w for w in dict.fromkeys(ws[:60]) if w in pv]
            if not cand:
                continue
            mat = np.vstack([pv[w] for w in cand])
            cand_lang = ["zh" if has_cjk(w) else "en" for w in cand]
            for t in need:
                if cov.get(t, 0.0) >= 1.0 or t not in qv:
                    continue
                sims = mat @ qv[t]  # each memory word against the bar of its own language
                near = [(w, lang) for w, lang, x in zip(cand, cand_lang, sims)
                        if float(x) >= bars[(t, lang)] and not contrasting(t, w)]
                if near:  # a word of the other language near the term both ways is its translation: the word
                    # itself could not have been said there (married / 结婚); a near word of the question's own
                    # language, or one near only one way ("ago" for 生日), is weaker evidence than the word itself
                    credit = self.config.translation_credit if any(
                        other and lang != qlang and w.casefold() in said and w.casefold() not in light and
                        self._translates(w, t, qlang) for w, lang in near) \
                        else self.config.semantic_credit
                    cov[t] = max(cov.get(t, 0.0), credit)

    def _translates(self, word: str, term: str, term_lang: str) -> bool:
        """``word`` (a memory word of the other language, near the question ``term`` as a query) is near it the
        other way too: as a query its cosine to ``term`` reaches ``word``'s own bar in ``term_lang``
        (:meth:`_term_bar`); a translation is near both ways, a word merely related to the term one way only."""
        wv = self._vectors([word], query=True).get(word)
        tv = self._vectors([term], query=False).get(term)
        return wv is not None and tv is not None and float(tv @ wv) >= self._term_bar(word, wv, term_lang)


    def _compounds(self, q: QuestionInfo, stated: list[str], lexical: list[dict[str, float]]) -> None:
        """Coverage by translation of a compound: two adjacent heavy question terms that name one thing (手机套餐,
        "phone plan") are covered at ``semantic_credit`` by a memory said in the other language when the compound's
        query embedding is close to two adjacent words of what the memory states, read as one ("phone plan" for
        手机套餐), by the same relative bar as one word (:meth:`_term_bar`), and nearer them than either word of the
        compound alone is (旅行预算 is not covered by "grocery budget": 预算 alone is nearer it). One word of a
        compound rarely embeds near the other language's word for it (套餐~"plan" .82 against a bar of .85;
        手机套餐~"phone plan" .85 against .84).
        Relation words and names are no part of a compound (they have their own tests)."""
        text = q.text.lower()
        names = {n.lower() for n in q.names + q.places}
        heavy = [t if w >= 1.0 and t != DATE_TERM and t not in names and kin_base(t) is None else None
                 for t, w in q.terms]
        pairs = [(a, b, a + b if has_cjk(a) else f"{a} {b}") for a, b in zip(heavy, heavy[1:])
                 if a and b and has_cjk(a) == has_cjk(b)]
        pairs = [(a, b, c) for a, b, c in pairs if c in text]
        if not pairs:
            return
        qlang = "zh" if has_cjk(pairs[0][0]) else "en"
        todo = []
        for i, (st, cov) in enumerate(zip(stated, lexical)):
            if not st.strip() or text_language(st) == qlang:
                continue
            ws = [w for w in query_terms(st)[:40] if has_cjk(w) != (qlang == "zh")]  # its words in its language
            grams = [x + y if has_cjk(x) else f"{x} {y}" for x, y in zip(ws, ws[1:])]
            for a, b, c in pairs:
                if grams and min(cov.get(a, 0.0), cov.get(b, 0.0)) < self.config.semantic_credit:
                    todo.append((i, a, b, c, grams))
        if not todo:
            return
        qv = self._vectors(sorted({x for _, a, b, c, _ in todo for x in (a, b, c)}), query=True)
        pv = self._vectors(sorted({g for *_, grams in todo for g in grams}), query=False)
        for i, a, b, c, grams in todo:
            if c not in qv:
                continue
            bar = self._term_bar(c, qv[c], "en" if qlang == "zh" else "zh")
            # the compound's translation is nearer the two words than either word alone is (旅行预算 is no
            # "grocery budget": 预算 alone is nearer it; 买菜预算 is)
            if any(g in pv and (x := float(pv[g] @ qv[c])) >= bar and
                   all(x > float(pv[g] @ qv[p]) for p in (a, b) if p in qv) for g in grams):
                cov = lexical[i]
                cov[a] = max(cov.get(a, 0.0), self.config.semantic_credit)
                cov[b] = max(cov.get(b, 0.0), self.config.semantic_credit)


def names_the_asked(question: str | QuestionInfo, memory: Any) -> bool:
    """``memory`` holds the kind of value ``question`` asks for (the answer-type gates of :func:`_heavy_ok`: a
    number for "how much / 多少", a name for a name question, a value of the shape asked: :mod:`.value_shapes`),
    whatever its words: a memory found by meaning, not by
    words (:mod:`.claim_reading`), must still answer in kind ("What's my dog's name?" is not answered by "I'm in
    Austin.")."""
    q = analyze_question(question) if isinstance(question, str) else question  # (read once for many memories)
    stated = memory.text
    if not holds_asked_shape(q.shapes, memory):  # "What is my email?" is not answered by a postal address
        return False
    if q.wants_name and not states_name(stated, {w.lower() for w in re.findall(r"[A-Za-z']+", q.text)}):
        return False
    return not (q.wants_number and not _NUMBER.search(stated))


def select(scored: list[Scored], config: AnswerConfig, min_coverage: float | None = None,
           terms: list[tuple[str, float]] | None = None) -> list[Scored]:
    """The citations: supporting hits, best coverage first (search rank breaks ties), within ``second_gap`` of
    the best, then supporting hits of the same exchange (:attr:`Scored.group`) as one of those, at most
    ``max_citations``. Empty = abstain. ``terms``: the question's weighted key terms
    (:attr:`QuestionInfo.terms`); with them, when no hit passes alone, the best pair (:func:`select_pair`).
    With ``config.person_swap``, abstains when another person's own statement answers better (:func:`swapped`)."""
    tau = config.min_coverage if min_coverage is None else min_coverage
    good = [s for s in scored if s.ok and s.coverage >= tau - 1e-9]
    if not good:
        pair = select_pair(scored, terms, tau, config.pair_min) if terms else []
        return [] if config.person_swap and swapped(pair, scored) else pair
    if config.person_swap and swapped(good, scored):
        return []
    good.sort(key=lambda s: (-round(s.coverage, 6), s.index))
    top = good[0].coverage
    chosen = [s for s in good if s.coverage >= top - config.second_gap - 1e-9][: config.max_citations]
    if len(chosen) < config.max_citations:
        # a supporting memory of the same exchange as a citation continues it ("I finished my screenplay" … "Now
        # I'm gonna submit it to film festivals"): cited too, even below the second-citation bar
        groups = {s.group for s in chosen if s.group}
        mates = [s for s in good if s not in chosen and s.group in groups]
        chosen += mates[: config.max_citations - len(chosen)]
    return chosen


def swapped(candidates: list[Scored], scored: list[Scored]) -> bool:
    """The person-swap check: another person's own statement (:attr:`Scored.other_claim`) covers the question
    better than every candidate about the subject does, so the event is that person's, not the subject's
    ("What did Caroline realize after her charity race?": Melanie ran the race, and Caroline's "It made me realize
    how important a support system is" only echoes the words). A tie keeps the candidates."""
    if not candidates:
        return False
    rival = max((c for s in scored if (c := s.other_claim) is not None), default=None)
    return rival is not None and rival > max(s.coverage for s in candidates) + 1e-9


def select_pair(scored: list[Scored], terms: list[tuple[str, float]], tau: float, pair_min: float) -> list[Scored]:
    """Two supporting hits that each cover ≥ ``pair_min`` and together cover ≥ ``tau`` (per term the better of
    the two), each adding a term the other lacks; the best union wins (then the larger sum, then search rank).
    Returns ``[]`` or the pair, higher coverage first."""
    total = sum(w for _, w in terms)
    cand = [s for s in scored if s.ok and s.coverage >= pair_min - 1e-9]
    if not total or len(cand) < 2:
        return []
    best: tuple[tuple[float, float, int], list[Scored]] | None = None
    for i, a in enumerate(cand):
        for b in cand[i + 1:]:
            union = sum(w * max(a.covered.get(t, 0.0), b.covered.get(t, 0.0)) for t, w in terms) / total
            if union < tau - 1e-9 or union <= max(a.coverage, b.coverage) + 1e-9:
                continue
            key = (round(union, 6), round(a.coverage + b.coverage, 6), -(a.index + b.index))
            if best is None or key > best[0]:
                best = (key, sorted([a, b], key=lambda s: (-s.coverage, s.index)))
    return best[1] if best else []
