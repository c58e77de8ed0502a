"""Claims: the slot facts a memory carries, and what a memory says *now* (currency on every read path).

A memory carries claims (:class:`~anchormem.types.Claim`): a fact memory its own fact, a kept utterance the facts
drawn from it (:func:`anchormem.facts.reconcile.plan_facts` links them; the stores keep them in a ``claims`` table,
:mod:`anchormem.stores.claims_sql`). Superseding a fact closes its claim on every memory that carries it; a memory
whose claims are all closed is closed too. A memory with some claims closed stays current for the rest:

- :func:`current_view` is the memory as evidence now: its text without the words of its closed claims (None when
  nothing else is left), so that ``ask``, ``context()`` and summaries never show a superseded value as current;
- :func:`past_note` marks a memory shown from the past ("until 2024-03");
- :func:`asks_past` tells a question about the past ("Where did I live before?", "我以前住哪里？"), whose words
  live in ``data/past_questions.json``: such a question also reads superseded memories.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from difflib import SequenceMatcher
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

from .. import langdata
from ..stores.claims_sql import own_claims
from ..text.tokenize import has_cjk, query_terms
from ..timeutil import day_of, month_of, utcnow
from ..types import Claim, MemoryItem
from ..text.segment import CLAUSE_PIECE

__all__ = ["said_on", "carry", "scheduled_ahead", "reading_as_of", "read_at", "own_claims", "claim_words", "decided_words", "closing_words", "closed_claims", "current_view", "strip_spans", "past_note", "corrected_note", "schedule_note", "asks_past", "month",
           "without_past_words", "remainder", "has_content", "value_clause", "starts_statement", "with_subject", "value_head"]


def carry(item: MemoryItem, claims: list[Claim]) -> None:
    """Make ``item`` (an utterance being written) carry ``claims`` (each claim once). When every one of them is
    already closed (a late import of an older turn) and nothing else is left of its text (:func:`remainder`), the
    item is stored closed with them: ``valid_to`` = the last ``valid_to``, ``superseded_by`` its claim's
    successor."""
    seen: dict[str, Claim] = {}
    for c in claims:
        seen.setdefault(c.fact_id, c)
    item.claims = list(seen.values())
    if item.claims and all(c.valid_to is not None for c in item.claims) and item.valid_to is None and \
            remainder(item.text, [closing_words(c) for c in item.claims],
                      values=[c.value for c in item.claims]) is None:
        last = max(item.claims, key=lambda c: c.valid_to)  # type: ignore[arg-type,return-value]
        item.valid_to, item.superseded_by = last.valid_to, last.superseded_by


# where a span starts a statement of its own: a comma, semicolon, "and" or "but" before a first-person subject
_SUBJECT = r"(?:I|I'm|I've|I'd|my|we|we're|our)\b|我"
_JOINS = re.compile(r"(?:[,，;；]\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+)(?=" + _SUBJECT + ")")
_STARTS = re.compile(r"^\W*(?:(?:and|but|so)\s+)?(?:" + _SUBJECT + ")")


def starts_statement(piece: str) -> bool:
    """``piece`` (a clause of a sentence) opens with a first-person subject of its own ("I smoke", "and I'm a
    nurse", "我在学钢琴"): a statement of its own, where :func:`claim_words` cuts a span; "每周上一节课", "been here
    five years" continue the statement before them."""
    return bool(_STARTS.match(piece))


def claim_words(span: str, value: str) -> str:
    """The words of a claim whose ``span`` runs over more than its value's clause ("I live in Portland and I'm a
    dental hygienist." for the home ``Portland``): the span's statements (split where a first-person subject starts
    one: ", I", "and I'm", "，我") that hold ``value``; ``span`` itself when the value is in all of them, in none, or
    the span is one statement ("我是team lead，管五个人" is one: the second clause has no subject of its own). What a superseded claim takes out of its memory, so the rest stays current."""
    from .cuts import statement_of

    v = (value or "").strip().casefold()
    if not v or not span:
        return span
    parts = [p for p in _JOINS.split(span) if p and p.strip()]
    hold = [p for p in parts if v in p.casefold()]
    if len(parts) < 2 or not hold or len(hold) == len(parts):
        return value_clause(statement_of(span, value), value)
    return " ".join(value_clause(statement_of(p.strip(), value), value) for p in hold)


def decided_words(span: str, value: str, extractor: str = "") -> str:
    """What closing a claim takes out of its memory, decided once, when the claim is written (stored as
    :attr:`~anchormem.types.Claim.words`): for a claim made for an older memory's words by the change reader
    (``extractor="relative"``: what an ending ends, :func:`anchormem.facts.cuts.ended_words`, or the piece a change
    names) its ``span`` as decided there; else the statement or list item of ``span`` holding ``value``
    (:func:`claim_words`: "I live in Portland" of "I live in Portland and I'm a dental hygienist.")."""
    if extractor == "relative":
        return span.strip()
    return claim_words(span, value)


def closing_words(claim: Claim | str, value: str = "", words: str | None = None) -> str:
    """The words a closed claim takes out of its memory on every read path (``ask``, ``search``, ``context()``,
    summaries): its stored :attr:`~anchormem.types.Claim.words`; for a claim stored before they were kept, its
    span cut by its value at read time (:func:`claim_words`). Takes a :class:`~anchormem.types.Claim`, or its
    ``span``, ``value`` and ``words`` (a row)."""
    if isinstance(claim, Claim):
        claim, value, words = claim.span, claim.value, claim.words
    return words if words else claim_words(claim, value)


@lru_cache(maxsize=2)
def _value_end(amount: bool = False) -> re.Pattern[str]:
    """Words after which a value has ended and the clause goes on about something else (``value_goes_on`` of
    ``data/lang/<lang>/claims.json``: "with", "because"...; not "near" or "which", which describe the value), right
    after the value; after an amount, ``amount_goes_on`` too ("at the library")."""
    words = tuple(langdata.words("claims", "value_goes_on")) + (
        tuple(langdata.words("claims", "amount_goes_on")) if amount else ())
    parts = [re.escape(w).replace(r"\ ", r"\s+") if re.search(r"[^\x00-\x7f]", w) else
             r"\s+" + re.escape(w).replace(r"\ ", r"\s+") + r"\b" for w in words]
    return re.compile("|".join(parts) or "(?!)", re.I)


def value_clause(text: str, value: str) -> str:
    """``text`` up to the end of its ``value`` when what follows starts with a word that ends a value (see
    :func:`_value_end`) and the value is a name (capitalised, or Chinese) or an amount: "I live in 上海 with my wife
    小红." for the home 上海 -> "I live in 上海" (the wife is no part of the home, and stays said when the home moves),
    "I make 65k a year at the library" -> "I make 65k a year"; ``text`` itself otherwise ("I drink wine with
    dinner." is one habit)."""
    v = (value or "").strip()
    i = text.casefold().find(v.casefold()) if v else -1
    if i < 0 or not (v[:1].isupper() or has_cjk(v[:1]) or _amount(v)):  # a name (a place, a company) or an
        return text  # amount ("sixty-five thousand a year at the library"): "wine with dinner" is one habit
    end = i + len(v)
    rest = text[end:]
    if not _value_end(_amount(v)).match(rest) or not has_content(rest):
        return text
    return text[:end].rstrip(" ,，")


def _amount(value: str) -> bool:
    """``value`` is an amount (a number, in digits or words, with or without its unit: "$1,850", "72k", "sixty-five
    thousand a year"), read by :func:`anchormem.facts.values.parse`."""
    from .values import parse

    try:
        return bool(parse(value, "zh" if has_cjk(value) else "en"))
    except Exception:  # (a reader of values never stops a read path)
        return False


def value_head(value: str) -> str:
    """A Latin-script name ``value`` up to where its clause goes on about something else: a ``value_goes_on`` word
    followed by a lower-case word ("Dublin and drive an old red Volvo" -> "Dublin"; "Bosnia and Herzegovina",
    "Marks and Spencer" stay whole: a capitalised word goes on with the name)."""
    v = value.strip()
    if not v or has_cjk(v):
        return value
    for m in _value_end().finditer(v):
        if m.start() > 0 and re.match(r"\s*[a-z]", v[m.end():]):
            return v[:m.start()].rstrip(" ,")
    return value


def closed_claims(item: MemoryItem, as_of: datetime | None = None) -> list[Claim]:
    """The claims of ``item`` no longer holding (at ``as_of``, default now: a claim closed at a date still ahead,
    by a scheduled value, holds until then)."""
    as_of = utcnow() if as_of is None else as_of
    return [c for c in item.claims if c.valid_to is not None and c.valid_to <= as_of]


_TIDY = re.compile(r"^[\s,，;；、.。!！?？:：\-–—]+|[\s,，;；、:：\-–—]+$")


def current_view(item: MemoryItem, as_of: datetime | None = None) -> MemoryItem | None:
    """``item`` as evidence of what holds (at ``as_of``, default now): unchanged when none of its claims is closed
    (or when it is itself closed: a past memory, shown as such by the caller); else a copy whose ``text`` is
    :func:`remainder` (without the words of each closed claim and the clauses referring back to them), or None
    when nothing is left ("Hi, I'm Sam. I live in Lisbon." with the home closed -> "Hi, I'm Sam.")."""
    closed = closed_claims(item, as_of)
    if not closed or item.valid_to is not None:
        return item
    held = [c.span for c in item.claims if c not in closed]  # words that also state a claim still holding stay
    text = remainder(item.text, [closing_words(c) for c in closed], held, [c.value for c in closed])
    if text is None:
        return None
    return item.model_copy(update={"text": elided(item.text, with_subject(item.text, text))})


@lru_cache(maxsize=1)
def _subject_opening() -> re.Pattern[str]:
    """A sentence's opening first-person subject (``subjects`` of ``data/lang/<lang>/claims.json``: "I", "we", 我,
    我们; whole words for Latin entries), after any leading punctuation or space."""
    alts = sorted({w for w in langdata.words("claims", "subjects") if w.strip()}, key=len, reverse=True)
    pat = "|".join(re.escape(w) if re.search(r"[^\x00-\x7f]", w) else re.escape(w) + r"\b(?!')" for w in alts)
    return re.compile(r"^[\s\"“'(]*(" + (pat or "(?!)") + ")", re.I)


_SENTENCE = re.compile(r"[^.。!！?？]+[.。!！?？]*")


def _own_subject(piece: str) -> bool:
    """``piece`` says a first-person subject of its own somewhere ("so now I have three kids"), not only after the
    start its sentence had."""
    alts = [w for w in langdata.words("claims", "subjects") if w.strip()]
    return any((w in piece) if has_cjk(w) else re.search(r"\b" + re.escape(w) + r"\b", piece, re.I) for w in alts)


def with_subject(original: str, cut: str) -> str:
    """``cut`` (what :func:`remainder` left of ``original``, its words in order) with each sentence piece that lost
    its sentence's opening subject given it back: a piece that starts inside its sentence of ``original`` and opens
    no statement of its own (:func:`starts_statement`) reads alone only with the subject its sentence opened with
    ("I live in Leeds and work at Google." with the home closed: "work at Google." -> "I work at Google.", which
    :func:`elided` shows as "I … work at Google."; 我住在杭州，在阿里巴巴工作。 -> 我在阿里巴巴工作。). A sentence
    opening without a first-person subject (``subjects`` of ``claims.json``) gives none. ``cut`` unchanged when no
    piece needs one. Both are plain strings; never raises."""
    out: list[str] = []
    at = 0
    for piece in _SENTENCE.findall(cut):
        body = piece.strip()
        i = original.find(body, at) if body else -1
        if i < 0:
            out.append(piece)
            continue
        at = i + len(body)
        start = max(original.rfind(p, 0, i) for p in ".。!！?？") + 1
        opening = _subject_opening().match(original[start:i])
        if original[start:i].strip() and opening and not starts_statement(body) and not _own_subject(body):
            lead = piece[:len(piece) - len(piece.lstrip())]
            subject = opening.group(1)
            out.append(lead + subject + ("" if has_cjk(subject) else " ") + body)
        else:
            out.append(piece)
    return "".join(out)


ELISION = "…"


def elided(original: str, cut: str) -> str:
    """``cut`` (words taken out of ``original``, in order) with :data:`ELISION` where words went out, so a quote of
    what is left never reads as verbatim: "Hi, I'm Chen Wei. … with my wife Mei" / "我上周从腾讯辞职了，…做产品经理。"
    Only removed pieces holding a letter or digit are marked (a comma the tidying dropped is not), and only inside
    what is left."""
    if cut == original:
        return cut
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, original, cut, autojunk=False).get_opcodes():
        if tag in ("delete", "replace") and re.search(r"\w", original[i1:i2]) and \
                not (out and out[-1].rstrip().endswith(ELISION)):
            out.append(f" {ELISION} " if not has_cjk(original[i1:i2]) else ELISION)
        if tag in ("equal", "insert", "replace"):
            out.append(cut[j1:j2])
    text = re.sub(r"\s+", " ", "".join(out))
    text = re.sub(r"\s+([.。!！?？,，;；:：])", r"\1", text)
    text = re.sub(rf"(?:{ELISION}\s*)+", f"{ELISION} ", text).replace(f"{ELISION} 」", f"{ELISION}」")
    text = re.sub(rf"([\u3000-\u9fff\uff00-\uffef]){ELISION} ", rf"\1{ELISION}", text)
    # only a cut inside what is left joins two pieces: one at its start or end (a whole sentence or clause out)
    # leaves the rest as said
    text = re.sub(rf"^\s*{ELISION}\s*|\s*{ELISION}\s*(?=[.。!！?？]|$)", "", text)  # (a sentence's tail out)
    # nor does a whole sentence out between two sentences ("Hi, I'm Sam. [I live in Lisbon.] I work as a nurse.")
    text = re.sub(rf"(?<=[.!?])\s*{ELISION}\s*(?=[A-Z\"“'(])", " ", text)
    text = re.sub(rf"(?<=[。！？])\s*{ELISION}\s*", "", text)
    text = re.sub(rf"(?<=[\u3000-\u9fff\uff00-\uffef])\s*{ELISION}\s*(?=\S)", ELISION, text)
    return text.strip()


@lru_cache(maxsize=1)
def _claim_words() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(back references, filler) of ``data/lang/*/claims.json``: whole words for Latin entries, substrings for CJK."""
    def pattern(key: str) -> re.Pattern[str]:
        parts = [re.escape(w).replace(r"\ ", r"\s+") if re.search(r"[^\x00-\x7f]", w) else
                 r"\b" + re.escape(w).replace(r"\ ", r"\s+") + r"\b" for w in langdata.words("claims", key)]
        return re.compile("|".join(parts) or "(?!)", re.I)
    return pattern("back_references"), pattern("filler")


_CLAUSE = CLAUSE_PIECE  # (anchormem.text.segment: not inside "1,850" nor "3.5")


def has_content(text: str) -> bool:
    """``text`` says something of its own: a content word once filler ("now", "last month", 现在, 了; data:
    ``claims.json``) and stopwords are left out ("Hi, I'm Sam." yes; "now." no)."""
    return bool(query_terms(_claim_words()[1].sub(" ", text)))


_CAPITALISED = re.compile(r"(?<![\w'’])(?!I\b)[A-Z][\w'’-]*")


def adds_content(text: str, than: str) -> bool:
    """``text`` holds a content word (:func:`has_content`'s: filler and stopwords left out) that ``than`` does not:
    "I live in Shanghai, Jing'an district." adds to "I live in Shanghai."; "I live in Shanghai now." and "I work as a
    nurse." (after "I am a nurse.") do not: one new common word is taken as the frame said another way."""
    words = _claim_words()[1]
    known = {f for t in query_terms(words.sub(" ", than)) for f in _forms(t)}
    new = [t for t in query_terms(words.sub(" ", text)) if not (_forms(t) & known)]
    if len(new) != 1:
        return len(new) > 1
    # one new word: new content when it is a name, a number or a CJK word; a single common word is most often the
    # frame said another way ("I work as a nurse." after "I am a nurse.")
    names = {w.casefold() for w in _CAPITALISED.findall(text.strip()[1:])}
    return new[0] in names or not new[0].isalpha() or has_cjk(new[0])


def _forms(term: str) -> set[str]:
    """``term`` and, for an English word, its verb and noun lemmas ("living" -> living, live)."""
    if not (term.isascii() and term.isalpha()):
        return {term}
    from lemminflect import getLemma  # lazy: tables load on first use

    return {term, (getLemma(term, upos="NOUN") or (term,))[0], (getLemma(term, upos="VERB") or (term,))[0]}


def remainder(text: str, closed: list[str], held: list[str] | tuple[str, ...] = (),
              values: list[str] | tuple[str, ...] = ()) -> str | None:
    """What ``text`` still says once the claims whose words are ``closed`` no longer hold: the text without those
    words (:func:`strip_spans`; words that are also a claim still holding, ``held``, stay) and without the clauses
    that refer back to them ("I live in Lisbon. The light there is lovely.": "there"; 那里, 那儿; data:
    ``claims.json`` ``back_references``) or name one of their ``values`` ("I quit Google and joined Meta.": "I quit
    Google"), unless they hold a held claim's words. A clause referring back takes only its own sub-clause: one
    of its sub-clauses saying something of its own stays (:func:`_own_pieces`: "been here five years with my partner
    and our dog Pickles." keeps "my partner and our dog Pickles."). None when nothing with content
    (:func:`has_content`) is left: such a memory is wholly superseded."""
    keep = [h.strip() for h in held if h and h.strip()]
    out = strip_spans(text, [c for c in closed if c.strip() and c.strip() not in keep], keep)
    if out is None:
        return None
    back = _claim_words()[0]
    named = [v.casefold() for v in values if v and len(v.strip()) > 1]
    parts = []
    for p in _CLAUSE.findall(out):
        if any(h in p or p.strip(" ,，;；.。") in h for h in keep) or \
                not (back.search(p) or any(v in p.casefold() for v in named)):
            parts.append(p)
        elif not any(v in p.casefold() for v in named) and (own := _own_pieces(p, back)):
            parts.append(own)
    out = strip_spans("".join(parts), []) if parts else None
    return out if out is not None and has_content(out) else None


@lru_cache(maxsize=1)
def _joins() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(sub-clause joins, own content) of ``data/lang/*/claims.json``: ``back_reference_joins`` split a clause
    (kept in the split), ``own_content`` words say something of the speaker's own (whole words for Latin entries)."""
    def alt(key: str) -> str:
        return "|".join(re.escape(w) if re.search(r"[^\x00-\x7f]", w) else r"\b" + re.escape(w) + r"\b"
                        for w in langdata.words("claims", key)) or "(?!)"
    return re.compile(r"(\s+(?:" + alt("back_reference_joins") + r")\s+|(?:" + alt("back_reference_joins") + "))",
                      re.I), re.compile(alt("own_content"))


_NAME = re.compile(r"(?<![\w'])(?!I\b|I')[A-Z][a-z]+")


def _own_pieces(clause: str, back: re.Pattern[str]) -> str | None:
    """What a clause holding a back reference (``back``) says of its own beyond the old value: its sub-clauses
    (split at ``back_reference_joins``: "so", "with", "and", 所以…) without a back reference that name a person or
    thing of the speaker's or a name (``own_content``; a capitalised word): "been here about five years with my
    partner and our dog Pickles." -> "my partner and our dog Pickles."; "Mei works nights at the hospital so she
    sleeps thru it" -> "Mei works nights at the hospital"; None when none does ("The light there is lovely.")."""
    joins, own = _joins()
    body = clause.rstrip(" .。!！?？;；,，")
    tail = clause[len(body):]
    bits = joins.split(body)  # [piece, join, piece, join, piece...]
    pieces = bits[0::2]
    kept = [bool(p.strip()) and not back.search(p) and bool(own.search(p) or _NAME.search(p)) and has_content(p)
            for p in pieces]
    if not any(kept):
        return None
    out = ""
    for i, p in enumerate(pieces):
        if kept[i]:
            out += (bits[2 * i - 1] if i and kept[i - 1] else (" " if out else "")) + p.strip()
    return clause[:len(clause) - len(clause.lstrip())] + out.strip() + tail  # (its leading space: "2am. Mei")


def _occurrences(text: str, span: str) -> list[tuple[int, int]]:
    """Where ``span`` (or, when absent, ``span`` without its closing punctuation) stands in ``text``."""
    for s in (span, span.rstrip(".。!！?？")):
        if s and s in text:
            out, at = [], text.find(s)
            while at >= 0:
                out.append((at, at + len(s)))
                at = text.find(s, at + len(s))
            return out
    return []


def strip_spans(text: str, spans: list[str], keep: list[str] | tuple[str, ...] = ()) -> str | None:
    """``text`` without each of ``spans`` (the words of closed claims), except the words of a ``keep`` span (a claim
    still holding) said wholly inside them ("I work as a pharmacist" stays when "I work as a pharmacist at Boots"
    closes; "I have two cats" goes from a holding "I have two cats, Tom and Jerry"), tidied (no dangling
    "and", doubled punctuation); None when nothing but punctuation and joining words is left."""
    gone = bytearray(len(text))
    for span in (x.strip() for x in spans):
        for a, b in _occurrences(text, span) if span else ():
            gone[a:b] = b"\x01" * (b - a)
    for span in (x.strip() for x in keep):  # a holding claim said inside a closed one's words keeps its words; one
        for a, b in _occurrences(text, span) if span else ():  # whose words hold a closed claim's does not keep those
            if all(gone[a:b]):
                gone[a:b] = bytes(b - a)
    if any(gone):
        text = "".join("\x00" if gone[i] and (i == 0 or not gone[i - 1]) else "" if gone[i] else ch
                       for i, ch in enumerate(text))
        # a joining word left behind where a clause went out after a comma: "Hi, [I live in X] and I work…" -> "Hi, I
        # work…" (before the speaker's next clause only: a list keeps it, "Spotify, [Disney+] and the NYT app")
        text = re.sub(r"([,，;；])\s*\x00\s*(?:(?:and|but|so|also)\s+(?=(?:I|I'm|I've|we|my|our)\b)|(?:而且|并且)\s*)",
                      r"\1 ", text, flags=re.I)
        text = text.replace("\x00", " ")
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"(^\s*|[.。!！?？]\s*)(?:(?:and|but|so|also)\s+|而且|并且)", r"\1", text, flags=re.I)  # ". and I"
    text = re.sub(r"\s*(?:\band\b|和)\s*(?=[.。!！?？]|$)", "", text, flags=re.I)  # a dangling "... and."
    text = re.sub(r"[、，,]\s*(?=(?:和|及|以及)(?!\s*[.。!！?？]))", "", text)  # "爱奇艺、 和Spotify" (an item out)
    text = re.sub(r"\s+([.。!！?？,，])", r"\1", text)
    text = re.sub(r"[,，;；、:：]\s*([.。!！?？])", r"\1", text)  # "我是开出租车的，。" (the piece after it out)
    text = re.sub(r"([.。!！?？])[,，;；\s.。]+", r"\1 ", text)
    text = re.sub(r"([,，;；:：])\s*[,，;；][\s,，;；]*", lambda m: m.group(1) + (" " if m.group(1) in ",;:" else ""),
                  text)  # "我叫李娜，，是一名老师" -> "我叫李娜，是一名老师"
    text = _TIDY.sub("", text).strip()
    return text if re.search(r"\w", text) else None


def month(dt: datetime) -> str:
    """``"2024-03"``: the month of ``dt`` on the users' calendar (:func:`anchormem.timeutil.month_of`)."""
    return month_of(dt)


def scheduled_ahead(store, scope, now: datetime) -> bool:
    """The scope holds a scheduled claim not in effect yet at ``now``: a current fact memory whose ``valid_from`` (when
    it takes effect: :func:`anchormem.facts.plans.scheduled_start`) is after both the time it was said
    (``created_at``) and ``now``. A read without ``as_of`` then reads as of ``now`` (the value it replaces still
    holds, closed only from that time on), so that no write is needed when the date comes."""
    if hasattr(store, "has_scheduled_ahead"):  # one indexed read (both SQL stores)
        return bool(store.has_scheduled_ahead(scope, now))
    from ..filters import And, Cond

    where = And((Cond(field="kind", op="eq", value="fact"), Cond(field="valid_from", op="gt", value=now.timestamp())))
    return any(m.valid_from > m.created_at for m in store.list_memories(scope, where))


_READ_AT: ContextVar[datetime | None] = ContextVar("anchormem_read_at", default=None)


@contextmanager
def reading_as_of(when: datetime) -> Iterator[None]:
    """Within the block, notes are worded as of ``when`` (an aware datetime: the ``as_of`` of the read being
    answered) instead of the wall clock: a value said by then for a date after it is "planned: from …"
    (:func:`schedule_note`). Per thread and task (a context variable)."""
    token = _READ_AT.set(when)
    try:
        yield
    finally:
        _READ_AT.reset(token)


def read_at() -> datetime | None:
    """The instant of the read being answered (:func:`reading_as_of`), None outside one."""
    return _READ_AT.get()


def schedule_note(item: Any, *, zh: bool = False, now: datetime | None = None) -> str | None:
    """How a memory is marked while a scheduled change is still ahead of ``now`` (default the wall clock), in the
    words of ``schedule_notes`` of ``data/lang/<lang>/plans.json``: a scheduled value (``state`` "scheduled":
    :func:`anchormem.types.validity_state`) "planned: from 2024-04-01" / "计划2024年4月1日起"; the value it replaces,
    closed at that date and current until then, "current; until 2024-04-01, a change is planned" /
    "目前如此，计划2024年4月1日起改变". None for any other memory (a value closed in the past is :func:`past_note`'s)."""
    from ..types import validity_state

    read_at = _READ_AT.get() if now is None else None
    now = (read_at or utcnow()) if now is None else now
    state = validity_state(item.valid_from, item.valid_to, item.created_at, now)
    if state == "current" and item.valid_to is not None and read_at is not None:
        return None  # as of a past read, whether the change that ended it had been said by then is not known
        # here: the end is worded as the past note does ("true until 2024-03")
    if state == "scheduled":
        key, when = "scheduled", item.valid_from
    elif state == "current" and item.valid_to is not None:
        key, when = "ending", item.valid_to
    else:
        return None
    notes = langdata.load("plans", "zh" if zh else "en").get("schedule_notes") or {}
    template = notes.get(key)
    if not template:
        return None
    day = day_of(when)  # the users' calendar day (Config.timezone; UTC when unset)
    y, mo, d = (int(x) for x in day.split("-"))
    return template.format(date=day, year=y, month=mo, day=d)


def corrected_note(item: Any, *, zh: bool = False) -> str | None:
    """How a memory whose value the user took back is marked when shown (``metadata["corrected_by"]``, set when a
    self-correction closed it: :mod:`anchormem.facts.corrections`), in the words of ``correction_note`` of
    data/lang/<lang>/changes.json: "corrected: said by mistake, never held (superseded)" / "已更正：之前说错了，从未成立";
    None for any other memory."""
    if item.valid_to is None or not (getattr(item, "metadata", None) or {}).get("corrected_by"):
        return None
    return langdata.load("changes", "zh" if zh else "en").get("correction_note") or None


def past_note(item: MemoryItem, as_of: datetime | None = None) -> str | None:
    """How a memory that no longer holds (at ``as_of``) is marked when shown: ``"until 2024-03"``; None when it holds
    (``valid_to`` unset or later than ``as_of``)."""
    if item.valid_to is None or item.valid_to > (as_of or utcnow()):  # (closed at a date ahead: holds until then)
        return None
    return f"until {month(item.valid_to)}"


@lru_cache(maxsize=1)
def _past_pattern() -> re.Pattern[str]:
    data = json.loads(resources.files("anchormem.data").joinpath("past_questions.json").read_text("utf-8"))
    parts: list[str] = []
    for lang, words in data.items():
        if lang.startswith("_") or lang == "not_past":
            continue
        for w in sorted(words, key=len, reverse=True):
            parts.append(re.escape(w) if re.search(r"[^\x00-\x7f]", w) else rf"\b{re.escape(w)}\b")
    return re.compile("|".join(parts), re.I)


@lru_cache(maxsize=1)
def _not_past() -> re.Pattern[str]:
    """Words holding a past word that ask no past (``not_past`` of ``data/past_questions.json``: 目前, 前面)."""
    data = json.loads(resources.files("anchormem.data").joinpath("past_questions.json").read_text("utf-8"))
    words = sorted(data.get("not_past", []), key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in words) or "(?!)")


def _past_spans(query: str) -> list[tuple[int, int]]:
    """The spans of ``query``'s past words, those inside a ``not_past`` word left out."""
    masked = [m.span() for m in _not_past().finditer(query)]
    return [m.span() for m in _past_pattern().finditer(query)
            if not any(a <= m.start() and m.end() <= b for a, b in masked)]


def asks_past(query: str) -> bool:
    """The question asks about the past ("Did I ever live in Lisbon?", "Where did I live before?", "我以前住哪里？",
    "我搬家前住哪？"; words: ``data/past_questions.json``; not 我目前住哪？)."""
    return bool(_past_spans(query))


def without_past_words(query: str) -> str:
    """``query`` without its past words ("我以前住哪里？" -> "我住哪里？"): once search has read the past, they are
    not words a memory must contain to answer (a superseded memory says "I live in Lisbon", not "before")."""
    out = query
    for a, b in reversed(_past_spans(query)):
        out = out[:a] + " " + out[b:]
    out = re.sub(r"(?<=[^\x00-\x7f]) | (?=[^\x00-\x7f])", "", out)
    out = " ".join(out.split())
    return out if re.search(r"\w", out) else query


def said_on(m: MemoryItem) -> datetime:
    """When the words of ``m`` were said, as a quote dates them: its ``created_at``; for a value a call-off restored
    (:func:`anchormem.facts.called_off.restored`: a copy current from the call-off) the time its original was said
    (``metadata["restored_said"]``), so "I live in Lisbon." is never quoted as said on the day a plan was called off."""
    said = (m.metadata or {}).get("restored_said")
    if isinstance(said, str):
        try:
            return datetime.fromisoformat(said)
        except ValueError:
            pass
    return m.created_at
