"""``Memory``: the facade that wires ingest, the store, retrieval and answers together.

    >>> from anchormem import Memory
    >>> with Memory("memories.db") as mem:
    ...     mem.add("I moved to Lisbon last month.", user_id="alice")
    ...     hits = mem.search("Where does she live?", user_id="alice")
"""

from __future__ import annotations

import inspect
from datetime import datetime
from functools import lru_cache
from typing import Any

import numpy as np

from .answering import AnswerConfig, EvidenceScorer
from .config import Settings, with_overrides
from .embedders import Embedder, make_embedder, settings_options
from .embedders.shared import SharedVectors
from .errors import ConfigError, InvalidInputError, ScopeError, StaleWriteError
from .filters import parse_filters
from .listing import list_by_turn
from .llms import LLM, make_llm
from .privacy.guard import PiiGuard, strip_token_entities
from .purge_targets import physical_erase, pii_tokens, purge_copies, quoting_sessions
from .ingest.classify import memory_hash
from .ingest.limits import check_message_count, check_total_chars, session_turns
from .ingest.normalize import check_scope_id, check_text, normalize_context, normalize_messages
from .ingest.keys import memory_keys, parse_key_kinds, previous_turn, prior_turn
from .ingest.pipeline import ECHO_CODES, draft_memories, embedding_text, reported_results, skipped_turns, time_terms
from .ingest.many import add_many as _add_many, message_vectors
from .context.hook import AnchorHook, conversation_texts
from .retrieval.conversation import TurnVectors, plan
from .context.anchor import ContextAnchor, check_labels, hand_set, label_drafts, relabel_scope
from .context.labeller import labels_to_dist
from .context.llm_labeller import LLMLabeller
from .lifecycle import ExpiryPolicy, assign_expiry, not_expired, renewals, warm_only
from . import consolidate as _tiers
from .arguments import checked_arguments
from .retrieval.config import SearchConfig, recipe, recipe as resolve_recipe  # search()'s "recipe" shadows it
from .retrieval.rewrite import llm_queries
from .retrieval.search import Searcher
from .facts.claims import scheduled_ahead
from .facts.commitments import split_commitments
from .ingest.poison import quarantine
from .session.context import build_context
from .session.store import SessionKey, make_session_store
from .urlcheck import check_redis_url
from .validate import check_id, check_metadata
from .blas import with_one_blas_thread
from .tracing import check_available as _check_tracing, describe_add, describe_query, staged, traced
from .summaries import session_summary_memory
from .facts.llm_extract import pick_extractor
from .hotcache import resolve_cache, search_key
from .facts.reconcile import FactPlan, conflicts, plan_facts
from .enrich import ENRICH_MODES, enrich_user, pending_markers
from .facts.edits import edited_fact
from .memory_update import replan_turn
from .stores.protocol import NewMemory
from .open_store import open_store, store_location
from .text.dates import resolve_dates
from .text.entities import extract_entities
from .text.tokenize import index_text, segment_once
from .timeutil import on_calendar, said_time, to_utc, users_calendar, utcnow, zone_of
from .review_dedupe import queue_reviews
from .memory_lifecycle import LifecycleMixin
from .memory_ask import AskMixin
from .types import HistoryEntry, Hit, Label, MemoryEvent, MemoryItem, Scope

__all__ = ["Memory", "EXPORT_FORMAT"]

EXPORT_FORMAT = "anchormem.export/1"
_REPLANS = 4  # an add re-planned this often (other writers of its user came first) writes on its slot recheck alone



@lru_cache(maxsize=1)
def _context_options() -> tuple[str, ...]:
    """The keyword options :meth:`Memory.context` passes on to :func:`~anchormem.session.build_context`."""
    return tuple(n for n, p in inspect.signature(build_context).parameters.items()
                 if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in (
                     "user_id", "session_id", "query", "budget_tokens", "session_store", "agent_id"))


@checked_arguments
class Memory(AskMixin, LifecycleMixin):
    """Long-term memory for agents, embedded in one SQLite file.

    Args:
        path: database file (default :func:`anchormem.config.default_path`); ``":memory:"`` for a throwaway store.
        url: alternative to ``path``: ``sqlite:///relative.db``, ``sqlite:////absolute.db``, or
            ``postgresql://user:pass@host/db`` (PostgreSQL + pgvector; ``pip install 'anchormem[postgres]'``).
        embedder: an :class:`~anchormem.embedders.Embedder` instance or a name (``auto``, ``e5-small``, ``hash``).
        tenant: the tenant every call is scoped to (API customers); default ``"default"``.
        search: default search recipe name or :class:`SearchConfig` (default ``"anchored"``: hybrid search with
            context anchoring; ``"hybrid_rrf"`` without it).
        settings: a :class:`Settings` (default: from ``ANCHORMEM_*`` environment variables).
        llm: an :class:`~anchormem.llms.LLM` for :meth:`ask`, or None (offline, extractive answers). Default
            ``"auto"``: :func:`anchormem.llms.make_llm` (an LLM only when ``ANCHORMEM_LLM_BASE_URL`` is set).
        expiry: an :class:`~anchormem.lifecycle.ExpiryPolicy` (default: nothing expires unless ``add`` metadata
            sets ``expire_strategy`` or ``expires_at``).
        pii: personal-data redaction at write (docs/privacy.md): ``"off"`` (the default, ``ANCHORMEM_PII``: it
            changes what is stored, so you opt in), ``"mask"`` (values become ``[PHONE]``, ``[EMAIL]``…, for
            good) or ``"tokenize"`` (values become keyed tokens ``[PHONE:3f9a1c2b]``; originals kept encrypted
            in the store's vault, back only through :meth:`reveal` with the key). Needs ``anchormem[pii]``.
        pii_key: the ``"tokenize"`` secret (bytes, or str as UTF-8; at least 16 bytes), default
            ``ANCHORMEM_PII_KEY``. Required for ``"tokenize"``.
        encryption_key: open the SQLite file encrypted with SQLCipher (``pip install 'anchormem[encryption]'``;
            64 hex characters or 32 bytes = a raw key, another str = a passphrase), default
            ``ANCHORMEM_ENCRYPTION_KEY``; unset = plaintext. See docs/privacy.md.
        cache: the hot cache (:mod:`anchormem.hotcache`): None = settings (on, in-process, unless
            ``ANCHORMEM_CACHE=false``; ``ANCHORMEM_CACHE_URL=redis://…`` shares it between workers), False = off,
            a URL, or a :class:`~anchormem.hotcache.HotCache` shared with other Memory objects. Hits and misses
            are counted in ``stats``.
        overrides: any other :class:`Settings` field by name, over ``settings`` and the environment
            (``Memory(path, max_message_chars=100_000, summary_every=0)``).

    Raises ConfigError (an unknown option, bad URL, unknown embedder, bad ``pii`` mode, ``"tokenize"`` without a
    key, a wrong or missing encryption key, a key for a plaintext file or for PostgreSQL),
    EmbedderMismatchError (store built with another model), StoreError (file cannot be opened).
    """

    def __init__(self, path: str | None = None, *, url: str | None = None, embedder: Embedder | str | None = None,
                 tenant: str | None = None, search: str | SearchConfig | None = None,
                 answer: AnswerConfig | None = None, settings: Settings | None = None,
                 llm: LLM | None | str = "auto", expiry: ExpiryPolicy | None = None, pii: str | None = None,
                 pii_key: bytes | str | None = None, encryption_key: bytes | str | None = None,
                 cache: Any = None, **overrides: Any) -> None:
        self.settings = with_overrides(settings, overrides)
        s = self.settings
        self._calendar = zone_of(s.timezone)  # the users' calendar (Config.timezone; anchormem.timeutil)
        if s.tracing:
            _check_tracing()
        self.path, postgres = store_location(path, url, s)
        self.tenant = check_scope_id(tenant or s.tenant, "tenant", required=True)
        check_redis_url(s.session_url, "ANCHORMEM_SESSION_URL")  # its form now; Redis itself on first use
        if embedder is None or isinstance(embedder, str):
            name = embedder or s.embedder
            embedder = make_embedder(name, **settings_options(name, s))
        self.embedder: Embedder = embedder
        enc = encryption_key if encryption_key is not None else \
            (s.encryption_key.get_secret_value() if s.encryption_key else None)
        self.store = open_store(self.path, postgres, s, enc)
        try:
            self.store.check_embedder(embedder.name, embedder.dim)
            key = pii_key if pii_key is not None else (s.pii_key.get_secret_value() if s.pii_key else None)
            self._pii = PiiGuard(pii if pii is not None else s.pii, key, self.store)
            self._hot, self._hot_owned = resolve_cache(cache, s)  # last: nothing after it can fail
        except Exception:
            self.store.close()
            raise
        self.search_config = recipe(search)
        self.answer_config = answer or AnswerConfig()
        self.llm: LLM | None = make_llm() if isinstance(llm, str) and llm == "auto" else llm  # type: ignore
        self._evidence: EvidenceScorer | None = None  # ask's evidence scorer (caches word embeddings)
        self._searcher = Searcher(self.store, embedder)
        self._user_summaries: dict[tuple[str, str, str | None], tuple[int, str | None]] = {}  # .memory_lifecycle
        self._turns = TurnVectors(self._searcher)  # a search's conversation turns, embedded at a bounded cost
        self._anchor: ContextAnchor | None = None  # context labeller, built on first use (no I/O here)
        self._sessions: Any = None  # the session store, opened on first use
        self.expiry = expiry if expiry is not None else ExpiryPolicy()
        # counters since this object was opened: facts the LLM extractor kept / rejected by the grounding check
        self.stats: dict[str, int] = {"facts_extracted": 0, "facts_rejected": 0}
        self.cache = self._hot.bind(self.store, self.stats) if self._hot is not None else None  # hot tier
        self._searcher.cache = self.cache

    # ---------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Close the database connections. The object is unusable afterwards."""
        self.store.close()
        if self._hot_owned and self._hot is not None:
            self._hot.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _scope(self, user_id: Any, agent_id: Any = None, session_id: Any = None) -> Scope:
        return Scope(tenant=self.tenant, user_id=check_scope_id(user_id, "user_id", required=True),
                     agent_id=check_scope_id(agent_id, "agent_id", required=False),
                     session_id=check_scope_id(session_id, "session_id", required=False))

    # ---------------------------------------------------------------- write
    @traced("add", describe_add)
    @users_calendar
    @with_one_blas_thread  # numpy products on one thread: the embedder keeps the cores (anchormem.blas)
    def add(self, messages: Any, *, user_id: str, session_id: str | None = None, agent_id: str | None = None,
            timestamp: datetime | str | None = None, metadata: dict[str, Any] | None = None) -> list[MemoryEvent]:
        """Remember what was said.

        messages: ``str`` (one user turn) or ``list[{"role": "user"|"assistant"|"system", "content": str,
        "timestamp"?: ISO-8601 | datetime, "name"?: str, "metadata"?: dict}]`` (a message's metadata is merged over
        ``metadata`` for the memories drafted from that turn); OpenAI-style chat messages as they are (tool steps
        left out, content parts' text joined, ``developer`` = ``system``: ``ingest.normalize.chat_turn``).
        ``timestamp``: the time of turns that carry none (default: the previous turn's, else now). Relative dates
        ("yesterday", "上周三") resolve against each turn's own time.

        Returns one MemoryEvent per memory touched: ``ADD`` (new), ``ADD_SUPERSEDED`` (new, said before a newer
        value: stored closed), ``NOOP`` (an identical current memory or the same fact exists; its id; or an assistant
        turn with nothing of its own, an acknowledgement or echo: not stored, ``reason`` says so), ``SUPERSEDE``
        (a memory closed by a new value, or left with no current claim: ``valid_to`` set) or ``REVIEW`` (a change
        held in the review queue: ``review_id``, the proposed memory, not stored). Facts are reconciled by
        :mod:`anchormem.facts.reconcile` (docs/currency.md). A call that stores and touches nothing (chit-chat
        such as "hi", a system turn) returns one ``SKIP`` event per turn, its ``reason`` saying why ("chit-chat:
        nothing to remember"), its ``memory`` the turn as drafted, not stored; never ``[]``. One transaction per
        call.

        Bounds (:mod:`anchormem.ingest.limits`): at most ``max_add_messages`` messages and ``max_add_chars``
        characters in all per call, ``max_message_chars`` per message; timestamps in the supported range
        (:mod:`anchormem.timeutil`); metadata as :func:`anchormem.validate.check_metadata` says. All checked
        before anything is stored.

        Raises InvalidInputError (empty/oversized/invalid text, too many messages or characters, bad timestamp or
        metadata), ScopeError.
        """
        scope, s = self._scope(user_id, agent_id, session_id), self.settings
        check_message_count(messages, s.max_add_messages)  # the call's bounds first (anchormem.ingest.limits)
        meta = check_metadata(metadata)
        default_time = on_calendar(said_time(timestamp) if timestamp is not None else utcnow())
        msgs = normalize_messages(messages, default_time=default_time, max_chars=s.max_message_chars,
                                  neighbour_times=timestamp is None)
        check_total_chars([m.content for m in msgs], s.max_add_chars)
        for i, m in enumerate(msgs):
            if m.metadata is not None:
                try:
                    m.metadata = check_metadata(m.metadata)
                except InvalidInputError as exc:
                    raise InvalidInputError(f"message {i}: {exc}") from None
        with segment_once():  # each text segmented once for the keyword index, chit-chat, facts and dates
            return self._add_checked(msgs, scope, meta, default_time)

    @traced("add_many")
    @users_calendar
    @with_one_blas_thread
    def add_many(self, messages: Any, *, user_id: str, agent_id: str | None = None, session_id: str | None = None,
                 timestamp: datetime | str | None = None, metadata: dict[str, Any] | None = None,
                 vectors: Any = None, batch_size: int = 500, on_progress: Any = None,
                 return_events: bool = False, enrich: str = "now", on_conflict: str = "add") -> dict[str, Any]:
        """Remember many messages of one scope (a chat log, a backfill): :meth:`add`'s pipeline per message, in
        batches of at most ``batch_size`` messages (default 500, at most ``max_add_messages``) and ``max_add_chars``
        characters, each batch one store transaction. ``messages``: a list of any length (``str`` = a user turn, or
        message dicts as :meth:`add` takes them). ``vectors``: optional precomputed embeddings by this store's
        embedder, array-like (len(messages), dim), any real dtype (made float32), finite, L2-normalised here; every
        memory of a message takes its row (:mod:`anchormem.ingest.many` says how this differs from embedding).
        ``on_progress(done, total)`` after each batch: input messages handled so far, cumulative, of len(messages).
        All is checked first; a failure in a batch rolls it back, earlier ones stay (a note counts them). Returns counts
        (``messages``, ``batches``, ``skipped`` tool steps, ``chitchat`` turns kept out, one key per event: ``ADD``...),
        with ``return_events`` also ``events`` (as :meth:`add` returns them). ``enrich``: ``"now"`` (default:
        facts extracted and reconciled as ``add`` does) or ``"later"`` (an import: the turns are stored searchable
        at once, their fact extraction queued per user, :mod:`anchormem.enrich`; :meth:`enrich` drains it, and the
        read paths that depend on claims drain the user's queue first; the SQLite and PostgreSQL stores). The turns
        are reconciled in the order said (by time; ties in input order), each against the memories the earlier ones
        leave: the result is that of :meth:`add` called once per turn in time order (:mod:`anchormem.ingest.many`).
        ``on_conflict``: ``"add"`` (default: every turn stored, as :meth:`add` does) or ``"skip"`` (a re-import:
        a turn the scope already holds, same session, role, speaker, text and time, is left out with everything it
        would draw; counted in ``duplicates``). Raises
        InvalidInputError (a bad message, batch_size, enrich, on_conflict or vectors: shape, dtype, NaN/inf, a zero row),
        ConfigError (``enrich="later"`` on a store without the queue), ScopeError, what :meth:`add` raises."""
        if enrich not in ENRICH_MODES:
            raise InvalidInputError(f"enrich must be one of {', '.join(ENRICH_MODES)}, got {enrich!r}")
        if enrich == "later" and not hasattr(self.store, "pending_rows"):
            raise ConfigError(f'add_many(enrich="later") needs a store with an enrichment queue (SQLite, '
                              f'PostgreSQL), not {type(self.store).__name__}; use enrich="now"')
        return _add_many(self, messages, user_id=user_id, agent_id=agent_id, session_id=session_id,
                         timestamp=timestamp, metadata=metadata, vectors=vectors, batch_size=batch_size,
                         on_progress=on_progress, return_events=return_events, defer=enrich == "later",
                         on_conflict=on_conflict)

    def enrich(self, user_id: str | None = None, *, limit: int | None = None) -> dict[str, Any]:
        """Run the deferred enrichment (``add_many(enrich="later")``, :mod:`anchormem.enrich`) of one user's
        pending rows (``user_id``) or every user's of this tenant, oldest said first, one transaction per 500 rows,
        at most ``limit`` rows in all (None: every pending row). Workers may run it at once on one store: each row
        is enriched once, a user's in the order said (one worker per user at a time); every user's (no
        ``user_id``) passes by a user another worker is enriching (counted in ``busy``), one user's waits for it.
        Returns counts: ``enriched`` rows, ``retired`` (provisional rows replaced by their facts), one key per
        write event (``ADD``, ``SUPERSEDE``...), ``busy`` (users passed by, when any), ``pending`` (rows left).
        Raises InvalidInputError (a bad limit), ScopeError."""
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise InvalidInputError(f"limit must be a positive integer, got {limit!r}")
        if not hasattr(self.store, "pending_rows"):
            return {"enriched": 0, "pending": 0}
        users = [self._scope(user_id).user_id] if user_id is not None else \
            sorted(self.store.pending_counts(self.tenant))
        total: dict[str, Any] = {"enriched": 0}
        with segment_once():
            for u in users:
                left = None if limit is None else limit - total["enriched"]
                if left is not None and left <= 0:
                    break
                for k, v in enrich_user(self, self.tenant, u, limit=left, wait=user_id is not None).items():
                    total[k] = total.get(k, 0) + v
        total["pending"] = self.pending(user_id)
        return total

    def pending(self, user_id: str | None = None) -> int:
        """Rows whose enrichment is pending (``add_many(enrich="later")``): of one user, or of the tenant."""
        if not hasattr(self.store, "pending_counts"):
            return 0
        return sum(self.store.pending_counts(self.tenant, None if user_id is None else
                                             self._scope(user_id).user_id).values())

    def _settle(self, scope: Scope) -> None:
        """Before a read that depends on claims: the user's pending rows enriched (currency is never stale)."""
        has = getattr(self.store, "has_pending", None)
        if has is not None and has(scope.tenant, scope.user_id):
            with segment_once():
                enrich_user(self, scope.tenant, scope.user_id)

    def _add_checked(self, msgs: list[Any], scope: Scope, meta: dict[str, Any] | None, default_time: datetime,
                     given: np.ndarray | None = None, defer: bool = False) -> list[MemoryEvent]:
        """``add`` after its checks: ``msgs`` normalised and validated. ``given``: precomputed, normalised vectors,
        one row per message of ``msgs`` (``add_many``), used instead of embedding. One store transaction.

        Optimistic concurrency per user (issue #22, :mod:`anchormem.stores.generation`): the plan (drafts, fact
        reads, the relative reader, restatements) is made against the user's generation read first; a write that
        finds it moved (another thread, process or API worker committed for this user meanwhile) raises
        StaleWriteError, writes nothing, and the add plans again on the store as it is now, up to ``_REPLANS``
        times (the last attempt writes with the in-transaction recheck of its slots only). So two concurrent
        changes of one slot end as if said one after the other: one current, the other in history."""
        s = self.settings
        # PII out before anything is drafted, embedded or stored (no-op with pii="off")
        msgs, pii = self._pii.redact_messages(msgs, scope.tenant, scope.user_id)
        memo: dict[str, np.ndarray] = {}  # texts embedded by an earlier attempt of this add
        for attempt in range(_REPLANS + 1):
            try:
                prepared, plan, news, turns, results = self._plan_and_write(msgs, scope, meta, default_time, given,
                                                                            pii, memo, check=attempt < _REPLANS,
                                                                            defer=defer)
                break
            except StaleWriteError:  # another writer of this user came first: plan again against its write
                continue
        restated = [r.item.id for r in results if r.event == "NOOP" and r.item.tier == "cold"] + \
            [m.id for m in plan.noops if m.tier == "cold"]
        if restated:  # saying an archived memory again brings it back (anchormem.consolidate)
            self.store.set_tier(scope.tenant, restated, "warm", when=utcnow(), actor="add", reason="restated")
        renewed = renewals([n.item for n in news], results, plan.noops, self.expiry, default_time)
        if renewed:
            self.store.set_expiry(scope.tenant, renewed)
        plan.reviews = queue_reviews(self.store, plan.reviews)  # a statement already queued is not queued twice
        if turns:  # the session layer sees every stored turn (checked above, before the write)
            self.sessions.append(SessionKey(scope.user_id, scope.session_id, scope.tenant), turns)
        every = self.settings.summary_every
        if every and scope.session_id is not None and prepared.messages and not defer:  # deferred: at enrichment
            n = self.store.count_messages(scope)  # one indexed count, not every message of the user
            if n // every > (n - len(prepared.messages)) // every:  # crossed a multiple of summary_every
                results += self._write_summary(scope)
        events = ([MemoryEvent(event=r.event, memory=r.item) for r in reported_results(results, news)]
                  + [MemoryEvent(event="NOOP", memory=m) for m in plan.noops]
                  + [MemoryEvent(event="REVIEW", memory=r.proposed, review_id=r.id) for r in plan.reviews]
                  + [MemoryEvent(event="NOOP", memory=item, reason=why)  # an assistant echo: said, not stored
                     for item, why in skipped_turns(msgs, prepared, scope, default_time, ECHO_CODES)])
        return events or [MemoryEvent(event="SKIP", memory=item, reason=why)  # never a silent "0 memories"
                          for item, why in skipped_turns(msgs, prepared, scope, default_time)]

    def _plan_and_write(self, msgs: list[Any], scope: Scope, meta: dict[str, Any] | None, default_time: datetime,
                        given: np.ndarray | None, pii: Any, memo: dict[str, np.ndarray], *,
                        check: bool, defer: bool = False) -> tuple[Any, Any, list[NewMemory], list, list]:
        """One attempt of :meth:`_add_checked`: draft, plan the facts, embed, label and write, the plan made as of
        the user's generation read first. ``memo``: the add's embedded texts (kept across attempts). ``check``: the
        write raises StaleWriteError (nothing written) when that generation moved before it ran. Returns (prepared
        turns, fact plan, new memories, session turns, write results)."""
        s = self.settings
        gen = self.store.scope_generation(scope.tenant, scope.user_id) if check else 0  # before any read
        prepared = draft_memories(msgs, scope=scope, metadata=meta, now=default_time, chunk_chars=s.chunk_chars,
                                  keys=(kinds := parse_key_kinds(s.index_keys)),
                                  before=(before := previous_turn(self.store, scope, msgs, kinds)),
                                  prior=before or prior_turn(self.store, scope, msgs))
        drafts, quarantined = quarantine(prepared.drafts, scope)
        plan = FactPlan(drafts=split_commitments(drafts)) if defer else plan_facts(  # deferred: .enrich
            split_commitments(drafts), store=self.store, tenant=scope.tenant, user_id=scope.user_id,
            extract=self._fact_extractor(memo))
        plan.reviews += quarantined
        vectors = self._embed_drafts(plan.drafts, memo) if given is None else \
            message_vectors(plan.drafts, msgs, prepared.messages, given, lambda ds: self._embed_drafts(ds, memo))
        ctx_vectors, ctx_refresh = label_drafts(self.anchor, self.store, scope, plan.drafts, vectors)
        assign_expiry([d.item for d in plan.drafts] + [r.proposed for r in plan.reviews], self.expiry, utcnow())
        news = [NewMemory(d.item, v, d.content_hash, d.index_text, plan.supersedes.get(i, []), c, conflicts,
                          d.carried_by) for i, (d, v, c) in enumerate(zip(plan.drafts, vectors, ctx_vectors))]
        turns = session_turns(prepared.messages, max_chars=s.max_message_chars) if scope.session_id else []
        pii.before_write([m.content for m in prepared.messages], plan.drafts)  # vault rows first
        results = self.store.write(prepared.messages, news, actor="add", context_updates=ctx_refresh,
                                   restated=plan.restated, **({"pending": pending_markers(plan.drafts, given is not None, self._summary_due(
                                       scope, len(prepared.messages)))} if defer else {}),
                                   expect_generation={(scope.tenant, scope.user_id): gen} if check else None)
        return prepared, plan, news, turns, results

    def _summary_due(self, scope: Scope, n_new: int) -> bool:
        """Whether ``n_new`` more stored turns of the session cross a multiple of ``summary_every`` (the session
        summary ``add`` writes then; a deferred write leaves it to its enrichment)."""
        every = self.settings.summary_every
        if not every or scope.session_id is None or not n_new:
            return False
        n = self.store.count_messages(scope)
        return (n + n_new) // every > n // every

    def _fact_extractor(self, memo: dict[str, np.ndarray] | None = None) -> Any:
        """The offline rules, or with an LLM the grounded LLM extractor
        (:func:`anchormem.facts.llm_extract.pick_extractor`). ``memo``: the add's embedded texts ({text: vector}),
        shared by the extractor's readers by meaning and the write (:mod:`anchormem.embedders.shared`)."""
        emb = self.embedder if memo is None else SharedVectors(self.embedder, memo)
        return pick_extractor(self.settings.fact_extractor, self.llm, emb, self.stats)

    @staged("embed")
    def _embed_drafts(self, drafts: list[Any], memo: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Vectors (n, dim) for drafts, embedding each text once; a draft with ``reuse`` takes its turn's vector.
        ``memo`` ({embed text: vector}, one add's): the texts embedded already (by the fact planning's search by
        meaning, by an earlier attempt of an add planned again) are not embedded again."""
        own = [d for d in drafts if d.reuse is None]
        texts = [d.embed_text for d in own]
        vecs = self.embedder.embed_documents(texts) if memo is None else \
            SharedVectors(self.embedder, memo).embed_documents(texts)
        self._searcher.remember_passages(texts, vecs)  # the next search's conversation
        by_draft = {id(d): v for d, v in zip(own, vecs)}
        if len(own) == len(drafts):
            return vecs
        return np.vstack([by_draft[id(d.reuse if d.reuse is not None else d)] for d in drafts])

    def update(self, memory_id: str, text: str | None = None, *, reason: str | None = None,
               labels: list[Label | dict[str, Any] | str] | None = None) -> MemoryItem:
        """Replace a memory's text (re-embedded and re-indexed with its retrieval keys, rebuilt from its turn and the
        turn before it: :func:`anchormem.ingest.keys.memory_keys`; the old text stays in ``history``) and/or its
        context labels. ``labels``: a list of ``Label`` objects, dicts or domain names (``["finance"]``; a bare
        string is refused; domains from
        :mod:`anchormem.context.taxonomy`, topic/intent normalised; the first is primary unless one says so); they
        are kept as hand-set (``Label.set_by == "hand"``: ``relabel`` and later text updates leave them). A new text
        without ``labels`` is re-labelled, unless its labels were set by hand. ``labels`` alone changes only the
        labels (no history entry: the text did not change). A fact memory's slot follows its new text, read as
        ``add`` reads a turn (:func:`anchormem.facts.edits.edited_fact`: "Rent is now 1400." keeps the rent slot with
        1400, and what it superseded stays past); a text that states no fact leaves what it superseded current again.
        A user's turn (``kind`` ``"utterance"``/``"question"``) re-plans its claims as ``add`` plans a turn
        (:mod:`anchormem.memory_update`): claims it no longer says are retracted (history ``SUPERSEDE`` by
        ``update``), new ones written with its provenance; the returned item carries its claims as they are now.
        Raises NotFoundError, InvalidInputError (neither text nor labels, bad text, bad labels)."""
        if text is None and labels is None:
            raise InvalidInputError("update needs a new text, labels, or both")
        check_id(memory_id, "memory_id")
        new_labels = check_labels(labels) if labels is not None else None
        if text is None:
            old = self.store.get(self.tenant, memory_id)
            self.store.set_labels(self.tenant, {memory_id: new_labels})
            return old.model_copy(update={"labels": new_labels})
        text = check_text(text, what="text", max_chars=self.settings.max_message_chars)
        old = self.store.get(self.tenant, memory_id)
        text, pii = self._pii.redact_text(text, self.tenant, old.user_id)
        pii.before_write([text])
        vec = self.embedder.embed_documents([embedding_text(text, old.speaker)])[0]
        dates = resolve_dates(text, old.created_at)
        fact = old.fact
        if old.kind == "fact":  # the slot follows the new text, read as add reads a turn (facts.edits)
            fact = edited_fact(text, old)
        reindexed = self._reindex_text(old, text, dates)
        item = self.store.update(self.tenant, memory_id, text=text, vector=vec, index_text=reindexed,
                                 content_hash=memory_hash(old.model_copy(update={"text": text, "fact": fact})),
                                 actor="update", reason=reason,
                                 entities=strip_token_entities(text, extract_entities(text, dates)))
        if fact != old.fact:
            self.store.set_fact(self.tenant, memory_id, fact)
            item = self.store.get(self.tenant, memory_id)  # its claims follow the fact
        if new_labels is None and hand_set(old):
            new_labels = old.labels
        elif new_labels is None:  # re-label the new text, its old labels standing in for the conversation
            new_labels = self.anchor.label_texts([text], vec.reshape(1, -1), prior=[labels_to_dist(old.labels)])[0]
        self.store.set_labels(self.tenant, {memory_id: new_labels})
        if old.kind in ("utterance", "question") and old.source == "user":  # its claims follow its text (memory_update)
            replan_turn(self, old, item, reindexed, new_labels)
            item = self.store.get(self.tenant, memory_id)
        return item.model_copy(update={"labels": new_labels, "fact": fact})

    def _reindex_text(self, old: MemoryItem, text: str, dates: list[Any]) -> str:
        """The keyword-index text of ``old`` with its new ``text``: as a write builds it (text, speaker, time terms)
        with its retrieval keys rebuilt from its stored turns (:func:`anchormem.ingest.keys.memory_keys`)."""
        if old.kind == "summary":  # a summary indexes its text alone, as on write
            return index_text(text)
        kinds = parse_key_kinds(self.settings.index_keys)
        prev = self.store.previous_messages(self._scope(old.user_id), old.source_message_ids[:1]) \
            if kinds and old.source_message_ids else {}
        keys = memory_keys(text, old.speaker, old.created_at, prev.get(old.source_message_ids[0]) if prev else None,
                           kinds, old.role) if kinds else ""
        return index_text(text, " ".join(x for x in (old.speaker, time_terms(old.created_at, dates)) if x), keys)

    def delete(self, memory_id: str, *, purge: bool = False) -> dict[str, int]:
        """Delete one memory from the table, vector index, keyword index and entity table; history records
        the delete (``purge=True`` also erases its text and every reason from history (an update's or tier move's
        reason may quote the user), its source turn unless another memory
        cites it, its review-queue copies (items drawn from its turn or approved into it; pending changes that only
        target it keep their proposal, without its id) and the PII vault rows of tokens no remaining text of the
        user holds; on SQLite the freed bytes are zeroed and the WAL checkpointed). Returns counts per table
        (``"vault"`` and ``"review"`` with purge). Raises
        NotFoundError. A purge also clears the hot cache's entries of the user and the session buffers the memory
        and its turns (a restatement: ``add`` NOOP) came from."""
        item = self.store.get(self.tenant, check_id(memory_id, "memory_id"))
        if not purge:
            counts = self.store.delete(self.tenant, memory_id, purge=False, actor="delete")
            counts["summaries"] = self._drop_summaries_citing([item], purge=False)
            return counts
        tokens, sessions = pii_tokens(self.store, self.tenant, [item]), \
            quoting_sessions(self.store, self.tenant, item.user_id, [item])
        counts = self.store.delete(self.tenant, memory_id, purge=True, actor="delete")
        counts["summaries"] = self._drop_summaries_citing([item], purge=True)
        counts["vault"] = self.store.vault_delete(self.tenant, item.user_id, tokens)
        self._purge_copies(item.user_id, sessions)
        return counts

    def _purge_copies(self, user_id: str, sessions: set[str] | None) -> None:
        """After a purge, the other copies of the purged text: :func:`anchormem.purge_targets.purge_copies`."""
        purge_copies(self, user_id, sessions)

    def _drop_summaries_citing(self, gone: list[MemoryItem], *, purge: bool) -> int:
        """Delete the session summaries that quote a deleted or expired memory's turn (case C15: a deleted fact
        must not live on in a summary line); the next summary of the session is built without it."""
        n = 0
        for user_id in sorted({it.user_id for it in gone if it.kind != "summary"}):
            cited = {mid for it in gone if it.user_id == user_id for mid in it.source_message_ids}
            for sm in self.store.list_memories(self._scope(user_id), parse_filters({"kind": "summary"}),
                                               include_superseded=True):
                if cited & set(sm.source_message_ids):
                    self.store.delete(self.tenant, sm.id, purge=purge, actor="delete")
                    n += 1
        return n

    def reveal(self, text: str, *, key: bytes | str | None = None) -> str:
        """``text`` (a memory's text, an answer, an export string) with each PII token (``[PHONE:3f9a1c2b]``)
        of this tenant's vault replaced by the original value, decrypted with ``key`` (default: the configured
        ``pii_key``). Tokens not in the vault (forgotten, or from elsewhere) and mask placeholders (``[PHONE]``)
        stay as they are. The only way back to a tokenised value. Raises PrivacyError (wrong key or altered vault
        entry), ConfigError (no key configured or given, key under 16 bytes), InvalidInputError (not a str)."""
        return self._pii.reveal(text, self.tenant, key)

    def delete_all(self, *, user_id: str | None = None, agent_id: str | None = None,
                   session_id: str | None = None, purge: bool = False, physical: bool = False) -> dict[str, int]:
        """Delete every memory of a user (optionally narrowed to an agent/session). An unscoped call raises
        ScopeError: there is no "delete everything". Returns counts per table. ``purge=True`` also erases the
        history text and reasons (for the whole user: of every history row, also of memories deleted earlier
        without purge; for a narrowed scope: of the memories in it) and the PII vault rows (all of the user's, or
        for a narrowed scope those no remaining text of the user holds), count under ``"vault"``, and the review
        items (the whole user: all; a narrowed scope: those drawn from its turns, ``"review"``); on SQLite freed
        bytes are zeroed and the WAL checkpointed, and the hot cache's entries and session buffers of the user (a
        narrowed scope: of its sessions) go. ``physical=True`` (with ``purge``) then erases the purged bytes from
        the data files on PostgreSQL too (:func:`anchormem.purge_targets.physical_erase`, docs/privacy.md;
        count under ``"rewritten"``). Raises InvalidInputError (``physical`` without ``purge``)."""
        if user_id is None:
            raise ScopeError("delete_all needs user_id; an unscoped wipe is refused")
        if not isinstance(physical, bool) or (physical and purge is not True):
            raise InvalidInputError(f"physical must be a bool and needs purge=True, got physical={physical!r}, "
                                    f"purge={purge!r} (only purged text is erased from the files)")
        scope = self._scope(user_id, agent_id, session_id)
        whole = scope.agent_id is None and scope.session_id is None
        narrowed = None if whole or not purge else self.store.list_memories(scope, None, include_superseded=True)
        # before their history is blanked
        tokens = None if narrowed is None else pii_tokens(self.store, self.tenant, narrowed)
        counts = self.store.delete_scope(scope, purge=purge, actor="delete_all")
        if purge:
            counts["vault"] = self.store.vault_delete(self.tenant, scope.user_id, tokens)
            self._purge_copies(scope.user_id, None if narrowed is None else
                               ({it.session_id for it in narrowed} | {scope.session_id}) - {None})
        if physical:
            counts["rewritten"] = physical_erase(self.store)
        return counts

    # ---------------------------------------------------------------- read
    def get(self, memory_id: str) -> MemoryItem:
        """One memory by id. Raises NotFoundError."""
        check_id(memory_id, "memory_id")
        if self.cache is not None:
            return self.cache.get(self.tenant, memory_id, lambda: self.store.get(self.tenant, memory_id))
        return self.store.get(self.tenant, memory_id)

    def get_all(self, *, user_id: str, agent_id: str | None = None, session_id: str | None = None,
                filters: dict[str, Any] | None = None, limit: int | None = None, offset: int = 0,
                include_superseded: bool = False, show_expired: bool = False, by_turn: bool = False) -> list[Any]:
        """Memories of a user scope, oldest first. ``filters``: see :mod:`anchormem.filters`. Expired memories
        (``expires_at`` passed; see :mod:`anchormem.lifecycle`) are left out unless ``show_expired``; archived
        (cold) ones unless the filter names ``tier`` (``{"tier": "cold"}``; :mod:`anchormem.consolidate`).
        ``by_turn``: one row per utterance, the fact memories it carries left to its ``claims`` (:mod:`.listing`).
        While a value is scheduled for a date still ahead, the listing reads as of now as search and ask do: the
        value it replaces is listed (current until then), the scheduled one has ``state`` ``"scheduled"``."""
        scope = self._scope(user_id, agent_id, session_id)
        self._settle(scope)  # the current flags as an eager add leaves them
        where = parse_filters(filters, metadata_keys=lambda: self.store.metadata_keys(scope))
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise InvalidInputError("limit must be a positive integer")
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise InvalidInputError("offset must be a non-negative integer")
        if not show_expired:
            where = not_expired(where, utcnow())
        where = warm_only(where)  # archived (cold) memories only when the filter names tier
        now = utcnow()  # a value scheduled ahead: listed as of now (what it replaces still current: .listing)
        return list_by_turn(self.store, scope, where, limit, offset, include_superseded, by_turn,
                            now if not include_superseded and scheduled_ahead(self.store, scope, now) else None)

    @traced("search", describe_query)
    @users_calendar
    @with_one_blas_thread
    def search(self, query: str, *, user_id: str, session_id: str | None = None, agent_id: str | None = None,
               context: Any = None, filters: dict[str, Any] | None = None, limit: int = 5,
               as_of: datetime | str | None = None, recipe: str | SearchConfig | None = None,
               show_expired: bool = False) -> list[Hit]:
        """Hybrid search in one user's memories.

        query: text (Chinese, English or mixed). context: the current conversation, oldest first: any iterable
        (list, tuple, generator: read once) of turns, each a non-blank ``str`` (a user turn) or a message dict as
        ``add`` takes them; None or an empty list is no conversation. A ``bytes`` turn is decoded as UTF-8, strictly,
        as ``add`` and the query are. A bare string or bytes in place of the list, a turn that is not valid UTF-8 or
        a blank turn raises InvalidInputError naming the turn (``context[i]``): nothing is dropped silently; only an
        OpenAI-style list's tool steps (role ``tool``, or a content-less assistant tool call) are left out
        (:func:`anchormem.ingest.normalize.normalize_context`), and filler turns ("ok", "thanks!") do not anchor.
        The conversation anchors the query (:mod:`anchormem.context.anchor`): the default recipe (``"anchored"``)
        labels the query with its conversation, or without one by its own words and, when it is ambiguous ("what
        about the bank?"), by the user's most recent session; with no ``recipe`` given, a conversation turns anchoring on even when the
        Memory's default recipe has none (a recipe given explicitly is kept as it is). ``recipe="hybrid_rrf"``:
        plain hybrid search. filters: see :mod:`anchormem.filters` (archived, cold memories are
        searched only when the filter names ``tier``). as_of: return what was current at that instant (nothing
        said later; every tier); a memory edited (``update``) since is matched and returned with the text it had
        then, with its labels, entities and fact slot of then (:mod:`anchormem.retrieval.past`). Current first: a
        superseded value only with as_of, a past question or a valid_to filter (:mod:`.retrieval.currency`). Returns
        up to ``limit`` hits, best first; ``[]`` if nothing matches. Raises InvalidInputError, FilterError, ScopeError.
        """
        scope = self._scope(user_id, agent_id, session_id)
        query = check_text(query, what="query", max_chars=self.settings.max_query_chars,
                           hint="shorten the query, or raise max_query_chars")
        query = self._pii.redact_query(query, self.tenant, bare=True)  # a typed value finds its token
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 1000:
            raise InvalidInputError("limit must be an integer from 1 to 1000")
        context, ctx = normalize_context(context, default_time=utcnow(), max_chars=self.settings.max_message_chars)
        where = parse_filters(filters, metadata_keys=lambda: self.store.metadata_keys(scope))
        when = to_utc(as_of, field="as_of") if as_of is not None else None
        if when is None and not filters and scheduled_ahead(self.store, scope, utcnow()):
            when = utcnow()  # a value scheduled ahead: what holds now is read as of now (facts.claims)
        if when is not None:  # what held then, by the claims an eager add writes
            self._settle(scope)
        cfg = self.search_config if recipe is None else resolve_recipe(recipe)
        if ctx and recipe is None and not cfg.anchor:  # a conversation given without a recipe: use it
            cfg = cfg.model_copy(update={"anchor": True, "name": f"{cfg.name}+anchor"})
        now = utcnow()

        def run() -> list[Hit]:
            q, conv, time_text = self._conversation_query(query, ctx, cfg, scope, when or now)
            extra = llm_queries(self.llm, q) if cfg.query_rewrite == "llm" and self.llm is not None else None
            return self._searcher.search(q, scope=scope, where=where, limit=limit, config=cfg, now=now,
                                         as_of=when, show_expired=show_expired, extra_queries=extra,
                                         anchor=self._anchor_hook(q, scope, cfg, ctx, limit) if cfg.anchor
                                         else None, conversation=conv, time_text=time_text)
        if self.cache is None:
            return run()
        key = search_key(query=query, agent_id=scope.agent_id, session_id=scope.session_id, context=context,
                         filters=filters, limit=limit, as_of=when, day=now.date().isoformat(), config=cfg,
                         show_expired=show_expired, embedder=self.embedder.name,
                         llm=self.llm if cfg.query_rewrite == "llm" else None)
        touch = (lambda hits: self._searcher._touch(self.tenant, [h.memory.id for h in hits], now)) \
            if cfg.track_access else None
        return self.cache.search(scope, key, run, now=now, expiry_matters=when is None and not show_expired,
                                 on_hit=touch)

    # ---------------------------------------------------------------- context labels
    @property
    def anchor(self) -> ContextAnchor:
        """The context labeller (:mod:`anchormem.context`); its domain prototypes are embedded on first use. With
        an LLM (``Settings.labeller`` auto/llm) memories are labelled by :class:`~anchormem.context.llm_labeller.
        LLMLabeller` (its counters: ``mem.anchor.llm_labeller.stats``). Raises ConfigError for ``labeller='llm'``
        without an LLM."""
        if self._anchor is None:
            mode = self.settings.labeller
            if mode == "llm" and self.llm is None:
                raise ConfigError("labeller='llm' needs an LLM (Memory(llm=...) or ANCHORMEM_LLM_BASE_URL)")
            use_llm = self.llm is not None and mode in ("auto", "llm")
            self._anchor = ContextAnchor(self.embedder, llm_labeller=LLMLabeller(self.llm) if use_llm else None)
        return self._anchor

    def _anchor_hook(self, query: str, scope: Scope, cfg: SearchConfig, ctx: list[Any], limit: int):
        budget, words = cfg.conversation_turn_budget, cfg.conversation_turn_words
        static, exact, mix = cfg.conversation_turn_static, cfg.conversation_turn_static_exact, \
            cfg.conversation_turn_static_store
        return AnchorHook(self.anchor, self.store, self._searcher.query_embedder(scope), query, scope, cfg, ctx, limit,
                          embed_turn=lambda t: self._turns.vector(t, budget, scope, words, static, exact, mix),
                          embed_turns=lambda ts: self._turns.vectors(ts, budget, scope, words, static, exact, mix))

    def _conversation_query(self, query: str, ctx: list[Any], cfg: SearchConfig, scope: Scope, now: datetime):
        """:func:`anchormem.retrieval.conversation.plan` for this search (the turns anchoring reads)."""
        return plan(query, conversation_texts(ctx, cfg.anchor_context_turns or 6) if ctx else [], cfg,
                    lambda q: self._searcher.embed_query(q, scope),
                    lambda ts: self._turns.vectors(ts, cfg.conversation_turn_budget, scope,
                                                   cfg.conversation_turn_words, cfg.conversation_turn_static,
                                                   cfg.conversation_turn_static_exact,
                                                   cfg.conversation_turn_static_store), now)

    def relabel(self, user_id: str | None = None) -> int:
        """Re-label existing memories (one user, or every user of the tenant) with the current labeller, each
        session's memories labelled together as one conversation; labels set by hand (``Label.set_by == "hand"``)
        are kept. Returns how many memories were labelled."""
        users = [check_scope_id(user_id, "user_id", required=True)] if user_id is not None else \
            self.store.user_ids(self.tenant)
        return sum(relabel_scope(self.anchor, self.store, self._scope(u)) for u in users)

    # ---------------------------------------------------------------- working context
    @property
    def sessions(self) -> Any:
        """The session store (:mod:`anchormem.session`): in-process, or Redis when ``session_url`` is set. Every
        ``add`` with a ``session_id`` appends its stored turns here. Opened on first use."""
        if self._sessions is None:
            self._sessions = make_session_store(self.settings.session_url,
                                                max_turn_chars=self.settings.max_message_chars)
        return self._sessions

    @traced("context", lambda **kw: {"anchormem.budget_tokens": kw.get("budget_tokens")})
    @users_calendar
    def context(self, query: str, *, user_id: str, session_id: str | None = None, budget_tokens: int = 2000,
                agent_id: str | None = None, **options: Any) -> Any:
        """A prompt-ready block for the current user message ``query``, within ``budget_tokens`` (default 2000, as
        the REST API): the session's summary, cited long-term memories (searched with the recent turns as context)
        and the latest turns, newest user message always kept. Without ``session_id``, a user-level block: the
        user's rolled-up summary (when there is one), the memories searched without a conversation, and the current
        message alone under "## Recent conversation". Returns :class:`anchormem.session.ContextBlock`
        (``.text``, ``.sections``, ``.used_tokens``, ``.memory_ids``). ``options``: see
        :func:`anchormem.session.build_context`. Raises InvalidInputError (a budget too small, an unknown option),
        ScopeError."""
        accepted = _context_options()
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise InvalidInputError(f"context: unknown option{'s' if len(unknown) > 1 else ''} "
                                    f"{', '.join(unknown)}; the options are {', '.join(accepted)}")
        self._settle(self._scope(user_id, agent_id, session_id))
        return build_context(self, user_id=user_id, session_id=session_id, query=query, budget_tokens=budget_tokens,
                             session_store=self.sessions, agent_id=agent_id, **options)

    # ---------------------------------------------------------------- summaries
    @traced("summarize")
    @users_calendar
    def summarize(self, *, user_id: str, session_id: str | None = None,
                  agent_id: str | None = None) -> MemoryItem | None:
        """Write a structured summary of a session now (call it at session end; ``add`` also does every
        ``summary_every`` turns): sections topic / facts / agreements / todos / details, each line a verbatim
        sentence (offline) or an LLM line checked against the message it cites, linked to its message ids. The
        new summary supersedes the session's previous one. Returns it, or None when the session has nothing
        to summarise. See :mod:`anchormem.summaries`. Without ``session_id``: the user's rolled-up summary
        (``metadata["summary_level"] == "user"``; sessions without a summary get one first), see
        :func:`anchormem.consolidate.user_summary_memory`. Raises ScopeError."""
        self._settle(self._scope(user_id, agent_id))
        if session_id is None:
            return _tiers.build_user_summary(self, self._scope(user_id, agent_id))
        results = self._write_summary(self._scope(user_id, agent_id, session_id))
        return next((r.item for r in results if r.event in ("ADD", "NOOP")), None)

    def _write_summary(self, scope: Scope) -> list[Any]:
        new = session_summary_memory(self.store, scope, llm=self.llm, embedder=self.embedder)
        return self.store.write([], [new], actor="summarize") if new is not None else []

    def history(self, memory_id: str) -> list[HistoryEntry]:
        """Every version of a memory, oldest first (ADD, UPDATE, DELETE...). Raises NotFoundError."""
        return self.store.history(self.tenant, check_id(memory_id, "memory_id"))

    def export(self, *, user_id: str) -> dict[str, Any]:
        """Everything stored for a user as portable JSON-ready data (format ``anchormem.export/1``): memories
        with provenance and validity (superseded ones included), each memory's history, source messages and the
        review queue (``anchormem.portable.export_document``). The user's rows still pending enrichment
        (``add_many(enrich="later")``) are enriched first: the export holds their facts."""
        from .portable import export_document

        self._settle(self._scope(user_id))
        return export_document(self, self._scope(user_id))

    def import_memories(self, data: dict[str, Any] | list[Any], *, user_id: str | None = None,
                        on_conflict: str = "error", format: str = "auto") -> dict[str, int]:
        """Read an export into this store (its tenant; vectors re-embedded with this Memory's embedder).

        ``data``: an ``anchormem.export/1`` document (:meth:`export`; restored exactly: ids, timestamps,
        validity, labels, entities, metadata, history and source messages) or a mem0 export (``{"results":
        [...]}`` or a list; mapped as :func:`anchormem.portable.import_mem0` says). ``format``: ``"auto"``,
        ``"anchormem"`` or ``"mem0"``. ``user_id``: import into this user instead of the export's.
        ``on_conflict``: ``"error"`` (an id this store already holds, or a duplicate of a current memory: raise,
        write nothing), ``"skip"`` (leave those rows out) or ``"new_ids"`` (an anchormem export gets new ids for
        every memory, message and review item, references rewritten: to copy a user into another user of the same
        store, where the export's ids are taken). One transaction. Returns counts (``messages``,
        ``memories``, ``history``, ``entities``, ``skipped_messages``, ``skipped_memories``). See
        docs/portable.md. Raises InvalidInputError (unknown format, missing or mistyped fields, conflicts),
        ScopeError, StoreError."""
        from .portable import import_memories

        return import_memories(self, data, user_id=user_id, on_conflict=on_conflict, format=format)

