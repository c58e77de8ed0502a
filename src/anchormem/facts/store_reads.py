"""The store's fact reads of one planning pass, each asked once (issue #24: a cheaper write path).

:func:`~anchormem.facts.reconcile.plan_facts` plans a whole batch before anything is written, so while it runs the
store holds the same facts for every turn: the readers (jobs, amounts, ages, the meaning fallback, the relative
reader) asked it again for each turn the same questions ("the user's current ``employer`` facts"), each answer a SQL
query and its rows decoded. :class:`PlanReads` answers a repeated question from the first answer.

    reads = PlanReads(store)
    reads.current_facts(tenant, user_id, ["user|employer"])  # a store query
    reads.current_facts(tenant, user_id, ["user|employer"])  # the same items, no query

Only reads go through it, and only for one planning pass (a new one per ``plan_facts`` call): the answers are the
store's as of that pass. Each call returns a new list (callers may change the list, not its items: the readers only
read them). Every other attribute is the store's own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PlanReads"]


class PlanReads:
    """A view of ``store`` whose ``current_facts`` and ``list_memories`` answer a repeated call (same arguments) from
    the first one's result, for one planning pass during which nothing is written."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._seen: dict[tuple[Any, ...], list[Any]] = {}

    def current_facts(self, tenant: str, user_id: str, slots: list[str]) -> list[Any]:
        """``store.current_facts(tenant, user_id, slots)`` (list of MemoryItem), asked once per distinct slots."""
        key = ("current", tenant, user_id, tuple(slots))
        if key not in self._seen:
            self._seen[key] = list(self._store.current_facts(tenant, user_id, slots))
        return list(self._seen[key])

    def list_memories(self, scope: Any, *args: Any, **kwargs: Any) -> list[Any]:
        """``store.list_memories(scope, ...)`` (list of MemoryItem), asked once per distinct arguments."""
        key = ("list", repr(scope), repr(args), repr(sorted(kwargs.items())))
        if key not in self._seen:
            self._seen[key] = list(self._store.list_memories(scope, *args, **kwargs))
        return list(self._seen[key])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
