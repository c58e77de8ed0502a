"""A question in the past tense asks the past when its predicate is what the old value's turn said.

"Which city did I share a house in?", "What subject did I teach?", "读研的时候我在哪个城市？" hold no past word
(:func:`anchormem.facts.claims.asks_past`: "before", 以前), so ``ask`` reads them as questions about the present and
cites the current value (or, finding no current memory that answers, the current successor of the old one). Their
tense says they may ask the past (:func:`past_tense`: an auxiliary or a verb in its simple past form in English,
an aspect word in Chinese: ``past_tense_words`` of ``data/lang/<lang>/cues.json``), and the slot's claim history
says which: a closed claim's turn ("I rent a room in a shared house in Leeds") and the turn that replaced it
("Moved to Manchester for the new job") are compared by meaning with the question. When the old turn passes the
evidence test and sits nearer the question than its current successor by :data:`PAST_MARGIN`, the question asks
the past: it is answered by the old value, quoted with its end ("true until 2024-03"), the current value after it.
A past-tense question whose predicate is the change itself ("Which city did I move to?") sits nearer the change:
the current value answers, as before.

    past_tense("Which city did I share a house in?")   # -> True
    past_tense("Where do I live?")                     # -> False
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from .. import langdata
from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem, Scope
from .evidence import EvidenceScorer, analyze_question, select
from .extractive import _distinct, annotate, quoted
from .persons import asks_about_self, kin_words
from .successors import _past_view, _superseded_part, current_successor

__all__ = ["past_tense", "asks_about_asker", "past_tense_answer", "PAST_MARGIN", "MAX_OLD"]

PAST_MARGIN = 0.0  # the old turn's cosine to the question over its current successor's
MAX_OLD = 10  # old turns compared at most (the best-ranked candidates)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")


@lru_cache(maxsize=1)
def _words() -> tuple[frozenset[str], frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """(English past-tense words, English present auxiliaries, Chinese aspect words, Chinese words holding one that
    say no past)."""
    en = langdata.load("cues", "en")
    zh = langdata.load("cues", "zh")
    return (frozenset(w.casefold() for w in en.get("past_tense_words", [])),
            frozenset(w.casefold() for w in en.get("present_tense_words", [])),
            tuple(zh.get("past_tense_words", [])), tuple(sorted(zh.get("past_tense_not", []), key=len, reverse=True)))


@lru_cache(maxsize=4096)
def _simple_past(word: str) -> bool:
    """``word`` (lower case) is a verb in its simple past form ("lived", "taught", "shared"), as lemminflect reads
    it; not a form that is also the present ("put", "read") nor the base itself."""
    from lemminflect import getInflection, getLemma  # lazy: tables load on first use

    lemma = (getLemma(word, upos="VERB") or (word,))[0]
    if lemma == word:
        return False
    past = set(getInflection(lemma, tag="VBD") or ())
    return word in past and word not in set(getInflection(lemma, tag="VBP") or ())


def past_tense(question: str) -> bool:
    """The question is put in the past tense: an English past auxiliary ("did", "was"), or a verb in its simple past
    form in a question with no present auxiliary ("Which company employed me?", not "Where am I based?"); a Chinese aspect word (过, 的时候) outside a word that says no past (过敏, 不过)."""
    en, present, zh, zh_not = _words()
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(question)]
    if any(w in en for w in words):
        return True
    tails = {"'" + w.split("'", 1)[1] for w in words if "'" in w}
    if not any(w in present for w in words) and not tails & present and \
            any(len(w) > 2 and "'" not in w and _simple_past(w) for w in words):
        return True  # "Which company employed me?"; not "Where am I based?"
    if has_cjk(question):
        rest = question
        for w in zh_not:
            rest = rest.replace(w, " ")
        return any(w in rest for w in zh)
    return False


@lru_cache(maxsize=1)
def _others_zh() -> tuple[str, ...]:
    """Chinese words naming someone other than the asker: third-person pronouns and the addressee."""
    return tuple(langdata.load("cues", "zh").get("third_person_subjects", [])) + \
        tuple(langdata.load("answers", "zh").get("addressee", []))


def asks_about_asker(question: str) -> bool:
    """The question is about the asker: in the first person (:func:`~.persons.asks_about_self`), or a Chinese
    question naming no one (Chinese drops the subject: "涨之前房租是多少？", "刚开始减肥时多重？"): no third-person
    pronoun nor addressee, no relation word, no capitalised Latin name."""
    if asks_about_self(question):
        return True
    return has_cjk(question) and not any(w in question for w in _others_zh()) and not kin_words(question) and \
        not re.search(r"[A-Z][a-z]", question)


def past_tense_answer(question: str, candidates: list[Hit], *, store: Any, scope: Scope, scorer: EvidenceScorer,
                      embedder: Any, question_vector: Callable[[], Any],
                      prompts: Callable[[list[Hit]], list[str | None]] | None = None, compare: bool = True
                      ) -> tuple[Answer, list[Hit]] | None:
    """The answer from the past to a past-tense question (:func:`past_tense`), or None.

    ``candidates``: search hits of the question over the user's memories that hold a closed claim (superseded
    memories and partly superseded ones, as stored: not their current view). Each whose closed claims have a
    current successor in ``scope`` (:func:`~.successors.current_successor`) and whose whole text (what was true when
    it was said) passes the evidence test is compared with that successor: the cosine of the question
    (``question_vector()``: its query embedding, float32 (dim,), by ``embedder``) to each text embedded as a passage.
    The nearest old turn that sits :data:`PAST_MARGIN` above its successor answers: cited as the value it held
    (:func:`~.successors._past_view`, its end in the quote), then the successor that replaced it. None when none
    qualifies (the current answer stands). Returns (the answer, the cited memories as hits:
    ``explain["past_tense_of"]`` on the successor)."""
    parts: list[tuple[Hit, Hit, str, MemoryItem]] = []  # (the whole old hit, its closed part, closed by, successor)
    seen: set[str] = set()
    for h in candidates:
        if h.memory.id in seen or h.memory.kind == "summary" or len(parts) >= MAX_OLD:
            continue
        seen.add(h.memory.id)
        got = _superseded_part(h)
        if got is None:
            continue
        part, by = got
        nxt = current_successor(by, store, scope)
        if nxt is None or nxt.id == h.memory.id:
            continue
        parts.append((h, part, by, nxt))
    if not parts:
        return None
    whole = [h.model_copy(update={"memory": h.memory.model_copy(update={"valid_to": None})}) for h, _, _, _ in parts]
    q = analyze_question(question)
    scored = scorer.score(q, whole, prompts(whole) if prompts else None)
    chosen = _distinct(select(scored, scorer.config, min_coverage=scorer.config.pair_min, terms=q.terms), whole)
    if not chosen:
        return None
    qv = np.asarray(question_vector(), dtype=np.float32).reshape(-1)
    texts = sorted({t for s in chosen for t in (parts[s.index][0].memory.text, parts[s.index][3].text)})
    vecs = dict(zip(texts, np.asarray(embedder.embed_documents(texts), dtype=np.float32)))
    best: tuple[float, int] | None = None
    for s in chosen:
        h, _, _, nxt = parts[s.index]
        old, new = float(vecs[h.memory.text] @ qv), float(vecs[nxt.text] @ qv)
        if (not compare or old >= new + PAST_MARGIN) and (best is None or old > best[0]):
            best = (old, s.index)
    if best is None:
        return None
    h, _, by, nxt = parts[best[1]]
    then = _past_view(h.memory, by)
    if then is None:
        return None
    cites = [then, nxt]
    zh = has_cjk(question)
    text, cites = quoted(cites, zh=zh)
    out = [Hit(memory=then, score=h.score, explain={**h.explain, "past": f"until {then.valid_to:%Y-%m}"}),
           Hit(memory=nxt, score=h.score, explain={"past_tense_of": h.memory.id})]
    ev = annotate(whole, scored, [s for s in chosen if s.index == best[1]])
    return Answer(text=text, citations=cites, abstained=False, evidence=ev + out), out
