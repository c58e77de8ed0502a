"""One validation layer for the values callers hand to the store: strings, metadata, scalars in filters.

Every value is checked where it enters (``add``, ``update``, filters, ``import_memories``) so that whatever is
stored can be read back, filtered and exported as strict JSON, the same on SQLite and PostgreSQL:

- text must be valid Unicode: a lone surrogate (``"\\ud800"``, which no UTF-8 encoder accepts) is refused;
- a NUL character (``"\\x00"``) is refused in metadata values and keys, filter values and names (PostgreSQL text
  cannot hold it, and SQLite's JSON functions cut the string at it, so ``{"k": "a"}`` would match ``"a\\x00b"``);
  message text is the exception: there NUL is replaced by a space (:func:`anchormem.ingest.normalize.check_text`);
- integers must fit a signed 64-bit integer (:data:`INT64_MIN` .. :data:`INT64_MAX`): SQLite cannot bind a larger
  one, and its JSON functions read one as an inexact float;
- floats must be finite: NaN and ±infinity have no JSON form (an export holding them is not strict JSON).

Violations raise :class:`~anchormem.errors.InvalidInputError` (or the ``error`` class a caller passes, e.g.
:class:`~anchormem.errors.FilterError`) naming the field and the limit. Timestamps have their own range check,
:func:`anchormem.timeutil.check_time_range`.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime
from typing import Any

from .errors import InvalidInputError

__all__ = ["INT64_MIN", "INT64_MAX", "MAX_METADATA_DEPTH", "check_str", "check_scalar", "check_json",
           "check_metadata", "check_metadata_key", "check_id", "unstorable"]

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1
MAX_METADATA_DEPTH = 32  # nesting of lists/objects inside an imported metadata value
_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")
_META_KEY = re.compile(r"^[\w\-]{1,64}$", re.UNICODE)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_str(value: str, field: str, *, error: type[InvalidInputError] = InvalidInputError,
              nul: bool = False) -> str:
    """``value`` unchanged, or ``error`` for a lone surrogate (never allowed) or a NUL character (unless
    ``nul``). ``field`` names the value in the message."""
    bad = _BAD_CHAR.search(value)
    if bad is not None and (bad.group() != "\x00" or not nul):
        if bad.group() == "\x00":
            raise error(f"{field}: a NUL character (U+0000 at index {bad.start()}) cannot be stored; remove it")
        raise error(f"{field}: not valid Unicode text (a lone surrogate U+{ord(bad.group()):04X} at index "
                    f"{bad.start()}); send UTF-8 text")
    return value


def check_scalar(value: Any, field: str, *, error: type[InvalidInputError] = InvalidInputError) -> Any:
    """A JSON scalar that every store keeps exactly: None, bool, a str (:func:`check_str`), an int within
    [:data:`INT64_MIN`, :data:`INT64_MAX`] or a finite float. Returns ``value``; other scalars pass unchanged
    (the caller checks types). Raises ``error`` naming ``field`` and the limit."""
    if isinstance(value, str):
        return check_str(value, field, error=error)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise error(f"{field}: integer {_show(value)} is outside the 64-bit range "
                        f"[{INT64_MIN}, {INT64_MAX}] (no store keeps a larger one exactly; use a string)")
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise error(f"{field}: {value!r} is not a finite number (NaN and infinity have no JSON form)")
    return value


def check_json(value: Any, field: str, *, error: type[InvalidInputError] = InvalidInputError,
               depth: int = 0) -> Any:
    """Every scalar inside a JSON value (lists and string-keyed objects, nested up to
    :data:`MAX_METADATA_DEPTH`) passes :func:`check_scalar`, every key :func:`check_str`; date/datetime
    objects pass (their range is checked where they are parsed). Raises ``error``
    naming the path (``metadata.k[2].x``). Returns ``value``."""
    if depth > MAX_METADATA_DEPTH:
        raise error(f"{field}: nested more than {MAX_METADATA_DEPTH} levels deep")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise error(f"{field}: object keys must be strings, got {type(k).__name__}")
            check_str(k, f"{field} key {_show(k)}", error=error)
            check_json(v, f"{field}.{k}", error=error, depth=depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_json(v, f"{field}[{i}]", error=error, depth=depth + 1)
    elif isinstance(value, (str, int, float, bool)) or value is None:
        check_scalar(value, field, error=error)
    elif isinstance(value, (datetime, date)):
        return value  # a timestamp object: its range is checked where it is parsed (anchormem.timeutil)
    else:
        raise error(f"{field}: {type(value).__name__} is not a JSON value")
    return value


def check_id(value: Any, field: str) -> str:
    """A record id (memory id, review id): a non-empty str without lone surrogates or NUL. Raises
    InvalidInputError naming ``field``."""
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{field} must be a non-empty string")
    return check_str(value, field)


def check_metadata_key(key: Any, field: str = "metadata") -> str:
    """A metadata key: 1-64 letters, digits, ``_`` or ``-``. Raises InvalidInputError."""
    if not isinstance(key, str) or not _META_KEY.match(key):
        raise InvalidInputError(f"{field} key {_show(key)}: use 1-64 letters, digits, '_' or '-'")
    return key


def check_metadata(metadata: Any, field: str = "metadata") -> dict[str, Any]:
    """``add`` metadata: None (= ``{}``) or a dict of :func:`check_metadata_key` keys to scalar values (str,
    number, bool, None) passing :func:`check_scalar`; expiry keys (``expire_strategy``, ``expires_at``) must
    parse. Returns a copy. Raises InvalidInputError naming the key and the limit."""
    from .lifecycle import check_expiry_metadata  # lifecycle imports the timestamp helpers; keep this module light

    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidInputError(f"{field} must be a dict, got {type(metadata).__name__}")
    for k, v in metadata.items():
        check_metadata_key(k, field)
        if v is not None and not isinstance(v, (str, int, float, bool)):
            raise InvalidInputError(f"{field} value for {k!r} must be a string, number, boolean or null")
        check_scalar(v, f"{field}.{k}")
    try:
        json.dumps(metadata, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:  # pragma: no cover - the checks above refuse what json refuses
        raise InvalidInputError(f"{field} is not JSON-serialisable: {exc}") from exc
    check_expiry_metadata(metadata)
    return dict(metadata)


def unstorable(exc: Exception) -> InvalidInputError:
    """The store-boundary safety net: a value that slipped past the checks above and that the database driver
    cannot bind (``UnicodeEncodeError`` for a lone surrogate, ``OverflowError`` for an integer over 64 bits)
    as an InvalidInputError, so it is never a bare driver error (HTTP 500)."""
    if isinstance(exc, UnicodeEncodeError):
        return InvalidInputError(f"a value is not valid Unicode text ({exc.reason} at index {exc.start}); "
                                 "send UTF-8 text")
    return InvalidInputError(f"a value cannot be stored: {exc}")
