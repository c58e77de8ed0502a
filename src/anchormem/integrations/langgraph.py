"""A LangGraph long-term store backed by anchormem: ``AnchormemStore(memory)`` is a ``BaseStore``.

    from langgraph.graph import StateGraph
    from anchormem import Memory
    from anchormem.integrations.langgraph import AnchormemStore

    store = AnchormemStore(Memory("memories.db"))
    store.put(("memories", "alice"), "home", {"content": "I moved to Lisbon last month."})
    store.search(("memories", "alice"), query="where does she live?")   # anchormem's search, scored
    graph = builder.compile(store=store)

Mapping:

- **Namespaces are scopes.** By default each namespace is one anchormem user scope (``user_id`` = its labels
  joined by ``/``, ``%`` and ``/`` escaped), so facts, supersedes and anchoring never mix namespaces. Pass
  ``user_from_namespace`` (e.g. ``lambda ns: ns[-1]`` for ``("memories", user_id)``) to map namespaces onto the
  users your application already writes with ``Memory.add``; items then carry their namespace in metadata and a
  search is restricted to the namespaces under its prefix.
- **Items are memories.** ``put`` adds the value's text (the ``index`` fields, else ``content`` / ``text`` /
  ``memory`` / ``data`` when a string, else the value as JSON) with the key, namespace and value in metadata;
  anchormem then extracts its facts (a new home supersedes the old one). Putting a key again replaces its
  memories (the old ones are deleted, kept in ``history``); ``put(..., None)`` and ``delete`` delete them.
  ``ttl`` (minutes) becomes the memories' ``expires_at``.
- **Memories written outside LangGraph** (``Memory.add`` of a chat) appear in ``search`` and ``get`` of a
  namespace mapped to their user, with their memory id as key and ``{"content": text, "kind", "source",
  "memory_id"}`` as value.
- ``search`` with a query is anchormem's search (default recipe), one hit per key, in anchormem's order (a current
  value before a memory that still shows an old one; several scopes merged by score), ``score`` = anchormem's
  score; without a query, items newest first. ``filter`` applies to values (equality, nested dicts, ``$eq $ne $gt
  $gte $lt $lte``). ``abatch`` runs ``batch`` in a worker thread.

Limits: anchormem deduplicates, so a value whose text is already stored (current) in the same user scope under
another key is not stored again: ``put`` returns normally, ``search`` finds the first key's item, and ``get`` of
the new key returns None. A value anchormem stores nothing for (empty or chit-chat text such as "ok thanks")
raises InvalidInputError rather than succeed silently. A change held for review (``Memory.review_queue``) is not
visible until approved. Needs ``pip install 'anchormem[langgraph]'``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from ..errors import InvalidInputError, NotFoundError
from ..memory import Memory
from ..timeutil import utcnow
from ..types import MemoryItem
from . import require

_base = require("langgraph.store.base", "langgraph")
BaseStore = _base.BaseStore
GetOp, PutOp, SearchOp, ListNamespacesOp = _base.GetOp, _base.PutOp, _base.SearchOp, _base.ListNamespacesOp
Item, SearchItem = _base.Item, _base.SearchItem

__all__ = ["AnchormemStore", "namespace_user", "user_namespace"]

_TEXT_FIELDS = ("content", "text", "memory", "data")
_KEY, _NS, _VALUE, _CREATED = "lg_key", "lg_ns", "lg_value", "lg_created"


def namespace_user(namespace: tuple[str, ...]) -> str:
    """The default user id of a namespace: labels joined by ``/`` (``%`` → ``%25``, ``/`` → ``%2F``)."""
    return "/".join(p.replace("%", "%25").replace("/", "%2F") for p in namespace)


def user_namespace(user_id: str) -> tuple[str, ...]:
    """Inverse of :func:`namespace_user`."""
    return tuple(p.replace("%2F", "/").replace("%25", "%") for p in user_id.split("/"))


class AnchormemStore(BaseStore):
    """LangGraph ``BaseStore`` over an anchormem :class:`~anchormem.Memory` (see the module docstring).

    Args:
        memory: the Memory to read and write (its tenant applies).
        user_from_namespace: namespace → user id (default :func:`namespace_user`: one scope per namespace).
        recipe: search recipe name for queries (default: the Memory's default, ``"anchored"``).

    Raises (from every operation) anchormem's errors: InvalidInputError for a value with no text to store or a
    bad namespace, ScopeError, StoreError.
    """

    supports_ttl = True

    def __init__(self, memory: Memory, *, user_from_namespace: Callable[[tuple[str, ...]], str] | None = None,
                 recipe: str | None = None) -> None:
        self.memory = memory
        self._user = user_from_namespace or namespace_user
        self._custom = user_from_namespace is not None
        self._recipe = recipe

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Any]) -> list[Any]:
        """Run ``GetOp`` / ``PutOp`` / ``SearchOp`` / ``ListNamespacesOp`` in order; one result per op."""
        out: list[Any] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, op.value, op.index, op.ttl)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._list_namespaces(op))
            else:
                raise InvalidInputError(f"unknown store operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable[Any]) -> list[Any]:
        """:meth:`batch` in a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    # ------------------------------------------------------------------ helpers
    def _check_ns(self, namespace: tuple[str, ...]) -> None:
        if not isinstance(namespace, tuple) or not namespace or \
                not all(isinstance(p, str) and p for p in namespace):
            raise InvalidInputError(f"namespace must be a non-empty tuple of non-empty strings, got {namespace!r}")

    def _users(self, prefix: tuple[str, ...]) -> list[str]:
        """User ids whose memories can fall under ``prefix``."""
        if self._custom:
            try:
                return [self._user(prefix)]
            except (IndexError, KeyError, ValueError):
                return self.memory.store.user_ids(self.memory.tenant)
        return [u for u in self.memory.store.user_ids(self.memory.tenant)
                if user_namespace(u)[:len(prefix)] == prefix]

    def _keyed(self, user_id: str, namespace: tuple[str, ...], key: str) -> list[MemoryItem]:
        items = self.memory.get_all(user_id=user_id, filters={f"metadata.{_KEY}": key})
        ns = json.dumps(list(namespace), ensure_ascii=False)
        return [m for m in items if m.metadata.get(_NS) == ns]

    def _item(self, m: MemoryItem, score: float | None = None, search: bool = False) -> Any:
        md = m.metadata or {}
        if _KEY in md:
            ns, key, value = tuple(json.loads(md[_NS])), md[_KEY], json.loads(md[_VALUE])
            created = datetime.fromisoformat(md[_CREATED]) if md.get(_CREATED) else m.created_at
        else:  # a memory written outside LangGraph
            ns = user_namespace(m.user_id) if not self._custom else ()
            key, created = m.id, m.created_at
            value = {"content": m.text, "kind": m.kind, "source": m.source, "memory_id": m.id}
        updated = m.updated_at or m.created_at
        if search:
            return SearchItem(namespace=ns, key=key, value=value, created_at=created, updated_at=updated,
                              score=score)
        return Item(value=value, key=key, namespace=ns, created_at=created, updated_at=updated)

    # ------------------------------------------------------------------ ops
    def _get(self, namespace: tuple[str, ...], key: str) -> Any:
        self._check_ns(namespace)
        user = self._user(namespace)
        found = self._keyed(user, namespace, key)
        if found:
            return self._item(found[0])
        try:  # a memory written outside LangGraph, by its id
            m = self.memory.get(key)
        except (NotFoundError, InvalidInputError):
            return None
        return self._item(m) if m.user_id == user and _KEY not in (m.metadata or {}) else None

    def _put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any] | None, index: Any,
             ttl: float | None) -> None:
        self._check_ns(namespace)
        user = self._user(namespace)
        old = self._keyed(user, namespace, key)
        created = old[0].metadata.get(_CREATED) if old else None
        if value is None:
            for m in old:
                self.memory.delete(m.id)
            return
        text = _text_of(value, index)
        now = utcnow()
        meta: dict[str, Any] = {_KEY: key, _NS: json.dumps(list(namespace), ensure_ascii=False),
                                _VALUE: json.dumps(value, ensure_ascii=False, sort_keys=True),
                                _CREATED: created or now.isoformat()}
        if ttl is not None:
            meta["expires_at"] = (now + timedelta(minutes=float(ttl))).isoformat()
        for m in old:  # replaced: the old memories go (kept in history)
            self.memory.delete(m.id)
        events = self.memory.add(text, user_id=user, metadata=meta)
        if all(e.event == "SKIP" for e in events):  # (a SKIP event says why nothing was kept)
            raise InvalidInputError(f"anchormem stored nothing for key {key!r}: the value's text is empty or "
                                    "chit-chat; put a value with content worth remembering")

    def _search(self, op: Any) -> list[Any]:
        prefix = tuple(op.namespace_prefix)
        want = op.offset + op.limit
        scored: dict[tuple[tuple[str, ...], str], tuple[float | None, Any]] = {}
        users = self._users(prefix)
        for user in users:
            if op.query:
                hits = self.memory.search(op.query, user_id=user, limit=min(1000, max(4 * want, 10)),
                                          recipe=self._recipe)
                pairs = [(h.memory, h.score) for h in hits]
            else:
                pairs = [(m, None) for m in reversed(self.memory.get_all(user_id=user))]  # newest first
            for m, score in pairs:
                item = self._item(m, score, search=True)
                if tuple(item.namespace)[:len(prefix)] != prefix and not (self._custom and not item.namespace):
                    continue
                if op.filter and not _matches(item.value, op.filter):
                    continue
                k = (tuple(item.namespace), item.key)
                if k not in scored:  # a key's best-ranked memory stands for it
                    scored[k] = (score, item)
        ranked = [it for _, it in scored.values()]
        if op.query and len(users) > 1:  # several scopes: merged by score (each scope's own order kept on ties)
            ranked.sort(key=lambda it: -(it.score or 0.0))
        elif op.query:
            pass  # one scope: anchormem's order as it is (a current value ahead of a memory that still shows an old one)
        else:
            ranked.sort(key=lambda it: it.updated_at, reverse=True)
        return ranked[op.offset:op.offset + op.limit]

    def _list_namespaces(self, op: Any) -> list[tuple[str, ...]]:
        if self._custom:
            spaces = set()
            for user in self.memory.store.user_ids(self.memory.tenant):
                for m in self.memory.get_all(user_id=user):
                    if _NS in (m.metadata or {}):
                        spaces.add(tuple(json.loads(m.metadata[_NS])))
        else:
            spaces = {user_namespace(u) for u in self.memory.store.user_ids(self.memory.tenant)}
        found = [ns for ns in spaces if all(_ns_match(c.match_type, tuple(c.path), ns)
                                            for c in (op.match_conditions or ()))]
        if op.max_depth is not None:
            found = list({ns[:op.max_depth] for ns in found})
        return sorted(found)[op.offset:op.offset + op.limit]


def _text_of(value: Any, index: Any) -> str:
    if not isinstance(value, dict):
        raise InvalidInputError(f"a LangGraph value must be a dict, got {type(value).__name__}")
    if isinstance(index, list) and index:
        parts = [_at_path(value, p) for p in index]
        text = " ".join(str(p) for p in parts if p not in (None, ""))
        if text.strip():
            return text
    for f in _TEXT_FIELDS:
        if isinstance(value.get(f), str) and value[f].strip():
            return value[f]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _at_path(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj if isinstance(obj, (str, int, float)) else (json.dumps(obj, ensure_ascii=False) if obj else None)


def _ns_match(kind: str, path: tuple[str, ...], ns: tuple[str, ...]) -> bool:
    if len(ns) < len(path):
        return False
    pairs = zip(ns, path) if kind == "prefix" else zip(reversed(ns), reversed(path))
    return all(p == "*" or a == p for a, p in pairs)


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _compare(op: str, have: Any, arg: Any) -> bool:
    if op == "$eq":
        return have == arg
    if op == "$ne":
        return have != arg
    if _num(arg) is None:
        raise InvalidInputError(f"filter operator {op} needs a number, got {arg!r:.40}")
    a, b = _num(have), float(arg)
    return a is not None and {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


_OPS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def _matches(value: Any, flt: dict[str, Any]) -> bool:
    """LangGraph's value filter: equality, nested dicts, ``$eq $ne $gt $gte $lt $lte`` (numbers only for ranges).
    Raises InvalidInputError for another operator."""
    for k, want in flt.items():
        have = value.get(k) if isinstance(value, dict) else None
        if isinstance(want, dict) and any(str(o).startswith("$") for o in want):
            for o, arg in want.items():
                if o not in _OPS:
                    raise InvalidInputError(f"unsupported filter operator {o!r} (use {', '.join(_OPS)})")
                if not _compare(o, have, arg):
                    return False
        elif isinstance(want, dict):
            if not isinstance(have, dict) or not _matches(have, want):
                return False
        elif have != want:
            return False
    return True
