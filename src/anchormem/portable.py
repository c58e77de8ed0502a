"""Read exports back: anchormem's own portable format (``anchormem.export/1``, losslessly) and mem0's export shape.

:meth:`Memory.export` writes an ``anchormem.export/1`` document; :func:`import_memories` (``Memory.import_memories``)
reads it into any store: every message, memory and history row with its original id, timestamps, validity,
labels, entities and metadata, exactly as exported. Only the vectors are not in the document: they are
re-embedded with the target's embedder (so an export from another embedder is fine), and the keyword index is
rebuilt as :meth:`Memory.add` builds it. The models below are the format's schema; docs/portable.md lists the
fields. A new incompatible version of the format gets a new ``format`` string; unknown fields are rejected.

mem0 (``Memory.get_all()`` / the platform's ``get_all``): ``{"results": [item, ...]}`` or a bare list of items;
see :class:`Mem0Item` for the fields read and :func:`import_mem0` for the mapping.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import InvalidInputError
from .ingest.classify import memory_hash
from .ingest.keys import memory_keys, parse_key_kinds
from .ingest.normalize import check_scope_id, check_text
from .ingest.pipeline import embedding_text, time_terms
from .lifecycle import assign_expiry, check_expiry_metadata
from .memory import EXPORT_FORMAT
from .stores.protocol import NewMemory, StoredMessage
from .text.dates import resolve_dates
from .text.entities import extract_entities
from .text.tokenize import index_text
from .timeutil import to_aware, to_utc, utcnow
from .types import HistoryEntry, MemoryItem, ReviewItem, Role, Scope
from .validate import check_json

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["EXPORT_FORMAT", "ExportDocument", "ExportMessage", "ExportEmbedder", "ExportMemory", "ExportHistory",
           "ExportReview", "Mem0Item", "export_document", "import_memories", "import_export", "import_mem0", "parse_export", "detect_format",
           "EMBED_BATCH", "MEM0_CONFIDENCE"]

EMBED_BATCH = 256  # texts per embed_documents call
MEM0_CONFIDENCE = 0.7  # another system's LLM wrote the text: below the user's own words (1.0), above assistant (0.5)
_MEM0_NS = uuid.UUID("6f1d2c4e-8a57-4b0e-9a53-3c1e7f0d2b91")  # ids of imported mem0 items: uuid5(ns, user + id)
_META_BAD = re.compile(r"[^\w\-]", re.UNICODE)


# ------------------------------------------------------------------------------------------------ the schema
def _utc_fields(model: BaseModel) -> BaseModel:
    """Every datetime field as aware UTC (naive values are UTC), like the rest of anchormem."""
    for name in type(model).model_fields:
        v = getattr(model, name)
        if isinstance(v, datetime):
            setattr(model, name, to_utc(v, field=name))
    return model


class ExportEmbedder(BaseModel):
    """The embedder the export's store used (informational: vectors are not exported, the target re-embeds)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    dim: int = Field(ge=1)


class ExportMessage(BaseModel):
    """A stored source turn: ``timestamp`` is when it was said (ISO-8601, UTC)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    agent_id: str | None = None
    session_id: str | None = None
    role: Role
    name: str | None = None
    content: str
    timestamp: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _utc(self) -> "ExportMessage":
        return _utc_fields(self)  # type: ignore[return-value]


class ExportMemory(MemoryItem):
    """A memory with every field of :class:`~anchormem.types.MemoryItem` (unknown fields are an error)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _derived(cls, v: Any) -> Any:  # ``current``/``state`` are computed from validity and claims, not read back
        return {k: x for k, x in v.items() if k not in ("current", "state")} if isinstance(v, dict) else v

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("text is empty")
        return v

    @model_validator(mode="after")
    def _utc(self) -> "ExportMemory":
        return _utc_fields(self)  # type: ignore[return-value]


class ExportHistory(HistoryEntry):
    """One history row (a version of a memory), exactly as :meth:`Memory.history` returns it."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(ge=1)

    @model_validator(mode="after")
    def _utc(self) -> "ExportHistory":
        return _utc_fields(self)  # type: ignore[return-value]


class ExportReview(ReviewItem):
    """One review-queue item (a held change), exactly as :meth:`Memory.review_queue` returns it, whatever its
    status (pending, approved, rejected)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="after")
    def _utc(self) -> "ExportReview":
        return _utc_fields(self)  # type: ignore[return-value]


class ExportDocument(BaseModel):
    """An ``anchormem.export/1`` document: one user's messages, memories (superseded ones included), each
    memory's history keyed by memory id, and the user's review queue (``reviews``: every status; absent in
    older exports). ``tenant``/``user_id``: where it was exported from."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["anchormem.export/1"]
    exported_at: datetime
    tenant: str
    user_id: str = Field(min_length=1)
    embedder: ExportEmbedder | None = None
    memories: list[ExportMemory]
    history: dict[str, list[ExportHistory]] = Field(default_factory=dict)
    messages: list[ExportMessage] = Field(default_factory=list)
    reviews: list[ExportReview] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> "ExportDocument":
        ids: set[str] = set()
        for m in self.memories:
            if m.id in ids:
                raise ValueError(f"memory id {m.id!r} is listed twice")
            if m.user_id != self.user_id:
                raise ValueError(f"memory {m.id!r} belongs to user {m.user_id!r}, the export is of {self.user_id!r}")
            ids.add(m.id)
        for mid, rows in self.history.items():
            if mid not in ids:
                raise ValueError(f"history of memory {mid!r}, which is not in 'memories'")
            versions = [h.version for h in rows]
            if len(set(versions)) != len(versions):
                raise ValueError(f"history of memory {mid!r} repeats a version")
            if any(h.memory_id != mid for h in rows):
                raise ValueError(f"history of memory {mid!r} holds a row of another memory")
        msg_ids = [m.id for m in self.messages]
        if len(set(msg_ids)) != len(msg_ids):
            raise ValueError("a message id is listed twice")
        review_ids = [r.id for r in self.reviews]
        if len(set(review_ids)) != len(review_ids):
            raise ValueError("a review item id is listed twice")
        for r in self.reviews:
            if r.user_id != self.user_id:
                raise ValueError(f"review item {r.id!r} belongs to user {r.user_id!r}, the export is of "
                                 f"{self.user_id!r}")
        return _utc_fields(self)  # type: ignore[return-value]


class Mem0Item(BaseModel):
    """One mem0 memory as ``get_all()`` returns it. Read: ``id``, ``memory`` (the text), ``created_at``,
    ``updated_at`` (ISO-8601, any offset; naive = UTC), ``user_id``, ``agent_id``, ``run_id``, ``actor_id``,
    ``role``, ``metadata``, ``categories``, ``expiration_date``. Ignored: ``hash`` (an md5 of the text),
    ``score``, and any other key (``app_id``, ``immutable``, ``internal_metadata``...)."""

    model_config = ConfigDict(extra="allow")

    id: str | None = None
    memory: str
    hash: str | None = None
    metadata: dict[str, Any] | None = None
    created_at: datetime | str | None = None
    updated_at: datetime | str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    actor_id: str | None = None
    role: str | None = None
    categories: list[str] | None = None
    expiration_date: datetime | str | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v


def _invalid(exc: ValidationError, what: str) -> InvalidInputError:
    errs = exc.errors()
    parts = []
    for e in errs[:5]:
        loc = ".".join(str(x) for x in e["loc"]) or "(document)"
        parts.append(f"{loc}: {e['msg'].removeprefix('Value error, ')}")
    more = f" (and {len(errs) - 5} more)" if len(errs) > 5 else ""
    return InvalidInputError(f"invalid {what}: " + "; ".join(parts) + more)


# ------------------------------------------------------------------------------------------------ dispatch
def detect_format(data: Any) -> str:
    """``"anchormem"`` for a dict with a ``format`` key, ``"mem0"`` for ``{"results": [...]}`` or a list.
    Raises InvalidInputError for anything else."""
    if isinstance(data, dict) and "format" in data:
        return "anchormem"
    if isinstance(data, list) or (isinstance(data, dict) and isinstance(data.get("results"), list)):
        return "mem0"
    raise InvalidInputError("not an export: expected an anchormem export (a 'format' key) or a mem0 export "
                            "({'results': [...]} or a list of memories)")


def import_memories(memory: "Memory", data: Any, *, user_id: str | None = None, on_conflict: str = "error",
                    format: str = "auto") -> dict[str, int]:
    """Import an export into ``memory`` (its store, tenant and embedder). ``format``: ``"auto"`` (see
    :func:`detect_format`), ``"anchormem"`` or ``"mem0"``. ``user_id`` imports into that user instead of the
    export's. ``on_conflict``: ``"error"`` (an id the target holds, or a duplicate of a current memory, raises
    and nothing is written), ``"skip"`` (such rows are left out) or ``"new_ids"`` (anchormem exports: every row
    gets a new id, its references rewritten: :func:`with_new_ids`; copying a user into another user of one store). One transaction. Returns counts per table
    (see :meth:`anchormem.stores.protocol.Store.import_rows`). Every value in ``data`` must be storable
    (:func:`anchormem.validate.check_json`: no lone surrogates or NUL, integers within 64 bits, no NaN/inf).
    Raises InvalidInputError, ScopeError, StoreError."""
    if format not in ("auto", "anchormem", "mem0"):
        raise InvalidInputError(f"format must be 'auto', 'anchormem' or 'mem0', not {format!r}")
    if on_conflict not in ("error", "skip", "new_ids"):
        raise InvalidInputError(f"on_conflict must be 'error', 'skip' or 'new_ids', not {on_conflict!r}")
    uid = check_scope_id(user_id, "user_id", required=False)
    check_json(data, "import data")  # every string, number and key storable (anchormem.validate)
    fmt = detect_format(data) if format == "auto" else format
    if fmt == "mem0":
        if on_conflict == "new_ids":
            raise InvalidInputError("on_conflict='new_ids' applies to anchormem exports; a mem0 export's ids are "
                                    "derived from its ids and the user, so importing it into another user gives "
                                    "new ids already")
        return import_mem0(memory, data, user_id=uid, on_conflict=on_conflict)
    if on_conflict == "new_ids":
        return import_export(memory, with_new_ids(data), user_id=uid, on_conflict="error")
    return import_export(memory, data, user_id=uid, on_conflict=on_conflict)


_HEX_ID = re.compile(r"\b[0-9a-f]{32}\b")


def with_new_ids(data: Any) -> Any:
    """A copy of an ``anchormem.export/1`` document whose memory, message and review ids are new (uuid4 hex), every
    reference to them rewritten the same way: ``superseded_by``, claims (``fact_id``), ``source_message_ids``,
    history (its keys and ``memory_id``), metadata links, and the ids named inside history reasons. For copying a
    user into another user of the same store (on SQLite an id is unique in the whole file). ``data`` that is not an
    export is returned as it is (:func:`parse_export` then says what is wrong)."""
    if not isinstance(data, dict):
        return data
    old: set[str] = set()
    for key in ("memories", "messages", "reviews"):
        rows = data.get(key)
        for row in rows if isinstance(rows, list) else ():
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                old.add(row["id"])
    new = {o: uuid.uuid4().hex for o in sorted(old)}

    def text(s: str) -> str:
        return new[s] if s in new else _HEX_ID.sub(lambda m: new.get(m.group(0), m.group(0)), s)

    def walk(x: Any) -> Any:
        if isinstance(x, str):
            return text(x)
        if isinstance(x, dict):
            return {text(k) if isinstance(k, str) else k: walk(v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    return walk(data)


# ------------------------------------------------------------------------------------------------ anchormem
def export_document(memory: "Memory", scope: Scope) -> dict[str, Any]:
    """``Memory.export``: everything stored for ``scope``'s user as an ``anchormem.export/1`` dict (JSON-ready):
    memories with provenance and validity (superseded ones included), each memory's history, the source
    messages and the review queue (every status)."""
    store, tenant = memory.store, memory.tenant
    items = store.list_memories(scope, None, include_superseded=True)
    return {
        "format": EXPORT_FORMAT,
        "exported_at": utcnow().isoformat(),
        "tenant": tenant,
        "user_id": scope.user_id,
        "embedder": {"name": memory.embedder.name, "dim": memory.embedder.dim},
        "memories": [json.loads(it.model_dump_json()) for it in items],
        "history": {it.id: [json.loads(h.model_dump_json()) for h in store.history(tenant, it.id)] for it in items},
        "messages": store.messages(scope),
        "reviews": [json.loads(r.model_dump_json()) for r in store.list_reviews(tenant, scope.user_id, None)],
    }


def parse_export(data: Any) -> ExportDocument:
    """Validate an ``anchormem.export/1`` document. Raises InvalidInputError naming the bad fields."""
    if not isinstance(data, dict):
        raise InvalidInputError(f"an anchormem export is a JSON object, got {type(data).__name__}")
    fmt = data.get("format")
    if fmt != EXPORT_FORMAT:
        raise InvalidInputError(f"unknown export format {fmt!r}: this anchormem reads {EXPORT_FORMAT!r} "
                                "(and mem0 exports with format='mem0')")
    try:
        return ExportDocument.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc, "anchormem export") from None


def import_export(memory: "Memory", data: Any, *, user_id: str | None = None,
                  on_conflict: str = "error") -> dict[str, int]:
    """Read an ``anchormem.export/1`` document back exactly (see the module docstring); vectors re-embedded
    with ``memory.embedder`` in batches of :data:`EMBED_BATCH`. Raises InvalidInputError, StoreError."""
    doc = parse_export(data)
    tenant, uid = memory.tenant, user_id or check_scope_id(doc.user_id, "user_id", required=True)
    items = [MemoryItem.model_validate({**m.model_dump(), "tenant": tenant, "user_id": uid}) for m in doc.memories]
    messages = [StoredMessage(id=m.id, scope=Scope(tenant=tenant, user_id=uid, agent_id=m.agent_id,
                                                   session_id=m.session_id),
                              role=m.role, content=m.content, ts=m.timestamp, name=m.name, metadata=m.metadata)
                for m in doc.messages]
    history = [HistoryEntry.model_validate(h.model_dump()) for rows in doc.history.values() for h in rows]
    reviews = [ReviewItem.model_validate({**r.model_dump(), "tenant": tenant, "user_id": uid,
                                          "proposed": {**r.proposed.model_dump(), "tenant": tenant, "user_id": uid}})
               for r in doc.reviews]
    news = _new_memories(memory, items, messages)
    return memory.store.import_rows(tenant, messages, news, history, on_conflict=on_conflict, reviews=reviews)


def _index_text(it: MemoryItem, prev: dict | None = None, kinds: frozenset[str] = frozenset()) -> str:
    """The keyword-index text a write gives a memory: text, speaker, and the month/year terms of when it was
    said and of the date it mentions (``time_terms``), then its retrieval keys rebuilt from its turn and the
    session's turn before it (``prev``; :func:`anchormem.ingest.keys.memory_keys`); summaries index their text
    alone, as on write."""
    if it.kind == "summary":
        return index_text(it.text)
    dates = [_Span(it.event_time)] if it.event_time is not None else []
    keys = memory_keys(it.text, it.speaker, it.created_at, prev, kinds, it.role) if kinds else ""
    return index_text(" ".join(x for x in (it.text, it.speaker, time_terms(it.created_at, dates)) if x), keys)


def _previous(messages: list[StoredMessage]) -> dict[str, dict[str, Any]]:
    """{message id: the message before it in its session (by time, then order)} of an export's messages; without
    a session, the agent's message before it said at most 30 minutes earlier (as ``Store.previous_messages``)."""
    out: dict[str, dict[str, Any]] = {}
    last: dict[tuple[Any, ...], StoredMessage] = {}
    for m in sorted(messages, key=lambda m: m.ts):  # stable: same-time messages keep their order
        k = (m.scope.agent_id, m.scope.session_id)
        if k in last and (m.scope.session_id is not None or (m.ts - last[k].ts).total_seconds() <= 1800):
            p = last[k]
            out[m.id] = {"content": p.content, "name": p.name, "role": p.role}
        last[k] = m
    return out


class _Span:
    def __init__(self, start: datetime) -> None:
        self.start = start


def _hash(it: MemoryItem) -> str:
    """The dedupe hash a write gives a memory (a fact's includes its slot)."""
    return memory_hash(it)


def _embed(memory: "Memory", items: list[MemoryItem]) -> np.ndarray:
    texts = [embedding_text(it.text, it.speaker) for it in items]
    if not texts:
        return np.zeros((0, memory.embedder.dim), dtype=np.float32)
    return np.vstack([memory.embedder.embed_documents(texts[i : i + EMBED_BATCH])
                      for i in range(0, len(texts), EMBED_BATCH)])


def _new_memories(memory: "Memory", items: list[MemoryItem],
                  messages: list[StoredMessage] | None = None) -> list[NewMemory]:
    vecs = _embed(memory, items)
    ctx = _context_vectors(memory, items, vecs)
    kinds = parse_key_kinds(memory.settings.index_keys)
    prev = _previous(messages or [])
    return [NewMemory(it, v, _hash(it), _index_text(it, prev.get(it.source_message_ids[0]) if it.source_message_ids
                                                    else None, kinds), context_vector=c)
            for it, v, c in zip(items, vecs, ctx)]


def _context_vectors(memory: "Memory", items: list[MemoryItem], vecs: np.ndarray) -> list[np.ndarray | None]:
    """Context vectors of imported memories (an export carries none), over the windows ``relabel`` uses
    (:func:`anchormem.context.anchor.session_windows`), from the re-embedded vectors, so anchored search compares
    them with the conversation right after an import."""
    from .context.anchor import context_vectors, session_windows

    anchor = memory.anchor
    out: list[np.ndarray | None] = [None] * len(items)
    for part in session_windows(items):
        for i, c in zip(part, context_vectors(vecs[part], decay=anchor.session_decay, own_weight=anchor.own_weight)):
            out[i] = c
    return out


# ------------------------------------------------------------------------------------------------ mem0
def _mem0_items(data: Any) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return data["results"]
    raise InvalidInputError("not a mem0 export: expected {'results': [...]} or a list of memories")


def _meta_key(key: Any) -> str:
    k = _META_BAD.sub("_", str(key))[:64]
    return k or "_"


def _meta_value(v: Any) -> Any:
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)


def _mem0_metadata(item: Mem0Item, where: str) -> dict[str, Any]:
    meta = {_meta_key(k): _meta_value(v) for k, v in (item.metadata or {}).items()}
    if item.categories:
        meta["categories"] = _meta_value(item.categories)
    if item.id is not None:
        meta["mem0_id"] = item.id
    try:
        check_expiry_metadata(meta)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    return meta


def _mem0_memory(memory: "Memory", raw: Any, i: int, user_id: str | None, now: datetime) -> MemoryItem:
    where = f"mem0 item {i}"
    if not isinstance(raw, dict):
        raise InvalidInputError(f"{where}: expected an object, got {type(raw).__name__}")
    try:
        m = Mem0Item.model_validate(raw)
    except ValidationError as exc:
        raise _invalid(exc, where) from None
    text = check_text(m.memory, what=f"{where} 'memory'", max_chars=memory.settings.max_message_chars)
    uid = user_id or m.user_id
    if uid is None:
        raise InvalidInputError(f"{where} has no user_id: pass user_id= (--user) to say whose memories these are")
    uid = check_scope_id(uid, "user_id", required=True)
    said = to_aware(m.created_at, field=f"{where} created_at") if m.created_at is not None else now
    dates = resolve_dates(text, said)  # relative dates on the writer's own calendar day
    created = to_utc(said)
    tenant = memory.tenant
    mid = uuid.uuid5(_MEM0_NS, f"{tenant}\x00{uid}\x00{m.id}").hex if m.id is not None else uuid.uuid4().hex
    item = MemoryItem(
        id=mid, text=text, tenant=tenant, user_id=uid,
        agent_id=check_scope_id(m.agent_id, "agent_id", required=False),
        session_id=check_scope_id(m.run_id, "run_id", required=False),
        kind="utterance", role=m.role if m.role in ("user", "assistant") else "user",
        speaker=m.actor_id or None, source="external", created_at=created,
        updated_at=to_utc(m.updated_at, field=f"{where} updated_at") if m.updated_at is not None else None,
        event_time=dates[0].start if dates else None, event_time_end=dates[0].end if dates else None,
        valid_from=created, confidence=MEM0_CONFIDENCE, entities=extract_entities(text, dates),
        metadata=_mem0_metadata(m, where),
    )
    assign_expiry([item], memory.expiry, now)
    if m.expiration_date is not None:
        item.expires_at = to_utc(m.expiration_date, field=f"{where} expiration_date")
    return item


def import_mem0(memory: "Memory", data: Any, *, user_id: str | None = None,
                on_conflict: str = "error") -> dict[str, int]:
    """Import mem0 memories (``{"results": [...]}`` or a list; fields: :class:`Mem0Item`).

    Each item becomes one memory: ``memory`` → ``text``; ``created_at`` → ``created_at`` and ``valid_from``
    (absent: now); ``updated_at`` kept; ``user_id`` (or the ``user_id`` argument, which wins) → user;
    ``agent_id`` → agent; ``run_id`` → ``session_id``; ``actor_id`` → ``speaker``; ``role`` kept (user or
    assistant); ``metadata`` kept (keys made safe, nested values as JSON text) plus ``mem0_id`` (and
    ``categories``); ``expiration_date`` → ``expires_at`` (otherwise the Memory's expiry policy). ``kind`` is
    ``"utterance"`` and ``source`` is ``"external"`` with confidence :data:`MEM0_CONFIDENCE`: mem0 memories are
    written by another system's LLM from the conversation, not the user's verbatim words, so they never pass as
    what the user said. Dates in the text are resolved against ``created_at``; entities and context labels are
    computed as on add; history gets one ``ADD`` row (actor ``"import"``). Ids are derived from the mem0 id and
    the user (uuid5), so importing the same file again conflicts instead of duplicating. There are no source
    messages. Raises InvalidInputError (not a mem0 shape, an item without text or user), StoreError."""
    now = utcnow()
    raws = _mem0_items(data)
    seen: set[str] = set()
    for r in raws:
        rid = str(r.get("id")) if isinstance(r, dict) and r.get("id") is not None else None
        if rid in seen:
            raise InvalidInputError(f"mem0 id {rid!r} is listed twice")
        if rid is not None:
            seen.add(rid)
    items = [_mem0_memory(memory, raw, i, user_id, now) for i, raw in enumerate(raws)]
    news = _new_memories(memory, items)
    for nm in news:  # labelled one by one: mem0 items are not turns of one conversation
        nm.item.labels = memory.anchor.label_texts([nm.item.text], nm.vector.reshape(1, -1))[0]
    history = [HistoryEntry(memory_id=it.id, version=1, event="ADD", new_text=it.text, actor="import",
                            reason="imported from mem0" + (f" ({it.metadata['mem0_id']})"
                                                           if "mem0_id" in it.metadata else ""),
                            created_at=now) for it in items]
    return memory.store.import_rows(memory.tenant, [], news, history, on_conflict=on_conflict)
