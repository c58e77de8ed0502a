"""The MCP server: anchormem's memory as Model Context Protocol tools, over stdio or streamable HTTP.

Built on the official MCP Python SDK (``pip install 'anchormem[mcp]'``, SDK 2.x, whose ``MCPServer`` is the
former ``FastMCP``). Importing this module imports the SDK; ``import anchormem`` does not import this module.

Tools (each tool's input and output JSON schemas are generated from the signatures and models below):

- ``add_memory(text | messages, user_id, session_id?, agent_id?, timestamp?, metadata?)`` -> ``{"events": [...]}``
- ``search_memories(query, user_id, limit?, filters?, context?, session_id?, agent_id?)`` -> ``{"hits": [...]}``
- ``ask_memory(query, user_id, filters?, context?, session_id?, agent_id?)`` -> ``{"answer", "abstained",
  "citations"}`` (citations quote stored memories verbatim, with their ids)
- ``forget_memories(user_id, memory_id?, session_id?, agent_id?, purge?, physical?)`` -> ``{"memories_deleted", "deleted"}``
- ``get_memory(memory_id, user_id)``, ``memory_history(memory_id, user_id)``

Every :class:`~anchormem.errors.AnchormemError` a tool raises reaches the client as an MCP tool error
(``isError: true``) whose text is ``"<code>: <message>"``, e.g. ``"invalid_filter: unknown filter key ..."``;
the server keeps serving. Calls by memory id check that the memory belongs to ``user_id`` (``not_found`` if not).
There is no authentication: ``user_id`` is a namespace, not a credential. Keep the HTTP transport on loopback,
or pin the server to one user (``default_user_id``) so that no call can reach another user's memories.
"""

import functools
import inspect
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StrictBool, ValidationError

from .errors import AnchormemError, ConfigError, InvalidInputError, NotFoundError, ScopeError
from .ingest.normalize import check_scope_id
from .memory import Memory
from .types import Claim, Label, MemoryItem

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations
except ImportError as _exc:  # pragma: no cover - exercised by the CLI test in a subprocess
    raise ConfigError("the MCP server needs the MCP Python SDK 2.x: pip install 'anchormem[mcp]'") from _exc

__all__ = ["SERVER_NAME", "create_mcp_server"]

SERVER_NAME = "anchormem"
INSTRUCTIONS = (
    "Long-term memory for this user. Call search_memories or ask_memory before answering questions about the "
    "user's past, preferences or plans; call add_memory with what the user tells you that is worth remembering. "
    "ask_memory only quotes stored memories (with ids) or abstains; never claim a memory it did not return."
)

# ------------------------------------------------------------------------------------------ argument types
UserId = Annotated[str, Field(min_length=1, max_length=256, description="Whose memories: a stable id of the user.")]
PinnedUserId = Annotated[str | None, Field(max_length=256, description=(
    "Whose memories. This server is pinned to one user; omit this (or pass that same id)."))]
SessionId = Annotated[str | None, Field(max_length=256, description="Narrow to one conversation/session id.")]
AgentId = Annotated[str | None, Field(max_length=256, description="Narrow to one agent id.")]
Filters = Annotated[dict[str, Any] | None, Field(description=(
    'Filter, a JSON object; keys are ANDed, a value is a literal (equality) or an operator object. Examples: '
    '{"source": "user"}, {"created_at": {"gte": "2025-01-01T00:00:00Z"}}, {"metadata.channel": {"in": ["app"]}}, '
    '{"OR": [...]}, {"NOT": {...}}. Fields: agent_id, session_id, role, source, kind, speaker, created_at, '
    "updated_at, event_time, valid_from, valid_to, expires_at, confidence, access_count, label.domain, "
    "label.topic, label.intent, entity.type, entity.value, metadata.<key> (a bare key is a metadata key). "
    "Operators: eq, ne, gt, gte, lt, lte, in, nin, exists, contains. An unknown key or operator is an error."))]
Context = Annotated[list[str] | None, Field(max_length=50, description=(
    "The last few turns of the current conversation (plain strings, oldest first); used to disambiguate the "
    "query. Optional."))]
MemoryId = Annotated[str, Field(min_length=1, max_length=128, description="A memory id returned by another tool.")]


class ChatMessage(BaseModel):
    """One conversation turn to remember."""

    role: Literal["user", "assistant", "system"] = Field("user", description=(
        "Who said it. User turns become memories; assistant turns are kept as context, never as user facts; "
        "system turns are skipped."))
    content: str = Field(description="What was said, verbatim (any language).")
    timestamp: str | None = Field(None, description="When it was said, ISO-8601 (default: the call's timestamp).")
    name: str | None = Field(None, description="The speaker's display name, optional.")


# ------------------------------------------------------------------------------------------ results
class MemoryOut(BaseModel):
    """A stored memory, as tools return it."""

    id: str
    text: str = Field(description="The memory text, verbatim as it was said.")
    user_id: str
    session_id: str | None = None
    agent_id: str | None = None
    kind: str = Field(description="utterance, question or assistant.")
    source: str = Field(description="Whose claim it is: user or assistant.")
    speaker: str | None = None
    created_at: datetime = Field(description="When it was said (UTC).")
    event_time: datetime | None = Field(None, description="When the content happened, if a date was resolved.")
    labels: list[Label] = Field(default_factory=list, description="Context labels (domain, topic, intent).")
    metadata: dict[str, Any] = Field(default_factory=dict)
    current: bool = Field(True, description="False when it does not hold now: superseded (valid_to passed) or "
                                             "scheduled (valid_from still ahead).")
    state: str = Field("current", description="current | partly_superseded (current for its other content, some "
                                              "claims superseded) | superseded | scheduled (said for a date still "
                                              "ahead: holds from valid_from; what it replaces is current until then).")
    valid_from: datetime | None = Field(None, description="When it holds from (UTC): after created_at for a value "
                                                          "said for a later date.")
    valid_to: datetime | None = Field(None, description="When it stops holding (UTC), if it does; a time ahead "
                                                        "when a scheduled value replaces it.")
    claims: list[Claim] = Field(default_factory=list, description="The slot facts it carries, each with its own "
                                                                  "validity (valid_to set: superseded).")

    @classmethod
    def of(cls, m: MemoryItem) -> "MemoryOut":
        return cls(id=m.id, text=m.text, user_id=m.user_id, session_id=m.session_id, agent_id=m.agent_id,
                   kind=m.kind, source=m.source, speaker=m.speaker, created_at=m.created_at,
                   event_time=m.event_time, labels=m.labels, metadata=m.metadata, current=m.current,
                   state=m.state, valid_from=m.valid_from, valid_to=m.valid_to, claims=m.claims)


class EventOut(BaseModel):
    event: str = Field(description="ADD (new memory), ADD_SUPERSEDED (new, but said before a newer value: stored "
                                   "as past), NOOP (an identical memory already existed), SUPERSEDE (a memory no "
                                   "longer current), REVIEW (held for review) or SKIP (nothing kept from the turn: "
                                   "see reason; the memory is the turn, not stored).")
    memory: MemoryOut
    reason: str | None = Field(None, description="Why a turn was skipped (SKIP), e.g. \"chit-chat: nothing to "
                                                     "remember\".")


class AddResult(BaseModel):
    events: list[EventOut] = Field(description="One event per memory written or touched; when nothing was worth "
                                               "keeping, one SKIP event per turn with its reason (never []).")


class HitOut(MemoryOut):
    score: float = Field(description="Relevance, higher is better (comparable within one search only).")


class SearchResult(BaseModel):
    hits: list[HitOut] = Field(description="Best first; [] when nothing matches.")


class Citation(BaseModel):
    id: str = Field(description="The cited memory's id.")
    quote: str = Field(description="The memory text, verbatim.")
    speaker: str = Field(description="Who said it.")
    date: str = Field(description="The day it was said, YYYY-MM-DD (UTC).")
    created_at: datetime
    source: str
    note: str | None = Field(None, description=(
        "What the answer says of this quote besides its words: 'true until 2024-03' (no longer holds), 'planned: "
        "from 2024-04-01' (scheduled), 'an earlier statement, before …', a pending change; null when it holds now."))


class AskResult(BaseModel):
    answer: str = Field(description="Quotes of the cited memories, or a plain 'no record' sentence.")
    abstained: bool = Field(description="True when no stored memory supports an answer; citations is then [].")
    citations: list[Citation]


class ForgetResult(BaseModel):
    memories_deleted: int = Field(description="How many memories were deleted.")
    deleted: dict[str, int] = Field(description="Rows deleted or erased per table.")


class HistoryEntryOut(BaseModel):
    version: int
    event: str = Field(description="ADD, UPDATE, SUPERSEDE, DELETE, NOOP (restated; reason names the turn now "
                                   "cited), MERGE, ARCHIVE, RESTORE…")
    old_text: str | None = None
    new_text: str | None = None
    reason: str | None = None
    created_at: datetime


class HistoryResult(BaseModel):
    memory_id: str
    history: list[HistoryEntryOut] = Field(description="Oldest first.")


# ------------------------------------------------------------------------------------------ the server
def _day(mem: Any, dt: Any) -> str:
    """``dt``'s calendar day on the memory's users' calendar (``Config.timezone``; UTC when unset)."""
    from .timeutil import day_of, in_calendar

    with in_calendar(getattr(mem, "_calendar", None)):
        return day_of(dt)


def _who(m: MemoryItem) -> str:
    return m.speaker or ("assistant" if m.source == "assistant" else "user")


def _tool_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Re-raise AnchormemError as the SDK's ToolError: the client gets ``isError`` with ``code: message``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AnchormemError as exc:
            raise ToolError(f"{exc.code}: {exc}") from exc

    return wrapper


def _argument_errors(exc: ValidationError) -> str:
    """A tool's argument-validation failure as one readable line per field, in the library's error form:
    ``invalid_input: limit: Input should be greater than or equal to 1 (got 0); role: ...``."""
    errors = exc.errors(include_url=False)
    # a union argument (messages: a string or a list of turns) fails once per branch: the branch whose shape the
    # value has names the error; the other branches' type mismatches ("Input should be a valid string") say nothing
    def mismatch(e: Any) -> bool:
        return str(e.get("type", "")).endswith("_type")

    field_of = [str((e.get("loc") or ("",))[0]) for e in errors]
    named = {f for f, e in zip(field_of, errors) if not mismatch(e)}
    parts = []
    for f, err in zip(field_of, errors):
        if mismatch(err) and f in named:
            continue
        loc = [str(p) for p in err.get("loc", ()) if not _branch_tag(str(p))]
        where = ".".join(loc) or "arguments"
        got = "" if err.get("type") == "missing" else f" (got {err.get('input')!r})"
        parts.append(f"{where}: {err.get('msg', 'invalid')}{got}")
    return f"{InvalidInputError.code}: " + "; ".join(parts)


def _branch_tag(part: str) -> bool:
    """A location part naming a union's branch rather than a field: "str", "list[ChatMessage]"."""
    return "[" in part or part in ("str", "int", "float", "bool", "dict", "list", "none")


class _Server(MCPServer):
    """The SDK's server, with argument-validation errors reported as the library's ``invalid_input`` (a field
    name, what was wrong, the value given) rather than pydantic's multi-line text with a documentation link, and
    unknown arguments refused (the SDK drops them)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        known = set((tool.parameters or {}).get("properties", {})) if tool is not None else set()
        unknown = sorted(set(arguments or {}) - known) if tool is not None else []
        if unknown:  # the SDK ignores them; a misspelt argument would silently do nothing (REST refuses them too)
            raise ToolError(f"Error executing tool {name}: {InvalidInputError.code}: unknown argument(s) "
                            f"{', '.join(map(repr, unknown))}; arguments: {', '.join(sorted(known))}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {_argument_errors(exc.__cause__)}") from exc.__cause__
            raise


def _pin_user(fn: Callable[..., Any], pinned: bool) -> Callable[..., Any]:
    """Make ``user_id`` optional in the published schema when the server is pinned to one user."""
    if not pinned:
        return fn
    sig = inspect.signature(fn, eval_str=True)
    params = [p.replace(annotation=PinnedUserId, default=None) if p.name == "user_id" else p
              for p in sig.parameters.values()]
    # Parameters without defaults must come first; every other parameter of these tools has a default.
    params.sort(key=lambda p: p.default is not inspect.Parameter.empty)
    fn.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return fn


def create_mcp_server(memory: Memory | None = None, *, path: str | None = None, url: str | None = None,
                      embedder: Any = None, default_user_id: str | None = None,
                      log_level: str = "WARNING") -> MCPServer:
    """Build the anchormem MCP server.

    memory: the :class:`Memory` to serve (the caller keeps ownership and closes it). When None, one is opened
    from ``path``/``url``/``embedder`` (the same arguments as :class:`Memory`; default: ``ANCHORMEM_*``
    settings) and lives as long as the process. default_user_id: pin the server to one user: ``user_id``
    becomes optional in every tool, and a call naming another user fails with ``invalid_scope``.
    log_level: the SDK's log level (its logs go to stderr). Returns an ``mcp.server.mcpserver.MCPServer``;
    run it with ``.run("stdio")`` or ``.run("streamable-http", host=..., port=...)`` (path ``/mcp``).

    Raises ConfigError (missing SDK, bad settings), StoreError, EmbedderMismatchError (opening the store),
    ScopeError (an empty or over-long ``default_user_id``).
    """
    mem = memory if memory is not None else Memory(path, url=url, embedder=embedder)
    pinned = None if default_user_id is None else check_scope_id(default_user_id, "default_user_id", required=True)
    server = _Server(SERVER_NAME, instructions=INSTRUCTIONS, log_level=log_level)  # type: ignore[arg-type]

    def user(user_id: str | None) -> str:
        if pinned is None:
            return user_id  # type: ignore[return-value]  # required by the schema; Memory validates it
        if user_id not in (None, "", pinned):
            raise ScopeError(f"this server is pinned to user {pinned!r}; user_id {user_id!r} is not allowed")
        return pinned

    def owned(memory_id: str, user_id: str | None) -> MemoryItem:
        item = mem.get(memory_id)
        if item.user_id != user(user_id):
            raise NotFoundError(f"no memory {memory_id!r}")  # another user's id looks like a missing one
        return item

    def tool(**kw: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            server.add_tool(_pin_user(_tool_errors(fn), pinned is not None), **kw)
            return fn
        return register

    @tool(title="Remember", annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def add_memory(
        user_id: UserId,
        text: Annotated[str | None, Field(description="One user turn to remember, verbatim. Give this or "
                                                      "messages.")] = None,
        messages: Annotated[str | list[ChatMessage] | None, Field(
            description="Conversation turns to remember, oldest first (a string is one user turn, as in the "
                        "library and REST). Give this or text.")] = None,
        session_id: SessionId = None,
        agent_id: AgentId = None,
        timestamp: Annotated[str | None, Field(description="When it was said, ISO-8601; relative dates ('last "
                                                           "week', '上周三') resolve against it. Default: now.")] = None,
        metadata: Annotated[dict[str, str | int | float | bool | None] | None, Field(
            description="Flat key/value metadata stored with each memory, filterable as metadata.<key>.")] = None,
    ) -> AddResult:
        """Store what the user said, verbatim, with its time and provenance. Chit-chat and system turns are
        skipped (when nothing else is written: one SKIP event per turn, with its reason); an identical existing
        memory is not duplicated (event NOOP). Returns the write events."""
        if (text is None) == (messages is None):
            raise InvalidInputError("give exactly one of text or messages")
        payload: Any = text if text is not None else messages if isinstance(messages, str) else \
            [m.model_dump(exclude_none=True) for m in messages or []]
        events = mem.add(payload, user_id=user(user_id), session_id=session_id, agent_id=agent_id,
                         timestamp=timestamp, metadata=metadata)
        return AddResult(events=[EventOut(event=e.event, memory=MemoryOut.of(e.memory), reason=e.reason)
                                 for e in events])

    @tool(title="Search memories", annotations=ToolAnnotations(read_only_hint=True))
    def search_memories(
        query: Annotated[str, Field(description="What to look for, in any language (Chinese, English, mixed).")],
        user_id: UserId,
        limit: Annotated[int, Field(ge=1, le=100, description="Most hits to return.")] = 5,
        filters: Filters = None,
        context: Context = None,
        session_id: SessionId = None,
        agent_id: AgentId = None,
    ) -> SearchResult:
        """Hybrid (semantic + keyword) search in one user's memories. Returns hits best first, each with the
        memory id, verbatim text, score, source, created_at and context labels."""
        hits = mem.search(query, user_id=user(user_id), session_id=session_id, agent_id=agent_id,
                          context=context, filters=filters, limit=limit)
        return SearchResult(hits=[HitOut(**MemoryOut.of(h.memory).model_dump(), score=h.score) for h in hits])

    @tool(title="Ask memory", annotations=ToolAnnotations(read_only_hint=True))
    def ask_memory(
        query: Annotated[str, Field(description="A question about the user's past, in any language (the same "
                                                "name as search_memories and the library's ask).")],
        user_id: UserId,
        filters: Filters = None,
        context: Context = None,
        session_id: SessionId = None,
        agent_id: AgentId = None,
    ) -> AskResult:
        """Answer from memory only: quotes the 1-3 stored memories that answer the question (with ids, speaker
        and date), or abstains (abstained=true, no citations) when nothing stored supports an answer."""
        ans = mem.ask(query, user_id=user(user_id), session_id=session_id, agent_id=agent_id,
                      context=context, filters=filters)
        return AskResult(answer=ans.text, abstained=ans.abstained, citations=[
            Citation(id=m.id, quote=m.text, speaker=_who(m), date=_day(mem, m.created_at),
                     created_at=m.created_at, source=m.source, note=m.note) for m in ans.citations])

    @tool(title="Forget", annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
    def forget_memories(
        user_id: UserId,
        memory_id: Annotated[str | None, Field(max_length=128, description=(
            "Forget only this memory. Omit to forget all of the user's memories (narrowed by session_id / "
            "agent_id if given)."))] = None,
        session_id: SessionId = None,
        agent_id: AgentId = None,
        purge: Annotated[StrictBool, Field(description="Also erase the text from the edit history.")] = False,
        physical: Annotated[StrictBool, Field(description=(
            "With purge, for all of a user's memories: also rewrite PostgreSQL's tables so no purged byte stays in "
            "their data files."))] = False,
    ) -> ForgetResult:
        """Delete one memory, or every memory of the user (or of one session/agent). Returns counts."""
        if memory_id is not None:
            if session_id is not None or agent_id is not None:
                    raise InvalidInputError("give memory_id or session_id/agent_id, not both")
            owned(memory_id, user_id)
            if physical:
                raise InvalidInputError("physical applies to forgetting all of a user's (or a session's) memories")
            counts = mem.delete(memory_id, purge=purge)
        else:
            counts = mem.delete_all(user_id=user(user_id), session_id=session_id, agent_id=agent_id, purge=purge,
                                    physical=physical)
        return ForgetResult(memories_deleted=counts.get("memories", 0), deleted=counts)

    @tool(title="Get memory", annotations=ToolAnnotations(read_only_hint=True))
    def get_memory(memory_id: MemoryId, user_id: UserId) -> MemoryOut:
        """One memory by id (it must belong to user_id)."""
        return MemoryOut.of(owned(memory_id, user_id))

    @tool(title="Memory history", annotations=ToolAnnotations(read_only_hint=True))
    def memory_history(memory_id: MemoryId, user_id: UserId) -> HistoryResult:
        """Every version of a memory, oldest first: ADD, UPDATE (with the old text), DELETE."""
        owned(memory_id, user_id)
        return HistoryResult(memory_id=memory_id, history=[
            HistoryEntryOut(version=h.version, event=h.event, old_text=h.old_text, new_text=h.new_text,
                            reason=h.reason, created_at=h.created_at) for h in mem.history(memory_id)])

    return server
