"""The SQLite store's review queue (:class:`~anchormem.types.ReviewItem` rows): add, list, get, resolve, and
what a purge removes from it (:func:`.protocol.reviews_to_forget`)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ..errors import ConflictError, NotFoundError
from ..types import ReviewItem
from .protocol import REVIEW_COLUMNS, review_items, review_row, reviews_to_forget

__all__ = ["ReviewReadMixin", "SQLiteReviewMixin", "purge_reviews"]


class ReviewReadMixin:
    """``list_reviews`` and ``get_review`` for both stores (needs ``_read`` and ``_filters.param``, the dialect's
    placeholder; ``_review_order``: the tie-break after ``created_at``)."""

    _read: Any
    _filters: Any
    _review_order = "created_at, rowid"

    def list_reviews(self, tenant: str, user_id: str | None, status: str | None) -> list[ReviewItem]:
        ph = self._filters.param
        sql, params = f"SELECT {REVIEW_COLUMNS} FROM review_queue WHERE tenant = {ph}", [tenant]
        for col, val in (("user_id", user_id), ("status", status)):
            if val is not None:
                sql += f" AND {col} = {ph}"
                params.append(val)
        return review_items(self._read(sql + f" ORDER BY {self._review_order}", params))

    def get_review(self, tenant: str, review_id: str) -> ReviewItem:
        ph = self._filters.param
        rows = self._read(f"SELECT {REVIEW_COLUMNS} FROM review_queue WHERE tenant = {ph} AND id = {ph}",
                          (tenant, review_id))
        if not rows:
            raise NotFoundError(f"no review item {review_id!r}")
        return review_items(rows)[0]


class SQLiteReviewMixin(ReviewReadMixin):
    """The other review-queue methods of :class:`~anchormem.stores.sqlite.SQLiteStore` (needs ``_tx``)."""

    _tx: Any

    def add_review(self, item: ReviewItem) -> None:
        with self._tx() as c:
            c.execute(f"INSERT INTO review_queue ({REVIEW_COLUMNS}) VALUES ({','.join('?' * 11)})", review_row(item))

    def resolve_review(self, tenant: str, review_id: str, *, status: str, actor: str, when: datetime,
                       result_memory_id: str | None = None) -> ReviewItem:
        with self._tx() as c:
            row = c.execute("SELECT status FROM review_queue WHERE tenant=? AND id=?", (tenant, review_id)).fetchone()
            if row is None:
                raise NotFoundError(f"no review item {review_id!r}")
            if row[0] != "pending":
                raise ConflictError(f"review item {review_id!r} is already {row[0]}")
            c.execute("UPDATE review_queue SET status=?, resolved_at=?, resolved_by=?, result_memory_id=? "
                      "WHERE tenant=? AND id=?", (status, when.timestamp(), actor, result_memory_id, tenant, review_id))
        return self.get_review(tenant, review_id)

    def _purge_reviews(self, c: Any, tenant: str, user_id: str, memory_ids: list[str],
                       message_ids: Any) -> int:
        return purge_reviews(c, "?", tenant, user_id, memory_ids, message_ids)


def purge_reviews(c: Any, ph: str, tenant: str, user_id: str, memory_ids: list[str], message_ids: Any,
                  json_cast: str = "") -> int:
    """Inside a purge's transaction (``c``: a sqlite3 or psycopg connection; ``ph``: its placeholder;
    ``json_cast``: ``"::jsonb"`` on PostgreSQL): delete the user's review items drawn from the turns
    ``message_ids`` or resulting in one of ``memory_ids``, and drop those memories from the others' targets
    (:func:`.protocol.reviews_to_forget`). Returns how many items were deleted."""
    rows = c.execute(f"SELECT {REVIEW_COLUMNS} FROM review_queue WHERE tenant={ph} AND user_id={ph}",
                     (tenant, user_id)).fetchall()
    drop, retarget = reviews_to_forget(review_items(rows), set(memory_ids), set(message_ids))
    for rid in drop:
        c.execute(f"DELETE FROM review_queue WHERE tenant={ph} AND user_id={ph} AND id={ph}", (tenant, user_id, rid))
    for rid, targets in retarget.items():
        c.execute(f"UPDATE review_queue SET targets={ph}{json_cast} WHERE tenant={ph} AND user_id={ph} AND id={ph}",
                  (json.dumps(targets), tenant, user_id, rid))
    return len(drop)
