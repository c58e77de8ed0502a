"""Which store a ``Memory`` opens: a file path, a ``sqlite:`` URL or a PostgreSQL URL, from arguments or settings."""

from __future__ import annotations

import os
from typing import Any

from .config import Settings, default_path, is_postgres_url, path_from_url
from .errors import ConfigError

__all__ = ["store_location", "open_store"]


def store_location(path: Any, url: str | None, s: Settings) -> tuple[str, bool]:
    """``(location, is_postgres)``: the PostgreSQL URL, else the SQLite file (``path``, a ``sqlite:`` ``url``,
    ``s.path``, then :func:`anchormem.config.default_path`). Raises ConfigError for both ``path`` and ``url``, or
    a ``path`` that is no path."""
    url = url or s.url
    if path is not None and url is not None:
        raise ConfigError("give either path or url, not both")
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise ConfigError(f"path: a file path (str or os.PathLike) or ':memory:', got {type(path).__name__}")
        path = os.fspath(path)
    pg_url = url if url is not None and is_postgres_url(url) else None
    if url is not None and pg_url is None:
        path = path_from_url(url)
    return (pg_url, True) if pg_url else (path or s.path or default_path(), False)


def open_store(location: str, postgres: bool, s: Settings, encryption_key: str | bytes | None) -> Any:
    """The store at ``location`` (:func:`store_location`). The PostgreSQL store is imported lazily: it needs the
    ``postgres`` extra (ConfigError naming it when the driver is missing). Raises ConfigError for an
    ``encryption_key`` with PostgreSQL (encrypt on the server side)."""
    if postgres:
        if encryption_key is not None:
            raise ConfigError("encryption_key applies to the SQLite store; encrypt PostgreSQL on the server side")
        from .stores.postgres import PostgresStore

        return PostgresStore(location, ann_threshold=s.ann_threshold, durability=s.durability)
    from .stores.sqlite import SQLiteStore

    return SQLiteStore(location, ann_threshold=s.ann_threshold, encryption_key=encryption_key, durability=s.durability)
