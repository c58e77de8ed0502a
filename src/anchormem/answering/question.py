"""The question as the evidence test reads it (:func:`analyze_question`): its named subject and further names, its
weighted key terms (question words and pronouns dropped; light words such as "name", "time", 名字 weigh less; one
concept of the paraphrase lexicon counts once), a named date as one key term, and whether it asks for an amount or
a name. The bilingual paraphrase groups (:func:`paraphrase_groups`: ``data/lang/<lang>/answers.json``
``paraphrases``, plus one group per relation) live here too: the question's terms and the memory's words are
matched through them (:mod:`.evidence`), and search expands a query across languages with them
(:mod:`anchormem.retrieval.rewrite`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..facts.keys import kin_groups, kin_narrower, light_verbs
from ..facts.places import known_place
from ..text.tokenize import has_cjk, query_terms, stem
from .answer_types import asks_name
from .value_shapes import asked_shapes
from .question_dates import question_date, said_word
from .tense import present_markers

__all__ = ["QuestionInfo", "DATE_TERM", "analyze_question", "paraphrase_groups", "syn_group", "glued_parts"]


# ------------------------------------------------------------------------------------------- question analysis
# a capitalised name; in Chinese text it touches the characters around it ("Caroline的狗"): no \b there
_ASKER = re.compile(r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b")  # a question about the asker ("I", not "i")
_NAME = re.compile(r"(?<![A-Za-z])([A-Z][a-zA-Z\-]+)(?:'s|’s)?(?![A-Za-z])")
_IN_PHRASE = re.compile(r"[A-Z][a-zA-Z\-]+(?:'s|’s)?\s+[A-Z]")


@lru_cache(maxsize=1)
def _we_words() -> frozenset[str]:
    """First-person plural words (``we_words`` of ``data/lang/<lang>/answers.json``: "we", "our", 我们, 我家)."""
    from .. import langdata

    return frozenset(w.casefold() for w in langdata.words("answers", "we_words"))


@lru_cache(maxsize=1)
def _we_asker() -> re.Pattern[str]:
    """A question about the asker's household: one of :func:`_we_words` (English as a word, Chinese anywhere)."""
    parts = [re.escape(w) if has_cjk(w) else rf"\b{re.escape(w)}\b" for w in sorted(_we_words(), key=len, reverse=True)]
    return re.compile("|".join(parts) or "(?!)", re.I)


def _kin(*relations: str) -> set[str]:
    """The words of ``relations`` (canonical, :func:`~anchormem.facts.keys.kin_groups`) and of the narrower ones
    (:func:`~anchormem.facts.keys.kin_narrower`): ``_kin("brother")`` = {"brother", 哥哥, 弟弟}."""
    return {w for r in relations for w in (r, *kin_groups().get(r, ()), *kin_narrower().get(r, ()))}


# A small bilingual paraphrase lexicon: words in one group answer for each other. Only true paraphrases and
# translations (never sibling concepts such as dog/cat): the embedding check is there for the open vocabulary. The
# groups are language data (``data/lang/<lang>/answers.json`` ``paraphrases``, merged by id over languages), plus
# one group per relation (:func:`~anchormem.facts.keys.kin_groups`). A relation word is covered by its own relation
# only (:func:`_kin_covered`; "husband" is in the "married" group, but no wife), the relation groups here serve the
# search's cross-language expansion (:mod:`anchormem.retrieval.rewrite`).
@lru_cache(maxsize=1)
def paraphrase_groups() -> tuple[tuple[frozenset[str], ...], dict[str, int]]:
    """(the paraphrase groups, word -> index of its group). Loaded on first use; a word is in one group."""
    from ..langdata import LANGUAGES, load

    by_id: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        for gid, ws in (load("answers", lang).get("paraphrases") or {}).items():
            by_id.setdefault(gid, set()).update(ws)
    by_id.setdefault("married", set()).update(_kin("wife", "husband"))
    groups = [frozenset(g) for g in by_id.values()]
    groups += [frozenset(_kin(r)) for r in kin_groups() if r not in ("wife", "husband")]
    groups += [frozenset(_kin("sister")), frozenset(_kin("brother"))]
    index: dict[str, int] = {}
    for i, g in enumerate(groups):
        for w in g:
            index.setdefault(w, i)
    return tuple(groups), index


@lru_cache(maxsize=1)
def _question_words() -> dict[str, frozenset[str]]:
    """The word lists of question analysis (``_doc_question_words`` of data/lang/en/answers.json), all languages:
    ``question_words`` (never a key term), ``light_terms`` (a key term of low weight; ``light_stems``: the English
    ones' stems, for plurals and inflections: "types", "places"), ``kind_stems`` (the stems of ``kind_nouns``: the kind
    of answer, "What breed is my dog?") and ``question_not_names`` (capitalised words that are no name)."""
    from .. import langdata

    light = frozenset(langdata.words("answers", "light_terms"))
    return {"question_words": frozenset(langdata.words("answers", "question_words")), "light_terms": light,
            "light_stems": frozenset(stem(w) for w in light if w.isascii()),
            "kind_stems": frozenset(stem(w) for w in langdata.words("answers", "kind_nouns")),
            "question_not_names": frozenset(langdata.words("answers", "question_not_names"))}


@lru_cache(maxsize=1)
def _owner_data() -> tuple[frozenset[str], tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """(owner words, the words after which one is someone else, frame-noun stems, determiners before an owner
    word): ``owner_words``, ``owner_not_after``, ``frame_nouns`` and ``owner_determiners`` of
    data/lang/*/answers.json, read once."""
    from .. import langdata

    return (frozenset(w.casefold() for w in langdata.words("answers", "owner_words")),
            tuple(w.casefold() for w in langdata.words("answers", "owner_not_after")),
            frozenset(stem(w.casefold()) for w in langdata.words("answers", "frame_nouns")),
            langdata.words("answers", "owner_determiners"))


def _owner_said(question: str, word: str) -> bool:
    """``word`` (an owner word) names the memory's owner in ``question``: not after a possessive of someone's
    ("my customer Tom", 我的客户)."""
    q = question.casefold()
    not_after = _owner_data()[1]
    for m in re.finditer(re.escape(word), q):
        before = q[:m.start()].rstrip()
        if has_cjk(word) and _compound_head(before):
            continue  # 网易云会员, vip会员: a membership, not the member
        if not any(before.endswith(w) and (has_cjk(w) or not before[:-len(w)][-1:].isalnum()) for w in not_after):
            return True
    return False


def _compound_head(before: str) -> bool:
    """A Chinese owner word right after a noun is the head of a compound (网易云会员: a kind of membership): what
    precedes it is a letter, a digit or a Chinese character that is no determiner or question opener
    (``owner_determiners`` of ``answers.json``: 这位客户, 请问用户)."""
    if not before or not before[-1].isalnum():
        return False
    return not any(before.endswith(w) for w in _owner_data()[3]) and \
        not any(before.endswith(w) for w in _owner_data()[1])


def _syn_group(word: str) -> int | None:
    index = paraphrase_groups()[1]
    g = index.get(word)
    if g is None:
        g = index.get(stem(word))
    return g


@dataclass
class QuestionInfo:
    """``names``: capitalised names (first = subject); ``terms``: (term, weight) key terms, names excluded;
    ``subjects``: the subject and the names joined to it by "and" ("How do Jon and Gina both like to destress?"):
    a memory about any of them is about the subject. ``date``: the (year, month, day) the question names ("on 3 June,
    2023", "in August 2023", "2023年5月"; year/day None when not given) and ``date_terms`` the key terms that spell
    it: a memory covers them when it was said, or its event happened, at that date (:func:`date_matches`).
    ``places``: in a question about the asker ("Where did I live before Vancouver?"), the known places it names: no
    subject (the asker is), key terms matched as names only. ``shapes``: the value shapes it asks for ("email",
    "phone", "address", "self_name": :func:`~.value_shapes.asked_shapes`): only a memory holding one answers it."""

    text: str
    zh: bool
    names: list[str]
    terms: list[tuple[str, float]]
    wants_number: bool = False
    subjects: list[str] = field(default_factory=list)
    date: tuple[int | None, int, int | None] | None = None
    date_terms: frozenset[str] = frozenset()
    wants_name: bool = False  # "What is my sister's name?": only a memory that states a name answers it
    past: bool = False  # asked about the past (its past words already taken out: facts.claims.without_past_words)
    places: list[str] = field(default_factory=list)
    shapes: frozenset[str] = frozenset()


DATE_TERM = "@date"  # the one key term that stands for a date the question names
# a question about a job in other words: "What do I do?", "What does my brother do for a living?", 我是做什么的？,
# 我弟弟做什么工作？, 他是干什么的？ (its words "do", "living", 做, 干什么 then give way to the one term "occupation")
_JOB_Q = re.compile(r"^\s*what\s+(?:do|does)\s+.{1,40}?\s+do(?:\s+for\s+(?:a\s+)?(?:living|work|job))?\s*[?？]*\s*$|"
                    r"(?:做|干)什么(?:的|工作|职业)|从事(?:什么|哪)", re.I)
_JOB_Q_WORDS = frozenset("do living 做 干什么 干 从事".split())
_JOINED = re.compile(r"([A-Z][a-zA-Z\-]+)(?:'s|’s)?\s+(?:and|&)\s+(?:(?:his|her|their)\s+)?([A-Z][a-zA-Z\-]+)")


@lru_cache(maxsize=1)
def _group_words_zh() -> tuple[str, ...]:
    """The Chinese words of the paraphrase groups, longest first."""
    return tuple(sorted({w for g in paraphrase_groups()[0] for w in g if has_cjk(w)}, key=lambda w: (-len(w), w)))


_GLUE = frozenset("我你的了吗呢什么哪谁几多在是啥")  # question words and particles a glued token may hold


@lru_cache(maxsize=4096)
def glued_parts(token: str) -> tuple[str, ...]:
    """A Chinese token jieba glued from paraphrase-group words (and question words or particles) as those words:
    狗叫 -> (狗, 叫), 猫叫 -> (猫, 叫); any other token as itself (房租, 名字: words of their own). A token that is
    itself a group word stays whole, and so does one holding a light verb (喝咖啡: :func:`~anchormem.facts.keys.
    light_verbs`, read as its object by the evidence test)."""
    if not has_cjk(token) or len(token) < 2 or _syn_group(token) is not None:
        return (token,)
    parts: list[str] = []
    i = 0
    while i < len(token):
        w = next((w for w in _group_words_zh() if token.startswith(w, i)), None)
        if w is not None:
            parts.append(w)
            i += len(w)
        elif token[i] in _GLUE:
            i += 1
        else:
            return (token,)
    if len(parts) < 2 or any(w in light_verbs() for w in parts):  # 喝咖啡 stays one term: its light verb adds nothing
        return (token,)
    return tuple(parts)


@lru_cache(maxsize=1)
def _asking_words() -> frozenset[str]:
    from .. import langdata

    return frozenset(w.casefold() for w in langdata.words("answers", "asking_words"))


@lru_cache(maxsize=1)
def _asking_rx() -> re.Pattern:
    """One pattern for the asking words: an English one as a word, a Chinese one anywhere."""
    words = sorted(_asking_words(), key=lambda w: (-len(w), w))
    return re.compile("|".join(re.escape(w) if has_cjk(w) else rf"\b{re.escape(w)}\b" for w in words))


def asks_about_asking(question: str) -> bool:
    """Whether ``question`` asks what the user asked ("What did I ask about returns?", 我问过能不能退水壶吗？): one of
    ``asking_words`` (data/lang/<lang>/answers.json) as a word (English) or anywhere (Chinese)."""
    return bool(_asking_rx().search(question.casefold()))


def _periods_joined(tokens: list[str]) -> list[str]:
    """``tokens`` with two adjacent Chinese ones that together name a period (每个 + 月: ``periods`` of
    ``values.json``, :func:`~.amounts.asked_period`) joined into one term: 每个月 asks "per month", which an amount
    per month covers, while 每个 alone asks nothing and 月 alone is no period."""
    from .amounts import asked_period

    out: list[str] = []
    for t in tokens:
        if out and has_cjk(t) and has_cjk(out[-1]) and asked_period(out[-1] + t) and not asked_period(t):
            out[-1] += t
        else:
            out.append(t)
    return out


def analyze_question(question: str) -> QuestionInfo:
    """The question's names, subjects, weighted key terms (a named date as the one term :data:`DATE_TERM`) and
    whether it asks for an amount (:class:`QuestionInfo`). Never raises; an empty question has no terms."""
    zh, original = has_cjk(question), question
    qdate, _dterms, span = question_date(question)
    if span is not None:  # the date is one key term, matched against the memory's dates (not its words)
        question = question[:span[0]] + " " + question[span[1]:]
    # "now", "at the moment", "nowadays", 目前: the question's present tense (.tense), light terms (a memory that says
    # "now" states what holds now, one that does not may still)
    present = {w for m in present_markers().finditer(question) for w in query_terms(m.group(0))}
    qw = _question_words()
    names: list[str] = []
    for m in _NAME.finditer(question):
        w = m.group(1)
        if w in qw["question_not_names"] or w.lower() in qw["question_words"] or w.isupper():
            continue
        if w not in names:
            names.append(w)
    places: list[str] = []
    if names and (_ASKER.search(question) or _we_asker().search(question)):  # "Where did I live before
        # Vancouver?", "Which Tokyo neighborhood do we live in?": the asker (or their household) is the subject,
        places = [n for n in names if known_place(n)]  # the place a name to match (facts.places)
        names = [n for n in names if n not in places]
    subjects = names[:1]
    if names:
        for m in _JOINED.finditer(question):  # "Jon and Gina": both are the subject
            a, b = m.group(1), m.group(2)
            if (a in subjects and b in names) or (b in subjects and a in names):
                subjects += [n for n in (a, b) if n not in subjects]
    lower_names = {n.lower() for n in names + places}
    terms: list[tuple[str, float]] = []
    seen: set[str] = set()
    for t in _periods_joined([p for w in query_terms(question) for p in glued_parts(w)]):
        t = t.replace("’", "'")
        if t.endswith("'s"):
            t = t[:-2]
        if t in _we_words():
            continue  # 我家, 我们家: "our", the asker's household (the asker is no key term)
        if has_cjk(t) and len(t) > 1 and t[0] in "我你" and t not in ("我们",):
            t = t[1:]  # jieba glues the pronoun on: 我养 → 养, 我会 → 会
        if not t or t in qw["question_words"] or t in lower_names or t in seen or (qdate is not None and said_word(t)):
            continue
        if t in _owner_data()[0] and _owner_said(question, t):
            continue  # "Does this customer have any allergies?": the customer is the asker (answers.json)
        if t.casefold() in _asking_words():
            continue  # "What did I ask about returns?": what was asked is the question's subject, not a key term
        seen.add(t)
        g = _syn_group(t)
        if g is not None and any(_syn_group(u) == g for u, _ in terms):
            continue  # one concept counts once ("叫什么名字")
        light = t in present or t in qw["light_terms"] or stem(t) in qw["light_terms"] or stem(t) in qw["light_stems"] or \
            stem(t) in qw["kind_stems"] or \
            stem(t) in _owner_data()[2]
        terms.append((t, 0.35 if light else 1.0))
    solo = {m.group(1) for m in _NAME.finditer(question) if not _IN_PHRASE.match(question, m.start(1)) and
            not re.search(r"[A-Z][a-zA-Z\-]+(?:'s|’s)?\s+$", question[:m.start(1)])}
    # further names are key terms, matched as names only ("Barcelona" is not "Rome"); a word of a multi-word name
    for n in [n for n in names[1:] if n not in subjects] + places:
        if n in solo and n.lower() not in seen:  # ("Steady Income Fund") is not one of its own
            seen.add(n.lower())
            terms.append((n.lower(), 1.0))
    if _JOB_Q.search(present_markers().sub(" ", question)):  # "What do I do (now)?", 我是做什么的？: about a job
        terms = [(t, w) for t, w in terms if t not in _JOB_Q_WORDS]
        if not any(_syn_group(t) == _syn_group("job") for t, _ in terms):
            terms.append(("职业" if zh else "occupation", 1.0))
    # a stated amount; not "how many" / 几, which LoCoMo answers by counting several memories that state no number
    wants = bool(re.search(r"\bhow (?:much|old)\b|多少", question, re.I))
    if qdate is not None:
        terms.append((DATE_TERM, 1.0))
    return QuestionInfo(original, zh, names, terms, wants, subjects, qdate,
                        frozenset({DATE_TERM}) if qdate is not None else frozenset(), asks_name(question),
                        places=places, shapes=asked_shapes(original))


syn_group = _syn_group  # the paraphrase group of a word (stem too), or None
