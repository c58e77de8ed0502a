"""``Memory.ask``: answering from memory over the store (search, the evidence test, the user's slots and their
history, the past), as a mixin of :class:`~anchormem.memory.Memory`.

The answering itself lives in :mod:`anchormem.answering`; this module wires it to the store, the searcher and the
embedder a ``Memory`` holds (``self.store``, ``self.search``, ``self._evidence``, ``self.answer_config``...).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any, Callable

from .answering import EvidenceScorer, extractive_answer, llm_answer, slot_answer, with_pending
from .answering.extractive import abstain, cited_once, noted_for_asked, reading_alone
from .answering.persons import users_own_evidence
from .answering.evidence import analyze_question, names_the_asked
from .answering.question_dates import state_time
from .answering.past_reading import asks_about_asker, past_tense, past_tense_answer
from .answering.recency import latest_said_answer
from .answering.slot_questions import asked_slots, held_first, slot_answer_as_of
from .answering.value_shapes import in_shape
from .answering.subject_gate import of_subject
from .answering.slot_evidence import asked_user_slots, latest_first, slot_evidence, with_slot_evidence
from .answering.successors import (closed_by, held_answer, past_slot_answer, predecessor_answer, successor_answer,
                                   with_held)
from .ingest.normalize import check_text
from .arguments import checked_arguments
from .retrieval.currency import evidence_hits
from .facts.claims import asks_past, closed_claims, read_at, reading_as_of, scheduled_ahead, without_past_words
from .blas import with_one_blas_thread
from .tracing import describe_query, traced
from .timeutil import to_utc, users_calendar, utcnow
from .types import Answer, Hit, Scope

__all__ = ["AskMixin"]


def _favoured(hits: list[Hit]) -> list[Hit]:
    """``hits`` less those anchoring demoted (``explain["anchor"]["demoted"]``: the sense the conversation rejects,
    listed by search after the rest, :attr:`SearchConfig.anchor_demote`): no evidence for ``ask``."""
    return [h for h in hits if not (h.explain.get("anchor") or {}).get("demoted")]


@checked_arguments
class AskMixin:
    """The answering half of :class:`~anchormem.memory.Memory` (it relies on the attributes ``Memory.__init__`` sets)."""

    @traced("ask", describe_query)
    @users_calendar
    @with_one_blas_thread
    def ask(self, query: str, *, user_id: str, session_id: str | None = None, agent_id: str | None = None,
            context: Any = None, filters: dict[str, Any] | None = None, as_of: datetime | str | None = None,
            limit: int = 10) -> Answer:
        """Answer from memory with citations, or abstain.

        The evidence test (:mod:`anchormem.answering.evidence`) keeps the 1-3 memories that answer. Without an
        LLM the answer quotes them verbatim (speaker and date). With an LLM (``Memory(llm=...)``) the model
        answers from those memories only; a reply that cites other ids, adds numbers/dates/names not in them,
        or cannot be parsed falls back to the quotes. When no memory passes the evidence test,
        ``abstained=True`` and the text says there is no record. Never invents. Each evidence hit's
        ``explain["evidence"]`` holds its evidence features. A memory that replies to the other speaker's
        question in its session is read with that question ("They were scared" answers "How did the kids take
        the accident?" when that is what it replied to; :meth:`EvidenceScorer.score`). A question without a word
        ("???", "...", "？？") asks nothing: it abstains without searching. An empty or whitespace-only ``query``
        raises InvalidInputError, as :meth:`search` and :meth:`context` do (REST: 422; MCP: a tool error). A
        question about one of the user's slots at a calendar period it names ("Where did I live in March 2024?",
        "2024年3月我住在哪里？") is answered as of the end of that period (``as_of``), when that answers it. A question
        asking for a value of a known shape (an email, a phone number, a postal address, the asker's own name: "Who am
        I?") cites only memories holding one or about that slot, else abstains (:mod:`anchormem.answering.value_shapes`).

        Raises InvalidInputError (empty, blank or oversized query, bad context), FilterError, ScopeError.
        """
        self._settle(self._scope(user_id, agent_id, session_id))  # claims as an eager add leaves them (.enrich)
        query = check_text(query, what="query", max_chars=self.settings.max_query_chars,
                           hint="shorten the query, or raise max_query_chars")
        if not any(ch.isalnum() for ch in query):
            return abstain(query, [])
        if as_of is not None and read_at() is None:  # the notes are worded as of the read ("planned: from …")
            with reading_as_of(to_utc(as_of, field="as_of")):
                return self.ask(query, user_id=user_id, session_id=session_id, agent_id=agent_id, context=context,
                                filters=filters, as_of=as_of, limit=limit)
        dated = state_time(query, utcnow()) if as_of is None and "valid_to" not in (filters or {}) else None
        if dated is not None and asked_user_slots(dated[0]):  # "Where did I live in March 2024?": as of then
            then = self.ask(dated[0], user_id=user_id, session_id=session_id, agent_id=agent_id, context=context,
                            filters=filters, as_of=dated[1], limit=limit)
            if not then.abstained:
                return then
        if as_of is None and not filters and scheduled_ahead(self.store, self._scope(user_id, agent_id, session_id),
                                                             now := utcnow()):
            as_of = now  # a value scheduled ahead ("I start at Stripe on March 1"): what holds now, read as of now
        found = self.search(query, user_id=user_id, session_id=session_id, agent_id=agent_id, context=context,
                            filters=filters, limit=limit, as_of=as_of)
        # a memory anchoring demoted (the sense the conversation rejects: SearchConfig.anchor_demote) is listed by
        # search but is no evidence: 苹果多少钱？ in a phone conversation must not quote the fruit's price
        found = _favoured(found)
        asked, (query, hits) = query, evidence_hits(query, found, as_of, self.store, self.tenant,
                                                    self._view_cosines(query, user_id, agent_id, session_id))
        hits = users_own_evidence(asked, hits)  # the assistant repeating a user's fact is no evidence of it
        query = self._pii.redact_query(query, self.tenant)  # the evidence test and the LLM see the stored form
        if self._evidence is None:
            self._evidence = EvidenceScorer(self.embedder, self.answer_config)
        ans = extractive_answer(query, hits, self.answer_config, scorer=self._evidence,
                                prompts=self._reply_prompts(user_id, hits), past=as_of is None and asks_past(asked))
        then = self._past_tense(asked, query, found, user_id, agent_id, session_id, context, filters, limit, ans) \
            if as_of is None and not filters and not asks_past(asked) else None  # "Which city did I share…"
        slot = self._slot_evidence(asked, user_id, agent_id, session_id, filters, found, ans) \
            if then is None and as_of is None and self.answer_config.slot_evidence else []
        if then is not None:
            ans, hits = then[0], hits + then[1]
        elif ans.abstained and as_of is not None and not filters:  # the user's claims valid then ("Where am I based?")
            then = slot_answer_as_of(asked, found, to_utc(as_of, field="as_of"))
            ans, hits = (then[0], hits + then[1]) if then is not None else (ans, hits)
        elif slot:  # a question about one of the user's slots: its current claim is the evidence (answering.slot_evidence)
            held = held_answer(query, found, scorer=self._evidence, prompts=lambda hs: self._reply_prompts(
                user_id, hs)) if "valid_to" not in (filters or {}) else None
            ans, more = with_slot_evidence(ans, slot, query, self.answer_config.max_citations)
            hits = hits + more
            if held is not None:  # what a partly superseded turn still says answers beside it ("最大那条叫大红")
                ans, hits = with_held(ans, held[0], self.answer_config.max_citations, query), hits + held[1]
        elif ans.abstained and as_of is None and asks_past(asked) and "valid_to" not in (filters or {}):
            now = past_slot_answer(asked, self.store, self._scope(user_id, agent_id, session_id), filters,
                                   self._past_vector(asked, user_id, agent_id, session_id), self.embedder) or \
                self._past_tense(asked, query, found, user_id, agent_id, session_id, context, filters, limit, ans)
            ans, hits = (now[0], hits + now[1]) if now is not None else (ans, hits)
        elif ans.abstained and as_of is None and not asks_past(asked) and "valid_to" not in (filters or {}):
            # the current state of a slot whose earlier value the question names (answering.successors)
            old = self.search(asked, user_id=user_id, session_id=session_id, agent_id=agent_id, context=context,
                              filters={**(filters or {}), "valid_to": {"exists": True}}, limit=limit)
            old = _favoured(old)
            now = successor_answer(query, old, store=self.store, scope=self._scope(user_id, agent_id, session_id),
                                   scorer=self._evidence, prompts=lambda hs: self._reply_prompts(user_id, hs))
            now = now or held_answer(query, found, scorer=self._evidence, prompts=lambda hs: self._reply_prompts(
                user_id, hs)) or slot_answer(asked, self.store, self._scope(user_id, agent_id, session_id), filters)
            ans, hits = now if now is not None else (ans, hits)
        elif not ans.abstained and as_of is None and "valid_to" not in (filters or {}):
            if self.answer_config.latest_first:
                ans = latest_first(ans, asked)
            ans, hits = self._currency_answer(asked, query, ans, hits, found, user_id, agent_id, session_id)
        if as_of is not None and not filters:  # a value scheduled after as_of cited first: what held then goes first
            held = held_first(ans, asked, found, to_utc(as_of, field="as_of"), self.answer_config.max_citations)
            ans, hits = (held[0], hits + held[1]) if held is not None else (ans, hits)
        if then is None and as_of is None and not filters and not ans.abstained and self.answer_config.latest_said:
            ans, more = self._latest_said(asked, ans, found, user_id, agent_id, session_id)  # answering.recency
            hits = hits + more
        ans = in_shape(ans, asked)  # "What is my email?" cites an email or a word on that slot, else abstains
        # the subject asked is the one cited; what a cited ending closed says whose it was ("My boyfriend Marcus…"
        # makes "Marcus and I called it off." the boyfriend's)
        closed = [] if ans.abstained or as_of is not None else \
            closed_by(ans.citations, store=self.store, scope=self._scope(user_id, agent_id, session_id))
        ans = of_subject(ans, asked, [h.memory for h in found] + [h.memory for h in closed],
                         own=[m.id for m in slot if m.valid_to is None and asked_slots(asked)])
        ans = cited_once(ans, asked)  # no question the user asked; a fact and its turn in the same words: the turn
        ans = noted_for_asked(reading_alone(ans), asked)  # quotes that read alone; the asked fact's end
        if self.llm is not None and not ans.abstained:
            ans = llm_answer(query, [h for h in hits if h.memory.id in {c.id for c in ans.citations}], ans, self.llm)
        return with_pending(ans, self.store, self.tenant, user_id, asked)  # a change held for review is said

    def _slot_evidence(self, asked: str, user_id: str, agent_id: str | None, session_id: str | None,
                       filters: Any, found: list[Hit], ans: Answer) -> list[Any]:
        """The current claims of the user's slot ``asked`` asks about (:func:`~anchormem.answering.slot_evidence.
        slot_evidence`: by its words, else by the nearest slot prototype with a calibrated embedder, else, when the
        evidence test's answer ``ans`` states no current claim, by the user's claims nearest in meaning)."""
        scope = self._scope(user_id, agent_id, session_id)
        qv = self._searcher.embed_query(asked, scope) if self._evidence is not None and \
            self._evidence.word_sim is not None else None
        return slot_evidence(asked, self.store, scope, filters, found, self.embedder if qv is not None else None, qv,
                             () if ans.abstained else ans.citations,
                             supports=partial(names_the_asked, analyze_question(asked)))

    def _past_tense(self, asked: str, query: str, found: list[Hit], user_id: str, agent_id: str | None,
                    session_id: str | None, context: Any, filters: Any, limit: int, ans: Answer
                    ) -> tuple[Answer, list[Hit]] | None:
        """The answer from the past to a question about the user in the past tense with no past word, when its
        predicate is nearer a closed claim's turn than the current one, or to a past question (a past word) the
        evidence test abstained on (:mod:`anchormem.answering.past_reading`)."""
        past = asks_past(asked)
        if (not ans.abstained if past else not past_tense(asked)) or not asks_about_asker(asked) or filters or \
                self._evidence is None or self._evidence.word_sim is None:
            return None
        scope = self._scope(user_id, agent_id, session_id)
        old = self.search(asked, user_id=user_id, session_id=session_id, agent_id=agent_id, context=context,
                          filters={"valid_to": {"exists": True}}, limit=limit)
        return past_tense_answer(without_past_words(query) if past else query,
                                 old + [h for h in found if closed_claims(h.memory)], store=self.store,
                                 scope=scope, scorer=self._evidence, embedder=self.embedder,
                                 question_vector=lambda: self._searcher.embed_query(asked, scope),
                                 prompts=lambda hs: self._reply_prompts(user_id, hs), compare=not past)

    def _past_vector(self, asked: str, user_id: str, agent_id: str | None, session_id: str | None
                     ) -> Callable[[], Any] | None:
        """With a calibrated embedder, a callable giving the query embedding of ``asked`` without its past words
        (:func:`~anchormem.answering.successors.past_slot_answer` reads the slot by meaning from it); else None."""
        if self._evidence is None or self._evidence.word_sim is None:
            return None
        scope = self._scope(user_id, agent_id, session_id)
        return lambda: self._searcher.embed_query(without_past_words(asked), scope)

    def _currency_answer(self, asked: str, query: str, ans: Answer, hits: list[Hit], found: list[Hit], user_id: str,
                         agent_id: str | None, session_id: str | None) -> tuple[Answer, list[Hit]]:
        """An answer citing what holds now, read through the claims (:mod:`anchormem.answering.successors`): a
        question about the past whose evidence is a change cites what the change replaced; else partly superseded
        memories still answer for what else they said, after the answer's own citations."""
        scope = self._scope(user_id, agent_id, session_id)
        if asks_past(asked):
            past = predecessor_answer(query, ans, store=self.store, scope=scope)
            return (past[0], hits + past[1]) if past is not None else (ans, hits)
        held = held_answer(query, found, scorer=self._evidence, prompts=lambda hs: self._reply_prompts(user_id, hs))
        if held is None:
            return ans, hits
        return with_held(ans, held[0], self.answer_config.max_citations, query), hits + held[1]

    def _latest_said(self, asked: str, ans: Answer, found: list[Hit], user_id: str, agent_id: str | None,
                     session_id: str | None) -> tuple[Answer, list[Hit]]:
        """``ans`` citing first the user's latest statement that answers ``asked`` after its first citation, that one
        quoted as earlier (:func:`~anchormem.answering.recency.latest_said_answer`); by meaning too with a calibrated
        embedder."""
        scope = self._scope(user_id, agent_id, session_id)
        calibrated = self._evidence is not None and self._evidence.word_sim is not None
        return latest_said_answer(asked, ans, found, max_citations=self.answer_config.max_citations,
                                  embedder=self.embedder if calibrated else None,
                                  question_vector=(lambda: self._searcher.embed_query(asked, scope)) if calibrated
                                  else None)

    def _view_cosines(self, query: str, user_id: str, agent_id: str | None,
                      session_id: str | None) -> Callable[[list[Any]], list[float]]:
        """The query's cosine to each memory as embedded (:func:`~anchormem.ingest.pipeline.embedding_text`): a
        partly superseded memory's current view is judged by the embedding of its remaining words
        (:func:`~anchormem.retrieval.currency.evidence_hits`), as a whole memory is by its own."""
        from .ingest.pipeline import embedding_text

        def run(items: list[Any]) -> list[float]:
            qv = self._searcher.embed_query(query, self._scope(user_id, agent_id, session_id))
            vs = self._searcher.embed_passages([embedding_text(m.text, m.speaker) for m in items])
            return [float(v @ qv) for v in vs]
        return run

    def _reply_prompts(self, user_id: str, hits: list[Hit]) -> list[str | None]:
        """Per hit, the turn it replies to: the previous turn of its session when another speaker said it."""
        first = {h.memory.id: h.memory.source_message_ids[0] for h in hits if h.memory.source_message_ids}
        if not first:
            return [None] * len(hits)
        prev = self.store.previous_messages(Scope(tenant=self.tenant, user_id=user_id), sorted(set(first.values())))
        out: list[str | None] = []
        for h in hits:
            p = prev.get(first.get(h.memory.id, ""))
            who = (h.memory.speaker or h.memory.role or "").casefold()
            out.append(p["content"] if p and (p["name"] or p["role"] or "").casefold() != who else None)
        return out
