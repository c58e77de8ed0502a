"""The search pipeline: dense + BM25 candidates → fusion → recency/source weighting → threshold → top-k.

Fusion (RRF, or min-max score fusion ``"minmax"``: :func:`.fusion.minmax`): BM25 hits scoring ≤ ``bm25_min_score``
are left out (min-max needs ``norm_window`` candidates, and is not used when a conversation anchors the search:
both fall back to RRF, ``explain["fusion"]`` says which); with ``fusion_adapt``
the two lists' weights are set per query (:func:`.fusion.adaptive_weights`; ``explain["fusion_adapt"]``: the
features and weights used); with ``flat_gain`` (the default recipe; min-max fusion only) each list gains weight as
the other is flat (:func:`.fusion.flatness_weights`; ``explain["fusion_adapt"]`` then holds ``flat_dense``,
``flat_bm25`` and the weights).

Every hit carries ``explain``: ``dense`` (cosine), ``bm25``, ``dense_rank``, ``bm25_rank``, ``fused``,
``recency``, ``importance``, ``source_weight`` and ``final`` (= Hit.score, unless an ordering rule placed the hit
above a better-scored one: then Hit.score is that one's, ``explain["own_score"]`` its own; :func:`.currency.rank_scores`):
final = fused · ((1-rw) + rw·recency) · ((1-iw) + iw·importance) · source_weight [· (1 + time_boost) when the
question names a date the memory falls in: ``time_match``; with ``date_query``: · (1 + time_boost · ``date_prior``),
the window's memories also fused as candidates and a day recap listed first: :mod:`.dated`] [· (1 - speaker_weight)
for a memory said by a speaker the query does not name, when it names one of the candidates' speakers:
``explain["speaker_weight"]``, :mod:`.speakers`; a category question's kinds are a BM25 list of their own:
:mod:`.kinds`; a question asking for several things about a person adds that person's own memories as
lists of their own: :func:`.speakers.own_lists`, :mod:`.sets`], with rw/iw the
config's ``recency_weight``/``importance_weight``. After ranking, the returned hits' access counts are bumped
(``SearchConfig.track_access``); that write never fails a search.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from operator import itemgetter
from threading import Lock
from typing import Any

import numpy as np

from ..tracing import staged
from ..embedders.protocol import Embedder
from ..filters import FilterNode
from ..ingest.classify import asks_only
from ..lifecycle import importance
from ..stores.protocol import Store
from ..stores.rank_rows import RankRow
from ..text.tokenize import query_terms
from ..types import Hit, MemoryItem, Scope
from .config import SearchConfig
from .fusion import adaptive_weights, drop_zero, flatness_weights, minmax, recency_weight, rrf, weighted
from .currency import order_by_currency, past_where, rank_scores, wants_past
from .bounded import BoundedFeed, applies, factor_range
from .dated import date_query, dated_lists, proximity, recap_first, recap_order
from .hops import second_round
from .kinds import kind_terms
from .neighbours import add_neighbours
from .past import PastTexts
from .sessions import weigh
from .sets import asks_set
from .slots import place_first, slot_list
from .speakers import own_lists, speaker_rule, unnamed_lists
from .rewrite import expand_terms, in_window, time_window

__all__ = ["Searcher"]

log = logging.getLogger("anchormem")


class Searcher:
    """Runs searches against one store with one embedder. Caches up to 1024 query embeddings (LRU), or uses
    ``cache`` (:class:`anchormem.hotcache.StoreCache`: in-process, or shared through Redis) when given; and, in this
    process only, up to 1024 passage embeddings of conversation turns (:meth:`embed_passage`)."""

    CACHE_SIZE = 1024

    def __init__(self, store: Store, embedder: Embedder, cache: Any = None) -> None:
        self.store = store
        self.embedder = embedder
        self.cache = cache
        self._qcache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._pcache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._qlock = Lock()

    @staged("embed")
    def embed_query(self, text: str, scope: Scope | None = None) -> np.ndarray:
        """The query embedding of ``text`` (``embed_query``): float32 (dim,), from the cache or computed. With the
        hot cache it is kept under the user of ``scope`` (so a purge of the user deletes it; without a scope, in
        this process only)."""
        if self.cache is not None:
            return self.cache.embedding(self.embedder.name, self.embedder.dim, text,
                                        lambda: self.embedder.embed_query(text), scope=scope)
        return self._cached(self._qcache, text, self.embedder.embed_query)

    def query_embedder(self, scope: Scope) -> Callable[[str], np.ndarray]:
        """:meth:`embed_query` for the user of ``scope``: ``text`` → float32 (dim,)."""
        return lambda text: self.embed_query(text, scope)

    def embed_passage(self, text: str) -> np.ndarray:
        """The passage embedding (``embed_documents``) of a conversation turn ``text``: float32 (dim,). A turn
        ``add`` stored lately is not embedded again (:meth:`remember_passages`): the conversation a search is
        anchored in is mostly turns already added. Kept in this process only, never in a shared cache."""
        return self._cached(self._pcache, text, lambda t: self.embedder.embed_documents([t])[0])

    @staged("embed_turns")
    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """The passage embeddings of conversation turns ``texts``: (n, dim) float32, in order. The turns not kept yet
        (:meth:`embed_passage`'s cache) are embedded together in one ``embed_documents`` call, so a conversation of
        unstored turns costs one batched embedding, and a turn seen in an earlier search costs none."""
        with self._qlock:
            got = {t: self._pcache[t] for t in texts if t in self._pcache}
            for t in got:
                self._pcache.move_to_end(t)
        todo = [t for t in dict.fromkeys(texts) if t not in got]
        if todo:
            vecs = np.asarray(self.embedder.embed_documents(todo), dtype=np.float32).reshape(len(todo), -1)
            with self._qlock:
                for t, v in zip(todo, vecs):
                    got[t] = v
                    self._put(self._pcache, t, v)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.vstack([got[t] for t in texts])

    def kept_passages(self, texts: list[str]) -> dict[str, np.ndarray]:
        """The passage embeddings kept for ``texts`` (:meth:`remember_passages`, or embedded by an earlier
        :meth:`embed_passages`): {text: (dim,) float32}, the texts not kept left out; embeds nothing."""
        with self._qlock:
            got = {t: self._pcache[t] for t in texts if t in self._pcache}
            for t in got:
                self._pcache.move_to_end(t)
        return got

    def remember_passages(self, texts: list[str], vectors: np.ndarray) -> None:
        """Keep the passage embeddings ``add`` computed (``vectors``: (n, dim) for ``texts``) for
        :meth:`embed_passage`."""
        with self._qlock:
            for t, v in zip(texts, vectors):
                self._put(self._pcache, t, np.asarray(v, dtype=np.float32))

    def forget_passages(self) -> None:
        """Drop every kept passage embedding and this process's uncached-mode query embeddings (after a purge: no
        vector of forgotten text or of the user's queries stays in memory)."""
        with self._qlock:
            self._pcache.clear()
            self._qcache.clear()

    def _cached(self, lru: OrderedDict[str, np.ndarray], text: str,
                compute: Callable[[str], np.ndarray]) -> np.ndarray:
        with self._qlock:
            v = lru.get(text)
            if v is not None:
                lru.move_to_end(text)
                return v
        v = compute(text)
        with self._qlock:
            self._put(lru, text, v)
        return v

    def _put(self, lru: OrderedDict[str, np.ndarray], text: str, v: np.ndarray) -> None:
        lru[text] = v
        lru.move_to_end(text)
        if len(lru) > self.CACHE_SIZE:
            lru.popitem(last=False)

    def search(self, query: str, *, scope: Scope, where: FilterNode | None, limit: int, config: SearchConfig,
               now: datetime, as_of: datetime | None = None, show_expired: bool = False,
               query_vector: np.ndarray | None = None,
               anchor: Callable[..., list[Hit]] | None = None,
               extra_queries: list[str] | None = None, conversation: Any = None,
               time_text: str | None = None) -> list[Hit]:
        """``anchor``: context anchoring (``anchormem.context.anchor.AnchorHook``): gets every coarse candidate
        (and, when it ``wants_context_vectors``, their context vectors, loaded with them), returns them filtered
        and reranked, best first; when it has ``explain(hits)``, that is called with the hits returned.
        ``extra_queries``: alternative phrasings (LLM rewrite), each
        searched and fused with half the original's weight. See :mod:`.rewrite` for the offline rewriting.
        ``conversation``: a :class:`.conversation.ConversationQuery` (the conversation's turns and the query), searched
        and fused by RRF with its ``weight`` times the query's weights (rrf fusion only). ``time_text``: a date phrase
        the time window is read from when the query names none (the conversation's, :mod:`.conversation`)."""
        n = max(config.candidates, limit)
        slot_facts: list[MemoryItem] = []
        offline = config.query_rewrite != "off"
        past_q = wants_past(query, where, as_of)  # a question about the past also reads superseded memories
        if past_q:
            where = past_where(where)
        past = self._past(scope, where, as_of)
        dense, lexical = self._candidates(query, scope, where, n, config, as_of, query_vector, expand=offline,
                                          past=past)
        also: set[str] = set()  # found by an alternative phrasing
        dq = None
        if offline and config.date_query:  # the query's date, else the conversation's (time_text)
            dq = date_query(query, as_of or now) or (date_query(time_text, as_of or now) if time_text else None)
        dwin, recap = None, []  # the named date's window, its year read off the user's memories; a day recap (.dated)
        adapt: dict[str, float] | None = None
        fusion = config.fusion
        got = None  # the named date's window and candidate lists (fused below with rrf/minmax fusion only)
        if dq is not None:
            got = dated_lists(self.store, scope, where, dq, n=n, as_of=as_of, terms=self._terms(query, offline),
                              query_vector=lambda: query_vector if query_vector is not None
                              else self.embed_query(query, scope))
            dwin = got.window
            recap = got.lists.get("recap_date", []) if config.fusion in ("rrf", "minmax") else []
        if config.fusion in ("rrf", "minmax"):
            lexical = drop_zero(lexical, config.bm25_min_score)  # a ~0 BM25 score is no evidence, whatever its rank
            wd, wl = config.dense_weight, config.lexical_weight
            if config.fusion_adapt and wd > 0 and wl > 0:
                wd, wl, adapt = adaptive_weights(dense, lexical, wd, wl, strength=config.adapt_strength,
                                                 window=config.adapt_window, agree=config.adapt_agree)
                adapt = {**adapt, "dense_weight": wd, "lexical_weight": wl}
            # min-max needs a score range: with fewer candidates than its window (a store of a few dozen
            # memories) one memory's small lead becomes the whole range, so such a store is fused by rank (RRF).
            # A search anchored in a conversation is fused by RRF too: the conversation's factors are bounded
            # (in [1 - anchor_weight, 1]) and were set on RRF's compressed scores; on min-max's spread they cannot
            # lift the memory of the conversation's sense (polysemy pooled EN 68/72 with min-max, 70/72 with RRF)
            in_conversation = bool(getattr(anchor, "texts", None)) and config.anchor_conversation_rrf
            fusion = "minmax" if (config.fusion == "minmax" and not in_conversation
                                  and len(dense or lexical) >= config.norm_window) else "rrf"
            # per query, from how flat each list is (.fusion); min-max fusion only, where it was measured
            if config.flat_gain > 0 and fusion == "minmax" and wd > 0 and wl > 0:
                wd, wl, flat = flatness_weights(dense, lexical, wd, wl, gain=config.flat_gain,
                                                window=config.norm_window, level=config.flat_level)
                adapt = {**(adapt or {}), **flat, "dense_weight": wd, "lexical_weight": wl}
            lists = {"dense": dense, "bm25": lexical}
            weights = {"dense": wd, "bm25": wl}
            for i, q in enumerate(extra_queries or []):
                d_i, l_i = self._candidates(q, scope, where, n, config, as_of, None, expand=offline, past=past)
                lists[f"dense{i}"], lists[f"bm25{i}"] = d_i, drop_zero(l_i, config.bm25_min_score)
                weights[f"dense{i}"], weights[f"bm25{i}"] = wd / 2, wl / 2
                also |= {d for d, _ in lists[f"bm25{i}"]}
            if conversation is not None and conversation.weight > 0:
                lists["dense_conv"], lists["bm25_conv"] = self._candidates(
                    conversation.text, scope, where, n, config, as_of, conversation.vector, expand=offline, past=past)
                lists["bm25_conv"] = drop_zero(lists["bm25_conv"], config.bm25_min_score)
                weights["dense_conv"] = wd * conversation.weight
                weights["bm25_conv"] = wl * conversation.weight
            # a set question about a person: that person's own memories, as lists of their own (.speakers, .sets)
            if config.own_weight > 0 and past is None and (not config.own_sets or asks_set(query)):
                peek = list(dict.fromkeys(d for d, _ in (dense[:config.own_peek] + lexical[:config.own_peek])))
                _named, own = own_lists(query, store=self.store, scope=scope, where=where, as_of=as_of, n=n,
                                        peek=peek, terms=self._terms(query, offline),
                                        query_vector=lambda: query_vector if query_vector is not None
                                        else self.embed_query(query, scope), dense=wd > 0, lexical=wl > 0,
                                        mentions={"dense": dense[:config.own_depth], "bm25": lexical[:config.own_depth]}
                                        if config.own_mentions else None)
                for name, ls in own.items():
                    if name.startswith("bm25"):
                        ls = drop_zero(ls, config.bm25_min_score)
                    lists[name] = ls
                    weights[name] = config.own_weight * (wl if name.startswith("bm25") else wd)
                    also |= {d for d, _ in ls}
            # the question without the person it names, over everyone and over that person's memories (.speakers)
            own_un = config.unnamed_own_weight > 0 and (not config.unnamed_sets or asks_set(query))
            if (config.unnamed_weight > 0 or own_un) and past is None:
                peek = list(dict.fromkeys(d for d, _ in (dense[:config.own_peek] + lexical[:config.own_peek])))
                _named, un = unnamed_lists(query, store=self.store, scope=scope, where=where, as_of=as_of, n=n,
                                           peek=peek, terms=lambda t: self._terms(t, offline),
                                           embed=lambda t: self.embed_query(t, scope),
                                           dense=wd > 0 and config.unnamed_dense,
                                           lexical=wl > 0, every=config.unnamed_weight > 0, own=own_un)
                for name, ls in un.items():
                    if name.startswith("bm25"):
                        ls = drop_zero(ls, config.bm25_min_score)
                    lists[name] = ls
                    w = config.unnamed_own_weight if name.endswith("_own") else config.unnamed_weight
                    weights[name] = w * (wl if name.startswith("bm25") else wd)
                    also |= {d for d, _ in ls}
            if config.category_weight > 0:  # a category question: its kinds' words as a BM25 list (.kinds)
                other, kinds = kind_terms(self._terms(query, offline))
                if kinds:
                    ls = drop_zero(self.store.keyword_search(scope, other + kinds, n, where, as_of),
                                   config.bm25_min_score)
                    lists["bm25_kinds"], weights["bm25_kinds"] = ls, wl * config.category_weight
                    also |= {d for d, _ in ls}
            # a slot question: the memories holding the asked slots' current claims, a list of their own (.slots)
            slot_facts = slot_list(query, self.store, scope, where=where, as_of=as_of, past=past_q) \
                if config.slot_weight > 0 or config.slot_first else []
            if slot_facts and config.slot_weight > 0:
                lists["slot"] = [(m.id, 1.0) for m in slot_facts]
                weights["slot"] = config.slot_weight * max(wd, wl)
                also |= {m.id for m in slot_facts}
            if got is not None and config.date_weight > 0:
                for name, ls in got.lists.items():
                    lists[name] = ls
                    weights[name] = config.date_weight * (wl if name.startswith("bm25") else wd)
                    also |= {d for d, _ in ls}

            def fuse(ls: dict[str, list[tuple[str, float]]], ws: dict[str, float]) -> dict[str, float]:
                return rrf(ls, ws, config.rrf_k) if fusion == "rrf" else minmax(ls, ws, config.norm_window,
                                                                                 config.rrf_k)

            fused = fuse(lists, weights)
            # multi-hop: a second round from the first round's best (.hops); not for a question about the past
            # (it reads one slot's history, ordered by currency) nor with as_of's past texts
            if config.hops and fused and past is None and not past_q:
                more, more_w = second_round(fused, query=query, store=self.store, scope=scope, where=where,
                                            as_of=as_of, n=n, config=config, terms=self._terms(query, offline),
                                            query_vector=lambda: query_vector if query_vector is not None
                                            else self.embed_query(query, scope))
                if more:
                    also |= {d for d, _ in more.get("bm25_hop", [])}
                    fused = fuse({**lists, **more}, {**weights, **more_w})
        else:
            fused = weighted(dense, lexical, config.dense_weight)
        # with date_query the window is .dated's (its year read off the memories); a query naming no date has none
        window = dwin if offline and config.date_query else time_window(query, as_of or now) if offline else None
        if window is None and offline and time_text:
            window = time_window(time_text, as_of or now)
        if not fused:
            return []
        # each candidate's rank in the two lists (its score read from the list): no (score, rank) pair per list
        # entry (~500 tuples a search the garbage collector tracks, for the ~100 candidates that read one)
        dpos = {d: r for r, (d, _s) in enumerate(dense, start=1)}
        lpos = {d: r for r, (d, _s) in enumerate(lexical, start=1)}
        if len(fused) > max(5 * limit, 100):
            # the weights below (and the anchor's, in [1 - anchor_weight, 1]) move a score by a bounded factor:
            # only the best-fused candidates can end in the top ``limit``, so only they are loaded (loading every
            # candidate dominated search time at scale)
            fused = dict(best_fused(fused, max(5 * limit, 100)))
        ctx_vectors = None
        # the candidates' entities are read for the hits returned only (none of the stages below reads them); an
        # as_of read keeps them: past.items gives each edited memory the entities it had then
        lazy = past is None
        # the columns the steps below rank on only (.stores.rank_rows); the hits returned are read whole below
        rank = getattr(self.store, "rank_rows", None) if lazy else None
        hits: list[Hit] = []
        feed = None  # without a step reading the whole list, rows are read only until the top is settled (.bounded)
        if applies(config, anchored=anchor is not None, past=past is not None or past_q, recap=bool(recap)):
            feed = BoundedFeed(fused, limit=limit, hits=hits, factors=factor_range(config, window is not None),
                               load=(lambda ids: rank(scope, ids)) if rank is not None else
                               (lambda ids: self.store.get_many(scope.tenant, ids, entities=False)))
            items = feed.items
        elif anchor is not None and getattr(anchor, "wants_context_vectors", False):
            items, ctx_vectors = self.store.get_many_with_context(scope.tenant, list(fused), entities=not lazy)
        elif rank is not None:
            items = rank(scope, list(fused))
        else:
            items = self.store.get_many(scope.tenant, list(fused), entities=not lazy)
        if past is not None:  # an edited memory is returned with the text it had at as_of
            items = past.items(items)
        ref = as_of or now
        rw, iw, curve, half_life = (config.recency_weight, config.importance_weight, config.recency_curve,
                                    config.recency_half_life_days)
        keep_r, keep_i = 1 - rw, 1 - iw
        source_weights, min_dense, ask_weight = config.source_weights, config.min_dense, config.ask_weight
        imp_of: dict[tuple[str, float, int], float] = {}  # importance depends on these three fields only
        # a person the query names: their own memories over others' mentions of them (.speakers); the bounded
        # feed is off whenever speaker_weight > 0 (bounded.applies), so ``items`` then holds every candidate
        by_speaker = speaker_rule(query, (it.speaker for it in items.values()), config.speaker_weight,
                                  mentions=config.speaker_mentions)
        for doc, f in (fused.items() if feed is None else feed):
            item = items.get(doc)
            if item is None or (not show_expired and item.expires_at is not None and item.expires_at <= ref):
                continue
            dr, lr = dpos.get(doc), lpos.get(doc)
            ds = None if dr is None else dense[dr - 1][1]
            ls = None if lr is None else lexical[lr - 1][1]
            if ls is None and (ds is None or ds < min_dense) and doc not in also:
                continue
            rec = recency_weight(item.created_at, ref, curve=curve, half_life_days=half_life)
            key = (item.kind, item.confidence, item.access_count)
            imp = imp_of.get(key)
            if imp is None:
                imp = imp_of[key] = importance(item)
            sw = source_weights.get(item.kind, 1.0)
            if ask_weight < 1.0 and item.kind == "question" and asks_only(item.text):
                sw *= ask_weight  # it only asks: it states nothing the search could be looking for
            final = f * (keep_r + rw * rec) * (keep_i + iw * imp) * sw
            explain = {"dense": ds, "dense_rank": dr, "bm25": ls, "bm25_rank": lr, "fused": f,
                       "fusion": fusion, "recency": rec, "importance": imp, "source_weight": sw}
            if by_speaker is not None and item.speaker:
                explain["speaker_weight"] = spw = by_speaker.weight(item.speaker, item.text)
                final *= spw
            if adapt is not None:
                explain["fusion_adapt"] = adapt
            if window is not None and dq is not None:
                explain["date_prior"] = prox = proximity(item, window, config.date_spread_days)
                explain["time_match"] = prox >= 1.0
                final *= 1 + config.time_boost * prox
            elif window is not None:
                explain["time_match"] = in_window(item, window)
                final *= 1 + config.time_boost if explain["time_match"] else 1.0
            explain["final"] = final
            hits.append(_hit(item, final, explain))
        if recap:
            hits = recap_first(hits, recap)
        if anchor is not None:
            ranked = collapse_repeats(anchor(hits) if ctx_vectors is None else anchor(hits, ctx_vectors),
                                      bool(past_q), as_of)
            ranked = self._neighbours(ranked, scope, where, as_of, config, past is None and not past_q, show_expired,
                                      ref)
            out = order_by_currency(by_session(ranked, config), store=self.store, scope=scope, past=past_q,
                                    as_of=as_of, limit=limit, where=where, query=query)
            explain = getattr(anchor, "explain", None)
            if explain is not None:  # explain["anchor"] for the returned hits only
                # not a successor placed by currency, nor a neighbour the anchor never saw
                explain([h for h in out if not h.explain.get("inserted") and not h.explain.get("neighbour_new")])
        else:
            hits.sort(key=lambda h: (-h.score, h.memory.created_at, h.memory.id))  # ties: a stable key, never dict order
            ranked = self._neighbours(collapse_repeats(hits, bool(past_q), as_of), scope, where, as_of, config,
                                      past is None and not past_q, show_expired, ref)
            out = order_by_currency(by_session(ranked, config), store=self.store,
                                    scope=scope, past=past_q, as_of=as_of, limit=limit, where=where, query=query)
        if recap:
            out = recap_order(out)
        if config.slot_first and slot_facts:
            out = place_first(out, slot_facts, limit)
        out = rank_scores(out)  # Hit.score: the score that defines the rank (never rising down the list)
        if lazy and out:
            out = self._whole(scope.tenant, out, items)
        if config.track_access and out:
            self._touch(scope.tenant, [h.memory.id for h in out], now)
        return out

    def _neighbours(self, hits: list[Hit], scope: Scope, where: FilterNode | None, as_of: datetime | None,
                    config: SearchConfig, allowed: bool, show_expired: bool, ref: datetime) -> list[Hit]:
        """``hits`` (best first) with the turns beside the best added (:func:`.neighbours.add_neighbours`) when
        ``config.neighbours`` and ``allowed`` (not a question about the past, nor a search over as_of's past texts:
        those read a slot's history / texts of then); an expired neighbour is left out unless ``show_expired``."""
        if config.neighbours <= 0 or not allowed:
            return hits
        return add_neighbours(hits, store=self.store, scope=scope, where=where, as_of=as_of, config=config,
                              keep=None if show_expired else (lambda item: not _expired(item, ref)))

    @staged("candidates")
    def _candidates(self, query: str, scope: Scope, where: FilterNode | None, n: int, config: SearchConfig,
                    as_of: datetime | None, query_vector: np.ndarray | None, *, expand: bool,
                    past: PastTexts | None = None) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """(dense, BM25) candidate lists for one query text, best first. ``past``: memories edited after
        ``as_of``, matched on their text then instead of their current one (:mod:`.past`)."""
        dense: list[tuple[str, float]] = []
        if config.dense_weight > 0 or config.fusion == "weighted":
            qv = query_vector if query_vector is not None else self.embed_query(query, scope)
            dense = self.store.dense_search(scope, qv, n, where, as_of)
            if past is not None:
                dense = past.dense(dense, qv, self.embedder.embed_documents, n)
        lexical: list[tuple[str, float]] = []
        if config.lexical_weight > 0 or config.fusion == "weighted":
            terms = self._terms(query, expand)
            lexical = self.store.keyword_search(scope, terms, n, where, as_of)
            if past is not None:
                lexical = past.lexical(lexical, terms, n)
        return dense, lexical

    @staticmethod
    def _terms(query: str, expand: bool) -> list[str]:
        """The keyword terms of ``query``, with the offline cross-language expansion when ``expand``."""
        terms = query_terms(query)
        return expand_terms(terms) if expand else terms

    def _past(self, scope: Scope, where: FilterNode | None, as_of: datetime | None) -> PastTexts | None:
        """The scope's memories edited after ``as_of`` (None without ``as_of`` or when there are none)."""
        if as_of is None:
            return None
        texts = self.store.past_texts(scope, where, as_of)
        if not texts:
            return None
        rows = self.store.get_many(scope.tenant, list(texts))
        return PastTexts(texts, {mid: it.speaker for mid, it in rows.items()},
                         self.store.past_states(scope, where, as_of))

    def _whole(self, tenant: str, hits: list[Hit], loaded: dict[str, Any]) -> list[Hit]:
        """``hits`` with the memories read in part (``loaded``: the candidates as read, without their entities, or
        only the columns ranked on: :class:`~anchormem.stores.rank_rows.RankRow`) read whole: their entities added,
        or the rest of their rows read (``Store.whole_rows``; a hit whose row is gone since is left out). A memory
        read whole elsewhere (a successor placed by currency) is kept as it is."""
        bare = [h for h in hits if loaded.get(h.memory.id) is h.memory]
        if not bare:
            return hits
        if not isinstance(bare[0].memory, RankRow):
            for h, item in zip(bare, self.store.with_entities(tenant, [h.memory for h in bare])):
                h.memory = item
            return hits
        whole = self.store.whole_rows(tenant, [h.memory for h in bare])
        gone = False
        for h in bare:
            item = whole.get(h.memory.id)
            if item is None:
                gone = True
            else:
                h.memory = item
        return [h for h in hits if not isinstance(h.memory, RankRow)] if gone else hits

    def _touch(self, tenant: str, ids: list[str], now: datetime) -> None:
        """Bump access counts of returned hits; a failure (a locked or read-only database) is logged, not raised."""
        try:
            self.store.touch(tenant, ids, now)
        except Exception as exc:  # noqa: BLE001 - access tracking must never fail a search
            log.warning("could not record access of %d memories: %s", len(ids), exc)


def collapse_repeats(hits: list[Hit], past: bool = False, as_of: datetime | None = None) -> list[Hit]:
    """Drop a hit that repeats a better-ranked one: same source turn, and one text contains the other (a fact
    memory and the utterance it was taken from). Order is kept. Summaries are never dropped and never drop
    others. With ``past`` (a question about the past), a fact whose claim is closed goes right before the
    better-ranked utterance that carries it when that utterance still holds for the rest it says (the old value
    is what is asked for; the turn that said it follows, whole, for a question naming its other words: "之前天天挤13号线
    那会儿住哪？"); an utterance closed as a whole is the memory as it was, and stays. With ``as_of`` (a
    read of a past instant), the utterance a fact was read from takes the fact's place when both held then: the
    turn as it was said, not a piece of it. Otherwise the utterance a current fact was read from takes the fact's
    place (:func:`_whole_turn_of`). Linear in the hits: only earlier hits of the same source turn are compared."""
    kept: list[Hit] = []
    by_source: dict[str, list[Hit]] = {}
    for h in hits:
        if h.memory.kind == "summary":  # a summary quotes many turns; it never hides them, nor they it
            kept.append(h)
            continue
        text = h.memory.text.strip()
        same = [k for sid in h.memory.source_message_ids for k in by_source.get(sid, ())
                if text in k.memory.text or k.memory.text.strip() in text]
        if same:
            k = same[0]
            if past and h.memory.kind == "fact" and h.memory.valid_to is not None and k.memory.kind != "fact" and \
                    k.memory.valid_to is None:  # the old value first, then the turn that said it, whole: the
                h.score = max(h.score, k.score)  # question may name its other words ("那会儿天天挤13号线")
                at = next(i for i, x in enumerate(kept) if x is k)
                kept[at:at + 1] = [h, k]
                for sid in h.memory.source_message_ids:
                    by_source.setdefault(sid, []).append(h)
                continue
            if (as_of is not None and _said_then(h, k, as_of)) or \
                    (not past and as_of is None and _whole_turn_of(h, k)):
                h.score = max(h.score, k.score)
                kept[next(i for i, x in enumerate(kept) if x is k)] = h
                for sid in h.memory.source_message_ids:  # the one replaced is gone; later clauses compare to h
                    by_source[sid] = [h if x is k else x for x in by_source.get(sid, ())]
            continue
        kept.append(h)
        for sid in h.memory.source_message_ids:
            by_source.setdefault(sid, []).append(h)
    return kept


def _said_then(h: Hit, k: Hit, as_of: datetime) -> bool:
    """``h`` is the utterance a better-ranked fact ``k`` was read from (its text in ``h``'s), and both held at
    ``as_of``: what was said then is the turn, of which the fact is a piece."""
    def held(m: MemoryItem) -> bool:
        return m.valid_to is None or m.valid_to > as_of

    return (k.memory.kind == "fact" and h.memory.kind == "utterance" and held(k.memory) and held(h.memory)
            and k.memory.text.strip().rstrip(".。!！") in h.memory.text)


def _whole_turn_of(h: Hit, k: Hit) -> bool:
    """``h`` is the utterance a better-ranked current fact ``k`` was read from, and every claim it carries is current:
    it says the fact and the rest of the turn ("a trip to Japan in October. My budget is 3,000 euros"), so it takes
    the fact's place (a question's other words are in it). A turn carrying a closed claim never does."""
    return (k.memory.kind == "fact" and h.memory.kind == "utterance" and k.memory.valid_to is None
            and h.memory.valid_to is None and k.memory.text.strip() in h.memory.text
            and all(c.valid_to is None for c in (h.memory.claims or ())))


def best_fused(fused: dict[str, float], n: int) -> list[tuple[str, float]]:
    """The ``n`` best (id, fused score) pairs of ``fused``, best first, ties by id: what
    ``heapq.nsmallest(n, fused.items(), key=lambda kv: (-kv[1], kv[0]))`` returns, from two C sorts on plain keys (by
    id, then stably by score, descending) instead of a Python key per candidate (~400 a search)."""
    return sorted(sorted(fused.items(), key=_first), key=_second, reverse=True)[:n]


_first, _second = itemgetter(0), itemgetter(1)


def by_session(hits: list[Hit], config: SearchConfig) -> list[Hit]:
    """``hits`` (best first) weighed by their session (:func:`.sessions.weigh`) when ``config.session_weight`` > 0."""
    return weigh(hits, config.session_weight) if config.session_weight > 0 else hits


def _hit(memory: MemoryItem, score: float, explain: dict[str, Any]) -> Hit:
    """``Hit(memory=memory, score=score, explain=explain)`` without validating values that are valid by
    construction (a stored memory, a float, a dict): ~100 candidates a search, and pydantic's check of the
    memory was a tenth of the pipeline. Equal to the validated Hit."""
    hit = Hit.__new__(Hit)
    object.__setattr__(hit, "__dict__", {"memory": memory, "score": score, "explain": explain})
    object.__setattr__(hit, "__pydantic_fields_set__", {"memory", "score", "explain"})
    object.__setattr__(hit, "__pydantic_extra__", None)
    object.__setattr__(hit, "__pydantic_private__", None)
    return hit

