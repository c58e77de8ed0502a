"""Pure data types of the public API. No I/O here.

All timestamps are timezone-aware UTC ``datetime`` objects. Scores are "higher = more relevant".
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

__all__ = [
    "validity_state",
    "Role",
    "Source",
    "EventType",
    "Message",
    "Scope",
    "Label",
    "Entity",
    "MemoryItem",
    "MemoryEvent",
    "Hit",
    "Answer",
    "Citation",
    "as_citation",
    "HistoryEntry",
    "FactSlot",
    "Claim",
    "ReviewItem",
]

Role = Literal["user", "assistant", "system"]
Source = Literal["user", "assistant", "inferred", "external"]
EventType = Literal["ADD", "UPDATE", "NOOP", "SUPERSEDE", "DELETE", "REVIEW", "ADD_SUPERSEDED", "SKIP"]

DEFAULT_TENANT = "default"


class Message(BaseModel):
    """One conversation turn, as passed to :meth:`Memory.add`.

    ``timestamp``: when the turn was said (ISO-8601 string or datetime; naive values are taken as UTC).
    ``name``: the speaker's display name (e.g. "Caroline"), optional.
    ``metadata``: optional per-turn metadata (e.g. the turn's id in your system), merged over the metadata of
    the ``add`` call for the memories drafted from this turn.
    """

    model_config = ConfigDict(extra="forbid")

    role: Role = "user"
    content: str
    timestamp: datetime | None = None
    name: str | None = None
    metadata: dict[str, Any] | None = None


class Scope(BaseModel):
    """Who a memory belongs to. ``tenant`` isolates API customers; ``user_id`` is always required."""

    model_config = ConfigDict(frozen=True)

    tenant: str = DEFAULT_TENANT
    user_id: str
    agent_id: str | None = None
    session_id: str | None = None


class Label(BaseModel):
    """A context label: ``domain`` from the fixed taxonomy, free ``topic`` and ``intent``; ``score`` in [0, 1].
    ``set_by``: ``"labeller"`` (computed) or ``"hand"`` (given by a caller to ``add``/``update``); hand-set labels
    are kept by :meth:`anchormem.Memory.relabel` and by a text ``update``."""

    domain: str
    topic: str | None = None
    intent: str | None = None
    score: float = 1.0
    primary: bool = False
    set_by: Literal["labeller", "hand"] = "labeller"


class Entity(BaseModel):
    """A key entity found in a memory: ``type`` is one of date, time, money, number, email, phone, url, name."""

    type: str
    value: str
    normalized: str | None = None


class FactSlot(BaseModel):
    """The entity-attribute-value fact a ``kind="fact"`` memory states. ``slot`` = ``"<entity>|<attribute>"``
    (entity case-folded): two current facts with one slot and different values conflict. ``polarity`` is -1 for
    "I no longer…", "I can't stand…", "我不再…"."""

    entity: str
    attribute: str
    value: str
    polarity: Literal[1, -1] = 1
    extractor: str = "rules"

    @property
    def slot(self) -> str:
        return f"{self.entity.casefold()}|{self.attribute}"


class Claim(BaseModel):
    """One slot fact a memory carries (:mod:`anchormem.facts.claims`). ``fact_id``: the ``kind="fact"`` memory that
    states it (the claim's identity: an utterance carries the claims of the fact memories drawn from it).
    ``said_at``: when it was said; ``valid_from``/``valid_to``: while it held (``valid_to`` None: it holds now);
    ``superseded_by``: the memory that closed it. ``span``: the words of the memory that state it. ``words``: the
    words its closing takes out of the memory (the statement or list item of ``span`` that carries it), decided once
    when the claim is written (:func:`anchormem.facts.claims.decided_words`) and used by every read path; "" on a
    claim stored before they were kept (read paths then cut ``span`` by ``value``)."""

    fact_id: str
    slot: str
    value: str
    polarity: Literal[1, -1] = 1
    said_at: datetime
    valid_from: datetime
    valid_to: datetime | None = None
    superseded_by: str | None = None
    span: str = ""
    words: str = ""

    @property
    def current(self) -> bool:
        """Holds now: not closed by now, and not scheduled for a time still ahead (:func:`validity_state`)."""
        return self.state == "current"

    @property
    def state(self) -> Literal["current", "scheduled", "superseded"]:
        """:func:`validity_state` of the claim now."""
        return validity_state(self.valid_from, self.valid_to, self.said_at)


def validity_state(valid_from: datetime, valid_to: datetime | None, said: datetime,
                   now: datetime | None = None) -> Literal["current", "scheduled", "superseded"]:
    """Where an interval stands at ``now`` (default: the wall clock), one rule for every read path: ``"superseded"``
    when it was closed by then (``valid_to`` <= now); ``"scheduled"`` when it takes effect later than it was said
    (``said``) and that time is still ahead (a value planned for a date: :func:`anchormem.facts.plans.scheduled_start`);
    else ``"current"`` — also a value closed at a date still ahead (what a scheduled one replaces holds until then)."""
    from .timeutil import utcnow

    now = utcnow() if now is None else now
    if valid_to is not None and valid_to <= now:
        return "superseded"
    return "scheduled" if valid_from > now and valid_from > said else "current"


class MemoryItem(BaseModel):
    """One stored memory.

    Provenance: ``source_message_ids`` (ids of the stored source turns) and ``source_text`` (the verbatim turn).
    ``role`` is who said it; ``source`` is whose claim it is (an assistant turn is never a user fact).
    ``event_time``/``event_time_end``: when the content happened (a day or range resolved from "last week",
    "上周三", "8 May 2023" against the turn's own timestamp), or None.
    ``valid_from``/``valid_to``: validity interval; ``valid_to`` is None while the memory is current.
    ``claims``: the slot facts it carries, each with its own validity (:class:`Claim`); ``current``: whether it
    holds now (see :attr:`current`).
    ``tier``: ``"warm"`` (searched by default) or ``"cold"`` (archived at ``archived_at``: left out of default
    search/ask/context/get_all, still returned by ``get``, ``as_of`` reads, ``filters={"tier": "cold"}``, history
    and export; see :mod:`anchormem.consolidate`).
    """

    id: str
    text: str
    tenant: str = DEFAULT_TENANT
    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    kind: str = "utterance"
    role: Role = "user"
    speaker: str | None = None
    source: Source = "user"
    created_at: datetime
    updated_at: datetime | None = None
    event_time: datetime | None = None
    event_time_end: datetime | None = None
    valid_from: datetime
    valid_to: datetime | None = None
    confidence: float = 1.0
    labels: list[Label] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    source_message_ids: list[str] = Field(default_factory=list)
    source_text: str = ""
    superseded_by: str | None = None
    access_count: int = 0
    last_accessed_at: datetime | None = None
    expires_at: datetime | None = None
    fact: FactSlot | None = None
    tier: Literal["warm", "cold"] = "warm"
    archived_at: datetime | None = None
    claims: list[Claim] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def current(self) -> bool:
        """True while the memory holds now (one rule for every read path, the REST API and MCP:
        :func:`validity_state`): ``valid_to`` unset or still ahead (a value a scheduled one replaces holds until its
        date), and not scheduled for a time still ahead (:attr:`state` ``"scheduled"``). A memory some of whose
        claims were superseded stays current for the rest of what it says (:attr:`state` ``"partly_superseded"``;
        the read paths show it without the superseded words, :func:`anchormem.facts.claims.current_view`); when
        nothing else is left the store closes it (``valid_to`` set)."""
        return validity_state(self.valid_from, self.valid_to, self.created_at) == "current"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def state(self) -> Literal["current", "partly_superseded", "superseded", "scheduled"]:
        """``"superseded"`` (closed by now: it no longer holds), ``"scheduled"`` (said for a date still ahead: it
        holds from ``valid_from``; what it replaces is current until then), ``"partly_superseded"`` (current, but at
        least one of its :attr:`claims` was superseded: its other content holds, those claims' words do not) or
        ``"current"``."""
        state = validity_state(self.valid_from, self.valid_to, self.created_at)
        if state != "current":
            return state
        return "partly_superseded" if any(c.state == "superseded" for c in self.claims) else "current"


class MemoryEvent(BaseModel):
    """What one write did to one memory. ``SKIP``: a turn ``add`` kept nothing from (``memory`` is that turn as it
    would have been drafted, not stored; ``reason`` says why: "chit-chat: nothing to remember", "system message: not
    remembered"); an ``add`` that stores and touches nothing returns one per turn, never ``[]``."""

    event: EventType
    memory: MemoryItem
    previous_text: str | None = None
    review_id: str | None = None
    reason: str | None = None


class Hit(BaseModel):
    """A search result. ``score``: the rank-defining score, higher = more relevant; a list of hits is in
    non-increasing score order. A hit that an ordering rule placed above a better-scored one (the current value
    before the memory it supersedes, a day recap's time order, a session's hits kept together) carries the score of
    the hit it was placed above, its own in ``explain["own_score"]``. Scores are comparable within one result list
    only (fused ranks, not probabilities). ``explain``: per-signal scores (dense cosine, BM25, ranks, fused score,
    recency weight, source weight, final)."""

    memory: MemoryItem
    score: float
    explain: dict[str, Any] = Field(default_factory=dict)


class Citation(MemoryItem):
    """A memory an :class:`Answer` cites (every field of :class:`MemoryItem`), with ``note``: the qualifier the
    answer's text shows beside its quote, as one string, so that a client need not parse ``Answer.text``:

    - past: ``"true until 2024-03"`` (``"2024-03以前如此"``) for a memory that no longer holds (superseded, or read
      by a past question / ``as_of``);
    - scheduled: ``"planned: from 2024-04-01"`` for a change said ahead, or what holds until it takes effect;
    - said-on / earlier: ``"an earlier statement, before 2024-05-30"`` when a later statement of the asker's is
      preferred; ``"edited on 2024-05-01"`` for a memory whose words were edited since they were said;
    - a plan it realised or called off (``'the plan of 2024-03-11 came true: "…"'``), a change of it pending review
      (``"a change to 555-0199 is pending review"``);

    several joined with ``"; "`` in the order the text shows them, in the question's language. ``None`` when the
    citation holds now and the text says nothing more of it."""

    note: str | None = None


class Answer(BaseModel):
    """The result of :meth:`Memory.ask`. ``abstained`` is True when no memory passed the evidence threshold;
    then ``text`` says plainly that nothing was recorded and ``citations`` is empty. ``citations``: the quoted
    memories in the order quoted, each a :class:`Citation` (a :class:`MemoryItem` with ``note``, the qualifier the
    text shows for it: "true until 2024-03", "planned: from …"; None when it holds now)."""

    text: str
    citations: list[Citation] = Field(default_factory=list)
    abstained: bool = False
    evidence: list[Hit] = Field(default_factory=list)

    @field_validator("citations", mode="before")
    @classmethod
    def _as_citations(cls, value: Any) -> Any:
        """A plain :class:`MemoryItem` given as a citation is one without a note."""
        if isinstance(value, list):
            return [as_citation(m) if isinstance(m, MemoryItem) and not isinstance(m, Citation) else m
                    for m in value]
        return value


def as_citation(m: MemoryItem, note: str | None = None) -> Citation:
    """``m`` as a :class:`Citation` with ``note`` (its fields as they are, not validated again)."""
    if isinstance(m, Citation) and m.note == note:
        return m
    fields = {k: getattr(m, k) for k in MemoryItem.model_fields}
    return Citation.model_construct(_fields_set=set(m.model_fields_set) | {"note"}, **fields, note=note)


class HistoryEntry(BaseModel):
    """One version of a memory: ``event`` ADD/UPDATE/SUPERSEDE/DELETE/NOOP… (NOOP: restated; ``reason`` names the
    turn added to its ``source_message_ids``), who (``actor``), when, why.

    Two times: ``created_at`` is when the store wrote the row (the wall clock of the write); ``said_at`` is when
    it happened on the user's own timeline: an ADD when the memory was said (its ``valid_from``: the turn's
    timestamp, also for a conversation imported later), a SUPERSEDE when the value that closed it was said, a NOOP
    when the restating turn was said; None for edits, deletions and other operations, which happen when written."""

    memory_id: str
    version: int
    event: str
    old_text: str | None = None
    new_text: str | None = None
    actor: str | None = None
    reason: str | None = None
    created_at: datetime
    said_at: datetime | None = None


class ReviewItem(BaseModel):
    """A change held for a human decision instead of applied: a fact that conflicts with a current one whose
    confidence differs by more than 0.2, or a sensitive attribute (card, ID, address, phone…).

    ``proposed``: the memory that approval writes (not stored until then). ``targets``: ids of the current
    memories it would supersede. ``status``: pending | approved | rejected. Timestamps: aware UTC.
    """

    id: str
    tenant: str = DEFAULT_TENANT
    user_id: str
    status: Literal["pending", "approved", "rejected"] = "pending"
    reason: str
    proposed: MemoryItem
    targets: list[str] = Field(default_factory=list)
    created_at: datetime
    resolved_at: datetime | None = None
    resolved_by: str | None = None
    result_memory_id: str | None = None
