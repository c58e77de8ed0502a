"""A conflict-mediation assistant for disputes that span several conversations, built on :class:`anchormem.Memory`.

    >>> from anchormem import Memory
    >>> from anchormem.agents import Mediator
    >>> mem = Memory("cases.db")
    >>> med = Mediator(mem, "hedge-42", parties={"alice": "Alice", "bob": "Bob"})
    >>> reply = med.turn("alice", "The hedge blocks the light in my kitchen.", session_id="s1")
    >>> reply.text, reply.metadata["stage"]

**How it uses the memory.** A case is one ``user_id`` (``case_id``); each conversation is a ``session_id``. Every
party sentence is stored verbatim (``name`` = the party's display name) with metadata ``party`` (the party id),
``visibility`` (``private`` or ``shared``) and ``category`` (position, demand, red_line, proposal, agreement,
emotion, question, social; :func:`anchormem.agents.signals.sentence_category`; ``status`` for an answer to a
raised commitment). Feelings get ``expire_strategy`` (24 h by
default): they inform the stage, not the record. Promises and agreements ("I will send the documents by Monday",
"we agreed that…") become ``kind="commitment"`` memories with a due date (:mod:`anchormem.facts.commitments`);
their owner is the party who said them.

**Neutrality.** Every search goes through :meth:`Mediator.visible_filter`::

    {"source": "user", "OR": [{"metadata.party": <viewer>}, {"metadata.visibility": "shared"}]}

so one party's private memories are never retrieved for, quoted to, or sent to an LLM for another party. A
sentence is ``shared`` only when its speaker allowed it ("you can tell Alice that…", "可以转告她…") or when it
states an agreement ("I agree…", "we agreed…", "我同意…"), which both sides are confirming.

**Stages** (stored per case; ``reply.metadata["stage"]``), driven by the signals of each turn:

1. ``information_gathering`` (start): each party states positions. → ``option_exploration`` once every party has
   stated a position, demand, red line or proposal, or as soon as someone proposes something.
2. ``de_escalation``: entered from any stage when a turn carries anger or distress (unless it also agrees). →
   ``option_exploration`` on a calm turn with a proposal or agreement, or once every party has been heard.
3. ``option_exploration``: proposals are weighed. → ``agreement_confirmation`` when a party agrees.
4. ``agreement_confirmation``: every party must agree (``metadata["accepted_by"]``). → ``follow_up`` when all
   have; back to ``option_exploration`` on a rejection.
5. ``follow_up``: commitments are checked as they fall due. → ``option_exploration`` when one is reported not
   kept (renegotiate), ``de_escalation`` on anger.

**Commitment tracking.** On a party's first turn of a session, its open commitments due within ``due_within``
(default one day; overdue ones included) are raised first, soonest first ("About “…” (due 5 May, overdue):
done?"). The party's next answer is read (:func:`anchormem.agents.signals.answer_status`): done → the commitment
is closed with :meth:`Memory.complete` and a status record (``metadata.record="commitment_status"``,
``status="fulfilled"``) is added; not done and overdue → closed the same way with ``status="breached"``; not done
and not yet due → left open. The state of each turn (stage, who agreed, what was raised) is stored as an
assistant memory with ``metadata.record="mediator_turn"`` (its text names no party statement), so a case
continues across processes.

With an ``llm`` (any OpenAI-compatible :class:`anchormem.llms.LLM`), the body of each reply is rewritten naturally
under a prompt that allows only what the offline reply and the cited memories say, and is checked like
:meth:`Memory.ask` (:func:`anchormem.agents.common.grounded_rewrite`); the raised commitments stay the first lines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..errors import InvalidInputError, NotFoundError
from ..ingest.normalize import check_scope_id
from ..types import MemoryItem
from . import signals
from .common import AgentReply, cite, grounded_rewrite, plan_messages, turn_time
from .templates import STAGE_NAMES, fmt_date, quoted, render

__all__ = ["Mediator", "STAGES", "next_stage", "TurnSignals"]

STAGES = ("information_gathering", "de_escalation", "option_exploration", "agreement_confirmation", "follow_up")
HEARD = ("position", "demand", "red_line", "proposal", "agreement")  # categories that count as "stated a view"
CITABLE = HEARD  # categories a reply may restate (never emotions or questions)
TURN_RECORD = "mediator_turn"
STATUS_RECORD = "commitment_status"


@dataclass
class TurnSignals:
    """What a turn carries, as the stage machine reads it."""

    emotion: str | None = None
    categories: list[str] = field(default_factory=list)
    accepts: bool = False
    rejects: bool = False
    proposes: bool = False
    breached: bool = False


def next_stage(stage: str, sig: TurnSignals, *, party: str, parties: Sequence[str], heard: set[str],
               accepted: set[str]) -> tuple[str, set[str]]:
    """The stage after a turn of ``party`` and who has agreed since agreement confirmation began (see the module
    doc for the rules). Pure function. Raises InvalidInputError for an unknown stage."""
    if stage not in STAGES:
        raise InvalidInputError(f"unknown mediation stage {stage!r}; stages: {', '.join(STAGES)}")
    everyone = set(parties)
    if sig.emotion is not None and not sig.accepts:
        return "de_escalation", set()
    if stage == "follow_up":
        return ("option_exploration", set()) if sig.breached else (stage, accepted)
    if stage == "agreement_confirmation":
        if sig.rejects:
            return "option_exploration", set()
        accepted = accepted | {party} if sig.accepts else accepted
        return ("follow_up", accepted) if accepted >= everyone else (stage, accepted)
    if sig.accepts:
        accepted = {party}
        return ("follow_up", accepted) if accepted >= everyone else ("agreement_confirmation", accepted)
    if stage == "option_exploration":
        return stage, set()
    if stage == "de_escalation":
        return ("option_exploration", set()) if sig.proposes or heard >= everyone else (stage, set())
    return ("option_exploration", set()) if sig.proposes or heard >= everyone else (stage, set())


@dataclass
class _CaseState:
    stage: str = "information_gathering"
    accepted: set[str] = field(default_factory=set)
    asked: dict[str, list[str]] = field(default_factory=dict)  # party -> commitment ids awaiting an answer
    raised: set[tuple[str, str, str]] = field(default_factory=set)  # (party, session, commitment id)
    sessions: dict[str, set[str]] = field(default_factory=dict)  # party -> sessions it spoke in
    heard: set[str] = field(default_factory=set)
    seq: int = 0


def _csv(value: Any) -> list[str]:
    return [v for v in str(value or "").split(",") if v]


class Mediator:
    """A mediation assistant for one case (see the module doc).

    Args:
        memory: an :class:`anchormem.Memory`; the case's memories live under ``user_id=case_id``.
        case_id: the case (a scope id: non-empty, at most 256 characters).
        parties: ``{party_id: display name}`` or a list of party ids (the id doubles as the name); at least two.
        language: ``"en"``, ``"zh"``, or ``"auto"`` (each reply in the language of the turn).
        llm: an :class:`anchormem.llms.LLM` for natural replies, or None (templated replies).
        due_within: raise commitments due before now + this (overdue ones always).
        citations_per_party: memories restated per party per turn.
        emotion_ttl: ``expire_strategy`` of sentences that are mainly a feeling.
        recipe: the search recipe (``"anchored"``: the party's recent turns anchor the query).

    Raises InvalidInputError (fewer than two parties, bad language), ScopeError (bad case id).
    """

    def __init__(self, memory: Any, case_id: str, parties: Mapping[str, str] | Sequence[str], *,
                 language: str = "auto", llm: Any = None, due_within: timedelta = timedelta(days=1),
                 citations_per_party: int = 2, emotion_ttl: str = "24h", recipe: str | None = "anchored") -> None:
        self.memory = memory
        self.case_id = check_scope_id(case_id, "case_id", required=True)
        names = dict(parties) if isinstance(parties, Mapping) else {p: p for p in parties}
        if len(names) < 2 or not all(isinstance(k, str) and k and isinstance(v, str) and v for k, v in
                                     names.items()):
            raise InvalidInputError("a mediation case needs at least two parties with non-empty ids and names")
        if language not in ("auto", "en", "zh"):
            raise InvalidInputError(f"language must be 'auto', 'en' or 'zh', not {language!r}")
        self.parties: dict[str, str] = names
        self.language, self.llm, self.due_within = language, llm, due_within
        self.citations_per_party, self.emotion_ttl, self.recipe = citations_per_party, emotion_ttl, recipe
        self._state: _CaseState | None = None
        self._recent: dict[tuple[str, str], deque[str]] = {}

    # ------------------------------------------------------------------ public helpers
    def visible_filter(self, viewer: str) -> dict[str, Any]:
        """The filter every search for ``viewer`` uses: their own statements and what others allowed to share."""
        return {"source": "user", "OR": [{"metadata.party": viewer}, {"metadata.visibility": "shared"}]}

    @property
    def stage(self) -> str:
        """The case's current stage (loaded from the store on first use)."""
        return self._load().stage

    def open_commitments(self, party: str | None = None) -> list[MemoryItem]:
        """Open commitments of the case (of one party), soonest due first, undated last."""
        items = self.memory.due(user_id=self.case_id)
        return [c for c in items if party is None or c.metadata.get("party") == party]

    # ------------------------------------------------------------------ the turn
    def turn(self, party: str, text: str, *, session_id: str, at: datetime | str | None = None) -> AgentReply:
        """Handle one message of ``party`` in session ``session_id`` said at ``at`` (default: the library clock;
        keep the speaker's UTC offset so dates read as their local days). Stores the turn, answers raised
        commitments, moves the stage, and returns the reply (see :class:`AgentReply`; ``metadata`` has
        ``stage``, ``previous_stage``, ``citations``, ``raised_commitments``, ``new_commitments``,
        ``closed_commitments``, ``accepted_by``, ``signals``). Raises InvalidInputError (unknown party, empty
        text, bad time), ScopeError (bad session id) and whatever the store raises."""
        if party not in self.parties:
            raise InvalidInputError(f"unknown party {party!r}; parties: {', '.join(self.parties)}")
        check_scope_id(session_id, "session_id", required=True)
        now = turn_time(at)
        lang = self.language if self.language != "auto" else signals.language(text)
        st = self._load()
        name = self.parties[party]
        first_in_session = session_id not in st.sessions.get(party, set())

        # 1. an answer to commitments raised last turn
        status_lines, closed, breached = self._answer(party, text, session_id, now, lang)
        # 2. store the turn, one message per run of sentences with the same category and visibility
        answering = bool(status_lines)
        messages = plan_messages(text, at=now, name=name, classify=lambda s: self._classify(party, s, answering))
        events = self.memory.add(messages, user_id=self.case_id, session_id=session_id)
        this_turn = {e.memory.id for e in events}
        new_commitments = [e.memory for e in events if e.event == "ADD" and e.memory.kind == "commitment"]
        cats = [m["metadata"]["category"] for m in messages]
        parts = [m["content"] for m in messages]  # runs of sentences sharing a category
        emos = [signals.emotion(p) for p in parts]
        sig = TurnSignals(emotion="anger" if "anger" in emos else ("distress" if "distress" in emos else None),
                          categories=cats, accepts="agreement" in cats,
                          rejects=any(signals.is_rejection(p) for p in parts),
                          proposes="proposal" in cats, breached=breached)
        if any(c in HEARD for c in cats):
            st.heard.add(party)
        # 3. the stage
        previous = st.stage
        st.stage, st.accepted = next_stage(st.stage, sig, party=party, parties=list(self.parties), heard=st.heard,
                                           accepted=st.accepted)
        # 4. commitments due, raised first on the party's first turn of a session
        raised = self._due(party, session_id, now) if first_in_session else []
        head = [render("due", lang, text=quoted(c.text), due=fmt_date(c.event_time, lang, now.tzinfo),
                       late=render("due.late", lang) if (c.event_time_end or c.event_time) < now else "")
                for c in raised if c.event_time is not None]
        # 5. cited memories of every party, through the neutrality filter
        recent = self._recent.setdefault((party, session_id), deque(maxlen=6))
        citations = self._citations(party, text, exclude=this_turn, context=list(recent))
        recent.append(text)
        body = list(status_lines)
        if not raised:
            body.append(render(f"stage.{st.stage}", lang, name=name))
        for c in citations:
            owner = c.metadata.get("party")
            body.append(cite("cite.own", c, lang, now.tzinfo) if owner == party else
                        cite("cite.other", c, lang, now.tzinfo, name=self.parties.get(owner, owner)))
        for c in new_commitments:
            body.append(render("commitment.noted", lang, text=quoted(c.text),
                               due=fmt_date(c.event_time, lang, now.tzinfo)) if c.event_time is not None else
                        render("commitment.undated", lang, text=quoted(c.text)))
        if any(signals.shares(p) for p in parts):
            others = [n for p, n in self.parties.items() if p != party]
            body.append(render("shared", lang, others=(" 和 " if lang == "zh" else " and ").join(others)))
        if st.stage == "agreement_confirmation":
            missing = [n for p, n in self.parties.items() if p not in st.accepted]
            if missing:
                body.append(render("waiting", lang, names=("、" if lang == "zh" else ", ").join(missing)))
        used_llm = False
        if self.llm is not None:
            text_llm, cited = grounded_rewrite(self.llm, draft="\n".join(body), memories=citations, lang=lang,
                                               role="a neutral mediator between " + ", ".join(self.parties.values()),
                                               name=name)
            if cited is not None:
                body, citations, used_llm = [text_llm], cited, True
        lines = head + body
        # 6. the turn record: what the next turn (or another process) needs to continue the case
        st.raised |= {(party, session_id, c.id) for c in raised}
        st.asked[party] = [c.id for c in raised]
        st.sessions.setdefault(party, set()).add(session_id)
        st.seq += 1
        self.memory.add([{"role": "assistant", "timestamp": now, "content": render(
            "record.turn", lang, name=f"{name} #{st.seq}", stage=STAGE_NAMES[lang][st.stage]), "metadata": {
            "record": TURN_RECORD, "party": party, "visibility": "private", "stage": st.stage, "seq": st.seq,
            "accepted": ",".join(sorted(st.accepted)), "asked": ",".join(st.asked[party]),
            "cited": ",".join(c.id for c in citations)}}], user_id=self.case_id, session_id=session_id)
        meta = {"case_id": self.case_id, "party": party, "session_id": session_id, "language": lang,
                "stage": st.stage, "stage_name": STAGE_NAMES[lang][st.stage], "previous_stage": previous,
                "citations": [c.id for c in citations], "raised_commitments": [c.id for c in raised],
                "new_commitments": [c.id for c in new_commitments], "closed_commitments": closed,
                "accepted_by": sorted(st.accepted),
                "signals": {"emotion": sig.emotion, "categories": cats, "accepts": sig.accepts,
                            "rejects": sig.rejects, "proposes": sig.proposes}}
        return AgentReply(text="\n".join(lines), lines=lines, citations=citations, events=events, metadata=meta,
                          llm=used_llm)

    # ------------------------------------------------------------------ steps
    def _classify(self, party: str, sentence: str, answering: bool = False) -> dict[str, Any]:
        """Metadata of one sentence; ``answering``: the turn answers raised commitments, so a sentence that reads
        as done / not done is a ``status`` (recorded by the status record, not restated)."""
        cat = "status" if answering and signals.answer_status(sentence) else signals.sentence_category(sentence)
        shared = cat == "agreement" or signals.shares(sentence)
        meta: dict[str, Any] = {"party": party, "visibility": "shared" if shared else "private", "category": cat}
        if cat == "emotion":
            meta["expire_strategy"] = self.emotion_ttl
        return meta

    def _answer(self, party: str, text: str, session_id: str, now: datetime,
                lang: str) -> tuple[list[str], list[dict[str, str]], bool]:
        """Read ``text`` as the answer to the commitments raised to ``party`` last turn; close and record them."""
        st = self._load()
        asked, st.asked[party] = st.asked.get(party, []), []
        status = signals.answer_status(text) if asked else None
        lines: list[str] = []
        closed: list[dict[str, str]] = []
        breached = False
        for cid in asked if status else []:
            try:
                item = self.memory.get(cid)
            except NotFoundError:  # deleted since it was raised
                continue
            if item.valid_to is not None or item.event_time is None:
                continue
            due = fmt_date(item.event_time, lang, now.tzinfo)
            overdue = (item.event_time_end or item.event_time) < now
            if status == "not_done" and not overdue:
                lines.append(render("commitment.open", lang, text=quoted(item.text), due=due))
                continue
            outcome = "fulfilled" if status == "done" else "breached"
            breached |= outcome == "breached"
            self.memory.complete(cid, reason=f"{outcome}: {self.parties[party]}: {text}")
            self.memory.add([{"role": "assistant", "timestamp": now, "content": render(
                "record.status", lang, owner=self.parties[party], due=due, status=render(f"status.{outcome}", lang),
                date=fmt_date(now, lang)), "metadata": {
                "record": STATUS_RECORD, "status": outcome, "commitment_id": cid, "party": party,
                "visibility": item.metadata.get("visibility", "private")}}],
                user_id=self.case_id, session_id=session_id)
            lines.append(render("commitment.done" if outcome == "fulfilled" else "commitment.breached", lang,
                                text=quoted(item.text), due=due))
            closed.append({"id": cid, "status": outcome})
        return lines, closed, breached

    def _due(self, party: str, session_id: str, now: datetime) -> list[MemoryItem]:
        st = self._load()
        items = self.memory.due(user_id=self.case_id, before=now + self.due_within, include_undated=False)
        return [c for c in items if c.metadata.get("party") == party and (party, session_id, c.id) not in st.raised]

    def _citations(self, party: str, text: str, *, exclude: set[str], context: list[str]) -> list[MemoryItem]:
        """The memories restated to ``party``: theirs first, then each other party's shared ones."""
        out: list[MemoryItem] = []
        k = self.citations_per_party
        for target in [party] + [p for p in self.parties if p != party]:
            filters = {**self.visible_filter(party), "metadata.party": target,
                       "metadata.category": {"in": list(CITABLE)}}
            hits = self.memory.search(text, user_id=self.case_id, filters=filters, limit=k + len(exclude),
                                      recipe=self.recipe, context=context or None)
            picked = [h.memory for h in hits if h.memory.id not in exclude and h.memory not in out][:k]
            out += picked
        return out

    def _load(self) -> _CaseState:
        """The case state from the turn records (the last one per party; sessions and raised ids from all)."""
        if self._state is not None:
            return self._state
        st = _CaseState()
        records = self.memory.get_all(user_id=self.case_id, filters={"metadata.record": TURN_RECORD})
        for r in sorted(records, key=lambda r: int(r.metadata.get("seq") or 0)):
            p, sid = r.metadata.get("party"), r.session_id or ""
            st.sessions.setdefault(p, set()).add(sid)
            asked = _csv(r.metadata.get("asked"))
            st.asked[p] = asked
            st.raised |= {(p, sid, c) for c in asked}
            st.stage = r.metadata.get("stage") if r.metadata.get("stage") in STAGES else st.stage
            st.accepted = set(_csv(r.metadata.get("accepted")))
            st.seq = max(st.seq, int(r.metadata.get("seq") or 0))
        heard = self.memory.get_all(user_id=self.case_id, filters={"source": "user",
                                                                   "metadata.category": {"in": list(HEARD)}})
        st.heard = {m.metadata.get("party") for m in heard} & set(self.parties)
        self._state = st
        return st
