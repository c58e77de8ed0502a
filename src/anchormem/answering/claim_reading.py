"""Read a question about the user into the slot of one of their own claims, by meaning.

The words of a question name a slot only when they are words some list knows ("Where do I live?" -> home_city:
:mod:`.slot_questions`, :mod:`.slot_evidence`), and the slot prototypes cover a handful of fixed slots. The slots a
user's claims actually hold are open: ``count:hamster``, ``commute``, ``gym_membership``, ``amount:<key>`` (a
numeric attribute the change detector keyed by its words: "通勤要一个半小时" -> "通勤只要二十分钟了"),
``habit:<key>``, ``does:<activity>``. "我有几只仓鼠？" against "so three hamsters now." (another language),
"我上班路上要多久？" against "通勤只要二十分钟了" (a paraphrase), "Where do I work at the moment?" against "Handed in
my notice at Blue Bottle" (an ending) share no word with the memory that answers them, yet the store knows which
memory states that slot's current value.

So a question about the user (first person, no other name; a relative only for the slots of that relative) is
compared by meaning, its embedding against the user's memories that state claims (the store's dense index: fact
memories and the turns carrying claims, current and superseded), and it reads as the slot of the nearest one
(:func:`nearest_claim_slots`) when that turn leads every other turn's slots by :data:`CLAIM_MARGIN`, is as near as
any memory stating no claim (within :data:`NEAREST_TOLERANCE`: a question answered by a turn that states no claim,
"What am I studying at night?", keeps the evidence test's answer), and the claim's own words are too (a turn is
near for all it says, its claims only for theirs). ``ask`` reads a question this way only when the evidence test
found no current claim to cite (:func:`~.slot_evidence.slot_evidence`).

A past question ("我以前通勤多久？") is compared without its past words; it reads as the slot whose chain then
answers it from the past (:func:`~.successors.past_slot_answer`). Only the user's own slots answer: never a
relative's (``brother_home_city``) unless the question names that relative, nor another speaker's. No calibrated
embedder (the hash embedder of tests), no claims, or no clear nearest slot: [], and ``ask`` answers as before.

    nearest_claim_slots(qv, store, scope, embedder)   # "我有几只仓鼠？" -> ["user|count:hamster"]
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from .. import langdata
from ..facts.keys import NAMED_SLOTS, plural_person, relation_words
from ..filters import parse_filters
from ..types import MemoryItem, Scope
from .persons import kin_base

__all__ = ["nearest_claim_slots", "own_slot", "person_singular", "ended_claim", "CLAIM_MARGIN", "NEAREST_TOLERANCE",
           "CLAIM_K", "MAX_SPANS", "CLAIM_FLOOR"]

CLAIM_K = 12  # memories compared: the nearest current ones and as many superseded ones
CLAIM_MARGIN = 0.02  # the nearest slot's cosine over another turn's slots (dev own+gen3+gen4, fact memories alone:
# at 0.02, 13 of 393 questions read as a wrong slot where the right one was there; at 0.0, 41 of 461)
NEAREST_TOLERANCE = 0.01  # the slot's fact may sit this far below the user's nearest memory of any kind
MAX_SPANS = 8  # claim words embedded per question at most
CLAIM_FLOOR = 0.07  # the claim's words must be this much nearer the question than unrelated sentences are on
# average, in the language where they sit nearest (the question's own). Dev gen3+gen4 and ask_crosslang dev: 10 of
# 14 slots read wrongly sat below 0.05, 4 of 70 read rightly; 0.05 answered 1 more no-answer question of the
# ask_crosslang held-out half than main (its test), 0.07 none (and keeps ~60% of the dev gains of 0.05)


_ANIMAL_OWNERS = frozenset(a.rsplit("_", 1)[0] for a in NAMED_SLOTS)  # dog, cat, horse...: a slot of theirs is
# answered only when the question names them


class _Background:
    """The shipped calibration sentences of each language (``data/lang/<lang>/calibration.json``) embedded once per
    embedder: a question's mean cosine to them is how near any sentence of that language sits (multilingual-e5-small
    puts a Chinese question ~0.09 lower against every English sentence than against Chinese ones)."""

    def __init__(self) -> None:
        self._vecs: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()

    def level(self, embedder: Any, lang: str, qv: np.ndarray) -> float:
        key = (f"{getattr(embedder, 'name', type(embedder).__name__)}/{getattr(embedder, 'dim', '')}", lang)
        with self._lock:
            vecs = self._vecs.get(key)
        if vecs is None:
            sentences = list(langdata.load("calibration", lang).get("sentences", []))
            if not sentences:
                return 0.0
            vecs = np.asarray(embedder.embed_documents(sentences), dtype=np.float32)
            with self._lock:
                self._vecs[key] = vecs
        return float(np.mean(vecs @ qv))


_BACKGROUND = _Background()


def person_singular(word: str) -> str:
    """A relation word in its singular canonical form: "children" -> child, "kids" -> kid, "Moms" -> mother,
    弟弟 -> 弟弟; any other word lower-cased."""
    w = word.lower()
    w = plural_person().get(w, w)
    return kin_base(w) or (kin_base(w[:-1]) if w.endswith("s") else None) or w


def own_slot(slot: str, owners: frozenset[str] = frozenset()) -> bool:
    """``slot`` (``"user|<attribute>"``) answers a question about the user: with no ``owners`` (the question names
    no relative or animal), the user's own slot, not a relative's, a named person's or a pet's
    (``user|brother_home_city``, ``user|daughter_age``, ``user|dog_breed``: the attribute's first part names its
    owner); with ``owners`` (the relations the question
    names: "my children" -> child, kid, son, daughter), a slot naming one of them (``daughter_age``,
    ``count:child``)."""
    who, _, attribute = slot.partition("|")
    if who != "user" or not attribute:
        return False
    if owners:
        named = {person_singular(o) for o in owners}
        return any(person_singular(p) in named for p in re.split(r"[_:]", attribute) if p)
    head = attribute.split("_", 1)[0] if "_" in attribute and ":" not in attribute.split("_", 1)[0] else ""
    return not head or (kin_base(head) is None and head.lower() not in relation_words() and
                        head.lower() not in _ANIMAL_OWNERS)  # dog_breed is the dog's: "my horse" is not asked


def _in_scope(m: MemoryItem, scope: Scope) -> bool:
    return m.user_id == scope.user_id and m.kind != "summary" and m.tier == "warm" and \
        all(getattr(scope, k) in (None, getattr(m, k)) for k in ("agent_id", "session_id"))


def _slots(m: MemoryItem) -> set[str]:
    """The slots ``m`` states: its own fact's and those of the claims it carries (held or closed)."""
    return {c.slot for c in m.claims} | ({m.fact.slot} if m.fact is not None else set())


def nearest_claim_slots(question_vector: np.ndarray, store: Any, scope: Scope, embedder: Any,
                        owners: frozenset[str] = frozenset()) -> list[str]:
    """The slots (``"user|<attribute>"``) of the user's own claims nearest in meaning to the question (its query
    embedding, float32 (dim,), from ``embedder``), under the module's conditions: one slot, or the slots one turn
    states together when they tie ("I'm a barista at Blue Bottle": occupation and employer).

    A slot first scores its nearest memory among those that state it: a fact memory, or a turn carrying its claim,
    held or closed ("我在麦当劳打工，周末两天。" still says which slot "我周末在哪儿打工？" asks about after the job
    changed); superseded memories count, as the earlier statements of their slots. The nearest turn must lead every
    other turn's slots by :data:`CLAIM_MARGIN` and sit within :data:`NEAREST_TOLERANCE` of the nearest memory that
    states no claim. A turn says more than its claims ("I have 14 houseplants, my favorite is a monstera named
    Gerald." holds a favourite claim, not the count "how many plants do I own?" asks for), so its slots are then
    scored by their claims' own words (``Claim.span``, embedded as passages), which must also reach the nearest
    claimless memory (within the tolerance) and sit :data:`CLAIM_FLOOR` above the question's mean cosine to
    unrelated sentences (of the language they sit highest in: the question's own, so a translation clears it
    too, "我在哪里上的大学？" is not "I live in Bristol."); the slots within :data:`CLAIM_MARGIN` of the best are kept.
    ``owners``: the relations the question names (:func:`own_slot`). [] when no memory in ``scope`` states one of
    the user's own slots, or no slot (or turn) is clearly nearest."""
    qv = np.asarray(question_vector, dtype=np.float32)
    rows = store.dense_search(scope, qv, CLAIM_K, None) + \
        store.dense_search(scope, qv, CLAIM_K, parse_filters({"valid_to": {"exists": True}}))
    if not rows:
        return []
    items = store.get_many(scope.tenant, sorted({i for i, _ in rows}), entities=False)
    per: dict[str, tuple[float, Any]] = {}  # slot -> (its nearest cosine, when that memory was said)
    words: dict[str, set[str]] = {}  # slot -> the words of its claims among the memories compared
    bare = -2.0  # the nearest current memory that states no claim
    for mid, cos in rows:
        m = items.get(mid)
        if m is None or not _in_scope(m, scope):
            continue
        own = {sl for sl in _slots(m) if own_slot(sl, owners)}
        if not own and m.valid_to is None and not m.claims and m.fact is None:
            bare = max(bare, float(cos))
        for sl in own:
            if float(cos) > per.get(sl, (-2.0, None))[0]:
                per[sl] = (float(cos), m.created_at)
            words.setdefault(sl, set()).update(c.span or c.value for c in m.claims if c.slot == sl and
                                               (c.span or c.value))
    if not per:
        return []
    ranked = sorted(per.items(), key=lambda kv: (-kv[1][0], kv[0]))
    top, said = ranked[0][1]
    if top < bare - NEAREST_TOLERANCE:
        return []
    close = [(sl, when) for sl, (cos, when) in ranked if cos >= top - CLAIM_MARGIN]
    if any(when != said for _, when in close):
        return []  # two turns answer about as well: no slot is clearly asked
    texts = sorted({w for sl, _ in close for w in words.get(sl, ())})[:MAX_SPANS]
    if not texts:
        return [sl for sl, _ in close]
    vecs = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
    near = dict(zip(texts, (vecs @ qv).tolist()))
    level = max(_BACKGROUND.level(embedder, lang, qv) for lang in langdata.LANGUAGES)  # the question's own
    above = {w: near[w] - level for w in texts}  # language sits highest: a translation must clear it too
    by_words = {sl: max((near[w] for w in words.get(sl, ()) if w in near), default=-2.0) for sl, _ in close}
    best = max(by_words.values())
    if best < bare - NEAREST_TOLERANCE:
        return []  # the turn is near for what else it says
    if max(above.values()) < CLAIM_FLOOR:
        return []  # near only as any sentence of that language is: no claim is what the question asks about
    return [sl for sl, _ in close if by_words[sl] >= best - CLAIM_MARGIN]


def ended_claim(m: MemoryItem, store: Any, scope: Scope) -> bool:
    """``m`` (a current fact memory of polarity -1) ended a value the slot held before ("Handed in my notice at
    Blue Bottle" after "I'm a barista at Blue Bottle"): what holds now is that it ended. A denial with nothing
    before it ("I'm not a doctor.") is no such ending."""
    if m.fact is None or m.fact.polarity >= 0:
        return False
    return bool(store.predecessors(scope.tenant, scope.user_id, [m.id]).get(m.id))
