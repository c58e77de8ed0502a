"""The store's fact reads of one planning pass, each asked once, seen through what the pass already decided (issue
#24: a cheaper write path; issue #22: a batch decides as if its turns were added one by one).

:func:`~anchormem.facts.reconcile.plan_facts` plans a whole batch before anything is written. It plans the batch's
turns one after the other, and each turn's readers (jobs, amounts, ages, plans and their calling off, the meaning
fallback, the relative reader) must see the user's memories as the earlier turns of the same batch leave them: the
plan row a cancellation closes, the home an older restatement is closed by. :class:`PlanReads` is that view: the
store's answers (asked once per question: the store does not change while planning) with the pass's planned writes
laid over them (:meth:`PlanReads.planned`): its new memories added, the memories it closes closed (``valid_to`` and
``superseded_by`` as the write will set them), what each new memory closed listed as its predecessors.

    reads = PlanReads(store)
    reads.current_facts(tenant, user_id, ["user|employer"])  # a store query
    reads.current_facts(tenant, user_id, ["user|employer"])  # the same items, no query
    reads.planned(new_item, closes=[old.id])                 # the next reads see new_item current, old closed

Laid over: ``current_facts``, ``list_memories`` (current memories, a filter of text-field conditions: else the store's
answer alone), ``get_many``, ``predecessors`` and, given ``embed`` (the embedder's ``embed_documents``: the
relative reader and the meaning fallback search the user's memories by meaning), ``dense_search`` of current
memories (each planned memory embedded once, as its write will: :func:`~anchormem.ingest.pipeline.embedding_text`).
Not laid over: the closing of an utterance whose every carried claim a planned write closes (the write does it).
Each call returns a new list (callers may change the list, not its items). Every other attribute is the store's own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from ..filters import TEXT_FIELDS, And, Cond, Not, Or
from ..ingest.pipeline import embedding_text

__all__ = ["PlanReads"]


def _matches(node: Any, item: Any) -> bool | None:
    """Whether ``item`` meets filter ``node``; None when the node holds a condition this view cannot evaluate (only
    ``eq``/``ne``/``in``/``nin`` on text fields are)."""
    if node is None:
        return True
    if isinstance(node, Cond):
        if node.field not in TEXT_FIELDS or node.op not in ("eq", "ne", "in", "nin"):
            return None
        v = getattr(item, node.field, None)
        if node.op in ("eq", "ne"):
            return (v == node.value) == (node.op == "eq")
        return (v in tuple(node.value)) == (node.op == "in")
    if isinstance(node, Not):
        got = _matches(node.item, item)
        return None if got is None else not got
    if isinstance(node, (And, Or)):
        parts = [_matches(n, item) for n in node.items]
        if any(p is None for p in parts):
            return None
        return all(parts) if isinstance(node, And) else any(parts)
    return None


class PlanReads:
    """A view of ``store`` for one planning pass: ``current_facts`` and ``list_memories`` answer a repeated question
    from the store's first answer; :meth:`planned` lays the pass's own decisions over every later answer."""

    def __init__(self, store: Any, embed: Any = None) -> None:
        self._store = store
        self._embed = embed  # texts -> (n, dim) unit vectors: the store's embedder (None: dense search not laid over)
        self._vecs: dict[str, np.ndarray] = {}  # planned id -> its vector, embedded when a search first needs it
        self._seen: dict[tuple[Any, ...], list[Any]] = {}
        self._added: dict[str, Any] = {}  # id -> MemoryItem planned by this pass, in planned order
        self._by_user: dict[tuple[str, str], list[Any]] = {}  # (tenant, user_id) -> its planned items, in order
        self._views: dict[str, tuple[Any, Any]] = {}  # id -> (item, its copy as closed by the pass), once a closing
        self._closed: dict[str, tuple[datetime, str]] = {}  # id -> (valid_to, superseded_by) planned
        self._preds: dict[str, list[str]] = {}  # planned id -> ids it closed (store.predecessors' shape)

    # ------------------------------------------------------------------ the planned writes
    def planned(self, item: Any, closes: list[str] = ()) -> None:  # type: ignore[assignment]
        """Lay one planned write over the reads: ``item`` (a MemoryItem about to be written; stored already closed
        when its ``valid_to`` is set, then counted among its ``superseded_by``'s predecessors) and the ids it closes
        at its ``valid_from`` (each current one; a scheduled one closed before its start never held: what it was to
        close at its start is closed by ``item`` instead, as the stores do)."""
        if item.id not in self._added:
            self._by_user.setdefault((item.tenant, item.user_id), []).append(item)
        else:  # (planned again: the new item replaces the old in its place)
            mine = self._by_user[(item.tenant, item.user_id)]
            mine[next(i for i, m in enumerate(mine) if m.id == item.id)] = item
        self._added[item.id] = item
        self._views.pop(item.id, None)
        if item.valid_to is not None and item.superseded_by:
            self._preds.setdefault(item.superseded_by, []).append(item.id)
        for old_id in closes:
            self._close(item.tenant, item.user_id, old_id, item.valid_from, item.id)

    def _close(self, tenant: str, user_id: str, old_id: str, when: datetime, by: str) -> None:
        old = self.get_many(tenant, [old_id], entities=False).get(old_id)
        if old is None or old.valid_to is not None:
            return
        self._shut(old_id, when, by)
        self._preds.setdefault(by, []).append(old_id)
        if old.valid_from <= when:
            return
        ids = self.predecessors(tenant, user_id, [old_id]).get(old_id, [])  # it never held (.claims_sql)
        for m in self.get_many(tenant, ids, entities=False).values():
            if m.superseded_by == old_id and m.valid_to is not None and m.valid_to > when and m.valid_from <= when:
                self._shut(m.id, when, by)
                self._preds.setdefault(by, []).append(m.id)

    def _shut(self, mid: str, when: datetime, by: str) -> None:
        self._closed[mid] = (when, by)
        self._views.pop(mid, None)

    def _view(self, m: Any) -> Any:
        shut = self._closed.get(m.id)
        if shut is None:
            return m
        got = self._views.get(m.id)
        if got is None or got[0] is not m:  # (a copy made of this very item since its closing is reused)
            got = self._views[m.id] = (m, m.model_copy(update={"valid_to": shut[0], "superseded_by": shut[1]}))
        return got[1]

    def _mine(self, tenant: str, user_id: str) -> list[Any]:
        return [self._view(m) for m in self._by_user.get((tenant, user_id), ())]

    # ------------------------------------------------------------------ reads
    def current_facts(self, tenant: str, user_id: str, slots: list[str]) -> list[Any]:
        """``store.current_facts(tenant, user_id, slots)`` (list of MemoryItem, by ``valid_from``) as the planned
        writes leave it; the store is asked once per slot."""
        missing = [s for s in dict.fromkeys(slots) if ("slot", tenant, user_id, s) not in self._seen]
        if missing:
            for s in missing:
                self._seen[("slot", tenant, user_id, s)] = []
            for m in self._store.current_facts(tenant, user_id, missing):
                self._seen.setdefault(("slot", tenant, user_id, m.fact.slot), []).append(m)
        want = set(slots)
        out = [m for s in dict.fromkeys(slots) for m in self._seen[("slot", tenant, user_id, s)]
               if m.id not in self._closed]
        out += [v for m in self._by_user.get((tenant, user_id), ()) if m.fact is not None and m.fact.slot in want
                and (v := self._view(m)).valid_to is None]  # (a closing changes no fact: the slot tested first)
        return sorted(out, key=lambda m: m.valid_from)

    def list_memories(self, scope: Any, *args: Any, **kwargs: Any) -> list[Any]:
        """``store.list_memories(scope, ...)`` (list of MemoryItem, oldest said first), asked once per distinct
        arguments; the planned writes laid over it for a read of current memories by text-field conditions."""
        key = ("list", repr(scope), repr(args), repr(sorted(kwargs.items())))
        if key not in self._seen:
            self._seen[key] = list(self._store.list_memories(scope, *args, **kwargs))
        base = self._seen[key]
        where = args[0] if args else kwargs.get("where")
        plain = not (set(kwargs) - {"where"}) and len(args) <= 1
        if not (self._added or self._closed) or not plain:
            return list(base)
        mine = [m for m in self._mine(scope.tenant, scope.user_id) if m.valid_to is None and m.tier == "warm" and
                (scope.agent_id is None or m.agent_id == scope.agent_id) and
                (scope.session_id is None or m.session_id == scope.session_id)]
        hits = [_matches(where, m) for m in mine]
        if any(h is None for h in hits):
            return list(base)
        out = [m for m in base if m.id not in self._closed] + [m for m, h in zip(mine, hits) if h]
        return sorted(out, key=lambda m: m.created_at)

    def get_many(self, tenant: str, ids: list[str], *, entities: bool = True) -> dict[str, Any]:
        """``store.get_many`` with the planned memories and closings."""
        ask = [i for i in ids if i not in self._added]
        got = self._store.get_many(tenant, ask, entities=entities) if ask else {}
        out = {}
        for i in ids:
            m = self._added.get(i) if i in self._added else got.get(i)
            if m is not None and m.tenant == tenant:
                out[i] = self._view(m)
        return out

    def predecessors(self, tenant: str, user_id: str, fact_ids: list[str]) -> dict[str, list[str]]:
        """``store.predecessors`` with what the planned memories closed."""
        ask = [i for i in fact_ids if i not in self._added]
        out = {k: list(v) for k, v in (self._store.predecessors(tenant, user_id, ask) if ask else {}).items()}
        for i in fact_ids:
            for p in self._preds.get(i, []):
                if p not in out.setdefault(i, []):
                    out[i].append(p)
        return {k: v for k, v in out.items() if v}

    def dense_search(self, scope: Any, query: np.ndarray, k: int, where: Any = None, as_of: Any = None
                     ) -> list[tuple[str, float]]:
        """``store.dense_search`` of current memories (``where`` None, no ``as_of``) with the planned writes laid over
        it: a memory planned closed left out, a planned current one scored by its vector; (id, cosine) best first."""
        mine = [m for m in self._mine(scope.tenant, scope.user_id) if m.valid_to is None and m.tier == "warm" and
                (scope.agent_id is None or m.agent_id == scope.agent_id)]
        if self._embed is None or where is not None or as_of is not None or not (mine or self._closed):
            return self._store.dense_search(scope, query, k, where, as_of) if as_of is not None else \
                self._store.dense_search(scope, query, k, where)
        base = [(i, s) for i, s in self._store.dense_search(scope, query, k + len(self._closed), None)
                if i not in self._closed and i not in self._added]
        todo = [m for m in mine if m.id not in self._vecs]
        if todo:
            vecs = np.asarray(self._embed([embedding_text(m.text, m.speaker) for m in todo]), dtype=np.float32)
            self._vecs.update((m.id, v) for m, v in zip(todo, vecs))
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        base += [(m.id, float(self._vecs[m.id] @ q)) for m in mine]
        return sorted(base, key=lambda x: -x[1])[:k]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
