"""Time helpers: one clock for the whole library (patchable in tests), strict UTC conversion and the supported
time range.

Supported range: every timestamp a caller passes (``add`` ``timestamp`` and message timestamps, ``as_of``,
``before``, ``now``, time values in filters, ``expires_at``, imported timestamps) must lie in
[:data:`MIN_TIME`, :data:`MAX_TIME`), i.e. 1000-01-01T00:00:00Z up to (not including) 9000-01-01T00:00:00Z;
outside it is an InvalidInputError naming the field and the range. Why these years: they print as plain
four-digit ISO-8601 years (what JSON exports, PostgreSQL and every client parse the same way), and they leave
999 years of headroom to Python's own datetime limits (years 1-9999) for the arithmetic done on a valid time:
day boundaries in the caller's UTC offset, relative dates ("yesterday", "next week"), due dates, expiry
durations. A date computed from a valid time that still falls outside the range (the text says "in 9000
years", or "on 9999-12-31") is not resolved (see :func:`in_range` and :mod:`anchormem.text.dates`), and an
expiry beyond it means "never"; neither raises.

Epoch numbers: an ``int`` or ``float`` is seconds since 1970-01-01T00:00:00Z, accepted only from
:data:`EPOCH_MIN` (1990-01-01) up to one day after now (the library clock); anything else (``timestamp=12345``: a
count of seconds, a milliseconds value, a typo) is an InvalidInputError naming the field. An older or later instant
is passed as a datetime or an ISO-8601 string.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta, timezone, tzinfo
import functools
from typing import Any, Callable, Iterator, TypeVar

from .errors import InvalidInputError

__all__ = ["utcnow", "to_utc", "to_aware", "said_time", "to_epoch", "from_epoch", "set_clock", "MIN_TIME", "MAX_TIME",
           "in_range", "check_time_range", "shift", "EPOCH_MIN", "zone_of", "calendar_zone", "in_calendar",
           "on_calendar", "day_of", "month_of", "users_calendar"]

MIN_TIME = datetime(1000, 1, 1, tzinfo=timezone.utc)  # earliest supported instant (inclusive)
MAX_TIME = datetime(9000, 1, 1, tzinfo=timezone.utc)  # end of the supported range (exclusive)
_RANGE_TEXT = "1000-01-01T00:00:00Z to 8999-12-31T23:59:59Z"
EPOCH_MIN = datetime(1990, 1, 1, tzinfo=timezone.utc)  # earliest instant an epoch number may stand for

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
            dt = datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            dt = None
        return _plausible_epoch(dt, value, field)
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
    return check_time_range(dt, field=field)


def said_time(value: Any, *, field: str = "timestamp") -> datetime:
    """:func:`to_aware` for the time a message was said: at most one day from now (:func:`utcnow`), since a turn
    dated later would outrank every real newer statement of its fact for ever (facts are ordered by time said).
    Raises InvalidInputError naming ``field`` (an expiry or an ``as_of`` may lie in the future: use to_utc)."""
    dt = to_aware(value, field=field)
    if dt > utcnow() + timedelta(days=1):
        raise InvalidInputError(f"{field}: {dt.isoformat()} is in the future; a message's timestamp is when it was "
                                f"said and may be at most one day from now ({utcnow().isoformat(timespec='seconds')})")
    return dt


def _plausible_epoch(dt: datetime | None, value: Any, field: str) -> datetime:
    """``dt`` (read from the epoch number ``value``; None when no datetime can hold it) when it lies in
    [:data:`EPOCH_MIN`, now + 1 day], else InvalidInputError naming ``field``: one message for every epoch number
    out of that window, with a hint when the number reads as milliseconds."""
    if dt is None or dt < EPOCH_MIN or dt > utcnow() + timedelta(days=1):
        reads = f"reads as {dt.isoformat()}" if dt is not None else "is beyond any supported date"
        hint = ""
        try:
            in_ms = datetime.fromtimestamp(float(value) / 1000.0, tz=timezone.utc)
            if EPOCH_MIN <= in_ms <= utcnow() + timedelta(days=1):
                hint = f" (as milliseconds it would be {in_ms.isoformat()}: divide by 1000)"
        except (OverflowError, OSError, ValueError):
            pass
        raise InvalidInputError(
            f"{field}: epoch number {value!r} {reads}; an epoch number (seconds since 1970) must lie between "
            f"1990-01-01 and one day from now{hint}: pass a datetime or an ISO-8601 string for other instants")
    return dt


def in_range(dt: datetime) -> bool:
    """True when the aware (or naive = UTC) datetime ``dt`` is in [:data:`MIN_TIME`, :data:`MAX_TIME`).
    Never raises, also for a datetime at Python's limits whose UTC offset would overflow."""
    if MIN_TIME.year < dt.year < MAX_TIME.year - 1:
        return True
    if dt.tzinfo is None or dt.utcoffset() is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        return MIN_TIME <= dt < MAX_TIME
    except OverflowError:
        return False


def check_time_range(dt: datetime, *, field: str = "timestamp") -> datetime:
    """``dt`` unchanged when :func:`in_range`, else InvalidInputError naming ``field`` and the supported range."""
    if not in_range(dt):
        raise InvalidInputError(f"{field}: {dt.isoformat()} is outside the supported time range "
                                f"({_RANGE_TEXT})")
    return dt


def shift(dt: datetime, delta: Any) -> datetime | None:
    """``dt + delta`` (a timedelta), or None when the result leaves the supported range (or Python's)."""
    try:
        out = dt + delta
    except OverflowError:
        return None
    return out if in_range(out) else None


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


# The users' calendar (``Config.timezone``): the zone a timestamp given in UTC (or with none) is read in for its
# calendar day ("yesterday", "下个月1号起"), and the zone days and months are shown in. Set per call by ``Memory``.
_CALENDAR: ContextVar[tzinfo | None] = ContextVar("anchormem_calendar_zone", default=None)


def zone_of(name: str | None) -> tzinfo | None:
    """The zone named ``name`` (IANA, "Asia/Shanghai"; "UTC"), None for None/"". Raises InvalidInputError for an
    unknown name."""
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidInputError(f"timezone: unknown zone {name!r} (an IANA name such as 'Asia/Shanghai' or "
                                f"'Europe/Berlin', or 'UTC')") from exc


def calendar_zone() -> tzinfo | None:
    """The calendar of the call being served (:func:`in_calendar`), None = UTC."""
    return _CALENDAR.get()


@contextmanager
def in_calendar(zone: tzinfo | None) -> Iterator[None]:
    """Serve the calls inside on ``zone``'s calendar (None: UTC); per thread and task (a context variable)."""
    token = _CALENDAR.set(zone)
    try:
        yield
    finally:
        _CALENDAR.reset(token)


def on_calendar(dt: datetime) -> datetime:
    """``dt`` in the calendar zone when it carries no offset of its own (UTC, or naive): a time the caller gave in
    UTC is read on the users' calendar; a caller's own offset (+08:00) is kept."""
    zone = _CALENDAR.get()
    if zone is None or (dt.tzinfo is not None and dt.utcoffset() != timedelta(0)):
        return dt
    return (dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)).astimezone(zone)


def day_of(dt: datetime) -> str:
    """``"2024-03-01"``: the calendar day of instant ``dt`` in the calendar zone (UTC when none is set)."""
    zone = _CALENDAR.get()
    return (dt.astimezone(zone) if zone is not None else to_utc(dt)).date().isoformat()


def month_of(dt: datetime) -> str:
    """``"2024-03"``: the calendar month of instant ``dt`` in the calendar zone (UTC when none is set)."""
    return day_of(dt)[:7]


_F = TypeVar("_F", bound=Callable[..., Any])


def users_calendar(fn: _F) -> _F:
    """Decorate a public ``Memory`` method: the call runs on the instance's calendar (``self._calendar``, from
    ``Config.timezone``; nothing is set when there is none)."""
    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        zone = getattr(self, "_calendar", None)
        if zone is None:
            return fn(self, *args, **kwargs)
        with in_calendar(zone):
            return fn(self, *args, **kwargs)
    return wrapper  # type: ignore[return-value]
