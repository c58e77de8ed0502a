"""The ``/v1`` routes. Plain ``def`` handlers: FastAPI runs them in its threadpool over the synchronous core.

Every handler takes the caller's :class:`~anchormem.server.auth.Principal` and works only on the ``Memory`` of
the key's tenant, so the store layer filters every query by that tenant.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Optional

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BeforeValidator

from ..errors import ConflictError, NotFoundError
from ..memory import Memory
from ..session.context import ContextBlock
from .auth import Principal, require
from .constraints import SCOPE_ID_PATTERN, DateTime, check_filters, strict_query_bool
from .schemas import (AddRequest, AddResponse, AskRequest, AskResponse, ContextRequest, CountsResponse, ErrorResponse,
                      ForgetRequest,
                      EventsResponse, GcRequest, HealthResponse, HistoryResponse, MemoryItem, MemoryList, ReadyResponse,
                      ReviewItem, ReviewList, SearchRequest, SearchResponse, UpdateRequest)
from .schemas import ConsolidateRequest, EnrichRequest, EnrichResponse, SummarizeRequest, TierRequest
from ..consolidate import ConsolidateReport

__all__ = ["router"]

_ERR = {"model": ErrorResponse}
_AUTH = {400: _ERR, 401: _ERR, 403: _ERR, 422: _ERR, 429: _ERR, 503: _ERR}
_AUTH_404 = {**_AUTH, 404: _ERR}

def _known_query_only(request: Request) -> None:
    """Refuse query parameters the route does not declare (a typo like ``?user=alice`` on ``GET /v1/review``
    would otherwise list every user's items): a 422 naming them."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None or not request.query_params:
        return
    known = {p.alias for p in _all_query_params(dependant)}
    unknown = sorted({k for k in request.query_params.keys() if k not in known})
    if unknown:
        raise RequestValidationError([{"loc": ("query", name), "type": "extra_forbidden",
                                       "msg": "unknown query parameter"} for name in unknown])


def _all_query_params(dependant: Any) -> list[Any]:
    out, stack = [], [dependant]
    while stack:
        d = stack.pop()
        out.extend(d.query_params)
        stack.extend(d.dependencies)
    return out


router = APIRouter(prefix="/v1", dependencies=[Depends(_known_query_only)])

def _scope_query(default: Any = None) -> Any:
    """A fresh scope-id query parameter. (One shared ``Query`` object would be bound to the first
    parameter's name and make later parameters alias it: ``session_id`` was silently read as ``agent_id``.)"""
    return Query(default, min_length=1, max_length=256, pattern=SCOPE_ID_PATTERN)


#: a boolean query parameter: exactly ``true`` or ``false`` (``1``, ``yes``, ``on`` are a 422, never coerced)
Flag = Annotated[bool, BeforeValidator(strict_query_bool)]
MemoryId = Path(..., min_length=1, max_length=128, description="A memory id.")


def _mem(request: Request, who: Principal) -> Memory:
    return request.app.state.memories.get(who.tenant)


def _messages(value: Any) -> Any:
    if isinstance(value, str):
        return value
    return [m.model_dump(exclude_none=True) for m in value]


def _context(value: Any) -> Any:
    if value is None:
        return None
    return [c if isinstance(c, str) else c.model_dump(exclude_none=True) for c in value]


def _json_filters(raw: Any) -> Any:
    """The ``filters`` query parameter: a JSON object in the filter language (the schema's ``content``)."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"not valid JSON: {getattr(exc, 'msg', exc)}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"must be a JSON object, got {type(raw).__name__}")
    return check_filters(raw)


def _query_filters(raw: Optional[str]) -> Optional[dict[str, Any]]:
    try:
        return _json_filters(raw)
    except ValueError as exc:
        raise RequestValidationError([{"loc": ("query", "filters"), "msg": str(exc), "type": "value_error"}]) from None


# ----------------------------------------------------------------------------------------------- probes
@router.get("/health", response_model=HealthResponse, responses={422: _ERR}, tags=["probes"],
            summary="Liveness (no auth)")
def health() -> HealthResponse:
    return HealthResponse()


@router.get("/ready", response_model=ReadyResponse, responses={422: _ERR, 503: _ERR}, tags=["probes"],
            summary="Readiness: the store, the keys database and a shared session store answer (no auth)")
def ready(request: Request) -> Any:
    request.app.state.memories.ping()
    request.app.state.keys.ping()
    return ReadyResponse()


# ----------------------------------------------------------------------------------------------- write
@router.post("/memories", response_model=AddResponse, status_code=201, responses=_AUTH, tags=["memories"],
             summary="Remember what was said (writer)")
def add_memories(body: AddRequest, request: Request, who: Principal = Depends(require("writer"))) -> Any:
    events = _mem(request, who).add(_messages(body.messages), user_id=body.user_id, agent_id=body.agent_id,
                                    session_id=body.session_id, timestamp=body.timestamp, metadata=body.metadata)
    return AddResponse(events=events)


@router.patch("/memories/{memory_id}", response_model=MemoryItem, responses={**_AUTH_404, 409: _ERR},
              tags=["memories"],
              summary="Replace a memory's text and/or labels (writer)")
def update_memory(body: UpdateRequest, request: Request, memory_id: str = MemoryId,
                  who: Principal = Depends(require("writer"))) -> Any:
    labels = None if body.labels is None else [lab.model_dump() for lab in body.labels]
    return _mem(request, who).update(memory_id, body.text, reason=body.reason, labels=labels)


@router.delete("/memories/{memory_id}", response_model=CountsResponse, responses=_AUTH_404, tags=["memories"],
               summary="Delete one memory (writer)")
def delete_memory(request: Request, memory_id: str = MemoryId,
                  purge: Annotated[Flag, Query(description="Also erase its text from history.")] = False,
                  who: Principal = Depends(require("writer"))) -> Any:
    return CountsResponse(deleted=_mem(request, who).delete(memory_id, purge=purge))


@router.post("/forget", response_model=CountsResponse, responses=_AUTH, tags=["memories"],
             summary="Delete every memory of a user (admin)")
def forget(body: ForgetRequest, request: Request, who: Principal = Depends(require("admin"))) -> Any:
    counts = _mem(request, who).delete_all(user_id=body.user_id, agent_id=body.agent_id,
                                           session_id=body.session_id, purge=body.purge, physical=body.physical)
    return CountsResponse(deleted=counts)


# ----------------------------------------------------------------------------------------------- read
@router.get("/memories", response_model=MemoryList, responses=_AUTH, tags=["memories"],
            summary="List a user's memories, oldest first (reader)")
def list_memories(request: Request,
                  user_id: str = _scope_query(...),
                  agent_id: Optional[str] = _scope_query(), session_id: Optional[str] = _scope_query(),
                  filters: Optional[str] = Query(None, description='A JSON filter object, e.g. {"source": "user"} '
                                                            '(longer filters: POST /v1/search).'),
                  limit: int = Query(100, ge=1, le=1000), offset: int = Query(0, ge=0, le=1_000_000_000),
                  include_superseded: Flag = False, show_expired: Flag = False, by_turn: Flag = False,
                  who: Principal = Depends(require("reader"))) -> Any:
    items = _mem(request, who).get_all(user_id=user_id, agent_id=agent_id, session_id=session_id,
                                       filters=_query_filters(filters), limit=limit, offset=offset,
                                       include_superseded=include_superseded, show_expired=show_expired,
                                       by_turn=by_turn)
    return MemoryList(memories=items)


@router.get("/memories/{memory_id}", response_model=MemoryItem, responses=_AUTH_404, tags=["memories"],
            summary="One memory (reader)")
def get_memory(request: Request, memory_id: str = MemoryId, who: Principal = Depends(require("reader"))) -> Any:
    return _mem(request, who).get(memory_id)


@router.get("/memories/{memory_id}/history", response_model=HistoryResponse, responses=_AUTH_404,
            tags=["memories"], summary="Every version of a memory (reader)")
def memory_history(request: Request, memory_id: str = MemoryId,
                   who: Principal = Depends(require("reader"))) -> Any:
    return HistoryResponse(history=_mem(request, who).history(memory_id))


@router.post("/search", response_model=SearchResponse, responses=_AUTH, tags=["search"],
             summary="Hybrid search in one user's memories (reader)")
def search(body: SearchRequest, request: Request, who: Principal = Depends(require("reader"))) -> Any:
    hits = _mem(request, who).search(body.query, user_id=body.user_id, agent_id=body.agent_id,
                                     session_id=body.session_id, context=_context(body.context),
                                     filters=body.filters, limit=body.limit, as_of=body.as_of, recipe=body.recipe,
                                     show_expired=body.show_expired)
    return SearchResponse(hits=hits)


@router.post("/ask", response_model=AskResponse, responses=_AUTH, tags=["search"],
             summary="Answer from memory with citations, or abstain (reader)")
def ask(body: AskRequest, request: Request,
        include: Optional[Literal["candidates"]] = Query(
            None, description="`candidates`: also return the scored memories the answer was chosen from."),
        who: Principal = Depends(require("reader"))) -> Any:
    answer = _mem(request, who).ask(body.query, user_id=body.user_id, agent_id=body.agent_id,
                                    session_id=body.session_id, context=_context(body.context),
                                    filters=body.filters, limit=body.limit, as_of=body.as_of)
    out = {"text": answer.text, "abstained": answer.abstained,
           "citations": [c.model_dump(mode="json") for c in answer.citations]}
    if include == "candidates":
        out["candidates"] = [h.model_dump(mode="json") for h in answer.evidence]
    return JSONResponse(out)


@router.post("/context", response_model=ContextBlock, responses=_AUTH, tags=["search"],
             summary="Prompt-ready context: session summary, cited memories, recent turns, within a budget (reader)")
def context(body: ContextRequest, request: Request, who: Principal = Depends(require("reader"))) -> Any:
    return _mem(request, who).context(user_id=body.user_id, session_id=body.session_id, query=body.query,
                                      budget_tokens=body.budget_tokens, agent_id=body.agent_id,
                                      memory_limit=body.memory_limit, filters=body.filters)


@router.get("/export", response_model=dict[str, Any], responses=_AUTH, tags=["memories"],
            summary="Everything stored for a user, as anchormem.export/1 JSON (reader)")
def export(request: Request, user_id: str = _scope_query(...),
           who: Principal = Depends(require("reader"))) -> dict[str, Any]:
    return _mem(request, who).export(user_id=user_id)


# ----------------------------------------------------------------------------------------------- review queue
ReviewId = Path(..., min_length=1, max_length=128, description="A review item id.")


@router.get("/review", response_model=ReviewList, responses=_AUTH, tags=["review"],
            summary="Changes held for review: conflicting or sensitive facts (reader)")
def list_reviews(request: Request, user_id: Optional[str] = _scope_query(),
                 status: Optional[Literal["pending", "approved", "rejected", "all"]] = Query("pending"),
                 who: Principal = Depends(require("reader"))) -> Any:
    items = _mem(request, who).review_queue(user_id=user_id, status=status)
    return ReviewList(items=items)


@router.post("/review/{review_id}/approve", response_model=EventsResponse, responses={**_AUTH_404, 409: _ERR},
             tags=["review"], summary="Apply a held change (writer)")
def approve_review(request: Request, review_id: str = ReviewId,
                   who: Principal = Depends(require("writer"))) -> Any:
    return EventsResponse(events=_mem(request, who).approve(review_id, actor=f"api:{who.key_id}"))


@router.post("/review/{review_id}/reject", response_model=ReviewItem, responses={**_AUTH_404, 409: _ERR},
             tags=["review"], summary="Drop a held change (writer)")
def reject_review(request: Request, review_id: str = ReviewId,
                  who: Principal = Depends(require("writer"))) -> Any:
    return _mem(request, who).reject(review_id, actor=f"api:{who.key_id}")


# ----------------------------------------------------------------------------------------------- commitments
@router.get("/due", response_model=MemoryList, responses=_AUTH, tags=["commitments"],
            summary="Open commitments, decisions and todos of a user, soonest due first (reader)")
def list_due(request: Request, user_id: str = _scope_query(...),
             agent_id: Optional[str] = _scope_query(),
             before: Annotated[Optional[DateTime], Query(description="Only those due before this RFC 3339 time.")] = None,
             include_undated: Flag = True, who: Principal = Depends(require("reader"))) -> Any:
    return MemoryList(memories=_mem(request, who).due(user_id=user_id, agent_id=agent_id, before=before,
                                                      include_undated=include_undated))


@router.post("/memories/{memory_id}/complete", response_model=MemoryItem, responses={**_AUTH_404, 409: _ERR},
             tags=["commitments"], summary="Mark a commitment done (writer)")
def complete_commitment(request: Request, memory_id: str = MemoryId,
                        who: Principal = Depends(require("writer"))) -> Any:
    mem = _mem(request, who)
    item = mem.get(memory_id)
    if item.kind != "commitment":  # the memory's state, not the request's shape: a conflict
        raise ConflictError(f"memory {memory_id!r} is a {item.kind}, not a commitment")
    return mem.complete(memory_id)


# ----------------------------------------------------------------------------------------------- lifecycle
@router.post("/sessions/{session_id}/summarize", response_model=MemoryItem, responses=_AUTH_404,
             tags=["memories"], summary="Write the session's structured summary now, e.g. at session end (writer)")
def summarize_session(body: SummarizeRequest, request: Request,
                      session_id: str = Path(..., min_length=1, max_length=256, pattern=SCOPE_ID_PATTERN),
                      who: Principal = Depends(require("writer"))) -> Any:
    user_id, agent_id = body.user_id, body.agent_id
    item = _mem(request, who).summarize(user_id=user_id, session_id=session_id, agent_id=agent_id)
    if item is None:
        raise NotFoundError(f"session {session_id!r} of user {user_id!r} has nothing to summarise")
    return item


@router.post("/gc", response_model=CountsResponse, responses=_AUTH, tags=["memories"],
             summary="Delete expired memories of one user or the whole tenant (admin)")
def gc(body: GcRequest, request: Request, who: Principal = Depends(require("admin"))) -> Any:
    return CountsResponse(deleted=_mem(request, who).gc(user_id=body.user_id, dry_run=body.dry_run,
                                                        purge=body.purge))


@router.get("/enrich", response_model=EnrichResponse, responses=_AUTH, tags=["memories"],
            summary="Rows whose deferred enrichment is pending: one user's, or the tenant's")
def enrich_pending(request: Request, user_id: Optional[str] = _scope_query(),
                   who: Principal = Depends(require("reader"))) -> Any:
    return EnrichResponse(pending=_mem(request, who).pending(user_id))


@router.post("/enrich", response_model=EnrichResponse, responses=_AUTH, tags=["memories"],
             summary="Run the deferred enrichment of one user's or every user's pending rows (admin)")
def enrich(body: EnrichRequest, request: Request, who: Principal = Depends(require("admin"))) -> Any:
    got = _mem(request, who).enrich(body.user_id, limit=body.limit)
    pending, done = got.pop("pending"), got.pop("enriched")
    return EnrichResponse(enriched=done, pending=pending, counts=got)


@router.post("/consolidate", response_model=ConsolidateReport, responses=_AUTH, tags=["memories"],
             summary="Consolidate one user's memories: merge, roll up, archive, summarise (admin)")
def consolidate(body: ConsolidateRequest, request: Request, who: Principal = Depends(require("admin"))) -> Any:
    return _mem(request, who).consolidate(user_id=body.user_id, agent_id=body.agent_id, dry_run=body.dry_run,
                                          episode_age_days=body.episode_age_days, idle_days=body.idle_days,
                                          merge=body.merge)


@router.post("/archive", response_model=MemoryList, responses=_AUTH_404, tags=["memories"],
             summary="Move memories to the cold tier (writer)")
def archive(body: TierRequest, request: Request, who: Principal = Depends(require("writer"))) -> Any:
    return MemoryList(memories=_mem(request, who).archive(body.ids, user_id=body.user_id, filters=body.filters,
                                                          reason=body.reason))


@router.post("/restore", response_model=MemoryList, responses=_AUTH_404, tags=["memories"],
             summary="Move archived memories back to the warm tier (writer)")
def restore(body: TierRequest, request: Request, who: Principal = Depends(require("writer"))) -> Any:
    return MemoryList(memories=_mem(request, who).restore(body.ids, user_id=body.user_id, filters=body.filters,
                                                          reason=body.reason))
