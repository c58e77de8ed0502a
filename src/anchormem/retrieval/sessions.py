"""Session-aware ordering of ranked hits: evidence spread over several conversations, not ten turns of one.

A question such as "Where has Melanie camped?" or "What books has Melanie read?" has its answer in several
sessions, one turn in each. A hit list ranked turn by turn fills its first places with the one session where the
subject is talked about most (the question, the reply, the follow-up, the reaction: paraphrases of one event),
and the other sessions' single turns fall below the cut. Two reorderings act on the hits the search already
holds (no store read, no embedding), both bounded so that a turn far ahead stays ahead:

- :func:`spread` (``SearchConfig.session_spread`` = d ∈ (0, 1]): a greedy pass over the first ``session_spread_top``
  places picks, at each place, the hit with the best score × d^m, m the number of hits of its session already
  placed: a session's second turn competes at d × its score with the other sessions' best (maximal marginal
  relevance with the session as the redundancy measure). d = 1 is the order as it is.
- :func:`lift` (``SearchConfig.session_lift`` = λ ≥ 0): each hit's score × (1 + λ · s), s its session's
  strength: the mean of the session's ``session_lift_turns`` best scores relative to the best hit's score, in
  [0, 1]: a weakly worded turn ("Yes, last weekend, it was great") of a session that is about the question moves
  above an equally scored turn of a session that is not.

The session of a memory (:func:`session_key`) is its ``session_id`` when it was added with one, else the day it
was said (the turns of one conversation share a day far more often than two conversations do).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from ..types import Hit, MemoryItem

__all__ = ["session_key", "spread", "lift"]


def session_key(item: MemoryItem) -> str:
    """The session a memory belongs to: ``"s:" + session_id``, else ``"d:" + the UTC date it was said``."""
    if item.session_id:
        return "s:" + item.session_id
    return "d:" + item.created_at.date().isoformat()


def spread(hits: list[Hit], decay: float, top: int) -> list[Hit]:
    """``hits`` (best first) with the first ``top`` places filled greedily by score × ``decay``^m (m: hits of the
    same :func:`session_key` already placed); the rest follow in their order. ``decay`` ∈ (0, 1] (1: unchanged).
    Scores are left as they are (``explain["session_spread"]`` = the factor a moved hit was placed with). Linear in
    len(hits) × top."""
    if decay >= 1.0 or top <= 1 or len(hits) <= 1:
        return hits
    pool = list(hits[:max(top, 1) * 3])
    rest = hits[len(pool):]
    keys = {id(h): session_key(h.memory) for h in pool}
    placed: Counter[str] = Counter()
    out: list[Hit] = []
    while pool and len(out) < top:
        j = max(range(len(pool)), key=lambda i: (pool[i].score * decay ** placed[keys[id(pool[i])]], -i))
        h = pool.pop(j)
        m = placed[keys[id(h)]]
        if m:
            h.explain["session_spread"] = decay ** m
        placed[keys[id(h)]] += 1
        out.append(h)
    return out + pool + rest


def lift(hits: list[Hit], weight: float, turns: int = 3) -> list[Hit]:
    """``hits`` rescored by × (1 + ``weight`` · s) (s ∈ [0, 1]: the mean of the hit's session's ``turns`` best
    scores over the best hit's score) and sorted again, best first (ties: the order before). ``explain``
    gets ``session_lift`` = s and ``final`` the new score. ``weight`` 0: unchanged."""
    if weight <= 0 or not hits:
        return hits
    top = max(h.score for h in hits)
    if top <= 0:
        return hits
    by: defaultdict[str, list[float]] = defaultdict(list)
    keys = [session_key(h.memory) for h in hits]
    for h, k in zip(hits, keys):
        by[k].append(h.score / top)
    n = max(1, turns)
    strength = {k: sum(sorted(v, reverse=True)[:n]) / n for k, v in by.items()}
    for h, k in zip(hits, keys):
        h.explain["session_lift"] = strength[k]
        h.score *= 1 + weight * strength[k]
        h.explain["final"] = h.score
    order = sorted(range(len(hits)), key=lambda i: (-hits[i].score, i))
    return [hits[i] for i in order]
