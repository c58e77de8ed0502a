"""The FastAPI app factory.

    from anchormem.server.app import create_app
    app = create_app("memories.db", embedder="hash")        # keys in memories.db.keys.db

``create_app_from_env`` is the factory ``anchormem serve`` gives uvicorn: it reads ``ANCHORMEM_URL`` /
``ANCHORMEM_PATH``, ``ANCHORMEM_EMBEDDER``, ``ANCHORMEM_KEYS_PATH``, ``ANCHORMEM_RATE_LIMIT``,
``ANCHORMEM_RATE_BURST``, ``ANCHORMEM_RATE_LIMIT_URL``, ``ANCHORMEM_MAX_BODY_BYTES``, ``ANCHORMEM_DOCS`` and
``ANCHORMEM_DEBUG_LOGS`` (:mod:`.weblog`).
"""

from __future__ import annotations

import logging
import os
import threading
from contextlib import asynccontextmanager
from typing import Any

try:
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse, JSONResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException
except ImportError as exc:  # pragma: no cover - depends on the environment
    from ..errors import ConfigError

    raise ConfigError("the REST API needs FastAPI and uvicorn: pip install 'anchormem[server]'") from exc

from .. import __version__ as _version
from ..blas import server_default
from ..config import Settings, default_path
from ..embedders import Embedder
from ..errors import (AnchormemError, ConfigError, ConflictError, InvalidInputError, NotFoundError, PrivacyError,
                      ProviderError)
from ..memory import Memory
from ..urlcheck import check_redis_url
from .auth import AuthenticationError, PermissionDeniedError
from .keys import KeyStore, keys_path_for, open_key_store
from .ratelimit import RateLimitError, parse_rate_limit
from .ratelimit_redis import make_rate_limiter
from .constraints import PATTERN_HELP, openapi_components
from .routes import router
from .ui_routes import ASSETS as UI_ASSETS
from .ui_routes import router as ui_router
from .weblog import SecurityHeaders, docs_csp, flag, install_access_filter

__all__ = ["create_app", "create_app_from_env", "MemoryRegistry", "DEFAULT_MAX_BODY_BYTES"]

log = logging.getLogger("anchormem.server")
DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
_ENV = object()


class MemoryRegistry:
    """One :class:`Memory` per tenant, opened on first use and sharing one embedder instance."""

    def __init__(self, *, path: str | None, url: str | None, embedder: Embedder | str | None,
                 settings: Settings) -> None:
        self._path, self._url, self._settings = path, url, settings
        self._embedder = embedder
        self._by_tenant: dict[str, Memory] = {}
        self._lock = threading.Lock()

    def get(self, tenant: str) -> Memory:
        mem = self._by_tenant.get(tenant)
        if mem is not None:
            return mem
        with self._lock:
            mem = self._by_tenant.get(tenant)
            if mem is None:
                mem = Memory(self._path, url=self._url, embedder=self._embedder, tenant=tenant,
                             settings=self._settings)
                self._embedder = mem.embedder  # later tenants reuse the loaded model
                self._by_tenant[tenant] = mem
        return mem

    def ping(self) -> None:
        """Raise ProviderError unless the store answers a trivial query (and, when one is configured, the shared
        session store, e.g. Redis: a worker that cannot reach it would fail context requests)."""
        with self._lock:
            mem = next(iter(self._by_tenant.values()), None)
        if mem is None:
            mem = self.get(self._settings.tenant)
        store = mem.store
        ping = getattr(store, "ping", None)
        if callable(ping):
            ping()
        else:
            store._read("SELECT 1")
        if self._settings.session_url:
            session_ping = getattr(mem.sessions, "ping", None)  # opening it pings a Redis store once
            if callable(session_ping):
                session_ping()

    def close(self) -> None:
        with self._lock:
            mems, self._by_tenant = list(self._by_tenant.values()), {}
        for m in mems:
            try:
                m.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                log.exception("closing the store failed")



def _validator_tag(part: str) -> bool:
    """A location part that names a pydantic validator or type rather than a field: "function-after[...]",
    "list[union[...]]", "constrained-str", a model class name ("TextTurn")."""
    return "[" in part or part.startswith(("function-", "constrained-")) or (part[:1].isupper() and part.isidentifier())

def _status(exc: AnchormemError) -> int:
    if isinstance(exc, AuthenticationError):
        return 401
    if isinstance(exc, PermissionDeniedError):
        return 403
    if isinstance(exc, RateLimitError):
        return 429
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    if isinstance(exc, (InvalidInputError, PrivacyError)):
        return 400
    if isinstance(exc, ProviderError):
        return 503
    return 500


def _error(status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
           details: list[dict[str, Any]] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large", 400: "invalid_input"}


def _install_handlers(app: FastAPI, debug_logs: bool = False) -> None:
    def where(request: Request) -> str:
        """The request for a log line: its route template unless debug logging is on (a path can hold ids)."""
        if debug_logs:
            return f"{request.method} {request.url.path}"
        route = request.scope.get("route")
        return f"{request.method} {getattr(route, 'path', '(no route)')}"

    @app.exception_handler(AnchormemError)
    async def _anchormem_error(request: Request, exc: AnchormemError) -> JSONResponse:
        status = _status(exc)
        headers = None
        if status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        elif status == 429:
            headers = {"Retry-After": str(getattr(exc, "retry_after", 1))}
        if status >= 500:
            if debug_logs:
                log.error("%s failed: %s: %s", where(request), type(exc).__name__, exc)
            else:  # the message may quote what was stored
                log.error("%s failed: %s", where(request), type(exc).__name__)
        message = str(exc) if status < 500 or isinstance(exc, ProviderError) else "server configuration error"
        return _error(status, exc.code, message, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        details = []
        for e in exc.errors():
            msg = str(e.get("msg", ""))
            if e.get("type") == "value_error" and msg.startswith("Value error, "):  # pydantic's prefix
                msg = msg[len("Value error, "):]
            if e.get("type") == "string_pattern_mismatch":
                msg = PATTERN_HELP.get(str((e.get("ctx") or {}).get("pattern")), msg)
            if e.get("type") == "json_invalid":  # loc ("body", <character offset>)
                where_at = (e.get("loc") or ("body", "?"))[-1]
                msg = f"request body is not valid JSON ({(e.get('ctx') or {}).get('error', msg)} at character {where_at})"
                details.append({"loc": ["body"], "msg": msg, "type": "json_invalid"})
                continue
            # pydantic names the validators it went through ("list[union[function-after[...]]]", "TextTurn"):
            # only field names and list positions say where the error is
            loc = [str(p) for p in e.get("loc", ()) if not _validator_tag(str(p))]
            details.append({"loc": loc, "msg": msg, "type": str(e.get("type", ""))})
        # a union's failure lists one type mismatch per branch first: name the specific error instead
        specific = [d for d in details if not d["type"].endswith("_type")]
        first = (specific or details or [{"loc": [], "msg": "invalid request"}])[0]
        message = f"{'.'.join(first['loc']) or 'request'}: {first['msg']}"
        if len(details) > 1:
            message += f" (and {len(details) - 1} more)"
        return _error(422, "validation_error", message, details=details)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        cause = exc.__cause__  # FastAPI's body parser says only "There was an error parsing the body"
        if exc.status_code == 400 and isinstance(cause, UnicodeDecodeError):
            return _error(400, InvalidInputError.code, "request body is not valid UTF-8 JSON "
                          f"(bad byte at offset {cause.start})")
        if exc.status_code == 400 and isinstance(cause, RecursionError):
            return _error(400, InvalidInputError.code, "request body JSON nests too deeply")
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:  # Starlette's Allow names the first matching route's methods only
            headers = {**(headers or {}), "Allow": ", ".join(_allowed_methods(request))}
        return _error(exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"), str(exc.detail),
                      headers=headers)

    @app.exception_handler(UnicodeError)
    async def _unicode_error(request: Request, exc: UnicodeError) -> JSONResponse:
        # e.g. a lone surrogate ("\ud800" in JSON) that the database cannot encode
        return _error(400, InvalidInputError.code, "text is not valid Unicode (lone surrogate?)")

    @app.exception_handler(Exception)
    async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
        if debug_logs:
            log.exception("%s failed", where(request))
        else:  # the type and the place, not the message or the traceback's values
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            at = f"{tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}" if tb else "?"
            log.error("%s failed: %s at %s", where(request), type(exc).__name__, at)
        return _error(500, "internal_error", "internal server error")


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this request's path (for a 405's ``Allow``)."""
    from starlette.routing import Match

    methods: set[str] = set()
    stack = list(request.app.routes)
    while stack:
        route = stack.pop()
        inner = getattr(route, "original_router", None)
        if inner is not None and not hasattr(route, "path"):
            stack.extend(inner.routes)
            continue
        if getattr(route, "methods", None) and hasattr(route, "path_regex") \
                and route.path_regex.match(request.url.path):
            methods.update(route.methods)
    return sorted(methods)


class _BodyLimit:
    """Pure ASGI middleware: refuse request bodies over ``limit`` bytes with 413 and the error envelope."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = False
                if too_big:
                    await self._reject(scope, receive, send)
                    return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._reject(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, scope: dict, receive: Any, send: Any) -> None:
        resp = _error(413, "payload_too_large", f"request body over {self.limit:,} bytes")
        await resp(scope, receive, send)


def create_app(path: str | None = None, *, url: str | None = None, embedder: Embedder | str | None = None,
               keys: KeyStore | str | None = None, rate_limit: Any = _ENV, rate_burst: Any = _ENV,
               max_body_bytes: int | None = None, settings: Settings | None = None,
               rate_limit_url: Any = _ENV, docs: bool | None = None, debug_logs: bool | None = None) -> FastAPI:
    """Build the REST API app.

    path/url: the store (default: ``ANCHORMEM_URL`` / ``ANCHORMEM_PATH`` / the default file).
    embedder: an instance or a name (default: ``ANCHORMEM_EMBEDDER``).
    keys: a :class:`KeyStore`, its file or a ``postgresql://`` URL (default: ``ANCHORMEM_KEYS_PATH``, else the
    PostgreSQL store's database, else ``<store>.keys.db``).
    rate_limit: ``"20/s"``, ``"600/min:100"``, ``None``/``"off"`` (default: ``ANCHORMEM_RATE_LIMIT`` or 20/s);
    rate_burst: bucket size (default: ``ANCHORMEM_RATE_BURST`` or twice the per-second rate).
    rate_limit_url: where the buckets live: ``"memory"`` (per worker process) or a ``redis://`` URL (shared by
    every worker and host); default ``ANCHORMEM_RATE_LIMIT_URL``, else the session store's Redis
    (``ANCHORMEM_SESSION_URL``) when that is Redis, else per process (:mod:`.ratelimit_redis`).
    max_body_bytes: largest request body (default ``ANCHORMEM_MAX_BODY_BYTES`` or 4 MiB).
    docs: serve Swagger UI at ``/docs`` (default ``ANCHORMEM_DOCS`` or off: it loads from a public CDN).
    debug_logs: log query strings, path ids and error messages (default ``ANCHORMEM_DEBUG_LOGS`` or off).
    """
    s = settings or Settings()
    if path is not None and url is not None:
        raise ConfigError("give either path or url, not both")
    if path is not None:
        s = s.model_copy(update={"url": None, "path": path})
    elif url is not None:
        s = s.model_copy(update={"url": url})
    store_path = None if s.url else (s.path or default_path())
    if isinstance(keys, KeyStore):
        key_store = keys
    else:
        key_store = open_key_store(keys or keys_path_for(store_path, s.url))
    if rate_limit is _ENV:
        rate_limit = os.environ.get("ANCHORMEM_RATE_LIMIT", "20/s")
    if rate_burst is _ENV:
        rate_burst = os.environ.get("ANCHORMEM_RATE_BURST") or None
    limits = parse_rate_limit(rate_limit, rate_burst)
    if rate_limit_url is _ENV:
        rate_limit_url = os.environ.get("ANCHORMEM_RATE_LIMIT_URL") or None
    check_redis_url(s.session_url, "ANCHORMEM_SESSION_URL")  # Memory is built per tenant on first use: check now
    if s.cache:
        check_redis_url(s.cache_url, "ANCHORMEM_CACHE_URL")
    if rate_limit_url is not None:
        check_redis_url(rate_limit_url, "ANCHORMEM_RATE_LIMIT_URL")
    limiter = make_rate_limiter(limits, rate_limit_url, s.session_url)
    if max_body_bytes is None:
        try:
            max_body_bytes = int(os.environ.get("ANCHORMEM_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES))
        except ValueError:
            raise ConfigError("ANCHORMEM_MAX_BODY_BYTES must be an integer") from None
    registry = MemoryRegistry(path=None, url=None, embedder=embedder, settings=s)
    docs = flag(os.environ.get("ANCHORMEM_DOCS")) if docs is None else docs
    debug_logs = flag(os.environ.get("ANCHORMEM_DEBUG_LOGS")) if debug_logs is None else debug_logs

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        registry.close()
        if hasattr(limiter, "close"):
            limiter.close()

    app = FastAPI(title="anchormem", version=_version, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Long-term memory for LLM agents. Every /v1 route except /v1/health and /v1/ready "
                              "needs `Authorization: Bearer <API key>`; a key is bound to one tenant and a role "
                              "(reader < writer < admin). Errors: `{\"error\": {\"code\", \"message\"}}`.")
    app.state.keys = key_store
    app.state.limiter = limiter
    app.state.memories = registry
    _install_handlers(app, debug_logs)
    app.include_router(router)
    app.include_router(ui_router)  # the web inspector at /ui (static files; data calls use /v1)
    if docs:
        _add_docs(app)
    _add_components(app)
    app.add_middleware(_BodyLimit, limit=max_body_bytes)
    app.add_middleware(SecurityHeaders)
    if not debug_logs:
        install_access_filter(app, extra=UI_ASSETS)
    return app


def _add_docs(app: FastAPI) -> None:
    """Swagger UI at /docs, with a CSP that admits its CDN assets and its inline script (by hash) only."""
    page = get_swagger_ui_html(openapi_url="openapi.json", title="anchormem API")
    html = page.body.decode()
    csp = docs_csp(html)

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return HTMLResponse(html, headers={"Content-Security-Policy": csp})


def _add_components(app: FastAPI) -> None:
    """The OpenAPI document with the filter language's schemas, and the ``filters`` query parameter declared as
    JSON content (so clients and fuzzers send a JSON object in it)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = build()
        doc.setdefault("components", {}).setdefault("schemas", {}).update(openapi_components())
        for item in doc.get("paths", {}).values():
            for op in item.values():
                for param in op.get("parameters", []) if isinstance(op, dict) else []:
                    if param.get("in") == "query" and param.get("name") == "filters":
                        desc = param.get("description") or param.get("schema", {}).get("description", "")
                        param.pop("schema", None)
                        param["content"] = {"application/json": {"schema": {"$ref": "#/components/schemas/Filter"}}}
                        param["description"] = desc
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def create_app_from_env() -> FastAPI:
    """The app as configured by ``ANCHORMEM_*`` environment variables (``anchormem serve`` uses this; uvicorn calls
    it on each worker's main thread). Puts OpenBLAS on one thread unless ``OPENBLAS_NUM_THREADS`` is set
    (:func:`anchormem.blas.server_default`: searches run in the threadpool, where the per-call limit does not
    reach OpenBLAS)."""
    server_default()
    return create_app()
