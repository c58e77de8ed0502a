"""What else a purge of memories must clear, read from the store before the purge: the PII vault tokens their texts
hold and the sessions whose buffers quote their turns; and, after it, what the remaining memories of those sessions
derived from the purged turns: their context labels and context vectors (:func:`relabel_sessions`); the copies
outside the store (:func:`purge_copies`); and the bytes left in PostgreSQL's data files (:func:`physical_erase`).
Used by :meth:`anchormem.Memory.delete`, ``delete_all`` and ``gc``."""

from __future__ import annotations

from typing import Any

from .privacy.redact import find_tokens
from .types import MemoryItem, Scope

__all__ = ["physical_erase", "pii_tokens", "purge_copies", "quoting_sessions", "relabel_sessions"]


def pii_tokens(store: Any, tenant: str, items: list[MemoryItem]) -> list[str]:
    """PII tokens in memories' text, source turn and history (the vault rows a purge may free), sorted."""
    texts = [t for it in items for t in (it.text, it.source_text)]
    for it in items:
        texts += [t for h in store.history(tenant, it.id) for t in (h.old_text, h.new_text) if t]
    return sorted({tok for t in texts for tok in find_tokens(t)})


def quoting_sessions(store: Any, tenant: str, user_id: str, items: list[MemoryItem]) -> set[str]:
    """The sessions of ``items`` (of one user) and of the stored turns they cite: a memory restated in another
    session cites that session's turn, whose buffer quotes it too. Read before the turns are purged."""
    cited = sorted({m for it in items for m in it.source_message_ids})
    scope = Scope(tenant=tenant, user_id=user_id)
    turns = [t for i in range(0, len(cited), 900) for t in store.messages(scope, cited[i:i + 900])]
    return ({it.session_id for it in items} | {m["session_id"] for m in turns}) - {None}


def relabel_sessions(anchor: Any, store: Any, tenant: str, user_id: str, sessions: set[str] | None) -> int:
    """Recompute the context labels and context vectors of the memories left in ``sessions`` of one user after a
    purge (:func:`anchormem.context.anchor.relabel_scope`; hand-set labels are kept): both were smoothed over the
    session's turns, the purged ones included, so they still carried what was forgotten. None or an empty set:
    nothing (a whole user's purge leaves no session). Returns how many memories were relabelled."""
    from .context.anchor import relabel_scope

    return sum(relabel_scope(anchor, store, Scope(tenant=tenant, user_id=user_id, session_id=sid))
               for sid in sorted(sessions or ()))


def purge_copies(mem: Any, user_id: str, sessions: set[str] | None) -> None:
    """After a purge by ``mem`` (a :class:`anchormem.Memory`), the other copies of the purged text: the user's hot
    cache entries and query embeddings (:meth:`anchormem.hotcache.StoreCache.forget`) and the session buffers
    (turns and summary, which quote the stored turns) of ``sessions``, or of every session of the user (None).
    The whole buffer goes: its other turns only feed ``context``; the passage embeddings, label rows and
    conversation vectors kept for search's conversation turns; and the labels and context vectors the remaining
    memories of ``sessions`` took from the purged turns (recomputed). Raises StoreError (the Redis session store
    failing)."""
    from .session.store import SessionKey
    from .urlcheck import check_redis_url

    mem._searcher.forget_passages()
    mem._turns.forget()
    relabel_sessions(mem.anchor, mem.store, mem.tenant, user_id, sessions)  # no label derived from a purged turn
    mem.anchor.forget()
    if mem.cache is not None:
        mem.cache.forget(mem.tenant, user_id)
    if mem._sessions is None and check_redis_url(mem.settings.session_url, "ANCHORMEM_SESSION_URL") is None:
        return  # this Memory's in-process session store, never opened: it holds nothing
    if sessions is None:
        mem.sessions.clear_user(mem.tenant, user_id)
    for session_id in sorted(sessions or ()):
        mem.sessions.clear(SessionKey(user_id, session_id, mem.tenant))


def physical_erase(store: Any) -> int:
    """After a purge, erase the purged bytes from the store's files; returns how many tables were rewritten.
    PostgreSQL: :meth:`~anchormem.stores.pg_physical.PostgresPhysicalMixin.rewrite_tables` (``VACUUM FULL`` of
    every table holding user data). SQLite: 0, nothing more to do (a purge already zeroes the freed bytes,
    merges the FTS index, deletes the saved vector index and checkpoints the WAL). Raises StoreError (the purge
    itself is already done then: run ``store.rewrite_tables()`` again)."""
    rewrite = getattr(store, "rewrite_tables", None)
    return len(rewrite()) if rewrite is not None else 0
