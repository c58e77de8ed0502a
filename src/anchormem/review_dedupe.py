"""Queueing the changes an ``add`` holds for review without queueing one twice.

A review item stands for one statement: the proposed memory's text, kind, source, agent, session and the time it
was said (``created_at``, the turn's timestamp). Adding the same turn again (importing the same chat log twice,
a client retrying a call) proposes the same change again; it must not add a second item to the queue. A pending
item for the same statement is reported instead of a new one (its id, so it can still be approved or rejected);
one already approved or rejected is not reported again. The same words said at another time are a new item.
"""

from __future__ import annotations

from typing import Any

from .types import ReviewItem

__all__ = ["queue_reviews", "statement_key"]


def statement_key(item: ReviewItem) -> tuple[Any, ...]:
    """What makes two review items the same statement (see the module docstring)."""
    p = item.proposed
    return (p.text, p.kind, p.source, p.agent_id, p.session_id, p.created_at, tuple(sorted(item.targets)))


def queue_reviews(store: Any, reviews: list[ReviewItem]) -> list[ReviewItem]:
    """Add to ``store``'s review queue the items of ``reviews`` whose statement is not queued yet for their user;
    returns the items to report: the new ones, and the pending items already queued for a repeated statement.
    Reads the queue only when there is something to queue."""
    if not reviews:
        return []
    known: dict[tuple[str, str], dict[tuple[Any, ...], ReviewItem]] = {}
    out: list[ReviewItem] = []
    for review in reviews:
        key = (review.tenant, review.user_id)
        if key not in known:
            known[key] = {statement_key(r): r for r in store.list_reviews(review.tenant, review.user_id, None)}
        existing = known[key].get(statement_key(review))
        if existing is not None:
            if existing.status == "pending":
                out.append(existing)
            continue
        store.add_review(review)
        known[key][statement_key(review)] = review
        out.append(review)
    return out
