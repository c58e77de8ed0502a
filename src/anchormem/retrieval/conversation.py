"""Conversation-aware queries: a search given a conversation also searches with the conversation (issue #23).

Offline, from the conversation's turns (``context`` of ``search``/``ask``/``context``, oldest first):

- **the query, resolved** (:func:`resolve_query`): a query that points back ("When does *it* start again?",
  "那个后来怎么样了？": a reference word of ``data/lang/{en,zh}/conversation.json``) gets the subject words
  (:func:`anchormem.context.wording.subject_terms`) of the newest earlier turn that has some appended, in
  brackets; a query that names no date takes the first date phrase of the newest turn that names one
  (:func:`anchormem.text.dates.resolve_dates`) as its time window (:mod:`.rewrite`; "I went hiking last weekend." …
  "Who was I with?"), without adding it to the query's words.
- **the conversation query** (:func:`conversation_query`): the last ``turns`` turns and the query as one text for
  BM25, and for the dense side the query's embedding mixed with the turns' passage embeddings (newest weighs most;
  the turns are embedded in one batched call and cached, :meth:`.search.Searcher.embed_passages`, so it costs no
  embedding of its own). It is searched beside the query and fused by RRF with ``SearchConfig.conversation_query_
  weight`` of the query's weights: it adds candidates the conversation is about without outranking what the query
  names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from collections import OrderedDict
from threading import Lock

import numpy as np

from ..langdata import words
from ..text.dates import resolve_dates
from ..text.tokenize import STOPWORDS, has_cjk, query_terms, words as text_words

__all__ = ["ConversationQuery", "TurnVectors", "turn_gist", "resolve_query", "conversation_query", "points_back",
           "plan"]


@dataclass(frozen=True)
class ConversationQuery:
    """A conversation query for :meth:`.search.Searcher.search`: ``text`` (the recent turns and the query, for BM25),
    ``vector`` ((dim,) float32 unit vector for dense search, or None: ``text`` is embedded as a query) and
    ``weight`` (its share of the query's RRF weights, in (0, 1])."""

    text: str
    vector: np.ndarray | None
    weight: float


@lru_cache(maxsize=1)
def _reference_pattern() -> tuple[re.Pattern[str], tuple[str, ...]]:
    latin = [w for w in words("conversation", "references") if not has_cjk(w)]
    cjk = tuple(w for w in words("conversation", "references") if has_cjk(w))
    pat = re.compile(r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in latin) + r")\b", re.I) \
        if latin else re.compile(r"(?!)")
    return pat, cjk


def points_back(query: str) -> bool:
    """Whether ``query`` holds a word that refers to something said before ("it", "that one", 那个, 它) on its own,
    not as the determiner of a word the query names ("that fund", 那个基金: the query names what it means)."""
    from ..context.wording import subject_terms

    pat, cjk = _reference_pattern()
    dets = set(words("conversation", "determiners"))
    terms = [t for t in subject_terms(query) if t]
    for m in pat.finditer(query):
        nxt = re.match(r"\s*([A-Za-z]+)", query[m.end():])
        if not (m.group(0).lower() in dets and nxt and nxt.group(1).lower() in terms):
            return True
    for w in cjk:
        start = query.find(w)
        while start >= 0:
            rest = query[start + len(w):]
            if not (w in dets and any(rest.startswith(t) for t in terms if has_cjk(t))):
                return True
            start = query.find(w, start + 1)
    return False


def resolve_query(query: str, turns: Sequence[str], now: datetime) -> tuple[str, str | None]:
    """(``query`` with the subject words of the newest earlier turn holding some appended when it points back
    (:func:`points_back`), the newest turn's date phrase when the query names no date, else None), from the
    conversation ``turns`` (oldest first); ``now``: the instant relative dates are resolved against. The date phrase
    sets the search's time window only (:meth:`.search.Searcher.search` ``time_text``): added to the query's words it
    would match every memory that says "today" or "1937"."""
    from ..context.wording import subject_terms

    if not turns:
        return query, None
    add: list[str] = []
    if points_back(query):
        mine = set(subject_terms(query))
        for t in reversed(turns):
            got = [w for w in dict.fromkeys(subject_terms(t))
                   if w not in mine and w not in STOPWORDS and not (has_cjk(w) and len(w) < 2)]
            if got:
                add.extend(got[:4])
                break
    when = None
    if not resolve_dates(query, now):
        for t in reversed(turns):
            spans = resolve_dates(t, now)
            if spans:
                when = spans[0].text
                break
    if not add:
        return query, when
    sep = "" if has_cjk(query) else " "
    return f"{query}{sep}({' '.join(add)})", when


def conversation_query(query: str, turns: Sequence[str], *, weight: float,
                       query_vector: Callable[[], np.ndarray] | None = None,
                       turn_vectors: Callable[[list[str]], np.ndarray] | None = None,
                       decay: float = 3.0) -> ConversationQuery | None:
    """The conversation query of ``query`` and ``turns`` (the recent turns, oldest first; already cut to the last N),
    or None without turns or with ``weight`` 0. With ``query_vector`` (→ the query's (dim,) embedding) and
    ``turn_vectors`` (→ (n, dim) passage embeddings of the turns, one batched call), the dense side is the unit
    mean of the normalised query vector and the turns' weighted mean (weights 1/(1 + age/``decay``), the newest 1);
    without them the text is embedded as a query by the searcher."""
    if weight <= 0 or not turns:
        return None
    text = " ".join([*turns, query])
    vec = None
    if query_vector is not None and turn_vectors is not None:
        q = np.asarray(query_vector(), dtype=np.float64).reshape(-1)
        tv = np.asarray(turn_vectors(list(turns)), dtype=np.float64).reshape(len(turns), -1)
        w = 1.0 / (1.0 + np.arange(len(turns) - 1, -1, -1, dtype=np.float64) / decay)
        c = (w @ tv) / w.sum()
        mix = q / max(float(np.linalg.norm(q)), 1e-12) + c / max(float(np.linalg.norm(c)), 1e-12)
        vec = (mix / max(float(np.linalg.norm(mix)), 1e-12)).astype(np.float32)
    return ConversationQuery(text=text, vector=vec, weight=float(weight))


def plan(query: str, turns: Sequence[str], cfg, embed_query: Callable[[str], np.ndarray],
         embed_turns: Callable[[list[str]], np.ndarray], now: datetime
         ) -> tuple[str, ConversationQuery | None, str | None]:
    """What a search with a conversation runs: (the query resolved against ``turns`` (:func:`resolve_query`), the
    conversation query or None (:func:`conversation_query`, with ``cfg.conversation_query_weight``; rrf fusion
    only), the conversation's date phrase for the time window or None). ``turns``: the conversation's texts, oldest
    first (none: (``query``, None, None)); ``embed_query``/``embed_turns``: the searcher's cached embedders; the turns
    are embedded only when the conversation query is on."""
    if not turns:
        return query, None, None
    q, time_text = resolve_query(query, turns, now)
    w = cfg.conversation_query_weight if cfg.fusion == "rrf" else 0.0
    if w <= 0:
        return q, None, time_text
    conv = conversation_query(q, turns, weight=w, query_vector=lambda: embed_query(q),
                              turn_vectors=embed_turns) if cfg.dense_weight > 0 else \
        conversation_query(q, turns, weight=w)
    return q, conv, time_text


def turn_gist(texts: Sequence[str], budget: int) -> str:
    """What stands for new conversation turns ``texts`` (oldest first) in one embedding, at most ``budget`` words
    (:func:`anchormem.text.tokenize.words`: Chinese words as jieba cuts them), taken from the newest turn back: a turn
    whose words fit what is left comes whole, as said; a longer one by its content words
    (:func:`anchormem.text.tokenize.query_terms`: stopwords dropped, each word once) until the budget is spent.
    The pieces are put back in the turns' order, one space between them. "" when no turn has a word."""
    left, parts = max(int(budget), 0), []
    for t in reversed(texts):
        if left <= 0:
            break
        n = len(text_words(t))
        if 0 < n <= left:
            parts.append(t.strip())
            left -= n
            continue
        got = query_terms(t)[:left]
        left -= len(got)
        if got:
            parts.append("".join(got) if all(has_cjk(w) for w in got) else " ".join(got))
    return " ".join(reversed(parts))


class TurnVectors:
    """The passage vectors of a search's conversation turns (what anchoring reads: the turns' domain logits and the
    conversation's vector), at a bounded embedding cost. The default engine's work grows with the tokens it embeds,
    not with its calls (``bench/embed_calls.py``), so turns are not embedded one by one or in full. Per turn, the
    first that has one:

    1. the exact passage embedding the searcher keeps for it (a turn ``add`` stored in this process, or a turn an
       exact search embedded: :meth:`.search.Searcher.kept_passages`);
    2. the vector an earlier search of this process gave it (kept here, LRU of ``size`` turns);
    3. else the turn is new, and every new turn of the search gets one vector: the passage embedding of their gist
       (:func:`turn_gist`: at most ``budget`` words, newest turn first, a short turn whole, a long one by its content
       words), one engine call of about ``budget`` tokens however many turns are new. A new turn without a word
       gets that vector too (or, when no new turn has one, its own text embedded).

    ``budget`` 0 (:meth:`vectors`): each new turn's own text, embedded together in one call
    (:meth:`.search.Searcher.embed_passages`; exact, the cost grows with the turns' tokens).
    Thread-safe. The kept vectors are of text users said: :meth:`forget` drops them (after a purge)."""

    def __init__(self, searcher, size: int = 1024) -> None:
        self.searcher = searcher
        self.size = max(int(size), 1)
        # a turn's vector by its text, or ("static", [tenant, user, mix,] text): its static vector
        self._kept: OrderedDict[str | tuple, np.ndarray] = OrderedDict()
        self._lock = Lock()

    def vectors(self, texts: Sequence[str], budget: int, scope=None, words: int = 0,
                static: bool = False, exact: int = 0, mix: float = 0.0) -> np.ndarray:
        """(n, dim) float32 passage vectors of the turns ``texts`` (oldest first), in order (class doc); at most one
        embedding call. With ``scope`` (the search's), a turn stored as a memory of that user (its embedded text,
        ``"<speaker>: <text>"``, is the turn's) takes its stored vector: one keyword lookup per turn not kept.
        ``words`` > 0 (with ``budget`` 0): each new turn keeps its own vector, but of at most ``words`` words
        (:meth:`cut`: a short turn whole, a long one by its first content words), all new turns in one call; the cut
        text's vector is kept under the cut text, so a turn passed again costs nothing.
        ``static`` (and an embedder with ``embed_static``, :class:`anchormem.embedders.local_e5.E5SmallEmbedder`):
        each new turn gets its static vector (:mod:`anchormem.embedders.static_e5`: its tokens' input embeddings
        through a fitted map, no forward pass; kept, LRU of ``size``), whatever ``budget`` says, but for the newest
        ``exact`` new turns: those are embedded (cut to ``words`` words when ``words`` > 0), in one call; ``mix``: a
        static vector's share given to the stored memories sharing the turn's words (:meth:`_static`); an
        embedder without ``embed_static`` embeds every new turn as ``budget`` and ``words`` say.
        Raises EmbeddingError from the embedder, StoreError from the store."""
        texts = list(texts)
        got = self.searcher.kept_passages(texts)
        if static and getattr(self.searcher.embedder, "embed_static", None) is not None:
            return self._static(texts, got, scope, exact, words, mix)
        cut: dict[str, str] = {}
        if budget <= 0 and words > 0:
            cut = {t: self.cut(t, words) for t in dict.fromkeys(texts) if t not in got}
            seen = self.searcher.kept_passages(list(dict.fromkeys(cut.values())))
            got.update({t: seen[c] for t, c in cut.items() if c in seen})
        with self._lock:
            for t in texts if budget > 0 else ():  # budget 0: exact vectors only
                if t not in got and t in self._kept:
                    got[t] = self._kept[t]
                    self._kept.move_to_end(t)
        if scope is not None and len(got) < len(set(texts)):
            got.update(self._stored([t for t in dict.fromkeys(texts) if t not in got], scope))
        if budget <= 0:
            todo = [t for t in dict.fromkeys(texts) if t not in got]
            if todo:  # one batched call: each new turn's text, or its cut (words > 0)
                src = {t: cut.get(t) or (self.cut(t, words) if words > 0 else t) for t in todo}
                uniq = list(dict.fromkeys(src.values()))
                vecs = dict(zip(uniq, self.searcher.embed_passages(uniq)))
                got.update({t: vecs[c] for t, c in src.items()})
            return np.vstack([got[t] for t in texts]) if texts else \
                np.zeros((0, self.searcher.embedder.dim), dtype=np.float32)
        new = [t for t in dict.fromkeys(texts) if t not in got]
        if new:
            gist = turn_gist(new, budget)
            vecs = self.searcher.embedder.embed_documents([gist] if gist else new)
            vecs = np.asarray(vecs, dtype=np.float32).reshape(-1, self.searcher.embedder.dim)
            with self._lock:
                for i, t in enumerate(new):
                    got[t] = vecs[0 if gist else i]
                    self._kept[t] = got[t]
                    self._kept.move_to_end(t)
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
        if not texts:
            return np.zeros((0, self.searcher.embedder.dim), dtype=np.float32)
        return np.vstack([got[t] for t in texts])

    def vector(self, text: str, budget: int, scope=None, words: int = 0, static: bool = False,
               exact: int = 0, mix: float = 0.0) -> np.ndarray:
        """The (dim,) float32 vector of one turn: what :meth:`vectors` gave it, or it alone as a new turn."""
        return self.vectors([text], budget, scope, words, static, exact, mix)[0]

    def _static(self, texts: list[str], got: dict[str, np.ndarray], scope, exact: int, words: int,
                mix: float = 0.0) -> np.ndarray:
        """:meth:`vectors` with ``static``: exact vectors where known (``got``, then the stored turns of ``scope``),
        for the newest ``exact`` new turns embedded now (each cut to ``words`` words when ``words`` > 0; kept by the
        searcher), static vectors for the rest (kept under ``("static", text)``); with ``mix`` > 0 (and ``scope``)
        each static vector is moved by ``mix`` toward the BM25-weighted mean of the stored vectors of the memories
        that share its words (:meth:`_neighbours`; kept per user and ``mix``)."""
        if exact > 0 and words > 0:  # a turn cut before: its cut's vector is kept by the searcher
            cuts = {t: self.cut(t, words) for t in dict.fromkeys(texts) if t not in got}
            seen = self.searcher.kept_passages(list(dict.fromkeys(cuts.values())))
            got.update({t: seen[c] for t, c in cuts.items() if c in seen})
        # a turn given a static vector before is known not to be stored (a search reads each turn several times)
        tag = ("static",) if mix <= 0 or scope is None else ("static", scope.tenant, scope.user_id, mix)
        with self._lock:
            for t in dict.fromkeys(texts):
                v = self._kept.get((*tag, t)) if t not in got else None
                if v is not None:
                    got[t] = v
                    self._kept.move_to_end((*tag, t))
        found: dict[str, list[tuple[str, float]]] = {}
        if scope is not None and len(got) < len(set(texts)):
            found = self._lookup([t for t in dict.fromkeys(texts) if t not in got], scope)
            got.update(self._stored([t for t in dict.fromkeys(texts) if t not in got], scope, found))
        todo = [t for t in dict.fromkeys(texts) if t not in got]
        if todo and exact > 0:  # the newest new turns: their passage embeddings (or their cuts'), one call
            now = todo[-exact:]
            src = {t: self.cut(t, words) if words > 0 else t for t in now}
            uniq = list(dict.fromkeys(src.values()))
            vecs = dict(zip(uniq, self.searcher.embed_passages(uniq)))
            got.update({t: vecs[c] for t, c in src.items()})
            todo = todo[:-exact]
        if todo:
            vecs = np.asarray(self.searcher.embedder.embed_static(todo), dtype=np.float32).reshape(len(todo), -1)
            if len(tag) > 1:  # moved toward the stored memories that share their words
                near = self._neighbours(todo, found, scope)
                for i, t in enumerate(todo):
                    if t in near:
                        m = (1.0 - mix) * vecs[i] + mix * near[t]
                        vecs[i] = m / max(float(np.linalg.norm(m)), 1e-12)
            with self._lock:
                for t, v in zip(todo, vecs):
                    got[t] = v
                    self._kept[(*tag, t)] = v
                    self._kept.move_to_end((*tag, t))
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
        if not texts:
            return np.zeros((0, self.searcher.embedder.dim), dtype=np.float32)
        return np.vstack([got[t] for t in texts])

    @staticmethod
    def cut(text: str, words: int) -> str:
        """What is embedded for a new turn ``text`` under a per-turn cap of ``words`` words: the turn itself when it
        has at most that many words (:func:`anchormem.text.tokenize.words`), else its first ``words`` content words
        (:func:`turn_gist` of the turn alone); the turn itself when it has no word."""
        return turn_gist([text], words) or text

    def _lookup(self, texts: list[str], scope) -> dict[str, list[tuple[str, float]]]:
        """Per turn of ``texts`` with words: its best 3 memories of ``scope``'s user in the keyword index, (id, BM25
        score) best first."""
        from ..types import Scope

        store = self.searcher.store
        user = Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id)
        out: dict[str, list[tuple[str, float]]] = {}
        for t in texts:
            terms = query_terms(t)
            if terms:
                out[t] = [(mid, float(sc)) for mid, sc in store.keyword_search(user, terms, 3, None)]
        return out

    def _neighbours(self, texts: list[str], found: dict[str, list[tuple[str, float]]], scope) -> dict[str, np.ndarray]:
        """Per turn of ``texts`` with keyword matches (``found``, :meth:`_lookup`): the BM25-weighted mean of those
        memories' stored vectors (dim,), unit length; turns without a match are left out."""
        every = sorted({mid for t in texts for mid, _ in found.get(t, ())})
        if not every:
            return {}
        vecs = self.searcher.store.get_vectors(scope.tenant, every)
        out: dict[str, np.ndarray] = {}
        for t in texts:
            got = [(np.asarray(vecs[mid], dtype=np.float64), max(sc, 0.0))
                   for mid, sc in found.get(t, ()) if mid in vecs]
            w = sum(sc for _, sc in got)
            if got and w > 0:
                m = sum(v * sc for v, sc in got) / w
                out[t] = (m / max(float(np.linalg.norm(m)), 1e-12)).astype(np.float32)
        return out

    def _stored(self, texts: list[str], scope,
                found: dict[str, list[tuple[str, float]]] | None = None) -> dict[str, np.ndarray]:
        """The stored vectors of the turns among ``texts`` that are memories of ``scope``'s user (their embedded text
        is the turn's): each turn's words looked up in the keyword index (its best 3 matches, or ``found``:
        :meth:`_lookup`'s), those matches read once. The vectors found are kept
        (:meth:`.search.Searcher.remember_passages`)."""
        from ..ingest.pipeline import embedding_text

        store = self.searcher.store
        if found is None:
            found = self._lookup(texts, scope)
        ids = {t: [mid for mid, _ in found[t]] for t in texts if t in found}
        every = sorted({mid for v in ids.values() for mid in v})
        if not every:
            return {}
        rows = store.get_many(scope.tenant, every)
        match = {t: next((mid for mid in v if mid in rows and embedding_text(rows[mid].text, rows[mid].speaker) == t),
                         None) for t, v in ids.items()}
        vecs = store.get_vectors(scope.tenant, sorted({mid for mid in match.values() if mid}))
        out = {t: np.asarray(vecs[mid], dtype=np.float32) for t, mid in match.items() if mid in vecs}
        if out:
            self.searcher.remember_passages(list(out), np.vstack(list(out.values())))
        return out

    def forget(self) -> None:
        """Drop every kept vector (they are of text users said)."""
        with self._lock:
            self._kept.clear()
