"""The review, commitment, expiry and tier calls of :class:`anchormem.Memory` (a mixin: the facade keeps one
public surface, this module the calls that move memories through their life after ``add``).

- commitments: :meth:`~LifecycleMixin.due`, :meth:`~LifecycleMixin.complete`;
- the review queue: :meth:`~LifecycleMixin.review_queue`, :meth:`~LifecycleMixin.approve`,
  :meth:`~LifecycleMixin.reject`;
- expiry (:mod:`anchormem.lifecycle`): :meth:`~LifecycleMixin.expired`, :meth:`~LifecycleMixin.gc`;
- tiers (:mod:`anchormem.consolidate`): :meth:`~LifecycleMixin.archive`, :meth:`~LifecycleMixin.restore`,
  :meth:`~LifecycleMixin.consolidate`, :meth:`~LifecycleMixin.user_summary`.

The mixin reads what :class:`~anchormem.Memory` sets up (``store``, ``tenant``, ``embedder``, ``anchor``,
``_scope``, ``get``, ``_drop_summaries_citing``, ``_purge_copies``); it holds no state of its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import consolidate as _tiers
from .arguments import checked_arguments
from .errors import ConflictError, InvalidInputError, NotFoundError
from .facts.reconcile import approval_targets
from .filters import parse_filters
from .ingest.classify import memory_hash
from .ingest.normalize import check_scope_id
from .ingest.pipeline import embedding_text
from .lifecycle import expired_filter
from .purge_targets import pii_tokens, quoting_sessions
from .stores.protocol import NewMemory
from .text.tokenize import index_text
from .timeutil import to_utc, utcnow
from .types import MemoryEvent, MemoryItem, ReviewItem
from .validate import check_id

__all__ = ["LifecycleMixin"]


@checked_arguments
class LifecycleMixin:
    """Commitments, the review queue, expiry and tiers of a :class:`~anchormem.Memory` (see the module doc)."""

    store: Any
    tenant: str
    embedder: Any
    anchor: Any
    _scope: Any
    _user_summaries: dict[tuple[str, str, str | None], tuple[int, str | None]]  # user_summary: (generation, id)
    get: Any
    _drop_summaries_citing: Any
    _purge_copies: Any

    # ---------------------------------------------------------------- commitments
    def due(self, *, user_id: str, before: datetime | str | None = None, agent_id: str | None = None,
            include_undated: bool = True) -> list[MemoryItem]:
        """Open commitments, decisions and todos of a user (``kind="commitment"``; see
        :mod:`anchormem.facts.commitments`), soonest due first, undated last. ``before``: only those due before
        that instant (undated ones only with ``include_undated``). Raises InvalidInputError, ScopeError."""
        scope = self._scope(user_id, agent_id)
        items = self.store.list_memories(scope, parse_filters({"kind": "commitment"}))
        when = to_utc(before, field="before") if before is not None else None
        out = [m for m in items if (m.event_time is None and include_undated)
               or (m.event_time is not None and (when is None or m.event_time < when))]
        return sorted(out, key=lambda m: (m.event_time is None, m.event_time or m.created_at, m.created_at))

    def complete(self, memory_id: str, *, reason: str | None = None) -> MemoryItem:
        """Mark a commitment done: its validity ends now (kept in history and ``as_of`` reads). Raises
        NotFoundError, ConflictError (already closed), InvalidInputError (not a commitment)."""
        item = self.get(memory_id)
        if item.kind != "commitment":
            raise InvalidInputError(f"memory {memory_id!r} is a {item.kind}, not a commitment")
        return self.store.close_memory(self.tenant, memory_id, when=utcnow(), actor="complete", event="DONE",
                                       reason=reason)

    # ---------------------------------------------------------------- review queue
    def review_queue(self, *, user_id: str | None = None, status: str | None = "pending") -> list[ReviewItem]:
        """Changes held for review (conflicting facts with a confidence gap > 0.2, sensitive attributes), oldest
        first. ``status``: pending | approved | rejected | all (or None). Raises InvalidInputError."""
        if status not in (None, "all", "pending", "approved", "rejected"):
            raise InvalidInputError(f"status must be pending, approved, rejected or all, not {status!r}")
        status = None if status == "all" else status
        uid = check_scope_id(user_id, "user_id", required=False)
        return self.store.list_reviews(self.tenant, uid, status)

    def approve(self, review_id: str, *, actor: str = "review") -> list[MemoryEvent]:
        """Apply a held change: the proposed memory is stored and supersedes the facts it conflicts with now.
        Returns the events (ADD, SUPERSEDE…). Raises NotFoundError, ConflictError (already resolved)."""
        item = self.store.get_review(self.tenant, check_id(review_id, "review_id"))
        if item.status != "pending":
            raise ConflictError(f"review item {review_id!r} is already {item.status}")
        new = item.proposed.model_copy(update={"labels": []})
        old = approval_targets(self.store, self.tenant, item.user_id, new)
        vec = self.embedder.embed_documents([embedding_text(new.text, new.speaker)])
        new.labels = self.anchor.label_texts([new.text], vec)[0]
        results = self.store.write([], [NewMemory(
            new, vec[0], memory_hash(new),
            index_text(" ".join(x for x in (new.text, new.speaker) if x)), [c.id for c in old])], actor=actor)
        self.store.resolve_review(self.tenant, review_id, status="approved", actor=actor, when=utcnow(),
                                  result_memory_id=results[0].item.id)
        return [MemoryEvent(event=r.event, memory=r.item) for r in results]

    def reject(self, review_id: str, *, actor: str = "review") -> ReviewItem:
        """Drop a held change; nothing is stored. Raises NotFoundError, ConflictError (already resolved)."""
        return self.store.resolve_review(self.tenant, check_id(review_id, "review_id"), status="rejected",
                                         actor=actor, when=utcnow())

    # ---------------------------------------------------------------- expiry (anchormem.lifecycle)
    def expired(self, *, user_id: str | None = None, now: datetime | str | None = None) -> list[MemoryItem]:
        """Memories whose ``expires_at`` has passed at ``now`` (default: the clock), superseded ones included,
        of one user or of every user of the tenant: what :meth:`gc` would delete. Raises InvalidInputError."""
        when = to_utc(now, field="now") if now is not None else utcnow()
        users = [check_scope_id(user_id, "user_id", required=True)] if user_id is not None else \
            self.store.user_ids(self.tenant)
        return [m for u in users for m in self.store.list_memories(self._scope(u), expired_filter(when),
                                                                   include_superseded=True)]

    def gc(self, *, user_id: str | None = None, now: datetime | str | None = None, dry_run: bool = False,
           purge: bool = False, progress: Any = None) -> dict[str, int]:
        """Delete expired memories (``expires_at`` <= ``now``, default the clock) of one user or, one user per
        transaction, of every user of the tenant: from the table, vector, keyword and entity indexes; history
        records ``DELETE`` with reason ``"expired"`` (``purge=True`` also blanks their history text and reasons
        and drops source messages no other memory cites). ``dry_run``: delete nothing, count what would go.
        ``progress``: ``callable(done_users, total_users)``. Returns counts per table (``memories``, ``fts``,
        ``entities``; ``history``/``messages`` with ``purge``) and ``users`` (users with expired memories).
        Raises InvalidInputError."""
        when = to_utc(now, field="now") if now is not None else utcnow()
        users = [check_scope_id(user_id, "user_id", required=True)] if user_id is not None else \
            self.store.user_ids(self.tenant)
        total: dict[str, int] = {"memories": 0, "users": 0} if dry_run else \
            {"memories": 0, "fts": 0, "entities": 0, "users": 0}
        for i, u in enumerate(users, start=1):
            if dry_run:
                n = len(self.store.list_memories(self._scope(u), expired_filter(when), include_superseded=True))
                counts = {"memories": n}
            else:
                expired = self.store.list_memories(self._scope(u), expired_filter(when), include_superseded=True)
                sessions = quoting_sessions(self.store, self.tenant, u, expired) if purge else set()
                counts = self.store.purge_expired(self.tenant, when, user_id=u, purge=purge, actor="gc")
                if expired:
                    counts["summaries"] = self._drop_summaries_citing(expired, purge=purge)
                if purge and expired:  # PII vault rows that only the purged memories still used
                    tokens = pii_tokens(self.store, self.tenant, expired)
                    counts["vault"] = self.store.vault_delete(self.tenant, u, tokens)
                    self._purge_copies(u, sessions)
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
            total["users"] += 1 if counts.get("memories") else 0
            if progress is not None:
                progress(i, len(users))
        return total

    # ---------------------------------------------------------------- tiers (anchormem.consolidate)
    def archive(self, ids: list[str] | None = None, *, user_id: str | None = None,
                filters: dict[str, Any] | None = None, reason: str | None = None) -> list[MemoryItem]:
        """Move memories to the cold tier (out of default search/ask/context/get_all; kept for ``get``, ``as_of``,
        history, export and ``filters={"tier": "cold"}``): by ``ids``, or every warm memory of ``user_id``
        matching ``filters``. Each move is an ``ARCHIVE`` history version. Returns the memories moved. Raises
        InvalidInputError, NotFoundError (nothing moved), FilterError, ScopeError."""
        return _tiers.archive(self, ids, user_id=user_id, filters=filters, reason=reason)

    def restore(self, ids: list[str] | None = None, *, user_id: str | None = None,
                filters: dict[str, Any] | None = None, reason: str | None = None) -> list[MemoryItem]:
        """Move cold memories back to warm (``RESTORE`` history versions): by ``ids``, or every cold memory of
        ``user_id`` matching ``filters``. Returns the memories moved. Raises like :meth:`archive`."""
        return _tiers.restore(self, ids, user_id=user_id, filters=filters, reason=reason)

    def consolidate(self, *, user_id: str, agent_id: str | None = None, now: datetime | str | None = None,
                    dry_run: bool = False, **options: Any) -> Any:
        """Promote re-accessed cold memories, merge near-duplicates, roll old episodes up into summaries (and
        archive them), demote idle low-importance memories and rebuild the user's rolled-up summary. Returns a
        :class:`anchormem.consolidate.ConsolidateReport` (counts and ids). ``options``: ``episode_age_days``,
        ``idle_days``, ``merge``, ``progress``. Thresholds: :mod:`anchormem.consolidate`. Raises
        InvalidInputError, ScopeError."""
        return _tiers.consolidate(self, user_id=user_id, agent_id=agent_id, now=now, dry_run=dry_run, **options)

    def user_summary(self, *, user_id: str, agent_id: str | None = None) -> MemoryItem | None:
        """The user's current rolled-up summary (written by :meth:`consolidate` or ``summarize(user_id=...)``),
        or None. Which memory it is (or that there is none) is kept per user and agent for the user's generation
        (every write raises it): ``context()`` asks each call, and finding it reads every current memory of the
        user (~80 ms at 100k); while no write happened since, it costs the generation's read (and the summary's own
        row, read by id: its access count may have changed)."""
        scope = self._scope(user_id, agent_id)
        key, gen = (scope.tenant, scope.user_id, scope.agent_id), self.store.scope_generation(scope.tenant,
                                                                                                scope.user_id)
        kept = self._user_summaries.get(key)
        if kept is not None and kept[0] == gen:
            if kept[1] is None:
                return None
            try:
                return self.store.get(scope.tenant, kept[1])
            except NotFoundError:  # gone without a new generation (another process's store): look again
                pass
        item = _tiers.current_user_summary(self.store, scope)
        if len(self._user_summaries) > 4096:
            self._user_summaries.clear()
        self._user_summaries[key] = (gen, None if item is None else item.id)
        return item

