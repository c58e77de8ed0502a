"""The evidence test: does a retrieved memory actually answer the question?

A memory *supports* a question when all of these hold (see :class:`EvidenceScorer`):

1. **Subject.** The question's named subject (the first capitalised name that is not a question word, e.g.
   "Melanie" in "When did Melanie go camping?") is the memory's speaker or is mentioned in it (a nickname
   prefix such as "Mel" counts). Questions about "I/my" have no named subject: every memory in the scope is
   the user's. Further names in the question are key terms.
2. **Key-term coverage** ≥ ``min_coverage`` (the main threshold). Key terms are the question's content words
   after dropping question words and pronouns (English and Chinese). Each term is covered by the memory
   lexically (same stem; for Chinese a substring, or a share of its characters), through a small bilingual
   paraphrase lexicon (live/move/住/搬, work/job/工作...), or, with a calibrated embedder, when its query
   embedding is close to one of the memory's words (cosine ≥ ``word_sim``: "dog"~"retriever" passes,
   "dog"~"cat" does not). Light terms ("name", "time", "go", "名字"...) weigh less, and at least one heavy
   term must be covered, so "What is my dog's name?" never cites "a rescue cat named Pixel".
   A "how much / how old / 多少" question needs a number in the memory ("how many" does not: it is often answered
   by counting several memories).
3. **Dense cosine** ≥ the embedder's calibrated floor and within ``dense_margin`` of the best candidate (a fact
   whose slot the question names, e.g. ``employer`` for "where does … work", needs no floor).

What counts as the memory's words (:func:`stated_text`): only sentences that state something (a question in a
memory is no evidence); when the question's subject is the memory's speaker, only sentences about the speaker (one
that says "you" or addresses someone by name without "I/my/we" is about the addressee). Further names in the
question match as names only, never by embedding ("Barcelona" is not "Rome"), and contrasting words never cover
each other by embedding (grandma / grandpa, mom / dad, Monday / Friday: :data:`_CONTRASTS`).

A term covered only by embedding similarity counts ``semantic_credit`` (0.6), a lexical or lexicon match counts 1:
a near word is weaker evidence than the word itself ("charity race" is not covered as well by "a support system").

Citations are the supporting memories whose coverage is within ``second_gap`` of the best one (a second
citation clears the same bar, it is not just next in rank), at most ``max_citations``. When no single memory
passes, two memories that each cover at least ``pair_min`` and together (each term counted by the better of the
two) reach ``min_coverage`` are cited together (multi-hop: "What do Jon and Gina both have in common?").
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from ..facts.keys import LIGHT_VERBS
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk, query_terms
from ..types import Hit

__all__ = ["AnswerConfig", "EvidenceScorer", "QuestionInfo", "Scored", "analyze_question", "select",
           "select_pair", "profile_for", "PROFILES"]


class AnswerConfig(BaseModel):
    """Thresholds of the evidence test.

    ``min_coverage``: share of the question's (weighted) key terms the memory must cover (main threshold).
    ``dense_floor`` / ``word_sim``: None = the embedder's calibrated profile (:data:`PROFILES`).
    ``dense_margin``: a cited memory's cosine is at most this far below the best candidate's.
    ``word_margin``: a term matches a memory word by embedding when their cosine is ≥ ``word_sim`` and ≥ the
    term's mean cosine to a fixed set of unrelated background words + ``word_margin`` (single-word cosines sit
    high and differ per term and language, so the bar is relative).
    ``second_gap``: further citations need coverage ≥ best coverage − second_gap (and ≥ min_coverage).
    ``max_citations``: 1-3 memories are quoted.
    ``semantic_credit``: how much a key term covered only by embedding similarity counts (lexical match: 1).
    ``pair_min``: when no memory passes alone, two memories each covering ≥ ``pair_min`` whose union reaches
    ``min_coverage`` are cited together (1.0 disables pairs).
    """

    min_coverage: float = Field(0.6, ge=0, le=1)
    dense_floor: float | None = Field(None, ge=-1, le=1)
    dense_margin: float = Field(0.08, ge=0, le=2)
    word_sim: float | None = Field(None, ge=-1, le=1)
    word_margin: float = Field(0.05, ge=0, le=1)
    second_gap: float = Field(0.2, ge=0, le=1)
    max_citations: int = Field(3, ge=1, le=5)
    semantic_credit: float = Field(0.6, ge=0.5, le=1)
    pair_min: float = Field(0.5, ge=0, le=1)


#: Per-embedder calibration: (dense floor, word-similarity threshold). Measured with multilingual-e5-small:
#: unrelated memories reach cosine 0.75-0.82 (so the floor only removes the clearly unrelated; coverage does the
#: rest); single-word query→passage cosines: dog~retriever .868, work~job .884, dog~cat .818, 狗~猫 .849,
#: guitar~piano .837, against a background mean of .80-.85 per term (so the relative bar, mean + 0.05, does most
#: of the work: dog needs .853, 工作 needs .895). Embedders without a profile get no floor and no word similarity (lexical terms only).
PROFILES: dict[str, tuple[float | None, float | None]] = {
    "multilingual-e5-small": (0.78, 0.84),
    "hash": (None, None),
}


def profile_for(embedder_name: str | None) -> tuple[float | None, float | None]:
    name = (embedder_name or "").lower()
    for key, prof in PROFILES.items():
        if name.startswith(key):
            return prof
    return (None, None)


# ------------------------------------------------------------------------------------------- question analysis
_QWORDS = frozenset("""what what's whats when where who whom whose which why how did does do is are was were has
    have had ever can could would should will shall may might much many long often usually user user's i me my
    mine myself you your we our us anything something tell know remember please about still currently anymore 什么 什么时候 时候 哪里 哪儿
    哪 哪个 哪些 哪家 哪年 哪天 几 几个 几点 谁 为什么 怎么 怎样 怎么样 如何 多少 多 多久 是否 有没有 吗 呢 是不是 会不会
    能不能 还 我 我的 你 用户 请问 记得 告诉 知道 曾经 一般 通常 是 能 会 了""".split())
# light terms: generic nouns/verbs that rarely identify what the question is about
_LIGHT = frozenset("""name names named call called time times day days date year years kind type sort thing things
    stuff go goes going went gone get gets got take took make made do doing did feel felt think thought new old
    first last recent recently ever like likes liked want wants wanted plan plans planning planned happen happened
    favorite favourite recently currently now today lately way ways part use used city cities country countries
    place places town state location area 城市 国家 地方 地点 名字 叫 名 时间 东西 事情 去 做 想
    喜欢 结果 情况 最近 现在 平时 打算 计划 开始 新 旧 第一""".split())
_NAME = re.compile(r"\b([A-Z][a-zA-Z\-]+)(?:'s|’s)?\b")
_IN_PHRASE = re.compile(r"[A-Z][a-zA-Z\-]+(?:'s|’s)?\s+[A-Z]")
_NOT_NAME = frozenset("""I I'm What When Where Who Whom Whose Which Why How Did Does Do Is Are Was Were Has Have Had
    Can Could Would Should Will May Might Am The A An In On At For Of And Or But If My Your Our Their His Her Its
    Tell Please Any Some Ever User Mr Mrs Ms Dr""".split())

# A small bilingual paraphrase lexicon: words in one group answer for each other. Only true paraphrases (never
# sibling concepts such as dog/cat): the embedding check is there for the open vocabulary.
_SYNONYMS: list[set[str]] = [
    {"live", "liv", "lives", "living", "reside", "resid", "home", "hom", "move", "mov", "moved", "relocat",
     "apartment", "flat", "hous", "住", "住在", "搬", "搬到", "搬家", "家", "租", "定居", "公寓"},
    {"work", "job", "employ", "employer", "career", "company", "office", "position", "role", "hir", "hired",
     "工作", "上班", "公司", "职业", "入职", "单位"},
    {"cost", "price", "pric", "pay", "paid", "spend", "spent", "euro", "dollar", "buck", "money", "钱", "花",
     "元", "块", "费", "费用", "价格"},
    {"age", "ag", "old", "birthday", "born", "岁", "年龄", "年纪", "生日"},
    {"married", "marri", "wife", "husband", "spous", "wedding", "结婚", "老婆", "老公", "妻子", "丈夫"},
    {"study", "studi", "school", "schol", "university", "universit", "college", "colleg", "major", "degree",
     "学", "学习", "大学", "专业", "读书"},
    {"allerg", "allergic", "allergy", "过敏"},
    {"name", "nam", "named", "call", "called", "叫", "名字", "名叫", "叫做"},
    {"daughter", "女儿"}, {"son", "儿子"}, {"sister", "姐姐", "妹妹"}, {"brother", "哥哥", "弟弟"},
    {"dog", "puppy", "狗", "小狗"}, {"cat", "kitten", "猫", "小猫"},
    {"like", "lik", "likes", "love", "lov", "enjoy", "fan", "prefer", "favourite", "favorite", "喜欢", "爱", "热爱",
     "喜爱", "偏爱"},
    {"diet", "vegetarian", "vegan", "pescatarian", "meat", "素食", "吃素", "素食者", "吃肉", "肉"},
    {"coffee", "咖啡"}, {"tea", "茶"}, {"swim", "swimm", "游泳"}, {"run", "runn", "ran", "跑步", "跑"},
]
# words that embed close together but name different things: never a semantic match for each other
# ("grandpa" must not be covered by "grandma"); each row: the mutually exclusive groups of one contrast
_CONTRASTS: list[list[set[str]]] = [
    [{"grandma", "grandmother", "granny", "nana", "奶奶", "外婆", "姥姥"},
     {"grandpa", "grandfather", "granddad", "爷爷", "外公", "姥爷"}],
    [{"mom", "mother", "mum", "mommy", "妈妈", "母亲"}, {"dad", "father", "daddy", "爸爸", "父亲"}],
    [{"sister", "sis", "姐姐", "妹妹"}, {"brother", "bro", "哥哥", "弟弟"}],
    [{"daughter", "女儿"}, {"son", "儿子"}], [{"wife", "妻子", "老婆"}, {"husband", "丈夫", "老公"}],
    [{"aunt", "阿姨", "姑姑"}, {"uncle", "叔叔", "舅舅"}], [{"niece"}, {"nephew"}],
    [{"girlfriend", "女朋友"}, {"boyfriend", "男朋友"}], [{"girl", "女孩"}, {"boy", "男孩"}],
    [{"woman", "women"}, {"man", "men"}],
    [{"cat", "cats", "kitten", "猫"}, {"dog", "dogs", "puppy", "狗"}],
    [{w} for w in "monday tuesday wednesday thursday friday saturday sunday".split()],
    [{w} for w in "january february march april june july august september october november december".split()],
]
_CONTRAST_INDEX: dict[str, tuple[int, int]] = {w: (i, j) for i, row in enumerate(_CONTRASTS)
                                               for j, grp in enumerate(row) for w in grp}


def contrasting(a: str, b: str) -> bool:
    """``a`` and ``b`` name different members of one contrast (grandma / grandpa, Monday / Friday)."""
    ca, cb = _CONTRAST_INDEX.get(a.lower()), _CONTRAST_INDEX.get(b.lower())
    return ca is not None and cb is not None and ca[0] == cb[0] and ca[1] != cb[1]


_SYN_INDEX: dict[str, int] = {}
for _i, _g in enumerate(_SYNONYMS):
    for _w in _g:
        _SYN_INDEX.setdefault(_w, _i)

# unrelated everyday words: a term's mean cosine to these is its background level
_BACKGROUND = {
    "en": ("table window blue yesterday quickly happy music river computer paper green mountain cup friend "
           "weekend idea money morning street phone bag garden letter week chair movie light story dinner book"
           ).split(),
    "zh": "桌子 窗户 蓝色 昨天 快乐 音乐 河流 电脑 纸 绿色 山 杯子 朋友 周末 想法 早上 街道 手机 包 花园 信 星期 椅子 电影 灯 故事 晚饭 书".split(),
}

_NUMBER = re.compile(r"\d|[零一二两三四五六七八九十百千万]|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|"
                     r"eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|dozen)\b", re.I)


def stem(w: str) -> str:
    """Light English stemmer (name/named/names/naming meet; hike/hiked/hiking meet). CJK unchanged."""
    w = w.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if not w.isascii():
        return w
    for suf in ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "s", "ly"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)]
            break
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def _syn_group(word: str) -> int | None:
    g = _SYN_INDEX.get(word)
    if g is None:
        g = _SYN_INDEX.get(stem(word))
    return g


@dataclass
class QuestionInfo:
    """``names``: capitalised names (first = subject); ``terms``: (term, weight) key terms, names excluded."""

    text: str
    zh: bool
    names: list[str]
    terms: list[tuple[str, float]]
    wants_number: bool = False


def analyze_question(question: str) -> QuestionInfo:
    zh = has_cjk(question)
    names: list[str] = []
    for m in _NAME.finditer(question):
        w = m.group(1)
        if w in _NOT_NAME or w.lower() in _QWORDS or w.isupper():
            continue
        if w not in names:
            names.append(w)
    lower_names = {n.lower() for n in names}
    terms: list[tuple[str, float]] = []
    seen: set[str] = set()
    for t in query_terms(question):
        t = t.replace("’", "'")
        if t.endswith("'s"):
            t = t[:-2]
        if has_cjk(t) and len(t) > 1 and t[0] in "我你" and t not in ("我们",):
            t = t[1:]  # jieba glues the pronoun on: 我养 → 养, 我会 → 会
        if not t or t in _QWORDS or t in lower_names or t in seen:
            continue
        seen.add(t)
        g = _syn_group(t)
        if g is not None and any(_syn_group(u) == g for u, _ in terms):
            continue  # one concept counts once ("叫什么名字")
        terms.append((t, 0.35 if (t in _LIGHT or stem(t) in _LIGHT) else 1.0))
    solo = {m.group(1) for m in _NAME.finditer(question) if not _IN_PHRASE.match(question, m.start(1)) and
            not re.search(r"[A-Z][a-zA-Z\-]+(?:'s|’s)?\s+$", question[:m.start(1)])}
    for n in names[1:]:  # further names are key terms, matched as names only ("Barcelona" is not "Rome"); a word
        if n in solo and n.lower() not in seen:  # of a multi-word name ("Steady Income Fund") is not one of its own
            seen.add(n.lower())
            terms.append((n.lower(), 1.0))
    # a stated amount; not "how many" / 几, which LoCoMo answers by counting several memories that state no number
    wants = bool(re.search(r"\bhow (?:much|old)\b|多少", question, re.I))
    return QuestionInfo(question, zh, names, terms, wants)


# ------------------------------------------------------------------------------------------- scoring
@dataclass
class Scored:
    """The evidence features of one hit. ``ok`` = every gate except the coverage threshold passed."""

    index: int
    coverage: float
    subject_ok: bool
    heavy_ok: bool
    dense: float | None
    dense_ok: bool
    covered: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.subject_ok and self.heavy_ok and self.dense_ok

    def as_dict(self) -> dict[str, Any]:
        return {"coverage": round(self.coverage, 4), "subject_ok": self.subject_ok, "heavy_ok": self.heavy_ok,
                "dense_ok": self.dense_ok, "covered": self.covered}


def stated_text(text: str, *, about_speaker: bool = False) -> str:
    """The sentences of ``text`` that state something: questions ask, they are no evidence ("What motivated you to
    pursue counseling?" says nothing about who did). ``about_speaker``: only what the speaker says of themself or
    others, not of the person addressed (a sentence with "you" or a vocative name and no "I/my/we": "That charity
    race sounds great, Mel!" is not about the speaker's race)."""
    keep = []
    for sent in split_sentences(text):
        to_other = _SECOND_PERSON.search(sent) or _VOCATIVE.search(sent)  # "you…", "That sounds great, Mel!"
        if _ASKS.search(sent.strip()) or (about_speaker and to_other and not _FIRST_PERSON.search(sent)):
            continue
        keep.append(sent)
    return " ".join(keep)


_ASKS = re.compile(r"[?？]\W*$|[吗呢么]\W*$")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|we|our|us)\b|我", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|you've|you'll|yourself)\b|你", re.I)


def _speaker_is_subject(q: QuestionInfo, hit: Hit) -> bool:
    return bool(q.names) and bool(hit.memory.speaker) and _same_name(q.names[0], hit.memory.speaker or "")


def _memory_words(hit: Hit, stated: str) -> list[str]:
    m = hit.memory
    words = list(query_terms(stated))
    if m.speaker:
        words.extend(query_terms(m.speaker))
    return words + _slot_words(hit)


def _slot_words(hit: Hit) -> list[str]:
    """A fact's slot names what it is about ("employer" answers "where does … work"): its attribute's words."""
    f = hit.memory.fact
    if f is None:
        return []
    head, _, key = f.attribute.partition(":")
    words = [w for w in re.split(r"[_\s]+", head) + key.split() if w]
    if head in ("does", "likes"):  # the key dropped the light verb ("drink coffee" -> does:coffee, 吃辣 -> 辣)
        words.extend(sorted(LIGHT_VERBS))
    return words


def _slot_answers(heavy: list[str], hit: Hit) -> bool:
    """A heavy question term names the fact's slot (same stem or synonym group): typed evidence."""
    slot = _slot_words(hit)
    stems = {stem(w) for w in slot}
    groups = {_syn_group(w) for w in slot} - {None}
    return any(stem(t) in stems or _syn_group(t) in groups for t in heavy)


_GREETING = r"(?:hey|hi|hello|thanks|thank you|yo|yep|yeah|yes|wow|woah|oh|aw|aww|congrats|congratulations|sorry|" \
    r"bye|dear|ok|okay|great|nice|haha)"
_VOCATIVE = re.compile(rf"(?:^|[.!?]\s*|,\s*|\b{_GREETING}\s*,?\s*)([A-Z][a-zA-Z\-]+)\s*(?=[,!.?;:]|$)", re.I)


def _same_name(a: str, b: str) -> bool:
    """Same person: equal, or one is a nickname prefix (≥ 3 letters) of the other ("Mel" / "Melanie")."""
    a, b = a.lower(), b.lower()
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


def _name_in(name: str, hit: Hit) -> bool:
    """The person is the memory's speaker or is mentioned in it — as a third person: being addressed
    ("Thanks, Melanie!", "Hey Caroline,") does not make the memory about them."""
    m = hit.memory
    if m.speaker and _same_name(name, m.speaker):
        return True
    vocatives = {v.start(1) for v in _VOCATIVE.finditer(m.text)}
    return any(_same_name(name, w.group()) and w.start() not in vocatives
               for w in re.finditer(r"\b[A-Z][a-zA-Z\-]+", m.text))


class EvidenceScorer:
    """Scores hits against a question (thread-safe; caches word embeddings)."""

    def __init__(self, embedder: Any = None, config: AnswerConfig | None = None) -> None:
        self.embedder = embedder
        self.config = config or AnswerConfig()
        floor, wsim = profile_for(getattr(embedder, "name", None))
        self.dense_floor = self.config.dense_floor if self.config.dense_floor is not None else floor
        self.word_sim = self.config.word_sim if self.config.word_sim is not None else wsim
        self._bg: dict[str, np.ndarray] = {}
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

    def _term_bar(self, term: str, qv: np.ndarray) -> float:
        lang = "zh" if has_cjk(term) else "en"
        bg = self._bg.get(lang)
        if bg is None:
            bg = np.asarray(self.embedder.embed_documents(_BACKGROUND[lang]), dtype=np.float32)
            self._bg[lang] = bg
        return max(float(self.word_sim), float(np.mean(bg @ qv)) + self.config.word_margin)

    # one question ----------------------------------------------------------------------------------------
    def score(self, question: str | QuestionInfo, hits: list[Hit]) -> list[Scored]:
        q = analyze_question(question) if isinstance(question, str) else question
        stated = [stated_text(h.memory.text, about_speaker=_speaker_is_subject(q, h)) for h in hits]
        words = [_memory_words(h, st) for h, st in zip(hits, stated)]
        lexical = [self._lexical(q, h, ws, st) for h, ws, st in zip(hits, words, stated)]
        if self.word_sim is not None and self.embedder is not None:
            self._semantic(q, words, lexical)
        denses = [h.explain.get("dense") for h in hits]
        best = max((d for d in denses if d is not None), default=None)
        out = []
        total = sum(w for _, w in q.terms)
        heavy = [t for t, w in q.terms if w >= 1.0]
        for i, (h, cov) in enumerate(zip(hits, lexical)):
            subject_ok = not q.names or _name_in(q.names[0], h)
            coverage = (sum(w * cov.get(t, 0.0) for t, w in q.terms) / total) if total else 1.0
            heavy_ok = not heavy or any(cov.get(t, 0.0) >= 0.5 for t in heavy)
            if q.wants_number and not _NUMBER.search(stated[i]):  # "how many / 多少" is answered by a number
                heavy_ok = False
            d = denses[i]
            if d is None:
                dense_ok = coverage >= 0.999  # found by keywords only: every key term must be there
            else:
                # a fact whose slot the question names needs no calibrated cosine floor (typed evidence)
                floor_ok = self.dense_floor is None or d >= self.dense_floor or _slot_answers(heavy, h)
                dense_ok = floor_ok and (best is None or d >= best - self.config.dense_margin)
            out.append(Scored(i, coverage, subject_ok, heavy_ok, d, dense_ok, {t: round(c, 3) for t, c in
                                                                                   cov.items()}))
        return out

    def _lexical(self, q: QuestionInfo, hit: Hit, words: list[str], stated: str) -> dict[str, float]:
        text = stated.lower()
        stems = {stem(w) for w in words}
        groups = {g for w in words if (g := _syn_group(w)) is not None}
        for i, grp in enumerate(_SYNONYMS):  # CJK synonyms can hide inside longer jieba words
            if any(has_cjk(s) and len(s) >= 2 and s in text for s in grp):
                groups.add(i)
        extra_names = {n.lower() for n in q.names[1:]}
        cov: dict[str, float] = {}
        for t, _w in q.terms:
            c = 0.0
            if has_cjk(t):
                if len(t) == 1:  # one character: a word of its own or the head (last character) of a compound
                    c = 1.0 if any(w.endswith(t) for w in words) else 0.0
                elif t in text:
                    c = 1.0
                else:
                    chars = [ch for ch in t if has_cjk(ch)]
                    c = 0.8 * sum(ch in text for ch in chars) / len(chars) if len(chars) > 1 else 0.0
            elif stem(t) in stems or (len(t) >= 4 and re.search(rf"\b{re.escape(t)}", text)):
                c = 1.0
            if c < 1.0 and _syn_group(t) in groups:
                c = 1.0
            if c < 1.0 and t in extra_names and _name_in(t.capitalize(), hit):
                c = 1.0
            cov[t] = c
        return cov

    def _semantic(self, q: QuestionInfo, words: list[list[str]], lexical: list[dict[str, float]]) -> None:
        names = {n.lower() for n in q.names}
        need = [t for t, _ in q.terms if t not in names and any(cov.get(t, 0.0) < 1.0 for cov in lexical)]
        if not need:
            return
        mem_words = sorted({w for ws in words for w in ws[:60] if len(w) > 1 or has_cjk(w)})
        if not mem_words:
            return
        qv = self._vectors(need, query=True)
        pv = self._vectors(mem_words, query=False)
        bars = {t: self._term_bar(t, v) for t, v in qv.items()}
        for ws, cov in zip(words, lexical):
            cand = [w for w in dict.fromkeys(ws[:60]) if w in pv]
            if not cand:
                continue
            mat = np.vstack([pv[w] for w in cand])
            for t in need:
                if cov.get(t, 0.0) >= 1.0 or t not in qv:
                    continue
                sims = mat @ qv[t]
                sim = max((float(x) for w, x in zip(cand, sims) if not contrasting(t, w)), default=-1.0)
                if sim >= bars[t]:
                    cov[t] = max(cov.get(t, 0.0), self.config.semantic_credit)


def select(scored: list[Scored], config: AnswerConfig, min_coverage: float | None = None,
           terms: list[tuple[str, float]] | None = None) -> list[Scored]:
    """The citations: supporting hits, best coverage first (search rank breaks ties), within ``second_gap`` of
    the best, at most ``max_citations``. Empty = abstain. ``terms``: the question's weighted key terms
    (:attr:`QuestionInfo.terms`); with them, when no hit passes alone, the best pair (:func:`select_pair`)."""
    tau = config.min_coverage if min_coverage is None else min_coverage
    good = [s for s in scored if s.ok and s.coverage >= tau - 1e-9]
    if not good:
        return select_pair(scored, terms, tau, config.pair_min) if terms else []
    good.sort(key=lambda s: (-round(s.coverage, 6), s.index))
    top = good[0].coverage
    return [s for s in good if s.coverage >= top - config.second_gap - 1e-9][: config.max_citations]


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
