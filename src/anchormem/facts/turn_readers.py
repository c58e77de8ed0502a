"""The facts of one user turn from every typed reader, each through the grounding check.

The rules (:func:`~anchormem.facts.rules.extract_from_text`) give a turn's first facts; :mod:`.reconcile` then joins,
in this order, the job reader's (:func:`with_jobs`), the quantity and count readers' (:func:`with_quantities`), the
change-by-meaning fallback's (:func:`by_meaning`) and the changes read relative to the user's own memories
(:func:`relative_changes`). Every fact read here passes :func:`~anchormem.facts.grounding.check_support` against
the turn's words (the speaker's own facts are about "user": :func:`as_user`); :func:`others_value` is the gate that
gives a value said of someone else, or of a place in general, to nobody.
"""

from __future__ import annotations

from typing import Any

from ..ingest.classify import memory_hash
from ..ingest.pipeline import Draft, time_terms
from ..text.tokenize import index_text
from ..types import FactSlot, MemoryItem
from .grounding import check_support
from .keys import is_person
from .model import Fact
from .stance import others_value as _others_said

__all__ = ["as_user", "with_jobs", "others_value", "grounded_jobs", "grounded", "with_quantities", "by_meaning",
           "relative_changes"]


def as_user(f: Fact, speaker: str | None) -> Fact:
    """The fact as the grounding check reads it: the speaker's own facts are about "user" (their name is the
    author of the words, not part of them)."""
    return f.model_copy(update={"entity": "user"}) if speaker and f.entity == speaker else f


def with_jobs(d: Draft, facts: list[Fact], store: Any, tenant: str, user_id: str) -> list[Fact]:
    """``facts`` of a user turn with the job reader's (:func:`~anchormem.facts.jobs.job_facts`: typed job titles and
    employers, their starts, promotions and endings) joined, each through the grounding check; an ending needs no
    negation word there (the reader's own terminative words said it: "handed in my badge", 被优化了)."""
    if d.item.source != "user" or d.item.kind not in ("utterance", "question"):
        return facts
    from .jobs import job_facts, merge_job_facts

    ent = d.item.speaker or "user"
    jobs = job_facts(d.item.text, entity=ent, current=lambda a: store.current_facts(
        tenant, user_id, [FactSlot(entity=ent, attribute=a, value="").slot]))
    return merge_job_facts(facts, grounded_jobs(jobs, d.item.text, d.item.speaker))


def others_value(f: Fact, d: Draft, reads: Any, tenant: str, user_id: str) -> bool:
    """``f`` is said in a remark about a place in general where the speaker does not live (their current home_city
    claims: "深圳房租涨到五千了" from someone living in 深圳 is their rent), or is a value of the speaker's own slot said
    by a clause whose subject is a person of theirs (:func:`~anchormem.facts.stance.others_value`)."""
    why = _others_said(f.source_span or d.item.text, f.value)
    if why.startswith("place:"):
        from .places import same_place

        homes = [m.fact.value for m in reads.current_facts(tenant, user_id, [f"{d.item.speaker or 'user'}|home_city"])
                 if m.fact is not None and m.fact.polarity > 0]
        return not any(same_place(why[6:], h) for h in homes)
    return why == "person" and f.entity in ("user", d.item.speaker or "user") and \
        not is_person(f.attribute.split(":", 1)[0].split("_", 1)[0])


def grounded_jobs(jobs: list[Fact], text: str, speaker: str | None = None) -> list[Fact]:
    """The job reader's facts of ``text`` that pass the grounding check; an ending needs no negation word there (the
    reader's own terminative words said it: "handed in my badge", 被优化了)."""
    kept = []
    for f in jobs:
        why = check_support(as_user(f, speaker), text).reasons
        if all(f.polarity < 0 and r.startswith("negative fact but no negation") for r in why):
            kept.append(f)
    return kept


def grounded(facts: list[Fact], text: str, speaker: str | None = None) -> list[Fact]:
    """``facts`` read from ``text`` that pass the grounding check (:func:`~anchormem.facts.grounding.check_support`)."""
    return [f for f in facts if check_support(as_user(f, speaker), text).ok]


def with_quantities(d: Draft, facts: list[Fact], store: Any, tenant: str, user_id: str) -> list[Fact]:
    """``facts`` of a user turn with the quantity reader's (:func:`~anchormem.facts.quantities.quantity_facts`:
    amounts typed by the attribute they measure, ages, counts) joined, each through the grounding check; the user's
    current facts are listed only when a value names no attribute itself."""
    if d.item.source != "user" or d.item.kind not in ("utterance", "question"):
        return facts
    from .quantities import merge_quantity_facts, quantity_facts

    ent = d.item.speaker or "user"

    def claims() -> list[MemoryItem]:
        from ..filters import Cond
        from ..types import Scope

        items = store.list_memories(Scope(tenant=tenant, user_id=user_id), Cond(field="kind", op="eq", value="fact"))
        return [m for m in items if m.fact is not None and m.valid_to is None and m.fact.entity == ent]

    said = quantity_facts(d.item.text, entity=ent, claims=claims)
    out = merge_quantity_facts(facts, grounded(said, d.item.text, d.item.speaker))
    from .counts import count_changes  # "adopted a third", 又养了一只狗: old count +- n (the words said are checked)

    stated = frozenset(x for f in out if f.attribute.startswith("count:") for x in (f.attribute, f.source_span))
    for f, words in count_changes(d.item.text, entity=ent, claims=claims, said=stated):
        if check_support(as_user(f.model_copy(update={"value": words}), d.item.speaker), d.item.text).ok:
            out.append(f)
    return out


def by_meaning(found: list[tuple[Draft, list[Fact]]], meaning: Any, store: Any, tenant: str, user_id: str
                ) -> list[tuple[Draft, list[Fact]]]:
    """``found`` with the facts the change-by-meaning fallback reads from the clauses the rules left empty (and a
    Chinese employer that names a place left to it)
    (:class:`~anchormem.facts.meaning.MeaningFallback`; only with the offline extractor and a semantic embedder)."""
    turns = [k for k, (d, _) in enumerate(found) if d.item.source == "user" and d.item.kind == "utterance"]
    if meaning is None or not turns:
        return found
    from ..filters import Cond
    from ..types import Scope

    extra = meaning.facts([(found[k][0].item.text, found[k][1], found[k][0].item.speaker or "user") for k in turns],
                          current=lambda keys: store.current_facts(tenant, user_id, keys),
                          listing=lambda: store.list_memories(Scope(tenant=tenant, user_id=user_id),
                                                              Cond(field="kind", op="eq", value="fact")))
    out = list(found)
    for k, fs in zip(turns, extra):
        d = out[k][0]  # the one grounding gate holds for these facts too
        out[k] = (d, [f for f in fs if f.extractor != "meaning" or check_support(as_user(f, d.item.speaker),
                                                                                 d.item.text).ok])
    return out


def relative_changes(found: list[tuple[Draft, list[Fact]]], meaning: Any, store: Any, tenant: str, user_id: str
              ) -> tuple[list[tuple[Draft, list[Fact]]], list[Draft]]:
    """``found`` with the changes read relative to the user's own memories (:mod:`~anchormem.facts.relative`; with
    the change-by-meaning fallback only), each through the grounding check, and the drafts of the open claims they
    close (fact memories of older words, carried by the memory that said them)."""
    if meaning is None or not any(d.item.source == "user" and d.item.kind == "utterance" for d, _ in found):
        return found, []
    from .relative import RelativeChanges

    facts, opened = RelativeChanges(meaning.embedder).facts(found, store=store, tenant=tenant, user_id=user_id)
    out = []
    for (d, _), fs in zip(found, facts):
        out.append((d, [f for f in fs if f.extractor != "relative" or
                        check_support(as_user(f, d.item.speaker), d.item.text).ok]))
    used = {f.attribute for _, fs in out for f in fs}
    drafts = []
    for oc in opened:
        if oc.item.fact is None or oc.item.fact.attribute not in used:
            continue  # its change did not hold (grounding): nothing to open
        extra = " ".join(x for x in (oc.item.speaker, time_terms(oc.item.created_at)) if x)
        drafts.append(Draft(oc.item, memory_hash(oc.item), index_text(oc.item.text, extra), carried_by=[oc.carrier]))
    return out, drafts
