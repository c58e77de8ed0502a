"""The Store interface: everything the engine needs from a database, scoped on every call.

Scoping is enforced here, in the store layer: every read and write names a tenant, and scope reads a user.
Vectors are float32 (dim,), L2-normalised. Timestamps are aware UTC datetimes. Scores: higher = better.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..filters import FilterNode
from ..types import HistoryEntry, Label, MemoryItem, ReviewItem, Scope

__all__ = ["Store", "NewMemory", "StoredMessage", "WriteResult", "history_entries", "message_dicts",
           "REVIEW_COLUMNS", "review_items", "review_row", "reviews_to_forget",
           "restating_turns", "cite_turn"]


@dataclass
class StoredMessage:
    """A raw conversation turn kept for provenance."""

    id: str
    scope: Scope
    role: str
    content: str
    ts: datetime
    name: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class NewMemory:
    """A memory ready to store: the item, its vector (dim,), its dedupe hash and its keyword-index text.

    ``supersedes``: ids of current memories this one replaces; in the same transaction each gets
    ``valid_to = item.valid_from`` and ``superseded_by = item.id`` (skipped if no longer current).
    ``context_vector``: its context vector (dim,) (:mod:`anchormem.stores.context_vectors`), or None.
    ``conflicts``: ``(old FactSlot, new FactSlot) -> bool`` (:func:`anchormem.facts.reconcile.conflicts`): given,
    a current fact memory is reconciled again inside the write's serialised step (one per tenant, user and slot:
    SQLite's write lock, PostgreSQL's advisory lock): a conflicting current fact of its slot written meanwhile is
    superseded too, or, when said later than it, the new one is stored already closed (:mod:`.claims_sql`).
    ``carried_by``: ids of current memories of its user that carry its claim too (an open claim made for the
    words of an older memory, :mod:`anchormem.facts.relative`); a gone or closed one is skipped.
    """

    item: MemoryItem
    vector: np.ndarray
    content_hash: str
    index_text: str
    supersedes: list[str] = field(default_factory=list)
    context_vector: np.ndarray | None = None
    conflicts: Any = None
    carried_by: list[str] = field(default_factory=list)


@dataclass
class WriteResult:
    """``event``: "ADD" (new row), "NOOP" (an identical current memory already existed; its item) or
    "SUPERSEDE" (a memory closed by a new one; the closed item)."""

    event: str
    item: MemoryItem


@runtime_checkable
class Store(Protocol):
    def check_embedder(self, name: str, dim: int) -> None:
        """Record the embedder on first use; raise EmbedderMismatchError if the store holds another one."""

    def write(self, messages: list[StoredMessage], memories: list[NewMemory], *, actor: str,
              context_updates: dict[str, np.ndarray] | None = None,
              restated: dict[str, list[str]] | None = None,
              expect_generation: dict[tuple[str, str], int] | None = None) -> list[WriteResult]:
        """Store messages and memories in one transaction; exact duplicates become NOOP with the existing id,
        which then also cites the duplicate's source turns. ``context_updates``: new context vectors of existing
        memories (id → (dim,)), set in the same transaction (the previous turns of a session gain the new turns as
        context). ``restated``: memories a restatement matched (id → ids of turns in ``messages`` restating it),
        cited after the memories are written. A memory gains each turn it does not cite yet
        (``source_message_ids``, order kept; history: a ``NOOP`` version, reason ``"restated in message <id>"``),
        so a purge of it forgets that turn too (:func:`cite_turn`). ``expect_generation``: {(tenant, user_id):
        the :meth:`scope_generation` the write was planned at}; when one of those users it writes has moved since
        (another writer committed), raises StaleWriteError before anything is written (optimistic concurrency:
        :mod:`anchormem.stores.generation`)."""

    def get(self, tenant: str, memory_id: str) -> MemoryItem:
        """Raises NotFoundError."""

    def get_many(self, tenant: str, ids: list[str], *, entities: bool = True) -> dict[str, MemoryItem]:
        """Missing ids are left out. ``entities`` False: each item's ``entities`` is left empty (a search reads
        ~100 candidates and returns a few: it loads theirs with :meth:`with_entities`)."""

    def with_entities(self, tenant: str, items: list[MemoryItem]) -> list[MemoryItem]:
        """``items`` (as ``get_many(..., entities=False)`` returned them), in order, each a copy with its stored
        entities."""

    def predecessors(self, tenant: str, user_id: str, fact_ids: list[str]) -> dict[str, list[str]]:
        """{fact id of ``fact_ids``: ids of the memories carrying a claim it closed (``claims.superseded_by``), oldest
        said first}: what each fact replaced, for a question about the past. Ids with none are left out."""

    def list_memories(self, scope: Scope, where: FilterNode | None, *, limit: int | None = None, offset: int = 0,
                      include_superseded: bool = False, as_of: datetime | None = None) -> list[MemoryItem]:
        """Memories in scope, oldest first. With ``as_of``: those current then, each with the text it had then
        (see :meth:`past_texts`)."""

    def past_texts(self, scope: Scope, where: FilterNode | None, as_of: datetime) -> dict[str, str | None]:
        """{memory id: text at ``as_of``} for memories visible at ``as_of`` whose text was edited (``update``)
        after it; None when that text was blanked by a purge (:mod:`.past_text`)."""

    def past_states(self, scope: Scope, where: FilterNode | None, as_of: datetime) -> dict[str, dict[str, Any]]:
        """{memory id: the fact slot, entities and labels it had at ``as_of``} (MemoryItem fields) for the memories
        of ``scope`` edited after ``as_of``; see :mod:`.past_text`."""

    def update(self, tenant: str, memory_id: str, *, text: str, vector: np.ndarray, index_text: str,
               content_hash: str, actor: str, reason: str | None = None) -> MemoryItem:
        """Change a memory's text (a new version in history). Raises NotFoundError."""

    def delete(self, tenant: str, memory_id: str, *, purge: bool = False, actor: str) -> dict[str, int]:
        """Remove a memory from every table and index; ``purge`` also blanks its history text and reasons
        (``old_text``, ``new_text``, ``reason``) and forgets its review-queue copies (:func:`reviews_to_forget`,
        ``"review"``: items deleted). Returns counts."""

    def delete_scope(self, scope: Scope, *, purge: bool = False, actor: str) -> dict[str, int]:
        """Remove every memory (and message) of a user scope. ``purge`` also blanks history text and reasons: of
        every history row of the user for a whole-user scope, of the scope's memories for a narrowed one
        (``"history"``: rows blanked). A whole-user scope deletes the user's review queue; a narrowed purge the
        items drawn from the scope's turns (:func:`reviews_to_forget`; ``"review"``). Returns counts per table."""

    def history(self, tenant: str, memory_id: str) -> list[HistoryEntry]:
        """Versions oldest first. Raises NotFoundError if the id never existed."""

    def dense_search(self, scope: Scope, query: np.ndarray, k: int, where: FilterNode | None,
                     as_of: datetime | None = None) -> list[tuple[str, float]]:
        """Top-k (memory id, cosine) in scope."""

    def keyword_search(self, scope: Scope, terms: list[str], k: int, where: FilterNode | None,
                       as_of: datetime | None = None) -> list[tuple[str, float]]:
        """Top-k (memory id, BM25 score, positive) in scope; any-term match."""

    def metadata_keys(self, scope: Scope) -> set[str]:
        """Metadata keys present in the user's memories (for bare-key filters)."""

    def set_labels(self, tenant: str, labels: dict[str, list[Label]]) -> int:
        """Replace the context labels of memories (id → labels). Returns how many rows changed."""

    def user_ids(self, tenant: str) -> list[str]:
        """Every user of a tenant that has memories."""

    def get_vectors(self, tenant: str, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored embeddings by memory id (missing ids left out)."""

    def has_scheduled_ahead(self, scope: Scope, after: datetime) -> bool:
        """Whether the scope holds a current fact memory whose ``valid_from`` is after ``after`` and after the time
        it was said (a scheduled value not in effect yet); one indexed read."""

    def count_messages(self, scope: Scope) -> int:
        """How many messages the scope's user has in the scope's session (``session_id`` None: without one)."""

    def previous_messages(self, scope: Scope, ids: list[str], *, window_s: float = 1800.0
                          ) -> dict[str, dict[str, Any]]:
        """For each message id, the message just before it in its session (without a session: among the
        session-less messages of the last ``window_s`` seconds); {id: message dict}."""

    def adjacent_memories(self, scope: Scope, ids: list[str], *, span: int = 1, where: FilterNode | None = None,
                          as_of: datetime | None = None, window_s: float = 1800.0) -> dict[str, list[tuple[str, int]]]:
        """For each memory id, the turn memories said just before and after it in its session (without a session:
        within ``window_s`` seconds), up to ``span`` on each side, as ``{id: [(neighbour id, offset)]}`` (offset
        -span..-1, 1..span); only neighbours a search with ``where`` / ``as_of`` could return."""

    def get_context_vectors(self, tenant: str, ids: list[str]) -> Mapping[str, np.ndarray]:
        """Stored context vectors by memory id, (dim,) float32 each (ids without one left out); a
        :class:`~anchormem.stores.context_vectors.ContextVectors` (one matrix, ``take`` gathers many)."""

    def get_many_with_context(self, tenant: str, ids: list[str], *, entities: bool = True
                              ) -> tuple[dict[str, MemoryItem], Mapping[str, np.ndarray]]:
        """``get_many`` (``entities`` as there) and ``get_context_vectors`` together (the anchored search path; one
        read, or the SQLite vector cache)."""

    def set_context_vectors(self, tenant: str, vectors: dict[str, np.ndarray]) -> int:
        """Replace the context vectors of memories (id → (dim,)). Returns how many rows changed."""

    def recent_memories(self, scope: Scope, limit: int) -> list[MemoryItem]:
        """The newest current memories of a scope, newest first."""

    def recent_labels(self, scope: Scope, limit: int) -> list[tuple[str | None, list[Label]]]:
        """(session_id, labels) of what ``recent_memories(scope, limit)`` returns, newest first, without building
        the memories."""

    def touch(self, tenant: str, ids: list[str], when: datetime) -> None:
        """Bump access_count and last_accessed_at (does not bump the scope generation)."""

    def scope_generation(self, tenant: str, user_id: str) -> int:
        """The user's write counter (0 before the first write): every write to the user's memories raises it in
        the write's transaction (see :mod:`anchormem.stores.generation`); the hot cache keys on it."""

    def set_expiry(self, tenant: str, expiries: dict[str, datetime | None]) -> int:
        """Set ``expires_at`` of memories (id → instant or None = never); no new version. Returns rows changed."""

    def purge_expired(self, tenant: str, before: datetime, *, user_id: str | None = None, purge: bool = False,
                      actor: str = "gc") -> dict[str, int]:
        """Delete every memory of a tenant (or one user) whose ``expires_at`` <= ``before``, from every table and
        index as ``delete_scope`` does; history records ``DELETE`` with reason ``"expired"`` (``purge`` also blanks
        its history text, drops source messages no other memory cites and forgets the review-queue copies, as
        ``delete`` does). What an expired memory superseded holds again, as after ``delete`` (history ``REOPEN``),
        unless it expired too. Returns counts per table."""

    def messages(self, scope: Scope, ids: list[str] | None = None, *,
                 session_id: str | None = None, last: int | None = None) -> list[dict[str, Any]]:
        """Stored source messages of a user scope (all, or the given ids; with ``session_id``, of that session
        only), oldest first; with ``last``, only the newest ``last`` of them (still oldest first)."""

    def current_facts(self, tenant: str, user_id: str, slots: list[str]) -> list[MemoryItem]:
        """Current (``valid_to`` unset) fact memories of a user with one of ``slots``, oldest first."""

    def set_fact(self, tenant: str, memory_id: str, fact: Any) -> None:
        """Replace a memory's fact slot (a ``FactSlot`` or None) after its text changed. Raises NotFoundError."""

    def close_memory(self, tenant: str, memory_id: str, *, when: datetime, actor: str, event: str,
                     reason: str | None = None) -> MemoryItem:
        """End a memory's validity at ``when`` (a done commitment); history records ``event``. Raises
        NotFoundError, ConflictError (already closed)."""

    def close_fact(self, tenant: str, memory_id: str, *, when: datetime, by: str | None, turn: str, actor: str,
                   reason: str) -> list[str]:
        """A fact memory whose words its turn ``turn`` no longer says (``update`` of that turn): close it
        (``valid_to`` = ``when``, ``superseded_by`` = ``by``: the fact that now states its slot, or None) and its
        claim on every memory carrying it (``turn`` stops carrying it); a carrier left with no current claim and
        nothing else said is closed with it. What it had superseded holds again, unless a later statement closed it
        too (``reopen`` as for an ``update`` that took a fact's slot away). History ``SUPERSEDE`` by ``actor`` with
        ``reason`` for each. Returns the ids closed (none when it was closed already). Raises NotFoundError."""

    def carry_claims(self, tenant: str, memory_id: str, fact_ids: list[str]) -> None:
        """Memory ``memory_id`` (a turn ``update`` re-planned, restating facts of other turns) carries the claims of
        the fact memories ``fact_ids`` too, as they are now (one it carries already stays as it is). Raises
        NotFoundError."""

    def add_review(self, item: ReviewItem) -> None:
        """Queue a change for review."""

    def list_reviews(self, tenant: str, user_id: str | None, status: str | None) -> list[ReviewItem]:
        """Review items of a tenant (optionally one user / one status), oldest first."""

    def get_review(self, tenant: str, review_id: str) -> ReviewItem:
        """Raises NotFoundError."""

    def resolve_review(self, tenant: str, review_id: str, *, status: str, actor: str, when: datetime,
                       result_memory_id: str | None = None) -> ReviewItem:
        """Mark a pending item approved/rejected. Raises NotFoundError, ConflictError (already resolved)."""

    def vault_put(self, tenant: str, user_id: str, rows: dict[str, bytes]) -> int:
        """Keep encrypted originals of tokenised PII for a user: ``rows`` maps token (``"[PHONE:3f9a1c2b]"``) to
        ciphertext; a token the user already holds keeps its first ciphertext. Returns rows inserted."""

    def vault_get(self, tenant: str, tokens: list[str]) -> dict[str, bytes]:
        """Ciphertexts by token, from any user of the tenant (a token names one value under one key); tokens
        the vault does not hold are left out."""

    def vault_delete(self, tenant: str, user_id: str, tokens: list[str] | None) -> int:
        """Forget a user's vault rows: ``None`` deletes all of them; a list deletes those tokens except the ones a
        remaining memory, source message, history text or review item of the user still contains. Returns rows
        deleted."""

    def import_rows(self, tenant: str, messages: list[StoredMessage], memories: list[NewMemory],
                    history: list[HistoryEntry], *, on_conflict: str = "error",
                    reviews: list[ReviewItem] | None = None) -> dict[str, int]:
        """Insert rows exactly as given (ids, timestamps, validity, access counts, the given history rows: no
        ``ADD`` row is added; review items with their status) in one transaction, updating the keyword index, entities, metadata keys and the
        scope generation. An id the tenant already holds, or a duplicate of a current memory, is a conflict:
        ``on_conflict="error"`` raises InvalidInputError and writes nothing, ``"skip"`` leaves it out. Returns
        counts (``messages``, ``memories``, ``history``, ``entities``, ``reviews``, ``skipped_messages``,
        ``skipped_memories``, ``skipped_reviews``). See :mod:`anchormem.stores.portable_sql`."""

    def set_tier(self, tenant: str, ids: list[str], tier: str, *, when: datetime, actor: str,
                 reason: str | None = None) -> list[MemoryItem]:
        """Move memories to ``"warm"`` or ``"cold"`` (archived at ``when``); each move is an ``ARCHIVE`` /
        ``RESTORE`` history row. Search paths (``dense_search``, ``keyword_search``, ``recent_memories``) see warm
        memories only unless ``where`` names ``tier`` or ``as_of`` is given; ``list_memories`` and ``get`` see every
        tier. Returns the moved memories. Raises NotFoundError, InvalidInputError. See :mod:`.tiers_sql`."""

    def merge_memories(self, tenant: str, keep_id: str, dup_ids: list[str], *, when: datetime, actor: str,
                       reason: str | None = None) -> MemoryItem:
        """Close near-duplicates in favour of ``keep_id`` (``valid_to`` = ``when``, ``superseded_by``), merging
        their source message ids and access counts into it; ``MERGE`` history rows. Raises NotFoundError,
        ConflictError. See :mod:`.tiers_sql`."""

    def close(self) -> None:
        """Release connections."""


# Row shapes shared by the SQL stores ---------------------------------------------------------------------------
HISTORY_COLUMNS = "memory_id, version, event, old_text, new_text, actor, reason, created_at"
MESSAGE_COLUMNS = "id, agent_id, session_id, role, name, content, ts, metadata"


def history_entries(rows: list[tuple]) -> list[HistoryEntry]:
    """Rows of ``HISTORY_COLUMNS`` (created_at in epoch seconds) -> HistoryEntry list."""
    from ..timeutil import from_epoch

    return [HistoryEntry(memory_id=r[0], version=r[1], event=r[2], old_text=r[3], new_text=r[4], actor=r[5],
                         reason=r[6], created_at=from_epoch(r[7])) for r in rows]


def message_dicts(rows: list[tuple]) -> list[dict[str, Any]]:
    """Rows of ``MESSAGE_COLUMNS`` (ts in epoch seconds; metadata JSON text or already decoded) -> dicts."""
    import json

    from ..timeutil import from_epoch

    return [{"id": r[0], "agent_id": r[1], "session_id": r[2], "role": r[3], "name": r[4], "content": r[5],
             "timestamp": from_epoch(r[6]).isoformat(),
             "metadata": json.loads(r[7]) if isinstance(r[7], str) else r[7]} for r in rows]


REVIEW_COLUMNS = ("id, tenant, user_id, status, reason, proposed, targets, created_at, resolved_at, resolved_by, "
                  "result_memory_id")


def review_row(item: ReviewItem) -> tuple:
    """A ReviewItem -> values for ``REVIEW_COLUMNS`` (JSON text, epoch seconds)."""
    import json

    return (item.id, item.tenant, item.user_id, item.status, item.reason, item.proposed.model_dump_json(),
            json.dumps(item.targets), item.created_at.timestamp(),
            None if item.resolved_at is None else item.resolved_at.timestamp(), item.resolved_by,
            item.result_memory_id)


def review_items(rows: list[tuple]) -> list[ReviewItem]:
    """Rows of ``REVIEW_COLUMNS`` (JSON as text or decoded, epoch seconds) -> ReviewItem list."""
    import json

    from ..timeutil import from_epoch

    def load(v: Any) -> Any:
        return json.loads(v) if isinstance(v, str) else v

    return [ReviewItem(id=r[0], tenant=r[1], user_id=r[2], status=r[3], reason=r[4],
                       proposed=MemoryItem.model_validate(load(r[5])), targets=load(r[6]),
                       created_at=from_epoch(r[7]), resolved_at=from_epoch(r[8]), resolved_by=r[9],
                       result_memory_id=r[10]) for r in rows]


def reviews_to_forget(items: list[ReviewItem], memory_ids: set[str], message_ids: set[str]
                      ) -> tuple[list[str], dict[str, list[str]]]:
    """What a purge of ``memory_ids`` (and of the turns ``message_ids``: theirs, or a purged scope's) does to the
    user's review ``items``: ``(ids to delete, {id: new targets})``. Deleted: items drawn from one of those turns
    (their proposal quotes it) and items whose result is a purged memory (an approved proposal is its text), of any
    status. Kept: items that only target a purged memory (their proposal is another turn), with those targets
    dropped."""
    drop = [r.id for r in items if r.result_memory_id in memory_ids
            or set(r.proposed.source_message_ids) & message_ids]
    retarget = {r.id: [t for t in r.targets if t not in memory_ids] for r in items
                if r.id not in drop and set(r.targets) & memory_ids}
    return drop, retarget


def restating_turns(messages: list[StoredMessage], restated: dict[str, list[str]] | None
                    ) -> list[tuple[str, str, str, str]]:
    """``(tenant, user_id, memory id, message id)`` for each turn of ``messages`` that ``restated`` (memory id →
    message ids) says restates a memory; ids of turns not in ``messages`` are left out."""
    scopes = {m.id: m.scope for m in messages}
    return [(scopes[t].tenant, scopes[t].user_id, mid, t) for mid, turns in (restated or {}).items()
            for t in dict.fromkeys(turns) if t in scopes]


def cite_turn(c: Any, sql: str, history: Any, tenant: str, user_id: str, memory_id: str, message_id: str,
              actor: str) -> bool:
    """Inside a write's transaction: append ``message_id`` to the user's memory's ``source_message_ids`` unless
    it is there already, and record a ``NOOP`` history version naming the turn. ``sql``: the store's one-row
    UPDATE, parameters (message id, tenant, user id, memory id, message id), matching no row when the id is
    already cited; ``history``: the store's ``_history(c, ...)``. ``updated_at`` is left alone (the text did not
    change). True when the memory changed."""
    if not c.execute(sql, (message_id, tenant, user_id, memory_id, message_id)).rowcount:
        return False
    history(c, memory_id, tenant, user_id, "NOOP", None, None, actor, f"restated in message {message_id}")
    from .sessions_sql import link_session  # the turn's session: the memory belongs to it too

    link_session(c, "%s" if "%s" in sql else "?", tenant, user_id, memory_id, message_id)
    return True
