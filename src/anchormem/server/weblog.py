"""What the server logs and which security headers it sends: privacy-safe logs by default, a CSP on every
response, the interactive ``/docs`` page off unless asked for.

Logs: the access log line keeps the method, the route template (``/v1/memories/{id}``, never the id), the status
and the client address: no query string (user ids, filter values), no path parameter. The server's own error
lines name the exception type and the route, not its message (which may quote memory text). With
``ANCHORMEM_DEBUG_LOGS=true`` (``create_app(debug_logs=True)``) both log everything, for debugging only.

Headers: every response carries ``Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`` (JSON
needs nothing more), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``; the web inspector
sets its own stricter-for-HTML policy (:mod:`.ui_routes`). ``/docs`` (Swagger UI) is off by default because it
loads its script and stylesheet from a public CDN; ``ANCHORMEM_DOCS=true`` turns it on with a policy that admits
that CDN and the page's one inline script (by hash) only. ``/openapi.json`` is always served.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
from typing import Any

__all__ = ["API_CSP", "AccessLogFilter", "SecurityHeaders", "docs_csp", "install_access_filter", "flag"]

API_CSP = "default-src 'none'; frame-ancestors 'none'"
_BASE_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
_CDN = "https://cdn.jsdelivr.net"


def flag(value: str | None) -> bool:
    """An on/off environment setting: true/1/yes/on → True; unset, empty, false/0/no/off → False."""
    v = (value or "").strip().lower()
    if v in ("", "0", "false", "no", "off"):
        return False
    if v in ("1", "true", "yes", "on"):
        return True
    from ..errors import ConfigError

    raise ConfigError(f"expected true or false, got {value!r}")


class AccessLogFilter(logging.Filter):
    """Rewrite uvicorn's access-log record: the path becomes its route template (static segments kept, every
    other segment ``{id}``) without the query string. ``static``: the literal path segments of the app's routes."""

    def __init__(self, static: set[str]) -> None:
        super().__init__("anchormem-access")
        self.static = static

    def template(self, path: str) -> str:
        path = path.split("?", 1)[0]
        return "/".join(seg if seg in self.static or seg == "" else "{id}" for seg in path.split("/"))

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = args[:2] + (self.template(args[2]),) + args[3:]
        return True


def install_access_filter(app: Any, extra: Any = ()) -> AccessLogFilter:
    """Put one :class:`AccessLogFilter` for ``app``'s routes (and the ``extra`` literal segments, e.g. file names)
    on the ``uvicorn.access`` logger (replacing an earlier one)."""
    static: set[str] = set(extra)
    stack = list(app.routes)
    while stack:  # included routers (FastAPI keeps them nested) hold their own routes
        route = stack.pop()
        inner = getattr(route, "original_router", None) or getattr(route, "app", None)
        if hasattr(inner, "routes") and not hasattr(route, "path"):
            stack.extend(inner.routes)
        static.update(seg for seg in getattr(route, "path", "").split("/") if seg and not seg.startswith("{"))
    logger = logging.getLogger("uvicorn.access")
    for f in list(logger.filters):
        if isinstance(f, AccessLogFilter):
            logger.removeFilter(f)
    flt = AccessLogFilter(static)
    logger.addFilter(flt)
    return flt


def docs_csp(html: str) -> str:
    """The policy for the Swagger UI page ``html``: its CDN script and stylesheet, its inline script by hash."""
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode() + "'"
                      for m in re.findall(r"<script>(.*?)</script>", html, flags=re.S))
    return (f"default-src 'none'; script-src {_CDN} {hashes}; style-src {_CDN}; img-src 'self' data: "
            f"https://fastapi.tiangolo.com; connect-src 'self'; base-uri 'none'; form-action 'none'; "
            f"frame-ancestors 'none'")


class SecurityHeaders:
    """Pure ASGI middleware: add the CSP (unless the response set its own) and the nosniff/referrer headers."""

    def __init__(self, app: Any, csp: str = API_CSP) -> None:
        self.app, self.csp = app, csp.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", self.csp))
                headers.extend(h for h in _BASE_HEADERS if h[0] not in names)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
