"""The read side of context anchoring: :class:`AnchorHook`, the ``anchor`` callable a search runs on its coarse
candidates, and :func:`informative`, which decides whether the query's sense is in doubt at all.

**Gate** (issue #23): the conversation's sense (and the query's own labels) only reorder the candidates where they
are informative: the query names nothing its memories differ in (no *telling* word, :func:`.wording.coverage`: a
template such as "what did I say about the bank?"; ``template``) or names one word whose memories lie in several
domains (``one_word``): then the conversation decides, as before. Or a subject word of the query is held by the
``anchor_gate_top`` best candidates in two label domains or more with near scores (``spread``): then the senses are
told apart by the query's own words and the memory they single out, not by the conversation, which may be about
something else (``SearchConfig.anchor_spread`` "query", weight ``anchor_spread_weight``, no context-vector factor).
Elsewhere the hybrid order is returned as it is (``explain["anchor"]["gate"]`` is None). With the conversation
deciding ``spread`` too, LoCoMo questions asked after the preceding session's last turns lost R@5 18.8 points
against hybrid (gate open for 96 of 117 sampled questions, ``bench/results/conv_locomo_before_gatefix.json``); with
the query's own labels 4.1 (``bench/results/conv_locomo.json``). With a conversation, a query of one subject word held by a few sessions with near scores opens ``one_word`` too,
whatever their label domains (``SearchConfig.anchor_one_word_sessions``: a lexicon may give a word's two senses one
domain). ``anchor_gate_split`` (off) asks for a *split
word* (few candidates hold it) and reorders only its holders' sessions: it cost the polysemy dev sense cases.

**Untold** (``SearchConfig.anchor_conversation_tell``, ``anchor_tell_domains``): under ``template`` and
``one_word`` the conversation does not decide when it barely tells apart the sessions holding the query's words
(its closest holder session leads the farthest by less than ``anchor_conversation_tell``,
:func:`.senses.conversation_lead`) and every holder session carries the query's own top label domain
(:func:`_one_domain`): the word is said in one sense in several conversations and there is no sense to pick ("我住在哪儿？" while house hunting: 住 in the home and the
family sessions, both labelled home), and the search goes on as without it (gate ``untold``): the query's own labels
at ``anchor_weight_no_context``, no context-vector factor.

``anchor_spread_tell`` (0.025) and ``anchor_spread_stand`` (0.15): a ``spread`` reorder is decided by the
conversation after all (gate ``spread+conversation``, context-vector and label weights at most
``anchor_spread_tell_weight``) when the conversation sits by one sense's memories and stands out of the candidate
pool (:func:`conversation_tells`). Pooled polysemy dev EN 107 → 109 of 114, ZH 103 → 107 of 112
(``bench/results/anchor_dev_gate.json``); LoCoMo with the preceding session as conversation R@5 -0.5 paired
(``bench/results/conv_locomo_tell025.json``); without the stand test, -6.6 (``conv_locomo_tell.json``): the
preceding session sits by some sessions' memories as clearly as a conversation about one sense does, but it is
close to every memory of its dialogue.

**Senses from the store** (``SearchConfig.anchor_senses``, on; :mod:`.senses`): where the conversation decides
(``template``, ``one_word``), the closest session holding the query's words decides, on cosines centered on the
candidates' own mean context vector, and the labels only break ties; where no label domain splits the query's words
(gate None) but the sessions holding them do and the conversation tells them apart and stands out of the store,
gate ``senses`` reorders as ``template`` does. A query whose own vector clearly picks another of those sessions
keeps the conversation from deciding (a topic switch). With ``SearchConfig.anchor_senses_spread`` (opt-in) the same
test runs under gate ``spread`` too: label domains split the query's words, but where the conversation tells the
holder sessions apart it decides as under ``senses`` instead of the query's own labels (:meth:`AnchorHook.
_sessions_tell`).

**Cost**: the conversation's unstored turns are embedded (one batched call) only when the reorder reads them: a
gate that keeps the hybrid order embeds none (nor does a ``spread`` reorder with ``anchor_spread_tell`` 0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet

import numpy as np

from ..ingest.classify import is_chitchat
from ..ingest.pipeline import embedding_text
from ..tracing import staged
from ..types import Hit
from .anchor import ContextAnchor, QueryContext, is_bare_query
from .candidates import Candidates
from .rerank import Reranking, rank_candidates
from .senses import (candidate_center, closest_held, decide_session, holder_sessions, conversation_lead,
                     query_disagrees, sessions_lead, sessions_tell, top_holders)
from .taxonomy import DOMAIN_NAMES
from ..text.tokenize import term_coverage
from .wording import coverage_and_holders, holder_terms, subject_terms

__all__ = ["AnchorHook", "informative", "conversation_texts", "conversation_tells"]


def conversation_texts(ctx: Sequence, turns: int) -> list[str]:
    """The texts of the last ``turns`` turns of a normalised conversation ``ctx`` that say what it is about: each as
    ``add`` embeds a memory ("<name>: <text>" when the speaker is named, so a stored turn's passage embedding is the
    turn's own), system turns and social filler ("ok", "thanks!", 好的) left out, as ``add`` leaves filler out of
    memory (a conversation of filler only is no conversation)."""
    texts = [embedding_text(m.content, getattr(m, "name", None)) for m in ctx
             if getattr(m, "role", "user") != "system" and not is_chitchat(m.content)]
    return texts[-turns:] if turns else []


def informative(query: str, hits: Sequence[Hit], cand: Candidates, cov: dict[str, tuple[float, frozenset[str]]],
                holders: AbstractSet[str], *, top: int = 10, near: float = 0.5,
                leaders: Sequence[Hit] | None = None, split: bool = True) -> tuple[str | None, np.ndarray | None]:
    """Why the candidates' order is in doubt (the gate of the module doc), and which candidates the reorder may
    touch: (``"template"`` or ``"one_word"``, None: all of them; ``"spread"``, (n,) bool mask: the holders of a split
    word; (None, None): nothing is in doubt, the hybrid order stays). ``cand``: the arrays of ``hits``;
    ``cov``/``holders``: :func:`.wording.coverage_and_holders` of the lexical ``leaders``.

    A *split word* is a subject word of the query that few lexical leaders hold (at most half of them: a word, not a
    name every turn of a conversation holds) and that the ``top`` best candidates holding it carry in two label
    domains or more, the second domain's best within ``near`` of the best holder's score ("bat" in "When is the
    rescue coming for the bat in the attic?", held by the animal and the cricket memories). Only its holders and their
    session-mates (the conversations it was said in) are reordered: any other memory keeps its place."""
    if not hits:
        return None, None
    if not subject_terms(query) or (cov and not any(w > 0 for w, _ in cov.values())):
        return "template", None  # no word of its own, or none that tells its memories apart
    if _ambiguous(query, hits, holders):
        return "one_word", None
    terms = [t for t in dict.fromkeys(subject_terms(query)) if t]
    lead = list(leaders) if leaders is not None else cand.lexical_leaders()
    if not terms or not lead:
        return None, None
    n_lead = len(lead)
    df = [0] * len(terms)
    for f in term_coverage(terms, [h.memory.text for h in lead]):
        for i in f:
            df[i] += 1
    order = np.argsort(-cand.score, kind="stable")[:max(top, 1)].tolist()
    found = term_coverage(terms, [cand.hits[i].memory.text for i in order])
    mask = np.zeros(len(cand), dtype=bool)
    for k in range(len(terms)):
        if split and not 0 < df[k] <= n_lead / 2:
            continue
        best: dict[int, float] = {}
        held = [i for i, f in zip(order, found) if k in f]
        for i in held:
            if cand.labelled[i]:
                d = int(np.argmax(cand.labels[i]))
                best[d] = max(best.get(d, 0.0), float(cand.score[i]))
        if len(best) < 2:
            continue
        s1 = max(best.values())
        if sum(v >= near * s1 for v in best.values()) >= 2:
            mask[held] = True
    if mask.any():  # and the rest of the conversations the word was said in (session-less memories: their own)
        if not split:
            return "spread", None
        mask |= np.isin(cand.session, cand.session[mask])
        return "spread", mask
    return None, None


def conversation_tells(sims: np.ndarray, cand: Candidates, about: np.ndarray | None, own: np.ndarray, *,
                       top: int, margin: float, stand: float | None = None) -> bool:
    """Whether the conversation tells apart the senses the query's words are held in (gate "spread"): among the
    ``top`` best candidates (by ``cand.score``) that hold a subject word of the query (``about``, (n,) bool) and are
    not of a session of the conversation's own turns (``own``, (n,) bool: a stored turn's session is the conversation
    itself, close to it whatever the query means), those of one label domain (primary) have a context-vector cosine
    with the conversation (``sims``, (n,), NaN: none) that leads the best of every other domain by ``margin`` or
    more, and (with ``stand``) that best cosine stands ``stand`` or more above the median candidate's (the
    conversation sits by some memories, not by the whole store). A conversation about the word's sense
    ("Excel里的数据" for 表) sits close to that sense's memories and far from the rest; the session before a LoCoMo
    question is close to every memory of its dialogue."""
    if about is None or margin <= 0 or not about.any():
        return False
    mine = np.isin(cand.session, cand.session[own]) if own.any() else np.zeros(len(cand), dtype=bool)
    order = [i for i in np.argsort(-cand.score, kind="stable").tolist()
             if about[i] and not mine[i] and cand.labelled[i] and not np.isnan(sims[i])][:max(top, 1)]
    best: dict[int, float] = {}
    for i in order:
        d = int(np.argmax(cand.labels[i]))
        best[d] = max(best.get(d, -np.inf), float(sims[i]))
    if len(best) < 2:
        return False
    s1, s2 = sorted(best.values(), reverse=True)[:2]
    return s1 - s2 >= margin and (stand is None or s1 - float(np.nanmedian(sims)) >= stand)


def _one_domain(hits: Sequence[Hit], cand: Candidates, held: np.ndarray, domain: str | None = None) -> bool:
    """Whether every session holding the query's words (``held``, (n,) bool) has a memory among those holders that
    carries one same label domain (primary or secondary): "住" in a home memory (work, home, finance) and a family
    one (family, home) is one sense said in two conversations; the two senses of a word lie in different domains."""
    common: set[str] | None = None
    for s in np.unique(cand.session[held]).tolist():
        doms = {lab.domain for i in np.flatnonzero(held & (cand.session == s)).tolist()
                for lab in hits[i].memory.labels}
        if domain is not None:
            doms &= {domain}
        common = doms if common is None else common & doms
        if not common:
            return False
    return bool(common)


def _ambiguous(query: str, hits: Sequence[Hit], holders: AbstractSet[str]) -> bool:
    """The query names one thing only (one subject word, :func:`.wording.subject_terms`) and the memories holding it
    (``holders``: their ids) have primary labels of two domains or more: the word is ambiguous in this user's
    memories, whatever domain the lexicon gives it."""
    if not holders or len(subject_terms(query)) != 1:
        return False
    domains = {h.memory.labels[0].domain for h in hits if h.memory.id in holders and h.memory.labels}
    return len(domains) >= 2


class AnchorHook:
    """The ``anchor`` callable for :meth:`Searcher.search`: labels the query (with the conversation ``ctx``,
    normalised messages, newest last), then filters and reranks the candidates. ``embed``: the query embedding;
    ``embed_turn``: a conversation turn's (default ``embed``; Memory passes the passage embedding, as the turns
    of a memory's context vector are embedded, so a turn ``add`` stored is not embedded again); ``embed_turns``:
    called once with every turn the hook reads before any ``embed_turn`` (Memory: one batched ``embed_documents``
    call for the turns not embedded yet, :meth:`anchormem.retrieval.search.Searcher.embed_passages`).
    The conversation reorders the candidates only where it is informative (:func:`informative`); elsewhere the
    hybrid order is kept (``explain["anchor"]["gate"]``).
    ``wants_context_vectors``: the searcher should load the candidates' context vectors with them (one query) and
    pass them in; when it does not, they are read from the store here."""

    def __init__(self, anchor: ContextAnchor, store, embed: Callable[[str], np.ndarray], query: str, scope, cfg,
                 ctx, limit: int, embed_turn: Callable[[str], np.ndarray] | None = None,
                 embed_turns: Callable[[list[str]], object] | None = None) -> None:
        self.anchor, self.store, self.embed, self.query = anchor, store, embed, query
        self.embed_turn = embed_turn or embed
        self.embed_turns = embed_turns
        self.scope, self.cfg, self.limit = scope, cfg, limit
        self.texts = conversation_texts(ctx, cfg.anchor_context_turns)
        # the conversation's own turns (and the query), when add stored them as memories (the agent loop: add the
        # turn, then search with it): such a memory is the conversation itself, not a sense of it, so it is
        # neither the context factor's reference nor "singled out" by the query's words
        self.own = {m.content.strip() for m in ctx} | {query.strip()}
        self.wants_context_vectors = bool(self.texts) and cfg.anchor_context_weight > 0
        self.reranking: Reranking | None = None  # set by __call__, read by explain
        self._turns_embedded = False

    def _embed_turns(self) -> None:
        """Embed the conversation's turns not embedded yet in one batched call (``embed_turns``), once per search
        and only when the reorder reads them: a gate that keeps the hybrid order, or a "spread" reorder by the
        query's own words, embeds none."""
        if self.embed_turns is not None and self.texts and not self._turns_embedded:
            self.embed_turns(list(self.texts))
            self._turns_embedded = True

    def _recent(self) -> np.ndarray | None:  # the user's most recent session, across sessions of this agent
        from ..types import Scope

        s = self.scope
        return self.anchor.recent_logits(self.store, Scope(tenant=s.tenant, user_id=s.user_id, agent_id=s.agent_id))

    def _sessions_tell(self, hits: list[Hit], cand: Candidates, about: np.ndarray | None, own: np.ndarray,
                       context_vectors: Mapping[str, np.ndarray] | None, stand: bool = True
                       ) -> tuple[bool, Mapping[str, np.ndarray] | None, np.ndarray]:
        """Whether the conversation tells apart the sessions holding the query's words (gate "senses", :mod:`.senses`:
        2 to ``anchor_senses_max_sessions`` holder sessions with near scores, the conversation's closest one leading
        the farthest by ``anchor_senses_tell`` and standing ``anchor_senses_stand`` above the median candidate (only
        with ``stand``), or leading the second closest by ``anchor_senses_lead`` (:func:`.senses.sessions_lead`),
        cosines centered on the candidates' mean context vector; no lexicon is read). Returns (told, the candidates'
        context vectors when they were read, else ``context_vectors`` as given; (n,) bool, the best candidates holding
        a query word as a substring or word start, :func:`.senses.top_holders`)."""
        cfg, anchor = self.cfg, self.anchor
        mine = top_holders(holder_terms(self.query), [h.memory.text for h in hits], cand.score, top=cfg.anchor_gate_top)
        held = holder_sessions(cand.score, cand.session, mine | (about if about is not None else False), own,
                               top=cfg.anchor_gate_top, near=cfg.anchor_senses_near)
        if not 2 <= len(held) <= cfg.anchor_senses_max_sessions:  # a word said in a few contexts, not a name
            return False, context_vectors, mine
        self._embed_turns()
        if context_vectors is None:
            context_vectors = self.store.get_context_vectors(self.scope.tenant, cand.ids)
        center = candidate_center(context_vectors, cand.ids)
        if center is None:
            return False, context_vectors, mine
        probe = anchor.context_match(hits, anchor.conversation_mean(self.texts, self.embed_turn), context_vectors,
                                     cand=cand, weight=cfg.anchor_context_weight, delta=cfg.anchor_context_delta,
                                     pick=None, session=cfg.anchor_context_session, center=center)
        if stand and sessions_tell(probe.sims, cand.session, held, margin=cfg.anchor_senses_tell,
                                   stand=cfg.anchor_senses_stand):
            return True, context_vectors, mine
        if not sessions_lead(probe.sims, cand.session, held, lead=cfg.anchor_senses_lead):
            return False, context_vectors, mine
        if cfg.anchor_senses_lead_agree:  # the query's own vector must not point at another holder session
            qm = anchor.context_match(hits, np.asarray(self.embed(self.query), dtype=np.float32), context_vectors,
                                      cand=cand, weight=cfg.anchor_context_weight, delta=cfg.anchor_context_delta,
                                      pick=None, session=cfg.anchor_context_session, center=center)
            want = closest_held(probe.sims, cand.session, held)
            return closest_held(qm.sims, cand.session, held) == want, context_vectors, mine
        return True, context_vectors, mine

    def _untold(self, hits: list[Hit], cand: Candidates, about: np.ndarray | None, own: np.ndarray,
                context_vectors: Mapping[str, np.ndarray] | None) -> tuple[bool, Mapping[str, np.ndarray] | None]:
        """Whether the conversation fails to tell apart the sessions holding the query's words (the best
        ``anchor_gate_top`` candidates holding a subject word, :func:`.senses.top_holders`, and the lexical leaders
        holding one, ``about``; outside the conversation's own sessions): their :func:`.senses.conversation_lead` is
        below ``SearchConfig.anchor_conversation_tell``, and (``anchor_tell_domains``) every holder session carries the
        query's own top label domain (labelled without the conversation; "query") or one same domain ("shared").
        Returns (untold, the candidates' context vectors when read, else ``context_vectors`` as given). False (the
        conversation may decide) with fewer than two holder sessions or no context vectors."""
        cfg, anchor = self.cfg, self.anchor
        held = top_holders(holder_terms(self.query), [h.memory.text for h in hits], cand.score, top=cfg.anchor_gate_top)
        if about is not None:
            held = held | about
        if own.any():
            held = held & ~np.isin(cand.session, cand.session[own])
        if len(np.unique(cand.session[held])) < 2:
            return False, context_vectors
        self._embed_turns()
        if context_vectors is None:
            context_vectors = self.store.get_context_vectors(self.scope.tenant, cand.ids)
        center = candidate_center(context_vectors, cand.ids)
        if center is None:
            return False, context_vectors
        probe = anchor.context_match(hits, anchor.conversation_mean(self.texts, self.embed_turn), context_vectors,
                                     cand=cand, weight=cfg.anchor_context_weight, delta=cfg.anchor_context_delta,
                                     pick=None, session=cfg.anchor_context_session, center=center)
        lead = conversation_lead(probe.sims, cand.session, held)
        if lead is None or lead >= cfg.anchor_conversation_tell:
            return False, context_vectors
        if cfg.anchor_tell_domains == "query":  # the query's own domain (no conversation) is every holder session's
            own_qc = anchor.query_context(self.query, self.embed(self.query), with_labels=False)
            return _one_domain(hits, cand, held, DOMAIN_NAMES[int(np.argmax(own_qc.dist))]), context_vectors
        return cfg.anchor_tell_domains == "off" or _one_domain(hits, cand, held), context_vectors

    @staged("anchor")
    def __call__(self, hits: list[Hit], context_vectors: Mapping[str, np.ndarray] | None = None) -> list[Hit]:
        anchor, cfg, embed, texts = self.anchor, self.cfg, self.embed, self.texts
        cand = Candidates.of(hits)  # one pass over the hits for every stage below
        cov, holders = coverage_and_holders(self.query, cand.lexical_leaders())
        gate, touch = informative(self.query, hits, cand, cov, holders, top=cfg.anchor_gate_top,
                                  near=cfg.anchor_gate_near, split=cfg.anchor_gate_split) if cfg.anchor_gate \
            else ("always", None)
        about = np.fromiter((mid in holders for mid in cand.ids), dtype=bool, count=len(cand)) if holders else None
        own = np.fromiter((h.memory.text.strip() in self.own for h in hits), dtype=bool, count=len(hits))
        if gate is None and cfg.anchor_one_word_sessions and texts and len(subject_terms(self.query)) == 1:
            # one subject word said in a few sessions (no lexicon: the labels may give its senses one domain): with a
            # conversation, it is as ambiguous as a word whose memories lie in several label domains
            mine = top_holders(holder_terms(self.query), [h.memory.text for h in hits], cand.score,
                               top=cfg.anchor_gate_top)
            held = holder_sessions(cand.score, cand.session, mine | (about if about is not None else False), own,
                                   top=cfg.anchor_gate_top, near=cfg.anchor_senses_near)
            if 2 <= len(held) <= cfg.anchor_senses_max_sessions:
                gate = "one_word"
        spread_stand = gate == "spread" and cfg.anchor_senses_spread
        if (gate is None or spread_stand or (gate == "spread" and cfg.anchor_senses_lead > 0)) and cfg.anchor_senses \
                and (cfg.anchor_senses_tell > 0 or cfg.anchor_senses_lead > 0) and self.wants_context_vectors:
            # no label domain splits the query's words (gate None), or the labels split them but only the query's own
            # words would pick the sense (gate "spread"): the store's sessions holding them may tell (.senses), and
            # the conversation decides when it tells those sessions apart, whatever the labels say (under "spread":
            # by the lead among the holder sessions, anchor_senses_lead, unless anchor_senses_spread)
            told, context_vectors, mine = self._sessions_tell(
                hits, cand, about, own, context_vectors,
                stand=cfg.anchor_senses_tell > 0 and (gate is None or spread_stand))
            if told:
                gate = "senses"
                about = mine | (about if about is not None else False)
                touch = None
        if gate in ("template", "one_word") and cfg.anchor_conversation_tell > 0 and self.wants_context_vectors:
            untold, context_vectors = self._untold(hits, cand, about, own, context_vectors)
            if untold:  # the query's words name what several sessions hold, and the conversation sits by none of them:
                # the search goes on as without a conversation (its labels and context vectors are not read)
                gate, texts, self.texts, self.wants_context_vectors = "untold", [], [], False
        if gate is None:  # nothing ambiguous: the hybrid order stays (labels computed for explain only)
            qc = QueryContext(dist=np.full(len(DOMAIN_NAMES), 1.0 / len(DOMAIN_NAMES)), source="gated")
            self.reranking = rank_candidates(hits, qc, weight=0.0, min_label=cfg.anchor_min_label,
                                             full_label=cfg.anchor_full_label, limit=self.limit, cand=cand,
                                             min_top_agreement=anchor.min_top_agreement, gate=None)
            return self._by_sessions(hits, cand, about, own, context_vectors, gate, cov=cov)
        pick = anchor.singled_out(hits, cfg.anchor_match_lead, cfg.anchor_match_bm25, query=self.query, cand=cand,
                                  cov=cov)
        if pick is not None and pick.memory.text.strip() in self.own:
            pick = None
        # a split word (gate "spread"): its senses are told apart by the query's own words and the memory they
        # single out, not by a conversation that may be about something else (anchor_spread), unless the
        # conversation clearly sits by one sense's memories (anchor_spread_tell: gate "spread+conversation")
        spread = gate == "spread" and cfg.anchor_spread != "full"
        if spread and texts and cfg.anchor_spread_tell > 0 and self.wants_context_vectors:
            self._embed_turns()
            mv = context_vectors if context_vectors is not None else \
                self.store.get_context_vectors(self.scope.tenant, cand.ids)
            context_vectors = mv
            probe = anchor.context_match(hits, anchor.conversation_vector(texts, self.embed_turn), mv, cand=cand,
                                         weight=cfg.anchor_context_weight, delta=cfg.anchor_context_delta, pick=None)
            if conversation_tells(probe.sims, cand, about, own, top=cfg.anchor_gate_top,
                                  margin=cfg.anchor_spread_tell, stand=cfg.anchor_spread_stand):
                spread, gate = False, "spread+conversation"
        center = None  # anchor_senses: both sides centered on the candidates' mean context vector (.senses)
        if cfg.anchor_senses and self.wants_context_vectors and gate in cfg.anchor_senses_gates.split("|"):
            context_vectors = context_vectors if context_vectors is not None else \
                self.store.get_context_vectors(self.scope.tenant, cand.ids)
            center = candidate_center(context_vectors, cand.ids)

        def conv() -> np.ndarray:
            return anchor.conversation_vector(texts, self.embed_turn) if center is None else \
                anchor.conversation_mean(texts, self.embed_turn)
        ctx_texts = () if spread and cfg.anchor_spread == "query" else texts
        if ctx_texts or (self.wants_context_vectors and not spread):
            self._embed_turns()  # the conversation is read: its unembedded turns in one batched call
        # the recent session stands in for a missing conversation only when the query's words single nothing out
        qc = anchor.query_context(self.query, embed(self.query), context=ctx_texts, embed=self.embed_turn,
                                  recent=self._recent if pick is None else None, margin=cfg.anchor_margin,
                                  with_labels=False, ambiguous=bool(ctx_texts) and pick is None
                                  and _ambiguous(self.query, hits, holders))
        told = gate == "spread+conversation"
        weight = (cfg.anchor_spread_weight if pick is not None or not cfg.anchor_spread_match_only
                  else cfg.anchor_weight_no_context) if spread and texts else \
            min(cfg.anchor_weight, cfg.anchor_spread_tell_weight) if told and qc.source == "query+context" else \
            cfg.anchor_weight if qc.source == "query+context" else cfg.anchor_weight_no_context
        qc = anchor.own_match(qc, pick, weight=cfg.anchor_match_weight)
        cm = None
        if self.wants_context_vectors and hits and not spread:
            mv = context_vectors if context_vectors is not None else \
                self.store.get_context_vectors(self.scope.tenant, cand.ids)
            cm = anchor.context_match(hits, conv(), mv, cand=cand,
                                      weight=min(cfg.anchor_context_weight, cfg.anchor_spread_tell_weight) if told
                                      else cfg.anchor_context_weight, delta=cfg.anchor_context_delta, pick=pick,
                                      session=cfg.anchor_context_session, center=center)
        semantic = getattr(anchor.embedder, "semantic", True)  # sessions decide only when cosines carry meaning
        first = pick is None and semantic and (
            True if center is not None else
            cfg.anchor_context_first and gate in ("template", "one_word") and is_bare_query(self.query,
                                                                                            anchor.labeller))
        if first and center is not None and cm is not None and cfg.anchor_senses_query > 0:
            # the query's own vector names another sense than the conversation: the user switched topics
            qm = anchor.context_match(hits, np.asarray(embed(self.query), dtype=np.float32), context_vectors, cand=cand,
                                      weight=cfg.anchor_context_weight, delta=cfg.anchor_context_delta, pick=None,
                                      session=cfg.anchor_context_session, center=center)
            first = not query_disagrees(qm.sims, cm.sims, cand.session, about, own, lead=cfg.anchor_senses_query)
        # the memories holding the query's words, found by substring too: the disfavoured sense's sessions go last
        word_holders = top_holders(holder_terms(self.query), [h.memory.text for h in hits], cand.score,
                                   top=len(cand)) if cfg.anchor_demote else None
        self.reranking = rank_candidates(hits, qc, weight=weight, min_label=cfg.anchor_min_label,
                                         full_label=cfg.anchor_full_label, limit=self.limit, context=cm, pick=pick,
                                         drop=cfg.anchor_drop, cand=cand, min_top_agreement=anchor.min_top_agreement,
                                         about=about, own=own if own.any() else None, gate=gate, touch=touch,
                                         context_first=first,
                                         decisive=cfg.anchor_context_decisive,
                                         first_delta=cfg.anchor_context_first_delta,
                                         decisive_always=cfg.anchor_context_decisive_always,
                                         demote=cfg.anchor_demote, word_holders=word_holders)
        return self._by_sessions(hits, cand, about, own, context_vectors, gate, pick=pick)

    def _by_sessions(self, hits: list[Hit], cand: Candidates, about: np.ndarray | None, own: np.ndarray,
                     context_vectors: Mapping[str, np.ndarray] | None, gate: str | None, *, pick: Hit | None = None,
                     cov: dict[str, tuple[float, frozenset[str]]] | None = None) -> list[Hit]:
        """The last step (``SearchConfig.anchor_sessions_decide``; no lexicon read): when 2 to
        ``anchor_sessions_decide_max`` sessions (not the conversation's own) hold the query's words among the
        ``anchor_sessions_decide_top`` best candidates, the conversation, plus the query's own vector unless the gate is
        ``template``, picks one of them on centered session cosines (:func:`.senses.decide_session`, lead
        ``anchor_sessions_decide_lead``); that session's holders come first and the other holder sessions' memories
        after every other candidate (kept, in their order). A memory the query's own words single out (``pick``,
        :meth:`.anchor.ContextAnchor.singled_out`; computed here from ``cov`` when not given) names the session
        instead (its words, not a lexicon, tell: "what did I say about 'a sports and football club in Åland'?").
        Returns ``self.reranking.hits``, reordered in place."""
        cfg, anchor, r = self.cfg, self.anchor, self.reranking
        if r is None or not (cfg.anchor_sessions_decide and self.texts and self.wants_context_vectors) \
                or not getattr(anchor.embedder, "semantic", True) \
                or (gate == "template" and not cfg.anchor_sessions_decide_template):
            return r.hits if r is not None else hits
        held = top_holders(holder_terms(self.query), [h.memory.text for h in hits], cand.score,
                           top=cfg.anchor_sessions_decide_top)
        if about is not None:
            held = held | about
        if own.any():
            held = held & ~np.isin(cand.session, cand.session[own])
        if not 2 <= len(np.unique(cand.session[held])) <= cfg.anchor_sessions_decide_max:
            return r.hits
        self._embed_turns()
        if context_vectors is None:
            context_vectors = self.store.get_context_vectors(self.scope.tenant, cand.ids)
        center = candidate_center(context_vectors, cand.ids)
        if center is None:
            return r.hits

        def sims(vec: np.ndarray) -> np.ndarray:
            return anchor.context_match(hits, vec, context_vectors, cand=cand, weight=cfg.anchor_context_weight,
                                        delta=cfg.anchor_context_delta, pick=None,
                                        session=cfg.anchor_sessions_decide_pool, center=center).sims
        conv = sims(anchor.conversation_mean(self.texts, self.embed_turn))
        query = None if gate == "template" else sims(np.asarray(self.embed(self.query), dtype=np.float32))
        if pick is None and cov is not None and cfg.anchor_sessions_decide_pick:
            pick = anchor.singled_out(hits, cfg.anchor_match_lead, cfg.anchor_match_bm25, query=self.query, cand=cand,
                                      cov=cov)
            if pick is not None and pick.memory.text.strip() in self.own:
                pick = None
        win = None
        if pick is not None and cfg.anchor_sessions_decide_pick:
            j = cand.position(pick)
            rivals = held & (cand.session != cand.session[j]) & ~np.isnan(cand.bm25)
            rival = float(cand.bm25[rivals].max()) if rivals.any() else 0.0
            win = int(cand.session[j]) if held[j] and float(cand.bm25[j]) >= cfg.anchor_sessions_decide_pick_bm25 * \
                max(rival, 0.0) else None
        if win is None:
            win = decide_session(conv, query, cand.session, held, lead=cfg.anchor_sessions_decide_lead)
        if win is None:
            return r.hits
        pos = {id(h): i for i, h in enumerate(hits)}
        idx = [pos[id(h)] for h in r.hits]
        first = [k for k, i in enumerate(idx) if held[i] and cand.session[i] == win]
        lost = set(cand.session[held].tolist()) - {win}
        last = [k for k, i in enumerate(idx) if int(cand.session[i]) in lost]
        moved = set(first) | set(last)
        rest = [k for k in range(len(idx)) if k not in moved]
        r.reorder(first + rest + last, promoted=len(first), demoted=len(last))
        r.by_sessions = True
        return r.hits

    def explain(self, hits: Sequence[Hit]) -> None:
        """Write ``explain["anchor"]`` on the hits the search returns (some of what :meth:`__call__` returned, in
        their final order): only those pay for their explain dicts (:meth:`.rerank.Reranking.annotate`)."""
        if self.reranking is not None:
            self.reranking.annotate(hits, limit=len(hits))
