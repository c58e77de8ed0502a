"""Senses induced from the store (issue #23): which sense of a query's word the conversation means, read off the
memories themselves instead of the label lexicons.

A word the user said in two senses was said in two conversations that differ: the sessions holding it have context
vectors (:func:`.write_labels.context_vectors`) that lie apart once the vector every memory of this user shares is
taken out. :func:`candidate_center` is that shared vector, measured on the search's own candidates (the mean of
their context vectors: no lexicon, no prototype, any language); the conversation's vector and the candidates' are
centered on it (:meth:`.anchor.ContextAnchor.context_match` with ``center``), and the conversation picks the closest
session among those holding the query's words (:func:`.rerank.rank_candidates` with ``context_first``). Labels read
off a lexicon only break the ties the sessions leave open (``SearchConfig.anchor_context_decisive``).

Where this decides: the gates where the conversation decides (:func:`.hook.informative`: ``template``,
``one_word``, and ``spread+conversation``), when the query's own words single no memory out. A query whose words
name the sense keeps the memory they single out (:meth:`.anchor.ContextAnchor.singled_out`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["candidate_center", "DECIDING_GATES"]

#: the gates (:func:`.hook.informative`) under which the conversation, not the query's words, picks the sense
DECIDING_GATES = ("template", "one_word", "spread+conversation")


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
