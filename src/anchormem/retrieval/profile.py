"""Per-model profile: thresholds that follow the embedding model, calibrated from its own score distribution.

Cosine scales differ by model (multilingual-e5-small puts unrelated texts at 0.75-0.85, all-MiniLM-L6-v2 at 0-0.3),
so a constant threshold tuned for one model is wrong for the next. :func:`calibrate` embeds the shipped calibration
texts (``anchormem/data/lang/{en,zh}/calibration.json``: sentences and single words on unrelated everyday topics)
and measures the model's *background*: the mean and spread of query→passage cosines between unrelated sentences,
and between unrelated words. A threshold is then a position on that background (a z-score), not a cosine:

    floor(model) = mean_sent(model) + Z_DENSE_FLOOR · std_sent(model)
    word_sim(model) = mean_word(model) + Z_WORD_SIM · std_word(model)

with the z-scores read off the default model, where the hand-set cosines were measured
(:data:`anchormem.answering.evidence.PROFILES`: floor 0.78, word similarity 0.84 for multilingual-e5-small). A model
with a hand-set profile keeps it; any other semantic model gets the calibrated one (computed once per process per
model name: 80 short texts embedded). The fusion weights need no per-model constant: they are set per query from
scale-free signals (:func:`anchormem.retrieval.fusion.adaptive_weights`).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..langdata import LANGUAGES, load

__all__ = ["Background", "calibrate", "calibrated_thresholds", "Z_DENSE_FLOOR", "Z_WORD_SIM"]

#: z-scores of the default model's hand-set thresholds on its own background (multilingual-e5-small, English
#: calibration texts (its lowest background): sentences mean 0.731, std 0.0268 -> floor 0.78 is z 1.82; words mean
#: 0.798, std 0.0154 -> 0.84 is z 2.74; measured with :func:`calibrate`). all-MiniLM-L6-v2 int8 then gets floor
#: 0.057 + 1.82 x 0.078 = 0.20 and word similarity 0.243 + 2.74 x 0.083 = 0.47.
Z_DENSE_FLOOR = 1.82
Z_WORD_SIM = 2.74

_lock = threading.Lock()
_cache: dict[str, "Background"] = {}


@dataclass(frozen=True)
class Background:
    """A model's background cosines (query→passage, unrelated pairs): ``sent_mean``/``sent_std`` over sentences,
    ``word_mean``/``word_std`` over single words; ``pairs`` = how many sentence pairs were measured
    (the language with the lowest background, see :func:`_background`)."""

    model: str
    sent_mean: float
    sent_std: float
    word_mean: float
    word_std: float
    pairs: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _texts(kind: str) -> list[list[str]]:
    return [list(load("calibration", lang).get(kind, [])) for lang in LANGUAGES]


def _background(embedder: Any, groups: list[list[str]]) -> tuple[float, float, int]:
    """(mean, std, pairs) of the language whose background is lowest: the one the model tells apart best (an
    English-only model puts every Chinese text close to every other; a floor from that language would cut
    nothing anywhere, one from the other cuts only where the model can tell)."""
    best: tuple[float, float, int] | None = None
    for texts in groups:
        if len(texts) < 2:
            continue
        p = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        q = np.stack([np.asarray(embedder.embed_query(t), dtype=np.float32) for t in texts])
        sims = (q @ p.T)[~np.eye(len(texts), dtype=bool)]
        cand = (float(sims.mean()), float(sims.std()), int(sims.size))
        if best is None or cand[0] < best[0]:
            best = cand
    return best if best is not None else (0.0, 0.0, 0)


def calibrate(embedder: Any) -> Background:
    """The background of ``embedder`` (an :class:`~anchormem.embedders.Embedder`), measured once per process per
    model name. Raises what the embedder raises (EmbeddingError)."""
    name = str(getattr(embedder, "name", type(embedder).__name__))
    with _lock:
        if name in _cache:
            return _cache[name]
    sm, ss, n = _background(embedder, _texts("sentences"))
    wm, ws, _ = _background(embedder, _texts("words"))
    bg = Background(name, sm, ss, wm, ws, n)
    with _lock:
        _cache[name] = bg
    return bg


def calibrated_thresholds(embedder: Any) -> tuple[float | None, float | None]:
    """(dense floor, word-similarity threshold) for ``embedder`` from its background; (None, None) for an embedder
    without meaning (``semantic = False``: the hash embedder) or whose background has no spread."""
    if embedder is None or not getattr(embedder, "semantic", True):
        return None, None
    bg = calibrate(embedder)
    if bg.sent_std <= 0 or bg.word_std <= 0:
        return None, None
    return bg.sent_mean + Z_DENSE_FLOOR * bg.sent_std, bg.word_mean + Z_WORD_SIM * bg.word_std
