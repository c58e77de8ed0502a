"""The offline labeller: domain / topic / intent labels without an LLM.

How it works (measured in ``bench/polysemy.py`` and ``anchormem.eval.polysemy``):

1. **Prototypes.** Every domain of :mod:`.taxonomy` has an English and a Chinese description plus example
   phrases per topic. They are embedded once with the store's embedder (as documents), lazily on the first
   label request, and cached on disk (``<user cache dir>/anchormem/prototypes-<embedder>-<taxonomy hash>.npy``)
   so later processes skip the ~10 s of embedding. Nothing happens at import time.
2. **Centering.** Sentence embeddings share a large common component (e5 cosines between unrelated texts sit
   around 0.75-0.8), so the prototypes' mean vector is subtracted from prototypes and texts before comparing:
   the domain scores spread ~4x wider and the softmax temperature means something.
3. **Logits.** A text's logit for a domain (:meth:`OfflineLabeller.raw_scores`, "centered cosine units") is the
   mean of its two best cosines to that domain's prototypes, plus ``lexicon_bonus`` per lexicon word found in
   the text (general domain vocabulary, ambiguous words excluded; at most ``lexicon_cap`` per domain). A
   softmax with ``temperature`` turns the 19 logits into a distribution.
4. **Context** is mixed in logit space by the callers (:mod:`.anchor`): a memory's logits are averaged with
   those of the turns around it in its session, a query's with those of its conversation.
5. **Labels.** The best domain is the primary label; other domains with at least ``secondary_ratio`` of its
   probability (and any domain the text itself names with lexicon words, for "I used my Apple phone to order
   apples") become secondary labels, up to ``max_labels``. A label's ``score`` is its probability relative to
   the primary's. Topic = the best-matching topic of that domain's prototypes; intent = a small rule set
   (ask / plan / preference / report / statement), English and Chinese.
"""

from __future__ import annotations

import io
import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..embedders.protocol import Embedder
from ..types import Label
from .taxonomy import DOMAIN_INDEX, DOMAINS, DOMAIN_NAMES, everyday_lexicon, norm_tag, taxonomy_fingerprint

__all__ = ["OfflineLabeller", "Distribution", "infer_intent", "softmax", "labels_to_dist", "labels_to_logits"]

log = logging.getLogger("anchormem")

Distribution = np.ndarray  # (len(DOMAIN_NAMES),) float, sums to 1

_WORD = re.compile(r"[a-z][a-z0-9\-']*")
_CJK = re.compile(r"[\u3400-\u9fff]")

_INTENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ask", re.compile(r"[?？]\s*$|^\s*(what|how|when|where|who|which|why|do|does|did|is|are|can|could|should)\b"
                       r"|吗[?？。]?\s*$|呢[?？。]?\s*$|什么|怎么|哪|多少|几", re.I)),
    ("plan", re.compile(r"\b(will|going to|gonna|plan|planning|want to|intend|thinking of|next (week|month|year))\b"
                        r"|打算|计划|准备|想要|明年|下个月|下周", re.I)),
    ("preference", re.compile(r"\b(like|love|enjoy|prefer|hate|favou?rite|can't stand|dislike)\b"
                              r"|喜欢|爱吃|讨厌|偏爱|最爱|受不了", re.I)),
    ("report", re.compile(r"\b(bought|went|got|did|made|had|visited|started|finished|opened|moved|sold|ate)\b"
                          r"|了", re.I)),
)


def infer_intent(text: str) -> str:
    """ask / plan / preference / report / statement, from a few English and Chinese cues."""
    for name, rx in _INTENTS:
        if rx.search(text):
            return name
    return "statement"


def _cache_dir() -> Path | None:
    from ..private_files import cache_dir

    return cache_dir()


class OfflineLabeller:
    """Labels texts with the fixed taxonomy using the store's embedder (prototypes) and small lexicons.

    Thread-safe. ``temperature``: softmax temperature over centered-cosine logits. ``lexicon_bonus``: logit
    units added per lexicon hit (at most ``lexicon_cap`` hits per domain). ``secondary_ratio`` / ``max_labels``:
    which domains become labels (see module doc). ``center``: subtract the prototypes' mean vector first.
    ``cache``: keep the prototype embeddings on disk (never for the hash embedder).
    """

    def __init__(self, embedder: Embedder, *, temperature: float = 0.05, lexicon_bonus: float = 0.05,
                 lexicon_cap: int = 3, secondary_ratio: float = 0.2, max_labels: int = 4,
                 center: bool = True, cache: bool = True) -> None:
        self.embedder = embedder
        self.temperature = temperature
        self.lexicon_bonus = lexicon_bonus
        self.lexicon_cap = lexicon_cap
        self.secondary_ratio = secondary_ratio
        self.max_labels = max_labels
        self.center = center
        self._cache = cache
        self._lock = threading.Lock()
        self._protos: np.ndarray | None = None  # centered, L2-normalised prototype vectors (P, dim)
        self._mu: np.ndarray | None = None  # the prototypes' mean vector (dim,), zeros when not centering
        self._owner: np.ndarray | None = None
        self._groups: list[np.ndarray] = []  # prototype indices per domain
        self._padded: np.ndarray | None = None  # (D, width) prototype indices per domain, padded
        self._topic_idx: list[np.ndarray] = []  # indices of topic phrases per domain
        self._topics: list[str | None] = []
        en, zh = {}, {}
        extra = everyday_lexicon()
        for i, d in enumerate(DOMAINS):
            for w in (*d.lexicon, *extra.get(d.name, ())):
                (zh if _CJK.search(w) else en).setdefault(w, set()).add(i)
        self._lex_en = en
        self._lex_zh = sorted(zh.items(), key=lambda kv: -len(kv[0]))

    # ------------------------------------------------------------------ prototypes
    @staticmethod
    def _texts() -> tuple[list[str], list[int], list[str | None]]:
        texts, owner, topics = [], [], []
        for i, d in enumerate(DOMAINS):
            for t in (d.en, d.zh):
                texts.append(t)
                owner.append(i)
                topics.append(None)
            for topic, phrases in d.topics.items():
                for p in phrases:
                    texts.append(p)
                    owner.append(i)
                    topics.append(topic)
        return texts, owner, topics

    def prototypes(self) -> tuple[np.ndarray, np.ndarray]:
        """(centered unit prototype vectors (P, dim), owning domain index (P,)): embedded on first use, cached."""
        if self._protos is None:
            with self._lock:
                if self._protos is None:
                    texts, owner, topics = self._texts()
                    mat = self._load_or_embed(texts)
                    mu = mat.mean(axis=0) if self.center else np.zeros(mat.shape[1], dtype=np.float32)
                    mat = mat - mu
                    mat /= np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-9)
                    own = np.asarray(owner, dtype=np.int64)
                    self._groups = [np.flatnonzero(own == d) for d in range(len(DOMAIN_NAMES))]
                    width = max(len(g) for g in self._groups)  # index len(own) = the -inf padding column
                    self._padded = np.array([np.pad(g, (0, width - len(g)), constant_values=len(own))
                                             for g in self._groups])
                    self._topic_idx = [np.asarray([i for i in g if topics[i] is not None], dtype=np.int64)
                                       for g in self._groups]
                    self._topics = topics
                    self._owner = own
                    self._mu = mu.astype(np.float32)
                    self._protos = mat.astype(np.float32)
        assert self._owner is not None
        return self._protos, self._owner

    def _load_or_embed(self, texts: list[str]) -> np.ndarray:
        name = re.sub(r"[^\w.\-]+", "_", getattr(self.embedder, "name", "embedder"))
        dim = int(getattr(self.embedder, "dim", 0))
        path = None
        cdir = _cache_dir() if self._cache and not name.startswith("hash") else None
        if cdir is not None:
            path = cdir / f"prototypes-{name}-{dim}-{taxonomy_fingerprint()}.npy"
            try:
                mat = np.load(path)
                if mat.shape == (len(texts), dim):
                    return mat.astype(np.float32)
            except (OSError, ValueError):
                pass
        mat = np.asarray(self.embedder.embed_documents(texts), dtype=np.float32)
        if path is not None:
            try:
                from ..private_files import write_private

                buf = io.BytesIO()
                np.save(buf, mat)
                write_private(path, buf.getvalue())  # 0600 in a 0700 folder, renamed into place
            except OSError as exc:  # a read-only home is fine: we just embed again next time
                log.debug("anchormem: cannot cache label prototypes: %s", exc)
        return mat

    def center_vector(self) -> np.ndarray:
        """The prototypes' mean vector (dim,) float32 that :meth:`centered` subtracts (zeros when not centering)."""
        self.prototypes()
        return self._mu

    def centered(self, vectors: np.ndarray) -> np.ndarray:
        """``vectors`` ((n, dim) or (dim,)) minus the prototypes' mean vector, L2-normalised: (n, dim) float32."""
        self.prototypes()
        v = np.asarray(vectors, dtype=np.float32)
        v = v.reshape(1, -1) if v.ndim == 1 else v
        v = v - self._mu
        return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)

    # ------------------------------------------------------------------ scoring
    def lexicon_hits(self, text: str) -> np.ndarray:
        """Hits per domain (capped) of general domain vocabulary in ``text``."""
        hits = np.zeros(len(DOMAIN_NAMES), dtype=np.float32)
        low = text.lower()
        for w in _WORD.findall(low):
            for cand in (w, w[:-1] if w.endswith("s") else None, w[:-2] if w.endswith("es") else None):
                if cand and cand in self._lex_en:
                    for i in self._lex_en[cand]:
                        hits[i] += 1
                    break
        if _CJK.search(text):
            rest = low
            for w, owners in self._lex_zh:
                if w in rest:
                    for i in owners:
                        hits[i] += 1
                    rest = rest.replace(w, " ")
        return np.minimum(hits, self.lexicon_cap)

    def raw_scores(self, vectors: np.ndarray, texts: Sequence[str], *, lexicon: np.ndarray | None = None
                   ) -> np.ndarray:
        """(n, D) domain logits in centered-cosine units: mean of the two best prototype cosines + lexicon bonus.
        ``vectors``: (n, dim) embeddings of ``texts`` (any scale; they are centered and normalised here).
        ``lexicon``: the texts' :meth:`lexicon_hits` (n, D), when already counted."""
        protos, _ = self.prototypes()
        sims = self.centered(vectors) @ protos.T  # (n, P)
        grouped = np.concatenate([sims, np.full((sims.shape[0], 1), -np.inf, dtype=np.float32)], axis=1
                                 )[:, self._padded]  # (n, D, most prototypes of a domain); padding is -inf
        top2 = np.partition(grouped, grouped.shape[2] - 2, axis=2)[:, :, -2:]  # the two best, in either order
        second = top2.min(axis=2)  # -inf: a domain with one prototype
        out = np.where(np.isfinite(second), top2.mean(axis=2), top2.max(axis=2)).astype(np.float32)
        if self.lexicon_bonus:
            if lexicon is None:
                lexicon = np.vstack([self.lexicon_hits(t) for t in texts]) if len(texts) else out[:0]
            out += self.lexicon_bonus * np.asarray(lexicon, dtype=np.float32).reshape(out.shape)
        return out

    def distributions(self, vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """(n, D) softmax distributions over domains for texts on their own."""
        if len(texts) == 0:
            return np.zeros((0, len(DOMAIN_NAMES)), dtype=np.float32)
        return softmax(self.raw_scores(vectors, texts), self.temperature)

    def best_topic(self, vector: np.ndarray, domain: int) -> str | None:
        """The topic (of ``domain``'s prototypes) nearest to ``vector``; None when the domain has no topics."""
        return self._nearest_topic(self.centered(vector)[0], domain)

    def _nearest_topic(self, centered: np.ndarray, domain: int) -> str | None:
        """:meth:`best_topic` for a vector already :meth:`centered` ((dim,))."""
        protos, _ = self.prototypes()
        idx = self._topic_idx[domain]
        if len(idx) == 0:
            return None
        sims = protos[idx] @ centered
        return self._topics[int(idx[int(np.argmax(sims))])]

    # ------------------------------------------------------------------ labels
    def mix(self, own: np.ndarray, context: np.ndarray | None, *, context_weight: float = 0.6,
            margin_factor: float = 0.6) -> np.ndarray:
        """Mix a text's own distribution with its context's: the context weighs more when ``own`` is unsure."""
        if context is None or not np.isfinite(context).all() or context.sum() <= 0:
            return own
        top = np.sort(own)[::-1]
        margin = float(top[0] - top[1]) if len(top) > 1 else 1.0
        w_ctx = context_weight * (1.0 - margin_factor * margin)
        out = (1 - w_ctx) * own + w_ctx * (context / context.sum())
        return out / out.sum()

    def labels(self, dist: np.ndarray, *, text: str = "", vector: np.ndarray | None = None,
               own: np.ndarray | None = None, lexicon: np.ndarray | None = None) -> list[Label]:
        """Turn a distribution into labels: primary + secondary domains (see module doc)."""
        order = np.argsort(-dist)
        best = float(dist[order[0]])
        chosen = [int(order[0])]
        for d in order[1:]:
            if len(chosen) >= self.max_labels:
                break
            p = float(dist[d])
            named = lexicon is not None and lexicon[d] >= 1 and own is not None and own[d] >= 0.1 * float(own.max())
            if p >= self.secondary_ratio * best or (named and p >= 0.05 * best):
                chosen.append(int(d))
        intent = infer_intent(text) if text else None
        cv = self.centered(vector)[0] if vector is not None else None  # once per text, not per label
        out = []
        for j, d in enumerate(chosen):
            topic = self._nearest_topic(cv, d) if cv is not None else None
            out.append(Label(domain=DOMAIN_NAMES[d], topic=norm_tag(topic), intent=intent,
                             score=round(float(dist[d]) / best, 4), primary=j == 0))
        return out


def softmax(x: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax of ``x / temperature`` along the last axis, float32."""
    z = (np.asarray(x, dtype=np.float64) - np.max(x, axis=-1, keepdims=True)) / temperature
    e = np.exp(z)
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def labels_to_dist(labels: Sequence[Label]) -> np.ndarray | None:
    """A stored label list as a domain distribution (None when unlabelled or all domains unknown)."""
    v = np.zeros(len(DOMAIN_NAMES), dtype=np.float32)
    for lab in labels:
        i = DOMAIN_INDEX.get(lab.domain)
        if i is not None:
            v[i] = max(v[i], float(lab.score))
    s = v.sum()
    return v / s if s > 0 else None


def labels_to_logits(labels: Sequence[Label], temperature: float, floor: float = 0.02) -> np.ndarray | None:
    """A stored label list back in logit units (inverse of the softmax; domains not labelled get ``floor``
    of the primary's probability), so stored labels can be averaged with fresh logits. None when unlabelled."""
    d = labels_to_dist(labels)
    if d is None:
        return None
    return (temperature * np.log(np.maximum(d / d.max(), floor))).astype(np.float32)
