"""Helpers shared by the anchoring tests."""

from __future__ import annotations

from collections.abc import Iterator

from anchormem import Memory


def sessions_memory(sessions: dict[str, list[str]], user: str = "u") -> Iterator[Memory]:
    """A module fixture's body: an in-memory store (default model, no hot cache) holding each session's turns under
    its session id for ``user``; closed after the module."""
    m = Memory(":memory:", cache=False)
    for session, texts in sessions.items():
        for t in texts:
            m.add(t, user_id=user, session_id=session)
    yield m
    m.close()
