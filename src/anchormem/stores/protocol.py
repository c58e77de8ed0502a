"""The Store interface: everything the engine needs from a database, scoped on every call.

Scoping is enforced here, in the store layer: every read and write names a tenant, and scope reads a user.
Vectors are float32 (dim,), L2-normalised. Timestamps are aware UTC datetimes. Scores: higher = better.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..filters import FilterNode
from ..types import HistoryEntry, Label, MemoryItem, Scope

__all__ = ["Store", "NewMemory", "StoredMessage", "WriteResult", "history_entries", "message_dicts"]


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
    """A memory ready to store: the item, its vector (dim,), its dedupe hash and its keyword-index text."""

    item: MemoryItem
    vector: np.ndarray
    content_hash: str
    index_text: str


@dataclass
class WriteResult:
    """``event`` is "ADD" for a new row or "NOOP" when an identical current memory already existed."""

    event: str
    item: MemoryItem


@runtime_checkable
class Store(Protocol):
    def check_embedder(self, name: str, dim: int) -> None:
        """Record the embedder on first use; raise EmbedderMismatchError if the store holds another one."""

    def write(self, messages: list[StoredMessage], memories: list[NewMemory], *, actor: str) -> list[WriteResult]:
        """Store messages and memories in one transaction; exact duplicates become NOOP with the existing id."""

    def get(self, tenant: str, memory_id: str) -> MemoryItem:
        """Raises NotFoundError."""

    def get_many(self, tenant: str, ids: list[str]) -> dict[str, MemoryItem]:
        """Missing ids are left out."""

    def list_memories(self, scope: Scope, where: FilterNode | None, *, limit: int | None = None, offset: int = 0,
                      include_superseded: bool = False, as_of: datetime | None = None) -> list[MemoryItem]:
        """Memories in scope, oldest first."""

    def update(self, tenant: str, memory_id: str, *, text: str, vector: np.ndarray, index_text: str,
               content_hash: str, actor: str, reason: str | None = None) -> MemoryItem:
        """Change a memory's text (a new version in history). Raises NotFoundError."""

    def delete(self, tenant: str, memory_id: str, *, purge: bool = False, actor: str) -> dict[str, int]:
        """Remove a memory from every table and index; ``purge`` also blanks its history text. Returns counts."""

    def delete_scope(self, scope: Scope, *, purge: bool = False, actor: str) -> dict[str, int]:
        """Remove every memory (and message) of a user scope. Returns counts per table."""

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

    def recent_memories(self, scope: Scope, limit: int) -> list[MemoryItem]:
        """The newest current memories of a scope, newest first."""

    def touch(self, tenant: str, ids: list[str], when: datetime) -> None:
        """Bump access_count and last_accessed_at."""

    def messages(self, scope: Scope, ids: list[str] | None = None) -> list[dict[str, Any]]:
        """Stored source messages of a user scope (all, or the given ids), oldest first."""

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
