"""Reconcile new facts with what is already known: ADD, NOOP, SUPERSEDE, or hold for review.

Runs inside :meth:`anchormem.Memory.add` on the user's own turns (never assistant/system turns, never questions).
Each fact from :func:`~anchormem.facts.rules.extract_from_text` becomes a ``kind="fact"`` memory whose text is the
verbatim sentence it came from, with provenance copied from its turn. For each new fact and the current facts of
its slot (``"<entity>|<attribute>"``; entity = the speaker's name, else ``"user"``):

- same value and polarity already current → **NOOP** (the existing memory is returned);
- none in conflict → **ADD**;
- conflict (same value with the other polarity, or another value where both are positive) →
  **REVIEW** when the attribute is sensitive (card, ID, address, phone…) or the confidences differ by more than
  ``review_gap`` (0.2): nothing is applied, a :class:`~anchormem.types.ReviewItem` is queued;
  otherwise **SUPERSEDE**: the old memories get ``valid_to`` = the new one's ``valid_from`` (kept, visible with
  ``as_of`` and in ``history``). A statement older than the current one (an import of past conversations) is
  stored already closed (``valid_to`` = the current one's ``valid_from``), so history is right in either order.
  So is a value of the past told as a state (:func:`~anchormem.facts.aspect.past_state`: "Before Shanghai I lived
  in Nanjing", "rent was 3500 there", 以前…房租才3500 - not a change told in the past: "I moved to Berlin"): it
  closes nothing, held until the oldest current value it clashes with (alone, it is the value known and current).

A kept utterance carries the claims of the facts drawn from it (:mod:`anchormem.facts.claims`): when they are all
superseded it is closed with them; a late statement's utterance is stored already closed when all its facts are.

A one-sentence turn stating one fact and nothing else is represented by its fact memory only (no separate utterance,
so a restated fact really is one NOOP, and a change held for review is not half-applied); one that says more than
its facts (:func:`~anchormem.facts.claims.remainder`: "我住在成都武侯区，在一家银行做柜员。" with the home the only
fact found) keeps its utterance too, its facts taking their own clauses, so that a change of the home leaves the
rest current. Longer turns keep their
verbatim utterance too, and a sentence stating several facts gives each fact its own clause as text ("Please
call me Ann; I prefer Spanish." -> "Please call me Ann", "I prefer Spanish."); a clause stating two facts ("I work at
a hospital as a nurse.": employer and occupation) is two fact memories of that text, without a third copy.
A fact that merely mentions an entity has its own slot and never closes unrelated facts about that entity.
What is said of a person ("my brother is …") is typed by its value whichever extractor found it
(:func:`~anchormem.facts.keys.person_slot`: ``brother_name`` / ``brother_occupation`` / ``brother_age`` / ...; a
description is a slot of its own), so "My brother is a doctor." does not close "My brother is Tom." and "My brother
is married." does not close "My brother is 30."; "My brother is not a doctor any more." closes the doctor.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from .. import langdata
from ..tracing import staged
from ..ingest.classify import memory_hash
from ..ingest.pipeline import Draft, time_terms
from ..text.segment import split_sentences
from ..text.tokenize import has_cjk, index_text
from ..timeutil import utcnow
from ..types import Claim, FactSlot, MemoryItem, ReviewItem
from .changes import ENDS_ANY
from .claims import adds_content, carry, decided_words, own_claims, remainder, value_clause
from .frames import pronoun_slots
from .grounding import check_support
from .keys import (NAMED_SLOTS, PARTNER_SLOTS, clean_value, implied_by, names_within, negated_person_value, person_slot,
                   related_attributes, same_value, value_key)
from .called_off import calls_off, restored
from .addresses import is_address_slot, is_move
from .counts import JOINS, departed_counts, joins_set, member_key
from .model import Fact, is_sensitive, normalize_object
from .past_values import past_besides as _past_besides, past_value as _past_value
from .plans import drop_plans, schedule
from .rules import extract_from_text
from .turn_readers import as_user, by_meaning, others_value, relative_changes, with_jobs, with_quantities
from .store_reads import PlanReads
from .value_types import gate as typed_gate
from .corrections import corrected

__all__ = ["FactPlan", "plan_facts", "conflicts", "REVIEW_GAP", "approval_targets"]

REVIEW_GAP = 0.2  # confidences further apart than this send a conflicting change to the review queue


@dataclass
class FactPlan:
    """What an ``add`` writes once facts are reconciled.

    ``drafts``: utterances kept plus new fact memories, in turn order; ``supersedes[i]``: ids draft ``i`` closes;
    ``noops``: current memories that a restatement matched (each already citing the restating turn);
    ``restated``: their ids → the ids of the turns restating them, for ``Store.write(restated=...)`` (a purge of the
    memory then forgets those turns too); ``reviews``: changes held for review.
    """

    drafts: list[Draft] = field(default_factory=list)
    supersedes: dict[int, list[str]] = field(default_factory=dict)
    noops: list[MemoryItem] = field(default_factory=list)
    restated: dict[str, list[str]] = field(default_factory=dict)
    reviews: list[ReviewItem] = field(default_factory=list)


def conflicts(old: FactSlot, new: FactSlot) -> bool:
    """Two facts contradict: in one slot, the same value with the other polarity or another value, both positive;
    across sibling slots (``likes:x`` / ``does:x``, :func:`~anchormem.facts.keys.sibling_attribute`), opposite
    polarities ("I love spicy food" / "I don't eat spicy food any more"); the name of one more member of a counted
    set (``extractor`` :data:`~anchormem.facts.counts.JOINS`: said with an increment or an addition, or with a count
    above one, :func:`~anchormem.facts.counts.joins_set`) joins the names, contradicting none; a ``gone`` fact
    ("Max passed away") contradicts only the current pet-name and partner-name facts holding that name (:data:`~anchormem.facts.keys.NAMED_SLOTS`,
    ``PARTNER_SLOTS``), the claims of the one so named ("My girlfriend Sarah is a teacher" after "Sarah and I broke up")
    and the possessions whose words name it (``possession:subaru outback`` "2012 Subaru Outback named Moose" after
    "Moose has a new owner"; 飞度出手了 after 我开一辆白色的飞度)."""
    if "parted" in (new.attribute, old.attribute):  # a parting naming no one: a partner's name (one: _plan_turn)
        return new.attribute == "parted" and old.polarity > 0 and implied_by(str(new.value), old.attribute)
    if new.attribute == "gone" or old.attribute == "gone":  # each departure stands; it only closes names
        return new.attribute == "gone" and old.polarity > 0 and (
            old.attribute in NAMED_SLOTS + PARTNER_SLOTS and normalize_object(old.value) == normalize_object(new.value)
            or old.entity.casefold() == str(new.value).casefold()  # "My girlfriend Sarah is a teacher": hers
            or old.attribute.startswith("possession:") and names_within(str(new.value), str(old.value)))
    if old.attribute != new.attribute:
        return new.attribute in related_attributes(old.attribute) and old.polarity != new.polarity
    if new.extractor == JOINS and member_key(new.attribute):
        return False  # a name given to one more ("adopted another cat, named her Luna") joins the names known
    new_key = value_key(new.attribute, new.value)
    if new_key == ENDS_ANY and new.polarity < 0:  # "我辞职了": ends the current employer, whichever it is
        return old.polarity > 0
    if same_value(old.attribute, old.value, new.value):  # (one name in two scripts too: Bristol / 布里斯托)
        return old.polarity != new.polarity
    return old.polarity > 0 and new.polarity > 0


def approval_targets(store: Any, tenant: str, user_id: str, new: MemoryItem) -> list[MemoryItem]:
    """The current facts an approved review item (``new``) supersedes now: those of its slot it conflicts with."""
    if new.fact is None:
        return []
    out = [c for c in store.current_facts(tenant, user_id, [new.fact.slot]) if c.fact and conflicts(c.fact, new.fact)]
    if new.fact.attribute == "address" and is_move(new.text):  # a move to a street address: every address slot
        from ..filters import Cond
        from ..types import Scope

        listed = [m for m in store.list_memories(Scope(tenant=tenant, user_id=user_id),
                                                 Cond(field="kind", op="eq", value="fact"))
                  if m.fact is not None and m.valid_to is None]
        out += [c for c in _moved_addresses(new.text, new.fact, lambda: listed) if c not in out]
    return out


def _moved_addresses(said: str, slot: FactSlot, listing: Callable[[], list[MemoryItem]]) -> list[MemoryItem]:
    """For a move to a street address (``said``: the words of the home ``address`` fact ``slot``; :mod:`.addresses`), the user's
    current facts of the other address slots (shipping, delivery, 收货地址) holding another address: the move
    replaces them too (an address is sensitive, so the change goes to review). [] for any other fact."""
    if slot.attribute != "address" or slot.polarity < 0 or not is_move(said):
        return []
    return [c for c in listing() if c.fact is not None and c.fact.polarity > 0 and
            c.fact.entity.casefold() == slot.entity.casefold() and c.fact.attribute != "address" and
            is_address_slot(c.fact.attribute) and not same_value(c.fact.attribute, c.fact.value, slot.value)]


def _same(old: FactSlot, new: FactSlot) -> bool:
    return old.attribute == new.attribute and old.polarity == new.polarity and \
        same_value(old.attribute, old.value, new.value)


def _related(slot: FactSlot) -> list[str]:
    """The slot keys a new fact is compared with: its own and its related ones (:func:`related_attributes`)."""
    return [slot.slot] + [FactSlot(entity=slot.entity, attribute=a, value=slot.value).slot
                          for a in related_attributes(slot.attribute)]


def _fact_span(d: Draft, f: Fact, shared: bool) -> str:
    """The text of the fact's memory: its sentence, or its own clause when the sentence states several facts."""
    return (value_clause(f.clause or f.source_span, f.value) if shared else f.source_span).strip() or d.item.text


_APPOSITION = (",", "，", ";", "；", "—", "–", "(", "（")


@lru_cache(maxsize=1)
def _links() -> re.Pattern:
    """The words that join a job to its employer in one clause ("I'm a nurse at St Mary's", "我是老师，在…"):
    ``companion_links`` of data/lang/*/frames.json."""
    words = langdata.words("frames", "companion_links")
    return re.compile(r"\s*(?:" + langdata.alternation(words) + r")(?:\s|(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[A-Za-z]))",
                      re.I)


def _narrowed(facts: list[Fact]) -> list[Fact]:
    """``facts`` with the clause of a fact that one clause states beside another narrowed to its own words ("I'm a
    nurse at St Mary's.": the job's words are "I'm a nurse", the employer's the whole clause); "I have
    two cats, Tom and Jerry." states the count ("I have two cats": its value, then a comma, then the other fact's
    value) and the names (the whole clause). A change of the count then retires its own words only, never the names
    (:func:`~anchormem.facts.claims.current_view`)."""
    out = []
    for f in facts:
        c = (f.clause or "").strip()
        i = c.casefold().find(f.value.casefold()) if c and f.value else -1
        end = i + len(f.value)
        if i >= 0 and (c[end:].lstrip().startswith(_APPOSITION) or _links().match(c[end:]) or
                       f.attribute.startswith("count:")) and any(  # (a count's words are its own: 我有一只狗叫旺财)
                g is not f and (g.clause or "").strip() == c and g.value and
                c.casefold().find(g.value.casefold(), end) >= 0 for g in facts):
            f = f.model_copy(update={"clause": c[:end].rstrip()})
        out.append(f)
    return out


def _fact_draft(d: Draft, f: Fact, shared: bool) -> Draft:
    """The fact's memory (its text: :func:`_fact_span`)."""
    it = d.item
    span = _fact_span(d, f, shared)
    slot = FactSlot(entity=f.entity, attribute=f.attribute, value=f.value, polarity=f.polarity,
                    extractor=f.extractor)
    item = it.model_copy(update={
        "id": uuid.uuid4().hex, "text": span, "kind": "fact", "confidence": f.confidence, "fact": slot,
        "entities": [e for e in it.entities if e.value in span], "labels": [],
        "metadata": {**it.metadata}})
    same_text = span == it.text.strip()
    extra = " ".join(x for x in (it.speaker, time_terms(it.created_at)) if x)
    return Draft(item, memory_hash(item),
                 d.index_text if same_text else index_text(span, extra))


def _typed(f: Fact) -> Fact:
    """``f`` with a person's slot typed by its value (an LLM's ``brother`` = "a doctor" -> ``brother_occupation`` =
    "doctor": the value cleaned for its new slot, :func:`~anchormem.facts.keys.clean_value`)."""
    job = negated_person_value(f.attribute, f.value)  # "not a doctor any more": the job, polarity flipped
    if job is not None:
        attr = f"{f.attribute}_occupation"
        return f.model_copy(update={"attribute": attr, "value": clean_value(attr, job), "polarity": -f.polarity})
    attr = person_slot(f.attribute, f.value)
    return f if attr == f.attribute else f.model_copy(update={"attribute": attr, "value": clean_value(attr, f.value)})


def _next_said(store: Any, tenant: str, user_id: str, current: MemoryItem, since: datetime) -> MemoryItem:
    """The statement of ``current``'s slot said first after ``since``: ``current`` or one it replaced (followed back
    through :meth:`~anchormem.stores.protocol.Store.predecessors`). A statement imported late is closed by the next
    one said after it, not by today's value: Sheffield said in March, imported after Leeds (May) and Manchester
    (June, current), held until May."""
    seen = {current.id}
    while current.fact is not None:
        ids = [i for i in store.predecessors(tenant, user_id, [current.id]).get(current.id, []) if i not in seen]
        before = [m for m in store.get_many(tenant, ids, entities=False).values() if m.fact is not None and
                  m.fact.slot == current.fact.slot and since < m.valid_from < current.valid_from] if ids else []
        if not before:
            break
        seen.update(ids)
        current = min(before, key=lambda m: m.valid_from)
    return current


def _goes_after(current: MemoryItem, new: MemoryItem) -> bool:
    """Two statements of one slot said at the same instant (two writers, one timestamp): time cannot order them,
    but a change presupposes the state it ends, so the one that reads as a change (a terminative or inchoative
    marker, :func:`~anchormem.facts.aspect.reads_as_change`: "I moved to Rome", "rent went up to 1,400", 搬到, 换成) goes
    after the one that does not ("I live in Paris"). True when ``current`` (stored) reads as a change and ``new``
    does not: ``new`` is stored already closed by it. Else arrival order (``new`` supersedes ``current``)."""
    from .aspect import reads_as_change

    return current.valid_from == new.valid_from and reads_as_change(current.text) and not reads_as_change(new.text)


def _companions(store: Any, tenant: str, user_id: str, slot: FactSlot, clash: list[MemoryItem],
                turn: Sequence[Fact] = ()) -> list[MemoryItem]:
    """Quitting ends the job and the employer said together: for a -1 ``occupation`` that closes "I'm a nurse", the
    current ``employer`` facts whose words hold that job's words ("I'm a nurse at St Mary's."); for a -1 ``employer``
    that closes "I work at a bank as a teller.", the current ``occupation`` facts said in those words, unless the
    turn (``turn``: its facts) names a job or an employer of its own ("left Google and joined Stripe": the job
    may go on at the new employer; a new job replaces the old one through its own slot)."""
    if slot.attribute not in ("occupation", "employer") or slot.polarity >= 0 or not clash:
        return []
    other = "employer" if slot.attribute == "occupation" else "occupation"
    if other == "occupation" and any(f.entity == slot.entity and f.polarity > 0 and f.attribute in ("employer",
                                                                                                  "occupation")
                                     for f in turn):
        return []
    spans = [c.text.strip().rstrip(".。!！") for c in clash if c.text.strip()]
    key = FactSlot(entity=slot.entity, attribute=other, value=slot.value).slot
    said = [(e, e.text.strip().rstrip(".。!！")) for e in store.current_facts(tenant, user_id, [key]) if e not in clash]
    return [e for e, words in said if words and any(sp and (sp in words or words in sp) for sp in spans)]


def _resolved(facts: list[Fact], store: Any, tenant: str, user_id: str) -> list[Fact]:
    """``facts`` with an age said of a pronoun ("She's now 7": ``she_age``) put in the one current person's age slot
    it can stand for (``daughter_age``); dropped when there is none or more than one (who "she" is stays unknown)."""
    out = []
    for f in facts:
        cands = pronoun_slots(f.attribute)
        if cands is None:
            out.append(f)
            continue
        keys = [FactSlot(entity=f.entity, attribute=a, value=f.value).slot for a in cands]
        have = {c.fact.attribute for c in store.current_facts(tenant, user_id, keys) if c.fact}
        if len(have) == 1:
            out.append(f.model_copy(update={"attribute": have.pop()}))
    return out


def _known_facts(store: Any, tenant: str, user_id: str) -> list[tuple[str, str, str]]:
    """The user's current facts as (entity, attribute, value), oldest first: what an extractor that proposes changes
    (the LLM) is shown to match a new turn against (:func:`~.llm_extract.extract_facts_llm`, ``known``)."""
    from ..filters import Cond
    from ..types import Scope

    items = store.list_memories(Scope(tenant=tenant, user_id=user_id), Cond(field="kind", op="eq", value="fact"))
    return [(m.fact.entity, m.fact.attribute, str(m.fact.value)) for m in items
            if m.fact is not None and m.valid_to is None and m.fact.polarity > 0]


_LIST_SEP = re.compile(r"\s*(?:,|，|、|;|；)\s*(?:and\s+)?|\s+(?:and|&)\s+|\s*(?:和|跟|与|还有)\s*", re.I)


def _remaining_names(d: Draft, facts: list[Fact], current: dict[str, list[MemoryItem]]) -> list[Fact]:
    """For each ``gone`` fact of the turn ("Mochi passed away") naming one of several names a current names fact
    lists ("Mochi and Dumpling"), the fact of the names left ("Dumpling"), when the turn says them too ("It's just
    Dumpling and me now"): it replaces the list, so the one who is gone is no longer current and the others stay.
    Each through the grounding check; a list whose other names the turn does not say is left as it is."""
    out: list[Fact] = []
    for f in facts:
        if f.attribute != "gone" or f.polarity < 0:
            continue
        gone = normalize_object(f.value)
        for key in _related(FactSlot(entity=f.entity, attribute=f.attribute, value=f.value)):
            for c in current.get(key, []):
                if c.fact is None or c.fact.polarity < 0 or not c.fact.attribute.endswith("_names"):
                    continue
                names = [n for n in _LIST_SEP.split(str(c.fact.value).strip()) if n]
                rest = [n for n in names if normalize_object(n) != gone]
                if len(rest) == len(names) or not rest or not all(n.casefold() in d.item.text.casefold() for n in rest):
                    continue
                said = next((s for s in split_sentences(d.item.text) if all(n.casefold() in s.casefold() for n in rest)),
                            d.item.text)
                value = ("和" if any(has_cjk(n) for n in names) else " and ").join(rest)
                new = f.model_copy(update={"attribute": c.fact.attribute, "value": value, "source_span": said,
                                           "clause": said})
                if check_support(as_user(new, d.item.speaker), d.item.text).ok:
                    out.append(new)
    return out


_PERSON_ATTRS = ("home_city", "employer", "occupation")  # a person's slots one person said two ways share


def _same_person(f: Fact, slot: FactSlot, listing: Callable[[], list[MemoryItem]]) -> list[MemoryItem]:
    """The current claims of the person ``slot`` is about, of its attribute, kept under another key: one person said
    two ways. A relation alone ("My sister moved to Beijing": ``sister_home_city``) and a name said beside it in the
    claim's own words ("My sister Mei lives in Chengdu": Mei's ``home_city``), either way round
    (:func:`~anchormem.facts.subjects.named_relatives`); a relation and a narrower one ("sister" / 姐姐) stay two
    people (which sister is meant is unknown). Only when the claims found are one person's (two named friends:
    neither), never the speaker's own."""
    from .keys import kin_canonical
    from .subjects import claim_owner, named_relatives, person_owner

    ent, rel, attr = claim_owner(slot)
    if attr not in _PERSON_ATTRS or (ent == "user" and not rel) or slot.polarity < 0:
        return []
    if ent == "user":  # a relation alone: the person named beside that relation
        return named_relatives(rel, attr, listing())
    name, said = person_owner(f.clause or f.source_span)  # a named person said beside a relation ("My sister Mei…")
    if name.casefold() != ent or not said:
        return []
    return [c for c in listing() if c.fact is not None and c.fact.polarity > 0 and c.fact.entity.casefold() == "user"
            and claim_owner(c.fact)[1:] == (kin_canonical(said), attr)]


def _members_ended(slot: FactSlot, listing: Callable[[], list[MemoryItem]]) -> list[MemoryItem]:
    """An ending of a category ends its members: for a habit or diet ended ("I don't eat meat anymore": ``diet``
    "meat" -1; 我戒咖啡了: ``does:咖啡`` -1), the current likings and habits of the same person whose thing is a member
    of that category ("I love steak", 我每天早上喝一杯拿铁: :func:`~anchormem.facts.keys.category_members`, data of
    ``topic_categories``). A thing that names no category ends nothing more; never another person's claim, never the
    reverse (an ending of steak leaves the meat diet)."""
    from .keys import TOPIC_HEADS, category_members, in_category

    if slot.polarity >= 0:
        return []
    head, sep, key = slot.attribute.partition(":")
    if slot.attribute == "diet":
        key = {"eats meat": "meat"}.get(value_key("diet", slot.value), value_key("diet", slot.value))
    elif not (sep and head == "does"):
        return []
    members = category_members(key)
    if not members:
        return []
    return [c for c in listing() if c.fact is not None and c.fact.polarity > 0 and
            c.fact.entity.casefold() == slot.entity.casefold() and
            c.fact.attribute.partition(":")[0] in TOPIC_HEADS and c.fact.attribute.partition(":")[1] and
            in_category(c.fact.attribute.partition(":")[2], members)]


def _refines(attribute: str, old: str, new: str) -> bool:
    """``new`` restates ``old`` (one value: :func:`~anchormem.facts.keys.same_value`) in more words than a name in the
    other script: a part of the place (苏州工业园区 for Suzhou), whose turn's words are then kept beside the NOOP; "东京"
    for "Tokyo" is the same name and keeps nothing."""
    from .names import same_name

    return value_key(attribute, old) != value_key(attribute, new) and not same_name(old, new)


def _realised(d: Draft, facts: list[Fact], store: Any, tenant: str, user_id: str) -> list[Fact]:
    """The fact of the speaker's latest open plan that user turn ``d`` says came true without restating its value
    ("下个月搬去温哥华" ... "搬完了，温哥华天气真好"; "I'm starting at Stripe next month" ... "first day at the new
    job!": :func:`~anchormem.facts.plans.completed_attributes`), as the turn's own fact from its time: it supersedes
    the old value like any change. Open: a plan said before this turn (a memory of the speaker's dated ahead of its
    own day, :func:`~anchormem.facts.plans.plan_facts_of`) after every current claim of its slot, holding another
    value. [] when the turn says no completion, already states a fact of that action, or no plan is open."""
    from .called_off import open_plan
    from .plans import completed_attributes

    it = d.item
    if it.source != "user" or it.kind != "utterance":
        return []
    attrs = completed_attributes(it.text)
    if attrs is None or any(f.attribute in attrs or not attrs for f in facts):
        return []
    found = open_plan(store, tenant, user_id, it.speaker or "user", d.said_at or it.created_at, attrs)
    if found is not None:
        m, f = found
        span = next((s for s in split_sentences(it.text) if completed_attributes(s) is not None), it.text)
        it.metadata["realises"] = {"id": m.id, "text": m.text, "said": m.created_at.date().isoformat()}
        return [f.model_copy(update={"source_span": span, "clause": span, "extractor": "plan",
                                     "previous_value": None, "language": "zh" if has_cjk(span) else "en"})]
    return []


def _counts_of_names(slot: FactSlot, clash: list[MemoryItem], facts: list[Fact],
                     listing: Callable[[], list[MemoryItem]]) -> list[MemoryItem]:
    """A names list replaced by another ("来福和旺财" -> "旺财": 来福走丢了，现在只剩旺财了) changes the count said with the
    old list: the current ``count:<counted>`` claims of the same counted noun whose number is the old list's length
    (and not the new one's), unless the turn says a count of its own (which closes them itself)."""
    from .values import number_of

    if not slot.attribute.endswith("_names") or slot.polarity < 0 or not clash:
        return []
    counted = slot.attribute[: -len("_names")]
    key = f"count:{counted}"
    if any(f.attribute == key for f in facts):
        return []
    size = lambda v: len([n for n in _LIST_SEP.split(str(v).strip()) if n])  # noqa: E731
    old = {size(c.fact.value) for c in clash if c.fact is not None and c.fact.attribute == slot.attribute}
    new = size(slot.value)
    return [c for c in listing() if c.fact is not None and c.fact.attribute == key and c.fact.polarity > 0 and
            c.fact.entity.casefold() == slot.entity.casefold() and
            (n := number_of(str(c.fact.value))) is not None and n.isdigit() and int(n) in old and int(n) != new]


def _sensitive_change(f: Fact, clash: list[MemoryItem]) -> bool:
    """True when a change of ``clash`` (the current claims it conflicts with) by ``f`` touches personal data: the new
    fact or any claim it would close is sensitive (:func:`~anchormem.facts.model.is_sensitive`: phone, card, ID,
    address...). The one review policy of every path that detects a change (rules, the relative reader, the meaning
    fallback, an LLM): the extractor's own ``sensitive`` flag is not relied on."""
    if f.sensitive or is_sensitive(f.attribute, f.value):
        return True
    return any(c.fact is not None and is_sensitive(c.fact.attribute, c.fact.value) for c in clash)


@staged("extract")
def plan_facts(drafts: list[Draft], *, store: Any, tenant: str, user_id: str, review_gap: float = REVIEW_GAP,
               extract: Callable[..., list[Fact]] = extract_from_text) -> FactPlan:
    """Extract facts from the user turns among ``drafts`` and reconcile them with the store's current facts, turn
    after turn in the order given: each turn's readers and reconciliation see the user's memories as the earlier
    turns' planned writes leave them (:class:`~.store_reads.PlanReads`), so a batch decides as its turns added one by
    one in that order would (issue #22: a plan and its cancellation in one batch). ``extract(text, entity=...)``:
    the extractor (offline rules by default; the grounded LLM extractor when configured). Pure planning: nothing is
    written here."""
    plan = FactPlan()
    meaning = getattr(extract, "meaning", None)  # (its embedder: the batch's own memories searched by meaning too)
    reads = PlanReads(store, getattr(getattr(meaning, "embedder", None), "embed_documents", None))
    llm = getattr(extract, "llm", False)  # the LLM extractor: shown the known facts; the offline job reader stays off
    known = _known_facts(store, tenant, user_id) if llm and any(
        d.item.source == "user" for d in drafts) else None
    said = [(d, _extracted(d, extract, known)) for d in drafts]  # (no reads: the extraction of every turn at once)
    slots = sorted({key for _, fs in said for f in fs
                    for key in _related(FactSlot(entity=f.entity, attribute=f.attribute, value=f.value))})
    reads.current_facts(tenant, user_id, slots) if slots else None  # one read of the slots the batch says
    planned: set[str] = set()  # ids of the batch's own new facts: their order is the turns' order
    k = 0
    while k < len(said):  # one turn at a time: the drafts of one source message
        j = k + 1
        while j < len(said) and _turn_of(said[j][0]) is not None and _turn_of(said[j][0]) == _turn_of(said[k][0]):
            j += 1
        first = len(plan.drafts)
        _plan_turn(said[k:j], plan, reads, planned, extract, llm, tenant, user_id, review_gap)
        for i in range(first, len(plan.drafts)):
            reads.planned(plan.drafts[i].item, plan.supersedes.get(i, []))
        k = j
    return plan


def _turn_of(d: Draft) -> str | None:
    return d.item.source_message_ids[0] if d.item.source_message_ids else None


def _extracted(d: Draft, extract: Callable[..., list[Fact]], known: list[tuple[str, str, str]] | None) -> list[Fact]:
    """The grounded, typed facts the extractor reads from user turn ``d`` ([] for any other draft)."""
    if d.item.source != "user" or d.item.kind not in ("utterance", "question"):  # (a question's opening statement)
        return []
    speaker = d.item.speaker or "user"
    said = extract(d.item.text, entity=speaker) if known is None else extract(
        d.item.text, entity=speaker, known=[("user" if e in ("user", speaker) else e, a, v) for e, a, v in known])
    # one grounding gate for every extractor: a fact its own turn does not support is not stored
    return [_typed(f) for f in said if check_support(as_user(f, d.item.speaker), d.item.text).ok]


def _plan_turn(found: list[tuple[Draft, list[Fact]]], plan: FactPlan, reads: PlanReads, planned: set[str],
               extract: Any, llm: bool, tenant: str, user_id: str, review_gap: float) -> None:
    """Plan one turn's drafts (``found``: each with its extracted facts) into ``plan``, reading through ``reads``;
    ``planned``: the ids of the batch's new current facts so far (two said at one instant keep the batch's order)."""
    found = [(d, _resolved(fs, reads, tenant, user_id)) for d, fs in found]
    if not llm:  # (with an LLM, the LLM proposes job changes and the turn verifies them)
        found = [(d, with_jobs(d, fs, reads, tenant, user_id)) for d, fs in found]
        found = [(d, with_quantities(d, fs, reads, tenant, user_id)) for d, fs in found]
    found = by_meaning(found, getattr(extract, "meaning", None), reads, tenant, user_id)
    found, opened = relative_changes(found, getattr(extract, "meaning", None), reads, tenant, user_id)
    listed: list[list[MemoryItem]] = []

    def listing() -> list[MemoryItem]:  # the user's current facts, read once per turn when a check needs them
        if not listed:
            from ..filters import Cond
            from ..types import Scope

            listed.append([m for m in reads.list_memories(Scope(tenant=tenant, user_id=user_id),
                                                          Cond(field="kind", op="eq", value="fact"))
                           if m.fact is not None and m.valid_to is None])
        return listed[0]

    # a self-correction ("I live in Boston, sorry, I mean Denver", "说错了，不是阿里，是腾讯"): the value taken back is
    # replaced within the turn, or, said in an earlier turn, closed as never held (facts.corrections)
    found = [(d, corrected(fs, d.item.text, listing) if d.item.source == "user" and d.item.kind == "utterance"
              else fs) for d, fs in found]
    # one value-type check after every reader: a value not of its slot's type is no claim, one said of a person of
    # the user's is that person's (facts.value_types)
    found = [(d, typed_gate(fs, d.item.text, listing)) for d, fs in found]
    # one gate for every reader: a value said in a remark about a place in general is nobody's ("Rent in London is
    # like 2000 pounds these days"), one said by a clause opening with a person of the speaker's in either script
    # is not the speaker's own ("我 friend 那边每周要 900", "my 男朋友 moved to Canva": facts.stance.others_value)
    found = [(d, [f for f in fs if not others_value(f, d, reads, tenant, user_id)]) for d, fs in found]
    found = [(d, drop_plans(fs, d.said_at or d.item.created_at)) for d, fs in found]  # "moving to York next month"
    found = [(d, schedule(fs, d.said_at or d.item.created_at, d.item.text)) for d, fs in found]  # "my son turns 7 next month"
    found = [(d, fs + _realised(d, fs, reads, tenant, user_id)) for d, fs in found]  # "Done moving!": the plan holds
    off: dict[int, str] = {}  # id(draft) -> the plan it calls off ("the Paris move is off": facts.called_off)
    for i, (d, fs) in enumerate(found):
        fs, gone = calls_off(d.item, d.said_at or d.item.created_at, fs, reads, tenant, user_id)
        found[i] = (d, fs)
        if gone is not None:
            off[id(d)] = gone.id
    used = {f.attribute for _, fs in found for f in fs}
    opened = [od for od in opened if od.item.fact is not None and od.item.fact.attribute in used]  # its change held
    slots = sorted({key for _, fs in found for f in fs
                    for key in _related(FactSlot(entity=f.entity, attribute=f.attribute, value=f.value))})
    current: dict[str, list[MemoryItem]] = {}
    for item in reads.current_facts(tenant, user_id, slots) if slots else []:
        current.setdefault(item.fact.slot, []).append(item)  # type: ignore[union-attr]
    store = reads  # (every read below sees the batch's earlier turns)

    for od in opened:  # open claims for older words (facts.relative): written first, then closed by their change
        plan.drafts.append(od)
        current.setdefault(od.item.fact.slot, []).append(od.item)  # type: ignore[union-attr]

    back: list[MemoryItem] = []
    for d, facts in found:
        if id(d) in off:  # a scheduled change called off: the values it was to replace hold again (written last)
            back += restored(store, store.get_many(tenant, [off[id(d)]])[off[id(d)]], d.item.created_at)
        if not facts:
            if id(d) in off:
                plan.supersedes[len(plan.drafts)] = [off[id(d)]]
            plan.drafts.append(d)
            continue
        facts = _narrowed(facts)
        facts = facts + _remaining_names(d, facts, current)
        # a one-sentence turn saying more than its facts ("我住在成都武侯区，在一家银行做柜员。" with only the home
        # extracted; "I have two hamsters, 叫 Peanut 和 Mochi。") keeps its words: the facts take their own clauses,
        # the kept turn stays current for the rest. "The rest" is what is left once each fact's closing words are
        # out, the words every read path will take out when it is superseded (facts.claims.decided_words)
        slots_said = [FactSlot(entity=f.entity, attribute=f.attribute, value=f.value) for f in facts]
        residual = len(split_sentences(d.item.text)) <= 1 and remainder(
            d.item.text.strip(), [decided_words(f.clause or f.source_span, f.value, f.extractor) for f in facts],
            values=[  # "I quit Google and …"
                c.fact.value for sl in slots_said for key in _related(sl) for c in current.get(key, []) if c.fact]
        ) is not None
        held = len(plan.reviews)
        refined = False
        new_drafts: list[tuple[Draft, list[str]]] = []
        carried: list[Claim] = []
        gone_only = 0
        per_sentence: dict[str, int] = {}
        for f in facts:
            per_sentence[f.source_span] = per_sentence.get(f.source_span, 0) + 1
        for f in facts:
            fd = _fact_draft(d, f, per_sentence[f.source_span] > 1 or residual)
            if f.extractor == "plan":  # the plan's own words carry the claim it came true as ("before Vancouver?")
                fd.carried_by = [d.item.metadata["realises"]["id"]]
            if f.starts is not None and f.starts > fd.item.valid_from:  # scheduled: holds from then, closes the old
                fd.item = fd.item.model_copy(update={"valid_from": f.starts})  # value then (stores: supersede)
            new, slot = fd.item, fd.item.fact
            assert slot is not None
            cur = [c for key in _related(slot) for c in current.get(key, [])]
            same = next((c for c in cur if _same(c.fact, slot)), None)  # type: ignore[arg-type]
            if same is not None:
                carried.extend(own_claims(same))  # the turn restates it: the turn's utterance carries it too
                refined = refined or _refines(slot.attribute, same.fact.value, slot.value) or \
                    f.extractor == "plan" or _past_besides(f, slot) or \
                    adds_content(d.item.text, same.text)  # type: ignore[union-attr]  (a scheduled plan said done:
                # the turn stays; so does one telling a past state besides the value it restates, or one that says
                # more than the memory it restates: "I live in Shanghai, Jing'an district." after "I live in
                # Shanghai." keeps its words beside the NOOP, nothing said is lost)
                plan.noops.append(same)
                turns = [t for t in d.item.source_message_ids if t not in same.source_message_ids]
                same.source_message_ids += turns  # (a memory drafted by this add is written citing them)
                plan.restated.setdefault(same.id, []).extend(turns)
                continue
            clash = [c for c in cur if conflicts(c.fact, slot)]  # type: ignore[arg-type]
            if f.corrects:  # a self-correction: the value taken back never held; the one said instead holds from
                clash = [c for c in cur if c.id == f.corrects]  # when it was said (its memory closes at its start)
                if clash:
                    fd.item = new = new.model_copy(update={"valid_from": min(new.valid_from, clash[0].valid_from),
                                                           "metadata": {**new.metadata, "corrects": f.corrects}})
            clash += [c for c in cur if f.ends and c not in clash and c.fact.polarity > 0 and  # type: ignore[union-attr]
                      value_key(c.fact.attribute, c.fact.value) == f.ends]  # type: ignore[union-attr]
            clash += _companions(store, tenant, user_id, slot, clash, facts)
            clash += [c for c in _same_person(f, slot, listing) if c not in clash and
                      c.fact is not None and not same_value(c.fact.attribute, c.fact.value, slot.value)]
            clash += [c for c in _members_ended(slot, listing) if c not in clash]
            clash += [c for c in _moved_addresses(f.clause or f.source_span, slot, listing) if c not in clash]
            clash += [c for c in _counts_of_names(slot, clash, facts, listing) if c not in clash]
            if slot.attribute == "gone":  # the one gone: claims of theirs under their name, then the count they made
                clash += [c for c in listing() if c not in clash and c.fact is not None and conflicts(c.fact, slot)]
                clash += [c for c in departed_counts(clash, facts, listing()) if c not in clash]
            if joins_set(f, facts, listing):  # one more member of a counted set ("adopted another cat, named her
                key = member_key(slot.attribute)  # Luna"; "…called Biscuit, so now I have two dogs"): its name joins
                clash = [c for c in clash if c.fact is None or member_key(c.fact.attribute) != key]  # the names known,
                if slot.extractor != JOINS:  # and is marked so, for the write's own check too (conflicts)
                    slot = slot.model_copy(update={"extractor": JOINS})
                    fd.item = new = new.model_copy(update={"fact": slot})
            if slot.attribute == "parted":  # its kind's slots, a prefix ("possession:*") among them: every current
                have = {c.id for c in clash}
                clash += [c for c in listing() if c.id not in have and c.fact is not None and conflicts(c.fact, slot)]
            if slot.attribute == "parted" and len({c.id for c in clash}) > 1:
                clash = []  # "We broke up" with two partner names held: which one is not said
            if slot.attribute in ("gone", "parted") and not clash:
                gone_only += 1  # "Max died" only closes a known Max; alone it is no fact (the turn stays an utterance)
                continue
            if clash and _past_value(f, slot):  # "Before Shanghai I lived in Nanjing": a value that already ended
                first = min(clash, key=lambda c: c.valid_from)  # held until the oldest value it clashes with
                end = min(first.valid_from, new.valid_from)
                fd.item = new = new.model_copy(update={"valid_from": min(new.valid_from, end), "valid_to": end,
                                                       "superseded_by": first.id})
                new_drafts.append((fd, []))
                continue
            sensitive = clash and _sensitive_change(f, clash)
            if clash and (sensitive or any(abs(c.confidence - new.confidence) > review_gap for c in clash)):
                why = "sensitive attribute" if sensitive else \
                    f"confidence {new.confidence:.2f} vs {max(c.confidence for c in clash):.2f}"
                plan.reviews.append(ReviewItem(
                    id=uuid.uuid4().hex, tenant=tenant, user_id=user_id, reason=f"conflicts with a current "
                    f"{slot.attribute} fact ({why})", proposed=new, targets=[c.id for c in clash],
                    created_at=utcnow()))
                continue
            later = [] if f.corrects else [c for c in clash if min(c.valid_from, c.created_at) > new.valid_from or (
                c.id not in planned and _goes_after(c, new))]
            if later:  # an older statement arriving late: store it already closed by the next one said after it
                first = _next_said(store, tenant, user_id, min(later, key=lambda c: c.valid_from), new.valid_from)
                fd.item = new = new.model_copy(update={"valid_to": first.valid_from, "superseded_by": first.id})
                new_drafts.append((fd, []))
            else:
                new_drafts.append((fd, [c.id for c in clash]))
                for key in _related(slot):
                    current[key] = [c for c in current.get(key, []) if c not in clash]
                current[slot.slot].append(new)
                planned.add(new.id)
        # else the fact memory is the turn; a turn whose only "fact" closed nothing is kept as it is; a clause that
        # states two facts ("I work at a hospital as a nurse.") is two fact memories of the turn's own text
        whole = d.item.text.strip()
        keep_turn = len(split_sentences(d.item.text)) > 1 or gone_only == len(facts) or \
            (len(facts) > 1 and any(_fact_span(d, f, per_sentence[f.source_span] > 1) != whole for f in facts)) or \
            (residual and len(plan.reviews) == held) or \
            (refined and not new_drafts and len(plan.reviews) == held)  # (a change held for review: not half-applied)
        if id(d) in off:  # the plan it calls off is closed by the turn (or by its first fact: the turn is that)
            if keep_turn:
                plan.supersedes[len(plan.drafts)] = [off[id(d)]]
            elif new_drafts:
                new_drafts[0] = (new_drafts[0][0], new_drafts[0][1] + [off[id(d)]])
        if keep_turn:
            carry(d.item, [c for fd, _ in new_drafts for c in own_claims(fd.item)] + carried)
            plan.drafts.append(d)
        inner = [c for fd, _ in new_drafts for c in own_claims(fd.item)]
        for fd, _ in new_drafts:  # a fact memory whose words hold another new fact's words carries that claim too
            others = [c for c in inner if c.fact_id != fd.item.id and c.span and c.span != fd.item.text and
                      c.span in fd.item.text]
            if others:
                carry(fd.item, own_claims(fd.item) + others)
        for fd, old_ids in new_drafts:
            if keep_turn:  # a sentence of a kept turn shares its vector: found by keyword, slot and its turn
                fd.reuse = d
            if old_ids:
                plan.supersedes[len(plan.drafts)] = old_ids
            plan.drafts.append(fd)
    plan.drafts += [Draft(b, memory_hash(b), index_text(b.text, time_terms(b.created_at))) for b in back]
