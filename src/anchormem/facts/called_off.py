"""Plans called off: "I'm moving to Paris next month" … "the Paris move is off" ends the plan, not the home.

A plan is stored as an ordinary utterance dated ahead of its own day, or as a scheduled fact (``valid_from`` ahead
of when it was said: :mod:`anchormem.facts.plans`); calling a scheduled one off also restores the value it was to
replace (:func:`restored`). A later turn
of the same speaker that says it was called off (``called_off`` of ``data/lang/<lang>/plans.json``: per action the
words and the attributes of the plans they end — "the move is off", "decided to stay", 不搬了 for a home;
"the offer fell through", offer黄了 for a job; words of any action, "cancelled", 取消了, count only when the turn
also names the plan's value: "the Paris trip is cancelled") closes the latest open plan of those attributes
(:func:`open_plan`): the plan memory is superseded by the turn (it no longer holds; ``as_of`` and past questions
still read it, marked "until …"), and the turn's metadata ``calls_off`` = ``{"id", "text", "said"}`` names it
(:func:`~anchormem.answering.extractive.called_off_note` words it on the read paths). The turn states no value of
those attributes itself: "I'm not moving to Paris after all" and "搬去杭州的计划取消了" are no home, so the current
home stays current.

A plan of no slot, an **event plan** (a trip, a party, a wedding, a visit: ``events`` of plans.json, one kind key for
both languages, "trip" ~ 旅行), said dated ahead or with an ``event_plan_words`` word ("planning", 计划), is keyed
``plan:<kind>[:<place>]`` (:func:`event_plan`). A turn calling off with words of any action ("We called off the
Hawaii trip", 成都的旅行取消了, "Sarah's party is off") closes the latest such plan of the speaker's whose kind the piece
of the sentence holding the event word names and no place the plan does not name ("my flight to Beijing got
cancelled", 小李的东京旅行取消了 close nothing), whoever the plan's subject is (I, we, my wife). The plan memory is
superseded by the turn as above, so a question about it finds the turn that called it off
(:func:`~anchormem.answering.successors.successor_answer`).

    called_off("Actually the Paris move is off, we decided to stay.")
    # -> CallOff(attributes=("home_city",), named=False, sentence="Actually the Paris move is off, we decided …")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from .. import langdata
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk
from ..types import FactSlot, MemoryItem
from .model import Fact

__all__ = ["CallOff", "called_off", "open_plan", "calls_off", "restored", "event_plan"]


@dataclass(frozen=True)
class CallOff:
    """What a turn calls off: the plan attributes (``()``: any), whether the plan's value must be named in the turn
    (``named``: a word of any action), and the sentence that says it."""

    attributes: tuple[str, ...]
    named: bool
    sentence: str


def _patterns(lang: str) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    from .plans import action_patterns

    return action_patterns(lang, "called_off")


def called_off(text: str) -> CallOff | None:
    """The first sentence of ``text`` that says a plan was called off (no question), or None. An action's own words
    come before the words of any action (``called_off`` entries in file order)."""
    for sentence in split_sentences(text):
        if sentence.rstrip().endswith(("?", "？")):
            continue
        langs = ("en", "zh") if has_cjk(sentence) else ("en",)
        for lang in langs:
            for rx, attrs in _patterns(lang):
                if rx.search(sentence):
                    return CallOff(attributes=attrs, named=not attrs, sentence=sentence)
    return None


@lru_cache(maxsize=4)
def _plan_words(lang: str) -> dict[str, re.Pattern[str]]:
    out = {}
    for attr, words in (langdata.load("plans", lang).get("plan_words") or {}).items():
        alt = langdata.alternation(tuple(words))
        out[attr] = re.compile(alt if lang == "zh" else r"(?<![\w'’])(?:" + alt + r")(?![\w'’])", re.I)
    return out


def _names_plan(sentence: str, fact: Fact) -> bool:
    """``sentence`` names the plan of ``fact``: its value and a ``plan_words`` word of its attribute ("the Paris move
    is cancelled"; not "my flight to Paris got cancelled")."""
    if not fact.value or fact.value.casefold() not in sentence.casefold():
        return False
    langs = ("en", "zh") if has_cjk(sentence) else ("en",)
    return any(rx.search(sentence) for lang in langs for a, rx in _plan_words(lang).items() if a == fact.attribute)


@lru_cache(maxsize=4)
def _events(lang: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    out = []
    for kind, words in (langdata.load("plans", lang).get("events") or {}).items():
        alt = langdata.alternation(tuple(words))
        out.append((kind, re.compile(alt if lang == "zh" else r"(?<![\w'’])(?:" + alt + r")(?![\w'’])", re.I)))
    return tuple(out)


def _event_kinds(text: str) -> list[str]:
    """The event kinds (``events`` of plans.json, keys shared by the languages) ``text`` names, in order."""
    langs = ("en", "zh") if has_cjk(text) else ("en",)
    return list(dict.fromkeys(k for lang in langs for k, rx in _events(lang) if rx.search(text)))


def _plan_worded(text: str) -> bool:
    """``text`` holds an ``event_plan_words`` word ("planning", "booked", 计划, 打算)."""
    langs = ("en", "zh") if has_cjk(text) else ("en",)
    for lang in langs:
        words = tuple(langdata.load("plans", lang).get("event_plan_words") or ())
        if words:
            alt = langdata.alternation(words)
            if re.search(alt if lang == "zh" else r"(?<![\w'’])(?:" + alt + r")(?![\w'’])", text, re.I):
                return True
    return False


def _places(text: str) -> list[str]:
    from ..errors import AnchormemError
    from .places import places_in

    try:
        return [n for _, n in places_in(text)]
    except AnchormemError:  # (no gazetteer: an event plan is keyed by its kind alone)
        return []


def event_plan(text: str, *, entity: str = "user", dated: bool = False) -> Fact | None:
    """The event plan ``text`` states, a plan of no slot ("We're planning a family trip to Chengdu on December 12",
    我们计划下个月去成都旅行): a fact of slot ``plan:<kind>[:<place>]`` (the first event kind it names, ``events``
    of plans.json, and its first known place), value the kind and place as said; None when it names no event.
    ``dated``: the text is dated ahead of when it was said; a dated plan that names no event but a place is a trip
    there ("I'm going to Chengdu with my sister on May 3rd", 我五一去成都): being somewhere at a time ahead is what a
    trip is, whatever verb says it. Whoever does it (I, we, my wife): a family's plan is the speaker's to call off."""
    kinds = _event_kinds(text)
    places = _places(text)
    if not kinds and dated and places:
        kinds = ["trip"]
    if not kinds:
        return None
    key = f"plan:{kinds[0]}" + (f":{places[0].casefold()}" if places else "")
    return Fact(entity=entity, attribute=key, value=" ".join([kinds[0], *places[:1]]), polarity=1,
                source_span=text, extractor="rules")


def _names_event(sentence: str, fact: Fact, text: str) -> bool:
    """``sentence`` (calling off a plan) names the event plan ``fact`` read from ``text``: its kind in either
    language ("trip" ~ 旅行), and no place the plan does not name (成都的旅行 ~ "a trip to Chengdu"; not "the Tokyo
    trip" when the plan was Chengdu)."""
    from .places import same_place

    kind = fact.attribute.split(":")[1]
    pieces = [p for p in re.split(r"[,，;；]+", sentence) if kind in _event_kinds(p)]
    if not pieces:
        return False
    sentence = pieces[0]  # (the piece naming the event: "成都的trip取消了，because Leo got sick": no place Leo)
    from .names import same_name

    theirs = _places(text) + re.findall(r"\b[A-Z][a-z]+\b", text)  # (a capitalised word: 云南 ~ "Yunnan")
    return all(p.casefold() in text.casefold() or any(same_place(p, q) or same_name(p, q) for q in theirs)
               for p in _places(sentence))


def open_plan(store: Any, tenant: str, user_id: str, speaker: str, before: datetime, attributes: tuple[str, ...],
              named_in: str | None = None) -> tuple[MemoryItem, Fact] | None:
    """The speaker's latest open plan said before ``before`` with a fact of one of ``attributes`` (any when empty),
    and that fact; with ``named_in``, only a plan that text names (its value and a ``plan_words`` word of its
    attribute: :func:`_names_plan`). A plan: a current utterance or
    commitment of the speaker's stating a fact with a date ahead of its own day (:func:`~anchormem.facts.plans.plan_facts_of`). Open: no
    current claim of its slot was said since, nor holds its value already. ``store``: ``list_memories`` and
    ``current_facts`` of a :class:`~anchormem.stores.protocol.Store` (or its planning reads)."""
    from ..filters import Cond
    from ..types import Scope
    from .keys import same_value
    from .plans import plan_facts_of, says_ahead

    where = Cond(field="kind", op="in", value=("utterance", "commitment", "fact"))
    mine = [m for m in store.list_memories(Scope(tenant=tenant, user_id=user_id), where)
            if m.source == "user" and m.created_at < before and (m.speaker or "user") == speaker and
            m.valid_to is None]
    ahead = [m for m in mine  # a scheduled fact, or a plan dated ahead or with a time ahead no date resolves
             if (m.valid_from > m.created_at if m.kind == "fact" else
                 (m.event_time is not None and m.event_time > m.created_at) or says_ahead(m.text))]
    for m in sorted(ahead, key=lambda m: m.created_at, reverse=True):
        for f in plan_facts_of(m.text, m.created_at, entity=speaker):
            if attributes and f.attribute not in attributes:
                continue
            if named_in is not None and not _names_plan(named_in, f):
                continue
            cur = store.current_facts(tenant, user_id, [FactSlot(entity=f.entity, attribute=f.attribute, value="").slot])
            if any(c.id != m.id and (c.valid_from >= m.created_at or (c.fact and same_value(
                    f.attribute, c.fact.value, f.value))) for c in cur):
                continue  # said again since, or already the value: the plan is no longer open
            return m, f
    if attributes or named_in is None:  # an event plan (no slot) is closed by words of any action naming it
        return None
    dated = {m.id for m in ahead}
    for m in sorted(mine, key=lambda m: m.created_at, reverse=True):
        if m.kind == "fact" or (m.id not in dated and not _plan_worded(m.text)):
            continue
        ev = event_plan(m.text, entity=speaker, dated=m.id in dated)
        if ev is not None and _names_event(named_in, ev, m.text):
            return m, ev
    return None


def calls_off(item: MemoryItem, said: datetime, facts: list[Fact], store: Any, tenant: str,
              user_id: str) -> tuple[list[Fact], MemoryItem | None]:
    """For a user turn ``item`` (said at ``said``) with its ``facts``: the facts it states once what it calls off
    is taken out (a fact of a called-off attribute read from the sentence that calls it off), and the open plan it
    closes (``item.metadata["calls_off"]`` is set), or None. A fact of the attributes of an action's own words is
    taken out even when no open plan is found (the sentence speaks of a plan, not of a value)."""
    if item.source != "user" or item.kind not in ("utterance", "commitment"):
        return facts, None
    off = called_off(item.text)
    if off is None:
        return facts, None
    speaker = item.speaker or "user"
    found = open_plan(store, tenant, user_id, speaker, said, off.attributes,
                      named_in=off.sentence if off.named else None)
    ends = off.attributes or ((found[1].attribute,) if found is not None else ())

    def in_call(f: Fact) -> bool:  # a fact of an attribute called off, read from the sentence saying so
        span = f.source_span or f.clause or ""
        return f.attribute in ends and bool(span) and (span in off.sentence or off.sentence in span)

    kept = [f for f in facts if not in_call(f)]
    if found is None:
        return kept, None
    plan = found[0]
    item.metadata["calls_off"] = {"id": plan.id, "text": plan.text, "said": plan.created_at.date().isoformat()}
    return kept, plan


def restored(store: Any, plan: MemoryItem, said: datetime) -> list[MemoryItem]:
    """When ``plan`` (the plan a turn said at ``said`` calls off) is a scheduled fact (``valid_from`` after the time
    it was said: :func:`anchormem.facts.plans.scheduled_start`), the values it was to replace hold again: a copy of
    each fact memory it closed at its start (``valid_to`` = its ``valid_from``), current from ``said``
    (``metadata["restored_from"]`` names the original, which keeps its closed interval; ``restored_said`` when it
    was said, the date its quotes carry: :func:`anchormem.facts.claims.said_on`). [] otherwise."""
    import uuid

    if plan.kind != "fact" or plan.valid_from <= plan.created_at:
        return []
    ids = store.predecessors(plan.tenant, plan.user_id, [plan.id]).get(plan.id, [])
    olds = store.get_many(plan.tenant, ids) if ids else {}
    return [m.model_copy(update={
        "id": uuid.uuid4().hex, "created_at": said, "valid_from": said, "valid_to": None, "superseded_by": None,
        "claims": [], "metadata": {**m.metadata, "restored_from": m.id,
                                    "restored_said": m.created_at.isoformat()}})
        for m in (olds.get(i) for i in ids)
        if m is not None and m.kind == "fact" and m.superseded_by == plan.id and m.valid_to == plan.valid_from]
