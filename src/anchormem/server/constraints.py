"""The REST API's input constraints, derived from the limits the library validates with (one source of truth).

Every rule the library enforces on a request value is stated here as a pydantic type whose JSON Schema carries
the same rule, so the OpenAPI schema is the contract: a request valid under it is never refused with a 400 for a
reason the schema hides, and a request outside it is a 422 before the library sees it. Where JSON Schema cannot
say a rule (cross-item rules, a total over several fields), the field's description says it.

Sources: scope ids and text (:mod:`anchormem.ingest.normalize`: no control characters, not blank, NUL and
surrogate rules), metadata keys and values (:mod:`anchormem.validate` when present, else the facade's
pattern), the supported time range (:mod:`anchormem.timeutil`), the label taxonomy
(:data:`anchormem.context.taxonomy.DOMAIN_NAMES`), the filter language (:mod:`anchormem.filters`) and the
default text limits (:class:`anchormem.config.Settings`).
"""

from __future__ import annotations

import copy
import math
import re
from datetime import datetime, timezone
from typing import Annotated, Any, Union

from pydantic import (AfterValidator, BeforeValidator, Field, StrictBool, StrictFloat, StrictInt, StrictStr,
                      WithJsonSchema)

from .. import filters as _filters
from ..errors import AnchormemError
from ..config import Settings
from ..context.taxonomy import DOMAIN_NAMES
from ..ingest import normalize as _normalize

__all__ = ["SCOPE_ID_PATTERN", "NON_BLANK_PATTERN", "META_KEY_PATTERN", "DATETIME_PATTERN", "MIN_YEAR",
           "MAX_YEAR", "INT64_MIN", "INT64_MAX", "MAX_MESSAGE_CHARS", "MAX_QUERY_CHARS", "ScopeId", "Text",
           "QueryText", "Name", "MetaValue", "Metadata", "DateTime", "Filters", "FILTER_SCHEMAS", "check_filters",
           "strict_query_bool", "openapi_components"]

# ------------------------------------------------------------------------------------------ library constants
try:  # the one validation layer (anchormem.validate); older trees keep the same rules in memory.py
    from ..validate import INT64_MAX, INT64_MIN  # type: ignore[attr-defined]
    from ..validate import _META_KEY as _META_KEY_RE  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the merge order of the hardening branches
    from ..memory import _META_KEY as _META_KEY_RE  # type: ignore[attr-defined,no-redef]

    INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
try:  # the supported time range (anchormem.timeutil); the same bounds when that module has none yet
    from ..timeutil import MAX_TIME, MIN_TIME  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the merge order of the hardening branches
    MIN_TIME = datetime(1000, 1, 1, tzinfo=timezone.utc)
    MAX_TIME = datetime(9000, 1, 1, tzinfo=timezone.utc)

_DEFAULTS = Settings.model_fields
MAX_MESSAGE_CHARS: int = _DEFAULTS["max_message_chars"].default  # one message / a new memory text
MAX_QUERY_CHARS: int = _DEFAULTS["max_query_chars"].default  # a search / ask / context query
MAX_SCOPE_CHARS = 256  # check_scope_id's limit
# Years whose every instant, in any UTC offset (up to ±23:59), is inside [MIN_TIME, MAX_TIME).
MIN_YEAR, MAX_YEAR = MIN_TIME.year + 1, MAX_TIME.year - 2


# ------------------------------------------------------------------------------------------ patterns
def _u(c: str) -> str:
    return f"\\u{ord(c):04x}"


def _class_body(pattern: re.Pattern[str]) -> str:
    """The inside of a one-character-class pattern like ``[\\x00-\\x1f]`` as ``\\uXXXX`` escapes (the form
    Python, ECMA-262 (JSON Schema) and Rust (pydantic-core) regexes all read), surrogates left out (a JSON
    Schema pattern cannot hold them; the library refuses them itself)."""
    body = pattern.pattern
    assert body.startswith("[") and body.endswith("]") and "^" not in body[:2], body
    chars = [c for c in map(chr, range(0x10000)) if pattern.fullmatch(c) and not "\ud800" <= c <= "\udfff"]
    return _ranges(chars)


def _ranges(chars: list[str]) -> str:
    out, i = [], 0
    while i < len(chars):
        j = i
        while j + 1 < len(chars) and ord(chars[j + 1]) == ord(chars[j]) + 1:
            j += 1
        out.append(_u(chars[i]) if i == j else f"{_u(chars[i])}-{_u(chars[j])}")
        i = j + 1
    return "".join(out)


# str.strip() / str.isspace() whitespace (every such character is below U+3001), plus NUL: check_text replaces
# NUL with a space before it tests for blank text.
_SPACE = _ranges([c for c in map(chr, range(0x3001)) if c.isspace() or c == "\x00"])
_CONTROL = _class_body(_normalize._SCOPE_BAD)  # check_scope_id's forbidden characters
#: a scope id (user_id, agent_id, session_id): 1-256 characters, no control character, not blank
SCOPE_ID_PATTERN = f"^[^{_CONTROL}]*[^{_CONTROL}{_SPACE}][^{_CONTROL}]*$"
#: text the library keeps (message content, a query, a new memory text): holds a non-blank character
NON_BLANK_PATTERN = f"[^{_SPACE}]"
#: a string value stored as metadata or compared in a filter: no NUL (PostgreSQL text cannot hold it)
NO_NUL_PATTERN = "^[^\\u0000]*$"
#: a metadata key (``add``/``update`` metadata): 1-64 letters, digits, '_' or '-'
META_KEY_PATTERN = _META_KEY_RE.pattern
def _digit_range(lo: str, hi: str) -> str:
    """A regex for the fixed-width decimal numbers from ``lo`` to ``hi`` (same length, lo <= hi)."""
    if lo == hi:
        return lo
    if len(lo) == 1:
        return f"[{lo}-{hi}]"
    if lo[0] == hi[0]:
        return lo[0] + _digit_range(lo[1:], hi[1:])
    n = len(lo) - 1
    parts = [f"{lo[0]}(?:{_digit_range(lo[1:], '9' * n)})"]
    if int(hi[0]) - int(lo[0]) > 1:
        parts.append(f"[{int(lo[0]) + 1}-{int(hi[0]) - 1}][0-9]{{{n}}}")
    parts.append(f"{hi[0]}(?:{_digit_range('0' * n, hi[1:])})")
    return "(?:" + "|".join(parts) + ")"


#: an RFC 3339 timestamp in the supported range; no offset (``Z`` / ``+08:00``) means UTC
DATETIME_PATTERN = (f"^{_digit_range(f'{MIN_YEAR:04d}', f'{MAX_YEAR:04d}')}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
                    "T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,6})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?$")
_DATETIME_RE = re.compile(DATETIME_PATTERN)
_DATETIME_SCHEMA = {"type": "string", "format": "date-time", "pattern": DATETIME_PATTERN,
                    "description": f"RFC 3339 (no offset = UTC), years {MIN_YEAR}-{MAX_YEAR}"}


# ------------------------------------------------------------------------------------------ field types
ScopeId = Annotated[str, Field(min_length=1, max_length=MAX_SCOPE_CHARS, pattern=SCOPE_ID_PATTERN)]
BLANK_PATTERN = f"^[{_SPACE}]*$"


def _text_schema(max_chars: int) -> dict[str, Any]:
    # "not blank" as `not: {pattern: blank}`: the same set as NON_BLANK_PATTERN, and generators can build a long
    # sample without searching a regex for it
    return {"type": "string", "minLength": 1, "maxLength": max_chars, "not": {"pattern": BLANK_PATTERN},
            "description": f"Holds a non-blank character; at most {max_chars:,} characters."}


Text = Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_CHARS, pattern=NON_BLANK_PATTERN),
                 WithJsonSchema(_text_schema(MAX_MESSAGE_CHARS))]
QueryText = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, pattern=NON_BLANK_PATTERN),
                      WithJsonSchema(_text_schema(MAX_QUERY_CHARS))]
Name = Annotated[str, Field(max_length=256, pattern=NO_NUL_PATTERN)]


def _iso_datetime(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _DATETIME_RE.match(value):
        raise ValueError(f"expected an RFC 3339 timestamp such as 2025-03-10T09:00:00Z with a year from "
                         f"{MIN_YEAR} to {MAX_YEAR}, got {value!r:.60}")
    return value


#: a timestamp as a JSON string (never a number): RFC 3339 in the supported range
DateTime = Annotated[datetime, BeforeValidator(_iso_datetime), WithJsonSchema(_DATETIME_SCHEMA)]
#: when a message was said: a DateTime at most one day from now (a rule no JSON Schema can state: the library checks
#: it, 400 invalid_input past it, whatever the message's shape)
SaidAt = Annotated[datetime, BeforeValidator(_iso_datetime), WithJsonSchema({
    **_DATETIME_SCHEMA, "description": _DATETIME_SCHEMA["description"] + "; when it was said: at most one day from "
                                                                          "now (400 otherwise)"})]


def _finite_int64(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("numbers must be finite")
    if not NUMBER_MIN <= value <= NUMBER_MAX:
        raise ValueError(f"numbers must be in [{NUMBER_MIN}, {NUMBER_MAX}] (-2^63 to 2^63-1024)")
    return value


# JSON numbers are read as doubles by many clients (and by the schema tooling): the bounds are the 64-bit integer
# range shrunk to doubles that are exact, so the schema and the server draw the same line.
NUMBER_MIN, NUMBER_MAX = INT64_MIN, 2 ** 63 - 1024
_NUMBER_SCHEMA = {"type": "number", "minimum": NUMBER_MIN, "maximum": NUMBER_MAX}
_META_STR_SCHEMA = {"type": "string", "pattern": NO_NUL_PATTERN}
_META_VALUE_SCHEMA = {"anyOf": [_META_STR_SCHEMA, _NUMBER_SCHEMA, {"type": "boolean"}, {"type": "null"}]}
#: a metadata value: a string without NUL, a number in the 64-bit integer range (finite), a boolean or null
MetaValue = Annotated[Union[StrictBool, StrictInt, StrictFloat, Annotated[StrictStr, Field(pattern=NO_NUL_PATTERN)],
                            None],
                      AfterValidator(_finite_int64), WithJsonSchema(_META_VALUE_SCHEMA)]
#: metadata: at most 256 keys of META_KEY_PATTERN, each a MetaValue
Metadata = Annotated[dict[Annotated[str, Field(pattern=META_KEY_PATTERN)], MetaValue], Field(max_length=256),
                     WithJsonSchema({"type": "object", "maxProperties": 256, "propertyNames": {"pattern": META_KEY_PATTERN},
                                     "additionalProperties": _META_VALUE_SCHEMA})]


def strict_query_bool(value: Any) -> Any:
    """A boolean query parameter: exactly ``true`` or ``false`` (never ``1``, ``yes``, ``on``)."""
    if isinstance(value, bool):
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    raise ValueError(f"must be true or false, got {value!r:.40}")


# ------------------------------------------------------------------------------------------ the filter language
_REF = "#/components/schemas/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF + name}


def _clause(eq: dict, other: dict, *, nullable: bool, ranges: bool, contains: bool,
            in_items: dict | None = None) -> dict:
    """The schema of one field's condition: a bare value (equality) or an operator object."""
    eq_v = {"anyOf": [eq, {"type": "null"}]} if nullable else eq
    ne_v = {"anyOf": [other, {"type": "null"}]} if nullable else other
    ops: dict[str, Any] = {"eq": eq_v, "ne": ne_v,
                           "in": {"type": "array", "items": in_items or eq, "minItems": 1},
                           "nin": {"type": "array", "items": other, "minItems": 1},
                           "exists": {"type": "boolean"}}
    if contains:
        ops["contains"] = _META_STR_SCHEMA
    if ranges:
        ops.update({op: other for op in ("gt", "gte", "lt", "lte")})
    return {"anyOf": [eq_v, {"type": "object", "properties": ops, "additionalProperties": False,
                              "minProperties": 1}]}


def _filter_schemas() -> dict[str, dict]:
    text, dt, num = _META_STR_SCHEMA, {k: v for k, v in _DATETIME_SCHEMA.items() if k != "description"}, \
        {"type": "number"}
    tier = {"type": "string", "enum": list(_filters.TIERS)}
    domain = {"type": "string", "enum": list(DOMAIN_NAMES)}
    props: dict[str, Any] = {}
    for f in _filters.TEXT_FIELDS:
        props[f] = _ref("FilterText")
    props["tier"] = _clause(tier, tier, nullable=True, ranges=True, contains=True)
    for f in _filters.TIME_FIELDS:
        props[f] = _ref("FilterTime")
    for f in _filters.NUMBER_FIELDS:
        props[f] = _clause(num, num, nullable=False, ranges=True, contains=False)
    props["label.domain"] = _clause(domain, text, nullable=True, ranges=False, contains=True)
    for f in _filters.LABEL_FIELDS + _filters.ENTITY_FIELDS:
        props.setdefault(f, _ref("FilterLabel"))
    props["AND"] = props["OR"] = {"type": "array", "items": _ref("Filter"), "minItems": 1}
    props["NOT"] = _ref("Filter")
    meta_key = "^metadata\\." + _sql_meta_key()[1:]
    scalar = _META_VALUE_SCHEMA
    meta = _clause(scalar, scalar, nullable=False, ranges=False, contains=True)
    meta_ops = meta["anyOf"][1]["properties"]
    meta_ops.update({op: {"anyOf": [text, _NUMBER_SCHEMA]} for op in ("gt", "gte", "lt", "lte")})
    not_null = {"anyOf": [text, _NUMBER_SCHEMA, {"type": "boolean"}]}  # in/nin take scalars, not null (use exists)
    meta_ops["in"] = {"type": "array", "items": not_null, "minItems": 1}
    meta_ops["nin"] = {"type": "array", "items": not_null, "minItems": 1}
    return {
        "Filter": {
            "title": "Filter", "type": "object", "minProperties": 1, "properties": props,
            "patternProperties": {meta_key: meta}, "additionalProperties": False,
            "description": (
                "A filter (anchormem.filters): keys are fields (several = AND), 'metadata.<key>' for metadata, "
                "AND/OR (a list of filters) and NOT (a filter); a value is equality or an operator object "
                f"(eq, ne, gt, gte, lt, lte, in, nin, exists, contains). Limits: AND/OR/NOT nest at most "
                f"{_filters.MAX_FILTER_DEPTH} deep, at most {_filters.MAX_FILTER_CONDITIONS} conditions, at "
                f"most {_filters.MAX_FILTER_VALUES} in/nin values in all (over them: 400 invalid_filter).")},
        "FilterText": _clause(text, text, nullable=True, ranges=True, contains=True),
        "FilterLabel": _clause(text, text, nullable=True, ranges=False, contains=True),
        "FilterTime": _clause(dt, dt, nullable=True, ranges=True, contains=False),
    }


def _sql_meta_key() -> str:
    from ..stores.sqlfilter import _META_KEY  # the key pattern the SQL builder can filter on

    return _META_KEY.pattern


FILTER_SCHEMAS = _filter_schemas()
_FILTERS_SCHEMA = {"anyOf": [{"type": "object", "maxProperties": 0}, _ref("Filter")],
                   "description": FILTER_SCHEMAS["Filter"]["description"] + " {} = no filter."}
_validator = None


def check_filters(value: Any) -> Any:
    """Raise ValueError (a 422) unless ``value`` is valid under the published filter schema."""
    global _validator
    if _validator is None:
        import jsonschema

        # the published refs point at OpenAPI components; here at $defs of one document
        doc = _rewrite_refs({"$defs": copy.deepcopy(FILTER_SCHEMAS), **_ref("Filter")})
        _validator = jsonschema.Draft202012Validator(doc)
    from jsonschema.exceptions import best_match

    if value == {}:
        return value
    error = best_match(_validator.iter_errors(value))
    if error is not None:
        raise ValueError(_filter_message(value, error))
    return value


_BARE_KEY_NOTE = re.compile(r" and no stored memory in this scope has metadata key .*$")
_REGEX_TAIL = re.compile(r" does not match (?:any of the regexes: )?'.*$", re.S)


def _filter_message(value: Any, error: Any) -> str:
    """A schema violation of a filter in words a caller can act on: the library's own parser's message where it
    refuses the filter too (an unknown key lists the fields, a bad time says it is not ISO-8601), else the schema's
    message with any regex replaced by what the pattern means. Over REST a bare key is never a metadata key."""
    where = "filters" + "".join(f"[{p!r}]" for p in error.absolute_path)
    meta_hint = "metadata keys are written 'metadata.<key>' (letters, digits, '_' or '-'; dots between parts)"
    try:
        _filters.parse_filters(value, metadata_keys=lambda: ())
    except AnchormemError as exc:
        return _BARE_KEY_NOTE.sub("; " + meta_hint, str(exc))
    if error.validator in ("additionalProperties", "patternProperties"):
        keys = [k for k in (error.instance if isinstance(error.instance, dict) else {})
                if not any(re.search(p, k) for p in (error.schema.get("patternProperties") or {}))
                and k not in (error.schema.get("properties") or {})]
        return f"{where}: {', '.join(map(repr, keys)) or 'a key'} is not a filter key: {meta_hint}"
    return f"{where}: {_REGEX_TAIL.sub(' is not valid here', error.message)[:300]}"


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: ("#/$defs/" + v[len(_REF):] if k == "$ref" and isinstance(v, str) and v.startswith(_REF)
                    else _rewrite_refs(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


#: a filter object, validated against the published schema (anchormem.filters' language, explicit fields only)
Filters = Annotated[dict[str, Any], AfterValidator(check_filters), WithJsonSchema(_FILTERS_SCHEMA)]


def openapi_components() -> dict[str, dict]:
    """Schemas the filter type refers to, for ``components/schemas`` of the OpenAPI document."""
    return copy.deepcopy(FILTER_SCHEMAS)


#: what each published pattern means, for 422 messages (a regex is no help to a caller)
PATTERN_HELP = {
    SCOPE_ID_PATTERN: "must not be blank or hold a control character (U+0000-U+001F, U+007F-U+009F)",
    NON_BLANK_PATTERN: "must hold a non-blank character",
    NO_NUL_PATTERN: "must not hold a NUL character (U+0000)",
    META_KEY_PATTERN: "use 1-64 letters, digits, '_' or '-'",
}
