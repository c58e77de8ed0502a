"""Time helpers: one clock for the whole library (patchable in tests) and strict UTC conversion."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from .errors import InvalidInputError

__all__ = ["utcnow", "to_utc", "to_aware", "to_epoch", "from_epoch", "set_clock"]

_clock = None


def set_clock(fn) -> None:
    """Replace the library clock (a zero-arg callable returning an aware datetime); ``None`` restores it."""
    global _clock
    _clock = fn


def utcnow() -> datetime:
    """Current time, timezone-aware UTC (or the frozen clock set by :func:`set_clock`)."""
    if _clock is not None:
        return to_utc(_clock())
    return datetime.now(timezone.utc)


def to_aware(value: Any, *, field: str = "timestamp") -> datetime:
    """Like :func:`to_utc` but keeps the caller's UTC offset (``+08:00`` stays ``+08:00``), so "yesterday" can be
    resolved on the speaker's own calendar day. Naive values are taken as UTC. Raises InvalidInputError."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (OverflowError, OSError, ValueError) as exc:
            raise InvalidInputError(f"{field}: epoch value out of range: {value!r}") from exc
    elif isinstance(value, str):
        s = value.strip()
        if s.endswith(("Z", "z")):
            s = s[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(s)
        except ValueError as exc:
            raise InvalidInputError(f"{field}: not an ISO-8601 timestamp: {value!r}") from exc
    else:
        raise InvalidInputError(f"{field}: expected ISO-8601 string or datetime, got {type(value).__name__}")
    if dt.tzinfo is None or dt.utcoffset() is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt


def to_utc(value: Any, *, field: str = "timestamp") -> datetime:
    """Parse an ISO-8601 string (``Z`` or ``+08:00`` offsets), a datetime or an epoch number into aware UTC.

    Naive datetimes/strings are taken as UTC. Raises InvalidInputError for anything else.
    """
    dt = to_aware(value, field=field)
    try:
        return dt.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise InvalidInputError(f"{field}: out of range: {value!r}") from exc


def to_epoch(value: Any, *, field: str = "timestamp") -> float:
    """Seconds since the Unix epoch (float) for anything :func:`to_utc` accepts."""
    return to_utc(value, field=field).timestamp()


def from_epoch(value: float | None) -> datetime | None:
    """Aware UTC datetime from epoch seconds; None stays None."""
    if value is None:
        return None
    return datetime.fromtimestamp(value, tz=timezone.utc)
