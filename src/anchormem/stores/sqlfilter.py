"""Compile the filter tree (:mod:`anchormem.filters`) into a SQL WHERE fragment.

One compiler for every SQL store; dialect differences (JSON access, label/entity sub-queries) are small
overridable methods, so filter semantics are written once.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..errors import FilterError, InvalidInputError
from ..filters import TEXT_FIELDS, TIME_FIELDS, And, Cond, FilterNode, Not, Or, names_field
from ..types import Scope
from .schema import PG_JSON

__all__ = ["SQLiteFilterCompiler", "PostgresFilterCompiler"]

_META_KEY = re.compile(r"^[\w\-]+(\.[\w\-]+)*$", re.UNICODE)
_CMP = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_SQLITE_TYPES = {"number": "'integer', 'real'", "string": "'text'", "boolean": "'true', 'false'"}


def json_kind(value: Any) -> str:
    """The JSON type a filter value compares with (anchormem.filters, "Typed comparison")."""
    if isinstance(value, bool):
        return "boolean"
    return "string" if isinstance(value, str) else "number"


class SQLiteFilterCompiler:
    """Compiles to SQLite SQL with ``?`` parameters. Memories are aliased ``m``."""

    param = "?"

    def column(self, field: str) -> str:
        if field in TEXT_FIELDS or field in TIME_FIELDS or field in ("confidence", "access_count", "slot"):
            return f"m.{field}"  # ("slot": internal reads only, parse_filters offers no such key)
        raise FilterError(f"no column for {field!r}")  # pragma: no cover - parse_filters guards this

    def meta_expr(self, key: str, params: list[Any]) -> str:
        if not _META_KEY.match(key):
            raise FilterError(f"metadata key {key!r} has characters that cannot be filtered on")
        params.append("$." + ".".join(f'"{p}"' for p in key.split(".")))
        return f"json_extract(m.metadata, {self.param})"

    def meta_typed(self, key: str, kind: str, params: list[Any]) -> tuple[str, str]:
        """``(guard, value)`` SQL for a metadata value of JSON ``kind`` (``number``, ``string``, ``boolean``):
        ``guard`` is true only for a value of that kind (false or NULL otherwise), ``value`` reads it for a
        comparison with :meth:`meta_param`. Appends the parameters of both, in that order."""
        self.meta_expr(key, params)
        guard = f"json_type(m.metadata, {self.param}) IN ({_SQLITE_TYPES[kind]})"
        return guard, self.meta_expr(key, params)

    def meta_param(self, kind: str, value: Any) -> Any:
        """The bound form of a filter value compared with :meth:`meta_typed`'s value expression."""
        return value

    def text_order(self, expr: str) -> str:
        """``expr`` compared by Unicode code point (SQLite's BINARY collation already is)."""
        return expr

    def label_exists(self, attr: str, op: str, value: Any, params: list[Any]) -> str:
        cond, p = self._scalar_cond(f"json_extract(j.value, '$.{attr}')", op, value)
        params.extend(p)
        return f"EXISTS (SELECT 1 FROM json_each(m.labels) j WHERE {cond})"

    def entity_exists(self, attr: str, op: str, value: Any, params: list[Any]) -> str:
        col = {"type": "e.type", "value": "e.value"}[attr]
        cond, p = self._scalar_cond(col, op, value)
        params.extend(p)
        return f"EXISTS (SELECT 1 FROM memory_entities e WHERE e.memory_rowid = m.rowid AND {cond})"

    def _scalar_cond(self, expr: str, op: str, value: Any) -> tuple[str, list[Any]]:
        ph = self.param
        if op == "eq":
            return (f"{expr} IS NULL", []) if value is None else (f"{expr} = {ph}", [value])
        if op in _CMP:
            return f"{expr} {_CMP[op]} {ph}", [value]
        if op == "in":
            return f"{expr} IN ({', '.join([ph] * len(value))})", list(value)
        if op == "contains":
            return f"instr(lower({expr}), lower({ph})) > 0", [str(value)]
        if op == "exists":
            return (f"{expr} IS NOT NULL" if value else f"{expr} IS NULL"), []
        raise FilterError(f"operator {op!r} not supported here")  # pragma: no cover

    def scope_sql(self, scope: Scope) -> tuple[str, list[Any]]:
        """The scope condition every read carries: tenant and user always, agent/session when given (a session
        also matches the memories its turns restated: :mod:`.sessions_sql`)."""
        ph = self.param
        sql, params = f"m.tenant = {ph} AND m.user_id = {ph}", [scope.tenant, scope.user_id]
        if scope.agent_id is not None:
            sql += f" AND m.agent_id = {ph}"
            params.append(scope.agent_id)
        if scope.session_id is not None:  # its own session, or a turn of the session restated it (.sessions_sql)
            sql += f" AND (m.session_id = {ph} OR {self.cites_session()})"
            params += [scope.session_id, scope.session_id]
        return sql, params

    def cites_session(self) -> str:
        """SQL: memory ``m`` cites a turn of the session given as the next parameter (``memory_sessions``)."""
        return (f"EXISTS (SELECT 1 FROM memory_sessions ms WHERE ms.tenant = m.tenant AND ms.user_id = m.user_id "
                f"AND ms.session_id = {self.param} AND ms.memory_id = m.id)")

    def where(self, scope: Scope, node: FilterNode | None, as_of: datetime | None,
              include_superseded: bool = False, live: bool = False) -> tuple[str, list[Any]]:
        """Scope + validity + filter. With ``as_of``: what was current then (said by then, not yet superseded);
        otherwise only current memories unless ``include_superseded`` or ``node`` names ``valid_to`` (a filter asking
        for the past). ``live`` (the search paths): without ``as_of`` and without a condition on ``tier`` in
        ``node``, warm memories only (cold ones are archived)."""
        ph = self.param
        base, params = self.scope_sql(scope)
        if as_of is not None:
            t = as_of.timestamp()
            # (a value scheduled ahead, said by then: read as a plan, not as what holds: facts.plans.scheduled_start)
            base += (f" AND (m.valid_from <= {ph} OR (m.valid_from > m.created_at AND m.valid_to IS NULL)) AND "
                     f"m.created_at <= {ph} AND (m.valid_to IS NULL OR m.valid_to > {ph})")
            params += [t, t, t]
        elif not include_superseded and not names_field(node, "valid_to"):  # a filter on valid_to asks for the past
            base += " AND m.valid_to IS NULL"
        if live and as_of is None and not names_field(node, "tier"):
            base += " AND m.tier = 'warm'"
        fsql, fparams = self.compile(node, as_of)
        return f"{base} AND {fsql}", params + fparams

    def compile(self, node: FilterNode | None, as_of: datetime | None = None) -> tuple[str, list[Any]]:
        """Return ``(sql, params)``; ``("1=1", [])`` for no filter. ``as_of``: entity conditions match the
        entities memories had then (:meth:`entity_as_of`)."""
        if node is None:
            return "1=1", []
        params: list[Any] = []
        return self._node(node, params, as_of), params

    def _node(self, node: FilterNode, params: list[Any], as_of: datetime | None = None) -> str:
        if isinstance(node, And):
            return "(" + " AND ".join(self._node(n, params, as_of) for n in node.items) + ")"
        if isinstance(node, Or):
            return "(" + " OR ".join(self._node(n, params, as_of) for n in node.items) + ")"
        if isinstance(node, Not):
            return f"(NOT {self._node(node.item, params, as_of)})"
        assert isinstance(node, Cond)
        return self._cond(node, params, as_of)

    def entity_as_of(self, attr: str, op: str, value: Any, params: list[Any], as_of: datetime) -> str:
        """An entity condition as of an earlier instant: the current entity rows, if the memory was not edited
        since, or the rows it had then (``memory_entities_past``, kept by each edit)."""
        ph, t = self.param, as_of.timestamp()
        cur = self.entity_exists(attr, op, value, params)
        params.append(t)
        edited = (f"EXISTS (SELECT 1 FROM memory_history h WHERE h.tenant = m.tenant AND h.memory_id = m.id AND "
                  f"h.event = 'UPDATE' AND h.created_at > {ph})")
        cond, p = self._scalar_cond({"type": "p.type", "value": "p.value"}[attr], op, value)
        params.extend([*p, t, t])
        past = (f"EXISTS (SELECT 1 FROM memory_entities_past p WHERE p.tenant = m.tenant AND p.memory_id = m.id AND "
                f"{cond} AND (p.valid_from IS NULL OR p.valid_from <= {ph}) AND p.valid_to > {ph})")
        return f"(({cur} AND NOT {edited}) OR {past})"

    def _cond(self, c: Cond, params: list[Any], as_of: datetime | None = None) -> str:
        negate = c.op in ("ne", "nin")
        op = {"ne": "eq", "nin": "in"}.get(c.op, c.op)
        if c.field.startswith("entity.") and as_of is not None:
            sql = self.entity_as_of(c.field.split(".", 1)[1], op, c.value, params, as_of)
            return f"(NOT {sql})" if negate else sql
        if c.field.startswith(("label.", "entity.")):
            kind, attr = c.field.split(".", 1)
            fn = self.label_exists if kind == "label" else self.entity_exists
            sql = fn(attr, op, c.value, params)
            return f"(NOT {sql})" if negate else sql
        if c.field.startswith("metadata.") and not (op == "exists" or (op == "eq" and c.value is None)):
            sql = self._meta_typed_cond(c.field[len("metadata."):], op, c.value, params)
            return f"(NOT {sql})" if negate else sql
        start = len(params)
        if c.field.startswith("metadata."):
            expr = self.meta_expr(c.field[len("metadata."):], params)
        else:
            expr = self.column(c.field)
        expr_params = params[start:]  # an expression with placeholders must get its parameters at every use
        del params[start:]
        cond, p = self._scalar_cond(expr, op, c.value)
        if negate and c.value is not None:
            params.extend(expr_params + expr_params + p)
            return f"({expr} IS NULL OR NOT ({cond}))"
        params.extend(expr_params + p)
        return f"(NOT ({cond}))" if negate else cond

    def _meta_typed_cond(self, key: str, op: str, value: Any, params: list[Any]) -> str:
        """A metadata comparison that only sees values of the filter value's JSON type (anchormem.filters,
        "Typed comparison"): ``guard AND comparison`` per type, ORed for an ``in`` list of several types; false,
        never NULL, when the key is missing."""
        values = list(value) if op == "in" else [value]
        parts = []
        for kind in ("boolean", "number", "string"):  # a fixed order: the same SQL for the same filter
            same = [self.meta_param(kind, v) for v in values if json_kind(v) == kind]
            if not same:
                continue
            guard, expr = self.meta_typed(key, kind, params)
            if op in _CMP and kind == "string":
                expr = self.text_order(expr)
            cond, p = self._scalar_cond(expr, op, same if op == "in" else same[0])
            params.extend(p)
            parts.append(f"({guard} AND {cond})")
        # two-valued: false (never NULL) for a memory without the key, so NOT/ne/nin match it
        return f"COALESCE({parts[0] if len(parts) == 1 else '(' + ' OR '.join(parts) + ')'}, FALSE)"


class PostgresFilterCompiler(SQLiteFilterCompiler):
    """The shared filter compiler with PostgreSQL dialect pieces: ``%s`` parameters, jsonb access for metadata and
    labels, entity EXISTS over ``memory_entities`` joined on the memory's key. Semantics are inherited."""

    param = "%s"

    def meta_expr(self, key: str, params: list[Any]) -> str:
        super().meta_expr(key, params)  # validates the key, appends a JSON path we replace
        params[-1] = key.split(".")
        # JSON null reads as SQL NULL, as json_extract does in SQLite
        return "NULLIF(m.metadata #> %s::text[], 'null'::jsonb)"

    def label_exists(self, attr: str, op: str, value: Any, params: list[Any]) -> str:
        if attr not in ("domain", "topic", "intent"):  # pragma: no cover - parse_filters guards this
            raise InvalidInputError(f"no label attribute {attr!r}")
        cond, p = self._scalar_cond(f"(j.value ->> '{attr}')", op, value)
        params.extend(p)
        return f"EXISTS (SELECT 1 FROM jsonb_array_elements(m.labels) AS j(value) WHERE {cond})"

    def entity_exists(self, attr: str, op: str, value: Any, params: list[Any]) -> str:
        col = {"type": "e.type", "value": "e.value"}[attr]
        cond, p = self._scalar_cond(col, op, value)
        params.extend(p)
        return ("EXISTS (SELECT 1 FROM memory_entities e WHERE e.tenant = m.tenant AND e.user_id = m.user_id "
                f"AND e.memory_id = m.id AND {cond})")

    def meta_typed(self, key: str, kind: str, params: list[Any]) -> tuple[str, str]:
        # numbers and booleans compare as jsonb (numerically, never failing a cast), strings as text
        super().meta_expr(key, params)  # validates the key
        params[-1] = key.split(".")
        params.append(key.split("."))
        guard = f"jsonb_typeof(m.metadata #> %s::text[]) = '{kind}'"
        return guard, "(m.metadata #>> %s::text[])" if kind == "string" else "(m.metadata #> %s::text[])"

    def meta_param(self, kind: str, value: Any) -> Any:
        return value if kind == "string" else PG_JSON.dump(value)

    def text_order(self, expr: str) -> str:
        return f'({expr} COLLATE "C")'  # code point order, as SQLite's BINARY; not the database's locale

    def _scalar_cond(self, expr: str, op: str, value: Any) -> tuple[str, list[Any]]:
        if op == "contains":
            return f"strpos(lower({expr}), lower(%s)) > 0", [str(value)]
        return super()._scalar_cond(expr, op, value)
