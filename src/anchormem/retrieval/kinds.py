"""Category questions: "What pets does Melanie have?" is answered by turns that name a kind ("our dog Luna", "two
cats"), which share no word with the question, and the default embedder hardly tells a kind from a neighbour.

When a query term names a category of the language data (``data/lang/<lang>/categories.json``, read through
:mod:`anchormem.answering.categories`: pets, sports, instruments, food, drinks, languages, music genres, vehicles...),
:func:`kind_terms` gives the words of its kinds (and of narrower categories: a dog is a pet), and the search adds a
BM25 list over the query's other terms plus those kind words (``bm25_kinds``), fused with
``SearchConfig.category_weight`` × the BM25 weight. A turn naming a kind and the question's other words (the person)
rises; single-hop questions naming no category are untouched. Cost: one keyword search, only for such queries.
"""

from __future__ import annotations

from functools import lru_cache

from ..answering.categories import asked_categories, kind_words
from ..text.tokenize import query_terms

__all__ = ["kind_terms"]


@lru_cache(maxsize=256)
def _own_words(cid: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in kind_words(frozenset({cid})))


def kind_terms(terms: list[str], limit: int = 400) -> tuple[list[str], list[str]]:
    """``(other, kinds)`` for a query's keyword ``terms``: the terms that name no category, and the keyword terms of
    the kinds of the categories the others name (deduplicated, at most ``limit``); ``([...], [])`` when no term
    names a category."""
    cats: set[str] = set()
    other: list[str] = []
    for t in terms:
        # the term must be one of the category's own words as said (a lemma match alone is not enough here)
        c = frozenset(cid for cid in asked_categories(t) if t.casefold() in _own_words(cid))
        if c:
            cats |= c
        else:
            other.append(t)
    if not cats:
        return other, []
    own = {t.casefold() for t in terms}
    # a phrase's head word only ("border collie" -> collie, "guinea pig" -> pig): its modifier alone ("border",
    # "british") names something else
    heads = [p.split()[-1] for p in kind_words(frozenset(cats)) if p.split()]
    kinds = [w for w in dict.fromkeys(query_terms(" ".join(heads))) if w.casefold() not in own]
    return other, kinds[:limit]
