"""The job reader: typed job and employer values, and the clauses that start, change or end them.

Job changes are said in more ways than any list of change patterns holds ("handed in my badge", "Left the bookshop
and started as a cataloguer at the university library today!", 跳槽了，现在在瑞幸当区域经理, "chef bumped me up to sous
chef", 被优化了, "freelancing for now"). The ways of saying *what a job title is* and *what an organisation is* are
fewer, and so are the words saying that a job began or ended. This module reads those, per clause of a user turn:

1. **Gates** (shared with the rules): a question, a hypothetical, plan or modal, reported speech, a clause set in the
   past or on a trip (:func:`~anchormem.facts.stance.scene`), someone else as the subject (my brother, 我老公, he)
   state nothing of the speaker's, unless the speaker is the object ("they let me go", 店长提拔我当…, "me included").
2. **Typed values**: a **title** is a noun phrase whose head is an occupation noun (``heads`` of
   ``data/lang/en/jobs.json``, built from Faker's job list, or an agentive noun in a role frame: "started as a
   cataloguer"), or in Chinese a phrase ending in a job suffix (工程师, 经理, 主管, 员, 师… ``suffixes``) or one of
   the listed titles; an **organisation** is a capitalised name after a job anchor ("started at", "I drive for",
   "photographer at", "joined"; not "a mentorship program for LGBTQ youth"), a lowercase phrase whose head is an
   organisation noun ("the university library"), or in Chinese the words between 在 / 去 / 入职… and 上班 / 当 /
   做…, not a place (jieba ``ns``) unless it ends in an organisation word (公司, 医院, 银行).
3. **Aspect of the clause**: ``start`` (inchoative: "started", "joined", "new gig", 入职, 跳槽), ``now`` ("now",
   现在: an organisation alone then needs a work verb, "I'm at Starbucks now" names no employer), ``promote`` (the title changes, not the employer: "promoted to", 升, 提拔), ``end`` (terminative: ``end_patterns``
   that end a job on their own, "laid off", "handed in my notice", 被裁, 离职; ``end_verbs`` only with a job object:
   "left the bookshop", "quit teaching", 那份兼职不干了), or none (a plain statement: "I'm a recruiter at Meta").

A turn's readings become facts (:func:`job_facts`): the new title is an ``occupation`` fact, the new organisation an
``employer`` fact (each replaces the current one through the usual reconcile path); an ending with no new value ends
the current ``employer`` (and, unless the turn names a new employer or is a promotion, the current ``occupation``):
a -1 fact in the turn's words naming the claim it ends (:attr:`~anchormem.facts.model.Fact.ends`). "A -> B" in one
turn ("left Google and joined Stripe") is B replacing A. All words are data (``data/lang/<lang>/jobs.json``).

    job_facts("Left the bookshop and started as a cataloguer at the university library today!")
    # -> [Fact(occupation = "cataloguer"), Fact(employer = "university library")]

Nothing is read before first use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import langdata
from ..ingest.classify import is_question, stated_part
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk, pos_tags
from . import triggers
from .model import Fact, detect_language
from .subjects import not_names

__all__ = ["Reading", "read_clauses", "open_clauses", "acting", "job_facts", "merge_job_facts", "is_title", "JOB_SLOTS"]

JOB_SLOTS = ("employer", "occupation")
_CJK = r"\u4e00-\u9fff"
_NEG_EN = re.compile(r"\b(?:not|never|didn't|don't|doesn't|haven't|hasn't|won't|can't|cannot|no)\b", re.I)
_NEG_ZH = re.compile(r"没|不是|不会|别")
_CAP_NAME = re.compile(r"(?-i:[A-Z0-9])[\w&'’.+-]*(?:\s+(?:(?-i:[A-Z0-9])[\w&'’.+-]*|of|de|la|&)(?=\s|$|[,.!?;:]))*")
_DET = re.compile(r"^(?:a|an|the|my|our|this|that|some)\s+", re.I)
_THIRD_POSS = re.compile(r"\b(?:his|her|their)\s+(?:\w+\s+)?(?:job|position|role|company|boss|career|work|gig)\b", re.I)


@dataclass
class Reading:
    """One clause read as a job statement. ``aspect``: "start", "promote", "end" or "" (a plain statement);
    ``title`` / ``org``: the typed values it names ("" when none); ``cue``: the words of its aspect; ``clause`` /
    ``sentence``: where it was said."""
    aspect: str
    title: str
    org: str
    cue: str
    clause: str
    sentence: str


def _data(lang: str) -> dict[str, Any]:
    return langdata.load("jobs", lang)


@lru_cache(maxsize=1)
def _heads() -> frozenset[str]:
    d = _data("en")
    return frozenset((set(d.get("heads", [])) | set(d.get("heads_extra", []))) - set(d.get("not_heads", [])))


@lru_cache(maxsize=1)
def _zh_titles() -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    d = _data("zh")  # an organisation word (银行, 医院: the first word of Faker's 银行柜员) is no title on its own
    titles = (set(d.get("titles", [])) | set(d.get("titles_extra", []))) - set(d.get("org_suffixes", []))
    return (frozenset(titles), tuple(sorted(d.get("suffixes", []), key=len, reverse=True)),
            frozenset(d.get("not_titles", [])))


@lru_cache(maxsize=64)
def _words_rx(lang: str, key: str) -> re.Pattern | None:
    """The entries of ``key``: Latin ones as whole words (case-insensitive), CJK ones anywhere."""
    ws = sorted(set(_data(lang).get(key, [])), key=len, reverse=True)
    if not ws:
        return None
    parts = [re.escape(w) if has_cjk(w) else r"(?<![A-Za-z0-9'’])" + re.escape(w) + r"(?![A-Za-z0-9'’])" for w in ws]
    return re.compile("|".join(parts), re.I)


@lru_cache(maxsize=2)
def _end_patterns(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.I) for p in _data(lang).get("end_patterns", []))


def _find(lang: str, key: str, text: str) -> str:
    rx = _words_rx(lang, key)
    m = rx.search(text) if rx is not None else None
    return m.group(0) if m else ""


# -- typed values ---------------------------------------------------------------------------------------------


def _en_title_of(words: list[str], frame: bool) -> str:
    """The title in ``words`` (a noun phrase, first word first): up to its last occupation head, at most three
    modifiers before it ("Junior UX designer", "in-house photographer", "sous chef"); in a role frame (``frame``) an
    agentive noun is a title too ("started as a cataloguer"). None ("") when the head is the object of a word before
    a determiner ("Booked a coach") or modifies a noun after it ("a writers group")."""
    heads = _heads()
    d = _data("en")
    stop = {w.casefold() for w in d.get("stop", [])}
    clean: list[str] = []
    for w in words:
        w2 = w.strip(".,!?;:()\"'“”")
        if not w2 or w2.casefold() in stop:
            break
        clean.append(w2)
        if w != w2 and w[-1:] in ".,!?;:":
            break
    det = bool(clean) and bool(re.fullmatch(r"(?:a|an|the|my|our)", clean[0], re.I))
    if det:
        clean = clean[1:]
    from .keys import not_job_words

    if any(re.fullmatch(not_job_words(), w, re.I) for w in clean[:3]):
        return ""  # "a good cook", "a big fan", "a wannabe actor"
    last = -1
    for i, w in enumerate(clean[:5]):
        base = w.casefold()
        base = base[:-1] if base.endswith("s") and base[:-1] in heads else base
        if base in heads or base.split("-")[-1] in heads:
            last = i
    if last < 0 and frame and det and clean:  # ("started as a cataloguer"; not "made me redundant")
        w = clean[min(len(clean), 3) - 1].casefold()
        if len(w) > 4 and any(w.endswith(s) for s in d.get("agentive", [])) and w.isalpha():
            last = min(len(clean), 3) - 1
    if last < 0:
        return ""
    if any(re.fullmatch(r"(?:a|an|the|my|our)", w, re.I) for w in clean[1:last]):
        return ""  # "Booked a coach", "met a nurse": the occupation noun is the object of another word
    if last + 1 < len(clean) and clean[last + 1].isalpha() and clean[last + 1].islower() and \
            clean[last + 1].casefold() not in heads:
        return ""  # "a writers group", "the nurse station": a noun heads the phrase, not the occupation
    return " ".join(clean[max(0, last - 3): last + 1])


def is_title(value: str) -> bool:
    """``value`` is a job title: an English noun phrase whose last word is an occupation head noun ("audit manager",
    "cataloguer" is not unless said in a role frame), or a Chinese phrase ending in a job suffix or listed title."""
    if has_cjk(value):
        return bool(_zh_title(value))
    words = value.split()
    return bool(words) and _en_title_of(words, False).casefold() == " ".join(words).casefold()


@lru_cache(maxsize=1)
def _copula_speaker() -> re.Pattern:
    """The words before a copula role word (是, 是一名...) when its subject is the speaker or the speaker's job: the
    speaker or no subject, a job noun (本职, 我的工作, title), adverbs (``copula_subject``, ``copula_job_nouns``,
    ``copula_adverbs`` of data/lang/zh/jobs.json), up to the clause's start."""
    d = _data("zh")
    who = langdata.alternation(tuple(d.get("copula_subject", ["我"])))
    job = langdata.alternation(tuple(d.get("copula_job_nouns", []))) or "(?!)"
    adv = langdata.alternation(tuple(d.get("copula_adverbs", []))) or "(?!)"
    return re.compile(rf"(?:^|[，,。.！!？?；;：:\s])\s*(?:{adv})*(?:{who})?(?:的)?(?:{adv})*(?:{job})?(?:{adv})*\s*$")


def _word_ends(text: str) -> frozenset[int]:
    """The offsets in ``text`` where one of jieba's words ends (``text.tokenize.pos_tags``, cached)."""
    out, at = set(), 0
    for t in pos_tags(text):
        at += len(t.word)
        out.add(at)
    return frozenset(out)


def _zh_title(span: str) -> str:
    """The title a Chinese span opens with (the longest prefix ending in a job suffix or a listed title), or ""."""
    titles, suffixes, not_titles = _zh_titles()
    span = re.sub(r"^(?:了|上了|成了)?(?:[\d一二两三四五六七八九十百几]+(?:多)?(?:年|个月|天)(?:的)?|一名|一个|一位|个|名)?", "", span)
    m = re.match(r"[" + _CJK + r"A-Za-z0-9]{1,10}", span)
    if not m:
        return ""
    s = m.group(0)
    if re.fullmatch(r"[A-Za-z ]+", s):
        return ""
    bounds = _word_ends(s)
    for end in range(len(s), 0, -1):
        p = s[:end]
        if any(p.endswith(n) for n in not_titles):
            continue
        # a one-character suffix (长, 师, 员...) must end a word: 店长 is a title, 紫色长|颈鹿 (长颈鹿) is none
        if p in titles or any(p.endswith(x) and (len(x) >= 2 or (len(p) > len(x) and end in bounds))
                              for x in suffixes):
            rest = s[len(p):]  # a title word then a few more to the clause end: 做物流调度, 做硬件测试
            whole = len(s) <= 6 and rest and span[len(s):len(s) + 1] in ("", "。", "，", ",", ".", "！", "!", "、", " ")
            return s if whole and not re.search(r"[了的吗呢啊吧在和是也都还就很我]", rest) else p
    return ""


def _latin_title(text: str) -> str:
    """An English title in a Chinese clause ("被提成Engineering Manager", "做data scientist")."""
    m = re.match(r"\s*([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3})", text)
    return _en_title_of(m.group(1).split(), True) if m else ""


@lru_cache(maxsize=1)
def _org_heads() -> frozenset[str]:
    return frozenset(w.casefold() for w in _data("en").get("org_heads", []))


def _en_org(clause: str) -> str:
    """The organisation a clause names after "at / with / for / joined…": a capitalised name ("Kaiser", "St.
    Mary's", "Flour & Co") or a lowercase phrase whose head is an organisation noun ("the university library")."""
    before = _words_rx("en", "org_before")
    if before is None:
        return ""
    found = ""
    verbs = {w.casefold() for w in _data("en").get("org_verbs", [])}
    title_preps = {w.casefold() for w in _data("en").get("title_preps", [])}
    for m in before.finditer(clause):
        if m.group(0).casefold() not in verbs and not _anchored(clause[:m.start()]):
            continue  # "a mentorship program for LGBTQ youth", "my work make a difference for the community"
        prev = clause[:m.start()].split()
        last = prev[-1].strip(".,!:;").casefold() if prev else ""
        if title_preps and (last in _heads() or last.rstrip("s") in _heads()) and \
                m.group(0).casefold() not in title_preps:
            continue  # "a coach from London", "a nurse from Ohio": where the person is from, not the employer
        rest = clause[m.end():]
        cap = re.match(r"\s+(?:the\s+)?(" + _CAP_NAME.pattern + r")", rest)
        if cap:
            name = cap.group(1).rstrip(".,'’")
            head = re.match(r"\s+([a-z][\w-]*)", rest[cap.end(1):])
            if head and head.group(1) in _org_heads():  # "Santa Maria hospital"
                name = f"{name} {head.group(1)}"
            first = name.split()[0].casefold()
            if first not in not_names("en") and first != "i" and name.casefold() not in _heads() and \
                    re.search(r"[A-Za-z]{2}", name) and not re.fullmatch(r"\d+\s*(?:am|pm|a\.m\.|p\.m\.)?", name, re.I):
                found = name
                continue
        low = re.match(r"\s+(?:(?:the|a|an|my|our)\s+)?((?:[a-z][\w'-]*\s+){0,2}[a-z][\w-]*)", rest)
        if low:
            words = low.group(1).split()
            for k in range(len(words), 0, -1):
                if words[k - 1].casefold() in _org_heads():
                    found = " ".join(words[:k])
                    break
    return found


def _anchored(before: str) -> bool:
    """The words just before a preposition make what follows it an employer: a start word, a work verb said by the
    speaker, a job word or a title ("started at", "I drive for", "a new job at", "photographer at", "Work: … at")."""
    tail = " ".join(before.split()[-4:])
    if not tail:
        return False
    near = " ".join(before.split()[-2:])
    if _find("en", "start", near) or _find("en", "job_words", near) or tail.rstrip().endswith(":"):
        return True
    words = [w.strip(".,!:;").casefold() for w in tail.split()]
    if words and (words[-1] in _heads() or words[-1].rstrip("s") in _heads()):
        return True
    rx = _words_rx("en", "work_verbs")
    verb = rx.search(tail) if rx is not None else None
    return bool(verb and (verb.group(0).casefold().endswith("ing") or re.search(  # ("teaching chemistry at")
        r"(?:^|\b(?:I|we|I'm|I've|been|am|now|still|also|currently|mostly)\s+)" + re.escape(verb.group(0)) + r"\b",
        tail, re.I)))


def _zh_org(clause: str) -> tuple[str, str]:
    """(organisation, the word after it) of a Chinese clause: the words between 在 / 去 / 入职 / 跳槽到… and 上班 / 当 /
    做 / 了 / the clause end (the first that is one); a place (jieba ``ns``), a duration or 家 is none, unless it ends in
    an organisation word (公司, 医院, 4S店: cut after it)."""
    d = _data("zh")
    before = sorted(d.get("org_before", []), key=len, reverse=True)
    after = sorted(d.get("org_after", []), key=len, reverse=True)
    suffixes = sorted(d.get("org_suffixes", []), key=len, reverse=True)
    not_orgs = set(d.get("not_orgs", []))
    pre = "|".join(r"(?<![现正实存所自好])在" if b == "在" else re.escape(b) for b in before)  # (not 现在)
    rx = re.compile("(?:" + pre + r")\s*(?P<o>[" + _CJK + r"A-Za-z0-9&.\- ]{1,16}?)\s*"
                    r"(?P<a>" + "|".join(map(re.escape, after)) + r"|那边|(?=[。！!，,.；;…])|$)")
    lead = re.compile("^(?:" + "|".join(map(re.escape, before)) + ")+")
    for m in rx.finditer(clause):
        o = lead.sub("", m.group("o").strip()).strip()
        o = re.sub(r"^(?:一家|一个|这家|那家)(?=.)", "", o)
        o = re.sub(r"(?:那边|那里|这边)$", "", o)
        cut = next((o[: o.find(x) + len(x)] for x in suffixes if x in o and not o.endswith(x)), "")
        o = cut or o
        if not o or o in not_orgs or o[0] in "我你他她家" or (has_cjk(o) and len(o) < 2):
            continue
        if re.match(r"^[\d一二两三四五六七八九十百几]+(?:多)?(?:周|天|年|个月|月|小时)", o) or (
                _zh_title(o) == o and not any(o.endswith(x) and o != x for x in suffixes)):
            continue  # (a title ending in an organisation word names the organisation: 平安保险)
        if not any(o.endswith(x) for x in suffixes) and has_cjk(o) and _is_place(o):
            return "", "place"  # 在北京做程序员 (or 京东, which jieba also tags a place): no employer read
        return o, m.group("a")
    return "", ""


def _org_like(word: str) -> bool:
    """A Chinese phrase names an organisation: it ends in an organisation word (支行, 公司) or jieba tags it one
    (``nt``), or it is a Latin name ("普通" of 普通的销售 is none)."""
    from ..text.tokenize import pos_tags

    if re.fullmatch(r"[A-Za-z][\w&.\- ]*", word):
        return True
    if word in _data("zh").get("title_modifiers", []):
        return False
    return any(word.endswith(x) for x in _data("zh").get("org_suffixes", [])) or \
        any(t in ("nt", "nz") for _, t in pos_tags(word))


def _tagged(word: str, tags: tuple[str, ...]) -> bool:
    """Every jieba tag of ``word`` is one of ``tags``."""
    from ..text.tokenize import pos_tags

    got = [t for _, t in pos_tags(word)]
    return bool(got) and all(t in tags for t in got)


def _is_place(word: str) -> bool:
    return _tagged(word, ("ns",))


# -- clauses ----------------------------------------------------------------------------------------------------


def _gated(clause: str, who: str) -> bool:
    """True when the clause states nothing of the speaker's job now (the rules' gates)."""
    from .changes import blocked
    from .rules import _cue_patterns
    from .stance import scene

    if blocked(clause) or _cue_patterns()[1].search(clause):
        return True
    if scene(clause, others=False) in ("past_time", "visit", "observed", "general"):
        return True
    if _THIRD_POSS.search(clause):
        return True
    if who == "other" and not _self_object(clause):
        return True
    return False


def _noun_subject(clause: str, lang: str) -> bool:
    """An English clause opens with a determiner and a noun (not a title said alone: "A recruiter from Boeing called
    me", "The manager promoted me"): its subject is someone or something else than the speaker."""
    if lang != "en":
        return False
    m = re.match(r"\s*(?:so\.*\s+|and\s+|but\s+)?(?:a|an|the|this|that|some|one|his|her|their|your)\s+[\w-]+"
                 r"(?:\s+[\w-]+){0,3}?\s+(?:\w+ed|called|told|gave|made|let|got|sent|offered|hired|fired|promoted|"
                 r"is|was|has|had|just|finally)\b", clause, re.I)
    return bool(m)


_ACTS = r"(?:\w+ed|took|told|gave|made|let|got|sent|offered|hired|fired|promoted|said|says|wants|is|was|has|had)"


def acting(title: str, clause: str) -> bool:
    """``title`` is said in ``clause`` as a person doing something ("manager took a photo for the wall", "my boss
    said"): the subject of a verb, someone else, not the speaker's job."""
    if not title or has_cjk(title):
        return False
    return bool(re.search(r"(?<![\w'’])" + re.escape(title) + r"\s+(?:just\s+|finally\s+)?" + _ACTS + r"\b", clause,
                          re.I))


def _self_object(clause: str) -> bool:
    """The speaker is the object of the clause's verb ("let me go", "bumped me up", "me included", 提拔我当)."""
    if has_cjk(clause):
        return bool(re.search(r"(?:提拔|提|升|让|把|裁|炒|调)我", clause))
    rx = _words_rx("en", "self_objects")
    return bool(rx and rx.search(clause))


def _subject(clause: str) -> str:
    from .rules import _speaker_subject
    from .subjects import clause_subject

    if clause_subject(clause):
        return "other"
    return _speaker_subject(clause)


@lru_cache(maxsize=2)
def _role_before(lang: str) -> tuple[tuple[str, re.Pattern], ...]:
    """The ``role_before`` words of ``lang`` ("as a", "promoted to", 当...), longest first, each with its pattern
    (compiled once: English ones as whole words, case-insensitive; Chinese ones anywhere)."""
    ws = sorted(_data(lang).get("role_before", []), key=len, reverse=True)
    if lang == "zh":
        return tuple((rb, re.compile(re.escape(rb))) for rb in ws)
    return tuple((rb, re.compile(r"(?<![\w'’])" + re.escape(rb) + r"(?![\w'’])", re.I)) for rb in ws)


def _title_in(clause: str, lang: str, cued: bool) -> str:
    """The job title a clause names: after a role word ("as a", "promoted to", 当, 升, 是…), or (with an aspect cue
    in the clause, ``cued``) any occupation phrase in it."""
    if lang == "zh":
        found = ""
        for rb, rx in _role_before("zh"):
            for m in rx.finditer(clause):
                if rb.startswith("是") and not _copula_speaker().search(clause[:m.start()]):
                    continue  # "我的银行卡密码提示是…": the copula's subject is the thing, not the speaker
                rest = clause[m.end():]
                t = _zh_title(rest) or _latin_title(rest)
                if t and len(t) > len(found):
                    found = t
            if found:
                return found
        if cued:
            m = re.search(r"[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}", clause)
            while m:
                t = _en_title_of(m.group(0).split(), False)
                if t:
                    return t
                m = re.compile(r"[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}").search(clause, m.end())
        return ""
    for rb, rx in _role_before("en"):
        for m in rx.finditer(clause):
            # an agentive noun is a title only in a work frame: "started as a cataloguer", "promoted to", not
            # "tough as a single parent", "my path as a trans woman", "became a mother"
            work = bool(_find("en", "promote", rb)) or _anchored(clause[:m.start()])
            t = _en_title_of(clause[m.end():].split()[:6], work)
            if t:
                return t
    if not cued:
        return ""
    words = clause.split()
    for i in range(len(words)):  # an occupation phrase at a boundary: "Junior UX designer at Shopify as of Monday"
        if i and not re.fullmatch(r"(?:a|an|the|my|as|now|new|:|[\w-]+:)", words[i - 1].strip(",.!"), re.I):
            continue
        t = _en_title_of(words[i:i + 6], False)
        if t:
            return t
    return ""


def _freelance(clause: str, lang: str) -> str:
    return _find(lang, "freelance", clause) or (_find("zh", "freelance", clause) if lang == "zh" else "")


def _ends(clause: str, lang: str, title: str, org: str, named: Iterable[str]) -> str:
    """The words ending a job in ``clause``: an ``end_patterns`` match or an ``end`` word, or an ``end_verbs`` word
    with a job object (an organisation, a title, a job word, a job activity, the value of a current claim)."""
    for rx in _end_patterns(lang):
        m = rx.search(clause)
        if m:
            return m.group(0)
    hit = _find(lang, "end", clause)
    if hit:
        return hit
    verb = _find(lang, "end_verbs", clause)
    if not verb:
        return ""
    low = clause.casefold()
    from .changes import JOB_ACTIVITY

    if lang == "zh":
        obj = bool(org or title) or bool(_find(lang, "job_words", low)) or any(n and n.casefold() in low for n in named)
        return verb if obj else ""
    # the verb's own object, right after it: "left the bookshop", "quit teaching", "quit my job", a current employer
    after = low[low.find(verb.casefold()) + len(verb):]
    after = re.sub(r"^\s*(?:the|my|our|a|an|that|this)\s+", " ", after).strip()
    head = " ".join(after.split()[:3])
    obj = bool(title and after.startswith(title.casefold().split()[0])) or \
        bool(_words_rx("en", "job_words") and _words_rx("en", "job_words").match(head)) or \
        any(head.startswith(a) for a in JOB_ACTIVITY()) or \
        bool(after.split() and after.split()[0].strip(".,!") in _org_heads()) or \
        any(n and after.startswith(n.casefold()) for n in named)
    return verb if obj else ""


def open_clauses(text: str) -> Iterator[tuple[str, str, str, bool]]:
    """The clauses of a user turn that pass the rules' gates (a question's stated part only; no hypothetical, plan,
    modal, reported speech, past or trip scene, someone else's possession; see the module doc), in order, as
    ``(clause, sentence, lang, other)``: ``other`` is True when someone else is the clause's subject (the speaker
    or what is theirs may still be its object: "they let me go", "they bumped my base"; each reader decides).
    Shared by the typed readers (jobs, :mod:`.quantities`, :mod:`.counts`): read once per text (the last 4,096
    texts kept), each reader then walks the same clauses."""
    yield from _open_clauses(text)


@lru_cache(maxsize=4096)
def _open_clauses(text: str) -> tuple[tuple[str, str, str, bool], ...]:
    return tuple(_gated_clauses(text))


def _gated_clauses(text: str) -> Iterator[tuple[str, str, str, bool]]:
    from .rules import _clause_split, _speaker_subject

    for sentence in split_sentences(text):
        if is_question(sentence):
            sentence = stated_part(sentence)
            if not sentence:
                continue
        who = ""
        for clause in (c for part in _clause_split().split(sentence) if part for c in _commas(part)):
            if not clause or not clause.strip():
                continue
            clause = clause.strip()
            lang = "zh" if has_cjk(clause) else "en"
            who = _speaker_subject(clause) or who
            if _subject(clause) == "other" and who != "other":
                who = "other"
            other = who == "other" or _noun_subject(clause, lang)
            if _gated(clause, ""):
                continue
            yield clause, sentence, lang, other


# -- prefilter (facts.triggers) ------------------------------------------------------------------------------
# A clause gives a reading (:func:`_read`) only with an ending (an ``end_patterns`` match, an ``end`` or
# ``end_verbs`` word, or a terminative marker beside a title or a ``job_words`` word), a title or an organisation. An
# English title needs an occupation head (``heads``) or, after a ``role_before`` word, a work frame (a ``promote``
# word, or :func:`_anchored`: a ``start``, ``job_words`` or ``work_verbs`` word, a head, a colon); an English
# organisation needs an ``org_verbs`` word or the same anchoring; ``freelance`` words are a title of their own. A
# Chinese clause's title follows a Chinese ``role_before`` word (or is an English head), its organisation a Chinese
# ``org_before`` word (or is read as in English). These lists are the gates: a clause holding none of their literals
# is not read (the same readings, fewer regex passes). The broad English ``role_before`` / ``org_before`` words ("as",
# "at") are not gates: each needs one of the others too.
_GATE_KEYS = {"en": ("promote", "start", "job_words", "work_verbs", "org_verbs", "end", "end_verbs", "freelance"),
              "zh": ("role_before", "org_before", "promote", "start", "end", "end_verbs", "job_words", "freelance")}


def _gates() -> list[re.Pattern | str]:
    """The patterns one of which matches (case-insensitively) any clause :func:`_read` reads a job from (see above)."""
    out: list[re.Pattern | str] = [rx for lang, keys in _GATE_KEYS.items() for k in keys
                                   if (rx := _words_rx(lang, k)) is not None]
    out += [rx for lang in _GATE_KEYS for rx in _end_patterns(lang)]
    out.append(re.compile("|".join(re.escape(h) for h in sorted(_heads())), re.I))
    out.append(re.escape(":"))  # ("Work: … at": an anchor of its own)
    return out


triggers.declare("jobs", _gates)


def _may_read(clause: str) -> bool:
    """False only when no gate of the job reader can match ``clause`` (nor any part of it the reader re-reads with
    its spaces joined, nor its casefolded words: :func:`_en_title_of` compares heads casefolded)."""
    text = " ".join(clause.split())
    return triggers.may_read("jobs", text) or (not text.isascii() and triggers.may_read("jobs", text.casefold()))


def read_clauses(text: str, named: Iterable[str] = ()) -> list[Reading]:
    """The job readings of a user turn, clause by clause, in order (see the module doc). ``named``: the values of the
    user's current job claims (a clause naming one is about the job: "丰田那边不干了")."""
    named = [n for n in named if n]
    out: list[Reading] = []
    for clause, sentence, lang, other in open_clauses(text):
        if not _may_read(clause):
            continue  # no literal of the reader's gates: nothing to read (facts.triggers)
        if other and not _self_object(clause):
            continue  # someone else's job ("My wife works at Apple"), unless done to the speaker ("they let me go")
        r = _read(clause, sentence, lang, named)
        if r is not None and other and r.aspect not in ("end", "promote") and not (
                r.aspect == "start" and _started_by(clause, lang)):
            continue  # "A recruiter from Boeing called me about a job": only what is done to the speaker, and a
            # start whose result is the speaker's job ("The county hired me as an emergency dispatcher")
        if r is not None:
            out.append(r)
    return out


def _started_by(clause: str, lang: str) -> bool:
    """Someone else's verb in ``clause`` makes the speaker start a job (``started_by`` of jobs.json: "hired me",
    "took me on")."""
    rx = _words_rx(lang, "started_by")
    return bool(rx and rx.search(clause))


def _negated_before(clause: str, lang: str, at: int) -> bool:
    """A negation before position ``at`` of the clause, close to it ("I didn't get the job at Google", 我没去腾讯)."""
    rx = _NEG_ZH if lang == "zh" else _NEG_EN
    window = clause[max(0, at - (6 if lang == "zh" else 30)): at]
    return bool(rx.search(window))


def _commas(clause: str) -> list[str]:
    """An English clause cut at its commas too ("Started at Kaiser this week, said goodbye to St. Mary's")."""
    return [c for c in re.split(r",\s+|\s+[-–—]\s+|(?<=[a-z])\.\s+", clause) if c.strip()] if not has_cjk(clause) \
        else [clause]


def _read(clause: str, sentence: str, lang: str, named: list[str]) -> Reading | None:
    from .aspect import terminative

    promote = _find(lang, "promote", clause)
    start = _find(lang, "start", clause)
    if lang == "zh" and not (promote or start):
        start = _find("en", "start", clause)
    now = "" if start else _find(lang, "now", clause)
    if _find("en", "not_work", clause):
        return None  # "I started working out at Planet Fitness"
    after = ""
    if lang == "zh":
        org, after = _zh_org(clause)
        if after == "place" and not (promote or start):
            return None  # a plain statement whose 在… is a place or unclear: the other readers decide
        org = org or _en_org(clause)
    else:
        org = _en_org(clause)
    title = _title_in(clause, lang, bool(promote or start or now or org))
    bare = clause.strip(" .!;:")
    if not title and lang == "en" and len(bare.split()) <= 4 and is_title(bare):
        title = bare  # a title said alone ("Audit Manager.")
    if lang == "zh" and "的" in title:  # 招行支行的客户经理: the organisation, then the title
        head, title = title.rsplit("的", 1)
        org = org or (head if _org_like(head) else "")
    same = _find(lang, "same", clause)
    end = _ends(clause, lang, title, org, named)
    if not end and (title or _find(lang, "job_words", clause)) and terminative(clause):
        end = terminative(clause)  # "not a lawyer anymore", 不当老师了: the job said ended
    if end:
        return Reading("end", title if not start else "", org, end, clause, sentence)
    free = _freelance(clause, lang)
    if not title and free and (start or lang == "zh" or re.search(r"\bfor now\b", clause, re.I)):
        title = free
    if same and not start:
        return None  # "还是做测试", "same backend work": the job stays
    if not (title or org):
        return None
    low = clause.casefold()
    at = min([low.find(x.casefold()) for x in (start, promote, title, org) if x and x.casefold() in low] or [0])
    if _negated_before(clause, lang, at) and not promote:
        return None  # "I didn't get the job at Google", 我没去腾讯
    if promote and title:
        return Reading("promote", title, "", promote, clause, sentence)
    if not (start or promote or title):  # an employer alone needs a work verb: "i drive for UPS", 在华为上班 (not
        # "I'm at Starbucks now", 现在在星巴克)
        if lang == "zh" and after not in _data("zh").get("work_after", []):
            return None
        if lang == "en" and not _anchored(clause[: clause.find(org)] if org in clause else clause):
            return None
    return Reading("start" if start or now else "", title, org, start or now, clause, sentence)


# -- facts ------------------------------------------------------------------------------------------------------


def _fact(attr: str, value: str, pol: int, r: Reading, entity: str, ends: str = "") -> Fact | None:
    try:
        return Fact(entity=entity, attribute=attr, value=value, polarity=pol, confidence=0.9 if pol > 0 else 0.85,
                    sensitive=False, source_span=r.sentence, clause=r.clause, language=detect_language(r.sentence),
                    extractor="jobs", ends=ends)
    except ValueError:
        return None


def job_facts(text: str, *, entity: str = "user",
              current: Callable[[str], list[Any]] | None = None) -> list[Fact]:
    """The ``employer`` / ``occupation`` facts of one user turn (at most one per slot). ``current(attribute)``: the
    user's current claims of that slot (memory items with a ``fact``), for an ending to name the claim it closes
    (without it, or with none current, an ending gives no fact)."""
    cur = {a: [c for c in (current(a) if current else []) if c.fact is not None and c.fact.polarity > 0]
           for a in JOB_SLOTS}
    named = [c.fact.value for a in JOB_SLOTS for c in cur[a]]
    rs = read_clauses(text, named)
    if not rs:
        return []
    ended = next((r for r in rs if r.aspect == "end"), None)
    promoted = any(r.aspect == "promote" for r in rs)
    ended_orgs = {r.org.casefold() for r in rs if r.aspect == "end" and r.org}
    titles = [r for r in rs if r.aspect != "end" and r.title]
    orgs = [r for r in rs if r.aspect not in ("end", "promote") and r.org and r.org.casefold() not in ended_orgs]
    cued = ended is not None or promoted or any(r.aspect == "start" for r in rs)
    out: list[Fact] = []
    if titles:  # the most specific title the turn names ("gave me the manager title. Audit Manager.")
        best = max(titles, key=lambda r: (len(r.title.split()), r.aspect != "", len(r.title)))
        f = _fact("occupation", best.title, 1, best, entity)
        out += [f] if f else []
    if orgs:
        r = orgs[-1]
        f = _fact("employer", r.org, 1, r, entity)
        out += [f] if f else []
    free = bool(titles) and any(best.title.casefold() in (w.casefold() for w in _data(lang).get("freelance", []))
                                for lang in ("en", "zh"))
    if (ended is not None or free) and not promoted:  # (working freelance ends the employer too)
        from .keys import value_key

        ended = ended or best
        slots = [] if orgs else ["employer"]
        if not titles and (not orgs or ended.title):
            slots.append("occupation")
        for a in slots:
            for c in cur[a][:1]:  # the value the ending names ("Last day at ByteDance": ByteDance), else its words
                said = str(c.fact.value) if str(c.fact.value).casefold() in ended.clause.casefold() else ended.cue
                f = _fact(a, said, -1, ended, entity, ends=value_key(a, c.fact.value))
                out += [f] if f else []
    if not cued:  # a plain statement ("I'm a recruiter at Meta"): only what it types
        return [f.model_copy(update={"confidence": 0.89}) for f in out if f.polarity > 0]
    return out


def merge_job_facts(found: list[Fact], jobs: list[Fact]) -> list[Fact]:
    """The rules' facts of a turn with the job reader's joined: a job slot the rules left empty takes the reader's
    fact; a rules' value that holds the reader's and more ("瑞幸当区域经理" for 瑞幸) or a
    rules' ending beside the reader's new value takes the reader's; otherwise the rules' reading stands."""
    out = list(found)
    for j in jobs:
        same = [f for f in out if f.slot == j.slot]
        if not same:
            out.append(j)
            continue
        f = same[0]
        if f.polarity == j.polarity and f.value.casefold() == j.value.casefold():
            continue
        rest = f.value.casefold().replace(j.value.casefold(), " ", 1)
        misread = j.polarity > 0 and f.polarity > 0 and j.value.casefold() in f.value.casefold() and \
            len(f.value) > len(j.value) and bool(re.search(r"当|做|上班|工作|报到|\bas\b|\bat\b", rest))
        if misread or (j.polarity > 0 > f.polarity and f.value.casefold() not in j.value.casefold()
                       and f.clause != j.clause):
            out[out.index(f)] = j
    return out
