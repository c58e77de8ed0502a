"""Read only the candidate rows that can reach the top ``limit``: the candidates of a search without anchoring, in
fused order, their rows loaded in growing chunks until the top ``limit`` is settled.

A candidate's final score is its fused score times factors with known bounds (``Searcher.search``): recency and
importance factors in [1 - weight, 1], a source weight in [min, max] of ``source_weights`` (and 1.0; ``ask_weight``
lowers it), a date factor in [1, 1 + ``time_boost``] when the query has a time window. So a candidate not read yet,
fused at most ``f``, ends at most :func:`upper` (``f`` times the largest product). Once ``limit`` hits read so far
score above that bound, and none of them can be replaced or moved by the steps after the ranking, no unread
candidate can change the ``limit`` returned: the search stops reading (:class:`BoundedFeed`).

The steps after the ranking, and why the settled test refuses what they could change:

- :func:`.search.collapse_repeats` drops a hit that repeats a better one of the same source turn, and lets the
  whole-turn utterance of a current fact take the fact's place: the test wants the ``limit`` best to share no source
  turn and to hold no current fact (an unread utterance could replace it);
- :func:`.currency.order_by_currency` moves a hit with a closed claim that has a successor: none may have one;
- neighbours, session weights, a speaker rule, anchoring, a day recap, past texts and questions about the past read
  or reorder the whole list: :func:`applies` is False for them, and every candidate is read as before.

The hits are then the same (ids, order, scores, explain) as when every candidate is read. A search at 100k memories
read ~20 rows instead of 100 with the ``dense`` recipe (bench/search_ab.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..facts.claims import closed_claims
from ..types import MemoryItem
from .config import SearchConfig

__all__ = ["BoundedFeed", "applies", "factor_range"]

_MARGIN = 1e-9  # relative: a candidate fused exactly at the bound may tie; a hit must beat the bound by this much


def applies(config: SearchConfig, *, anchored: bool, past: bool, recap: bool) -> bool:
    """Whether the ranking is the per-candidate scores alone (no step reading the whole list: module doc)."""
    # a speaker rule (when a config has one) is read off every candidate's speaker: it needs the whole list too
    return not (anchored or past or recap) and config.neighbours <= 0 and config.session_weight <= 0 and \
        getattr(config, "speaker_weight", 0.0) <= 0


def factor_range(config: SearchConfig, window: bool) -> tuple[float, float]:
    """(lowest, highest) product of the per-candidate factors of ``Searcher.search``: recency, importance, source
    weight (with ``ask_weight``) and, with a time window (``window``), the date factor."""
    weights = [1.0, *config.source_weights.values()]
    lo = (1 - config.recency_weight) * (1 - config.importance_weight) * min(weights) * min(1.0, config.ask_weight)
    hi = max(weights) * (1 + config.time_boost if window else 1.0)
    return max(0.0, lo), hi


class BoundedFeed:
    """The ``(memory id, fused score)`` pairs of ``fused``, best first (ties: id), for the search's per-candidate
    loop; before yielding a chunk it reads that chunk's rows into :attr:`items` with ``load(ids)`` (id -> item);
    between chunks it stops once the hits the loop built (``hits``, the list it appends to) settle the top
    ``limit`` (module doc). First chunk: ``2 * limit`` (at least 20) candidates, then four times as many."""

    def __init__(self, fused: dict[str, float], *, limit: int, hits: list[Any], factors: tuple[float, float],
                 load: Callable[[list[str]], dict[str, MemoryItem]]) -> None:
        self.order = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))
        self.limit = limit
        self.hits = hits
        self.lo, self.hi = factors
        self.load = load
        self.items: dict[str, MemoryItem] = {}
        self.read = 0  # candidates whose rows were read

    def __iter__(self) -> Iterator[tuple[str, float]]:
        order, n = self.order, len(self.order)
        size = max(2 * self.limit, 20)
        while self.read < n:
            part = order[self.read : self.read + size]
            self.items.update(self.load([d for d, _ in part]))
            self.read += len(part)
            yield from part
            if self.read < n and self.settled(self.upper(order[self.read][1])):
                return
            size *= 4

    def upper(self, f: float) -> float:
        """The highest final score a candidate fused at ``f`` can reach."""
        return f * (self.hi if f >= 0 else self.lo)

    def settled(self, bound: float) -> bool:
        """The best ``limit`` hits so far all score above ``bound`` and none can be replaced or moved (module doc)."""
        if len(self.hits) < self.limit:
            return False
        cut = bound + abs(bound) * _MARGIN
        seen: set[str] = set()
        ranked = sorted(self.hits, key=lambda h: (-h.score, h.memory.created_at, h.memory.id))
        for h in ranked[: self.limit]:
            m = h.memory
            if not h.score > cut or (m.kind == "fact" and m.valid_to is None):
                return False
            if any(c.superseded_by for c in closed_claims(m)):
                return False
            src = m.source_message_ids
            if any(s in seen for s in src):
                return False
            seen.update(src)
        return True
