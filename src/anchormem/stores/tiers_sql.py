"""Storage tiers and merges for the SQL stores (``Store.set_tier``, ``Store.merge_memories``), mixed into
:class:`.sqlite.SQLiteStore` and :class:`.postgres.PostgresStore`; used by :mod:`anchormem.consolidate` and
``Memory.archive`` / ``Memory.restore``.

A memory is ``"warm"`` (the default: in the live indexes, found by search) or ``"cold"`` (archived: the row, its
vector, keyword index entry, entities and history all stay; the search paths leave it out unless the filter names
``tier`` or the read is ``as_of``). A tier move is a new history version (``ARCHIVE`` / ``RESTORE``, with actor and
reason) and bumps the user's scope generation, so caches keyed on it (the SQLite vector cache, query caches)
follow. A merge closes duplicates in favour of one kept memory, like a supersede: each duplicate gets
``valid_to = when`` and ``superseded_by = kept id`` (kept for ``as_of`` reads and history), the kept memory gains
their source message ids and access counts; both sides get a ``MERGE`` history row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np

from ..errors import ConflictError, InvalidInputError, NotFoundError
from ..filters import TIERS
from ..timeutil import utcnow
from ..types import MemoryItem
from .schema import PG_JSON

__all__ = ["SQLiteTierMixin", "PostgresTierMixin", "TIER_EVENTS"]

TIER_EVENTS = {"cold": "ARCHIVE", "warm": "RESTORE"}  # history event of a move into each tier


def _check_tier(tier: Any) -> str:
    if tier not in TIERS:
        raise InvalidInputError(f"tier must be one of {', '.join(TIERS)}, not {tier!r}")
    return tier


def _ids(ids: Any) -> list[str]:
    if isinstance(ids, str) or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("ids must be a list of non-empty memory id strings")
    return list(dict.fromkeys(ids))


def _merged_sources(keep: list[str], dups: list[list[str]]) -> list[str]:
    out = list(keep)
    for src in dups:
        out += [s for s in src if s not in out]
    return out


def _merge_reasons(keep_id: str, dup_ids: list[str], reason: str | None) -> tuple[str, str]:
    tail = f": {reason}" if reason else ""
    return f"merged {', '.join(dup_ids)}{tail}", f"merged into {keep_id}{tail}"


class SQLiteTierMixin:
    """Tier moves and merges for the SQLite store (needs ``_tx``, ``_history``, ``_bump``, ``vectors``,
    ``get``, ``get_many``)."""

    _tx: Any
    _history: Callable[..., None]
    _bump: Callable[..., int]
    vectors: Any
    get: Callable[..., MemoryItem]
    get_many: Callable[..., dict[str, MemoryItem]]

    def set_tier(self, tenant: str, ids: list[str], tier: str, *, when: datetime, actor: str,
                 reason: str | None = None) -> list[MemoryItem]:
        """Move memories to ``tier`` (``"warm"`` or ``"cold"``; ``archived_at`` = ``when`` for cold, cleared for
        warm). Memories already there are left alone. Returns the moved memories, in ``ids`` order. Raises
        InvalidInputError (bad tier or ids), NotFoundError (an unknown id: nothing is moved)."""
        tier, ids = _check_tier(tier), _ids(ids)
        moved: list[tuple[int, str, str, bool, bytes]] = []
        gens: dict[str, int] = {}
        with self._tx() as c:
            rows: dict[str, tuple] = {}
            for i in range(0, len(ids), 900):
                chunk = ids[i : i + 900]
                for r in c.execute(f"SELECT rowid, id, user_id, tier, valid_to, embedding FROM memories WHERE "
                                   f"+tenant=? AND id IN ({','.join('?' * len(chunk))})", [tenant, *chunk]):
                    rows[r[1]] = r
            missing = [i for i in ids if i not in rows]
            if missing:
                raise NotFoundError(f"no memory {missing[0]!r}")
            now = utcnow().timestamp()
            for mid in ids:
                rowid, _, uid, cur, valid_to, blob = rows[mid]
                if cur == tier:
                    continue
                c.execute("UPDATE memories SET tier=?, archived_at=?, updated_at=? WHERE rowid=?",
                          (tier, when.timestamp() if tier == "cold" else None, now, rowid))
                self._history(c, mid, tenant, uid, TIER_EVENTS[tier], None, None, actor, reason)
                moved.append((rowid, mid, uid, valid_to is None, blob))
            for uid in sorted({m[2] for m in moved}):
                gens[uid] = self._bump(c, tenant, uid)
        if self.vectors:
            for uid, gen in gens.items():
                mine = [m for m in moved if m[2] == uid]
                if tier == "cold":
                    self.vectors.apply((tenant, uid), gen - 1, gen, removed=[m[0] for m in mine])
                else:
                    live = [m for m in mine if m[3]]  # only current rows belong in the cached vectors
                    self.vectors.apply((tenant, uid), gen - 1, gen, added=(
                        np.array([m[0] for m in live], dtype=np.int64),
                        np.vstack([np.frombuffer(m[4], dtype="<f4") for m in live]).astype(np.float32),
                        [m[1] for m in live]) if live else None)
        got = self.get_many(tenant, [m[1] for m in moved])
        return [got[m[1]] for m in moved if m[1] in got]

    def merge_memories(self, tenant: str, keep_id: str, dup_ids: list[str], *, when: datetime, actor: str,
                       reason: str | None = None) -> MemoryItem:
        """Merge near-duplicates into ``keep_id`` in one transaction: each duplicate is closed (``valid_to`` =
        ``when``, ``superseded_by`` = ``keep_id``); the kept memory gains their source message ids (order kept,
        no repeats) and access counts (``last_accessed_at`` = the latest). History: ``MERGE`` on every memory
        involved. Returns the kept memory. Raises NotFoundError, ConflictError (a memory that is no longer
        current, or of another user), InvalidInputError (no duplicates, or the kept id among them)."""
        dup_ids = _ids(dup_ids)
        if not dup_ids or keep_id in dup_ids:
            raise InvalidInputError("merge needs duplicate ids other than the kept one")
        removed: list[int] = []
        with self._tx() as c:
            rows, uid = _merge_rows(lambda mid: c.execute(
                "SELECT rowid, user_id, valid_to, source_message_ids, access_count, last_accessed_at FROM memories "
                "WHERE id=? AND tenant=?", (mid, tenant)).fetchone(), keep_id, dup_ids, user_col=1)
            now = utcnow().timestamp()
            why_keep, why_dup = _merge_reasons(keep_id, dup_ids, reason)
            for d in dup_ids:
                c.execute("UPDATE memories SET valid_to=?, superseded_by=?, updated_at=? WHERE rowid=?",
                          (when.timestamp(), keep_id, now, rows[d][0]))
                self._history(c, d, tenant, uid, "MERGE", None, None, actor, why_dup)
                removed.append(rows[d][0])
            k = rows[keep_id]
            sources = _merged_sources(json.loads(k[3] or "[]"), [json.loads(rows[d][3] or "[]") for d in dup_ids])
            accessed = [rows[m][5] for m in rows if rows[m][5] is not None]
            c.execute("UPDATE memories SET source_message_ids=?, access_count=?, last_accessed_at=?, updated_at=? "
                      "WHERE rowid=?", (json.dumps(sources), sum(rows[m][4] for m in rows),
                                        max(accessed) if accessed else None, now, k[0]))
            self._history(c, keep_id, tenant, uid, "MERGE", None, None, actor, why_keep)
            gen = self._bump(c, tenant, uid)
        if self.vectors:
            self.vectors.apply((tenant, uid), gen - 1, gen, removed=removed)
        return self.get(tenant, keep_id)


def _merge_rows(fetch: Callable[[str], Any], keep_id: str, dup_ids: list[str], *,
                user_col: int) -> tuple[dict[str, Any], str]:
    """The rows of a merge (``fetch(id)``: the row or None; ``valid_to`` is the column after ``user_id``) and their
    user. Raises NotFoundError, ConflictError (a memory no longer current, or memories of several users)."""
    rows = {}
    for mid in [keep_id, *dup_ids]:
        r = fetch(mid)
        if r is None:
            raise NotFoundError(f"no memory {mid!r}")
        if r[user_col + 1] is not None:
            raise ConflictError(f"memory {mid!r} is no longer current; it cannot be merged")
        rows[mid] = r
    uid = rows[keep_id][user_col]
    if any(rows[d][user_col] != uid for d in dup_ids):
        raise ConflictError("merged memories must belong to one user")
    return rows, uid


class PostgresTierMixin:
    """Tier moves and merges for the PostgreSQL store (needs ``_run``, ``_history``, ``_bump``, ``get``,
    ``get_many``). Same contract as :class:`SQLiteTierMixin`."""

    _run: Any
    _history: Callable[..., None]
    _bump: Callable[..., int]
    get: Callable[..., MemoryItem]
    get_many: Callable[..., dict[str, MemoryItem]]

    def set_tier(self, tenant: str, ids: list[str], tier: str, *, when: datetime, actor: str,
                 reason: str | None = None) -> list[MemoryItem]:
        """See :meth:`SQLiteTierMixin.set_tier`."""
        tier, ids = _check_tier(tier), _ids(ids)

        def run(conn: Any) -> list[str]:
            rows = {r[0]: r for r in conn.execute(
                "SELECT id, user_id, tier FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, ids)).fetchall()}
            missing = [i for i in ids if i not in rows]
            if missing:
                raise NotFoundError(f"no memory {missing[0]!r}")
            todo = [i for i in ids if rows[i][2] != tier]
            for uid in sorted({rows[i][1] for i in todo}):  # scope rows first, in a fixed order, as writers do
                self._bump(conn, tenant, uid)
            now = utcnow().timestamp()
            for mid in todo:
                uid = rows[mid][1]
                conn.execute("UPDATE memories SET tier = %s, archived_at = %s, updated_at = %s WHERE tenant = %s AND "
                             "user_id = %s AND id = %s",
                             (tier, when.timestamp() if tier == "cold" else None, now, tenant, uid, mid))
                self._history(conn, mid, tenant, uid, TIER_EVENTS[tier], None, None, actor, reason)
            return todo

        moved = self._run(run)
        got = self.get_many(tenant, moved)
        return [got[m] for m in moved if m in got]

    def merge_memories(self, tenant: str, keep_id: str, dup_ids: list[str], *, when: datetime, actor: str,
                       reason: str | None = None) -> MemoryItem:
        """See :meth:`SQLiteTierMixin.merge_memories`."""
        _json = PG_JSON.dump
        dup_ids = _ids(dup_ids)
        if not dup_ids or keep_id in dup_ids:
            raise InvalidInputError("merge needs duplicate ids other than the kept one")

        def run(conn: Any) -> None:
            rows, uid = _merge_rows(lambda mid: conn.execute(
                "SELECT user_id, valid_to, source_message_ids, access_count, last_accessed_at FROM memories "
                "WHERE tenant = %s AND id = %s", (tenant, mid)).fetchone(), keep_id, dup_ids, user_col=0)
            self._bump(conn, tenant, uid)
            locked = conn.execute("SELECT id FROM memories WHERE tenant = %s AND user_id = %s AND id = ANY(%s) AND "
                                  "valid_to IS NULL FOR UPDATE", (tenant, uid, [keep_id, *dup_ids])).fetchall()
            if len(locked) != 1 + len(dup_ids):
                raise ConflictError("a merged memory changed meanwhile; run consolidate again")
            now = utcnow().timestamp()
            why_keep, why_dup = _merge_reasons(keep_id, dup_ids, reason)
            for d in dup_ids:
                conn.execute("UPDATE memories SET valid_to = %s, superseded_by = %s, updated_at = %s WHERE tenant = %s "
                             "AND user_id = %s AND id = %s", (when.timestamp(), keep_id, now, tenant, uid, d))
                self._history(conn, d, tenant, uid, "MERGE", None, None, actor, why_dup)
            sources = _merged_sources(list(rows[keep_id][2] or []), [list(rows[d][2] or []) for d in dup_ids])
            accessed = [rows[m][4] for m in rows if rows[m][4] is not None]
            conn.execute("UPDATE memories SET source_message_ids = %s, access_count = %s, last_accessed_at = %s, "
                         "updated_at = %s WHERE tenant = %s AND user_id = %s AND id = %s",
                         (_json(sources), sum(rows[m][3] for m in rows), max(accessed) if accessed else None, now,
                          tenant, uid, keep_id))
            self._history(conn, keep_id, tenant, uid, "MERGE", None, None, actor, why_keep)

        self._run(run)
        return self.get(tenant, keep_id)
