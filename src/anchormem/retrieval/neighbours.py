"""Neighbours: the turns said just before and after a top hit, as weak candidates.

What a question asks is often said across two turns: one speaker asks ("What got you into it?") or shows a photo,
the other answers; a turn says "Yes, that one!" and the one before it names the thing. The turn that matches the
question's words is found; the one beside it, which carries the rest of the evidence, shares neither words nor (for
a small embedder) meaning with the question and ranks far down, or not at all. :func:`add_neighbours` gives the
turns adjacent to each of the ``neighbour_top`` best hits a share of that hit's score:

    score += neighbour_weight · (the hit's score) · neighbour_decay^(distance - 1)

(distance 1: the turn just before or after; up to ``neighbours`` turns on each side; from the best of the top hits
it is beside). A turn the search found, beside another it found, rises (two adjacent turns that both match are a
passage that matches); a turn the search did not find enters with the share alone, below the hits that match the
question by themselves. Added, not the better of the two: measured on LoCoMo conversations 0-1 with the product
(max) the turns beside the top hits pushed hits of their own down (R@5 -0.8 at weight 0.5) while the sum gained. Adjacency is the store's (:meth:`Store.adjacent_memories`: same
session, in the order said, turns only, the search's filters applied): one indexed read per top hit, no embedding.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ..filters import FilterNode
from ..stores.protocol import Store
from ..types import Hit, MemoryItem, Scope
from .config import SearchConfig

__all__ = ["add_neighbours"]


def add_neighbours(hits: list[Hit], *, store: Store, scope: Scope, where: FilterNode | None, as_of: datetime | None,
                   config: SearchConfig, keep: Callable[[MemoryItem], bool] | None = None) -> list[Hit]:
    """``hits`` (any order) with the neighbours of the ``config.neighbour_top`` best added or raised (see the module
    docstring), best first (ties: the order before). A new hit's ``explain`` has ``neighbour_of`` (the top hit's
    id), ``neighbour_offset`` (-1: said just before it), ``neighbour_new`` True and ``final``; a raised one gets
    ``neighbour_of``, ``neighbour_offset`` and its new ``final``. The top hits' scores are read before any is
    raised (a raise never feeds another). ``keep``: a loaded neighbour is added only when it returns True (the search's expiry check).
    ``config.neighbours`` 0 or no hits: ``hits`` unchanged (same list)."""
    if config.neighbours <= 0 or config.neighbour_weight <= 0 or not hits:
        return hits
    order = sorted(range(len(hits)), key=lambda i: -hits[i].score)
    top = [hits[i] for i in order[:config.neighbour_top] if hits[i].score > 0]
    if not top:
        return hits
    near = store.adjacent_memories(scope, [h.memory.id for h in top], span=config.neighbours, where=where,
                                   as_of=as_of)
    offer: dict[str, tuple[float, str, int]] = {}  # neighbour id -> (share, top hit id, offset)
    for h in top:
        for nid, off in near.get(h.memory.id, ()):
            s = config.neighbour_weight * h.score * config.neighbour_decay ** (abs(off) - 1)
            if nid not in offer or s > offer[nid][0]:
                offer[nid] = (s, h.memory.id, off)
    if not offer:
        return hits
    by_id = {h.memory.id: h for h in hits}
    missing = [nid for nid in offer if nid not in by_id]
    loaded = store.get_many(scope.tenant, missing) if missing else {}
    out = list(hits)
    for nid, (s, of, off) in offer.items():
        h = by_id.get(nid)
        if h is None:
            item = loaded.get(nid)
            if item is None or (keep is not None and not keep(item)):
                continue
            out.append(Hit(memory=item, score=s, explain={"neighbour_of": of, "neighbour_offset": off, "neighbour_new": True,
                                                             "final": s}))
        else:
            h.score += s
            h.explain.update({"neighbour_of": of, "neighbour_offset": off, "final": h.score})
    idx = sorted(range(len(out)), key=lambda i: (-out[i].score, i))
    return [out[i] for i in idx]
