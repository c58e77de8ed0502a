"""The SQLite store's reads of the rows a search ranked: the entities of the hits it returns (the candidates are
read without them: ``get_many(..., entities=False)``), and the memory ids of ranked rowids, kept per scope until
its next write so a search maps its dense and keyword rowids without a query each time."""

from __future__ import annotations

from typing import Any

from ..types import Entity, MemoryItem, Scope
from .rank_rows import RANK_COLS, RankRow, rank_row, whole_item
from .schema import SQLITE_JSON, entity, with_entity_list

__all__ = ["SQLiteRowReadsMixin"]


class SQLiteRowReadsMixin:
    """:meth:`get_many`, :meth:`with_entities`, ``_entities`` and ``_row_ids`` of :class:`~.sqlite.SQLiteStore`.
    Needs ``_read``, ``_items``, ``_ROW_COLS`` (a memory row's columns led by its rowid),
    ``_generation`` and ``_rowid_ids`` ((tenant, user) -> (generation, {rowid: memory id}): a deleted rowid may be
    reused by a new row, so a map holds for one generation of its scope; dropped on purge) and ``_recent_rowids``
    ({memory id: rowid} of the rows the last searches ranked: a hint, checked against the row read)."""

    _read: Any
    _generation: Any
    _items: Any
    _ROW_COLS: str
    _RANK_COLS = "rowid, " + RANK_COLS  # the columns a search ranks on (.rank_rows), led by the rowid
    _claims: Any
    _rank_cache: dict[tuple[str, str], tuple[int, dict[int, tuple]]]  # (tenant, user) -> (generation, rows)
    _rowid_ids: dict[tuple[str, str], tuple[int, dict[int, str]]]
    _recent_rowids: dict[str | None, int]
    _touches: Any  # .touches: the access counts of searches not written yet
    _pending_counts: Any
    _pending_times: Any

    def _entities(self, rowids: list[int]) -> dict[int, list[Entity]]:
        """{memory rowid: its entities, in the order written} (rows without entities left out)."""
        ents: dict[int, list[Entity]] = {}
        for i in range(0, len(rowids), 900):
            chunk = rowids[i : i + 900]
            q = f"SELECT memory_rowid, type, value, normalized FROM memory_entities WHERE memory_rowid IN " \
                f"({','.join('?' * len(chunk))}) ORDER BY rowid"
            for rid, t, v, n in self._read(q, chunk):
                ents.setdefault(rid, []).append(entity(t, v, n))
        return ents

    def with_entities(self, tenant: str, items: list[MemoryItem]) -> list[MemoryItem]:
        ents: dict[str, list[Entity]] = {}
        ids = [it.id for it in items]
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            for mid, t, v, n in self._read(
                    "SELECT m.id, e.type, e.value, e.normalized FROM memories m JOIN memory_entities e ON "
                    f"e.memory_rowid = m.rowid WHERE +m.tenant=? AND m.id IN ({','.join('?' * len(chunk))}) "
                    "ORDER BY e.rowid", [tenant, *chunk]):
                ents.setdefault(mid, []).append(entity(t, v, n))
        return [with_entity_list(it, ents.get(it.id, [])) for it in items]

    _RANK_MAX = 1 << 18  # rank rows kept per scope (a few hundred bytes each) before its cache starts over
    _RANK_SCOPES = 64  # scopes whose rank rows are kept (the oldest started is dropped first)

    def rank_rows(self, scope: Scope, ids: list[str]) -> dict[str, RankRow]:
        """{id: the memory's :class:`~.rank_rows.RankRow`} of ``ids`` in ``scope`` (missing ones left out), ordered
        by id as :meth:`get_many` orders them: the columns a search ranks its candidates on.

        Kept per scope for one generation (``_rank_cache``, at most ``_RANK_SCOPES`` scopes of ``_RANK_MAX`` rows:
        every write to the scope's rows raises it, so a kept row is the stored one; a purge drops it,
        :meth:`_forget_row_ids`), except the access count, which a search's ``touch`` bumps without a new
        generation: it is read fresh with the rows' ids, by rowid where a search just mapped it
        (``_recent_rowids``). A row not kept, or not mapped, is read (its rank columns) and kept."""
        key = (scope.tenant, scope.user_id)
        gen = self._generation(*key)
        got = self._rank_cache.get(key)
        if got is None or got[0] != gen or len(got[1]) > self._RANK_MAX:
            got = (gen, {})
            cache = self._rank_cache
            cache.pop(key, None)
            cache[key] = got  # the newest scope last: the oldest goes first past _RANK_SCOPES
            while len(cache) > self._RANK_SCOPES:
                cache.pop(next(iter(cache)), None)
        kept = got[1]
        out: dict[str, RankRow] = {}
        get = self._recent_rowids.get
        want = {r: i for i in ids if (r := get(i)) is not None}
        if want and len(want) <= 900:
            have = [r for r in want if r in kept]
            if have:  # kept rows: their ids (a rowid reused by another row is read by id below) and access counts
                # (with the bumps of searches not written yet: .touches)
                pending = self._pending_counts(scope.tenant, [want[r] for r in have])
                for rid, mid, count in self._read("SELECT rowid, id, access_count FROM memories WHERE +tenant=? AND "
                                                  f"rowid IN ({','.join('?' * len(have))})", [scope.tenant, *have],
                                                  overlay=True):
                    if want[rid] == mid:
                        row = kept[rid]
                        count += pending.get(mid, 0)
                        out[mid] = RankRow(row if row[19] == count else row[:19] + (count,) + row[20:])
            if len(have) < len(want):
                self._rank_read(scope, kept, out, "rowid", [r for r in want if r not in kept], want)
        rest = [i for i in ids if i not in out]
        if rest:
            self._rank_read(scope, kept, out, "id", rest)
        return dict(sorted(out.items()))

    def _rank_read(self, scope: Scope, kept: dict[int, tuple], out: dict[str, RankRow], by: str,
                   values: list[Any], expect: dict[int, str] | None = None) -> None:
        """Read the rank columns of the rows whose ``by`` (``"rowid"`` or ``"id"``) is in ``values`` (of
        ``scope``'s tenant) into ``out`` ({id: RankRow}), and keep those of ``scope``'s user in ``kept``
        ({rowid: :func:`~.rank_rows.rank_row` tuple}). ``expect``: {rowid: id} the rows must hold (a row holding
        another id is left out)."""
        rows: list[tuple] = []
        for i in range(0, len(values), 900):
            chunk = values[i : i + 900]
            rows += self._read(f"SELECT {self._RANK_COLS} FROM memories WHERE +tenant=? AND {by} IN "
                               f"({','.join('?' * len(chunk))})", [scope.tenant, *chunk], overlay=True)
        if expect is not None:
            rows = [r for r in rows if expect.get(r[0]) == r[1]]
        if not rows:
            return
        if by == "id":  # read by rowid next time (:meth:`_rows_by_rowid`), kept rows too
            self._remember_rowids([r[0] for r in rows], [r[1] for r in rows])
        claims = self._claims.load(self._read, {scope.tenant: [r[1] for r in rows]})
        pending = self._pending_counts(scope.tenant, [r[1] for r in rows])  # bumps not written yet (.touches)
        for r in rows:
            row = rank_row(r[1:], SQLITE_JSON, claims.get((r[2], r[1]), []))
            n = pending.get(r[1])
            out[r[1]] = RankRow(row if n is None else row[:19] + (row[19] + n,) + row[20:])
            if r[3] == scope.user_id:
                kept[r[0]] = row  # as stored: a kept row's count is read again each time

    def whole_rows(self, tenant: str, rows: list[RankRow]) -> dict[str, MemoryItem]:
        """{id: the whole MemoryItem, entities included} of the memories of ``rows`` (as :meth:`rank_rows` read
        them in this search; a memory gone since is left out): the columns a RankRow lacks and the entities read in
        one query, the rest taken from the row (labels and claims copied: an item is the caller's to change)."""
        out: dict[str, MemoryItem] = {}
        have = {r.id: r for r in rows}
        rest: dict[str, tuple] = {}
        ents: dict[str, list[Entity]] = {}
        for i in range(0, len(rows), 900):
            chunk = list(have)[i : i + 900]
            for mid, *cols, t, v, n in self._read(
                    "SELECT m.id, m.updated_at, m.metadata, m.source_text, m.last_accessed_at, m.fact, m.archived_at, "
                    "e.type, e.value, e.normalized FROM memories m LEFT JOIN memory_entities e ON e.memory_rowid = "
                    f"m.rowid WHERE +m.tenant=? AND m.id IN ({','.join('?' * len(chunk))}) ORDER BY e.rowid",
                    [tenant, *chunk], overlay=True):
                rest.setdefault(mid, cols)
                if t is not None:
                    ents.setdefault(mid, []).append(entity(t, v, n))
        for mid, when in self._pending_times(tenant, rest).items():
            rest[mid][3] = when  # last_accessed_at of a search not written yet (.touches; the count is the row's)
        for mid, cols in rest.items():
            out[mid] = whole_item(have[mid], cols, SQLITE_JSON, ents.get(mid, []))
        return out

    def get_many(self, tenant: str, ids: list[str], *, entities: bool = True) -> dict[str, MemoryItem]:
        out: dict[str, MemoryItem] = {}
        rows = self._rows_by_rowid(tenant, ids)
        if rows:  # the ids this process just mapped from rowids: read by rowid (no id index walk per row)
            out.update((it.id, it) for it in self._items(rows, entities))
            rest = [i for i in ids if i not in out]
            if rest:
                out.update(self.get_many(tenant, rest, entities=entities))
            return dict(sorted(out.items()))  # by id, as the id index returns them
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            # "+tenant": look rows up by the unique id index, not by scanning the (tenant, user_id) index
            rows = self._read(f"SELECT {self._ROW_COLS} FROM memories WHERE +tenant=? AND id IN "
                              f"({','.join('?' * len(chunk))})", [tenant, *chunk])
            out.update((it.id, it) for it in self._items(rows, entities))
        return out

    _RECENT_MAX = 8192  # id -> rowid entries of the last searches' candidates (``_recent_rowids``)

    def _remember_rowids(self, rowids: list[int], ids: list[str | None]) -> None:
        """Keep id -> rowid of the rows a search's dense and keyword stages just ranked (``ids``: their ids, None
        for a row gone), so :meth:`get_many` reads their rows by rowid. Bounded: starts over past
        :data:`_RECENT_MAX`."""
        recent = self._recent_rowids
        if len(recent) > self._RECENT_MAX:
            recent.clear()
        recent.update(zip(ids, rowids))

    def _forget_row_ids(self, key: tuple[str, str]) -> None:
        """Drop the scope's rowid map, its kept rank rows and every id -> rowid hint (a purge: nothing of the purged
        rows stays)."""
        self._rowid_ids.pop(key, None)
        self._recent_rowids.clear()
        self._rank_cache.pop(key, None)

    def _rows_by_rowid(self, tenant: str, ids: list[str], cols: str | None = None) -> list[tuple]:
        """The memory rows (``cols``: columns led by rowid then id, ``_ROW_COLS`` by default) of those ``ids`` whose
        rowid a search just mapped (``_recent_rowids``), read by rowid; a row whose id is not the one expected
        there (deleted, its rowid reused) is left out, so the caller reads it by id. Nothing for ids not mapped."""
        get = self._recent_rowids.get
        want = {r: i for i in ids if (r := get(i)) is not None}
        if not want or len(want) > 900:
            return []
        rows = self._read(f"SELECT {cols or self._ROW_COLS} FROM memories WHERE +tenant=? AND rowid IN "
                          f"({','.join('?' * len(want))})", [tenant, *want])
        return [r for r in rows if want.get(r[0]) == r[1]]

    _ROW_IDS_MAX = 1 << 20  # rowid -> id entries kept per scope (~100 B each) before the map starts over

    def _fill_row_ids(self, key: tuple[str, str], gen: int, rowids: list[int], ids: list[str]) -> None:
        """Start the scope's map at generation ``gen`` with every row of the scope's vectors (read with them, at
        ``gen``): a search then maps its dense and keyword rowids without a query (at 100k memories the lazily
        filled map missed most rowids of a search)."""
        if len(rowids) <= self._ROW_IDS_MAX:
            self._rowid_ids[key] = (gen, dict(zip(rowids, ids)))

    def _keep_row_ids(self, gens: dict[tuple[str, str], int]) -> None:
        """After a commit of this store that deleted no row (new rows, closed rows, new labels...): each scope's
        map held at the generation just before moves to the new one (a rowid still names the same memory: only a
        deleted row frees its rowid). A map another process's write left behind stays behind (and starts over)."""
        for key, gen in gens.items():
            got = self._rowid_ids.get(key)
            if got is not None and got[0] == gen - 1:
                self._rowid_ids[key] = (gen, got[1])

    def _row_ids(self, key: tuple[str, str], gen: int, rowids: list[int]) -> dict[int, str]:
        """{rowid: memory id} holding ``rowids`` of the scope ``key`` at generation ``gen`` (rows gone are left
        out), from the map kept since the scope's last write; the rowids it lacks are read in one query."""
        return {r: i for r, i in zip(rowids, self._ids_of(key, gen, rowids)) if i is not None}

    def _ids_of(self, key: tuple[str, str], gen: int, rowids: list[int],
                known: list[str | None] | None = None) -> list[str | None]:
        """The memory id of each of ``rowids`` (in order; None: no such row) of the scope ``key`` at generation
        ``gen``: ``known`` (the ids the scope's cached vectors hold for them, :meth:`.vectors.ScopeVectors.keys_at`;
        None where they hold none), else from the map kept since the scope's last write (one lookup per rowid);
        the rowids neither has are read in one query."""
        if known is not None and None not in known:
            self._remember_rowids(rowids, known)
            return known
        got = self._rowid_ids.get(key)
        if got is None or got[0] != gen or len(got[1]) > self._ROW_IDS_MAX:
            got = (gen, {})
            self._rowid_ids[key] = got
        idmap = got[1]
        get = idmap.get
        out = [get(r) if known is None or known[j] is None else known[j] for j, r in enumerate(rowids)]
        if None in out:
            miss = [r for r, i in zip(rowids, out) if i is None]
            rows = self._read(f"SELECT rowid, id FROM memories WHERE rowid IN ({','.join('?' * len(miss))})", miss)
            if self._generation(*key) == gen:  # no write since gen: the rows are those of gen (else not kept)
                idmap.update(rows)
                found = idmap
            else:
                found = dict(rows)
            out = [i if i is not None else found.get(r) for r, i in zip(rowids, out)]
        self._remember_rowids(rowids, out)
        return out
