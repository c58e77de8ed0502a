"""The stores' schema in one place: the tables, the columns of a memory row, how a row maps to a
:class:`~anchormem.types.MemoryItem` and back, and how JSON columns are encoded on each engine. Both SQL stores
(:mod:`.sqlite`, :mod:`.postgres`) and their mixins read these names from here; nothing here imports a store.

Tables (DDL: :mod:`.migrations` for SQLite, :mod:`.pg_migrations` for PostgreSQL; same columns, same meaning):

- ``memories``: one row per memory version: :data:`MEMORY_COLUMNS` plus ``content_hash`` (the dedupe key, with
  tenant, user, agent, kind and source: a unique index over the *current* rows), ``embedding`` (float32 vector:
  a little-endian blob in SQLite, ``vector(dim)`` in PostgreSQL) and ``context_vec`` (the conversation's context
  vector, :mod:`.context_vectors`). Row identity: SQLite ``rowid`` (also the FTS5 row and the vector cache's
  key), PostgreSQL ``seq`` (storage order) with the primary key ``(tenant, user_id, id)``. A search writes
  ``access_count`` and ``last_accessed_at`` of its hits (``Store.touch``): no index may cover these two columns
  (nor use them in an expression or a predicate), and PostgreSQL keeps 30% of each ``memories`` page free
  (fillfactor 70, :data:`.pg_migrations.MEMORIES_FILLFACTOR`), so that write is a HOT update that adds no entry to
  any index (the HNSW graph included). SQLite updates only the indexes whose columns change: none for this write.
- the keyword index: SQLite ``memories_fts`` (FTS5: ``scope`` = :func:`scope_token`, ``body`` = the jieba-segmented
  ``index_text``; ranked by the in-process index of :mod:`.keyword_index`, fed by ``keyword_log``: the rowids
  triggers on ``memories`` record), PostgreSQL the ``tsv`` column of ``memories`` (``simple`` + ``english``
  configs, GIN index).
- ``messages`` (verbatim turns, :data:`~.protocol.MESSAGE_COLUMNS`), ``memory_history`` (one row per event,
  :data:`~.protocol.HISTORY_COLUMNS`), ``memory_entities`` (typed entities per memory), ``metadata_keys``
  (the metadata keys a user's memories use), ``scope_state`` (generation per user, :mod:`.generation`),
  ``review_queue`` (:mod:`.review_sql`), ``claims`` and ``memory_entities_past`` (:mod:`.claims_sql`),
  ``memory_sessions`` (:mod:`.sessions_sql`), ``pii_vault`` (:mod:`.pii_vault`), ``meta`` (store id, embedder).

Timestamps are epoch seconds (float, UTC) on both engines. JSON columns (``labels``, ``metadata``,
``source_message_ids``, ``fact``; ``messages.metadata``) are TEXT in SQLite and ``jsonb`` in PostgreSQL: a
:class:`JsonCodec` says how one engine writes and reads them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..types import Claim, Entity, FactSlot, Label, MemoryItem

__all__ = ["correction_mark", "correction_note", "MEMORY_COLUMNS", "MEMORY_COLS", "JsonCodec", "SQLITE_JSON", "PG_JSON", "epoch", "memory_values",
           "memory_item", "sorted_claims", "entity", "memory_cols", "scope_token", "fts_quote", "json_text",
           "with_entity_list", "KIND_INDEX"]

# the columns of a memory row that make a MemoryItem, in this order (entities and claims live in their tables)
MEMORY_COLUMNS: tuple[str, ...] = (
    "id", "tenant", "user_id", "agent_id", "session_id", "kind", "text", "role", "speaker", "source", "created_at",
    "updated_at", "event_time", "event_time_end", "valid_from", "valid_to", "confidence", "labels", "metadata",
    "source_message_ids", "source_text", "superseded_by", "access_count", "last_accessed_at", "expires_at", "slot",
    "fact", "tier", "archived_at")
MEMORY_COLS = ", ".join(MEMORY_COLUMNS)


def correction_note(new: MemoryItem, old_id: str) -> str:
    """What a SUPERSEDE history row adds after "superseded by <id>" when ``new`` is a self-correction of ``old_id``
    (``metadata["corrects"]``, :mod:`anchormem.facts.corrections`): " (corrected: it never held)"; else ""."""
    return " (corrected: it never held)" if new.metadata.get("corrects") == old_id else ""


def correction_mark(new: MemoryItem, old_id: str, by: str) -> dict[str, str]:
    """The metadata a memory closed by ``new`` takes (merged into its own): ``{"corrected_by": by}`` when ``new`` is
    a self-correction of ``old_id`` (the value it took back never held; :func:`anchormem.facts.claims.corrected_note`),
    else ``{}``."""
    return {"corrected_by": by} if new.metadata.get("corrects") == old_id else {}


def memory_cols(alias: str) -> str:
    """:data:`MEMORY_COLS` qualified with a table alias (``"m"`` → ``"m.id, m.tenant, ..."``)."""
    return ", ".join(f"{alias}.{c}" for c in MEMORY_COLUMNS)


def epoch(dt: datetime | None) -> float | None:
    """A datetime as epoch seconds (None stays None): how every timestamp column is stored."""
    return None if dt is None else dt.timestamp()


def json_text(obj: Any) -> str:
    """JSON text as the SQLite store writes it (UTF-8 kept, unknown objects as ``str``)."""
    return json.dumps(obj, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class JsonCodec:
    """How an engine writes (``dump``) and reads (``load``) a JSON column, and the ``fact`` column."""

    dump: Callable[[Any], Any]
    load: Callable[[Any], Any]
    dump_fact: Callable[[FactSlot], Any]
    load_fact: Callable[[Any], FactSlot]


def _pg_dump(obj: Any) -> Any:
    from psycopg.types.json import Jsonb  # the optional driver; only a PostgreSQL store reaches this

    return Jsonb(obj, dumps=json_text)


SQLITE_JSON = JsonCodec(dump=json_text, load=json.loads, dump_fact=lambda f: f.model_dump_json(),
                        load_fact=FactSlot.model_validate_json)
# psycopg decodes jsonb to Python objects on read
PG_JSON = JsonCodec(dump=_pg_dump, load=lambda v: v, dump_fact=lambda f: _pg_dump(f.model_dump()),
                    load_fact=FactSlot.model_validate)


def memory_values(it: MemoryItem, codec: JsonCodec, *, imported: bool = False) -> tuple[Any, ...]:
    """The :data:`MEMORY_COLUMNS` values of a memory to insert. A new memory (``imported`` False) starts with no
    ``updated_at``, no accesses; an imported one keeps them as exported."""
    return (it.id, it.tenant, it.user_id, it.agent_id, it.session_id, it.kind, it.text, it.role, it.speaker,
            it.source, it.created_at.timestamp(), epoch(it.updated_at) if imported else None, epoch(it.event_time),
            epoch(it.event_time_end), it.valid_from.timestamp(), epoch(it.valid_to), it.confidence,
            codec.dump([lb.model_dump() for lb in it.labels]), codec.dump(it.metadata),
            codec.dump(list(it.source_message_ids)), it.source_text, it.superseded_by,
            it.access_count if imported else 0, epoch(it.last_accessed_at) if imported else None,
            epoch(it.expires_at), it.fact.slot if it.fact else None, codec.dump_fact(it.fact) if it.fact else None,
            it.tier, epoch(it.archived_at))


def memory_item(r: Sequence[Any], codec: JsonCodec, entities: list[Entity], claims: list[Claim]) -> MemoryItem:
    """A row of :data:`MEMORY_COLUMNS` (in order) as a MemoryItem, with its entities and claims (oldest said first,
    then in the order the text states them). The row is as a
    store wrote it (every value validated then), so the item is built without validating it again (a search decodes
    ~100 candidate rows: validation was a third of that); its labels and fact are validated. A ``valid_from`` equal to
    ``created_at`` (most rows) shares its datetime (immutable), and ``source_message_ids`` is split without the JSON
    parser when written as :func:`json_text` writes it (:func:`_ids`)."""
    load, fact = codec.load, r[26]
    claims = sorted_claims(claims, r[6])
    created = _dt(r[10], _UTC)
    return _trusted(MemoryItem, {
        "id": r[0], "text": r[6], "tenant": r[1], "user_id": r[2], "agent_id": r[3], "session_id": r[4],
        "kind": r[5], "role": r[7], "speaker": r[8], "source": r[9], "created_at": created,
        "updated_at": None if r[11] is None else _dt(r[11], _UTC),
        "event_time": None if r[12] is None else _dt(r[12], _UTC),
        "event_time_end": None if r[13] is None else _dt(r[13], _UTC),
        "valid_from": created if r[14] == r[10] else _dt(r[14], _UTC),
        "valid_to": None if r[15] is None else _dt(r[15], _UTC), "confidence": float(r[16]),
        "labels": [] if r[17] == "[]" else [Label(**x) for x in _load(load, r[17], "[]")], "entities": entities,
        "metadata": _load(load, r[18], "{}"), "source_message_ids": _ids(load, r[19]), "source_text": r[20],
        "superseded_by": r[21], "access_count": r[22],
        "last_accessed_at": None if r[23] is None else _dt(r[23], _UTC),
        "expires_at": None if r[24] is None else _dt(r[24], _UTC), "fact": codec.load_fact(fact) if fact else None,
        "tier": r[27], "archived_at": None if r[28] is None else _dt(r[28], _UTC), "claims": claims})


def sorted_claims(claims: list[Claim], text: str) -> list[Claim]:
    """A memory's ``claims`` as its item lists them: oldest said first, then in the order ``text`` states them (fact
    ids are random); the list itself when it has one claim or none."""
    if len(claims) > 1:
        return sorted(claims, key=lambda c: (c.said_at, _at(text, c.span)))
    return claims


def _at(text: str, span: str) -> int:
    """Where ``span`` starts in ``text`` (its length when ``span`` is empty or not in it)."""
    k = text.find(span) if span else -1
    return k if k >= 0 else len(text)


_dt, _UTC = datetime.fromtimestamp, timezone.utc  # from_epoch without a call per column (~100 rows a search)


def with_entity_list(item: MemoryItem, entities: list[Entity]) -> MemoryItem:
    """``item`` (as :func:`memory_item` built it) with ``entities``: a copy, the other fields shared."""
    return _trusted(MemoryItem, {**item.__dict__, "entities": entities})


def entity(type_: str, value: str, normalized: str | None) -> Entity:
    """An entity row (``memory_entities``: type, value, normalized) as an Entity, as written (not validated again)."""
    return _trusted(Entity, {"type": type_, "value": value, "normalized": normalized})


_EMPTY: dict[str, Callable[[], Any]] = {"[]": list, "{}": dict}


def _load(load: Callable[[Any], Any], value: Any, empty: str) -> Any:
    """A JSON column's value; the empty list or object (most rows' labels, metadata) without the parser."""
    return _EMPTY[empty]() if value == empty else load(value)


def _ids(load: Callable[[Any], Any], value: Any) -> Any:
    """The ``source_message_ids`` column: a JSON list of ids. As :func:`json_text` writes it (``'["a", "b"]'``, no
    escape: an id holds no quote nor backslash) it is split without the parser (~100 candidate rows a search, one
    list each: the parser was ~40% of decoding a row); anything else (an escape, other spacing, jsonb already
    decoded) goes through ``load``. The same list either way."""
    if value.__class__ is str and len(value) >= 4 and "\\" not in value and value[:2] == '["' and value[-2:] == '"]':
        inner = value[2:-2]
        parts = inner.split('", "')
        if inner.count('"') == 2 * (len(parts) - 1):  # every quote is a separator's: no element holds one
            return parts
    return _load(load, value, "[]")


def _trusted(cls: type, values: dict[str, Any]) -> Any:
    """An instance of the pydantic model ``cls`` holding ``values`` (every field, in declaration order) without
    validation: what ``model_construct`` does, without its per-field default handling (tests/test_store.py checks
    the result equals the validated model)."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


# ---------------------------------------------------------------- indexes both engines create alike
KIND_INDEX = ("CREATE INDEX IF NOT EXISTS ix_mem_kind ON memories (tenant, user_id, kind, created_at) "
              "WHERE valid_to IS NULL")
"""The user's current rows of one kind, oldest first (SQLite's migration v10, PostgreSQL's v11): a listing of one
kind (``get_all(filters={"kind": "fact"})``; ``Memory.due``: ``kind = 'commitment'``) reads that kind's current rows
in listing order (``ORDER BY created_at`` then row id: SQLite's index ends with the rowid) and stops at its
``limit``, instead of testing every row of the scope. Partial (``valid_to IS NULL``): a superseded row leaves it, so
completed commitments and replaced facts do not lengthen the walk; a listing with superseded rows reads as before."""


# ---------------------------------------------------------------- SQLite's keyword index (memories_fts)
def scope_token(tenant: str, user_id: str) -> str:
    """The FTS token that tags a user's rows, so keyword search touches only that user's postings."""
    return "s" + hashlib.sha1(f"{tenant}\x00{user_id}".encode("utf-8")).hexdigest()[:24]


def fts_quote(term: str) -> str:
    """A term as an FTS5 string (double quotes doubled)."""
    return '"' + term.replace('"', '""') + '"'
