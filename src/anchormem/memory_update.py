"""``Memory.update`` of a user's turn (an utterance): its claims follow its new text, planned as ``add`` plans them.

A kept utterance carries the claims of the fact memories drawn from it (:mod:`anchormem.facts.claims`). When its
text is replaced, the new text is planned by :func:`anchormem.facts.reconcile.plan_facts` exactly as ``add`` plans a
turn (the same extractors, grounding checks and supersede rules), against the user's *other* claims: the fact
memories drawn from this turn alone are left out of the plan's reads, and the facts they had superseded read as
current again (:class:`_Without`). Then, per claim:

- a fact of the new text that one of the turn's own facts already states (same slot, value and polarity) keeps that
  fact memory as it is (its id, provenance, validity);
- a fact of the new text another turn's current fact already states is that fact's: the utterance carries its claim
  (``carry_claims``), as a turn restating it on ``add`` does;
- a fact of the new text no own fact states is written as ``add`` writes it (provenance of the turn, ``valid_from``
  the turn's time, superseding what it conflicts with among the user's current facts, or stored closed when a later
  statement replaced it; a sensitive change is queued for review), and the utterance carries its claim;
- an own fact the new text no longer states is retracted: closed at the time of the edit (as the old words of an
  edited fact memory close on its turn, so ``as_of`` reads before the edit still see what was stored then), its
  successor the new fact of its slot when there is one (else none: the turn's new words did not replace it), its
  claim closed on every memory carrying it and dropped from the turn (history ``SUPERSEDE`` by ``update``, saying
  why), and what it had superseded holds again unless a later statement closed it (the store's ``close_fact``).

The utterance itself stays current (it is what the user says now). Returns nothing: the item ``update`` returns is
read again from the store.
"""

from __future__ import annotations

from typing import Any

from .facts.keys import same_value
from .facts.reconcile import conflicts, plan_facts
from .ingest.classify import memory_hash
from .ingest.pipeline import Draft
from .lifecycle import assign_expiry
from .review_dedupe import queue_reviews
from .stores.protocol import NewMemory
from .timeutil import utcnow
from .types import MemoryItem

__all__ = ["replan_turn"]


class _Without:
    """A view of ``store`` whose fact reads (``current_facts``, ``list_memories``) leave out the memories ``ids`` (the
    turn's own facts) and show ``back`` (the facts they superseded, which hold again when they go) as current."""

    def __init__(self, store: Any, ids: set[str], back: list[MemoryItem]) -> None:
        self._store, self._ids, self._back = store, ids, back

    def current_facts(self, tenant: str, user_id: str, slots: list[str]) -> list[MemoryItem]:
        now = [m for m in self._store.current_facts(tenant, user_id, slots) if m.id not in self._ids]
        return now + [m for m in self._back if m.fact is not None and m.fact.slot in slots]

    def list_memories(self, scope: Any, *args: Any, **kwargs: Any) -> list[MemoryItem]:
        return [m for m in self._store.list_memories(scope, *args, **kwargs) if m.id not in self._ids]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def _superseded_by(store: Any, old: MemoryItem, own: list[MemoryItem]) -> list[MemoryItem]:
    """The fact memories the turn's own facts ``own`` closed, each as it would be reopened (current)."""
    ids = {m.id for m in own}
    got = store.predecessors(old.tenant, old.user_id, sorted(ids)) if ids else {}
    found = store.get_many(old.tenant, sorted({x for xs in got.values() for x in xs}))
    return [m.model_copy(update={"valid_to": None, "superseded_by": None}) for _, m in sorted(found.items())
            if m.kind == "fact" and m.fact is not None and m.superseded_by in ids]


def _states(fact: Any, other: Any) -> bool:
    """Two fact slots say the same thing (slot, polarity, value as :func:`~anchormem.facts.keys.same_value` reads
    it)."""
    return fact is not None and other is not None and fact.slot == other.slot and \
        fact.polarity == other.polarity and same_value(fact.attribute, fact.value, other.value)


def own_facts(store: Any, old: MemoryItem) -> list[MemoryItem]:
    """The fact memories drawn from ``old``'s turn alone (their source turns all among ``old``'s), oldest said
    first; a fact another turn restated is not the turn's own."""
    ids = sorted({c.fact_id for c in old.claims if c.fact_id != old.id})
    got = store.get_many(old.tenant, ids) if ids else {}
    turns = set(old.source_message_ids)
    return sorted((m for m in got.values() if m.kind == "fact" and m.fact is not None and m.source_message_ids
                   and set(m.source_message_ids) <= turns), key=lambda m: (m.valid_from, m.id))


def replan_turn(mem: Any, old: MemoryItem, item: MemoryItem, index_text: str, labels: list[Any]) -> None:
    """Re-plan the claims of utterance ``old`` whose text is now ``item.text`` (already stored; ``index_text``: its
    keyword-index text; ``labels``: its labels, given to the new fact memories). ``mem``: the Memory. Module doc."""
    store = mem.store
    own = own_facts(store, old)
    draft_item = item.model_copy(update={"claims": [], "fact": None, "labels": list(labels), "valid_to": None,
                                         "superseded_by": None})  # (its facts are reconciled as said, not as it is)
    draft = Draft(draft_item, memory_hash(draft_item), index_text, said_at=old.created_at)
    view = _Without(store, {m.id for m in own}, _superseded_by(store, old, own))  # the store as if they had gone
    plan = plan_facts([draft], store=view, tenant=old.tenant, user_id=old.user_id, extract=mem._fact_extractor())
    kept: set[str] = set()
    renamed: dict[str, str] = {}
    news: list[tuple[Draft, list[str]]] = []
    for i, d in enumerate(plan.drafts):
        if d is draft or d.item.id == old.id:
            continue
        same = next((m for m in own if _states(m.fact, d.item.fact)), None)
        if same is not None:  # the new text says it again: the turn's own fact stays as it is
            kept.add(same.id)
            renamed[d.item.id] = same.id
            continue
        news.append((d, plan.supersedes.get(i, [])))
    dropped = [m for m in own if m.id not in kept]
    now = utcnow()
    when_of = {m.id: max(now, m.valid_from) for m in dropped}  # (as an edited fact's old words close: the edit's time)
    for m in dropped:  # retracted first: what it superseded holds again, and the new facts reconcile with that
        by = next((d.item.id for d, _ in news if d.item.fact and m.fact and d.item.fact.slot == m.fact.slot), None)
        store.close_fact(old.tenant, m.id, when=when_of[m.id], by=by, turn=old.id, actor="update",
                         reason=f"retracted: its turn {old.id} was updated and no longer says it")
    if news:
        drafts = [d for d, _ in news]
        for d in drafts:
            d.item.labels = list(labels)
            d.item.claims = [c.model_copy(update={"fact_id": renamed.get(c.fact_id, c.fact_id)})
                             for c in d.item.claims]
            d.reuse = None
        vectors = mem._embed_drafts(drafts)
        assign_expiry([d.item for d in drafts], mem.expiry, utcnow())
        carriers = [old.id] if store.get(old.tenant, old.id).valid_to is None else []
        store.write([], [NewMemory(d.item, v, d.content_hash, d.index_text, sup, None, conflicts,
                                   sorted(set(d.carried_by + carriers)))
                     for (d, sup), v in zip(news, vectors)], actor="update")
    restated = sorted({m.id for m in plan.noops if m.kind == "fact"})
    if restated:  # the new text says again what another turn said: it carries that claim, as add's turn would
        store.carry_claims(old.tenant, old.id, restated)
    if plan.reviews:
        queue_reviews(store, plan.reviews)
