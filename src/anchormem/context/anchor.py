"""Context anchoring: label memories on write (with their conversation), label queries (with theirs), and
arbitrate candidates by label agreement on read.

**Write** (:meth:`ContextAnchor.label_texts`, :func:`label_drafts`): a memory's domain logits (see
:mod:`.labeller`) are averaged with those of the turns around it in its session (weight 1/(1 + distance/3),
its own turn weight 1; earlier turns of the session come from the store), so every turn of a conversation
about savings leans finance even when it says only "it's 20k locked for three years". Several senses in one
memory keep several labels (secondary labels, see :class:`.labeller.OfflineLabeller`). With an LLM configured
(``Settings.labeller``), :class:`.llm_labeller.LLMLabeller` labels the turns instead, with the same session turns as
context; its labels are validated against the taxonomy and its topics grounded in the text, and where it fails the
offline labels stay. Queries are always labelled offline.

**Context vectors** (:func:`context_vectors`): each memory also stores the weighted mean embedding of the same
window of turns (same weights; the memory's own turn weighs most), and the last ``refresh_turns`` stored turns of a
session get theirs recomputed when new turns arrive, so a turn's context covers what was said after it too. Domain
labels are coarse (19 domains: "club" the nightclub and "club" the football club are both *society*); the context
vector keeps whatever the embedder separates. Stored by the store (``context_vec``, schema v5).

**Query** (:meth:`ContextAnchor.query_context`): the query's logits are averaged with its conversation's
(newest turns weigh most). A *bare* query (no domain vocabulary of its own: "what did I say about the bank?",
"苹果怎么样了？") gives the conversation weight ``bare_context_weight`` (0.8), another query 0.3 (its own words
outweigh a conversation about something else: the user may switch topics); a query that names one thing only, a
word the user's memories use in different domains, counts as bare even when the lexicon knows the word ("Tell me
about the python." at the zoo; ``ambiguous`` of :meth:`ContextAnchor.query_context`). The query's distribution is
sharper than a memory's (``query_temperature_ratio``): it has to pick a sense. No conversation: the query alone,
and when it is ambiguous the labels of the user's most recent session are mixed in: ambiguous is bare with one
subject word only (:func:`.wording.subject_terms`: "What about the bank?",
"苹果怎么样了？") and no memory singled out by the query's words (:meth:`ContextAnchor.singled_out`), or less sure
than ``SearchConfig.anchor_margin`` (0 by default). A question with words of its own ("When did Caroline go
biking?", bare as it is: no domain vocabulary) is about whatever session it names, not the latest one: mixing the
latest session into every bare LoCoMo question (683 of 1,982) cost R@1 32.9 → 32.8 against hybrid
(``bench/results/locomo_recall_anchored.json``, before this rule).

**Own match** (:meth:`ContextAnchor.own_match`): when the query's own words single out one memory
(:meth:`ContextAnchor.singled_out`: its BM25 score, or how many telling query words it holds
(:func:`.wording.coverage`), is ``SearchConfig.anchor_match_bm25`` times the best of another session, or it is the
best dense and BM25 candidate and its cosine leads another session's best by ``anchor_match_lead``; a lead counts
only with telling words, not from repeating the ambiguous word), that memory's labels take ``anchor_match_weight``
of the query's label logits and it agrees fully in the rerank. The user who switches topics ("what did I say about
the *left bank* of the river?" in a conversation about savings) names the other sense in the query itself, and a
domain read off the conversation would filter out the very memory the query quotes (``switch`` in
:mod:`anchormem.eval.polysemy`). A template-like query ("what did I say about the bank?") matches many memories
about equally and keeps the conversation's labels.

**Read** when ``SearchConfig.anchor`` is on (:meth:`ContextAnchor.rerank`; the search's hook and its gate, which
keeps the hybrid order where nothing is ambiguous, are in :mod:`.hook`):

    coarse candidates (dense + BM25, ``candidates`` each) → label agreement a = Σ_d m_d · q_d / max(q)
    (m: the memory's label distribution; a memory with several senses matches through any of them) → relative
    agreement r = a / max(best candidate's a, 0.5) → context filter and rerank: final · ((1 - w) + w · ramp(r)),
    ramp = 0 below ``anchor_min_label`` (the candidate is *filtered*: its score takes the factor 1 - w, it is
    never removed for its labels alone, so a search never comes back empty because labels disagree; a filtered hit
    that is still returned is marked ``fallback``), 1 from ``anchor_full_label``, linear between → top-k. A
    candidate whose whole factor (labels × context) is below ``anchor_drop`` times the best candidate's is rejected
    by both signals: a search (``anchor_demote``, on) places it after every candidate kept, those of the disfavoured
    sense's sessions last, so a search for k still returns k hits; :meth:`ContextAnchor.rerank` leaves it out.

**Context-vector factor** (with a conversation; :meth:`ContextAnchor.context_match`): the conversation's vector
(its turns' embeddings, newest weighing most, centered with the labeller's prototype mean) is compared with each
candidate's context vector (centered cosine ``sim``); factor = (1 - w_c) + w_c · clip(1 - (reference - sim) /
``anchor_context_delta``, 0, 1), with the reference the best sim among the candidates that hold one of the query's
subject words (any of them, when some do: :func:`.wording.coverage_and_holders`; "Apple 怎么样？" about a portfolio
takes the Apple-shares memory's, not the bond memory's next to the portfolio talk), or the sim of the memory the
query's own words single out (:meth:`ContextAnchor.singled_out`):
a question that names its sense keeps its session even inside a conversation about the other sense. It
multiplies the label factor. Measured on the pooled polysemy set (``bench/polysemy.py``, raw CoarseWSD labels):
with it (and the shared singled-out rule), EN dev 73.6 → 86.1%, EN held-out 83.3 → 97.6%, ZH dev 89.1 → 92.2%, ZH
held-out 83.3 → 91.7%; with telling-word coverage and ``anchor_drop`` (audited set) EN dev 90.3 → 94.4%, ZH dev
92.2 → 95.3%, ZH held-out 95.8 → 97.9%, EN held-out 97.6% both; parameters (w 0.8 for labels, w_c 0.97, delta 0.1,
BM25 lead 1.5, drop 0.05) chosen on the dev groups.

**Session first** (issue #23): the label lexicons fit the dev words; on a set nobody tuned on ("Anything new about the
stroke?" after "I did 2k in the pool this morning and my legs are dead": the lexicon reads *health*) they filtered
out the very sense the conversation sat by. Each candidate's context cosine is now its session's mean
(``anchor_context_session``), and when the conversation decides (a bare query, nothing singled out) the reference is
the closest session whatever the labels, the label weight shrinks as that session leads the next and the factor's
``delta`` is 0.05 (``anchor_context_first``, ``anchor_context_decisive``, ``anchor_context_first_delta``;
:func:`.rerank.rank_candidates`).

``w`` is ``anchor_weight`` when the query's labels come from its conversation and ``anchor_weight_no_context``
when they come from the query alone (or its recent session): those labels are read off the very text the
dense and BM25 scores already match, so they carry little new evidence and only nudge the order. Unlabelled
memories get a neutral ramp of 0.5. Every hit explains the label match in ``Hit.explain["anchor"]``.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from ..embedders.protocol import Embedder
from ..errors import LLMError
from ..types import Hit, Label
from .labeller import OfflineLabeller, labels_to_dist, labels_to_logits, softmax
from .llm_labeller import LLMLabeller
from .candidates import Candidates
from .rerank import rank_candidates
from .smoothing import _smooth
from .wording import coverage, leads_rivals, subject_terms
from .taxonomy import DOMAIN_INDEX, DOMAIN_NAMES, NO_DOMAIN
from .write_labels import (check_labels, context_vectors, hand_set, label_drafts, relabel_scope,  # noqa: F401
                           session_windows)

log = logging.getLogger("anchormem")
SLOT_HINT = 0.15  # logit bonus (centered-cosine units; the softmax temperature is 0.05) of a fact slot's domain
# a query distribution whose best domain is below this many times the uniform share 1/D names no sense
# (QueryContext.informative): its labels abstain from anchoring
INFORMATIVE_RATIO = 2.0
ABSTAIN_RATIO: float | None = None  # off: a stored sense-bearing turn left unlabelled cost polysemy EN 1.7 points

__all__ = ["ContextAnchor", "QueryContext", "ContextMatch", "context_vectors", "is_bare_query",
           "label_score", "label_drafts", "recent_session_labels", "session_windows",
           "name_collision"]

_SEG = re.compile(r"[,;.!?，。；！？、]|\s+(?:and|but|then|to|while|so)\s+|然后|还有|并且|但是|顺便")
_TOKEN = re.compile(r"[A-Za-z][a-z]+")
_SENT_START = re.compile(r"(?:^|[.!?]\s+)([A-Z][a-z]+)")

@dataclass
class QueryContext:
    """The query's inferred labels: ``dist`` over domains, ``labels`` (primary first), where they came from
    (``query``, ``query+context``, ``query+recent_session``; ``+match`` when :meth:`ContextAnchor.own_match` mixed
    in the labels of the memory the query singles out) and the margin between the two best domains."""

    dist: np.ndarray
    labels: list[Label] = field(default_factory=list)
    source: str = "query"

    @property
    def margin(self) -> float:
        """The gap between the two most probable domains of ``dist`` (1.0 with one domain)."""
        return _margin(self.dist)

    @property
    def informative(self) -> bool:
        """Whether some domain stands out of ``dist``: its best probability is at least :data:`INFORMATIVE_RATIO`
        times the uniform share 1/D. A near-uniform distribution (a search whose gate kept the hybrid order, or a
        query and conversation that say nothing the labeller knows) names no sense: it abstains from anchoring
        (:func:`.rerank.rank_candidates` gives its labels no weight) and shows no ``query_labels``."""
        d = np.asarray(self.dist, dtype=np.float64)
        total = float(d.sum())
        return bool(total > 0 and np.isfinite(d).all() and float(d.max()) / total >= INFORMATIVE_RATIO / len(d))

    def weights(self) -> dict[str, float]:
        """The best (at most 4) domains of ``dist`` by probability relative to the best one's (those of 0.05 or
        more), ``{}`` when the distribution is not :attr:`informative` (e.g. ``{"finance": 1.0, "work": 1.0, ...}``
        was a uniform distribution's first four domain names, not labels)."""
        if not self.informative:
            return {}
        top = float(self.dist.max()) or 1.0
        return {DOMAIN_NAMES[i]: round(float(self.dist[i]) / top, 3) for i in np.argsort(-self.dist)[:4]
                if self.dist[i] / top >= 0.05}


@dataclass
class ContextMatch:
    """Context-vector agreement of the candidates (:meth:`ContextAnchor.context_match`): ``sims`` (n,) centered
    cosine of each candidate's context vector with the conversation's (NaN: none stored), the ``reference``
    cosine (``source`` "match": the memory the query's words single out; else "best", set by :meth:`factors`),
    and the factor's ``weight`` and ``delta``: factor = (1 - weight) + weight · clip(1 - (reference - sim) /
    delta, 0, 1), 0.5 for the ramp of a candidate without a context vector."""

    sims: np.ndarray
    reference: float
    source: str
    weight: float
    delta: float

    def factors(self, eligible: np.ndarray | None = None) -> np.ndarray:
        """Per-candidate factors. Without a "match" reference, the reference is the best sim among ``eligible``
        candidates (those the label filter keeps: the conversation's context ranks within the query's
        domains, it does not overrule them) or, when none has a context vector, among all."""
        if self.source != "match":
            have = ~np.isnan(self.sims)
            pool = have & eligible if eligible is not None and (have & eligible).any() else have
            self.reference, self.source = (float(self.sims[pool].max()), "best") if pool.any() else (0.0, "none")
        ramp = np.clip(1.0 - (self.reference - self.sims) / max(self.delta, 1e-6), 0.0, 1.0)
        return (1.0 - self.weight) + self.weight * np.where(np.isnan(self.sims), 0.5, ramp)


def _margin(dist: np.ndarray) -> float:
    top = np.sort(dist)[::-1]
    return float(top[0] - top[1]) if len(top) > 1 else 1.0


def is_bare_query(query: str, labeller: OfflineLabeller) -> bool:
    """A query with no domain vocabulary of its own (no lexicon word of any domain): its embedding says little
    reliable about which sense of a word it means, so its conversation decides."""
    return float(labeller.lexicon_hits(query).sum()) == 0.0


def name_collision(text: str) -> bool:
    """Whether ``text`` uses one word both as a capitalised name (not at a sentence start) and as a lowercase
    noun: "I used my Apple phone to order apples." (Apple the company, apples the fruit)."""
    starts = {m.start(1) for m in _SENT_START.finditer(text)}
    names, lower = set(), set()
    for m in _TOKEN.finditer(text):
        w = m.group(0)
        if w[0].isupper():
            if m.start() not in starts:
                names.add(w.lower())
        else:
            lower.add(w[:-1] if w.endswith("s") else w)
    return any((n[:-1] if n.endswith("s") else n) in lower for n in names)


def label_score(qdist: np.ndarray, labels: Sequence[Label]) -> float | None:
    """Agreement in [0, 1] of a query distribution with a memory's labels: the share of the memory's label
    mass on domains the query accepts, Σ_d m_d · q_d / max(q). None when the memory is unlabelled."""
    m = labels_to_dist(labels)
    if m is None:
        return None
    return float(m @ (qdist / (float(qdist.max()) or 1.0)))


class ContextAnchor:
    """Labels memories and queries with an :class:`OfflineLabeller` and reranks hits by label agreement.

    ``bare_context_weight`` / ``context_weight``: the conversation's share of a bare / another query's logits.
    ``query_temperature_ratio``: the query's softmax temperature relative to the labeller's (< 1: a query's
    distribution is sharper than a memory's, since the query must pick a sense while a memory may keep
    several). ``session_decay`` (turns) and ``own_weight``: the write-side session smoothing (module doc).
    ``min_top_agreement``: relative agreement is taken against the best candidate's agreement, or this when the
    best is lower (when no candidate matches the query's domains well, all of them count as filtered).
    ``match_bm25_ratio``: how far the BM25 score of a memory the query singles out must lead (:meth:`own_match`).
    ``llm_labeller``: labels written turns with an LLM (:mod:`.llm_labeller`), the offline labels as fallback."""

    RECENT_TTL_S = 60.0  # how long the recent session's labels are kept for one store generation

    def __init__(self, embedder: Embedder, labeller: OfflineLabeller | None = None, *,
                 bare_context_weight: float = 0.8, context_weight: float = 0.3, query_temperature_ratio: float = 0.5,
                 session_decay: float = 3.0, own_weight: float = 1.0, min_top_agreement: float = 0.5,
                 match_bm25_ratio: float = 1.2, llm_labeller: LLMLabeller | None = None,
                 abstain_ratio: float | None = ABSTAIN_RATIO) -> None:
        self.embedder = embedder
        self.abstain_ratio = abstain_ratio
        self.labeller = labeller or OfflineLabeller(embedder)
        self.llm_labeller = llm_labeller
        self.bare_context_weight = bare_context_weight
        self.context_weight = context_weight
        self.query_temperature_ratio = query_temperature_ratio
        self.min_top_agreement = min_top_agreement
        self.session_decay = session_decay
        self.own_weight = own_weight
        self.match_bm25_ratio = match_bm25_ratio
        # conversation turn (text) or query ((text, hash of its embedding)) → domain logits (D,)
        self._turn_cache: OrderedDict[str | tuple[str, int], np.ndarray] = OrderedDict()
        # (tenant, user, agent) → (store generation, monotonic time, the recent session's mean logits or None)
        self._recent_cache: OrderedDict[tuple, tuple[int, float, np.ndarray | None]] = OrderedDict()
        # (turn texts, centered) → the conversation's vector (dim,)
        self._conv_cache: OrderedDict[tuple[tuple[str, ...], bool], np.ndarray] = OrderedDict()
        # a stored memory (id, hash of its text) → its raw domain logits (D,): the turns before a new one are
        # scored once, not again on every add of the session (the text's hash: an update re-scores it)
        self._stored_raw: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ write side
    def label_texts(self, texts: Sequence[str], vectors: np.ndarray, *, prior: Sequence[np.ndarray | None] = (),
                    prior_texts: Sequence[str] = (), prior_vectors: np.ndarray | None = None,
                    hints: Sequence[str | None] = (), prior_raw: np.ndarray | None = None) -> list[list[Label]]:
        """Labels for consecutive turns of one conversation (``vectors``: their embeddings, (n, dim)). Each turn
        is smoothed with the other turns and the session's earlier turns: ``prior_texts`` with their
        ``prior_vectors`` (oldest first), or else ``prior``, their stored label distributions (oldest first).
        ``hints``: per text, a domain it is known to belong to (a fact's slot: :func:`.taxonomy.slot_domain`),
        which adds :data:`SLOT_HINT` to that domain's logit ("I live in Lisbon." is home, whatever its few words
        embed as);
        :data:`~.taxonomy.NO_DOMAIN` for none ("My phone number is …"). A turn is left unlabelled (``[]``), not
        guessed, when its hint is NO_DOMAIN or (``abstain_ratio`` given) its runner-up has that share of the best's.
        ``prior_raw``: the prior turns' raw logits ((m, D), :meth:`stored_logits`) when already known."""
        lab = self.labeller
        if not texts:
            return []
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        lex = [lab.lexicon_hits(t) for t in texts]  # counted once: the logits and the labels both use them
        own_raw = lab.raw_scores(vectors, texts, lexicon=np.vstack(lex))
        for i, dom in enumerate(hints):
            if dom in DOMAIN_INDEX:
                own_raw[i, DOMAIN_INDEX[dom]] += SLOT_HINT
        if prior_raw is not None:
            prior_raw = np.asarray(prior_raw, dtype=np.float32).reshape(-1, len(DOMAIN_NAMES))
        elif len(prior_texts) and prior_vectors is not None:
            prior_raw = lab.raw_scores(np.asarray(prior_vectors).reshape(len(prior_texts), -1), list(prior_texts))
        else:
            rows = [p for p in (_dist_logits(p, lab.temperature) for p in prior) if p is not None]
            prior_raw = np.vstack(rows) if rows else np.zeros((0, len(DOMAIN_NAMES)), dtype=np.float32)
        dists = softmax(_smooth(own_raw, prior_raw, self.own_weight, self.session_decay), lab.temperature)
        own = softmax(own_raw, lab.temperature)
        top2 = np.sort(dists, axis=1)[:, -2:]  # abstain: a runner-up within abstain_ratio of the best, or no domain
        unsure = (top2[:, 0] >= self.abstain_ratio * top2[:, 1] if self.abstain_ratio is not None else
                  np.zeros(len(texts), dtype=bool)) | np.array([h == NO_DOMAIN for h in hints] +
                                                                           [False] * (len(texts) - len(hints)))
        out = [[] if unsure[i] else
               lab.labels(dists[i], text=texts[i], vector=vectors[i], own=own[i], lexicon=lex[i])
               for i in range(len(texts))]
        by_llm = self._llm_labels(texts, prior_texts, out) if self.llm_labeller is not None else set()
        self._add_clause_senses(texts, out, skip=by_llm | {i for i, labs in enumerate(out) if not labs})
        return out

    def stored_logits(self, ids: Sequence[str], texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
        """(n, D) raw domain logits (:meth:`OfflineLabeller.raw_scores`) of stored memories (``vectors``: their
        embeddings, (n, dim)), each computed once and kept (the last 2,048) under (id, hash of its text)."""
        keys = [(i, hash(t)) for i, t in zip(ids, texts)]
        with self._lock:
            got = [self._stored_raw.get(k) for k in keys]
        miss = [j for j, g in enumerate(got) if g is None]
        if miss:
            vecs = np.asarray(vectors, dtype=np.float32).reshape(len(keys), -1)
            fresh = self.labeller.raw_scores(vecs[miss], [texts[j] for j in miss])
            with self._lock:
                for j, row in zip(miss, fresh):
                    got[j] = row
                    self._stored_raw[keys[j]] = row
                while len(self._stored_raw) > 2048:
                    self._stored_raw.popitem(last=False)
        return np.vstack(got) if got else np.zeros((0, len(DOMAIN_NAMES)), dtype=np.float32)

    def _llm_labels(self, texts: Sequence[str], prior_texts: Sequence[str], out: list[list[Label]]) -> set[int]:
        """Replace the offline labels in ``out`` by the LLM labeller's (:mod:`.llm_labeller`) where it gives
        valid ones; returns the indexes it labelled. An unusable reply or a failing endpoint leaves the offline
        labels, counted in ``llm_labeller.stats.failed`` and logged: labelling never fails a write."""
        stats = self.llm_labeller.stats
        try:
            got = self.llm_labeller.label(texts, context=prior_texts)
        except LLMError as exc:
            stats.failed += len(texts)
            log.warning("LLM labeller failed for %d turns, offline labels kept: %s", len(texts), exc)
            return set()
        done = {i for i, labs in enumerate(got) if labs}
        for i in done:
            out[i] = got[i]
        if len(done) < len(texts):
            stats.failed += len(texts) - len(done)
            log.warning("LLM labeller gave no valid label for %d of %d turns, offline labels kept",
                        len(texts) - len(done), len(texts))
        return done

    def _add_clause_senses(self, texts: Sequence[str], out: list[list[Label]],
                           skip: AbstractSet[int] = frozenset()) -> None:
        """Several senses in one memory: a short text that uses one word as a name and as a noun
        (:func:`name_collision`) has each clause labelled on its own, and a clause's clear domain becomes a
        secondary label ("I used my Apple phone to order apples" → technology + food). Only such texts pay the
        extra clause embeddings, so labelling adds no embedding calls on the common path
        (``bench/label_overhead.py``); turns in ``skip`` (labelled by the LLM, secondary senses included) pay none."""
        segs: list[tuple[int, str]] = []
        for i, t in enumerate(texts):
            if i in skip or len(t) > 240 or not name_collision(t):
                continue
            parts = [p.strip() for p in _SEG.split(t) if p and len(p.strip()) >= 6]
            if 2 <= len(parts) <= 4:
                segs.extend((i, p) for p in parts)
        if not segs:
            return
        vecs = self.embedder.embed_documents([p for _, p in segs])
        dists = self.labeller.distributions(vecs, [p for _, p in segs])
        for (i, _), d in zip(segs, dists):
            k = int(np.argmax(d))
            have = {lab.domain for lab in out[i]}
            if d[k] >= 0.25 and DOMAIN_NAMES[k] not in have and len(out[i]) <= self.labeller.max_labels:
                intent = out[i][0].intent if out[i] else None
                out[i].append(Label(domain=DOMAIN_NAMES[k], topic=None, intent=intent, score=0.6, primary=False))

    # ------------------------------------------------------------------ read side
    def query_context(self, query: str, qvec: np.ndarray, *, context: Sequence[str] = (),
                      embed: Callable[[str], np.ndarray] | None = None,
                      recent: Callable[[], np.ndarray | None] | None = None, margin: float = 0.35,
                      with_labels: bool = True, ambiguous: bool = False) -> QueryContext:
        """Infer the query's labels from the query (``qvec``: its embedding, already computed for dense search)
        and the current conversation (``context``, newest turn last; each turn embedded with ``embed``, by
        default the embedder's ``embed_query``). See the module doc. Without a conversation and with a bare query
        of one subject word (:func:`.wording.subject_terms`) or an unsure one (margin < ``margin``), the labels of
        the user's most recent session are mixed in (``recent()``: their mean logits (D,), None when there are
        none, :meth:`recent_logits`; ``recent`` None: never).
        ``with_labels=False``: only the distribution (search needs no ``Label`` objects). ``ambiguous``: the query
        names one thing only and the user's memories holding that word have different domains
        (:meth:`AnchorHook.__call__`): a conversation weighs as for a bare query even when the word is domain
        vocabulary ("Tell me about the python." at the zoo: "python" is technology vocabulary, the conversation
        is about snakes)."""
        lab = self.labeller
        ctx_texts = [c for c in context if c and c.strip()]
        emb = embed or self.embedder.embed_query
        qlex = lab.lexicon_hits(query)
        own_raw, craw = self._raw_scores(query, qvec, ctx_texts, emb, qlex)
        logits, source = own_raw, "query"
        bare = float(qlex.sum()) == 0.0  # is_bare_query

        if ctx_texts:
            bare = bare or ambiguous
            w = 1.0 / (1.0 + np.arange(len(ctx_texts) - 1, -1, -1, dtype=np.float64))  # newest weighs 1
            a = self.bare_context_weight if bare else self.context_weight
            logits = (1 - a) * own_raw + a * (w @ craw) / w.sum()
            source = "query+context"
        elif recent is not None and ((bare and len(subject_terms(query)) <= 1)
                                     or (margin > 0 and _margin(softmax(own_raw, lab.temperature)) < margin)):
            row = recent()
            if row is not None:
                logits = 0.5 * own_raw + 0.5 * row
                source = "query+recent_session"
        dist = softmax(logits, lab.temperature * self.query_temperature_ratio)
        labels = lab.labels(dist, text=query, own=softmax(own_raw, lab.temperature), lexicon=qlex) \
            if with_labels else []
        return QueryContext(dist=dist, labels=labels, source=source)

    def recent_logits(self, store, scope) -> np.ndarray | None:
        """The mean label logits (D,) float32 of the user's most recent session (:func:`recent_session_labels`,
        in :func:`.labeller.labels_to_logits` units), None when it has no labelled memory. Kept per (tenant,
        user, agent) while the store's write generation (``Store.scope_generation``) is unchanged, for at most
        ``RECENT_TTL_S`` seconds (a memory can expire without a write): an ambiguous query without a conversation
        costs one generation read instead of reading and parsing the session's labels."""
        key = (scope.tenant, scope.user_id, scope.agent_id)
        gen = store.scope_generation(scope.tenant, scope.user_id)
        now = time.monotonic()
        with self._lock:
            got = self._recent_cache.get(key)
        if got is not None and got[0] == gen and now - got[1] < self.RECENT_TTL_S:
            return got[2]
        t = self.labeller.temperature
        rows = [x for x in (labels_to_logits(labs, t) for labs in recent_session_labels(store, scope))
                if x is not None]
        row = np.mean(rows, axis=0).astype(np.float32) if rows else None
        if row is not None:
            row.setflags(write=False)
        with self._lock:
            self._recent_cache[key] = (gen, now, row)
            self._recent_cache.move_to_end(key)
            while len(self._recent_cache) > 1024:
                self._recent_cache.popitem(last=False)
        return row

    def singled_out(self, hits: Sequence[Hit], lead: float, bm25_lead: float | None = None,
                    query: str | None = None, cand: Candidates | None = None,
                    cov: dict[str, tuple[float, frozenset[str]]] | None = None) -> Hit | None:
        """The candidate the query's own words single out, or None. Runner-ups come from other sessions
        (:meth:`.candidates.Candidates.top2`; ``cand``: the hits' arrays, when already gathered). Three ways:

        - by BM25 (``bm25_lead``): the best BM25 candidate (``Hit.explain["bm25"]``) when its score is at least
          ``bm25_lead`` times the runner-up's (another candidate must match the query's words too; a memory alone
          in holding a telling word is found by coverage, below);
        - by coverage (``bm25_lead``, with ``query``): the candidate holding the most telling query words
          (:func:`.wording.coverage`) when that is ``bm25_lead`` times the runner-up's ("hedgehog, mole, shrew"
          against a memory with "shrew, mole"), or when no other session holds any ("What did I say about the
          ducks?" inside a conversation about money: the one memory with "ducks");
        - by both retrievers: the best BM25 candidate is also the best dense one, its cosine (``explain["dense"]``)
          leads the runner-up's by ``lead`` and its BM25 score is ``match_bm25_ratio`` times the runner-up's.

        With ``query``, a lead counts only when the memory holds telling words (:func:`.wording.coverage`: ones most
        candidates do not hold) and no rival holds more (:func:`.wording.leads_rivals`; a lead in words alone: when they
        include every telling word a rival holds). "What did I say about the pound?" matches every
        candidate on "pound" alone; the one that says it four times, or is shortest, leads in BM25 without saying
        which sense is meant. "我买的芒果是哪里产的？" gives a short memory holding only 产 a BM25 lead over the
        ones holding 芒果 and 买. ``cov``: :func:`.wording.coverage` of the lexical leaders, when already
        computed."""
        c = cand if cand is not None else Candidates.of(hits)
        (b1, li), b2 = c.top2(c.bm25)
        lex_top = None if li is None else hits[li]
        leaders = c.lexical_leaders() if query is not None else []
        if cov is None and query is not None:
            cov = coverage(query, leaders)
        if (bm25_lead is not None and lex_top is not None and b2 > 0 and b1 >= bm25_lead * b2
                and (cov is None or leads_rivals(lex_top, leaders, cov, superset=False))):
            return lex_top
        if bm25_lead is not None and cov:
            (c1, ci), c2 = c.top2(np.array([cov[m][0] if m in cov else np.nan for m in c.ids]), tie=c.bm25)
            cov_top = hits[ci]
            if c1 > 0 and c1 >= bm25_lead * max(c2, 0.0) and leads_rivals(cov_top, leaders, cov, superset=True):
                return cov_top  # c2 = 0: no other session holds a telling word ("ducks", "朋友圈")
        if len(hits) < 2 or (cov is not None and lex_top is not None
                             and cov.get(lex_top.memory.id, (0.0,))[0] <= 0):  # no telling word: no lead
            return None
        (d1, di), d2 = c.top2(c.dense)
        if di is None or hits[di] is not lex_top or d2 == float("-inf") or d1 - d2 < lead:
            return None  # no dense runner-up: no lead to speak of
        if b1 < self.match_bm25_ratio * max(b2, 0.0):  # no other candidate matches the query's words: b2 = -inf
            return None
        return lex_top

    def _raw_scores(self, query: str, qvec: np.ndarray, ctx_texts: list[str], emb: Callable[[str], np.ndarray],
                    qlex: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the query's domain logits (D,), its conversation turns' (k, D)), one labeller pass for whatever is not
        cached: a conversation's turns come back in every search of that conversation, so their logits are kept
        (LRU of 1024 entries, per anchor), and so are the query's (keyed by its text and embedding: a repeated
        query, like a repeated turn, costs no prototype product). ``qlex``: the query's lexicon hits (D,)."""
        lab = self.labeller
        qvec = np.asarray(qvec, dtype=np.float32).reshape(1, -1)
        qkey = (query, hash(qvec.tobytes()))  # the query's logits, by its text and embedding
        cache = self._turn_cache
        with self._lock:
            known = {t: cache[t] for t in (qkey, *ctx_texts) if t in cache}
            for t in known:
                cache.move_to_end(t)
        todo = [t for t in dict.fromkeys(ctx_texts) if t not in known]
        own = qkey not in known
        if own or todo:
            raw = lab.raw_scores(np.vstack([*([qvec] if own else []), *(emb(t) for t in todo)]),
                                 [*([query] if own else []), *todo],
                                 lexicon=np.vstack([*([qlex] if own else []), *(lab.lexicon_hits(t) for t in todo)]))
            raw.setflags(write=False)  # cached rows are shared between searches
            with self._lock:
                for t, row in zip([qkey] * own + todo, raw):
                    known[t] = cache[t] = row
                while len(cache) > 1024:
                    cache.popitem(last=False)
        craw = np.vstack([known[t] for t in ctx_texts]) if ctx_texts else np.zeros((0, len(DOMAIN_NAMES)), np.float32)
        return known[qkey], craw

    def own_match(self, qc: QueryContext, top: Hit | None, *, weight: float) -> QueryContext:
        """``qc`` with the labels of ``top``, the memory the query singles out (:meth:`singled_out`), mixed in
        (module doc): the query's logits become (1 - ``weight``) · its own + ``weight`` · that memory's (from its
        stored labels) and the source gets ``+match``. With no ``top``, ``weight`` 0 or an unlabelled memory,
        ``qc`` comes back unchanged."""
        if weight <= 0:
            return qc
        if top is None:
            return qc
        t = self.labeller.temperature
        mlog = labels_to_logits(top.memory.labels, t)
        if mlog is None:
            return qc
        tq = t * self.query_temperature_ratio
        qlog = tq * np.log(np.maximum(qc.dist.astype(np.float64), 1e-12))
        dist = softmax((1 - weight) * qlog + weight * mlog, tq)
        return QueryContext(dist=dist, labels=qc.labels, source=qc.source + "+match")

    def conversation_vector(self, texts: Sequence[str], embed: Callable[[str], np.ndarray]) -> np.ndarray:
        """The conversation's vector for :meth:`context_match`: the embeddings of its turns (``texts``, newest
        last; ``embed(text)`` → (dim,)) weighted 1/(1 + age/``session_decay``) (the newest weighs 1), minus the
        labeller's prototype mean, L2-normalised: (dim,) float32. A conversation's turns come back in each of its
        searches, so the vector is kept per turn texts (LRU of 256, cleared by :meth:`forget`)."""
        return self._conversation(texts, embed, centered=True)

    def conversation_mean(self, texts: Sequence[str], embed: Callable[[str], np.ndarray]) -> np.ndarray:
        """The same weighted mean of the conversation's turn embeddings as :meth:`conversation_vector`, neither
        centered nor normalised: (dim,) float32, for a caller that centers it on a mean of its own
        (:mod:`.senses`: the candidates' mean context vector). Kept per turn texts, as that vector is."""
        return self._conversation(texts, embed, centered=False)

    def _conversation(self, texts: Sequence[str], embed: Callable[[str], np.ndarray], *,
                      centered: bool) -> np.ndarray:
        key = (tuple(texts), centered)
        with self._lock:
            got = self._conv_cache.get(key)
            if got is not None:
                self._conv_cache.move_to_end(key)
                return got
        conv = np.vstack([np.asarray(embed(t), dtype=np.float32).reshape(-1) for t in texts])
        w = (1.0 / (1.0 + np.arange(len(conv) - 1, -1, -1, dtype=np.float32) / self.session_decay))
        mean = ((w @ conv) / w.sum()).astype(np.float32)
        cvec = self.labeller.centered(mean)[0] if centered else mean
        cvec.setflags(write=False)
        with self._lock:
            self._conv_cache[key] = cvec
            while len(self._conv_cache) > 256:
                self._conv_cache.popitem(last=False)
        return cvec

    def forget(self) -> None:
        """Drop every kept conversation turn, query and session label row (the read caches: their keys are text
        users said), e.g. after a purge."""
        with self._lock:
            self._turn_cache.clear()
            self._conv_cache.clear()
            self._stored_raw.clear()
            self._recent_cache.clear()

    def context_match(self, hits: Sequence[Hit], conversation: np.ndarray, memory_vectors: Mapping[str, np.ndarray],
                      *, pick: Hit | None, weight: float, delta: float,
                      cand: Candidates | None = None, session: float = 0.0,
                      center: np.ndarray | None = None) -> ContextMatch:
        """The context-vector side of :meth:`rerank` (module doc, "Context vectors"). ``conversation``: the
        conversation's vector (dim,) (:meth:`conversation_vector`); ``memory_vectors``: the hits' stored
        context vectors by memory id, (dim,) each (hits without one get the neutral ramp 0.5; a mapping with
        ``index`` and ``matrix``, as the stores return, is read without a copy). The reference is ``pick``'s
        (the memory the query's words single out, :meth:`singled_out`) when it has one, else the best
        candidate's. ``cand``: the hits' arrays, when already gathered. ``session`` (``SearchConfig.
        anchor_context_session``): each cosine becomes (1 - ``session``) · its own + ``session`` · the mean of its
        session's candidates' (:func:`_session_means`): a conversation is
        compared with the conversation each memory was said in. ``center`` (dim,): the mean both sides are centered
        on instead of the labeller's prototype mean (:func:`.senses.candidate_center`, the candidates' own mean
        context vector); ``conversation`` is then the uncentered :meth:`conversation_mean`."""
        c = cand if cand is not None else Candidates.of(hits)
        cvec = np.asarray(conversation, dtype=np.float32).reshape(-1)
        if center is not None:
            mu = np.asarray(center, dtype=np.float32).reshape(-1)
            cvec = cvec - mu
            cvec = cvec / max(float(np.linalg.norm(cvec)), 1e-9)
        else:
            mu = self.labeller.center_vector()
        sims = np.full(len(hits), np.nan)
        pos, mats = _rows(memory_vectors, c.ids)
        have = pos >= 0
        if have.any():
            # cos(m - mu, c) for unit c without centering copies: ((m·c) - (mu·c)) / |m - mu|, on the candidates'
            # rows gathered in candidate order and in float64, rounded to float32: a float32 product over the
            # mapping's rows as they are rounds a row by where it lies in the matrix, and that order (the store's
            # ids) differs from one process to the next
            rows = mats[pos[have]].astype(np.float64)
            c64, mu64 = cvec.astype(np.float64), mu.astype(np.float64)
            dots = rows @ np.stack([c64, mu64], axis=1)
            norms = np.sqrt(np.maximum(np.einsum("ij,ij->i", rows, rows) - 2 * dots[:, 1] + float(mu64 @ mu64),
                                       1e-18))
            sims[have] = ((dots[:, 0] - float(mu64 @ c64)) / norms).astype(np.float32)
        ref, source = 0.0, "best"  # the best eligible candidate's, set in rerank (ContextMatch.factors)
        if pick is not None:
            j = c.position(pick)
            if not np.isnan(sims[j]):  # the query's words single this memory out: its context is the reference
                ref, source = float(sims[j]), "match"
        if session > 0 and have.any():
            sims = (1.0 - session) * sims + session * _session_means(sims, c.session)
            if source == "match":
                ref = float(sims[c.position(pick)])
        return ContextMatch(sims=sims, reference=ref, source=source, weight=weight, delta=delta)

    def rerank(self, hits: list[Hit], qc: QueryContext, *, weight: float, min_label: float,
               full_label: float = 0.6, limit: int | None = None, context: ContextMatch | None = None,
               pick: Hit | None = None, drop: float = 0.0, cand: Candidates | None = None) -> list[Hit]:
        """Filter and rerank ``hits`` (all coarse candidates, any order) by label agreement (and, with
        ``context``, context-vector agreement), best first; see the module doc. ``weight``: w;
        ``min_label``/``full_label``: the ramp's ends (relative agreement). ``pick``: the memory the query's words
        single out (:meth:`singled_out`), which agrees fully (its labels are the query's, :meth:`own_match`, even
        when a memory with several labels agrees with the query's sharper distribution only in part). ``drop``:
        candidates whose factor is below ``drop`` times the best candidate's are left out (both the labels and the
        context reject them; the best candidates always stay, so nothing comes back empty). With
        ``limit``, only the best max(3 · ``limit``, 30) come back (a search returns ``limit`` of them after
        dropping repeats), each with its new score and ``explain["anchor"]``. ``cand``: the hits' arrays, when
        already gathered."""
        r = rank_candidates(hits, qc, weight=weight, min_label=min_label, full_label=full_label, limit=limit,
                            context=context, pick=pick, drop=drop, cand=cand,
                            min_top_agreement=self.min_top_agreement, demote=False)
        return r.annotate(r.hits, limit=limit)


def _session_means(sims: np.ndarray, session: np.ndarray) -> np.ndarray:
    """(n,) the mean of ``sims`` (n,; NaN: no vector, left out and kept NaN) over the candidates of each candidate's
    session (``session``: (n,) codes, :attr:`.candidates.Candidates.session`)."""
    have = ~np.isnan(sims)
    codes, inv = np.unique(session, return_inverse=True)
    tot = np.bincount(inv, weights=np.where(have, sims, 0.0), minlength=len(codes))
    cnt = np.bincount(inv, weights=have.astype(np.float64), minlength=len(codes))
    return np.where(have, tot[inv] / np.maximum(cnt[inv], 1.0), np.nan)


def _rows(vectors: Mapping[str, np.ndarray], ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(each of ``ids``' row in the matrix (n,) int64, -1 where ``vectors`` has none; the matrix (m, dim)): the
    mapping's own matrix when it has one (:class:`anchormem.stores.context_vectors.ContextVectors`, what the stores
    return: ``index`` and ``matrix``), else the vectors stacked."""
    index, matrix = getattr(vectors, "index", None), getattr(vectors, "matrix", None)
    if isinstance(index, dict) and isinstance(matrix, np.ndarray):
        get = index.get
        return np.fromiter((get(mid, -1) for mid in ids), dtype=np.int64, count=len(ids)), matrix
    have = [mid for mid in dict.fromkeys(ids) if mid in vectors]
    row = {mid: i for i, mid in enumerate(have)}
    mat = np.vstack([np.asarray(vectors[mid], dtype=np.float32).reshape(-1) for mid in have]) if have else \
        np.zeros((0, 0), dtype=np.float32)
    return np.fromiter((row.get(mid, -1) for mid in ids), dtype=np.int64, count=len(ids)), mat


def _dist_logits(dist: np.ndarray | None, temperature: float) -> np.ndarray | None:
    if dist is None or not np.isfinite(dist).all() or float(np.max(dist)) <= 0:
        return None
    return (temperature * np.log(np.maximum(dist / dist.max(), 0.02))).astype(np.float32)


def recent_session_labels(store, scope, limit: int = 8) -> list[list[Label]]:
    """The labels of the memories of the user's most recent session (by the newest memory's session_id), newest
    first: of the newest 3 · ``limit`` memories, those of that session, at most ``limit``
    (``Store.recent_labels``: no memory is built)."""
    rows = store.recent_labels(scope, limit * 3)
    if not rows:
        return []
    sid = rows[0][0]
    return [labs for s, labs in rows if s == sid][:limit]


def __getattr__(name: str):  # AnchorHook lives in .hook (the read side), which imports this module
    if name == "AnchorHook":
        from .hook import AnchorHook

        return AnchorHook
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
