"""The typed filter language used by ``search`` and ``get_all``.

A filter is a dict. Keys are field names; values are a literal (equality) or an operator dict::

    {"category": "work"}                                   # metadata key, equality
    {"metadata.category": {"in": ["work", "personal"]}}     # explicit metadata key
    {"created_at": {"gte": "2025-07-25T00:00:00Z", "lt": "2025-07-26T00:00:00+00:00"}}
    {"source": "user", "label.domain": "finance"}           # several keys = AND
    {"OR": [{"role": "user"}, {"kind": "fact"}]}, {"NOT": {"session_id": "s1"}}

Fields: ``agent_id, session_id, role, source, kind, speaker, tier`` (text; ``tier`` is ``"warm"`` or
``"cold"``: a filter that names ``tier`` decides which tiers a read sees, otherwise ``search``/``ask``/``get_all``
see warm memories only); ``created_at, updated_at, event_time, valid_from, valid_to, expires_at, archived_at``
(timestamps: ISO-8601 with ``Z``/offset or datetime, compared in UTC);
``confidence`` (number); ``label.domain, label.topic, label.intent``; ``entity.type, entity.value``;
``metadata.<key>``. A bare key that is not a field is read as a metadata key only if that key exists in the
caller's scope; otherwise it is an error, so typos never silently match nothing.

Operators: ``eq, ne, gt, gte, lt, lte, in, nin, exists`` (``contains`` for text). Anything else raises
:class:`~anchormem.errors.FilterError`.

Typed comparison (``metadata.<key>``; the same on every store): a stored value and a filter value compare only
when they are of the same JSON type: number (integers and floats together), string or boolean. Booleans are not
numbers: ``{"a": 1}`` does not match ``true`` and ``{"a": true}`` does not match ``1``. ``eq``/``in`` match a
value of the same type that is equal (``1`` matches ``1.0``); ``gt``/``gte``/``lt``/``lte`` take a number or a
string and match only numbers (numerically) or only strings (by Unicode code point, never by a locale's
collation): ``{"a": {"gt": 10}}`` never matches the text ``"string"``. ``contains`` takes a string and matches
string values only (ASCII letters case-insensitively; PostgreSQL also folds other letters). ``ne``/``nin`` are
the negation of ``eq``/``in``: they match values of another type, JSON null and memories without the key; so
does ``NOT`` around any of these conditions (a comparison with a missing key is false, never unknown). Filter
values are checked like stored ones (:mod:`anchormem.validate`): no lone surrogates or NUL characters in strings,
integers within the signed 64-bit range, no NaN or infinity; a violation is a FilterError naming the key and the
limit.

Limits (checked before anything is parsed or sent to the database; over them is a FilterError, HTTP 400
``invalid_filter``): ``AND``/``OR``/``NOT`` nest at most :data:`MAX_FILTER_DEPTH` (16) deep; a filter has at most
:data:`MAX_FILTER_CONDITIONS` (256) conditions (each field/operator pair counts one, so
``{"created_at": {"gte": a, "lt": b}}`` is two); ``in``/``nin`` lists hold at most :data:`MAX_FILTER_VALUES`
(10,000) values in all.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

from .context.taxonomy import DOMAIN_NAMES
from .errors import FilterError, InvalidInputError
from .timeutil import to_epoch
from .validate import check_scalar

__all__ = ["Cond", "And", "Or", "Not", "FilterNode", "parse_filters", "TEXT_FIELDS", "TIME_FIELDS", "names_field",
           "ANY_VALIDITY", "without_any_validity", "TIERS", "MAX_FILTER_DEPTH", "MAX_FILTER_CONDITIONS",
           "MAX_FILTER_VALUES"]

MAX_FILTER_DEPTH = 16  # AND/OR/NOT nesting levels
MAX_FILTER_CONDITIONS = 256  # field/operator conditions in one filter
MAX_FILTER_VALUES = 10_000  # values in all in/nin lists of one filter
_show = reprlib.Repr()  # bounded repr for error messages: never recurses into a deep value
_show.maxstring = _show.maxother = 80

TEXT_FIELDS = ("agent_id", "session_id", "role", "source", "kind", "speaker", "user_id", "tier")
TIME_FIELDS = ("created_at", "updated_at", "event_time", "valid_from", "valid_to", "expires_at", "archived_at")
TIERS = ("warm", "cold")  # storage tiers (anchormem.consolidate)
NUMBER_FIELDS = ("confidence", "access_count")
LABEL_FIELDS = ("label.domain", "label.topic", "label.intent")
ENTITY_FIELDS = ("entity.type", "entity.value")
OPERATORS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "exists", "contains")
_RANGE_OPS = ("gt", "gte", "lt", "lte")


@dataclass(frozen=True)
class Cond:
    """One condition. ``field`` is canonical (``metadata.x`` for metadata); time values are epoch seconds."""

    field: str
    op: str
    value: Any


@dataclass(frozen=True)
class And:
    items: tuple["FilterNode", ...]


@dataclass(frozen=True)
class Or:
    items: tuple["FilterNode", ...]


@dataclass(frozen=True)
class Not:
    item: "FilterNode"


FilterNode = Union[Cond, And, Or, Not]

# a condition on valid_to that every row meets: added to a search's filter to read superseded memories as well
# (anchormem.retrieval.currency.past_where)
ANY_VALIDITY = Or((Cond("valid_to", "exists", True), Cond("valid_to", "exists", False)))


def parse_filters(
    filters: dict[str, Any] | None,
    *,
    metadata_keys: Callable[[], Iterable[str]] | None = None,
) -> FilterNode | None:
    """Parse a filter dict into a tree of Cond/And/Or/Not.

    ``metadata_keys``: called lazily to list metadata keys present in the scope (for bare keys).
    Raises FilterError on an unknown key or operator or a value of the wrong type.
    """
    if filters is None:
        return None
    if not isinstance(filters, dict):
        raise FilterError(f"filters must be a dict, got {type(filters).__name__}")
    if not filters:
        return None
    check_filter_size(filters)
    known_meta: list[set[str] | None] = [None]

    def meta_keys() -> set[str]:
        if known_meta[0] is None:
            known_meta[0] = set(metadata_keys()) if metadata_keys else set()
        return known_meta[0]

    def node(d: dict[str, Any]) -> FilterNode:
        if not isinstance(d, dict) or not d:
            raise FilterError(f"a filter clause must be a non-empty dict, got {_show.repr(d)}")
        parts: list[FilterNode] = []
        for key, value in d.items():
            ukey = key.upper() if isinstance(key, str) else key
            if ukey in ("AND", "OR"):
                if not isinstance(value, list) or not value:
                    raise FilterError(f"{key} takes a non-empty list of clauses")
                sub = tuple(node(v) for v in value)
                parts.append(And(sub) if ukey == "AND" else Or(sub))
            elif ukey == "NOT":
                parts.append(Not(node(value)))
            else:
                parts.append(field_clause(key, value))
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def canonical(key: str) -> str:
        if not isinstance(key, str) or not key:
            raise FilterError(f"filter keys must be non-empty strings, got {_show.repr(key)}")
        if key in TEXT_FIELDS or key in TIME_FIELDS or key in NUMBER_FIELDS:
            return key
        if key in LABEL_FIELDS or key in ENTITY_FIELDS:
            return key
        if key.startswith("metadata."):
            if len(key) <= len("metadata."):
                raise FilterError("metadata filter needs a key: 'metadata.<key>'")
            return key
        if key.startswith(("label.", "entity.")):
            raise FilterError(f"unknown filter key {key!r}; label keys: {LABEL_FIELDS}, entity keys: {ENTITY_FIELDS}")
        if key in meta_keys():
            return "metadata." + key
        raise FilterError(
            f"unknown filter key {key!r}: not a field ({', '.join(TEXT_FIELDS + TIME_FIELDS + NUMBER_FIELDS)}, "
            f"label.*, entity.*, metadata.<key>) and no stored memory in this scope has metadata key {key!r}"
        )

    def field_clause(key: str, value: Any) -> FilterNode:
        field = canonical(key)
        if isinstance(value, dict):
            if not value:
                raise FilterError(f"empty operator dict for {key!r}")
            conds = []
            for op, v in value.items():
                if op not in OPERATORS:
                    raise FilterError(f"unknown operator {_show.repr(op)} for {key!r}; "
                                      f"operators: {', '.join(OPERATORS)}")
                conds.append(make(field, op, v))
            return conds[0] if len(conds) == 1 else And(tuple(conds))
        return make(field, "eq", value)

    def make(field: str, op: str, v: Any) -> Cond:
        if op == "exists":
            if not isinstance(v, bool):
                raise FilterError(f"'exists' takes true/false, got {_show.repr(v)}")
            return Cond(field, op, v)
        if op in ("in", "nin"):
            if not isinstance(v, (list, tuple)) or not v:
                raise FilterError(f"{op!r} on {field!r} takes a non-empty list")
            return Cond(field, op, tuple(coerce(field, x, op) for x in v))
        if op == "contains" and (field in TIME_FIELDS or field in NUMBER_FIELDS):
            raise FilterError(f"'contains' does not apply to {field!r}")
        if op in _RANGE_OPS and field.startswith(("label.", "entity.")):
            raise FilterError(f"range operator {op!r} does not apply to {field!r}")
        return Cond(field, op, coerce(field, v, op))

    def coerce(field: str, v: Any, op: str) -> Any:
        if field in TIME_FIELDS:
            if v is None and op in ("eq", "ne"):
                return None
            try:
                return to_epoch(v, field=field)
            except InvalidInputError as exc:
                raise FilterError(str(exc)) from exc
        if isinstance(v, (str, int, float)):  # one check for every store: see anchormem.validate
            check_scalar(v, f"filter {field!r} {op}", error=FilterError)
        if field in NUMBER_FIELDS:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise FilterError(f"{field!r} compares with numbers, got {_show.repr(v)}")
            return float(v)
        if field.startswith("metadata."):
            if v is not None and not isinstance(v, (str, int, float, bool)):
                raise FilterError(f"metadata values compare as scalars, got {type(v).__name__} for {field!r}")
            if op in _RANGE_OPS and (v is None or isinstance(v, bool)):
                raise FilterError(f"range operator {op!r} on {field!r} takes a number or a string, got "
                                  f"{_show.repr(v)}")
            if op == "contains" and not isinstance(v, str):
                raise FilterError(f"'contains' on {field!r} takes a string, got {_show.repr(v)}")
            if v is None and op in ("in", "nin"):
                raise FilterError(f"{op!r} on {field!r} takes scalars, not null; use 'exists' or eq null")
            return v
        if v is None and op in ("eq", "ne"):
            return None
        if not isinstance(v, str):
            raise FilterError(f"{field!r} compares with strings, got {_show.repr(v)}")
        if field == "tier" and op in ("eq", "ne", "in", "nin") and v not in TIERS:
            raise FilterError(f"tier is 'warm' or 'cold', not {_show.repr(v)}")
        if field == "label.domain" and op in ("eq", "in"):
            if v not in DOMAIN_NAMES:  # the taxonomy is fixed: a misspelt domain would match nothing
                raise FilterError(f"unknown label domain {_show.repr(v)}; domains: {', '.join(DOMAIN_NAMES)}")
        return v

    return node(filters)


def check_filter_size(filters: Any) -> None:
    """Raise FilterError when a raw filter dict nests AND/OR/NOT deeper than :data:`MAX_FILTER_DEPTH`, has more
    than :data:`MAX_FILTER_CONDITIONS` conditions or more than :data:`MAX_FILTER_VALUES` ``in``/``nin`` values.
    Iterative and stops at the first excess, so any input (even one nested thousands deep) gets a FilterError,
    never a RecursionError. Malformed clauses are left for :func:`parse_filters` to report."""
    conditions = values = 0
    stack: list[tuple[Any, int]] = [(filters, 0)]
    while stack:
        clause, depth = stack.pop()
        if not isinstance(clause, dict):
            continue
        for key, value in clause.items():
            ukey = key.upper() if isinstance(key, str) else key
            if ukey in ("AND", "OR", "NOT"):
                if depth + 1 > MAX_FILTER_DEPTH:
                    raise FilterError(f"filter nests AND/OR/NOT more than {MAX_FILTER_DEPTH} levels deep")
                if ukey == "NOT":
                    stack.append((value, depth + 1))
                elif isinstance(value, list):
                    stack.extend((v, depth + 1) for v in value)
                continue
            if isinstance(value, dict):
                conditions += len(value)
                for op, v in value.items():
                    if op in ("in", "nin") and isinstance(v, (list, tuple)):
                        values += len(v)
            else:
                conditions += 1
            if conditions > MAX_FILTER_CONDITIONS:
                raise FilterError(f"filter has more than {MAX_FILTER_CONDITIONS} conditions")
            if values > MAX_FILTER_VALUES:
                raise FilterError(f"filter's in/nin lists hold more than {MAX_FILTER_VALUES:,} values in all")


def names_field(node: FilterNode | None, field: str) -> bool:
    """True when a parsed filter has a condition on ``field`` anywhere (under AND, OR or NOT)."""
    if node is None:
        return False
    if isinstance(node, Cond):
        return node.field == field
    if isinstance(node, Not):
        return names_field(node.item, field)
    return any(names_field(n, field) for n in node.items)


def without_any_validity(node: FilterNode | None) -> tuple[FilterNode | None, bool]:
    """``node`` without :data:`ANY_VALIDITY` at its top (``node`` itself, or one of the items of a top-level AND):
    (the rest, None when nothing is left; whether it was there)."""
    if node == ANY_VALIDITY:
        return None, True
    if isinstance(node, And) and ANY_VALIDITY in node.items:
        rest = tuple(n for n in node.items if n != ANY_VALIDITY)
        return (None if not rest else rest[0] if len(rest) == 1 else And(rest)), True
    return node, False
