"""The anchormem REST API (FastAPI): ``pip install 'anchormem[server]'``, then ``anchormem serve``.

``create_app`` builds the app; API keys live in :mod:`anchormem.server.keys`. See ``docs/api.md``.
"""

from __future__ import annotations

__all__ = ["create_app"]


def __getattr__(name: str):  # lazy: importing anchormem.server must not require fastapi
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
