"""Search as of an earlier instant over memories edited since: match and return the text they had then.

The stores index only a memory's current text (embedding and keyword index are rewritten by ``update``). For an
``as_of`` search, the memories of the scope edited after ``as_of`` (:meth:`Store.past_texts`, read from
``memory_history``) are taken out of both candidate lists, where they matched their *current* text, and matched
again on the text they had at ``as_of``:

- dense: that text is embedded as on add (``"speaker: text"``, :func:`anchormem.ingest.pipeline.embedding_text`)
  and scored by inner product with the query vector, the same cosine the stores compute; exact.
- keyword: the text holds a query term as :func:`anchormem.text.tokenize.term_coverage` finds it (stem prefix,
  CJK substring); its score is ``top · matched / len(terms)`` with ``top`` the best store BM25 score of the
  search (1.0 when there is none). The stores' BM25 weighs terms by IDF; this estimate does not, so its place
  among current texts is approximate (with RRF fusion only that place counts).

Returned hits carry the text of ``as_of`` and the fact slot, entities and labels they had then (kept by the edit,
:meth:`Store.past_states`). What stays current: metadata, the context vector (anchoring) and filters (evaluated on
the current row). A memory whose text at
``as_of`` was blanked by a purge is not returned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..ingest.pipeline import embedding_text
from ..text.tokenize import term_coverage
from ..types import MemoryItem

__all__ = ["PastTexts"]


@dataclass
class PastTexts:
    """``texts``: {memory id: text at ``as_of``, None if blanked}; ``speakers``: {memory id: speaker or None}."""

    texts: dict[str, str | None]
    speakers: dict[str, str | None]
    states: dict[str, dict] = field(default_factory=dict)  # the structured fields at as_of (fact, entities, labels)
    _vecs: np.ndarray | None = field(default=None, repr=False)  # the old texts' vectors, embedded once per search

    def dense(self, hits: list[tuple[str, float]], query_vector: np.ndarray,
              embed: Callable[[list[str]], np.ndarray], k: int) -> list[tuple[str, float]]:
        """``hits`` (id, cosine) without the edited memories, plus each edited one scored on its old text;
        best first, at most ``k``. ``embed``: texts → (n, dim) document vectors."""
        keep = [h for h in hits if h[0] not in self.texts]
        ids = [mid for mid, t in self.texts.items() if t is not None]
        if ids:
            if self._vecs is None:  # several query texts (rewrites) of one search share them
                self._vecs = np.asarray(embed([embedding_text(self.texts[mid] or "", self.speakers.get(mid))
                                               for mid in ids]), dtype=np.float32)
            q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
            keep += [(mid, float(v @ q)) for mid, v in zip(ids, self._vecs)]
        return sorted(keep, key=lambda h: -h[1])[:k]

    def lexical(self, hits: list[tuple[str, float]], terms: list[str], k: int) -> list[tuple[str, float]]:
        """``hits`` (id, BM25) without the edited memories, plus each edited one whose old text holds a query
        term, scored ``top · matched / len(terms)``; best first, at most ``k``."""
        keep = [h for h in hits if h[0] not in self.texts]
        if not terms:
            return keep[:k]
        top = max((s for _, s in keep), default=1.0)
        ids = [mid for mid, t in self.texts.items() if t is not None]
        for mid, found in zip(ids, term_coverage(terms, [self.texts[mid] or "" for mid in ids])):
            if found:
                keep.append((mid, top * len(found) / len(terms)))
        return sorted(keep, key=lambda h: -h[1])[:k]

    def items(self, items: dict[str, MemoryItem]) -> dict[str, MemoryItem]:
        """``items`` with the text each had at ``as_of``; blanked ones left out."""
        return {mid: it if mid not in self.texts else  # the text of as_of: not the edit that came later
                it.model_copy(update={"text": self.texts[mid], "updated_at": None, **self.states.get(mid, {})})
                for mid, it in items.items() if self.texts.get(mid, "") is not None}
