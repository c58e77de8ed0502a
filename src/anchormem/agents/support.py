"""A long-session customer-service assistant with layered memory, built on :class:`anchormem.Memory`.

    >>> from anchormem import Memory
    >>> from anchormem.agents import SupportAgent
    >>> agent = SupportAgent(Memory("support.db"), "cust-1001", name="Maya",
    ...                      products=[{"name": "Steady Income Fund No. 3", "aliases": ["Steady Income"]}])
    >>> agent.turn("My risk preference is conservative.", session_id="2025-06-03").text

**Layers.**

- *Working buffer and session memory*: every turn (the customer's and the assistant's) goes to a session store
  (:mod:`anchormem.session`, in-process by default, Redis when shared); :func:`anchormem.session.build_context`
  joins the decayed recent turns, the session summary and the relevant long-term memories into one budgeted
  block (``reply.metadata["context"]``; with an LLM it is the model's context).
- *Long-term facts with expiry*: each customer sentence is stored verbatim under ``user_id=customer_id`` with
  metadata ``category`` (:func:`anchormem.agents.signals.support_category`) and ``expire_strategy`` from
  ``expiry`` (default: ``product_yield`` 7 days, ``risk_preference`` permanent, ``emotion`` 24 hours), and
  ``product`` when it names a catalogue product. Expired memories drop out of search and ``ask``.
- *Structured summaries*: :meth:`Memory.add` writes a session summary (``kind="summary"``) every 20 stored
  messages of a session; the assistant copies it into the session store so the context block shows it
  (``reply.metadata["summary_id"]``). :meth:`SupportAgent.end_session` writes one on demand.

**Replies** (offline templates, English or Chinese; first rule that applies):

1. a sensitive change (bank card, phone number) is never applied: either :meth:`Memory.add` holds it (a fact that
   conflicts with the current one gives a ``REVIEW`` event) or, when the offline fact rules do not read it as a
   change of that attribute ("please change my phone number to …", "我的手机号换成了…"), the sentence is not
   stored and the assistant queues it for review itself; the reply gives the review id and masks numbers;
2. a reference to an earlier conversation ("the product we talked about last week", "上周聊的那个产品"): the
   dates are resolved against the turn, the catalogue product mentioned most in that range is named and its
   first mention quoted; a yield mentioned then that has expired is said to be out of date, never quoted;
3. a question about the customer ("my", "I", "我"): :meth:`Memory.ask` (evidence-checked), quoted with the date,
   or "I have no record of that."; another question (fees, terms) is not answered from memory, since nothing
   the customer said answers it: the reply says a specialist has to;
4. otherwise an acknowledgement of what was noted (risk preference kept, yield kept 7 days, a feeling).
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..errors import InvalidInputError
from ..facts.rules import extract_from_text
from ..ingest.normalize import check_scope_id
from ..session import SessionKey, WorkingBuffer, build_context, make_session_store
from ..text.dates import resolve_dates
from ..text.segment import split_sentences
from ..timeutil import to_utc, utcnow
from ..types import FactSlot, MemoryEvent, MemoryItem, ReviewItem
from . import signals
from .common import AgentReply, cite, grounded_rewrite, plan_messages, turn_time
from .templates import ATTRIBUTE_NAMES, fmt_date, render

__all__ = ["SupportAgent", "DEFAULT_EXPIRY", "mask_numbers"]

DEFAULT_EXPIRY = {"product_yield": "7d", "risk_preference": "permanent", "emotion": "24h"}
_CITABLE_KINDS = ["utterance", "fact", "commitment"]
_LONG_NUMBER = re.compile(r"(?<![\d])(?:\d[ -]?){6,22}\d(?![\d])")


def mask_numbers(text: str) -> str:
    """``text`` with every run of 7+ digits (cards, phones, accounts; spaces and dashes allowed) shown as
    ``****`` and its last four digits: "6222 0288 8888 1234" -> "****1234"."""
    return _LONG_NUMBER.sub(lambda m: "****" + re.sub(r"\D", "", m.group())[-4:], text)


class SupportAgent:
    """A customer-service assistant for one customer (see the module doc).

    Args:
        memory: an :class:`anchormem.Memory`; the customer's memories live under ``user_id=customer_id``.
        customer_id: the customer (a scope id).
        name: the customer's display name (the speaker of their memories), optional.
        products: the catalogue: ``[{"name": str, "aliases": [str, ...]}]`` (or plain names); a sentence naming
            one gets ``metadata.product`` = its ``name``.
        session_store: a :class:`anchormem.session.SessionStore` (default: a new in-process store).
        language: ``"en"``, ``"zh"`` or ``"auto"`` (the language of each turn).
        llm: an :class:`anchormem.llms.LLM` for natural replies, or None (templated replies).
        budget_tokens: the context block's budget; buffer: the :class:`WorkingBuffer` (turn window and decay).
        expiry: ``{category: expire_strategy}`` (see :mod:`anchormem.lifecycle`); default :data:`DEFAULT_EXPIRY`.

    Raises InvalidInputError (bad catalogue, language or expiry strategy), ScopeError (bad customer id).
    """

    def __init__(self, memory: Any, customer_id: str, *, name: str | None = None,
                 products: Sequence[Mapping[str, Any] | str] = (), session_store: Any = None,
                 language: str = "auto", llm: Any = None, budget_tokens: int = 1500,
                 buffer: WorkingBuffer | None = None, expiry: Mapping[str, str] | None = None) -> None:
        from ..lifecycle import parse_strategy

        self.memory = memory
        self.customer_id = check_scope_id(customer_id, "customer_id", required=True)
        if language not in ("auto", "en", "zh"):
            raise InvalidInputError(f"language must be 'auto', 'en' or 'zh', not {language!r}")
        self.name, self.language, self.llm, self.budget_tokens = name, language, llm, budget_tokens
        self.products = [_product(p) for p in products]
        self.expiry = dict(DEFAULT_EXPIRY if expiry is None else expiry)
        for strategy in self.expiry.values():
            parse_strategy(strategy)
        self.sessions = session_store if session_store is not None else make_session_store(None)
        self.buffer = buffer or WorkingBuffer()

    # ------------------------------------------------------------------ the turn
    def turn(self, text: str, *, session_id: str, at: datetime | str | None = None) -> AgentReply:
        """Handle one customer message in ``session_id`` said at ``at`` (default: the library clock). Returns the
        reply; ``metadata`` has ``intent``, ``citations``, ``review_ids``, ``held`` (changes this assistant
        queued itself), ``summary_id``, ``categories``, ``products`` and ``context`` (tokens used, memory ids).
        Raises InvalidInputError (empty text, bad time), ScopeError, and whatever the store raises."""
        check_scope_id(session_id, "session_id", required=True)
        now = turn_time(at)
        lang = self.language if self.language != "auto" else signals.language(text)
        key = SessionKey(user_id=self.customer_id, session_id=session_id, tenant=self.memory.tenant)
        # 1. sensitive changes the fact rules would not hold for review are kept out of memory and queued here
        held: list[tuple[str, str]] = []
        keep: list[str] = []
        for sentence in split_sentences(text) or [text]:
            attr = signals.sensitive_change(sentence)
            # the library holds a change of a value on record itself (review policy); the assistant holds the rest:
            # a wording the fact rules do not read, or a first value said as a change request
            if attr and (not any(f.attribute == attr for f in extract_from_text(sentence, entity=self.name or "user"))
                         or not self._current(attr)):
                held.append((sentence, attr))
            else:
                keep.append(sentence)
        events: list[MemoryEvent] = []
        if keep:
            body = text if not held else ("".join(keep) if lang == "zh" else " ".join(keep))
            messages = plan_messages(body, at=now, name=self.name, classify=self._classify)
            events = list(self.memory.add(messages, user_id=self.customer_id, session_id=session_id))
        events += [self._hold(s, attr, text, now, session_id) for s, attr in held]
        reviews = [e for e in events if e.event == "REVIEW"]
        shown = mask_numbers(text) if reviews or held else text
        self.sessions.append(key, {"role": "user", "content": shown, "timestamp": now, **(
            {"name": self.name} if self.name else {})})
        summary = next((e.memory for e in events if e.memory.kind == "summary" and e.event == "ADD"), None)
        if summary is not None:
            self.sessions.set_summary(key, summary.text, timestamp=now)
        block = build_context(self.memory, user_id=self.customer_id, session_id=session_id, query=shown,
                              budget_tokens=self.budget_tokens, session_store=self.sessions, buffer=self.buffer)
        # 2. the reply
        cats = sorted({e.memory.metadata.get("category") for e in events if e.memory.metadata.get("category")})
        citations: list[MemoryItem] = []
        if reviews:
            intent, lines = "sensitive_change", self._review_lines(reviews, lang)
        elif signals.refers_back(text):
            intent, lines, citations = ("recall",) + self._recall(text, now, session_id, lang)
        elif signals.asks_about_self(text):
            intent, lines, citations = ("question",) + self._answer(text, now, lang)
        elif signals.is_question(text):  # about a product or the service: not in what the customer said
            intent, lines = "general_question", [render("question.general", lang)]
        else:
            intent, lines = "statement", self._noted(cats, lang)
        used_llm = False
        if self.llm is not None and intent != "sensitive_change":
            rewritten, cited = grounded_rewrite(self.llm, draft="\n".join(lines), memories=citations, lang=lang,
                                                role="a careful customer-service assistant",
                                                name=self.name or ("客户" if lang == "zh" else "the customer"),
                                                context=block.text)
            if cited is not None:
                lines, citations, used_llm = [rewritten], cited, True
        reply = "\n".join(lines)
        self.sessions.append(key, {"role": "assistant", "content": reply, "timestamp": now})
        meta = {"customer_id": self.customer_id, "session_id": session_id, "language": lang, "intent": intent,
                "citations": [c.id for c in citations], "review_ids": [e.review_id for e in reviews],
                "held": [e.review_id for e in events if e.event == "REVIEW" and e.memory.metadata.get("held_by")],
                "summary_id": summary.id if summary is not None else None, "categories": cats,
                "products": sorted({e.memory.metadata["product"] for e in events if "product" in e.memory.metadata}),
                "context": {"used_tokens": block.used_tokens, "memory_ids": block.memory_ids,
                            "sections": [s.name for s in block.sections], "dropped": block.dropped}}
        return AgentReply(text=reply, lines=lines, citations=citations, events=events, metadata=meta, llm=used_llm)

    def end_session(self, session_id: str) -> MemoryItem | None:
        """Write the session's structured summary now (:meth:`Memory.summarize`) and put it in the session store.
        Returns the summary memory, or None when there is nothing to summarise."""
        item = self.memory.summarize(user_id=self.customer_id, session_id=session_id)
        if item is not None:
            key = SessionKey(user_id=self.customer_id, session_id=session_id, tenant=self.memory.tenant)
            self.sessions.set_summary(key, item.text)
        return item

    # ------------------------------------------------------------------ steps
    def _classify(self, sentence: str) -> dict[str, Any]:
        bare = sentence
        for p in self.products:  # "稳健收益3号" names a product; it states no yield
            for a in sorted([p["name"], *p["aliases"]], key=len, reverse=True):
                bare = re.sub(re.escape(a), " ", bare, flags=re.I)
        cat = signals.support_category(bare)
        meta: dict[str, Any] = {"category": cat}
        if cat in self.expiry:
            meta["expire_strategy"] = self.expiry[cat]
        product = self._product_in(sentence)
        if product:
            meta["product"] = product
        return meta

    def _product_in(self, text: str) -> str | None:
        low = text.casefold()
        hits = [(low.find(a.casefold()), p["name"]) for p in self.products for a in [p["name"], *p["aliases"]]
                if a.casefold() in low]
        return min(hits)[1] if hits else None

    def _current(self, attr: str) -> list[MemoryItem]:
        """The customer's current fact memories of ``attr``."""
        entity = (self.name or "user").casefold()
        return [m for m in self.memory.get_all(user_id=self.customer_id, filters={"kind": "fact"})
                if m.fact is not None and m.fact.attribute == attr and m.fact.entity.casefold() == entity]

    def _hold(self, sentence: str, attr: str, turn: str, now: datetime, session_id: str) -> MemoryEvent:
        """Queue a change the fact rules did not read as one. ``Memory`` has no public call for this: the
        :class:`~anchormem.stores.protocol.Store` protocol's ``add_review`` is used (see docs/agents.md)."""
        said = to_utc(now)
        digits = _LONG_NUMBER.findall(sentence)
        entity = self.name or "user"
        current = self._current(attr)
        proposed = MemoryItem(
            id=uuid.uuid4().hex, text=sentence, tenant=self.memory.tenant, user_id=self.customer_id,
            session_id=session_id, kind="fact", role="user", speaker=self.name, source="user", created_at=said,
            valid_from=said, fact=FactSlot(entity=entity, attribute=attr, value=(digits[-1] if digits else sentence)),
            metadata={"category": "sensitive_change", "held_by": "support_agent"}, source_text=turn)
        review = ReviewItem(id=uuid.uuid4().hex, tenant=self.memory.tenant, user_id=self.customer_id,
                            reason=f"sensitive change request ({attr}) held by the support assistant",
                            proposed=proposed, targets=[m.id for m in current], created_at=utcnow())
        self.memory.store.add_review(review)
        return MemoryEvent(event="REVIEW", memory=proposed, review_id=review.id)

    def _review_lines(self, reviews: list[MemoryEvent], lang: str) -> list[str]:
        lines = []
        for e in reviews:
            attr = _attribute(e.memory)
            name = ATTRIBUTE_NAMES[lang].get(attr, attr)
            lines.append(render("review", lang, attr=name, rid=e.review_id))
            current = [m for m in self.memory.get_all(user_id=self.customer_id, filters={"kind": "fact"})
                       if m.fact is not None and _attribute(m) == attr]
            if current:
                lines.append(render("review.current", lang, attr=name, masked=mask_numbers(current[-1].fact.value)))
        return lines

    def _recall(self, text: str, now: datetime, session_id: str, lang: str) -> tuple[list[str], list[MemoryItem]]:
        """The catalogue product most mentioned in the time the turn points at (or the last earlier session)."""
        uid = self.customer_id
        spans = resolve_dates(text, now)
        if spans:
            start, end = spans[0].start, spans[0].end
            when = render("recall.when.week", lang) if re.search(r"week|周|星期", spans[0].text, re.I) else \
                render("recall.when.range", lang, start=fmt_date(start, lang, now.tzinfo),
                       end=fmt_date(end, lang, now.tzinfo))
        else:
            earlier = self.memory.get_all(user_id=uid, filters={"NOT": {"session_id": session_id},
                                                                 "metadata.product": {"exists": True}},
                                          show_expired=True)
            if not earlier:
                return [render("recall.none", lang)], []
            last = earlier[-1].session_id
            same = [m.created_at for m in earlier if m.session_id == last]
            start, end, when = min(same), max(same), render("recall.when.earlier", lang)
        items = self.memory.get_all(user_id=uid, show_expired=True, filters={
            "source": "user", "metadata.product": {"exists": True}, "kind": {"in": _CITABLE_KINDS},
            "created_at": {"gte": start, "lte": end}})
        if not items:
            return [render("recall.none", lang)], []
        counts = Counter(m.metadata["product"] for m in items)
        last_seen = {m.metadata["product"]: m.created_at for m in items}
        product = max(counts, key=lambda p: (counts[p], last_seen[p]))
        about = [m for m in items if m.metadata["product"] == product]
        live = [m for m in about if m.expires_at is None or m.expires_at > utcnow()]
        first = (live or about)[0]
        lines = [cite("recall.product", first, lang, now.tzinfo, when=when, product=product)]
        citations = [first]
        yields = self.memory.get_all(user_id=uid, filters={"metadata.product": product,
                                                           "metadata.category": "product_yield"})
        if yields:
            lines.append(cite("yield.current", yields[-1], lang, now.tzinfo))
            citations.append(yields[-1])
        else:
            gone = [m for m in about if m.metadata.get("category") == "product_yield" and m not in live]
            if gone:
                days = self.expiry.get("product_yield", "7d").rstrip("d天")
                lines.append(render("yield.expired", lang, date=fmt_date(gone[-1].created_at, lang, now.tzinfo),
                                    days=days))
        return lines, citations

    def _answer(self, text: str, now: datetime, lang: str) -> tuple[list[str], list[MemoryItem]]:
        ans = self.memory.ask(signals.strip_meta(text), user_id=self.customer_id, filters={"source": "user",
                                                                       "kind": {"in": _CITABLE_KINDS}})
        if ans.abstained:
            return [render("answer.none", lang)], []
        return ([cite("answer.quote", c, lang, now.tzinfo) for c in ans.citations],
                list(ans.citations))

    def _noted(self, cats: list[str], lang: str) -> list[str]:
        lines = []
        if "risk_preference" in cats:
            lines.append(render("noted.risk", lang))
        if "product_yield" in cats:
            lines.append(render("noted.yield", lang, days=self.expiry.get("product_yield", "7d").rstrip("d天")))
        if "emotion" in cats:
            lines.append(render("empathy", lang))
        return lines or [render("ack", lang)]


def _attribute(item: MemoryItem) -> str:
    """The attribute of a fact memory (``bank_card``, ``phone``…), or ``""``."""
    return item.fact.attribute if item.fact is not None else ""


def _product(p: Mapping[str, Any] | str) -> dict[str, Any]:
    if isinstance(p, str) and p.strip():
        return {"name": p.strip(), "aliases": []}
    if isinstance(p, Mapping) and isinstance(p.get("name"), str) and p["name"].strip():
        aliases = p.get("aliases") or []
        if not isinstance(aliases, (list, tuple)) or not all(isinstance(a, str) and a.strip() for a in aliases):
            raise InvalidInputError(f"product {p['name']!r}: aliases must be a list of non-empty strings")
        return {"name": p["name"].strip(), "aliases": [a.strip() for a in aliases]}
    raise InvalidInputError(f"a product is a name or {{'name': str, 'aliases': [str]}}, got {p!r}")
