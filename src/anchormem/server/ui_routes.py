"""The web inspector: static files served at ``/ui/`` (no auth; every data call goes through ``/v1``).

The page asks for an API key, keeps it in the browser's ``sessionStorage`` and sends it as
``Authorization: Bearer`` on each ``/v1`` call, so the inspector sees exactly what that key may see (its tenant,
its role). No key and no data are ever embedded in the served files.

Routes (all hidden from the OpenAPI schema):

- ``GET /ui`` → ``307`` to ``ui/`` (relative, so it works behind a path prefix);
- ``GET /ui/`` → ``index.html``;
- ``GET /ui/{name}`` → one of the shipped assets (``app.js``, ``style.css``); anything else → ``404`` with the
  usual error envelope.

Every response carries a strict Content-Security-Policy (scripts and styles from this origin only, no inline
script, no framing), ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from ..errors import NotFoundError

__all__ = ["router", "ASSETS", "SECURITY_HEADERS"]

#: the files the inspector serves: name → media type
ASSETS: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                "connect-src 'self'; base-uri 'none'; form-action 'none'; "
                                "frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


@lru_cache(maxsize=len(ASSETS))
def _read(name: str) -> bytes:
    """The bytes of one shipped asset (read on first request, then cached)."""
    return resources.files("anchormem.server").joinpath("ui", name).read_bytes()


def _asset(name: str) -> Response:
    media_type = ASSETS.get(name)
    if media_type is None:
        raise NotFoundError(f"no such inspector file: {name!r}")
    return Response(_read(name), media_type=media_type, headers=SECURITY_HEADERS)


@router.get("/ui")
def ui_redirect() -> RedirectResponse:
    # relative Location: '/ui' + 'ui/' resolves to '/ui/' (and '/prefix/ui' to '/prefix/ui/')
    return RedirectResponse("ui/", status_code=307, headers=SECURITY_HEADERS)


@router.get("/ui/")
def ui_index() -> Response:
    return _asset("index.html")


@router.get("/ui/{name}")
def ui_asset(name: str) -> Response:
    return _asset(name)
