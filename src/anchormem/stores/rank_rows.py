"""The columns of a stored memory that a search ranks on, read for its ~100 candidates instead of whole rows.

A search fuses ~200 candidates, reads the 100 best-fused, scores, anchors, collapses and orders them, and returns
``limit`` (10 by default). Every step between the read and the return reads a fixed set of a memory's fields (its
text, kind, speaker, session, times, labels, source turns, validity, access count, claims: :data:`RANK_COLUMNS`),
never its metadata, source text, fact, entities, update or archive times. :class:`RankRow` holds just those fields,
decoded exactly as :func:`.schema.memory_item` decodes them (the same values, so the same scores, order and
explain), and :meth:`Searcher.search <anchormem.retrieval.search.Searcher.search>` reads the whole rows of the hits it
returns only (``Store.get_many``). At 100k memories reading and decoding the candidates' whole rows was the largest
stage of the default search (docs/benchmarks.md).

A store offers the narrow read as ``rank_rows(scope, ids) -> {id: RankRow}`` (ids missing are left out, ordered by
id as ``get_many`` orders them) and ``whole_rows(tenant, rows) -> {id: MemoryItem}`` (the returned hits: the
columns a RankRow lacks and the entities, :func:`whole_item`); a store without them (PostgreSQL today) is read whole
(``get_many``), with the same results. The SQLite store keeps the rows it read for the scope's generation
(:meth:`.row_reads.SQLiteRowReadsMixin.rank_rows`), so a candidate ranked again costs its access count only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from ..types import Claim, Entity, Label, MemoryItem, validity_state
from .schema import JsonCodec, _dt, _ids, _load, _trusted, _UTC, sorted_claims

__all__ = ["RANK_COLUMNS", "RANK_COLS", "RankRow", "rank_row", "whole_item"]

# the columns a RankRow is built from, in this order (claims live in their table); a subset of MEMORY_COLUMNS
RANK_COLUMNS: tuple[str, ...] = (
    "id", "tenant", "user_id", "agent_id", "session_id", "kind", "text", "role", "speaker", "source", "created_at",
    "event_time", "event_time_end", "valid_from", "valid_to", "confidence", "labels", "source_message_ids",
    "superseded_by", "access_count", "expires_at", "tier")
RANK_COLS = ", ".join(RANK_COLUMNS)

_FIELDS = RANK_COLUMNS + ("claims",)


class RankRow(tuple):  # type: ignore[type-arg]
    """The fields of a stored memory a search ranks on (:data:`RANK_COLUMNS` and ``claims``), read by attribute as
    on a :class:`~anchormem.types.MemoryItem` (same names, same values, ``labels``, ``source_message_ids`` and
    ``claims`` as tuples; ``current``, ``state`` and an empty ``entities`` as a candidate read without entities
    has). Any other MemoryItem field (``metadata``, ``fact``, ``source_text``...) raises AttributeError: the
    ranking never reads one. Immutable: ``RankRow(rank_row(...))``; a search's rows are made of the tuples a store
    keeps (:func:`rank_row`), so they die with the search."""

    __slots__ = ()

    @property
    def current(self) -> bool:
        """:attr:`MemoryItem.current <anchormem.types.MemoryItem.current>`."""
        return validity_state(self[13], self[14], self[10]) == "current"

    @property
    def state(self) -> str:
        """:attr:`MemoryItem.state <anchormem.types.MemoryItem.state>`."""
        state = validity_state(self[13], self[14], self[10])
        if state != "current":
            return state
        return "partly_superseded" if any(c.state == "superseded" for c in self[22]) else "current"

    @property
    def entities(self) -> tuple:
        """Empty: the hits' entities are read with their whole rows."""
        return ()

    def __repr__(self) -> str:
        return f"RankRow(id={self[0]!r}, kind={self[5]!r}, text={self[6]!r})"


for _i, _name in enumerate(_FIELDS):
    setattr(RankRow, _name, property(itemgetter(_i), doc=f"The memory's ``{_name}`` (as on MemoryItem)."))


def rank_row(r: Sequence[Any], codec: JsonCodec, claims: list[Claim]) -> tuple:
    """A row of :data:`RANK_COLUMNS` (in order) with its ``claims`` as the plain tuple a :class:`RankRow` wraps,
    each value as :func:`.schema.memory_item` decodes it (datetimes in UTC, ``valid_from`` sharing ``created_at``
    when equal, labels validated, claims oldest said first), the lists (labels, source turns, claims) as tuples: a
    row without labels or claims then holds no container the garbage collector tracks, so a store keeping many
    (:meth:`.row_reads.SQLiteRowReadsMixin.rank_rows`) adds nothing to a collection's work."""
    load: Callable[[Any], Any] = codec.load
    created = _dt(r[10], _UTC)
    return (
        r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], created,
        None if r[11] is None else _dt(r[11], _UTC), None if r[12] is None else _dt(r[12], _UTC),
        created if r[13] == r[10] else _dt(r[13], _UTC), None if r[14] is None else _dt(r[14], _UTC), float(r[15]),
        () if r[16] == "[]" else tuple(Label(**x) for x in _load(load, r[16], "[]")), tuple(_ids(load, r[17])),
        r[18], r[19], None if r[20] is None else _dt(r[20], _UTC), r[21], tuple(sorted_claims(claims, r[6])))


def whole_item(row: RankRow, rest: Sequence[Any], codec: JsonCodec, entities: list[Entity]) -> MemoryItem:
    """The MemoryItem :func:`.schema.memory_item` builds from the whole stored row, from ``row`` and the columns it
    lacks (``rest``: updated_at, metadata, source_text, last_accessed_at, fact, archived_at) with ``entities``: the
    same values (labels and claims copied, lists again)."""
    return _trusted(MemoryItem, {
        "id": row[0], "text": row[6], "tenant": row[1], "user_id": row[2], "agent_id": row[3], "session_id": row[4],
        "kind": row[5], "role": row[7], "speaker": row[8], "source": row[9], "created_at": row[10],
        "updated_at": None if rest[0] is None else _dt(rest[0], _UTC), "event_time": row[11],
        "event_time_end": row[12], "valid_from": row[13], "valid_to": row[14], "confidence": row[15],
        "labels": [lab.model_copy() for lab in row[16]], "entities": entities,
        "metadata": _load(codec.load, rest[1], "{}"), "source_message_ids": list(row[17]), "source_text": rest[2],
        "superseded_by": row[18], "access_count": row[19],
        "last_accessed_at": None if rest[3] is None else _dt(rest[3], _UTC), "expires_at": row[20],
        "fact": codec.load_fact(rest[4]) if rest[4] else None, "tier": row[21],
        "archived_at": None if rest[5] is None else _dt(rest[5], _UTC), "claims": [c.model_copy() for c in row[22]]})
