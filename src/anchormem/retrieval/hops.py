"""Multi-hop retrieval: a second round from what the first round found.

A question such as "What activities does Melanie partake in?" has its evidence spread over several memories, and
only some of them share words or meaning with the question. The first round's best hits ("I love painting, it is
so relaxing") carry the words and meaning the others share ("my painting class", "pottery and painting"). The
second round searches again from the ``hop_seeds`` best-fused memories:

- ``bm25_hop``: BM25 over the query's terms plus up to ``hop_terms`` content words of the seeds (words in several
  seeds first; the query's own words and speakers' names left out);
- ``dense_hop``: dense search with the query vector moved towards the seeds' mean vector (Rocchio, the seeds'
  weight ``hop_mix``).

Both lists join the RRF with ``hop_weight`` × the first round's weights, so a memory the first round ranked high
and the second round confirms stays high (single-hop questions keep their top hits), while evidence found only
through the seeds can enter the top ranks. Cost: one extra keyword search and one extra dense search over the
stored vectors (no embedding call).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime

import numpy as np

from ..filters import FilterNode
from ..stores.protocol import Store
from ..text.tokenize import query_terms
from ..types import Scope
from .config import SearchConfig

__all__ = ["hop_terms", "second_round"]

Ranked = list[tuple[str, float]]


def hop_terms(texts: list[str], exclude: set[str], limit: int) -> list[str]:
    """Content words of ``texts`` not in ``exclude`` (casefolded), words in more texts first, then in order of
    appearance; at most ``limit``."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts:
        for w in dict.fromkeys(query_terms(text)):
            if w.casefold() in exclude or w.isdigit():
                continue
            counts[w] += 1
            first.setdefault(w, len(first))
    return sorted(counts, key=lambda w: (-counts[w], first[w]))[:limit]


def second_round(fused: dict[str, float], *, query: str, store: Store, scope: Scope, where: FilterNode | None,
                 as_of: datetime | None, n: int, config: SearchConfig, terms: list[str],
                 query_vector: Callable[[], np.ndarray] | None) -> tuple[dict[str, Ranked], dict[str, float]]:
    """Candidate lists and RRF weights of the second round, from the ``config.hop_seeds`` best of ``fused``
    (memory id → fused score). ``terms``: the first round's keyword terms; ``query_vector``: returns the query's
    embedding (None: no dense round). Returns ``({"bm25_hop": [(id, score)], "dense_hop": [...]}, weights)``;
    empty when there are no seeds."""
    seeds = [d for d, _ in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:config.hop_seeds]]
    if not seeds:
        return {}, {}
    lists: dict[str, Ranked] = {}
    weights: dict[str, float] = {}
    if config.lexical_weight > 0 and config.hop_terms > 0:
        items = store.get_many(scope.tenant, seeds, entities=False)  # text and speaker only
        exclude = {t.casefold() for t in query_terms(query)} | {t.casefold() for t in terms}
        exclude |= {it.speaker.casefold() for it in items.values() if it.speaker}
        extra = hop_terms([items[d].text for d in seeds if d in items], exclude, config.hop_terms)
        if extra:
            lists["bm25_hop"] = store.keyword_search(scope, list(terms) + extra, n, where, as_of)
            weights["bm25_hop"] = config.lexical_weight * config.hop_weight
    if config.dense_weight > 0 and config.hop_mix > 0 and query_vector is not None:
        vecs = store.get_vectors(scope.tenant, seeds)
        if vecs:
            q = np.asarray(query_vector(), dtype=np.float32)
            centroid = np.mean([v / (np.linalg.norm(v) or 1.0) for v in vecs.values()], axis=0)
            moved = (1 - config.hop_mix) * q / (np.linalg.norm(q) or 1.0) + config.hop_mix * centroid
            moved = (moved / (np.linalg.norm(moved) or 1.0)).astype(np.float32)
            lists["dense_hop"] = store.dense_search(scope, moved, n, where, as_of)
            weights["dense_hop"] = config.dense_weight * config.hop_weight
    return lists, weights
