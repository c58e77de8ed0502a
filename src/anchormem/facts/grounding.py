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

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")


@lru_cache(maxsize=1)
def _en_numbers() -> dict[str, int]:
    """English number words below a thousand (data/lang/en/values.json number_words, valued by the one value parser)
    and counting_words ("dozen", "first"): a claim's "seven" must be a 7 in its source."""
    from .values import number_of

    out: dict[str, int] = {}
    for w in langdata.load("values", "en").get("number_words", []):
        n = number_of(w)
        if n is not None and float(n) < 1000:
            out[w.casefold()] = int(float(n))
    out.update({k.casefold(): int(v) for k, v in langdata.load("values", "en").get("counting_words", {}).items()})
    return out


@lru_cache(maxsize=1)
def _zh_numerals() -> str:
    return langdata.load("values", "zh").get("numerals", "")


@lru_cache(maxsize=1)
def _date_words() -> frozenset[str]:
    """Month and weekday names (data/lang/en/dates.json): a claim's "March" must be in its source."""
    d = langdata.load("dates", "en")
    return frozenset(w.casefold() for w in (*d.get("months", {}), *d.get("weekdays", {})))


@lru_cache(maxsize=1)
def _not_names() -> frozenset[str]:
    """Words that are never names, every language (:func:`anchormem.facts.subjects.not_names`), casefolded."""
    from .subjects import not_names

    return frozenset().union(*(not_names(lang) for lang in langdata.LANGUAGES))


@lru_cache(maxsize=1)
def _negation_rx() -> re.Pattern:
    """Negation cues of data/lang/*/cues.json (negation words, negation_patterns as raw regex)."""
    parts = [r"\b(?:" + langdata.alternation(langdata.words("cues", "negation", ("en",))) + r")\b",
             langdata.alternation(langdata.words("cues", "negation", ("zh",)))]
    parts += list(langdata.words("cues", "negation_patterns"))
    return re.compile("|".join(parts), re.I)


@lru_cache(maxsize=1)
def _clause_rx() -> re.Pattern:
    """Clause boundaries; a ``clause_conjunctions`` word of cues.json starts a clause ("… but …", "I've been
    vegetarian for 8 years so no meat recipes pls": the negation is the request's, not the diet's); a verb of a frame
    class (data/lang/en/frames.json) after "and" starts a clause too ("I left Tencent and now work at Shopee"), and
    so does a new "I'm" / "we've" ("… and I'm now with EY")."""
    frame_verbs = tuple(v for spec in langdata.load("frames", "en").get("classes", {}).values()
                        for v in spec["verbs"] if v[:1].isalpha() and v not in ("am", "is", "are"))
    verbs = langdata.alternation(langdata.words("cues", "clause_verbs", ("en",)) + frame_verbs)
    conj = langdata.alternation(langdata.words("cues", "clause_conjunctions", ("en",)) or ("but",))
    return re.compile(r"[,;.!?，。；！？\n]+|\s+(?:" + conj + r")\s+|\s+and\s+(?=(?:then\s+|now\s+|also\s+|just\s+)?(?:(?:I|we)\s+)?"
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
    """A run of Chinese numerals as an integer ("三千五" -> 3500, "一二三" -> 123), by the one value parser."""
    from .values import zh_number

    n = zh_number(s)
    return int(n) if n is not None and float(n).is_integer() else None


def _numbers(text: str) -> set[str]:
    t = _norm(text)
    out = {re.sub(r"[,\s]", "", m.group()).lstrip("0") or "0" for m in _DIGITS.finditer(t)}
    words = _en_numbers()
    for w in re.findall(r"[a-z]+", t):
        if w in words:
            out.add(str(words[w]))
    for m in re.finditer(f"[{_zh_numerals()}]+", text):
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


def negation_count(text: str) -> int:
    """How many negation cues (data/lang/*/cues.json negation, negation_patterns) ``text`` holds."""
    return len(_negation_rx().findall(text))


def _negated(text: str, *, endings: bool = True) -> bool:
    """A negation cue in ``text``; with ``endings``, an ending cue of the language data too (a source clause "我辞职了"
    is negated; a fact's own value "辞职" is not a negation of it). A ``not_negating`` idiom of cues.json holds a
    negation word but negates nothing it says ("can't believe he's five already")."""
    text = _not_negating_rx().sub(" ", text)
    return bool(_negation_rx().search(text) or (endings and _ending_cues().search(text)))


@lru_cache(maxsize=1)
def _not_negating_rx() -> re.Pattern:
    en = langdata.alternation(langdata.words("cues", "not_negating", ("en",)) or ("(?!)",))
    zh = langdata.alternation(langdata.words("cues", "not_negating", ("zh",)) or ("(?!)",))
    return re.compile(r"\b(?:" + en + r")\b|" + zh, re.I)


def _cjk_chars(text: str) -> set[str]:
    return {c for c in text if has_cjk(c)}


def _stem(w: str) -> str:
    for suf in ("ing", "ies", "es", "ed", "s"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            return w[: -len(suf)]
    return w


_SELF = frozenset({"user", "user's", "users"})


def _word(w: str) -> str:
    words = _en_numbers()
    return str(words[w]) if w in words else _stem(w)


def _overlap(claim: str, source: str) -> float:
    """Share of the claim's content (Latin words stemmed; CJK by character) found in the source."""
    c, s = _norm(claim), _norm(source)
    if c.strip() and c.strip() in s:
        return 1.0
    cw = {_word(w) for w in content_words(c) if not has_cjk(w) and w not in _SELF}
    sw = {_word(w) for w in content_words(s) if not has_cjk(w)}
    # numbers are checked on their own; "用户" (the user) is the implicit subject
    cc = {ch for ch in _cjk_chars(c.replace("用户", "")) if ch not in _zh_numerals()}
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
        if w in _date_words() and not re.search(rf"\b{w}", nsrc):
            reasons.append(f"date word not in source: {w}")
    # named entities
    names = {m.group() for m in _NAME.finditer(claim)}
    if entity:
        names.add(entity)
    for name in sorted(names):
        if name.casefold() in _not_names():
            continue
        if _norm(name) not in nsrc and not all(_norm(p) in nsrc for p in name.split() if p.casefold()
                                               not in _not_names()):
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
