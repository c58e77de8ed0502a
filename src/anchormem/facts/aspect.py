"""The aspect of a clause: does it say a state of the speaker's ended, or began in place of another?

A change is said far more ways than any list of slot patterns holds ("烟终于戒了！", "not vegetarian anymore",
"keto is dead to me", "不开出租了，改跑滴滴了"), but the ways of saying *that* something ended or began are few: a
small closed class of grammar and aspect words per language. This module reads only those; *what* ended or began is
resolved by meaning against the user's open claims (:mod:`.relative`), and the scene gate (:mod:`.stance`) still
decides whether the clause is about the speaker now at all.

- **terminative**: the state ended ("quit", "no longer", "not … anymore", "gave up", "done with", 戒, 不再, 不…了,
  退了, 放弃);
- **inchoative**: a state holds from now on, in place of another ("now", "switched", "moved", "became", 现在, 改,
  换成, 转行);
- **past state** (:func:`past_state`): a state of the past told as a state, not as a change ("I lived in Nanjing",
  "rent was 3500", "I worked as a nurse", 以前…房租才3500, 那时候住在南京) - as opposed to a change told in the past
  ("I moved to Berlin", "my rent went up to 1400", "I was promoted", 搬到了杭州, 房租涨到3500了). Such a value
  already ended: it never replaces the present one (:mod:`.reconcile` stores it closed).

The markers are data: ``terminative``, ``terminative_patterns`` (discontinuous markers as regexes: "not vegetarian
anymore", 不开出租了), ``not_terminative`` (phrases holding a marker that end nothing: 不行了, 受不了) and
``inchoative`` of ``data/lang/<lang>/aspect.json``. Both languages are looked up in a clause with Chinese in it (a
mixed clause says its aspect in either).

    terminative("烟终于戒了！")                   # -> "戒"
    terminative("not vegetarian anymore")        # -> "not vegetarian anymore"
    terminative("I don't like the office coffee")  # -> ""
    inchoative("we're in Raleigh now")           # -> "now"

Nothing is read before first use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .. import langdata
from ..text.clause_time import WORD, participle_after, past_lemma, split_clauses, tense_of
from ..text.tokenize import has_cjk

__all__ = ["terminative", "inchoative", "episodic", "lasting", "aspect", "reads_as_change", "without_markers",
           "past_state"]


@lru_cache(maxsize=8)
def _matcher(lang: str, key: str) -> tuple[re.Pattern | None, tuple[str, ...]]:
    """The entries of ``key`` for ``lang``: Latin ones as whole words (case-insensitive), CJK ones anywhere."""
    ws = list(dict.fromkeys(langdata.load("aspect", lang).get(key, [])))
    latin = sorted((w for w in ws if not has_cjk(w)), key=len, reverse=True)
    rx = re.compile(r"(?<![\w'’])(?:" + "|".join(re.escape(w) for w in latin) + r")(?![\w'’])", re.I) if latin else None
    return rx, tuple(sorted((w for w in ws if has_cjk(w)), key=len, reverse=True))


@lru_cache(maxsize=4)
def _patterns(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.I) for p in langdata.load("aspect", lang).get("terminative_patterns", []))


def _langs(text: str) -> tuple[str, ...]:
    return ("zh", "en") if has_cjk(text) else ("en",)


def _find(text: str, lang: str, key: str) -> str:
    rx, cjk = _matcher(lang, key)
    hit = next((w for w in cjk if w in text), "")
    if hit:
        return hit
    m = rx.search(text) if rx is not None else None
    return m.group(0) if m else ""


def _masked(text: str, lang: str) -> str:
    """``text`` with its ``not_terminative`` phrases blanked ("胃不行了" holds 不…了 and ends nothing)."""
    rx, cjk = _matcher(lang, "not_terminative")
    for w in cjk:
        text = text.replace(w, " " * len(w))
    return rx.sub(lambda m: " " * len(m.group(0)), text) if rx is not None else text


def _term(clause: str) -> tuple[str, int, int, str]:
    """(marker, start, end, what): the terminative marker of ``clause``, where it is, and the words inside a
    discontinuous marker (the ``what`` group of a pattern: "not *vegetarian* anymore", 不*开出租*了)."""
    for lang in _langs(clause):
        text = _masked(clause, lang)
        for rx in _patterns(lang):  # (a discontinuous marker first: "not vegetarian anymore" holds "anymore")
            m = rx.search(text)
            if m:
                return m.group(0), m.start(), m.end(), m.groupdict().get("what") or ""
        hit = _find(text, lang, "terminative")
        if hit:
            at = text.casefold().find(hit.casefold())
            return hit, at, at + len(hit), ""
    return "", -1, -1, ""


def terminative(clause: str) -> str:
    """The terminative marker of ``clause`` (the words saying a state of the speaker's ended: "quit", "no longer",
    "not vegetarian anymore", 戒, 不再, 不开出租了, 退了), or "" when it holds none. Only the marker is read: whose
    state and which one are for the callers (:mod:`.stance`, :mod:`.relative`)."""
    return _term(clause)[0]


@lru_cache(maxsize=4)
def _lasting_patterns(lang: str) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.I) for p in langdata.load("aspect", lang).get("lasting_patterns", []))


def lasting(clause: str) -> bool:
    """``clause`` says a span of time has passed since a state ended (``lasting_patterns`` of aspect.json: "three
    months without a cigarette", "day 40 without", 一个月没喝了): a lasting state, not one occasion."""
    return any(rx.search(clause) for lang in _langs(clause) for rx in _lasting_patterns(lang))


def episodic(clause: str) -> bool:
    """``clause`` is bounded to one occasion (``episodic`` of aspect.json: "today", "this week", 今天, 这周): "no
    tennis this week", "今天下雨，不跑了" end an occasion, not a state; not when it says a span has passed since the
    state ended (:func:`lasting`: "Three months without a cigarette today!")."""
    return any(_find(clause, lang, "episodic") for lang in _langs(clause)) and not lasting(clause)


def inchoative(clause: str) -> str:
    """The inchoative marker of ``clause`` (a state holds from now on, in place of another: "now", "switched",
    "moved", "became", 现在, 换, 转), or ""."""
    for lang in _langs(clause):
        hit = _find(clause, lang, "inchoative")
        if hit:
            return hit
    return ""


def aspect(clause: str) -> str:
    """"terminative", "inchoative" or "" (a terminative marker wins: "不开出租了，改跑滴滴了" ends one state and begins
    another; the caller reads the new value of the second clause on its own)."""
    return "terminative" if terminative(clause) else "inchoative" if inchoative(clause) else ""


def reads_as_change(clause: str) -> bool:
    """``clause`` says a state ended or began in place of another (:func:`aspect` is not ""): "I moved to Rome.",
    "rent went up to 1,400", 我搬到了广州, but not "I live in Paris.". Two statements of one slot said at the same
    instant are ordered by it: a change presupposes the state it ends, so it goes after one that reads as none."""
    return bool(aspect(clause))


def without_markers(clause: str) -> str:
    """``clause`` with its terminative marker removed, the words inside a discontinuous one kept ("day 30 without
    a cigarette" -> "day 30 a cigarette"; "not vegetarian anymore" -> "vegetarian"; "烟终于戒了" -> "烟终于"): what
    ended, to state as the ending's value and to compare by meaning with what the user said before."""
    hit, start, end, what = _term(clause)
    if not hit:
        return clause
    return " ".join((clause[:start] + " " + what + " " + clause[end:]).split())


@lru_cache(maxsize=4)
def _past_state_words(lang: str, key: str) -> frozenset[str] | tuple[str, ...]:
    got = langdata.load("aspect", lang).get("past_state", {}).get(key, [])
    return frozenset(w.casefold() for w in got) if lang == "en" else tuple(got)


def _changes_value(clause: str) -> bool:
    """``clause`` tells a change: an aspect marker (:func:`aspect`) or a change of a number (``numeric_change`` of
    changes.json: "went up to", "was raised to", 涨到, 降到)."""
    if aspect(clause):
        return True
    low = clause.casefold()
    return any(w.casefold() in low for lang in _langs(clause) for w in langdata.words("changes", "numeric_change", (lang,)))


def _en_past_state(clause: str) -> bool:
    """An English clause whose verbs in the simple past are all state verbs (``past_state.verbs``: be, live, work,
    pay, …) and at least one: "I lived in Nanjing", "rent was 3500 there"; not "I've lived here" (a perfect: it may
    still hold), "I was promoted" (a passive of an event verb), "I got a job" (an event)."""
    words = [w.casefold().replace("’", "'") for w in WORD.findall(clause)]
    verbs, perfect = _past_state_words("en", "verbs"), _past_state_words("en", "perfect_before")
    after = participle_after()
    state = False
    for i, w in enumerate(words):
        lemma = past_lemma(w)
        if not lemma:
            continue
        prev = words[i - 1] if i else ""
        if prev in perfect or ("'" in prev and "'" + prev.split("'", 1)[1] in perfect):
            return False  # "I've lived here five years", "she's worked": a perfect, which may still hold
        if prev in after or ("'" in prev and "'" + prev.split("'", 1)[1] in after):
            continue  # "I'm based in Denver", "I got married": a participle, no simple past
        if lemma not in verbs:
            return False  # an event told in the past ("got", "bought", "hired")
        if lemma == "be" and i + 1 < len(words):
            nxt = past_lemma(words[i + 1]) or _participle_lemma(words[i + 1])
            if nxt and nxt not in verbs:
                return False  # "I was promoted", "rent was raised": a passive event
        state = True
    return state


def _governed(clause: str, value: str) -> str:
    """The words of English ``clause`` up to ``value`` when it is there and no verb in its ``-ing`` form of an event
    comes between a state verb and it ("I lived in Nanjing before moving to *Hangzhou*": the move governs Hangzhou),
    else "" (no past state governs the value); ``clause`` itself when ``value`` is not found in it."""
    at = clause.casefold().find(value.casefold()) if value else -1
    if at < 0:
        return clause
    head = clause[:at]
    verbs = _past_state_words("en", "verbs")
    for w in reversed([w.casefold() for w in WORD.findall(head)]):
        if past_lemma(w):
            return head
        if w.endswith("ing") and _gerund_lemma(w) and _gerund_lemma(w) not in verbs:
            return ""
    return head


@lru_cache(maxsize=2048)
def _gerund_lemma(word: str) -> str:
    from lemminflect import getLemma  # lazy: tables load on first use

    lemma = (getLemma(word, upos="VERB") or ("",))[0]
    return lemma if lemma and lemma != word else ""


@lru_cache(maxsize=2048)
def _participle_lemma(word: str) -> str:
    """The lemma of ``word`` when it is a past participle other than its lemma ("promoted" -> "promote"), else ""."""
    from lemminflect import getInflection, getLemma  # lazy: tables load on first use

    lemma = (getLemma(word, upos="VERB") or ("",))[0]
    return lemma if lemma and lemma != word and word in set(getInflection(lemma, tag="VBN") or ()) else ""


def _recent(clause: str) -> bool:
    """``clause`` tells something of the last hours or days (an ``episodic`` word of :func:`episodic`, or a
    ``past_state.recent`` word: "yesterday", "just", 刚, 昨天): a reading taken then is the latest value, no past one
    ("Weighed in at 212 this morning"); or holds a ``past_state.not_words`` phrase ("if I were")."""
    low = clause.casefold()
    for lang in _langs(clause):
        if _find(clause, lang, "episodic"):
            return True
        for key in ("recent", "not_words"):
            ws = _past_state_words(lang, key)
            if lang == "zh" and key == "recent" and any(w in clause for w in ws):
                return True
            if lang == "en" and any(re.search(r"(?<![\w'’])" + re.escape(w) + r"(?![\w'’])", low) for w in ws):
                return True
    return False


def _zh_past_frame(clause: str) -> bool:
    """A Chinese clause set in the past by a ``past_state.words`` word (以前, 那时候, 当时, 原来), not by a
    comparison holding one (``past_state.not_words``: 比以前, 跟原来)."""
    text = clause
    for w in _past_state_words("zh", "not_words"):
        text = text.replace(w, " " * len(w))
    return any(w in text for w in _past_state_words("zh", "words"))


def past_state(clause: str, sentence: str = "", value: str = "") -> bool:
    """``clause`` states a value of the past as a state, not a change (see the module doc): an English clause whose
    simple-past verbs are state verbs ("Before Shanghai I lived in Nanjing", "Rent was 3500 when I was in Nanjing"),
    a Chinese one set in the past by a past word (以前在南京的时候房租才3500), its own or that of an earlier clause of
    ``sentence`` stating no change (以前在南京的时候，房租才3500); never one with a change marker or a change of a
    number ("I moved to Berlin", "My rent went up to 1400", 房租涨到3500了, 换了工作) nor one about the future.
    ``value``: the value read, when given and in ``clause``, must follow the state verb with no event verb between
    ("I lived in Nanjing before moving to Hangzhou": Nanjing is past, Hangzhou is not).
    The words are ``past_state`` of data/lang/<lang>/aspect.json."""
    if not clause.strip() or tense_of(clause) == "future" or _changes_value(clause) or _recent(clause):
        return False
    if (has_cjk(clause) and _zh_past_frame(clause)) or _en_past_state(_governed(clause, value)):
        return True
    if not sentence or not has_cjk(clause):
        return False
    pieces = split_clauses(sentence)
    bare = clause.strip().rstrip(",，;；:：.。!！?？ ")
    at = next((i for i, p in enumerate(pieces) if bare and bare in p), 0)
    return any(_zh_past_frame(p) and not _changes_value(p) for p in pieces[:at])
