"""Request and response bodies of the REST API. Responses reuse :mod:`anchormem.types`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

from ..retrieval.config import RECIPES
from ..types import Answer, HistoryEntry, Hit, MemoryEvent, MemoryItem, ReviewItem

__all__ = [
    "ScopeId", "MessageIn", "AddRequest", "SearchRequest", "AskRequest", "UpdateRequest", "LabelIn",
    "ForgetRequest", "AddResponse", "MemoryList", "SearchResponse", "HistoryResponse", "CountsResponse",
    "HealthResponse", "ReadyResponse", "ErrorBody", "ErrorResponse", "Answer", "MemoryItem", "ReviewList",
    "ReviewItem", "EventsResponse", "GcRequest", "ContextRequest", "ConsolidateRequest", "TierRequest",
    "SummarizeRequest",
]

ScopeId = Annotated[str, Field(min_length=1, max_length=256)]
# JSON numbers that SQLite and strict JSON can both hold: finite floats, 64-bit integers.
MetaValue = Union[Annotated[int, Field(ge=-(2 ** 63), le=2 ** 63 - 1, strict=True)],
                  Annotated[float, Field(allow_inf_nan=False)], bool, str, None]
Metadata = dict[Annotated[str, Field(min_length=1, max_length=64)], MetaValue]
RecipeName = Literal[tuple(RECIPES)]  # type: ignore[valid-type]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContentPart(BaseModel):
    """An OpenAI-style content part: ``{"type": "text", "text": ...}`` is read, other parts (images, audio) left out."""

    model_config = ConfigDict(extra="allow")

    type: Annotated[str, Field(min_length=1, max_length=64)]
    text: Optional[str] = None


class MessageIn(_Body):
    """One conversation turn, or an OpenAI-style chat message as it is (``developer`` = ``system``; tool steps and
    text-less turns are left out, content parts' text joined: :func:`anchormem.ingest.normalize.chat_turn`)."""

    role: Literal["user", "assistant", "system", "developer", "tool", "function"] = "user"
    content: Union[Annotated[str, Field(min_length=1)], Annotated[list[ContentPart], Field(max_length=100)],
                   None] = None
    timestamp: Optional[datetime] = None
    name: Optional[Annotated[str, Field(max_length=256)]] = None
    metadata: Optional[Metadata] = None
    tool_calls: Optional[list[dict[str, Any]]] = None
    tool_call_id: Optional[str] = None
    function_call: Optional[dict[str, Any]] = None


class AddRequest(_Body):
    """``messages``: one user turn as a string, or a list of turns."""

    messages: Union[Annotated[str, Field(min_length=1)], Annotated[list[MessageIn], Field(min_length=1,
                                                                                           max_length=1000)]]
    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    session_id: Optional[ScopeId] = None
    timestamp: Optional[datetime] = None
    metadata: Optional[Metadata] = None


# the conversation: a list of turns (a bare string is refused, as Memory.search refuses it)
Context = Optional[Annotated[list[Union[str, MessageIn]], Field(max_length=200)]]


class _QueryBody(_Body):
    """Fields shared by search and ask: the query, its scope, the current conversation, filters, as_of."""

    query: Annotated[str, Field(min_length=1)]
    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    session_id: Optional[ScopeId] = None
    context: Context = None
    filters: Optional[dict[str, Any]] = None
    as_of: Optional[datetime] = None


class SearchRequest(_QueryBody):
    """Hybrid search in one user's memories. ``filters``: see the filter language in ``docs/api.md``."""

    limit: Annotated[int, Field(ge=1, le=1000)] = 5
    recipe: Optional[RecipeName] = None
    show_expired: bool = False


class AskRequest(_QueryBody):
    """Answer from memory with citations, or abstain."""

    limit: Annotated[int, Field(ge=1, le=100)] = 10


class ContextRequest(_Body):
    """A prompt-ready context for the current user message ``query``: the session's summary and recent turns
    (from the session store: Redis when ``ANCHORMEM_SESSION_URL`` is set, shared by every worker) and cited
    long-term memories, within ``budget_tokens``. ``memory_limit=0`` skips long-term search."""

    query: Annotated[str, Field(min_length=1)]
    user_id: ScopeId
    session_id: ScopeId
    agent_id: Optional[ScopeId] = None
    budget_tokens: Annotated[int, Field(ge=1, le=1_000_000)] = 2000
    memory_limit: Annotated[int, Field(ge=0, le=100)] = 10
    filters: Optional[dict[str, Any]] = None


class LabelIn(_Body):
    domain: Annotated[str, Field(min_length=1, max_length=64)]
    topic: Optional[Annotated[str, Field(max_length=128)]] = None
    intent: Optional[Annotated[str, Field(max_length=128)]] = None
    score: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    primary: bool = False


class UpdateRequest(_Body):
    """Replace a memory's text (the old text stays in its history) and/or its labels (kept as hand-set)."""

    text: Optional[Annotated[str, Field(min_length=1)]] = None
    reason: Optional[Annotated[str, Field(max_length=1000)]] = None
    labels: Optional[Annotated[list[LabelIn], Field(max_length=20)]] = None


class ForgetRequest(_Body):
    """Delete every memory of a user (optionally one agent/session). ``purge`` also erases history text."""

    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    session_id: Optional[ScopeId] = None
    purge: bool = False


class GcRequest(_Body):
    """Delete expired memories (``expires_at`` passed): one user, or the whole tenant when ``user_id`` is absent.
    ``dry_run`` only counts; ``purge`` also erases their history text and PII vault rows."""

    user_id: Optional[ScopeId] = None
    dry_run: bool = False
    purge: bool = False


class AddResponse(BaseModel):
    events: list[MemoryEvent]


class EventsResponse(BaseModel):
    events: list[MemoryEvent]


class ReviewList(BaseModel):
    items: list[ReviewItem]


class MemoryList(BaseModel):
    memories: list[MemoryItem]


class SearchResponse(BaseModel):
    hits: list[Hit]


class HistoryResponse(BaseModel):
    history: list[HistoryEntry]


class CountsResponse(BaseModel):
    """Rows deleted, per table."""

    deleted: dict[str, int]


class HealthResponse(BaseModel):
    status: Literal["ok"] = "ok"


class ReadyResponse(BaseModel):
    status: Literal["ready"] = "ready"


class ErrorBody(BaseModel):
    code: str
    message: str
    details: Optional[list[dict[str, Any]]] = None


class ErrorResponse(BaseModel):
    """Every error: ``{"error": {"code": ..., "message": ...}}``."""

    error: ErrorBody


class ConsolidateRequest(_Body):
    """Consolidate one user's memories (``anchormem.consolidate``): promote, merge near-duplicates, roll old episodes
    up into summaries, demote idle ones, rebuild the per-user summary. ``dry_run`` changes nothing."""

    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    dry_run: bool = False
    episode_age_days: Annotated[float, Field(ge=0, le=36500)] = 30
    idle_days: Annotated[float, Field(ge=0, le=36500)] = 90
    merge: bool = True


class SummarizeRequest(_Body):
    """Optional JSON body of ``POST /v1/sessions/{session_id}/summarize`` (the same fields can be query
    parameters instead)."""

    user_id: ScopeId
    agent_id: Optional[ScopeId] = None


class TierRequest(_Body):
    """Archive (to cold) or restore (to warm) memories: by ``ids``, or every matching memory of ``user_id`` with
    optional ``filters``. ``reason`` goes to each memory's history."""

    ids: Optional[Annotated[list[Annotated[str, Field(min_length=1, max_length=128)]],
                            Field(min_length=1, max_length=1000)]] = None
    user_id: Optional[ScopeId] = None
    filters: Optional[dict[str, Any]] = None
    reason: Optional[Annotated[str, Field(max_length=1000)]] = None
