"""The values context anchoring reads from a search's candidates, gathered in one pass over the hits.

:class:`Candidates` holds, per candidate and in the hits' order, its session, score, BM25 and dense scores and
ranks, and its labels as a (n, D) matrix; :meth:`ContextAnchor.singled_out`, ``context_match`` and ``rerank``
(:mod:`.anchor`) read these arrays instead of walking the hits (their ``explain`` dicts and label lists) again
each. :meth:`Candidates.top2` is the rival test on an array: the best value, and the best of a candidate of another
session (memories of one session are no rivals of each other: the query singles out the conversation they were said
in; session-less memories are each their own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..types import Hit
from .taxonomy import DOMAIN_INDEX, DOMAIN_NAMES

__all__ = ["Candidates"]

_NAN = float("nan")


@dataclass(frozen=True)
class Candidates:
    """Per-candidate arrays of ``hits`` (n of them, same order).

    - ``ids``: memory ids; ``session``: (n,) int64 session codes (equal codes: one session; each session-less
      memory has a code of its own: it is nobody's session-mate);
    - ``score``: (n,) float64 ``Hit.score``; ``bm25``, ``bm25_rank``, ``dense``: (n,) float64 from
      ``Hit.explain`` (NaN where the hit was not that retriever's candidate);
    - ``labels``: (n, D) float32, the best label score per domain (columns in ``DOMAIN_NAMES`` order; labels of
      unknown domains are left out); ``labelled``: (n,) bool, the row has a label.
    """

    hits: Sequence[Hit]
    ids: list[str]
    session: np.ndarray
    score: np.ndarray
    bm25: np.ndarray
    bm25_rank: np.ndarray
    dense: np.ndarray
    labels: np.ndarray
    labelled: np.ndarray

    @classmethod
    def of(cls, hits: Sequence[Hit]) -> Candidates:
        """Gather the arrays in one Python pass over ``hits`` (a search's ~100 candidates: this pass is most of
        what anchoring costs beyond numpy)."""
        n, width = len(hits), len(DOMAIN_NAMES)
        spare, get = n * width, DOMAIN_INDEX.get  # an unknown domain goes to the spare cell n · width
        ids: list[str] = []
        session: list[int] = []
        cols: list[float] = []  # per hit: score, bm25, bm25_rank, dense; None (not that retriever's) → NaN
        cells: list[int] = []
        values: list[float] = []
        codes: dict[str, int] = {}
        base = 0
        for i, h in enumerate(hits):
            m, e = h.memory, h.explain
            ids.append(m.id)
            sid = m.session_id
            session.append(-1 - i if sid is None else codes.setdefault(sid, len(codes)))
            b, r, d = e.get("bm25"), e.get("bm25_rank"), e.get("dense")
            cols.extend((h.score, _NAN if b is None else b, _NAN if r is None else r, _NAN if d is None else d))
            for lab in m.labels:
                cells.append(base + get(lab.domain, spare - base))
                values.append(lab.score)
            base += width
        mat = np.zeros(spare + 1, dtype=np.float32)
        if cells:  # the best score per domain (a label list may name a domain twice)
            np.maximum.at(mat, np.array(cells, dtype=np.int64), np.array(values, dtype=np.float32))
        mat = mat[:-1].reshape(n, width)
        col = np.array(cols, dtype=np.float64).reshape(n, 4)
        return cls(hits=hits, ids=ids, session=np.array(session, dtype=np.int64), score=col[:, 0], bm25=col[:, 1],
                   bm25_rank=col[:, 2], dense=col[:, 3], labels=mat, labelled=mat.sum(axis=1) > 0)

    def __len__(self) -> int:
        return len(self.ids)

    def position(self, hit: Hit) -> int:
        """Index of ``hit`` (by identity). Raises ValueError when it is not a candidate."""
        for i, h in enumerate(self.hits):
            if h is hit:
                return i
        raise ValueError("hit is not one of the candidates")

    def top2(self, values: np.ndarray, tie: np.ndarray | None = None) -> tuple[tuple[float, int | None], float]:
        """((best of ``values`` (n,), NaN skipped; its index), the best value of a candidate of another session),
        -inf (and None) where there is none. Equal values: the larger ``tie`` wins, then the earlier candidate."""
        valid = ~np.isnan(values)
        if not valid.any():
            return (float("-inf"), None), float("-inf")
        v = np.where(valid, values, -np.inf)
        i = int(np.argmax(v))
        best = float(v[i])
        if tie is not None:
            cand = np.flatnonzero(v == best)
            if len(cand) > 1:
                i = int(cand[int(np.argmax(tie[cand]))])
        # the best of another session's candidates (-inf where there is none; invalid ones are -inf in v)
        return (best, i), float(np.max(v, where=self.session != self.session[i], initial=-np.inf))

    def lexical_leaders(self, n: int = 30) -> list[Hit]:
        """The ``n`` best BM25 candidates (``explain["bm25_rank"]`` ≤ n), in the hits' order: whatever the query's
        words single out is among them, and :func:`.wording.coverage` reads no more texts than that."""
        keep = ~np.isnan(self.bm25) & ~(self.bm25_rank > n)
        return [self.hits[i] for i in np.flatnonzero(keep)]

