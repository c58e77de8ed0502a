"""One line per source turn in ``context()``: a fact and the utterance it was read from are one line.

A turn that carries slot facts is stored as an utterance (the verbatim turn) and one ``kind="fact"`` memory per
fact (the words that state it), all citing the same source message. Search may return both, and a fact's words
may be a piece that says nothing on its own ("joined Stripe." of "I left Google and joined Stripe.",
"在一家银行工作。" of "我住在上海，在一家银行工作。", "I hate it" of "My job? I hate it."). :func:`one_per_turn`
keeps one line per source turn, at the rank of the better of its hits:

- the utterance's current view (:func:`anchormem.retrieval.currency.shown_hits`) when it still holds the fact's
  words: the fact is a piece of it;
- the fact where the utterance is not among the hits, when the fact's words are a statement of their own
  (:func:`self_standing`) or are the whole turn; otherwise the turn's utterance is read from the store and
  shown in the fact's place (as it holds now), or, when it no longer holds the fact's words, nothing is shown.

    self_standing("I work as a nurse")   # -> True
    self_standing("joined Stripe.")      # -> False (no subject)
    self_standing("My job.")             # -> False (no predicate)
    self_standing("I hate it honestly.") # -> False ("it" points outside)
    self_standing("在一家银行工作。")      # -> False

The words of each language are data: ``data/lang/<lang>/lines.json``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.tokenize import has_cjk, pos_tags
from ..types import Hit, MemoryItem, Scope

__all__ = ["self_standing", "one_per_turn", "store_turn_of"]

_TURN_KINDS = ("utterance", "commitment", "question")
_WORD = re.compile(r"[\w'’]+")
_END = ".。!！?？…~～ \t\n"


@lru_cache(maxsize=2)
def _words(lang: str, key: str) -> frozenset[str]:
    return frozenset(w.casefold().replace("’", "'") for w in langdata.load("lines", lang).get(key, []))


@lru_cache(maxsize=2)
def _back_references(lang: str) -> re.Pattern[str]:
    refs = tuple(langdata.load("lines", lang).get("back_references", []))
    alt = langdata.alternation(refs)
    if lang == "zh":
        return re.compile(alt)
    return re.compile(r"(?<![\w'’])(?:" + alt.replace("'", "['’]") + r")(?![\w'’])", re.I)


def self_standing(text: str) -> bool:
    """Whether ``text`` (a fact's words) is a statement on its own: it opens with a subject (after the ``openers``
    of ``data/lang/<lang>/lines.json``: a pronoun, a noun phrase, a name), says something of it (a predicate: one
    more word after a pronoun, two after a determiner; in Chinese a word after the subject that is no noun or
    particle: a verb, 在, an adverb, a number) and
    points at nothing outside itself (no ``back_references``: "it", "there", 它, 那里)."""
    text = text.strip()
    if not text:
        return False
    lang = "zh" if has_cjk(text) else "en"
    if _back_references(lang).search(text):
        return False
    if lang == "zh":
        return _zh_standing(text)
    words = [w.replace("’", "'") for w in _WORD.findall(text)]
    openers = _words("en", "openers")
    while words and words[0].casefold() in openers:
        words = words[1:]
    if not words:
        return False
    first = words[0].casefold()
    if first in _words("en", "pronouns"):
        return len(words) >= 2  # "I quit.", "I'm vegetarian"
    if first in _words("en", "determiners"):
        return len(words) >= 3
    return words[0][:1].isupper() and len(words) >= 2  # a name: "Anna is a teacher"


def _zh_standing(text: str) -> bool:
    openers = _words("zh", "openers")
    subject, idle = _words("zh", "subject_tags"), _words("zh", "not_predicate_tags")
    tags = [t for t in pos_tags(text) if t.word.strip() and t.flag != "x"]
    while tags and (tags[0].word in openers or tags[0].flag in ("t", "c", "e", "y")):
        tags = tags[1:]
    if not tags or tags[0].flag not in subject:
        return False
    rest = [t for t in tags[1:] if t.flag not in ("ul", "y")]
    if tags[0].word in _words("zh", "pronouns") and rest and rest[0].flag != "uj":
        return True  # 我戒烟了, 我每天喝咖啡 (jieba tags 戒烟 n, 喝咖啡 nr); not 我的工作
    return any(t.flag not in idle for t in rest)


def _core(text: str) -> str:
    return text.strip().rstrip(_END).strip()


def _holds(turn_text: str, fact_text: str) -> bool:
    """The turn's words (as shown) still hold the fact's words."""
    core = _core(fact_text)
    return bool(core) and core.casefold() in turn_text.casefold()


def _whole_turn(m: MemoryItem) -> bool:
    """The fact's words are its whole turn (a turn that was only this fact: no utterance was stored beside it)."""
    return bool(m.source_text) and _core(m.source_text) == _core(m.text)


def store_turn_of(store: Any, tenant: str) -> Callable[[MemoryItem], MemoryItem | None]:
    """A reader of a fact's turn from ``store``: the current memory of kind utterance / commitment / question that
    cites the fact's source message (same user, session and creation second), or None."""
    from ..filters import parse_filters

    def turn_of(fact: MemoryItem) -> MemoryItem | None:
        if not fact.source_message_ids:
            return None
        sids = set(fact.source_message_ids)
        scope = Scope(tenant=tenant, user_id=fact.user_id, agent_id=fact.agent_id, session_id=fact.session_id)
        where = parse_filters({"kind": {"in": list(_TURN_KINDS)},
                               "created_at": {"gte": (fact.created_at - timedelta(seconds=1)).isoformat(),
                                              "lte": (fact.created_at + timedelta(seconds=1)).isoformat()}})
        for m in store.list_memories(scope, where):
            if sids & set(m.source_message_ids) and m.valid_to is None:
                return m
        return None

    return turn_of


def one_per_turn(hits: list[Hit], turn_of: Callable[[MemoryItem], MemoryItem | None] | None = None,
                 view: Callable[[MemoryItem], MemoryItem | None] = lambda m: m) -> tuple[list[Hit], int]:
    """``hits`` (as ``context()`` shows them, best first) with one hit per source turn, and how many were left out.

    A later hit of a turn already shown is left out, except the utterance of a fact shown before it, which takes the
    fact's place when it holds the fact's words. A fact whose words are neither a statement of their own
    (:func:`self_standing`) nor its whole turn takes its turn's place: ``turn_of(fact)`` (the utterance, e.g.
    :func:`store_turn_of`), as ``view`` shows it (the current view), when that holds the fact's words; else it is
    left out. Summaries and memories without a source message are kept as they are. Order is kept."""
    kept: list[Hit] = []
    by_turn: dict[str, int] = {}  # source message id -> index in kept
    dropped = 0
    for h in hits:
        m = h.memory
        if m.kind == "summary" or not m.source_message_ids:
            kept.append(h)
            continue
        at = next((by_turn[s] for s in m.source_message_ids if s in by_turn), None)
        if at is not None:
            k = kept[at]
            if k.memory.kind == "fact" and m.kind != "fact" and _holds(m.text, k.memory.text):
                kept[at] = _as_turn(h, k)
            dropped += 1
            continue
        if m.kind == "fact" and not _whole_turn(m) and not self_standing(m.text):
            turn = turn_of(m) if turn_of is not None else None
            shown = view(turn) if turn is not None else None
            if shown is None or not _holds(shown.text, m.text):
                dropped += 1
                continue
            h = Hit(memory=shown, score=h.score, explain={**h.explain, "turn_of": m.id})
        for s in h.memory.source_message_ids:
            by_turn[s] = len(kept)
        kept.append(h)
    return kept, dropped


def _as_turn(turn: Hit, fact: Hit) -> Hit:
    """The utterance ``turn`` in the place of its fact ``fact`` (the better rank of the two)."""
    return turn.model_copy(update={"score": max(turn.score, fact.score),
                                   "explain": {**turn.explain, "turn_of": fact.memory.id}})
