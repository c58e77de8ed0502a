"""Filters at the documented limits (16 AND/OR/NOT levels, 256 conditions, 10,000 in/nin values) compile to SQL
that every backend accepts; one step over is a FilterError before any SQL runs."""

from __future__ import annotations

import pytest

from anchormem import FilterError
from anchormem.filters import MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_FILTER_VALUES


def _deep(levels: int) -> dict:
    """A filter nesting NOT/AND/OR ``levels`` deep, each level also carrying a sibling condition (an implicit AND),
    with label/entity/metadata conditions (sub-queries, JSON access) at the bottom. Every condition is true for a
    memory with metadata ``{"cat": "x"}``, so an even number of NOTs keeps the whole filter true."""
    f: dict = {"metadata.cat": {"exists": True}, "label.domain": {"ne": "no-such"},
               "entity.value": {"nin": ["no-such"]}}
    for i in range(levels):
        op = ("NOT", "NOT", "AND", "OR")[i % 4]
        f = {op: f if op == "NOT" else [f, {"source": {"ne": "zz"}}] if op == "AND" else [f],
             "metadata.cat": {"ne": "q"}}
        if op == "NOT":  # NOT(true AND ...) is false; pair NOTs so the level below stays true
            f = {"NOT": f["NOT"]}
    return f


def test_filters_at_the_limits_run_on_every_backend(mem):
    keep = mem.add("I drink oolong tea every morning.", user_id="u", metadata={"cat": "x"})[0].memory.id
    deep = _deep(MAX_FILTER_DEPTH)
    assert [m.id for m in mem.get_all(user_id="u", filters=deep)] == [keep]
    assert [h.memory.id for h in mem.search("oolong tea", user_id="u", filters=deep)] == [keep]
    wide = {"OR": [{"metadata.cat": f"v{i}"} for i in range(MAX_FILTER_CONDITIONS - 1)] + [{"metadata.cat": "x"}]}
    assert [m.id for m in mem.get_all(user_id="u", filters=wide)] == [keep]
    many = {"AND": [{"metadata.cat": {"nin": [f"v{i}-{j}" for j in range(MAX_FILTER_VALUES // 250)]}}
                    for i in range(250)]}
    assert [h.memory.id for h in mem.search("oolong tea", user_id="u", filters=many)] == [keep]
    assert mem.get_all(user_id="u", filters={"NOT": many}) == []
    with pytest.raises(FilterError, match="16 levels"):
        mem.get_all(user_id="u", filters=_deep(MAX_FILTER_DEPTH + 1))
    with pytest.raises(FilterError, match="256 conditions"):
        mem.search("tea", user_id="u", filters={"OR": [{"source": "user"}] * 1000})
