"""Is a fact supported by the text it claims to come from?

:func:`check_support` rejects a fact (or a free-text claim) when, against the source text:

- a number in it is not in the source (digits, full-width digits, English and Chinese number words are
  normalised: "two" == "2" == "２" == "二");
- a month or weekday in it is not in the source;
- a capitalised name in it (or its non-"user" entity) is not in the source (case-insensitive);
- its negation disagrees with the source clause it comes from (a -1 fact needs a negation cue in that clause;
  a +1 fact must not come from a negated clause); a free-text claim copied verbatim from the source is never
  flagged (it spans several clauses: "Lost my job yesterday, so I'm starting a business");
- too few of its content words are in the source (``min_overlap``; Chinese is compared by characters);
- with an ``embedder``: the cosine of fact and source is under ``min_cosine``.

Anything that appears only in the extraction prompt (an example value, an instruction) therefore fails: the
check looks at the user's source text only.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import content_words, has_cjk
from .model import Fact
from .aspect import terminative

__all__ = ["Support", "check_support", "MIN_OVERLAP", "MIN_COSINE"]

MIN_OVERLAP = 0.6
MIN_COSINE = 0.3

_EN_NUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
           "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
           "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
           "dozen": 12, "first": 1, "second": 2, "third": 3}
_ZH_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
             "九": 9}
_ZH_NUM = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday "
           "sunday").split()
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_NOT_NAMES = frozenset("i i'm i've i'll the a an my user he she they it we you not no".split())
_NEG_EN = re.compile(r"\b(?:not|no|never|no longer|don't|doesn't|didn't|do not|does not|did not|can't|cannot|"
                     r"can not|won't|isn't|aren't|wasn't|hate|hates|dislike|dislikes|detest|loathe|stopped|quit|gave up|given up|"
                     r"switched from|left(?=\s+(?-i:[A-Z]))|left my|lost my|resigned|used to|moved out of|"
                     r"moved away from|"
                     r"any ?more|nor)\b|n't\b", re.I)
_NEG_ZH = re.compile(r"不|没|别|讨厌|受不了|戒(?!指)|反感|无法|搬出|搬离")
# "I quit Google and joined Meta": a new verb after "and" starts a clause of its own (its own negation)
# ("I moved out of Lisbon and now live in Berlin": the second clause is not negated)
_CLAUSE_VERBS = r"joined|started|moved|became|got|went|switched|took|began|signed|accepted|live|reside|settled|am living"


@lru_cache(maxsize=1)
def _clause_rx() -> re.Pattern:
    """Clause boundaries; a verb of a frame class (data/lang/en/frames.json) after "and" starts a clause too
    ("I left Tencent and now work at Shopee"), and so does a new "I'm" / "we've" ("… and I'm now with EY")."""
    frame_verbs = tuple(v for spec in langdata.load("frames", "en").get("classes", {}).values()
                        for v in spec["verbs"] if v[:1].isalpha() and v not in ("am", "is", "are"))
    verbs = _CLAUSE_VERBS + "|" + langdata.alternation(frame_verbs)
    return re.compile(r"[,;.!?，。；！？\n]+|\s+but\s+|\s+and\s+(?=(?:then\s+|now\s+|also\s+|just\s+)?(?:(?:I|we)\s+)?"
                      r"(?:" + verbs + r")\b)|\s+and\s+(?=(?:then\s+|now\s+)?(?:I['’]m|I['’]ve|we['’]re|we['’]ve)\s)",
                      re.I)  # "I resigned from X and I'm now with Y": the second clause is not negated


@dataclass
class Support:
    """``ok``: the fact is supported. ``reasons``: why not (empty when ok). ``overlap``: share of the fact's
    content words found in the source; ``cosine`` when an embedder was used."""

    ok: bool
    reasons: list[str] = field(default_factory=list)
    overlap: float = 0.0
    cosine: float | None = None


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _zh_to_int(s: str) -> int | None:
    if all(c in _ZH_DIGIT for c in s):
        return int("".join(str(_ZH_DIGIT[c]) for c in s))
    total, cur = 0, 0
    units = {"十": 10, "百": 100, "千": 1000, "万": 10000}
    for c in s:
        if c in _ZH_DIGIT:
            cur = _ZH_DIGIT[c]
        elif c in units:
            total += (cur or 1) * units[c]
            cur = 0
        else:
            return None
    return total + cur


def _numbers(text: str) -> set[str]:
    t = _norm(text)
    out = {re.sub(r"[,\s]", "", m.group()).lstrip("0") or "0" for m in _DIGITS.finditer(t)}
    for w in re.findall(r"[a-z]+", t):
        if w in _EN_NUM:
            out.add(str(_EN_NUM[w]))
    for m in _ZH_NUM.finditer(text):
        n = _zh_to_int(m.group())
        if n is not None and not (m.group() in ("一",) and len(text) > 1):  # "一" is mostly an article
            out.add(str(n))
    from .values import parse, plain  # the one value parser: "seventy-two thousand", 一万二, "1.5k", "a grand"

    out.update(plain(v.number) for v in parse(text))
    return out


@lru_cache(maxsize=1)
def _ending_cues() -> re.Pattern:
    """Ending and negation cues of data/lang/*/cues.json ("resigned", 辞职, 离职...) beside the ones above."""
    en = langdata.alternation(langdata.words("cues", "ending", ("en",)))
    zh = langdata.alternation(langdata.words("cues", "ending", ("zh",)))
    return re.compile(r"\b(?:" + en + r")\b|" + zh, re.I)


def _negated(text: str, *, endings: bool = True) -> bool:
    """A negation cue in ``text``; with ``endings``, an ending cue of the language data too (a source clause "我辞职了"
    is negated; a fact's own value "辞职" is not a negation of it)."""
    return bool(_NEG_EN.search(text) or _NEG_ZH.search(text) or (endings and _ending_cues().search(text)))


def _cjk_chars(text: str) -> set[str]:
    return {c for c in text if has_cjk(c)}


def _stem(w: str) -> str:
    for suf in ("ing", "ies", "es", "ed", "s"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            return w[: -len(suf)]
    return w


_SELF = frozenset({"user", "user's", "users"})


def _word(w: str) -> str:
    return str(_EN_NUM[w]) if w in _EN_NUM else _stem(w)


def _overlap(claim: str, source: str) -> float:
    """Share of the claim's content (Latin words stemmed; CJK by character) found in the source."""
    c, s = _norm(claim), _norm(source)
    if c.strip() and c.strip() in s:
        return 1.0
    cw = {_word(w) for w in content_words(c) if not has_cjk(w) and w not in _SELF}
    sw = {_word(w) for w in content_words(s) if not has_cjk(w)}
    # numbers are checked on their own; "用户" (the user) is the implicit subject
    cc = {ch for ch in _cjk_chars(c.replace("用户", "")) if ch not in _ZH_DIGIT and ch not in "十百千万"}
    sc = _cjk_chars(s)
    total = len(cw) + len(cc)
    if total == 0:
        return 1.0
    return (len(cw & sw) + len(cc & sc)) / total


def _best_clause(value: str, source: str) -> str:
    clauses = [c for c in _clause_rx().split(source) if c.strip()] or [source]
    return max(clauses, key=lambda cl: _overlap(value, cl))


def _claim_parts(fact: Fact | str) -> tuple[str, str, int | None]:
    """(text whose content must be grounded, entity or "", polarity or None for free text)."""
    if isinstance(fact, Fact):
        ent = "" if fact.entity.casefold() in ("user", "the user", "我", "用户") else fact.entity
        return fact.value, ent, fact.polarity
    return str(fact), "", None


def check_support(fact_text_or_fact: Fact | str, source_text: str, *, embedder: Any = None,
                  min_overlap: float = MIN_OVERLAP, min_cosine: float = MIN_COSINE) -> Support:
    """Check that a :class:`Fact` (its value and named entity) or a free-text claim is supported by
    ``source_text`` (the user's own words). Returns :class:`Support`; never raises on odd text."""
    claim, entity, polarity = _claim_parts(fact_text_or_fact)
    reasons: list[str] = []
    src = source_text or ""
    nsrc = _norm(src)
    if not src.strip():
        return Support(False, ["empty source text"])
    full = f"{entity} {claim}".strip()
    # numbers
    missing_nums = _numbers(full) - _numbers(src)
    if missing_nums:
        reasons.append(f"number(s) not in source: {', '.join(sorted(missing_nums))}")
    # months / weekdays
    for w in re.findall(r"[a-z]+", _norm(full)):
        if w in _MONTHS and not re.search(rf"\b{w}", nsrc):
            reasons.append(f"date word not in source: {w}")
    # named entities
    names = {m.group() for m in _NAME.finditer(claim)}
    if entity:
        names.add(entity)
    for name in sorted(names):
        if name.casefold() in _NOT_NAMES:
            continue
        if _norm(name) not in nsrc and not all(_norm(p) in nsrc for p in name.split() if p.casefold()
                                               not in _NOT_NAMES):
            reasons.append(f"name not in source: {name}")
    if entity and has_cjk(entity) and _norm(entity) not in nsrc:
        reasons.append(f"entity not in source: {entity}")
    # negation
    clause = _best_clause(claim, src)
    src_neg = _negated(clause)
    if polarity is None and _norm(claim).strip() in nsrc:
        pass  # the claim is the source's own words (a verbatim summary line): its negation is the source's
    elif polarity is None:
        claim_neg = _negated(claim)
        if claim_neg != src_neg:
            reasons.append("negation differs from the source" if claim_neg else
                           f"the source is negated: {clause.strip()!r}")
    else:
        value_neg = _negated(claim, endings=False)
        effective_neg = (polarity < 0) != value_neg
        if effective_neg and not src_neg and not terminative(clause):  # ("done with bouldering", 王者卸载了)
            reasons.append(f"negative fact but no negation in the source clause {clause.strip()!r}")
        elif not effective_neg and src_neg:
            reasons.append(f"positive fact but the source clause is negated: {clause.strip()!r}")
    # lexical overlap
    ov = _overlap(full, src)
    if ov < min_overlap:
        reasons.append(f"content overlap {ov:.2f} < {min_overlap}")
    cos = None
    if embedder is not None:
        import numpy as np

        text = fact_text_or_fact.as_text() if isinstance(fact_text_or_fact, Fact) else claim
        vecs = embedder.embed_documents([text, src])
        cos = float(np.dot(vecs[0], vecs[1]))
        if cos < min_cosine:
            reasons.append(f"embedding cosine {cos:.2f} < {min_cosine}")
    return Support(not reasons, reasons, ov, cos)
