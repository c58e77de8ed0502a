"""Helpers shared by the fact-change tests."""

from __future__ import annotations


def add_events(m, text, when, user="u"):
    """``m.add(text)`` for ``user`` at ``when``: one (event, memory text, fact attribute, fact value) per event."""
    return [(e.event, e.memory.text, e.memory.fact.attribute if e.memory.fact else None,
             e.memory.fact.value if e.memory.fact else None)
            for e in m.add(text, user_id=user, timestamp=when)]
