"""Senses induced from the store (issue #23): which sense of a query's word the conversation means, read off the
memories themselves instead of the label lexicons.

A word the user said in two senses was said in two conversations that differ: the sessions holding it have context
vectors (:func:`.write_labels.context_vectors`) that lie apart once the vector every memory of this user shares is
taken out. :func:`candidate_center` is that shared vector, measured on the search's own candidates (the mean of
their context vectors: no lexicon, no prototype, any language); the conversation's vector and the candidates' are
centered on it (:meth:`.anchor.ContextAnchor.context_match` with ``center``), and the conversation picks the closest
session among those holding the query's words (:func:`.rerank.rank_candidates` with ``context_first``). Labels read
off a lexicon only break the ties the sessions leave open (``SearchConfig.anchor_context_decisive``).

Where this decides (``SearchConfig.anchor_senses_gates``): the gates where the conversation decides
(:func:`.hook.informative`: ``template``, ``one_word``), when the query's own words single no memory out (a query
whose words name the sense keeps the memory they single out, :meth:`.anchor.ContextAnchor.singled_out`), and unless
the query's own vector clearly picks another session (:func:`query_disagrees`). And gate ``senses``: no label
domain splits the query's words, but the sessions holding them (:func:`top_holders`, :func:`holder_sessions`) lie
apart and the conversation sits by some of them and stands out of the store (:func:`sessions_tell`).
Measurements: ``SearchConfig`` (``anchor_senses``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..text.tokenize import term_coverage

__all__ = ["candidate_center", "DECIDING_GATES", "conversation_lead", "decide_session", "holder_sessions",
           "query_disagrees",
           "sessions_lead", "sessions_tell",
           "closest_held", "top_holders"]

#: the gates (:func:`.hook.informative`) under which the conversation, not the query's words, picks the sense;
#: "senses": the store's own sessions split the query's words and the conversation tells them apart
#: (:func:`sessions_tell`)
DECIDING_GATES = ("template", "one_word", "spread+conversation", "senses")


def candidate_center(vectors: Mapping[str, np.ndarray], ids: Sequence[str]) -> np.ndarray | None:
    """The mean (dim,) float32 of the context vectors of ``ids`` (a search's candidates) in ``vectors`` (memory id →
    (dim,), or a mapping with ``index`` and ``matrix`` as the stores return), each row L2-normalised first so that
    no memory weighs by its norm; None when fewer than two candidates have one (no mean to speak of)."""
    index, matrix = getattr(vectors, "index", None), getattr(vectors, "matrix", None)
    if isinstance(index, dict) and isinstance(matrix, np.ndarray):
        rows = [index[i] for i in dict.fromkeys(ids) if i in index]
        mat = matrix[rows].astype(np.float64) if rows else np.zeros((0, 0))
    else:
        have = [np.asarray(vectors[i], dtype=np.float64).reshape(-1) for i in dict.fromkeys(ids) if i in vectors]
        mat = np.vstack(have) if have else np.zeros((0, 0))
    if mat.shape[0] < 2:
        return None
    mat = mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
    return mat.mean(axis=0).astype(np.float32)


def holder_sessions(score: np.ndarray, session: np.ndarray, about: np.ndarray | None, own: np.ndarray | None, *,
                    top: int, near: float) -> np.ndarray:
    """The session codes (k,) int64 that hold the query's words with near scores: among the ``top`` best candidates
    by ``score`` (n,) that hold a subject word of the query (``about``, (n,) bool), not of a session of the
    conversation's own stored turns (``own``, (n,) bool), the sessions whose best score is at least ``near`` times
    the best holder's. Empty when ``about`` is None or holds nothing. Two or more: the query's words do not tell
    these sessions apart (no lexicon is read)."""
    if about is None or not about.any():
        return np.zeros(0, dtype=np.int64)
    mine = np.isin(session, session[own]) if own is not None and own.any() else np.zeros(len(score), dtype=bool)
    order = [i for i in np.argsort(-score, kind="stable").tolist() if about[i] and not mine[i]][:max(top, 1)]
    if not order:
        return np.zeros(0, dtype=np.int64)
    best: dict[int, float] = {}
    for i in order:
        best[int(session[i])] = max(best.get(int(session[i]), float("-inf")), float(score[i]))
    s1 = max(best.values())
    return np.array([s for s, v in best.items() if v >= near * s1], dtype=np.int64)


def sessions_tell(sims: np.ndarray, session: np.ndarray, held: np.ndarray, *, margin: float, stand: float) -> bool:
    """Whether the conversation tells apart the sessions ``held`` (:func:`holder_sessions`, two or more): with
    ``sims`` (n,) the candidates' context cosines with the conversation (session-pooled, NaN: none), the closest
    held session leads the farthest by ``margin`` or more (the conversation sits by some of them, not all) and stands
    ``stand`` or more above the median candidate (it sits by some memories, not by the whole store, as a dialogue's
    own preceding session does)."""
    if len(held) < 2 or margin <= 0:
        return False
    per = []
    for s in held.tolist():
        v = sims[(session == s) & ~np.isnan(sims)]
        if len(v):
            per.append(float(v.max()))
    if len(per) < 2:
        return False
    s1 = max(per)
    return s1 - min(per) >= margin and s1 - float(np.nanmedian(sims)) >= stand


def sessions_lead(sims: np.ndarray, session: np.ndarray, held: np.ndarray, *, lead: float) -> bool:
    """Whether the conversation is clearly nearer one of the sessions ``held`` (:func:`holder_sessions`, two or
    more) than any other: with ``sims`` (n,) the candidates' context cosines with the conversation (session-pooled,
    centered, NaN: none), the closest held session's best leads the second closest's by ``lead`` or more. Unlike
    :func:`sessions_tell` no stand above the store is asked: how far the conversation stands above the median
    candidate depends on what else the store holds (pooled polysemy held-out 4: mostly under 0.3; dev: over 0.3),
    while the lead is read among the holders only. False when ``lead`` <= 0 or fewer than two held sessions have a
    vector."""
    if len(held) < 2 or lead <= 0:
        return False
    per = sorted((float(v.max()) for s in held.tolist()
                  if len(v := sims[(session == s) & ~np.isnan(sims)])), reverse=True)
    return len(per) >= 2 and per[0] - per[1] >= lead


def closest_held(sims: np.ndarray, session: np.ndarray, held: np.ndarray) -> int | None:
    """The session code of ``held`` whose best cosine in ``sims`` (n,; NaN: none) is highest; None when no held
    session has one."""
    best: tuple[float, int] | None = None
    for s in held.tolist():
        v = sims[(session == s) & ~np.isnan(sims)]
        if len(v) and (best is None or float(v.max()) > best[0]):
            best = (float(v.max()), int(s))
    return None if best is None else best[1]


def top_holders(terms: Sequence[str], texts: Sequence[str], score: np.ndarray, *, top: int) -> np.ndarray:
    """(n,) bool: which of the ``top`` best candidates (by ``score`` (n,); ``texts``: their memory texts, same
    order) hold one of ``terms`` (:func:`.wording.holder_terms`; a Chinese term as a substring, a Latin one as a
    word start: :func:`anchormem.text.tokenize.term_coverage`). Unlike the BM25 leaders' holders, a memory counts
    whatever its words' segmentation (表 in 机械表)."""
    out = np.zeros(len(score), dtype=bool)
    if not terms or not len(score):
        return out
    order = np.argsort(-score, kind="stable")[:max(top, 1)]
    found = term_coverage(list(terms), [texts[i] for i in order.tolist()])
    out[order[[bool(f) for f in found]]] = True
    return out


def query_disagrees(query_sims: np.ndarray, conv_sims: np.ndarray, session: np.ndarray, about: np.ndarray | None,
                    own: np.ndarray | None, *, lead: float) -> bool:
    """Whether the query's own vector picks another session than the conversation does, and clearly: among the
    candidates holding the query's words (``about``, (n,) bool; all when None or none), outside the conversation's
    own sessions (``own``), the session closest to the query (``query_sims``, (n,) centered cosines, NaN: none)
    leads every other session by ``lead`` or more and is not the session closest to the conversation
    (``conv_sims``). The user who asks "水果苹果甜不甜" in a conversation about phones switched topics: the query's
    words name the sense, the conversation does not decide (no lexicon is read)."""
    pool = ~np.isnan(query_sims) & ~np.isnan(conv_sims)
    if own is not None and own.any():
        pool &= ~np.isin(session, session[own])
    if about is not None and (about & pool).any():
        pool &= about
    if lead <= 0 or not pool.any():
        return False
    q = np.where(pool, query_sims, -np.inf)
    i = int(np.argmax(q))
    rival = float(np.max(q, where=session != session[i], initial=-np.inf))
    if rival == float("-inf") or float(q[i]) - rival < lead:
        return False
    j = int(np.argmax(np.where(pool, conv_sims, -np.inf)))
    return bool(session[i] != session[j])



def conversation_lead(sims: np.ndarray, session: np.ndarray, held: np.ndarray) -> float | None:
    """How clearly the conversation tells apart the sessions holding the query's words: with ``sims`` (n,) the
    candidates' context cosines with the conversation (session-pooled, centered: :meth:`.anchor.ContextAnchor.
    context_match`; NaN: none) and ``held`` (n,) bool the holders, the closest holder session's best cosine minus the
    farthest's. None when fewer than two holder sessions have a vector (nothing to tell apart)."""
    per = [float(np.max(v)) for s in np.unique(session[held]).tolist()
           if len(v := sims[(session == s) & held & ~np.isnan(sims)])]
    return None if len(per) < 2 else max(per) - min(per)


def decide_session(conv_sims: np.ndarray, query_sims: np.ndarray | None, session: np.ndarray, held: np.ndarray, *,
                   lead: float) -> int | None:
    """The holder session the conversation (and the query) picks, contrastively among the sessions holding the
    query's words (``held``, (n,) bool; no lexicon is read): each session's score is the best of its holders' centered
    context cosines with the conversation (``conv_sims``, (n,), session-pooled, NaN: none) plus, when given, with the
    query's own vector (``query_sims``, (n,): a query whose other words name the sense, "what did the trainer suggest
    for the barking?"; None for a template query, whose vector names the word only). Returns the winning session
    code when it leads the runner-up by ``lead`` or more, else None (also with fewer than two scored sessions)."""
    total = conv_sims if query_sims is None else conv_sims + query_sims
    per: dict[int, float] = {}
    for i in np.flatnonzero(held & ~np.isnan(total)).tolist():
        s = int(session[i])
        per[s] = max(per.get(s, float("-inf")), float(total[i]))
    if len(per) < 2:
        return None
    (s1, v1), (_, v2) = sorted(per.items(), key=lambda kv: -kv[1])[:2]
    return s1 if v1 - v2 >= lead else None
