"""What the SQLite and PostgreSQL stores share beyond the schema (:mod:`.schema`): the reads that are the same
SQL on both engines up to the dialect. A store class sets three dialect names and ``_read``:

- ``_P``: the parameter marker (``"?"`` / ``"%s"``);
- ``_SEQ``: the column giving storage order (``rowid`` / ``seq``);
- ``_SAME``: null-safe equality (``IS`` / ``IS NOT DISTINCT FROM``).

Everything that differs (connections and transactions, the vector layer, the keyword index, writes) lives in the
engine's own module.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import datetime
from typing import Any

from ..errors import NotFoundError
from ..filters import And, Cond, FilterNode
from ..types import HistoryEntry, Scope
from ..timeutil import from_epoch
from .protocol import HISTORY_COLUMNS, MESSAGE_COLUMNS, history_entries, message_dicts

__all__ = ["SQLCommonMixin"]


class SQLCommonMixin:
    """Reads shared by :class:`~.sqlite.SQLiteStore` and :class:`~.postgres.PostgresStore` (see the module
    docstring for the dialect names they set)."""

    _P: str
    _SEQ: str
    _SAME: str
    _read: Any
    _filters: Any

    #: memory kinds that are not a turn of their own (a fact or commitment repeats a clause of a turn; a summary
    #: quotes many): left out of :meth:`adjacent_memories`
    NOT_TURNS = ("fact", "commitment", "summary")

    def adjacent_memories(self, scope: Scope, ids: list[str], *, span: int = 1, where: FilterNode | None = None,
                          as_of: datetime | None = None, window_s: float = 1800.0) -> dict[str, list[tuple[str, int]]]:
        """For each memory id, the turns said just before and after it: ``{id: [(neighbour id, offset)]}``, offset
        in -``span``..-1 (before) and 1..``span`` (after), nearest first on each side.

        Neighbours are the memories of the same session (same ``session_id``, or both without one) said within
        ``window_s`` seconds of it, in the order they were said (time, then order of storing), that are turns
        (kinds :data:`NOT_TURNS` skipped) and pass the scope, ``where`` and ``as_of`` as a search's candidates do
        (current and warm unless ``as_of``). One indexed range read (the user's memories by time) per session among
        the ids (ids of one session said within 2·``window_s`` of each other share it); ids not in the scope are left
        out."""
        if not ids or span <= 0:
            return {}
        p, seq = self._P, self._SEQ
        cond, more = self._in("m.id", ids)
        anchors = self._read(f"SELECT m.id, m.session_id, m.created_at, m.{seq} FROM memories m WHERE m.tenant = {p} "
                             f"AND m.user_id = {p} AND {cond}", [scope.tenant, scope.user_id, *more])
        sql, params = self._filters.where(scope, where, as_of, live=True)
        skip, skip_params = self._in("m.kind", list(self.NOT_TURNS))
        # anchors of one session said close together share one read (top hits often lie in one or two sessions)
        groups: list[list[tuple[Any, ...]]] = []
        for a in sorted(anchors, key=lambda r: (r[1] or "", float(r[2]))):
            if groups and groups[-1][-1][1] == a[1] and float(a[2]) - float(groups[-1][-1][2]) <= 2 * window_s:
                groups[-1].append(a)
            else:
                groups.append([a])
        out: dict[str, list[tuple[str, int]]] = {}
        for group in groups:
            sid, lo, hi = group[0][1], float(group[0][2]) - window_s, float(group[-1][2]) + window_s
            rows = sorted((float(r[1]), int(r[2]), r[0]) for r in self._read(
                f"SELECT m.id, m.created_at, m.{seq} FROM memories m WHERE {sql} AND m.session_id {self._SAME} {p} "
                f"AND m.created_at >= {p} AND m.created_at <= {p} AND NOT ({skip})",
                [*params, sid, lo, hi, *skip_params]))
            for mid, _sid, t, order in group:
                t = float(t)
                near_rows = [r for r in rows if r[2] != mid and abs(r[0] - t) <= window_s]
                i = bisect_left(near_rows, (t, int(order), ""))
                near = [(r[2], -k) for k, r in enumerate(reversed(near_rows[max(0, i - span):i]), start=1)]
                near += [(r[2], k) for k, r in enumerate(near_rows[i:i + span], start=1)]
                if near:
                    out[mid] = near
        return out

    def _in(self, col: str, values: list[Any]) -> tuple[str, list[Any]]:
        """``col`` is one of ``values``: (SQL, parameters) in this dialect."""
        if self._P == "%s":
            return f"{col} = ANY(%s)", [list(values)]
        return f"{col} IN ({','.join('?' * len(values))})", list(values)

    def embedder_info(self) -> tuple[str | None, int | None]:
        """(embedder name, dimension) recorded for this store, (None, None) before the first write."""
        rows = dict(self._read("SELECT key, value FROM meta WHERE key IN ('embedder','embedder_dim')"))
        dim = rows.get("embedder_dim")
        return rows.get("embedder"), int(dim) if dim else None

    def metadata_keys(self, scope: Scope) -> set[str]:
        p = self._P
        return {r[0] for r in self._read(f"SELECT key FROM metadata_keys WHERE tenant = {p} AND user_id = {p}",
                                         (scope.tenant, scope.user_id))}

    def user_ids(self, tenant: str) -> list[str]:
        """Every user of a tenant that has memories."""
        return [r[0] for r in self._read(f"SELECT DISTINCT user_id FROM memories WHERE tenant = {self._P} "
                                         "ORDER BY user_id", (tenant,))]

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        p = self._P
        rows = self._read(f"SELECT {HISTORY_COLUMNS} FROM memory_history WHERE tenant = {p} AND memory_id = {p} "
                          "ORDER BY version", (tenant, memory_id))
        if not rows:
            raise NotFoundError(f"no memory {memory_id!r}")
        return self._said_times(tenant, history_entries(rows))

    def predecessors(self, tenant: str, user_id: str, fact_ids: list[str]) -> dict[str, list[str]]:
        """See :meth:`~.protocol.Store.predecessors` (one read of the ``claims`` table)."""
        if not fact_ids:
            return {}
        p = self._P
        cond, params = self._in("superseded_by", sorted(set(fact_ids)))
        out: dict[str, list[str]] = {}
        for by, mid in self._read(f"SELECT superseded_by, memory_id FROM claims WHERE tenant = {p} AND user_id = {p} "
                                  f"AND {cond} ORDER BY said_at, memory_id", [tenant, user_id, *params]):
            if mid not in out.setdefault(by, []):
                out[by].append(mid)
        return out

    def _said_times(self, tenant: str, entries: list[HistoryEntry]) -> list[HistoryEntry]:
        """Each entry's ``said_at`` (:class:`~anchormem.types.HistoryEntry`) from what it names: an ADD the
        memory's ``valid_from``, a SUPERSEDE its successor's (``reason`` "superseded by <id>"; the memory's own
        ``valid_to`` when that successor is gone), a NOOP the restating message's ``ts``."""
        p = self._P
        ids = {entries[0].memory_id} | {r.split()[2] for e in entries if e.event == "SUPERSEDE" and
                                        (r := e.reason or "").startswith("superseded by ") and len(r.split()) > 2}
        cond, params = self._in("id", sorted(ids))
        times = {r[0]: (r[1], r[2]) for r in self._read(f"SELECT id, valid_from, valid_to FROM memories WHERE "
                                                         f"tenant = {p} AND {cond}", [tenant, *params])}
        turns = [r.split()[-1] for e in entries if e.event == "NOOP" and (r := e.reason or "").startswith(
            "restated in message ")]
        said: dict[str, Any] = {}
        if turns:
            cond, params = self._in("id", sorted(set(turns)))
            said = {r[0]: r[1] for r in self._read(f"SELECT id, ts FROM messages WHERE tenant = {p} AND {cond}",
                                                   [tenant, *params])}
        own = times.get(entries[0].memory_id)
        for e in entries:
            at = None
            if e.event in ("ADD", "ADD_SUPERSEDED") and own is not None:
                at = own[0]
            elif e.event == "SUPERSEDE" and (e.reason or "").startswith("superseded by "):
                by = times.get((e.reason or "").split()[2]) if len((e.reason or "").split()) > 2 else None
                at = by[0] if by is not None else (own[1] if own is not None else None)
            elif e.event == "NOOP" and (e.reason or "").startswith("restated in message "):
                at = said.get((e.reason or "").split()[-1])
            e.said_at = from_epoch(at) if at is not None else None
        return entries

    def messages(self, scope: Scope, ids: list[str] | None = None, *,
                 session_id: str | None = None, last: int | None = None) -> list[dict[str, Any]]:
        p = self._P
        sql = f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE tenant = {p} AND user_id = {p}"
        params: list[Any] = [scope.tenant, scope.user_id]
        if session_id is not None:
            sql += f" AND session_id = {p}"
            params.append(session_id)
        if ids is not None:
            if not ids:
                return []
            cond, more = self._in("id", ids)
            sql += " AND " + cond
            params += more
        if last is not None:  # the newest ``last`` only (an index range scan), returned oldest first
            rows = self._read(sql + f" ORDER BY ts DESC, {self._SEQ} DESC LIMIT {int(last)}", params)
            return message_dicts(rows[::-1])
        return message_dicts(self._read(sql + f" ORDER BY ts, {self._SEQ}", params))

    def has_scheduled_ahead(self, scope: Scope, after: datetime) -> bool:
        """Whether the scope holds a current fact memory scheduled ahead: ``valid_from`` after ``after`` and after the
        time it was said (``created_at``). One indexed read (the partial index of current slot memories; no order,
        so the engine need not walk the scope by time), at most one row."""
        where = And((Cond(field="slot", op="exists", value=True),
                     Cond(field="valid_from", op="gt", value=after.timestamp())))
        sql, params = self._filters.where(scope, where, None)
        # the kind is tested as an expression, not a column, so that no engine reads it through ix_mem_kind (every
        # current row of the kind): the partial index of current slot memories, ix_mem_slot, is the narrower read
        return bool(self._read(f"SELECT 1 FROM memories m WHERE {sql} AND (m.kind || '') = {self._P} "
                               f"AND m.valid_from > m.created_at LIMIT 1", (*params, "fact")))

    def count_messages(self, scope: Scope) -> int:
        """How many messages the scope's user has in the scope's session (``session_id`` None: without one)."""
        p = self._P
        return int(self._read(f"SELECT count(*) FROM messages WHERE tenant = {p} AND user_id = {p} AND "
                              f"session_id {self._SAME} {p}", (scope.tenant, scope.user_id, scope.session_id))[0][0])
