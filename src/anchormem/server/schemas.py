"""Request and response bodies of the REST API. Responses reuse :mod:`anchormem.types`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

from ..context.taxonomy import DOMAIN_NAMES
from ..retrieval.config import RECIPES
from ..types import Answer, Citation, HistoryEntry, Hit, MemoryEvent, MemoryItem, ReviewItem
from ..context.taxonomy import norm_tag
from .constraints import NO_NUL_PATTERN as NO_NUL
from .constraints import DateTime, Filters, Metadata, Name, QueryText, SaidAt, ScopeId, Text

__all__ = [
    "ScopeId", "MessageIn", "AddRequest", "SearchRequest", "AskRequest", "UpdateRequest", "LabelIn",
    "ForgetRequest", "AddResponse", "MemoryList", "SearchResponse", "HistoryResponse", "CountsResponse",
    "HealthResponse", "ReadyResponse", "ErrorBody", "ErrorResponse", "Answer", "MemoryItem", "ReviewList",
    "ReviewItem", "EventsResponse", "GcRequest", "ContextRequest", "ConsolidateRequest", "TierRequest",
    "SummarizeRequest", "AskResponse",
]

_TEXT_PARTS = ("text", "input_text", "output_text")  # the content part types whose text is read (chat_turn)
_OTHER_PARTS = ("image_url", "input_image", "input_audio", "audio", "file", "input_file", "refusal")
RecipeName = Literal[tuple(RECIPES)]  # type: ignore[valid-type]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TextPart(BaseModel):
    """An OpenAI-style text content part: ``{"type": "text", "text": ...}`` (also ``input_text``/``output_text``)."""

    model_config = ConfigDict(extra="allow")

    type: Literal[_TEXT_PARTS]  # type: ignore[valid-type]
    text: Text


class OtherPart(BaseModel):
    """Another OpenAI content part (image, audio, file, refusal): left out; a turn of such parts only is not
    stored."""

    model_config = ConfigDict(extra="allow")

    type: Literal[_OTHER_PARTS]  # type: ignore[valid-type]


def _contains(schema: dict, ref: str) -> None:
    schema["contains"] = {"$ref": f"#/components/schemas/{ref}"}


Parts = Annotated[list[Union[TextPart, OtherPart]], Field(min_length=1, max_length=100,
                                                           json_schema_extra=lambda s: _contains(s, "TextPart"))]


class TextTurn(_Body):
    """One conversation turn with text: ``content`` is a non-blank string, or content parts of which at least one
    is a text part (their texts joined by newlines; at most the message limit in all)."""

    role: Literal["user", "assistant", "system", "developer"] = "user"
    content: Union[Text, Parts]
    timestamp: Optional[SaidAt] = None
    name: Optional[Name] = None
    metadata: Optional[Metadata] = None
    tool_calls: Optional[list[dict[str, Any]]] = None
    function_call: Optional[dict[str, Any]] = None

    @model_validator(mode="after")
    def _has_text(self) -> "TextTurn":
        if isinstance(self.content, list) and not any(isinstance(p, TextPart) for p in self.content):
            raise ValueError("content parts need at least one text part")
        return self


class ToolStep(_Body):
    """An OpenAI-style tool step, left out (no conversation text): a ``tool``/``function`` result, or an
    assistant message with ``content`` null that only calls tools."""

    role: Literal["tool", "function", "assistant"]
    content: Optional[Union[str, list[dict[str, Any]]]] = None
    name: Optional[Name] = None
    tool_calls: Optional[Annotated[list[dict[str, Any]], Field(min_length=1)]] = None
    tool_call_id: Optional[str] = None
    function_call: Optional[dict[str, Any]] = None
    timestamp: Optional[SaidAt] = None

    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [
        {"properties": {"role": {"enum": ["tool", "function"]}}},
        {"properties": {"role": {"const": "assistant"}, "content": {"type": "null"}}, "anyOf": [
            {"required": ["tool_calls"], "properties": {"tool_calls": {"type": "array", "minItems": 1}}},
            {"required": ["function_call"], "properties": {"function_call": {"type": "object", "minProperties": 1}}}]}]})

    @model_validator(mode="after")
    def _is_tool_step(self) -> "ToolStep":
        if self.role == "assistant" and (self.content is not None or not (self.tool_calls or self.function_call)):
            raise ValueError("an assistant message needs non-blank content, or content null with tool_calls")
        return self


MessageIn = Annotated[Union[TextTurn, ToolStep], Field(union_mode="left_to_right")]


def _turns(max_items: int, *, strings: bool) -> Any:
    item = Union[Text, TextTurn, ToolStep] if strings else MessageIn

    def extra(s: dict) -> None:
        if not strings:
            _contains(s, "TextTurn")

    return Annotated[list[item], Field(min_length=1 if not strings else 0, max_length=max_items,  # type: ignore[valid-type]
                                      json_schema_extra=extra)]


def _one_text_turn(messages: Any) -> None:
    if isinstance(messages, list) and not any(isinstance(m, TextTurn) for m in messages):
        raise ValueError("at least one message must have text (every one is a tool step)")


class AddRequest(_Body):
    """``messages``: one user turn as a string, or a list of turns."""

    messages: Union[Text, _turns(1000, strings=False)]
    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    session_id: Optional[ScopeId] = None
    timestamp: Optional[SaidAt] = None
    metadata: Optional[Metadata] = None

    @field_validator("messages")
    @classmethod
    def _text(cls, messages: Any) -> Any:
        _one_text_turn(messages)
        return messages


# the conversation: a list of turns (a bare string is refused, as Memory.search refuses it)
Context = Optional[_turns(200, strings=True)]


class _QueryBody(_Body):
    """Fields shared by search and ask: the query, its scope, the current conversation, filters, as_of."""

    query: QueryText
    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    session_id: Optional[ScopeId] = None
    context: Context = None
    filters: Optional[Filters] = None
    as_of: Optional[DateTime] = None


class SearchRequest(_QueryBody):
    """Hybrid search in one user's memories. ``filters``: see the filter language in ``docs/api.md``."""

    limit: Annotated[int, Field(ge=1, le=1000)] = 5
    recipe: Optional[RecipeName] = None
    show_expired: StrictBool = False


class AskRequest(_QueryBody):
    """Answer from memory with citations, or abstain."""

    limit: Annotated[int, Field(ge=1, le=100)] = 10


class ContextRequest(_Body):
    """A prompt-ready context for the current user message ``query``: the session's summary and recent turns
    (from the session store: Redis when ``ANCHORMEM_SESSION_URL`` is set, shared by every worker) and cited
    long-term memories, within ``budget_tokens``. ``memory_limit=0`` skips long-term search. Without
    ``session_id``: a user-level block (the user's rolled-up summary, memories searched without a conversation, the
    query alone as the recent conversation)."""

    query: QueryText
    user_id: ScopeId
    session_id: Optional[ScopeId] = None
    agent_id: Optional[ScopeId] = None
    budget_tokens: Annotated[int, Field(ge=1, le=1_000_000, description=(
        "Token budget of the whole block. It must hold at least the newest user message (the query) and its "
        "section title: a smaller budget is a 400 invalid_input giving both sizes (a rule between two fields "
        "that JSON Schema cannot state)."))] = 2000
    memory_limit: Annotated[int, Field(ge=0, le=100)] = 10
    filters: Optional[Filters] = None


class LabelIn(_Body):
    """A hand-set label: a domain of the fixed taxonomy, an optional free topic and intent (stored lower-case,
    whitespace collapsed), a score in [0, 1]. In a list, at most one is ``primary`` (none: the first) and a
    (domain, topic, intent) twice is merged into one (compared after that normalisation)."""

    domain: Literal[tuple(DOMAIN_NAMES)]  # type: ignore[valid-type]
    topic: Optional[Annotated[str, Field(max_length=128, pattern=NO_NUL)]] = None
    intent: Optional[Annotated[str, Field(max_length=128, pattern=NO_NUL)]] = None
    score: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    primary: StrictBool = False


def _merge_labels(labels: Optional[list[LabelIn]]) -> Optional[list[LabelIn]]:
    """Labels naming the same (domain, topic, intent), compared as the library normalises topic and intent, are
    one label: the highest score is kept, primary if either was. Raises ValueError for two primary labels."""
    if not labels:
        return labels
    if sum(lab.primary for lab in labels) > 1:
        raise ValueError("at most one label can be primary")
    merged: dict[tuple, LabelIn] = {}
    for lab in labels:
        key = (lab.domain, norm_tag(lab.topic), norm_tag(lab.intent))
        if key in merged:
            old = merged[key]
            merged[key] = old.model_copy(update={"score": max(old.score, lab.score),
                                                 "primary": old.primary or lab.primary})
        else:
            merged[key] = lab
    return list(merged.values())


_ONE_PRIMARY = {"contains": {"properties": {"primary": {"const": True}}, "required": ["primary"]},
                "minContains": 0, "maxContains": 1}


class UpdateRequest(_Body):
    """Replace a memory's text (the old text stays in its history) and/or its labels (kept as hand-set)."""

    # text and labels are not nullable: the schema's "one of them is present" would be met by a null
    text: Text = None  # type: ignore[assignment]
    reason: Optional[Annotated[str, Field(max_length=1000, pattern=NO_NUL)]] = None
    labels: Annotated[list[LabelIn], Field(max_length=20, json_schema_extra=_ONE_PRIMARY,
                                           description="At most one primary (none: the first). Labels naming the "
                                                       "same (domain, topic, intent) are merged: the highest "
                                                       "score is kept.")] = None  # type: ignore[assignment]

    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [{"required": ["text"]},
                                                                           {"required": ["labels"]}]})

    @model_validator(mode="after")
    def _something(self) -> "UpdateRequest":
        if self.text is None and self.labels is None:
            raise ValueError("give a new text, labels, or both")
        self.labels = _merge_labels(self.labels)
        return self


class ForgetRequest(_Body):
    """Delete every memory of a user (optionally one agent/session). ``purge`` also erases history text;
    ``physical`` (with ``purge``) also rewrites PostgreSQL's tables so no purged byte stays in their data files
    (docs/privacy.md; nothing more to do on SQLite)."""

    user_id: ScopeId
    agent_id: Optional[ScopeId] = None
    session_id: Optional[ScopeId] = None
    purge: StrictBool = False
    physical: StrictBool = False

    # physical needs purge: stated in the schema (a schema-valid request is never refused for a hidden rule)
    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [
        {"properties": {"physical": {"const": False}}},
        {"required": ["purge"], "properties": {"purge": {"const": True}}}]})

    @model_validator(mode="after")
    def _physical_needs_purge(self) -> "ForgetRequest":
        if self.physical and not self.purge:
            raise ValueError("physical needs purge (only purged text is erased from the data files)")
        return self


class GcRequest(_Body):
    """Delete expired memories (``expires_at`` passed): one user, or the whole tenant when ``user_id`` is absent.
    ``dry_run`` only counts; ``purge`` also erases their history text and PII vault rows."""

    user_id: Optional[ScopeId] = None
    dry_run: StrictBool = False
    purge: StrictBool = False


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


class EnrichRequest(_Body):
    """Run the deferred enrichment (``add_many(enrich="later")``): one user's pending rows, or every user's of the
    tenant when ``user_id`` is absent; at most ``limit`` rows (absent: all)."""

    user_id: Optional[ScopeId] = None
    limit: Optional[int] = Field(default=None, ge=1)


class EnrichResponse(BaseModel):
    """``enriched``: rows settled by this call (0 for a GET); ``pending``: rows still waiting; ``counts``: what the
    enrichment wrote, by event (``ADD`` fact memories, ``SUPERSEDE``, ``retired`` provisional rows...)."""

    enriched: int = 0
    pending: int
    counts: dict[str, int] = {}


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
    dry_run: StrictBool = False
    episode_age_days: Annotated[float, Field(ge=0, le=36500)] = 30
    idle_days: Annotated[float, Field(ge=0, le=36500)] = 90
    merge: StrictBool = True


class SummarizeRequest(_Body):
    """JSON body of ``POST /v1/sessions/{session_id}/summarize``."""

    user_id: ScopeId
    agent_id: Optional[ScopeId] = None


class TierRequest(_Body):
    """Archive (to cold) or restore (to warm) memories: by ``ids``, or every matching memory of ``user_id`` with
    optional ``filters``. ``reason`` goes to each memory's history."""

    # ids and user_id are not nullable: which one is present decides (the schema's oneOf)
    ids: Annotated[list[Annotated[str, Field(min_length=1, max_length=128)]],
                   Field(min_length=1, max_length=1000)] = None  # type: ignore[assignment]
    user_id: ScopeId = None  # type: ignore[assignment]
    filters: Optional[Filters] = None
    reason: Optional[Annotated[str, Field(max_length=1000, pattern=NO_NUL)]] = None

    # exactly one of ids / user_id (oneOf: both would match both); filters only with user_id
    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "oneOf": [{"required": ["ids"]}, {"required": ["user_id"]}], "dependentRequired": {"filters": ["user_id"]}})

    @model_validator(mode="after")
    def _one_target(self) -> "TierRequest":
        given = self.model_fields_set
        if ("ids" in given) == ("user_id" in given) or ("filters" in given and "user_id" not in given):
            raise ValueError("give either ids or user_id (with optional filters), not both or neither")
        return self


class AskResponse(BaseModel):
    """The answer of ``POST /v1/ask``: its text, the cited memories and whether it abstained; ``candidates`` (the
    scored memories the answer was chosen from, as search hits) only with ``?include=candidates``."""

    text: str
    citations: list[Citation] = Field(description=(
        "The quoted memories in the order quoted, each with `note`: what the text says of its quote besides its "
        "words ('true until 2024-03', 'planned: from 2024-04-01', a pending change), null when it holds now."))
    abstained: bool
    candidates: Optional[list[Hit]] = Field(None, description="Only with ?include=candidates.")
