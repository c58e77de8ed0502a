"""The offline fact extractor over messages: :func:`extract_facts_rules` reads the user's own turns with the
clause rules of :mod:`.rules` (assistant and system turns are no facts of the user's)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..types import Message
from .model import Fact
from .rules import extract_from_text

__all__ = ["extract_facts_rules", "user_turns"]


def user_turns(turns: Any) -> Iterable[tuple[str, str]]:
    """``(role, content)`` of each turn of a string (one user turn), a message, a dict or a list of them."""
    if isinstance(turns, str):
        yield "user", turns
        return
    if isinstance(turns, (dict, Message)):
        turns = [turns]
    for t in turns or []:
        if isinstance(t, str):
            yield "user", t
        elif isinstance(t, Message):
            yield t.role, t.content
        elif isinstance(t, dict):
            yield str(t.get("role", "user")), str(t.get("content", ""))


def extract_facts_rules(turns: str | Message | dict | list[str | Message | dict], *,
                        entity: str = "user") -> list[Fact]:
    """Offline facts from the user's own turns (a string is one user turn; assistant/system turns are skipped).

    Returns facts in order of appearance; within a call, a later statement about the same slot replaces an
    earlier one (the reconcile step across calls is the store's job).
    """
    out: dict[tuple[str, str], Fact] = {}
    for role, content in user_turns(turns):
        if role != "user" or not content.strip():
            continue
        for f in extract_from_text(content, entity=entity):
            out.pop(f.slot, None)
            out[f.slot] = f
    return list(out.values())
