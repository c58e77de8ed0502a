"""Opt-in OpenTelemetry tracing: one span per public call, child spans per stage.

Off by default, and anchormem never exports anything itself: with ``Memory(tracing=True)`` (or
``ANCHORMEM_TRACING=true``) each ``add`` / ``search`` / ``ask`` / ``context`` / ``summarize`` call opens a span
``anchormem.<call>`` on the tracer provider *your application* configured (``opentelemetry.trace.
set_tracer_provider``); with no provider configured, the OpenTelemetry API makes them no-ops. Needs
``pip install 'anchormem[otel]'`` (``opentelemetry-api``); ``tracing=True`` without it raises ConfigError.

Stages (child spans, only inside a traced call): ``anchormem.embed`` (model calls, with ``anchormem.texts``),
``anchormem.candidates`` (dense + BM25 candidate lists), ``anchormem.fuse``, ``anchormem.load`` (candidate rows),
``anchormem.anchor`` (context anchoring), ``anchormem.extract`` (facts and reconciliation),
``anchormem.label``, ``anchormem.write``, ``anchormem.evidence`` (ask's evidence test), ``anchormem.llm`` (one
chat completion: ``gen_ai.request.model``, ``gen_ai.usage.input_tokens`` / ``output_tokens`` when the server
reports usage).

Attributes are counts, sizes, names and settings only (``anchormem.limit``, ``anchormem.hits``,
``anchormem.recipe``, ``anchormem.query_chars``...): never memory text, queries, user ids or metadata values. A
failing call's span gets status ERROR and ``error.type`` (the exception class), not the message, which may quote
input.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from .errors import ConfigError

__all__ = ["traced", "stage", "staged", "set_attrs", "record_llm_usage", "check_available", "summarize_result", "describe_query",
           "describe_add"]

F = TypeVar("F", bound=Callable[..., Any])

_ACTIVE: ContextVar[bool] = ContextVar("anchormem_tracing_active", default=False)
_TRACER: Any = None


def check_available() -> None:
    """Raises ConfigError when ``opentelemetry-api`` is not installed."""
    try:
        import opentelemetry.trace  # noqa: F401
    except ImportError as exc:
        raise ConfigError("tracing=True needs OpenTelemetry: pip install 'anchormem[otel]' "
                          "(from a checkout: pip install -e '.[otel]')") from exc


def _tracer() -> Any:
    global _TRACER
    if _TRACER is None:
        from opentelemetry import trace

        from . import __version__
        _TRACER = trace.get_tracer("anchormem", __version__)
    return _TRACER


def _clean(attrs: dict[str, Any]) -> dict[str, Any]:
    """Only OpenTelemetry-valid scalar values; None dropped."""
    return {k: v for k, v in attrs.items() if isinstance(v, (bool, int, float, str))}


@contextmanager
def stage(name: str, **attrs: Any) -> Iterator[Any]:
    """A child span ``anchormem.<name>`` when a traced call is running in this context, else nothing (a context
    variable read: cheap enough for hot paths). Yields the span (or None) so a stage can add counts
    (``span.set_attribute``) once it knows them; use :func:`set_attrs` for that."""
    if not _ACTIVE.get():
        yield None
        return
    with _tracer().start_as_current_span(f"anchormem.{name}", attributes=_clean(attrs),
                                         record_exception=False, set_status_on_exception=False) as span:
        try:
            yield span
        except BaseException as exc:
            _fail(span, exc)
            raise


def staged(name: str) -> Callable[[F], F]:
    """Decorator form of :func:`stage` for a whole function (a stage of a traced call)."""
    def deco(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not _ACTIVE.get():
                return fn(*args, **kwargs)
            with stage(name):
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
    return deco


def set_attrs(span: Any, **attrs: Any) -> None:
    """Set attributes on a span :func:`stage` yielded (no-op for None)."""
    if span is not None:
        span.set_attributes(_clean(attrs))


def record_llm_usage(model: str, data: Any) -> None:
    """On the current ``anchormem.llm`` span: the model name and the token counts of an OpenAI-style response
    body (``usage.prompt_tokens`` / ``completion_tokens``). No-op outside a traced call."""
    if not _ACTIVE.get():
        return
    from opentelemetry import trace

    usage = data.get("usage") if isinstance(data, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    trace.get_current_span().set_attributes(_clean({
        "gen_ai.request.model": model, "gen_ai.usage.input_tokens": usage.get("prompt_tokens"),
        "gen_ai.usage.output_tokens": usage.get("completion_tokens")}))


def _fail(span: Any, exc: BaseException) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", type(exc).__name__)
    span.set_status(Status(StatusCode.ERROR, type(exc).__name__))


def summarize_result(result: Any) -> dict[str, Any]:
    """Counts that describe a call's result without its content: hits, events per kind, citations."""
    from .types import Answer

    if isinstance(result, list):
        out: dict[str, Any] = {"anchormem.results": len(result)}
        events = [getattr(r, "event", None) for r in result]
        for ev in sorted({e for e in events if isinstance(e, str)}):
            out[f"anchormem.events.{ev.lower()}"] = events.count(ev)
        return out
    if isinstance(result, Answer):
        return {"anchormem.abstained": result.abstained, "anchormem.citations": len(result.citations)}
    used = getattr(result, "used_tokens", None)
    if isinstance(used, int):
        return {"anchormem.used_tokens": used, "anchormem.memories": len(getattr(result, "memory_ids", []) or [])}
    return {}


def traced(call: str, describe: Callable[..., dict[str, Any]] | None = None) -> Callable[[F], F]:
    """Decorate a public ``Memory`` method: when ``self.settings.tracing`` is on, the call runs in a span
    ``anchormem.<call>`` with the attributes ``describe(*args, **kwargs)`` returns (sizes and settings, never
    content) and :func:`summarize_result` of its result; stages inside get child spans."""
    def deco(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not self.settings.tracing:
                return fn(self, *args, **kwargs)
            attrs = {"anchormem.call": call, **(describe(*args, **kwargs) if describe else {})}
            token = _ACTIVE.set(True)
            try:
                with _tracer().start_as_current_span(f"anchormem.{call}", attributes=_clean(attrs),
                                                     record_exception=False,
                                                     set_status_on_exception=False) as span:
                    try:
                        result = fn(self, *args, **kwargs)
                    except BaseException as exc:
                        _fail(span, exc)
                        raise
                    span.set_attributes(_clean(summarize_result(result)))
                    return result
            finally:
                _ACTIVE.reset(token)
        return wrapper  # type: ignore[return-value]
    return deco


def describe_query(query: Any = None, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Span attributes of a search-like call: the query's length, limit, recipe name, whether a conversation and
    ``as_of`` were given (not the query itself)."""
    recipe = kwargs.get("recipe")
    ctx = kwargs.get("context")
    return {"anchormem.query_chars": len(query) if isinstance(query, str) else None,
            "anchormem.limit": kwargs.get("limit"),
            "anchormem.recipe": recipe if isinstance(recipe, str) else getattr(recipe, "name", None),
            "anchormem.with_context": ctx is not None and ctx != [],
            "anchormem.as_of": kwargs.get("as_of") is not None}


def describe_add(messages: Any = None, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Span attributes of ``add``: how many messages and characters (not their text)."""
    if isinstance(messages, str):
        return {"anchormem.messages": 1, "anchormem.chars": len(messages)}
    if isinstance(messages, list):
        return {"anchormem.messages": len(messages)}
    return {}
