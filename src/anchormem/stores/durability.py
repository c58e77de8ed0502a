"""When a write is acknowledged, how much of it survives a crash: the ``durability`` setting
(``ANCHORMEM_DURABILITY``).

- ``"full"`` (the default): a commit is on stable storage before the call returns, so it survives a power cut or
  an OS crash, not only a killed process. SQLite: WAL mode with ``PRAGMA synchronous = FULL`` (the WAL is
  ``fsync``-ed at every commit). PostgreSQL: ``synchronous_commit`` is left as the server has it (``on`` unless
  an administrator changed it: the commit waits for its WAL flush).
- ``"normal"``: faster writes; a commit survives a killed process (kill -9) but a power cut or OS crash may roll
  back the last acknowledged commits (never corrupting the database). SQLite: ``synchronous = NORMAL`` (the WAL
  is synced at checkpoints only). PostgreSQL: ``SET synchronous_commit = off`` on anchormem's connections (the
  server may lose up to about three ``wal_writer_delay`` of commits in a crash).

The cost is measured by ``bench/durability.py`` (docs/operations.md, "Durability").
"""

from __future__ import annotations

from typing import Literal

from ..errors import ConfigError

__all__ = ["DURABILITY_MODES", "Durability", "check_durability", "sqlite_synchronous", "pg_options"]

Durability = Literal["full", "normal"]
DURABILITY_MODES: tuple[str, ...] = ("full", "normal")


def check_durability(value: object) -> str:
    """``value`` if it is one of :data:`DURABILITY_MODES`, else ConfigError naming the field and the choices."""
    if not isinstance(value, str) or value not in DURABILITY_MODES:
        raise ConfigError(f"durability must be one of {', '.join(map(repr, DURABILITY_MODES))}, got {value!r}")
    return value


def sqlite_synchronous(durability: str) -> str:
    """The ``PRAGMA synchronous`` value for a WAL-mode SQLite connection: ``FULL`` or ``NORMAL``."""
    return "FULL" if check_durability(durability) == "full" else "NORMAL"


def pg_options(durability: str) -> str:
    """libpq ``options`` for anchormem's PostgreSQL connections: ``""`` (the server's setting) for ``"full"``,
    ``-c synchronous_commit=off`` for ``"normal"``."""
    return "" if check_durability(durability) == "full" else "-c synchronous_commit=off"
