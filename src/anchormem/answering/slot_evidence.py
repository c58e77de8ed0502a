"""Slot evidence: a question about one of the user's own slots is answered by that slot's current claim.

"我的狗叫什么？" with "My dog is called Rex." stored, "我女儿多大了？" with "my daughter turned 7", "Where do I live?" with
"My brother moved to Denver." beside "I live in Boston.": the evidence test (:mod:`.evidence`) matches words, and a
question in the other language, or in words the memory does not use, misses the memory that holds the answer (or
finds someone else's). The store knows more than the words: each fact is a claim on a slot (``user|dog_name``,
``user|daughter_age``, ``user|home_city``), current or superseded. So a question about the user (first person,
singular or plural: "we", "our", 我们, 我家; no other named person) is read for the slot it asks about, and the
memories holding that slot's current claim are its evidence, in whatever language they were said:

- the question's *concepts* are the paraphrase groups its words fall in (``data/lang/<lang>/answers.json``
  ``paraphrases``: 叫 / 名字 / "called" are ``name``, 多大 / 几岁 / "how old" are ``age``, 住 / "live" are ``live``),
  and the relations it names (:func:`~.persons.kin_words`: "my daughter", 我女儿);
- concepts map to slot attributes and owners (language-neutral data, ``data/slot_concepts.json``); a slot asked
  by its own question words (``slot_questions``: "How much do I earn?" -> salary) is asked too
  (:func:`~.slot_questions.asked_slots`);
- the asked slots are ``<owner>_<attribute>`` for each relation or pet the question names ("my dog's name" ->
  ``dog_name``), else the attribute alone: a question naming no relation asks for the user's own slot, never a
  relative's (``brother_home_city`` is no evidence for "Where do I live?");
- the evidence is each asked slot's current, positive claim (the newest said when two are current; an ending,
  "I handed in my notice", when nothing holds since), in the caller's agent and session, quoted as it holds now
  (:func:`~anchormem.facts.claims.current_view`);
- when the words name no slot the user has a claim of, and the evidence test cited no current claim, the slot is
  read by meaning from the user's own claims (:mod:`.claim_reading`: "我有几只兔子？" -> ``count:rabbit``).

Words of the question are one signal (the concepts); the claims are the other. No claim, no slot evidence: the
evidence test decides alone, as before.

    asked_user_slots("我的狗叫什么？")    # -> ["dog_name"]
    asked_user_slots("Where do I live?")  # -> ["home_city"]
"""

from __future__ import annotations

import json
import re
import threading
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

import numpy as np

from .. import langdata
from ..facts.claims import asks_past, current_view
from ..facts.keys import kin_narrower, same_value
from ..text.tokenize import has_cjk, query_terms, stem
from ..types import Answer, FactSlot, Hit, MemoryItem, Scope
from .extractive import quoted
from .persons import asks_about_self, kin_base, kin_words
from .question import glued_parts
from .tense import asks_plan, asks_present
from .slot_questions import asked_slots
from .claim_reading import ended_claim, nearest_claim_slots, person_singular

__all__ = ["asked_user_slots", "about_household", "slot_evidence", "same_slot_value", "with_slot_evidence",
           "latest_first"]


@lru_cache(maxsize=1)
def _concept_data() -> dict[str, Any]:
    return json.loads(resources.files("anchormem.data").joinpath("slot_concepts.json").read_text("utf-8"))


def _groups() -> dict[str, str]:
    """Word -> concept id (its paraphrase group's id) over every language's paraphrases."""
    return langdata.word_groups("answers", "paraphrases")


@lru_cache(maxsize=1)
def _we() -> re.Pattern[str]:
    """First-person plural words (``data/lang/<lang>/answers.json`` ``we_words``): the user's household."""
    parts = [re.escape(w) if has_cjk(w) else rf"\b{re.escape(w)}\b" for w in langdata.words("answers", "we_words")]
    return re.compile("|".join(parts) or "(?!)", re.I)


def about_household(question: str) -> bool:
    """The question asks about the asker or their household: first person singular ("my", 我) or plural ("we",
    "our", 我们, 我家), and no other capitalised name than "I" (a relative named by relation is fine: "my daughter";
    in a question asking what a value is, a known place is no one else: "Which Tokyo neighborhood do we live in?",
    :func:`~anchormem.facts.places.known_place`; "Do I live in London?" asks whether that place is the value: the
    evidence test answers it, not the slot's current claim)."""
    from ..facts.places import known_place
    from .evidence import asks_what_is

    if not (asks_about_self(question) or _we().search(question)):
        return False
    placed = asks_what_is(question)
    return not any(not (placed and known_place(m.group(0).strip())) for m in re.finditer(
        r"(?<!^)(?<![.?!]\s)\b(?!I\b|I'm\b|I've\b|I'd\b)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*", question.strip()))


def _concepts(question: str) -> set[str]:
    """The paraphrase groups the question's words fall in; a Chinese word jieba glued from group words is read by
    its parts (狗叫 = 狗 + 叫: :func:`~.question.glued_parts`; 房租 is a word of its own, not 租)."""
    index = _groups()
    out: set[str] = set()
    for w in query_terms(question):
        w = w.lower().replace("’", "'")
        w = w[:-2] if w.endswith("'s") else w
        if _we().fullmatch(w):  # 我家 is "our", not 家 (home)
            continue
        for t in glued_parts(w):
            g = index.get(t) or index.get(stem(t))
            if g is not None:
                out.add(g)
    return out


def _owners(question: str, concepts: set[str]) -> list[str]:
    """The relations and pets the question names, as slot prefixes ("my daughter" -> daughter, and the generic
    child words that stand for it; 我弟弟 -> 弟弟; "my brother" -> brother, 哥哥, 弟弟; "my dog" -> dog)."""
    data = _concept_data()
    generic = data.get("generic_kin", {})
    out: list[str] = []
    for k in sorted(kin_words(question)):
        base = kin_base(k) or k
        out += [base, *kin_narrower().get(base, ()), *generic.get(base, ())]
    for c in sorted(concepts):
        out += data.get("owners", {}).get(c, [])
    return list(dict.fromkeys(out))


@lru_cache(maxsize=1)
def _known_attributes() -> frozenset[str]:
    """The slot attributes questions name by words (``slot_concepts.json`` attributes, every language's
    ``slot_questions`` and ``slot_prototypes``)."""
    out = {a for attrs in _concept_data().get("attributes", {}).values() for a in attrs}
    for lang in langdata.LANGUAGES:
        data = langdata.load("answers", lang)
        out |= set(data.get("slot_questions") or {}) | {k for k in data.get("slot_prototypes") or {} if k != "none"}
    return frozenset(out)


def _holds_claim(m: MemoryItem) -> bool:
    """``m`` states a claim of the user's that holds now (its own fact, or a claim it carries)."""
    return m.valid_to is None and (any(c.valid_to is None for c in m.claims) or m.fact is not None)


def _claim_owners(kin: frozenset[str]) -> set[str]:
    """The relations named (:func:`~.persons.kin_words`, singular: "children" -> child) with the narrower and
    generic ones that answer for them (``slot_concepts.json`` ``generic_kin``)."""
    generic = _concept_data().get("generic_kin", {})
    out: set[str] = set()
    for k in kin:
        base = person_singular(k)
        out |= {base, *kin_narrower().get(base, ()), *generic.get(base, ())}
    return out


def _plain_user_question(question: str) -> bool:
    return not asks_past(question) and not asks_plan(question) and about_household(question)


def asked_user_slots(question: str) -> list[str]:
    """The slot attributes a question about the user asks for, most specific first (see the module doc); [] for a
    question about someone else, the past or a plan, or one that names no slot."""
    if asks_past(question) or asks_plan(question) or not about_household(question):
        return []
    concepts = _concepts(question)
    attrs = [a for c in sorted(concepts) for a in _concept_data().get("attributes", {}).get(c, [])]
    owners = _owners(question, concepts)
    said = asked_slots(question)  # a slot named by its own question words ("房租", "earn") is the one asked
    if owners:
        return list(dict.fromkeys(f"{o}_{a}" for o in owners for a in (said or attrs) if a != o))
    if kin_words(question):
        return []
    named = said or [a for a in attrs if not a.startswith("name") or attrs[:1] == ["name"] and len(attrs) <= 2]
    return list(dict.fromkeys(named))  # ("What's my name?" asks for the user's name, "my company's name" not)


# -- similarity to slot prototypes ---------------------------------------------------------------------------------
PROTO_TOP = 2  # a class's score: the mean of its PROTO_TOP best prototype cosines
PROTO_MARGIN = 0.04  # the best slot's score over the runner-up's and over the "none" class's (dev: 0.02 let
# "我家有几辆车？" read as home_city and "Do I drink coffee?" as diet)


class _Bank:
    """The prototype questions of every language (``data/lang/<lang>/answers.json`` ``slot_prototypes``: {slot or
    "none": [questions]}) embedded once per embedder (as queries: a question is compared with questions)."""

    def __init__(self) -> None:
        self._banks: dict[str, tuple[list[str], np.ndarray]] = {}
        self._lock = threading.Lock()

    def get(self, embedder: Any) -> tuple[list[str], np.ndarray]:
        key = f"{getattr(embedder, 'name', type(embedder).__name__)}/{getattr(embedder, 'dim', '')}"
        with self._lock:
            got = self._banks.get(key)
        if got is None:
            labels: list[str] = []
            texts: list[str] = []
            for lang in langdata.LANGUAGES:
                for slot, qs in (langdata.load("answers", lang).get("slot_prototypes") or {}).items():
                    labels += [slot] * len(qs)
                    texts += qs
            vecs = np.vstack([np.asarray(embedder.embed_query(t), dtype=np.float32) for t in texts]) if texts \
                else np.zeros((0, 1), dtype=np.float32)
            got = (labels, vecs)
            with self._lock:
                self._banks[key] = got
        return got


_BANK = _Bank()


def nearest_slot(question_vector: np.ndarray, embedder: Any) -> str | None:
    """The slot whose prototype questions the question is nearest (:data:`PROTO_TOP` best cosines, mean), when it
    leads the runner-up slot and the "none" class (questions about the user that name no slot) by
    :data:`PROTO_MARGIN`; None otherwise."""
    labels, vecs = _BANK.get(embedder)
    if not labels:
        return None
    sims = vecs @ np.asarray(question_vector, dtype=np.float32)
    per: dict[str, list[float]] = {}
    for lab, x in zip(labels, sims):
        per.setdefault(lab, []).append(float(x))
    score = {lab: float(np.mean(sorted(xs, reverse=True)[:PROTO_TOP])) for lab, xs in per.items()}
    ranked = sorted(((v, k) for k, v in score.items() if k != "none"), reverse=True)
    if not ranked:
        return None
    best, slot = ranked[0]
    runner = ranked[1][0] if len(ranked) > 1 else -1.0
    if best < score.get("none", -1.0) + PROTO_MARGIN or best < runner + PROTO_MARGIN:
        return None
    return slot


def slot_evidence(question: str, store: Any, scope: Scope, filters: Any = None,
                  hits: list[Hit] | tuple[Hit, ...] = (), embedder: Any = None,
                  question_vector: np.ndarray | None = None, cited: Any = (),
                  supports: Callable[[MemoryItem], bool] | None = None) -> list[MemoryItem]:
    """The memories holding the current claims of the slots ``question`` asks about, as they hold now, in ``scope``
    (its agent and session when set): per slot the newest said, slots in the order asked; a fact drawn from a kept
    turn among the search ``hits`` is cited as that turn (the user's words, as they hold now). The slots: those its
    words name (:func:`asked_user_slots`); when they name none the user has a claim of, with a calibrated
    ``embedder`` and the question's ``question_vector``, the nearest slot prototype (:func:`nearest_slot`), else
    the slots of the user's own claims nearest in meaning (:func:`~.claim_reading.nearest_claim_slots`) when the
    evidence test's answer (``cited``: its citations, none for an abstention) states no current claim of the
    user's own ("我周末在哪儿打工？" answered by "周末两天。", the rest of a turn whose job claim was closed); a
    memory read that way is evidence only when ``supports`` accepts it (``ask``: it holds the kind of value asked,
    :func:`~.evidence.names_the_asked`). A slot whose current claim is an ending ("Handed in my notice at Blue
    Bottle", closing the job) is answered by it. [] for a read with ``filters`` (the caller narrowed what may
    answer) or when no asked slot has a current claim."""
    if filters:
        return []
    attrs = asked_user_slots(question)
    out = _current_evidence(attrs, store, scope, hits) if attrs else []
    if attrs and not out:  # "Where does my sister live?" with "My sister Mei lives in Chengdu": Mei's claim
        out = _named_relatives_evidence(attrs, store, scope)
    if attrs and not out:  # "Am I seeing anyone?" after "Marcus and I called it off": the ending answers
        out = _ended_evidence(attrs, store, scope, hits)
    if out or embedder is None or question_vector is None or not _plain_user_question(question):
        return out
    kin = kin_words(question)
    near = None if kin or attrs else nearest_slot(question_vector, embedder)  # no words named a slot: the
    more = [near] if near else []  # nearest prototype may, or the nearest of the user's claims
    if more:
        return _current_evidence(more, store, scope, hits)
    if not any(_holds_claim(c) for c in cited):  # .claim_reading, over the user's own slots or those of the
        # relations / animals the question names ("How many children do I have?" -> count:child)
        owners = frozenset(_claim_owners(kin) | set(_owners(question, _concepts(question)) if not kin else ()))
        # words that named a slot the user has no claim of ("我的工资是多少？") are not answered by another named
        # slot ("我在华为上班。"); an open one may be what they meant (上班路上 -> the commute)
        more = [a for sl in nearest_claim_slots(question_vector, store, scope, embedder, owners)
                if (a := sl.partition("|")[2]) not in attrs and not (attrs and a in _known_attributes())]
    found = _current_evidence(more, store, scope, hits) if more else []
    return [m for m in found if supports is None or supports(m)]  # read by meaning: still about what is asked


def _named_relatives_evidence(attrs: list[str], store: Any, scope: Scope) -> list[MemoryItem]:
    """Per relative's attribute of ``attrs`` (``sister_home_city``) without a claim of its own, the current claim of
    the one person named beside that relation in its words ("My sister Mei just moved to Beijing": ``mei|home_city``,
    :func:`~anchormem.facts.subjects.named_relatives`), as it holds now."""
    from ..facts.subjects import claim_owner, named_relatives
    from ..filters import Cond

    wanted = [(rel, base) for a in attrs for _, rel, base in [claim_owner(FactSlot(entity="user", attribute=a, value=""))]
              if rel]
    if not wanted:
        return []
    listed = [m for m in store.list_memories(Scope(tenant=scope.tenant, user_id=scope.user_id),
                                             Cond(field="kind", op="eq", value="fact"))
              if all(getattr(scope, k) in (None, getattr(m, k)) for k in ("agent_id", "session_id"))]
    out: list[MemoryItem] = []
    for rel, base in wanted:
        for m in named_relatives(rel, base, listed):
            view = current_view(m)
            if view and all(view.id != o.id for o in out):
                out.append(view)
    return out


def _is_ending(m: MemoryItem) -> bool:
    """``m`` says a value ended: a departure or parting (``gone`` / ``parted``,
    :data:`~anchormem.facts.keys.ENDING_EVENTS`) or a claim of polarity -1 ("Haven't smoked in 3 months")."""
    from ..facts.claims import own_claims
    from ..facts.keys import ENDING_EVENTS

    return any(c.polarity < 0 or c.slot.partition("|")[2] in ENDING_EVENTS for c in own_claims(m))


def _ended_evidence(attrs: list[str], store: Any, scope: Scope, hits: Any) -> list[MemoryItem]:
    """For asked slots (``attrs``) with no current claim: the current memories that closed their claims by an
    ending (the end of the ``superseded_by`` chain, :func:`~.successors.current_successor`, when it says a value
    ended: :func:`_is_ending`), newest said first, as said (the turn among the search ``hits`` that states it,
    :func:`_as_said`) and as they hold now, then the closed claims' memories as the past
    (``valid_to`` set: quoted "true until <month>"), newest closed first. "Am I seeing anyone?" after "My
    boyfriend Marcus is a chef." then "Marcus and I called it off." -> [the parting, the boyfriend (until …)].
    [] when no claim of the asked slots was closed by an ending in ``scope``."""
    from ..filters import And, Cond
    from .successors import current_successor

    wanted = set(attrs)
    closed = [m for m in store.list_memories(Scope(tenant=scope.tenant, user_id=scope.user_id),
                                             And((Cond(field="kind", op="eq", value="fact"),
                                                  Cond(field="slot", op="in", value=[f"user|{a}" for a in attrs]),
                                                  Cond(field="valid_to", op="exists", value=True))),
                                             include_superseded=True)
              if m.fact is not None and m.fact.entity == "user" and m.fact.attribute in wanted and
              m.fact.polarity > 0 and m.superseded_by and m.tier == "warm" and
              all(getattr(scope, k) in (None, getattr(m, k)) for k in ("agent_id", "session_id"))]
    endings: dict[str, MemoryItem] = {}
    past: list[MemoryItem] = []
    for m in sorted(closed, key=lambda x: x.valid_to, reverse=True):  # type: ignore[arg-type,return-value]
        nxt = current_successor(m.superseded_by, store, scope)  # type: ignore[arg-type]
        if nxt is None or not _is_ending(nxt):
            continue
        view = _as_said(nxt, hits)
        if view:
            endings.setdefault(view.id, view)
            past.append(m)
    now = sorted(endings.values(), key=lambda x: x.created_at, reverse=True)
    return now + past


def _current_evidence(attrs: list[str], store: Any, scope: Scope, hits: Any) -> list[MemoryItem]:
    """Per attribute of ``attrs`` (the user's slots), the memory holding its current claim as it holds now; for a
    name slot of a counted set's members (``cat_names``, ``dog_name``: :func:`~anchormem.facts.counts.member_key`),
    every memory holding one of its current claims, oldest first (names joined: "Miso and Tofu", then "calling her
    Pickles" said with one more, "We also have a cat called Tofu": :mod:`anchormem.facts.counts`)."""
    from ..facts.counts import member_key

    found = store.current_facts(scope.tenant, scope.user_id, [f"user|{a}" for a in attrs])
    positive = {m.fact.attribute for m in found if m.fact is not None and m.fact.polarity > 0}
    per: dict[str, list[MemoryItem]] = {}
    for m in found:  # oldest first: the newest said of a slot wins
        if m.fact is None or m.kind == "summary" or \
                any(getattr(scope, k) not in (None, getattr(m, k)) for k in ("agent_id", "session_id")):
            continue
        if m.fact.polarity <= 0 and (m.fact.attribute in positive or not ended_claim(m, store, scope)):
            continue  # an ending is what holds now when nothing holds since ("I handed in my notice")
        view = _as_said(m, hits)
        if view:
            joined = bool(member_key(m.fact.attribute)) and m.fact.polarity > 0  # (names of a counted set's
            # members: the write path closes one only when it is gone or renamed, facts.counts.joins_set)
            per[m.fact.attribute] = [v for v in per.get(m.fact.attribute, []) if joined and v.id != view.id] + [view]
    out: list[MemoryItem] = []
    for a in attrs:
        out += [v for v in per.get(a, []) if all(v.id != m.id for m in out)]
    return out


def _as_said(m: MemoryItem, hits: Any) -> MemoryItem | None:
    """The fact memory ``m`` as the user said it: the kept turn among the search ``hits`` that carries and states its
    claim, else ``m`` itself, as it holds now (:func:`~anchormem.facts.claims.current_view`)."""
    turn = next((h.memory for h in hits if h.memory.kind != "summary" and h.memory.id != m.id and
                 h.memory.valid_to is None and
                 any(c.fact_id == m.id and c.valid_to is None and _states(h.memory, c) for c in h.memory.claims)),
                None)  # (a turn carrying a claim in other words, "Done moving!" realising a plan: the fact)
    return (turn is not None and current_view(turn)) or current_view(m)


def _states(turn: MemoryItem, claim: Any) -> bool:
    """``turn`` states ``claim``: it holds its words (``span``; a claim without one counts as stated) or its value
    ("搬完了，温哥华天气真好" realising "下个月搬去温哥华"), not only carries it from another turn ("Done moving!"
    carrying the planned move it realised, naming no city)."""
    text = " ".join(turn.text.split()).casefold()
    return not claim.span or " ".join(claim.span.split()).casefold() in text or claim.value.casefold() in text


def same_slot_value(a: MemoryItem, b: MemoryItem) -> bool:
    """``a`` and ``b`` are facts of one slot (one value in two forms, or an older and a newer value of it): one of
    them is enough as evidence for the slot."""
    fa, fb = a.fact, b.fact
    return fa is not None and fb is not None and fa.slot == fb.slot and \
        (same_value(fa.attribute, fa.value, fb.value) or fa.polarity > 0 and fb.polarity > 0)


def with_slot_evidence(ans: Answer, slot: list[MemoryItem], question: str, max_citations: int) -> tuple[Answer, list[Hit]]:
    """``ans`` (the evidence test's answer, possibly an abstention) citing ``slot`` (:func:`slot_evidence`) first,
    then its own citations that add something: not one of them, not the turn a slot fact was drawn from (same
    instant, holding its words), not another fact of an asked slot's attribute (an older value still current, or a
    relative's: "My brother moved to Denver." for "Where do I live?"); at most ``max_citations``. Returns (the
    answer, the slot memories as hits: ``explain["slot_evidence"]``)."""
    asked = {m.fact.attribute for m in slot if m.fact is not None}

    def adds(c: MemoryItem) -> bool:
        if any(c.id == m.id or (m.text in c.text and m.created_at == c.created_at) or same_slot_value(c, m)
               for m in slot):
            return False
        f = c.fact
        return f is None or not any(f.attribute == a or f.attribute.endswith("_" + a) for a in asked)

    extra = [c for c in ([] if ans.abstained else ans.citations) if adds(c)]
    cites = (slot + extra)[:max_citations]
    zh = has_cjk(question)
    hits = [Hit(memory=m, score=1.0, explain={"slot_evidence": m.fact.attribute if m.fact else None}) for m in slot]
    text, cites = quoted(cites, zh=zh)
    return Answer(text=text, citations=cites, abstained=False, evidence=list(ans.evidence) + hits), hits


def latest_first(ans: Answer, question: str) -> Answer:
    """``ans`` with its citations newest said first, for a present question about the user ("how many cars do we
    have?"): two memories that both still hold and both answer it say one thing twice or a change the write path
    did not read; the later one is what holds now. Other questions (the past, a plan, someone else) and abstentions
    are returned as they are."""
    if ans.abstained or len(ans.citations) < 2 or not _plain_user_question(question) or \
            not asks_present(question):
        return ans
    cites = sorted(ans.citations, key=lambda m: m.valid_from, reverse=True)
    if [m.id for m in cites] == [m.id for m in ans.citations]:
        return ans
    text, cites = quoted(cites, zh=has_cjk(question))
    return ans.model_copy(update={"citations": cites, "text": text})
