"""When a clause says something holds: its own dates read by its tense, else the time phrase of its sentence.

One place reads the time of a clause for the write path (:mod:`anchormem.facts.plans`: whether a fact is a plan, when
a scheduled value takes effect):

- :func:`tense_of`: "future", "past" or "present", by the words of ``clause_time`` in
  ``data/lang/<lang>/dates.json`` (``future_words``: will, 'll, 会, 要; ``past_words``: did, 了, 已经; in English a
  verb in its simple past form too, as lemminflect reads it; ``frame_words``: from, starting, 起, 开始 read as ahead
  when nothing says past). A future word wins over a past one ("I was going to move"), a past one over a frame
  ("My rent went up from the 1st", 1号起涨了).
- :func:`clause_dates`: the dates of a clause, read with its tense (:func:`anchormem.text.dates.resolve_dates`: a
  bare day of the month is the next such day on or after the day said, or in the past tense the last one on or
  before it: "I'm moving to Denver on the 1st", "I moved on the 3rd", 1号起, 15号开始, 这个月底); a clause with no
  date of its own takes the date of another clause of its sentence that states no value ("我下个月搬家，搬到杭州滨江",
  "Next month I'm moving, I'll live in Leith": a time phrase frames every clause after it), not that of a clause
  that states a value of its own ("I live in Lisbon, and next month I'm moving to Berlin": Lisbon takes no date) nor
  of a clause after it ("I'm a teacher, I get paid on the 15th": the job takes no date), unless that later clause
  states no value and says when the speaker's value begins (``onset_words`` after ``onset_subjects``: "I accepted an
  offer from Stripe, I start there on March 1, 2028", 拿到了字节的offer，3月1号入职). "March 1, 2028" is one clause.

    clause_dates("搬到杭州滨江。", said_at, sentence="我下个月搬家，搬到杭州滨江。")   # -> [DateSpan("下个月", ...)]
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from .. import langdata
from .dates import DateSpan, resolve_dates
from .tokenize import has_cjk

__all__ = ["tense_of", "clause_dates", "split_clauses", "past_lemma", "participle_after", "WORD"]

_CLAUSES = re.compile(r"(?:[^,，;；:：.。!！?？]|(?<=\d)[,.:](?=\d)|(?<=\d),\s(?=(?:1[89]|2\d)\d\d(?!\d))|(?<=\d[snrt][tdh]),"
                      r"\s(?=(?:1[89]|2\d)\d\d(?!\d)))+[,，;；:：.。!！?？]*")  # (not inside 1,450 nor "March 1, 2028")
WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")  # a Latin word, with its apostrophes


@lru_cache(maxsize=8)
def _words_rx(key: str, lang: str) -> re.Pattern:
    """List ``key`` of ``clause_time`` in data/lang/<lang>/dates.json as one pattern (English whole words, a clitic
    such as "'ll" right after its word; Chinese substrings)."""
    entries = tuple(langdata.load("dates", lang).get("clause_time", {}).get(key, []))
    if lang == "zh":
        return re.compile(langdata.alternation(entries))
    clitics = langdata.alternation(tuple(e for e in entries if e[:1] in "'’")).replace("'", "['’]")
    whole = langdata.alternation(tuple(e for e in entries if e[:1] not in "'’")).replace("'", "['’]")
    return re.compile(r"(?:(?<![\w'’])(?:" + whole + r")|(?<=\w)(?:" + clitics + r"))(?![\w'’])", re.I)


@lru_cache(maxsize=4096)
def _simple_past(word: str) -> bool:
    """``word`` (lower case) is a verb in its simple past form ("moved", "went"), not also a present form ("put")."""
    from lemminflect import getInflection, getLemma  # lazy: tables load on first use

    lemma = (getLemma(word, upos="VERB") or (word,))[0]
    if lemma == word:
        return False
    return word in set(getInflection(lemma, tag="VBD") or ()) and \
        word not in set(getInflection(lemma, tag="VBP") or ())


def past_lemma(word: str) -> str:
    """The lemma of English ``word`` when it is a verb in its simple past form ("lived" -> "live", "was" -> "be"),
    else "" ("live", "put": also a present form)."""
    w = word.casefold().replace("’", "'")
    if len(w) <= 2 or "'" in w or not _simple_past(w):
        return ""
    from lemminflect import getLemma

    return (getLemma(w, upos="VERB") or ("",))[0]


@lru_cache(maxsize=1)
def participle_after() -> frozenset[str]:
    """``participle_after`` of ``clause_time`` (data/lang/en/dates.json), lower case: words after which a past form
    is a participle, a state ("I'm excited", "got married"), not a simple past."""
    words = langdata.load("dates", "en").get("clause_time", {}).get("participle_after", [])
    return frozenset(w.casefold() for w in words)


def _past_verb(clause: str) -> bool:
    """An English verb of ``clause`` in its simple past form, not right after a ``participle_after`` word ("I'm
    excited", "got married": a state)."""
    words = [w.casefold().replace("’", "'") for w in WORD.findall(clause)]
    after = participle_after()
    for i, w in enumerate(words):
        prev = words[i - 1] if i else ""
        if len(w) > 2 and "'" not in w and _simple_past(w) and prev not in after and \
                ("'" + prev.split("'", 1)[1] if "'" in prev else "") not in after:
            return True
    return False


def _says(key: str, clause: str) -> bool:
    return bool(_words_rx(key, "en").search(clause) or (has_cjk(clause) and _words_rx(key, "zh").search(clause)))


def tense_of(clause: str) -> str:
    """"future", "past" or "present" (see the module doc): "I'm moving on the 1st" -> "present" (read ahead with a
    bare day, as a frame is), "I'll start on the 15th" -> "future", "I moved on the 3rd", 我3号搬到杭州了 -> "past"."""
    if _says("future_words", clause):
        return "future"
    if _says("past_words", clause) or _past_verb(clause):
        return "past"
    return "future" if _says("frame_words", clause) else "present"


@lru_cache(maxsize=4)
def _onset_rx(lang: str) -> re.Pattern | None:
    """``onset_words`` of ``clause_time`` in data/lang/<lang>/dates.json, in English after one of
    ``onset_subjects`` (one word may come between: "I officially start"); None when the list is empty."""
    spec = langdata.load("dates", lang).get("clause_time", {})
    words = tuple(spec.get("onset_words", []))
    if not words:
        return None
    if lang == "zh":
        return re.compile(langdata.alternation(words))
    subjects = langdata.alternation(tuple(spec.get("onset_subjects", []))).replace("'", "['’]")
    return re.compile(r"(?:^\s*|(?<![\w'’])(?:" + subjects + r")\s+(?:\w+\s+)?)(?:" + langdata.alternation(words) +
                      r")(?![\w'’])", re.I)  # (said without a subject at the clause's start: "Starting next March.")


def _says_onset(clause: str) -> bool:
    """``clause`` says when the speaker's value begins ("I start there on March 1", 3月1号入职): see the module doc."""
    for lang in ("en", "zh") if has_cjk(clause) else ("en",):
        rx = _onset_rx(lang)
        if rx is not None and rx.search(clause):
            return True
    return False


def split_clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence``: its pieces between commas, semicolons, colons and sentence ends (not those inside
    a number: "1,450", "9:30")."""
    return [c for c in (m.group().strip() for m in _CLAUSES.finditer(sentence)) if c]


def _dates(clause: str, said_at: datetime) -> list[DateSpan]:
    return resolve_dates(clause, said_at, tense=tense_of(clause))


def clause_dates(clause: str, said_at: datetime, *, sentence: str | None = None,
                 values: tuple[str, ...] = (), after: str = "") -> list[DateSpan]:
    """The dates of ``clause`` (said at ``said_at``) read by its tense; when it has none, those of the first clause
    of ``sentence`` (the sentence holding it) before it that has a date and holds none of ``values`` (the values the
    turn states: a clause stating one has a time of its own), else those of an onset clause after it in the sentence
    or, when the sentence has none, of an onset sentence right after it (``after``: the turn's words after the
    sentence; "Accepted an offer at Stripe! Starting next March."), else ``[]``. See the module doc."""
    own = _dates(clause, said_at)
    if own or not sentence:
        return own or _next_onset(after, said_at, values)
    pieces = split_clauses(clause)
    if len(pieces) != 1 or len(split_clauses(sentence)) < 2:
        return _next_onset(after, said_at, values)
    bare = lambda c: c.rstrip(",，;；:：.。!！?？ ").casefold()  # noqa: E731
    mine = bare(pieces[0])
    folded = tuple(v.casefold() for v in values if v)
    others = split_clauses(sentence)
    at = next((i for i, other in enumerate(others) if bare(other) == mine), len(others))
    for other in others[:at]:
        if any(v in bare(other) for v in folded):
            continue
        got = _dates(other, said_at)
        if got:
            return got
    # a time phrase frames the clauses after it only ("I'm a teacher, I get paid on the 15th": none), unless the
    # later clause says the speaker's value begins then ("…offer from Stripe, I start there on March 1")
    for other in others[at + 1:]:
        low = bare(other)
        if any(v in low for v in folded):
            break
        if _says_onset(other):
            got = _dates(other, said_at)
            if got:
                return got
    return _next_onset(after, said_at, values)


def _next_onset(after: str, said_at: datetime, values: tuple[str, ...]) -> list[DateSpan]:
    """The dates of the sentence opening ``after`` when it states none of ``values`` and says when the speaker's
    value begins ("Starting next March.", "I start on the 3rd."): it dates the sentence before it."""
    from .segment import split_sentences

    nxt = next(iter(split_sentences(after.strip())), "") if after.strip() else ""
    folded = tuple(v.casefold() for v in values if v)
    if not nxt or any(v in nxt.casefold() for v in folded) or not _says_onset(nxt):
        return []
    return _dates(nxt, said_at)
