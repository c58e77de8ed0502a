"""What else a purge of memories must clear, read from the store before the purge: the PII vault tokens their texts
hold and the sessions whose buffers quote their turns; and, after it, what the remaining memories of those sessions
derived from the purged turns: their context labels and context vectors (:func:`relabel_sessions`). Used by
:meth:`anchormem.Memory.delete`, ``delete_all`` and ``gc``."""

from __future__ import annotations

from typing import Any

from .privacy.redact import find_tokens
from .types import MemoryItem, Scope

__all__ = ["pii_tokens", "quoting_sessions", "relabel_sessions"]


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
