"""Deferred enrichment: ``Memory.add_many(..., enrich="later")`` stores turns searchable at once and leaves their
fact extraction and reconciliation (the costly part of a write: ~77% of a bulk load's CPU, ``bench/load_1m.py
--profile``) for later.

What a deferred write stores: every memory ``add`` drafts from the turns (utterances, commitments split out,
assistant turns), with its text, vector, keyword-index entry, time said, scope, metadata and context labels, and
for each user utterance or question (the drafts ``plan_facts`` reads) a pending marker in the same transaction
(:mod:`anchormem.stores.pending_sql`). Nothing about facts is written: no fact memory, claim, supersede or review.

Enrichment (:func:`enrich_user`) takes a user's pending rows in the order they were said (created_at, then write
order), at most ``batch`` at a time, and runs on them the plan an eager ``add`` runs
(:func:`anchormem.facts.reconcile.plan_facts` with the store's extractor) against the store as it is. Then, in one
transaction with the plan's writes: a pending row the plan keeps as it is loses its marker; one the plan replaces
(by its fact memories, or by the current memory a restatement matched) is deleted, with its ADD history (it was
never an event an eager add would have recorded); the plan's new memories are written with the vector of the turn
they come from, labelled as ``add`` labels them; reviews are queued. A write that finds the user's generation moved
(another writer) plans that batch again.

Currency: the read paths whose answer depends on claims (``ask``, ``context``, ``get_all``, ``summarize``, a
search with ``as_of``) first enrich the user's pending rows (:meth:`Memory._settle`), so they never answer from
a state in which a superseded value still looks current. A plain ``search`` does not wait: pending rows are found
as the utterances they are.

What can differ from an eager add of the same turns: the reconciler reads the store as it is when the batch is
enriched, which also holds the user's later turns still pending (as utterances, never as claims); fact memories
are written after the rows they were drawn from (row order, not content); their context labels see the batch's
turns as stored. ``bench/write_identity.py --by-content`` compares the two stores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import StaleWriteError
from .ingest.pipeline import Draft
from .stores.protocol import NewMemory
from .types import Scope

__all__ = ["enrich_user", "DEFER_KINDS", "ENRICH_MODES"]

DEFER_KINDS = ("utterance", "question")  # the user drafts plan_facts extracts from (facts.reconcile.plan_facts)
ENRICH_MODES = ("now", "later")
_REPLANS = 3


def pending_markers(drafts: list[Draft]) -> dict[str, str]:
    """{memory id: time said (ISO 8601, the speaker's offset)} of the drafts whose enrichment a deferred write
    leaves pending."""
    return {d.item.id: (d.said_at or d.item.created_at).isoformat() for d in drafts
            if d.item.source == "user" and d.item.kind in DEFER_KINDS}


def _drafts(rows: list[tuple[Any, str, str, Any, np.ndarray]]) -> tuple[list[Draft], dict[str, np.ndarray]]:
    """Pending rows as the drafts ``add`` planned from, and each source turn's vector by message id."""
    drafts, by_turn = [], {}
    for item, content_hash, body, said, vec in rows:
        drafts.append(Draft(item=item, content_hash=content_hash, index_text=body, said_at=said))
        for mid in item.source_message_ids[:1]:
            by_turn.setdefault(mid, vec)
    return drafts, by_turn


def _enrich_batch(mem: Any, tenant: str, user_id: str, batch: int) -> dict[str, int]:
    """Plan and write one batch of the user's oldest pending rows; counts by event, ``enriched``: rows settled."""
    from .context.anchor import label_drafts
    from .facts.reconcile import conflicts, plan_facts
    from .lifecycle import assign_expiry
    from .review_dedupe import queue_reviews
    from .timeutil import utcnow

    store = mem.store
    for attempt in range(_REPLANS + 1):
        check = attempt < _REPLANS
        gen = store.scope_generation(tenant, user_id) if check else 0  # before any read
        rows = store.pending_rows(tenant, user_id, batch)
        if not rows:
            return {"enriched": 0}
        first = rows[0][0]  # one scope per batch: the rows of the first one's agent and session
        rows = [r for r in rows if (r[0].agent_id, r[0].session_id) == (first.agent_id, first.session_id)]
        scope = Scope(tenant=tenant, user_id=user_id, agent_id=first.agent_id, session_id=first.session_id)
        drafts, by_turn = _drafts(rows)
        before = {d.item.id: (d.item.valid_to, len(d.item.claims)) for d in drafts}
        plan = plan_facts(drafts, store=store, tenant=tenant, user_id=user_id, extract=mem._fact_extractor())
        own = {id(d) for d in drafts}
        kept_ids = {d.item.id for d in plan.drafts if id(d) in own}
        new = [(i, d) for i, d in enumerate(plan.drafts) if id(d) not in own]
        retired = [d.item.id for d in drafts if d.item.id not in kept_ids]
        carriers = [d.item for d in drafts if d.item.id in kept_ids and  # a kept turn made to carry its facts' claims
                    (d.item.valid_to, len(d.item.claims)) != before[d.item.id]]
        news: list[NewMemory] = []
        if new:
            ds = [d for _, d in new]
            missing = [d for d in ds if not any(m in by_turn for m in d.item.source_message_ids[:1])]
            extra = iter(mem._embed_drafts(missing)) if missing else iter(())
            vecs = np.vstack([by_turn[d.item.source_message_ids[0]] if d.item.source_message_ids and
                              d.item.source_message_ids[0] in by_turn else next(extra) for d in ds])
            ctx_vectors, _ = label_drafts(mem.anchor, store, scope, ds, vecs)
            assign_expiry([d.item for d in ds] + [r.proposed for r in plan.reviews], mem.expiry, utcnow())
            news = [NewMemory(d.item, v, d.content_hash, d.index_text, plan.supersedes.get(i, []), c, conflicts,
                              d.carried_by) for (i, d), v, c in zip(new, vecs, ctx_vectors)]
        try:
            results = store.write([], news, actor="enrich", restated=plan.restated,
                                  expect_generation={(tenant, user_id): gen} if check else None,
                                  settle=(tenant, user_id, sorted(kept_ids), retired, carriers))
        except StaleWriteError:  # another writer of this user came first: plan the batch again
            continue
        queue_reviews(store, plan.reviews)
        counts = {"enriched": len(rows), "retired": len(retired), "REVIEW": len(plan.reviews),
                  "NOOP": len(plan.noops)}
        for r in results:
            counts[r.event] = counts.get(r.event, 0) + 1
        return counts
    raise StaleWriteError("enrich: the user's store kept moving")  # (unreachable: the last attempt does not check)


def enrich_user(mem: Any, tenant: str, user_id: str, *, limit: int | None = None, batch: int = 500
                ) -> dict[str, int]:
    """Enrich the user's pending rows, oldest said first, ``batch`` per transaction, at most ``limit`` rows
    (None: all). Returns counts: ``enriched`` (rows settled), ``retired`` (provisional rows replaced), one key per
    write event (``ADD`` fact memories, ``SUPERSEDE``...)."""
    total: dict[str, int] = {"enriched": 0}
    while limit is None or total["enriched"] < limit:
        step = batch if limit is None else min(batch, limit - total["enriched"])
        got = _enrich_batch(mem, tenant, user_id, step)
        if not got["enriched"]:
            break
        for k, v in got.items():
            total[k] = total.get(k, 0) + v
    return total
