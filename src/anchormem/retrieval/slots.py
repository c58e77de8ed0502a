"""Slot questions: search puts the memory holding the asked slot's current claim first (issue #22).

"Where do I live?" after "Hi, I'm Sam. I live in Lisbon and I work as a nurse…" and, weeks later, "I moved to
Berlin last month.": the question shares no word with the move ("live" / "moved") and the dense cosine is flat across
the user's memories, so neither list ranks the move, and :mod:`.currency` (which places a superseded memory after
its successor) finds no superseded hit to place it by when the Lisbon sentence is not among the hits either. The
store knows more than the words: each fact is a claim on a slot, and the claims are indexed by slot
(``Store.current_facts``). So a question that reads as a slot question of the asker, or of a person they name
("Where does my sister live?", "我住哪？"; :func:`~anchormem.answering.slot_evidence.slot_evidence` without an
embedder: its words only, no question about the past or a plan), makes the memories holding the asked slots'
current claims:

- one more candidate list of the fusion (:func:`slot_list`, weight ``SearchConfig.slot_weight`` × the query's
  larger list weight; rrf/minmax fusion), so they are scored with the rest;
- and, with ``SearchConfig.slot_first``, the first hits (:func:`place_first`): per asked slot, the turn carrying the
  claim when it is a hit (the user's words, whole; or the best-ranked restatement holding the slot too), else the
  fact memory itself (a hit, or inserted when the fusion or the anchor left it out) (``explain["slot"]`` names the slot; an inserted one also ``explain["inserted"]``).

A question naming no slot, an ``as_of`` read, a question about the past and a search with filters (the caller
narrowed what may answer) are left alone: :func:`slot_list` gives [] and nothing moves.
"""

from __future__ import annotations

from typing import Any

from ..answering.slot_evidence import slot_evidence
from ..types import Hit, MemoryItem, Scope

__all__ = ["slot_list", "place_first"]


def slot_list(query: str, store: Any, scope: Scope, *, where: Any = None, as_of: Any = None,
              past: bool = False) -> list[MemoryItem]:
    """The fact memories holding the current claims of the slots ``query`` asks about (per slot the newest said,
    slots in the order asked), current, warm and in ``scope``; [] for a read with ``where``, ``as_of`` or about the
    past (``past``), and for a question that names no slot of the asker or of a person they name."""
    if where is not None or as_of is not None or past or not query.strip():
        return []
    found = slot_evidence(query, store, scope)
    return [m for m in found if m.valid_to is None and m.tier == "warm" and m.user_id == scope.user_id]


def _holds(m: MemoryItem, slot: str) -> bool:
    """``m`` (current, no summary) states ``slot`` as it holds now: a current claim of it, or its own fact."""
    if m.kind == "summary" or m.valid_to is not None:
        return False
    fact = getattr(m, "fact", None)  # a hit read in part (.stores.rank_rows) has no fact: its claims say it
    return any(c.slot == slot and c.valid_to is None for c in (getattr(m, "claims", None) or ())) or \
        (fact is not None and fact.slot == slot)


def _turn_of(fact: Hit, hits: list[Hit]) -> Hit | None:
    """The hit that is the turn fact hit ``fact`` was read from (same source turn, its words in the turn's, carrying
    its claim as current)."""
    fid, said = fact.memory.id, set(fact.memory.source_message_ids or ())
    words = fact.memory.text.strip().rstrip(".。!！")  # a piece of the turn (a restatement carries it too)
    return next((h for h in hits if h.memory.id != fid and h.memory.kind != "summary" and h.memory.valid_to is None
                 and said & set(h.memory.source_message_ids or ()) and words in h.memory.text
                 and any(c.fact_id == fid and c.valid_to is None for c in (getattr(h.memory, "claims", None) or ()))),
                None)


def _carrier(fact: MemoryItem, hits: list[Hit]) -> Hit | None:
    """The best-ranked hit holding ``fact``'s slot now (``fact`` itself, or a restatement that holds it too: "I live
    in Munich" and later "我住在慕尼黑"), as the turn it was read from when that is a hit (the user's words, whole,
    as ``ask`` cites them); None when no hit holds it."""
    slot = fact.fact.slot if fact.fact is not None else None
    best = next((h for h in hits if h.memory.id == fact.id or (slot is not None and _holds(h.memory, slot))), None)
    if best is None:
        return None
    return (_turn_of(best, hits) if best.memory.kind == "fact" else None) or best


def place_first(hits: list[Hit], facts: list[MemoryItem], limit: int) -> list[Hit]:
    """``hits`` (best first) with, per fact of ``facts`` in order, its carrier (:func:`_carrier`: the hit that is
    the fact or the turn carrying its current claim) first, or the fact inserted when no hit carries it; at most
    ``limit``."""
    if not facts:
        return hits[:limit]
    front: list[Hit] = []
    for f in facts:
        got = _carrier(f, hits)
        if got is None:
            top = hits[0].score if hits else 1.0
            got = Hit(memory=f, score=top, explain={"final": top, "inserted": True})
        if any(got is x for x in front):
            continue
        got.explain["slot"] = f.fact.attribute if f.fact is not None else None
        front.append(got)
    rest = [h for h in hits if not any(h is x for x in front)]
    return (front + rest)[:limit]
