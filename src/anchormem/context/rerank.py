"""The rerank step of context anchoring: label agreement (and context-vector agreement) as per-candidate factors,
the new order, and ``Hit.explain["anchor"]`` for the hits that are returned.

:func:`rank_candidates` computes everything as arrays over the candidates and sets each kept hit's score;
:meth:`Reranking.annotate` writes the explain dicts, for the hits the caller returns only: a search keeps
``limit`` of the max(3 · ``limit``, 30) reranked hits (after dropping repeats), so the other explain dicts would be
built for nothing. The formulas are in :mod:`.anchor` ("Read", "Context-vector factor").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..types import Hit
from .candidates import Candidates

if TYPE_CHECKING:  # the types only: anchor imports this module
    from .anchor import ContextMatch, QueryContext

__all__ = ["Reranking", "rank_candidates"]


@dataclass
class Reranking:
    """The outcome of :func:`rank_candidates`: ``hits``, the kept candidates best first (their ``score`` already
    the reranked one), and per kept hit (same order) its ``factors`` (labels × context), label
    ``agree``-ment, relative agreement ``rel``, ``labelled`` and ``filtered`` flags, and with a conversation the
    context ``sims`` and ``context_factors`` (``context_source``: the reference's kind). ``query``: the query's
    labels (:class:`.anchor.QueryContext`)."""

    hits: list[Hit]
    factors: list[float]
    agree: list[float]
    rel: list[float]
    labelled: list[bool]
    filtered: list[bool]
    query: QueryContext
    sims: list[float] | None = None
    context_factors: list[float] | None = None
    context_source: str | None = None
    gate: str | None = "always"  # why the order was in doubt (.hook.informative); None: the hybrid order was kept
    by_sessions: bool = False  # the sessions holding the query's words decided the sense (.hook, anchor_sessions_decide)
    demoted: list[bool] | None = None  # per kept hit: below the drop bound, placed after every other candidate

    def reorder(self, perm: Sequence[int], *, promoted: int = 0, demoted: int = 0) -> None:
        """Put the kept hits (and their per-hit lists) in the order ``perm`` (a permutation of range(len(hits))), the
        first ``promoted`` raised to at least the best score of the others and the last ``demoted`` lowered below
        half the lowest score of the others, so that the scores still define the order (a later sort by score, such
        as :func:`anchormem.retrieval.sessions.weigh`, keeps it). Raises ValueError when ``perm`` is no
        permutation."""
        perm = list(perm)
        if sorted(perm) != list(range(len(self.hits))):
            raise ValueError("perm must be a permutation of the kept hits")
        for name in ("hits", "factors", "agree", "rel", "labelled", "filtered", "sims", "context_factors", "demoted"):
            v = getattr(self, name)
            if v is not None:
                setattr(self, name, [v[k] for k in perm])
        mid = self.hits[promoted:len(self.hits) - demoted]
        if mid:
            hi, lo = max(h.score for h in mid), min(h.score for h in mid)
            for h in self.hits[:promoted]:
                h.score = max(h.score, hi)
            for h in self.hits[len(self.hits) - demoted:]:
                h.score = min(h.score, 0.5 * lo)

    def annotate(self, hits: Sequence[Hit], *, limit: int | None = None) -> list[Hit]:
        """Write ``explain["final"]`` and ``explain["anchor"]`` on ``hits`` (kept hits of this reranking, in the order
        they are returned) and return them as a list. ``fallback``: a filtered hit (its labels disagree) that is
        returned, i.e. among the first ``limit`` of ``hits`` (all of them when ``limit`` is None). Raises
        ValueError for a hit this reranking did not keep."""
        pos = {id(h): i for i, h in enumerate(self.hits)}
        qw = self.query.weights()
        source = self.query.source
        out = list(hits)
        for rank, h in enumerate(out):
            i = pos.get(id(h))
            if i is None:
                raise ValueError("hit was not kept by this reranking")
            h.explain["final"] = h.score
            filtered = self.filtered[i]
            labelled = self.labelled[i]
            h.explain["anchor"] = a = {
                "query_labels": qw, "query_label_source": source,
                "memory_labels": {lab.domain: lab.score for lab in h.memory.labels},
                "label_score": self.agree[i] if labelled else None,
                "label_rel": self.rel[i] if labelled else None,
                "factor": self.factors[i], "filtered": filtered,
                "fallback": filtered and (limit is None or rank < limit),  # returned although its labels disagree
                "gate": self.gate,
            }
            if self.by_sessions:
                a["sessions_decided"] = True
            if self.demoted is not None and self.demoted[i]:
                a["demoted"] = True  # both signals reject it: after every candidate they keep, not dropped
            if self.sims is not None and self.context_factors is not None:
                s = self.sims[i]
                a.update({"context_sim": None if s != s else s, "context_factor": self.context_factors[i],
                          "context_reference": self.context_source})
        return out


def rank_candidates(hits: list[Hit], qc: QueryContext, *, weight: float, min_label: float, full_label: float = 0.6,
                    limit: int | None = None, context: ContextMatch | None = None, pick: Hit | None = None,
                    drop: float = 0.0, cand: Candidates | None = None, min_top_agreement: float = 0.5,
                    about: np.ndarray | None = None, own: np.ndarray | None = None,
                    gate: str | None = "always", touch: np.ndarray | None = None,
                    context_first: bool = False, decisive: float = 0.0,
                    first_delta: float | None = None, decisive_always: bool = False,
                    demote: bool = True, word_holders: np.ndarray | None = None) -> Reranking:
    """Rerank ``hits`` (all coarse candidates, any order) as :meth:`.anchor.ContextAnchor.rerank` describes, without
    writing explain dicts: the kept hits, best first, get their new ``score``; with ``limit`` only the best
    max(3 · ``limit``, 30) are kept. ``cand``: the hits' arrays, when already gathered. ``about``: (n,) bool, the
    candidates holding one of the query's subject words (:func:`.wording.coverage_and_holders`): the context
    factor's reference is the best of these (that the label filter keeps) when there are any, so the conversation
    picks the sense among the memories about what the query names; a memory closer to the conversation that does not
    name it is not penalised, and it does not push those memories down either ("Apple 怎么样？" in a conversation
    about a portfolio: the Apple-shares memory is the reference, not the bond memory next to the portfolio talk).
    A memory that names what the query names is never dropped by its labels alone: the holders' relative agreement
    is taken against the best holder's (the labels pick a sense among them, they do not rank memories that do not
    name it above all of them: "When can the crane start again?" in a conversation about a project schedule), so the
    best holder is never filtered nor dropped. ``gate``: recorded in ``explain["anchor"]["gate"]``. ``touch``: (n,)
    bool, the only candidates whose score may change (the holders of a split word, :func:`.hook.informative`); the
    others keep factor 1. ``context_first`` (the conversation decides, ``SearchConfig.anchor_context_first``): the
    context factor's reference is the best candidate whatever its labels, and with ``decisive`` > 0 the label
    ``weight`` is scaled by max(0, 1 - gap / ``decisive``), gap = how far the closest session (by ``context.sims``)
    of the candidates holding the query's subject words leads the next such session (:func:`_session_gap`): labels
    read off a lexicon only break the ties the conversation leaves open; ``first_delta``: the context factor's
    ``delta`` then. ``decisive_always``: the label ``weight`` is scaled so wherever a ``context`` factor is given,
    not only with ``context_first`` (the conversation's closest holder session leading the next by ``decisive`` or
    more leaves the labels no say: they never filter the memories of the session the conversation sits by).
    ``drop``: a candidate whose factor is below ``drop`` × the best factor is rejected by both signals; with
    ``demote`` (the default) it is placed after every candidate kept, in its own score order, not dropped: anchoring
    reorders, and a search for k hits returns k when the store holds them (a football conversation and "pitch": the
    pitch-deck memories come after the football session's, not gone). Rejected candidates of a session where a
    rejected one holds the query's words (``about``: the sense the conversation disfavours) come last, after the
    other rejected ones, and among those, the neutral ones (unlabelled, or rejected by the context factor alone) come
    before those whose own labels disagree: when fewer than ``limit`` candidates are kept, the top ranks are filled from
    memories no signal speaks against before any of the disfavoured sense. ``word_holders``: (n,) bool, the candidates
    holding one of the query's words as a substring or word start (:func:`.senses.top_holders`), which mark the
    disfavoured sense's sessions with ``about`` (a template query has no telling word: ``about`` may be empty).
    ``demote`` False: such candidates are dropped (before 2026-12-07). A query distribution that is not
    :attr:`.anchor.QueryContext.informative` (near-uniform) abstains: its label weight is 0."""
    c = cand if cand is not None else Candidates.of(hits)
    if not qc.informative:  # a near-uniform query distribution names no sense: its labels abstain
        weight = 0.0
    agree, labelled = _agreements(qc.dist, c)
    top = max(float(agree.max(initial=0.0)), min_top_agreement)
    rel = agree / top
    held = about is not None and bool(about.any())
    if held:
        top_held = max(float(agree[about].max(initial=0.0)), min_top_agreement)
        rel = np.where(about, agree / top_held, rel)
        # the best holder agrees fully even when its agreement is below min_top_agreement: the labels pick a sense
        # among the memories naming what the query names, they never filter the best of them
        idx = np.flatnonzero(about)  # the best agreement, on a tie the best score
        rel[int(idx[np.lexsort((-c.score[idx], -agree[idx]))[0]])] = 1.0
    if pick is not None:
        rel[c.position(pick)] = 1.0
    sessions_lead = False  # the conversation's closest holder session leads: the labels lose (some of) their say
    if (context_first or decisive_always) and context is not None and decisive > 0:
        scale = max(0.0, 1.0 - _session_gap(context.sims, c.session, about, own) / decisive)
        weight, sessions_lead = weight * scale, scale < 1.0
    if context_first and context is not None and first_delta is not None:
        context.delta = first_delta
    ramp = np.where(labelled, np.clip((rel - min_label) / max(full_label - min_label, 1e-6), 0.0, 1.0), 0.5)
    factors = (1.0 - weight) + weight * ramp
    filtered_mask = labelled & (rel < min_label) & (weight > 0)
    # the context factor's reference: the best candidate whatever its labels when the session decides (context_first,
    # or a session lead under decisive_always), else the best of those the labels keep
    eligible = np.ones(len(c), dtype=bool) if context_first or sessions_lead else ~filtered_mask
    if own is not None and (eligible & ~own).any():
        eligible = eligible & ~own
    if about is not None and (about & eligible).any():
        eligible = about & eligible
    cfac = context.factors(eligible) if context is not None else None
    if cfac is not None:
        factors = factors * cfac
    if touch is not None:
        factors = np.where(touch, factors, 1.0)
        if cfac is not None:
            cfac = np.where(touch, cfac, 1.0)
    scores = c.score * factors
    keep = factors >= drop * float(factors.max(initial=0.0))
    order = _order(scores, hits)
    if demote and not keep.all():
        # the sense it disfavours goes below: the rejected candidates of a session where one names what the query
        # names come after every other candidate (its session-mates with it: the conversation that sense was said in)
        named = about if held else None
        if word_holders is not None and word_holders.any():
            named = word_holders | about if held else word_holders
        last = ~keep & np.isin(c.session, c.session[~keep & named]) if named is not None \
            else np.zeros(len(c), dtype=bool)
        # and among the others, the neutral ones (unlabelled, or rejected by the conversation's context alone) before
        # those whose own labels disagree: the top ranks are filled from memories no signal speaks against first
        against = ~keep & ~last & filtered_mask
        order = np.concatenate([order[keep[order]], order[(~keep & ~last & ~against)[order]], order[against[order]],
                                order[last[order]]])
    else:
        order = order[keep[order]]
    if limit is not None:
        order = order[:max(3 * limit, 30)]
    out = [hits[i] for i in order.tolist()]
    sc = scores[order].tolist()  # Python scalars once for the kept hits (not a numpy scalar per field and hit)
    for h, s in zip(out, sc):
        h.score = s
    r = Reranking(hits=out, factors=factors[order].tolist(), agree=agree[order].tolist(),
                  rel=rel[order].tolist(), labelled=labelled[order].tolist(), filtered=filtered_mask[order].tolist(),
                  query=qc, gate=gate, demoted=(~keep[order]).tolist() if demote and not keep.all() else None)
    if context is not None and cfac is not None:
        r.sims, r.context_factors, r.context_source = (context.sims[order].tolist(), cfac[order].tolist(),
                                                       context.source)
    return r


def _session_gap(sims: np.ndarray, session: np.ndarray, about: np.ndarray | None,
                 own: np.ndarray | None = None) -> float:
    """How far the conversation's closest session leads the next one: the best context cosine (``sims``, (n,), NaN:
    none) of a session's candidates minus the best of another session, among the candidates holding a subject word
    of the query (``about``, (n,) bool; all of them when None or none does). Sessions holding the conversation's own
    stored turns (``own``, (n,) bool) are left out: the conversation is closest to itself whatever the query means.
    0 with fewer than two such sessions."""
    pool = ~np.isnan(sims)
    if own is not None and own.any():
        pool &= ~np.isin(session, session[own])
    if about is not None and (about & pool).any():
        pool = pool & about
    if not pool.any():
        return 0.0
    v = np.where(pool, sims, -np.inf)
    i = int(np.argmax(v))
    rival = float(np.max(v, where=session != session[i], initial=-np.inf))
    return 0.0 if rival == float("-inf") else float(v[i]) - rival


def _agreements(qdist: np.ndarray, cand: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`.anchor.label_score` of every candidate (0 when unlabelled), whether it is labelled), in one
    product."""
    mat = cand.labels
    agree = (mat @ (qdist / (float(qdist.max()) or 1.0))) / np.maximum(mat.sum(axis=1), 1e-12)
    return agree.astype(np.float64), cand.labelled


def _order(scores: np.ndarray, hits: Sequence[Hit]) -> np.ndarray:
    """Indices (n,) int64 of ``hits`` by descending ``scores`` (n,), ties broken by the older memory first (then
    memory id): one stable numpy sort, and the per-hit Python sort only when two scores tie exactly."""
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    if len(ranked) > 1 and bool((ranked[1:] == ranked[:-1]).any()):
        return np.array(sorted(range(len(hits)), key=lambda i: (-scores[i], hits[i].memory.created_at,
                                                                   hits[i].memory.id)),
                        dtype=np.int64)
    return order
