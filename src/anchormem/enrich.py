"""Deferred enrichment: ``Memory.add_many(..., enrich="later")`` stores turns searchable at once and leaves their
fact extraction and reconciliation (the costly part of a write: 80% of a 20k-turn bulk load's CPU, ``bench/load_1m.py
--profile``) for later.

What a deferred write stores: every memory ``add`` drafts from the turns (utterances, commitments split out,
assistant turns), with its text, vector, keyword-index entry, time said, scope, metadata and context labels, each
with a pending marker in the same transaction (:mod:`anchormem.stores.pending_sql`). Nothing about facts is
written: no fact memory, claim, supersede or review; no session summary (it reads the facts).

Enrichment (:func:`enrich_user`) takes the user's write said first (the write of its oldest pending row: each
deferred write's rows carry one batch id) and runs on its rows the plan an eager ``add`` of that write runs
(:func:`anchormem.facts.reconcile.plan_facts` with the store's extractor) against the store as it is. Then, in one
transaction with the plan's writes: a pending row the plan keeps loses its marker and takes the labels and context
vector ``add`` would have given it beside its fact memories; one the plan replaces (by its fact memories, or by the
current memory a restatement matched) is deleted with its ADD history (never an event an eager add would have
recorded); a kept turn made to carry its facts' claims gets them; the plan's new memories are written with the
vector ``add`` gives them (the turn's precomputed one, else their own text embedded); reviews are queued; a session
summary due after the write is written then. A write that finds the user's generation moved (another writer)
plans that write again; so does one that finds a row of its batch no longer pending (another worker enriched it,
or a delete took it: checked in the write's transaction on every attempt), so each row is enriched once.
Concurrent workers: the store's ``enrich_lock`` holds a user's queue for one batch at a time (PostgreSQL: an
advisory lock per user, :mod:`anchormem.stores.pending_pg`; SQLite: its writers serialise on the file).

Currency: the read paths whose answer depends on claims (``ask``, ``context``, ``get_all``, ``summarize``, a
search with ``as_of``) first enrich the user's pending rows (:meth:`Memory._settle`), so they never answer from
a state in which a superseded value still looks current. A plain ``search`` does not wait: pending rows are found
as the utterances they are.

What can differ from an eager add of the same turns: the reconciler reads the store as it is when a write is
enriched, which also holds the user's later writes still pending (as utterances, never as claims; labelling reads
only settled rows); fact memories are written after the rows of their write (row order, not content); a session
summary due mid-session is drawn from the session's turns stored by then, later ones included. On LoCoMo
conversations 0-1 the two stores are identical row for row (``bench/enrich_identity.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import StaleWriteError
from .ingest.pipeline import Draft
from .stores.protocol import NewMemory
from .types import Scope

__all__ = ["enrich_user", "ENRICH_MODES", "pending_markers"]

ENRICH_MODES = ("now", "later")
_REPLANS = 3


def pending_markers(drafts: list[Draft], given: bool, summary: bool) -> dict[str, str]:
    """{memory id: time said (ISO 8601, the speaker's offset)} of a deferred write's drafts (every one: the
    enrichment plans and labels the rows of one write together, as its ``add`` would have), and under ``""`` the
    write's batch id: "v" first when its vectors were given (its new memories take their turn's vector), then "s"
    when the session summary ``add`` writes every ``summary_every`` turns is due after it."""
    import uuid

    return {"": ("v" if given else "e") + ("s" if summary else "-") + uuid.uuid4().hex,
            **{d.item.id: (d.said_at or d.item.created_at).isoformat() for d in drafts}}


def _drafts(rows: list[tuple[Any, str, str, Any, np.ndarray]]) -> tuple[list[Draft], dict[str, np.ndarray]]:
    """Pending rows as the drafts ``add`` planned from, and each source turn's vector by message id."""
    drafts, by_turn = [], {}
    for item, content_hash, body, said, vec in rows:
        drafts.append(Draft(item=item, content_hash=content_hash, index_text=body, said_at=said))
        for mid in item.source_message_ids[:1]:
            by_turn.setdefault(mid, vec)
    return drafts, by_turn


def _vectors(mem: Any, drafts: list[Draft], own: set[int], stored: dict[str, np.ndarray],
             by_turn: dict[str, np.ndarray], given: bool) -> np.ndarray:
    """(len(drafts), dim): a pending row's own stored vector; a new memory's as ``add`` gives it: with the write's
    precomputed vectors, its turn's (:func:`anchormem.ingest.many.message_vectors`); else its own text embedded,
    or the vector of the draft it ``reuse``s (a sentence of a kept turn)."""
    if not drafts:
        return np.zeros((0, mem.embedder.dim), np.float32)
    if given:
        turn = [d for d in drafts if id(d) not in own and not (d.item.source_message_ids and
                                                               d.item.source_message_ids[0] in by_turn)]
    else:
        turn = [d for d in drafts if id(d) not in own and d.reuse is None]
    fresh = dict(zip(map(id, turn), mem._embed_drafts(turn))) if turn else {}

    def one(d: Draft) -> np.ndarray:
        if id(d) in own:
            return stored[d.item.id]
        if id(d) in fresh:
            return fresh[id(d)]
        if given:
            return by_turn[d.item.source_message_ids[0]]
        return one(d.reuse)  # type: ignore[arg-type]

    return np.vstack([one(d) for d in drafts]).astype(np.float32)


class _Settled:
    """The store as labelling reads it before an enrichment batch: its recent turns without the pending ones."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def recent_memories(self, scope: Scope, limit: int) -> list[Any]:
        return self._store.settled_recent(scope, limit)


class _Planning(_Settled):
    """The store as the fact plan reads it for an enrichment batch: the user's memories as an eager ``add`` would
    have found them, without the rows still pending (this batch's own turns and those said after them: a turn is
    never read against itself or a later one by the relative reader's dense search or a listing)."""

    def __init__(self, store: Any, pending: frozenset[str]) -> None:
        super().__init__(store)
        self._pending = pending

    def dense_search(self, scope: Any, query: Any, k: int, where: Any, as_of: Any = None) -> list[tuple[str, float]]:
        settled = getattr(self._store, "settled_dense_search", None)  # the store leaves them out (PostgreSQL)
        if settled is not None:
            return settled(scope, query, k, where, as_of)
        got = self._store.dense_search(scope, query, k + len(self._pending), where, as_of)
        return [(i, s) for i, s in got if i not in self._pending][:k]

    def list_memories(self, *args: Any, **kwargs: Any) -> list[Any]:
        return [m for m in self._store.list_memories(*args, **kwargs) if m.id not in self._pending]


def _enrich_batch(mem: Any, tenant: str, user_id: str, batch: int, wait: bool = True) -> dict[str, int]:
    """Plan and write one batch of the user's oldest pending rows, holding the store's lock on the user's queue
    (``enrich_lock``: one worker at a time per user, each row enriched once); counts by event, ``enriched``: rows
    settled, ``busy``: 1 when ``wait`` is False and another worker holds the user (nothing done)."""
    with mem.store.enrich_lock(tenant, user_id, wait=wait) as got:
        return _plan_and_settle(mem, tenant, user_id, batch) if got else {"enriched": 0, "busy": 1}


def _plan_and_settle(mem: Any, tenant: str, user_id: str, batch: int) -> dict[str, int]:
    """:func:`_enrich_batch` under the user's lock."""
    from .context.anchor import label_drafts
    from .facts.reconcile import conflicts, plan_facts
    from .lifecycle import assign_expiry
    from .review_dedupe import queue_reviews
    from .timeutil import utcnow

    store = mem.store
    attempt = 0
    while True:  # (ends: a replan follows a commit by another writer; an empty queue returns)
        check = attempt < _REPLANS
        gen = store.scope_generation(tenant, user_id) if check else 0  # before any read
        rows = store.pending_rows(tenant, user_id, batch)
        if not rows:
            return {"enriched": 0}
        given = rows[0][5][0] == "v"  # the write had precomputed vectors (add_many(vectors=...))
        summary = rows[0][5][1] == "s"  # add writes the session summary after it
        rows = [r[:5] for r in rows]
        first = rows[0][0]  # (one write: one scope)
        scope = Scope(tenant=tenant, user_id=user_id, agent_id=first.agent_id, session_id=first.session_id)
        drafts, by_turn = _drafts(rows)
        before = {d.item.id: (d.item.valid_to, len(d.item.claims)) for d in drafts}
        plan = plan_facts(drafts, store=_Planning(store, store.pending_ids(tenant, user_id)), tenant=tenant,
                          user_id=user_id, extract=mem._fact_extractor())
        own = {id(d) for d in drafts}
        kept_ids = {d.item.id for d in plan.drafts if id(d) in own}
        new = [(i, d) for i, d in enumerate(plan.drafts) if id(d) not in own]
        retired = [d.item.id for d in drafts if d.item.id not in kept_ids]
        carriers = [d.item for d in drafts if d.item.id in kept_ids and  # a kept turn made to carry its facts' claims
                    (d.item.valid_to, len(d.item.claims)) != before[d.item.id]]
        ds = [d for _, d in new]
        vecs = _vectors(mem, plan.drafts, own, {r[0].id: r[4] for r in rows}, by_turn, given)
        # labels and context vectors of the whole batch as add computes them: its fact memories among its turns,
        # after the settled rows only (no later turn still pending)
        ctx_all, refresh = label_drafts(mem.anchor, _Settled(store), scope, plan.drafts, vecs)
        assign_expiry([d.item for d in ds] + [r.proposed for r in plan.reviews], mem.expiry, utcnow())
        news = [NewMemory(d.item, vecs[i], d.content_hash, d.index_text, plan.supersedes.get(i, []), ctx_all[i],
                          conflicts, d.carried_by) for i, d in new]
        updates = {**refresh, **{d.item.id: ctx_all[i] for i, d in enumerate(plan.drafts) if id(d) in own}}
        labels = {d.item.id: d.item.labels for d in plan.drafts if id(d) in own}
        try:
            results = store.write([], news, actor="enrich", restated=plan.restated, context_updates=updates,
                                  expect_generation={(tenant, user_id): gen} if check else None,
                                  settle=(tenant, user_id, sorted(kept_ids), retired, carriers, labels))
        except StaleWriteError:  # another writer of this user came first, or another worker settled (or a delete
            attempt += 1  # removed) rows of the batch (checked on every attempt): plan it again on the queue as it is
            continue
        queue_reviews(store, plan.reviews)
        if summary and scope.session_id is not None:  # the summary add writes, from the enriched turns
            results += mem._write_summary(scope)
        counts = {"enriched": len(rows), "retired": len(retired), "REVIEW": len(plan.reviews),
                  "NOOP": len(plan.noops)}
        for r in results:
            counts[r.event] = counts.get(r.event, 0) + 1
        return counts


def enrich_user(mem: Any, tenant: str, user_id: str, *, limit: int | None = None, batch: int = 5000,
                wait: bool = True) -> dict[str, int]:
    """Enrich the user's pending rows, oldest said first, ``batch`` per transaction, at most ``limit`` rows
    (None: all). ``wait``: wait for another worker enriching this user (False: stop when one is, with ``busy``: 1
    in the counts; that worker goes on). Returns counts: ``enriched`` (rows settled), ``retired`` (provisional rows
    replaced), one key per write event (``ADD`` fact memories, ``SUPERSEDE``...)."""
    total: dict[str, int] = {"enriched": 0}
    while limit is None or total["enriched"] < limit:
        step = batch if limit is None else min(batch, limit - total["enriched"])
        got = _enrich_batch(mem, tenant, user_id, step, wait)
        if not got["enriched"]:
            break
        for k, v in got.items():
            total[k] = total.get(k, 0) + v
    return total
