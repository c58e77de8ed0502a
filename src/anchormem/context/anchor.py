"""Context anchoring: label memories on write (with their conversation), label queries (with theirs), and
arbitrate candidates by label agreement on read.

Read path when ``SearchConfig.anchor`` is on (see :meth:`ContextAnchor.rerank`):

    coarse candidates (dense + BM25, ``candidates`` each) → context filter (drop candidates none of whose
    domains is one of the query's; if fewer than ``limit`` survive, the dropped ones come back *below* the
    survivors, marked ``fallback``) → rerank: final · ((1 - anchor_weight) + anchor_weight · label_score) → top-k

``label_score`` = max over shared domains d of q̂_d · m̂_d, where q̂ and m̂ are the query's and the memory's
domain weights relative to their own best domain (so a memory labelled with several senses matches any of
them). Unlabelled memories get a neutral 0.5 and are never filtered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..embedders.protocol import Embedder
from ..types import Hit, Label, MemoryItem
from .labeller import OfflineLabeller, labels_to_dist
from .taxonomy import DOMAIN_NAMES, has_sense_word

__all__ = ["ContextAnchor", "QueryContext", "is_bare_query", "label_score", "label_drafts", "recent_session"]

_SEG = re.compile(r"[,;.!?，。；！？、]|\s+(?:and|but|then|to|while|so)\s+|然后|还有|并且|但是|顺便")


@dataclass
class QueryContext:
    """The query's inferred labels: ``dist`` over domains, ``labels`` (primary first), where they came from
    (``query``, ``query+context``, ``query+recent_session``) and the margin between the two best domains."""

    dist: np.ndarray
    labels: list[Label] = field(default_factory=list)
    source: str = "query"
    margin: float = 1.0

    def weights(self) -> dict[str, float]:
        top = float(self.dist.max()) or 1.0
        return {DOMAIN_NAMES[i]: round(float(self.dist[i]) / top, 3) for i in np.argsort(-self.dist)[:4]
                if self.dist[i] / top >= 0.05}


def _margin(dist: np.ndarray) -> float:
    top = np.sort(dist)[::-1]
    return float(top[0] - top[1]) if len(top) > 1 else 1.0


def is_bare_query(query: str, labeller: OfflineLabeller) -> bool:
    """A query naming a cross-domain word (:data:`.taxonomy.SENSE_WORDS`) with no other domain vocabulary."""
    return has_sense_word(query) and float(labeller.lexicon_hits(query).sum()) == 0.0


def label_score(qdist: np.ndarray, labels: Sequence[Label]) -> float | None:
    """Agreement of a query distribution with a memory's labels in [0, 1] (None: memory unlabelled)."""
    m = labels_to_dist(labels)
    if m is None:
        return None
    q = qdist / (float(qdist.max()) or 1.0)
    m = m / float(m.max())
    return float(np.max(q * m))


class ContextAnchor:
    """Labels memories and queries with an :class:`OfflineLabeller` and reranks hits by label agreement."""

    def __init__(self, embedder: Embedder, labeller: OfflineLabeller | None = None, *,
                 bare_context_weight: float = 0.9) -> None:
        self.embedder = embedder
        self.labeller = labeller or OfflineLabeller(embedder)
        self.bare_context_weight = bare_context_weight

    # ------------------------------------------------------------------ write side
    def label_texts(self, texts: Sequence[str], vectors: np.ndarray, *,
                    prior: Sequence[np.ndarray] = (), context_weight: float = 0.6) -> list[list[Label]]:
        """Labels for consecutive turns of one conversation. Each text's context = the other texts (weight
        1/(1+distance)) and ``prior`` (distributions of the session's earlier memories, newest last)."""
        lab = self.labeller
        if not texts:
            return []
        own = lab.distributions(vectors, texts)
        n = len(texts)
        prior = [p for p in prior if p is not None]
        out: list[list[Label]] = []
        for i in range(n):
            ctx = np.zeros(len(DOMAIN_NAMES), dtype=np.float64)
            for j in range(n):
                if j != i:
                    ctx += own[j] / (1.0 + abs(i - j))
            for k, p in enumerate(reversed(prior)):  # newest prior turn is just before this call
                ctx += p / (1.0 + i + 1 + k)
            dist = lab.mix(own[i], ctx if ctx.sum() > 0 else None, context_weight=context_weight)
            lex = lab.lexicon_hits(texts[i])
            labels = lab.labels(dist, text=texts[i], vector=vectors[i], own=own[i], lexicon=lex)
            out.append(labels)
        self._add_segment_senses(texts, out, own)
        return out

    def _add_segment_senses(self, texts: Sequence[str], out: list[list[Label]], own: np.ndarray) -> None:
        """Several senses in one memory: label each clause of a short multi-clause text on its own and keep a
        clause's clear domain as a secondary label ("I used my Apple phone to order apples" → technology + food).
        Only texts that name one of the few cross-domain words (:data:`.taxonomy.SENSE_WORDS`) and are not
        clear-cut on their own (best domain < 0.9) pay the extra clause embeddings: ~0.5% of LoCoMo turns, so
        labelling adds no embedding calls on the common path (``bench/label_overhead.py``)."""
        segs: list[tuple[int, str]] = []
        for i, t in enumerate(texts):
            if len(t) > 240 or float(own[i].max()) >= 0.9 or not has_sense_word(t):
                continue
            parts = [p.strip() for p in _SEG.split(t) if p and p.strip()]
            parts = [p for p in parts if len(p) >= 6]
            if 2 <= len(parts) <= 4:
                segs.extend((i, p) for p in parts)
        if not segs:
            return
        vecs = self.embedder.embed_documents([p for _, p in segs])
        dists = self.labeller.distributions(vecs, [p for _, p in segs])
        for (i, _), d in zip(segs, dists):
            order = np.argsort(-d)
            if d[order[0]] < 0.25:  # the clause says nothing clear on its own
                continue
            for k in order[:2]:
                if d[k] < 0.6 * d[order[0]]:
                    break
                name = DOMAIN_NAMES[int(k)]
                have = {lab.domain for lab in out[i]}
                if name not in have and len(out[i]) < self.labeller.max_labels + 1:
                    intent = out[i][0].intent if out[i] else None
                    out[i].append(Label(domain=name, topic=None, intent=intent, score=0.6, primary=False))

    # ------------------------------------------------------------------ read side
    def query_context(self, query: str, qvec: np.ndarray, *, context: Sequence[str] = (),
                      embed: Callable[[str], np.ndarray] | None = None,
                      recent: Callable[[], list[MemoryItem]] | None = None, margin: float = 0.35) -> QueryContext:
        """Infer the query's labels from the query and the current conversation (newest turn last). Without a
        conversation and with an ambiguous query (margin < ``margin``), the labels of the user's most recent
        session's memories (``recent()``) decide.

        A *bare* query (it names a cross-domain word of :data:`.taxonomy.SENSE_WORDS` and no other domain
        vocabulary: "what did I say about the bank?", "苹果怎么样了？") says nothing reliable about the sense on
        its own (its embedding just leans to the word's most frequent sense), so the conversation decides (weight
        ``bare_context_weight``) and, without one, the recent session is consulted whatever the margin."""
        lab = self.labeller
        own = lab.distributions(np.asarray(qvec).reshape(1, -1), [query])[0]
        source = "query"
        dist = own
        bare = is_bare_query(query, lab)
        ctx_texts = [c for c in context if c and c.strip()]
        if ctx_texts:
            emb = embed or self.embedder.embed_query
            vecs = np.vstack([emb(t) for t in ctx_texts])
            d = lab.distributions(vecs, ctx_texts)
            w = np.array([1.0 / (1.0 + (len(ctx_texts) - 1 - k)) for k in range(len(ctx_texts))])
            cw, mf = (self.bare_context_weight, 0.0) if bare else (0.7, 0.3)
            dist = lab.mix(own, (d * w[:, None]).sum(axis=0), context_weight=cw, margin_factor=mf)
            source = "query+context"
        elif recent is not None and (bare or _margin(own) < margin):
            dists = [labels_to_dist(it.labels) for it in recent()]
            dists = [x for x in dists if x is not None]
            if dists:
                dist = lab.mix(own, np.mean(dists, axis=0), context_weight=0.5)
                source = "query+recent_session"
        labels = lab.labels(dist, text=query, vector=qvec, own=own, lexicon=lab.lexicon_hits(query))
        return QueryContext(dist=dist, labels=labels, source=source, margin=_margin(dist))

    def rerank(self, hits: list[Hit], qc: QueryContext, *, limit: int, weight: float, min_label: float) -> list[Hit]:
        """Filter and rerank ``hits`` (all coarse candidates, any order) by label agreement; see module doc."""
        kept: list[Hit] = []
        dropped: list[Hit] = []
        qw = qc.weights()
        for h in hits:
            s = label_score(qc.dist, h.memory.labels)
            sim = 0.5 if s is None else s
            filtered = s is not None and s < min_label
            h.score = h.score * ((1.0 - weight) + weight * sim)
            h.explain["anchor"] = {
                "query_labels": qw, "query_label_source": qc.source,
                "memory_labels": {lab.domain: lab.score for lab in h.memory.labels},
                "label_score": None if s is None else round(s, 4), "filtered": filtered, "fallback": False,
            }
            h.explain["final"] = h.score
            (dropped if filtered else kept).append(h)
        kept.sort(key=lambda h: (-h.score, h.memory.created_at))
        if len(kept) >= limit:
            return kept
        dropped.sort(key=lambda h: (-h.score, h.memory.created_at))
        for h in dropped:
            h.explain["anchor"]["fallback"] = True
        return kept + dropped


def label_drafts(anchor: ContextAnchor, store, scope, drafts, vectors: np.ndarray, *, window_s: float = 1800.0,
                 prior_turns: int = 6) -> None:
    """Set ``labels`` on the drafts of one ``add`` call (in place), using the other turns of the call and the
    labels of the same session's recent stored memories (no session_id: the user's memories of the last
    ``window_s`` seconds before the first turn)."""
    if not drafts:
        return
    prior_items = store.recent_memories(scope, prior_turns) if prior_turns else []
    if scope.session_id is None and prior_items:
        t0 = drafts[0].item.created_at.timestamp()
        prior_items = [it for it in prior_items if 0 <= t0 - it.created_at.timestamp() <= window_s]
    prior = [labels_to_dist(it.labels) for it in reversed(prior_items)]  # oldest first
    labels = anchor.label_texts([d.item.text for d in drafts], np.asarray(vectors), prior=prior)
    for d, labs in zip(drafts, labels):
        d.item.labels = labs


def recent_session(store, scope, limit: int = 8) -> list[MemoryItem]:
    """The memories of the user's most recent session (by the newest memory's session_id), newest first."""
    items = store.recent_memories(scope, limit * 3)
    if not items:
        return []
    sid = items[0].session_id
    return [it for it in items if it.session_id == sid][:limit]


def anchor_hook(anchor: ContextAnchor, store, embed: Callable[[str], np.ndarray], query: str, scope, cfg, ctx,
                limit: int) -> Callable[[list[Hit]], list[Hit]]:
    """The ``anchor`` callable for :meth:`Searcher.search`: labels the query (with the conversation ``ctx``,
    normalised messages, newest last) when first called, then filters and reranks the candidates."""
    from ..types import Scope

    def run(hits: list[Hit]) -> list[Hit]:
        texts = [m.content for m in ctx if getattr(m, "role", "user") != "system"]
        texts = texts[-cfg.anchor_context_turns:] if cfg.anchor_context_turns else []
        user_scope = Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id)
        qc = anchor.query_context(query, embed(query), context=texts, embed=embed,
                                  recent=lambda: recent_session(store, user_scope), margin=cfg.anchor_margin)
        return anchor.rerank(hits, qc, limit=limit, weight=cfg.anchor_weight, min_label=cfg.anchor_min_label)

    return run


def check_labels(labels: Sequence[Label | dict]) -> list[Label]:
    """Validate user-given labels: known domains, normalised topic/intent, scores in [0, 1], one primary."""
    from ..errors import InvalidInputError
    from .taxonomy import norm_tag

    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise InvalidInputError("labels must be a list of Label objects or dicts")
    out: list[Label] = []
    for x in labels:
        try:
            lab = x if isinstance(x, Label) else Label(**x)
        except Exception as exc:  # noqa: BLE001 - pydantic/TypeError become ours
            raise InvalidInputError(f"bad label {x!r}: {exc}") from None
        dom = norm_tag(lab.domain)
        if dom not in DOMAIN_NAMES:
            raise InvalidInputError(f"unknown label domain {lab.domain!r}; domains: {', '.join(DOMAIN_NAMES)}")
        if not 0.0 <= lab.score <= 1.0:
            raise InvalidInputError("label score must be in [0, 1]")
        out.append(Label(domain=dom, topic=norm_tag(lab.topic), intent=norm_tag(lab.intent), score=lab.score,
                         primary=lab.primary))
    if out and not any(lab.primary for lab in out):
        out[0].primary = True
    if sum(lab.primary for lab in out) > 1:
        raise InvalidInputError("at most one label can be primary")
    out.sort(key=lambda lab: not lab.primary)
    return out


def relabel_scope(anchor: ContextAnchor, store, scope) -> int:
    """Re-label every current memory of a user scope, session by session. Returns how many were labelled."""
    items = store.list_memories(scope, None)
    if not items:
        return 0
    vecs = store.get_vectors(scope.tenant, [it.id for it in items])
    sessions: dict[object, list[MemoryItem]] = {}
    for it in items:
        sessions.setdefault(it.session_id, []).append(it)
    n = 0
    for sess in sessions.values():
        sess = [it for it in sess if it.id in vecs]
        for i in range(0, len(sess), 64):  # long sessions in windows of 64 turns
            part = sess[i : i + 64]
            labels = anchor.label_texts([it.text for it in part], np.vstack([vecs[it.id] for it in part]))
            n += store.set_labels(scope.tenant, {it.id: labs for it, labs in zip(part, labels)})
    return n
