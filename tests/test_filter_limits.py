"""Filter size limits: nesting depth, condition count and in/nin values are refused with FilterError before any
SQL is built, on every path (search, get_all, archive/restore, CLI), and never as a RecursionError."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from anchormem import FilterError, Memory
from anchormem.cli import app
from anchormem.filters import (MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_FILTER_VALUES, Cond, Not,
                               parse_filters)


def nots(n: int, leaf: dict | None = None) -> dict:
    f = leaf or {"source": "user"}
    for _ in range(n):
        f = {"NOT": f}
    return f


def test_limits_are_the_documented_values():
    assert (MAX_FILTER_DEPTH, MAX_FILTER_CONDITIONS, MAX_FILTER_VALUES) == (16, 256, 10_000)
    import anchormem.filters as mod
    assert "16" in mod.__doc__ and "256" in mod.__doc__ and "10,000" in mod.__doc__


def test_depth_limit_is_exact():
    node = parse_filters(nots(MAX_FILTER_DEPTH))
    for _ in range(MAX_FILTER_DEPTH):
        assert isinstance(node, Not)
        node = node.item
    assert node == Cond("source", "eq", "user")
    with pytest.raises(FilterError, match="more than 16 levels"):
        parse_filters(nots(MAX_FILTER_DEPTH + 1))
    mixed = {"source": "user"}
    for i in range(MAX_FILTER_DEPTH + 1):
        mixed = {"AND": [mixed]} if i % 2 else {"OR": [{"kind": "fact"}, mixed]}
    with pytest.raises(FilterError, match="levels deep"):
        parse_filters(mixed)


@pytest.mark.parametrize("depth", [50, 5000, 100_000])
def test_very_deep_filter_is_a_filter_error_not_recursion_error(depth):
    with pytest.raises(FilterError, match="more than 16 levels") as info:
        parse_filters(nots(depth))
    assert not isinstance(info.value, RecursionError)


def test_condition_and_value_limits():
    ok = parse_filters({"OR": [{"source": "user"}] * MAX_FILTER_CONDITIONS})
    assert len(ok.items) == 256
    with pytest.raises(FilterError, match="more than 256 conditions"):
        parse_filters({"OR": [{"source": "user"}] * 1000})
    # an operator dict counts one condition per operator
    with pytest.raises(FilterError, match="more than 256 conditions"):
        parse_filters({"AND": [{"confidence": {"gte": 0.1, "lte": 0.9}}] * 129})
    assert len(parse_filters({"AND": [{"confidence": {"gte": 0.1, "lte": 0.9}}] * 128}).items) == 128
    big = [f"s{i}" for i in range(MAX_FILTER_VALUES)]
    assert len(parse_filters({"session_id": {"in": big}}).value) == 10_000
    with pytest.raises(FilterError, match="10,000 values"):
        parse_filters({"session_id": {"in": big}, "agent_id": {"nin": ["a"]}})


def test_deeply_nested_value_gives_a_short_filter_error():
    v: list = ["x"]
    for _ in range(5000):
        v = [v]
    with pytest.raises(FilterError, match="compares with strings") as info:
        parse_filters({"source": v})
    assert len(str(info.value)) < 200


def test_every_memory_path_refuses_oversized_filters(tmp_path):
    m = Memory(str(tmp_path / "f.db"), embedder="hash")
    try:
        m.add("I drink oolong tea every morning.", user_id="u")
        at_limit = nots(MAX_FILTER_DEPTH)  # 16 NOTs (even) around source=user: same as source=user
        assert [x.text for x in m.get_all(user_id="u", filters=at_limit)] == ["I drink oolong tea every morning."]
        assert len(m.search("tea", user_id="u", filters=at_limit)) == 1
        assert m.get_all(user_id="u", filters=nots(MAX_FILTER_DEPTH - 1)) == []
        for bad in (nots(50), nots(5000), {"OR": [{"source": "user"}] * 1000}):
            with pytest.raises(FilterError, match=r"more than (16 levels|256 conditions)"):
                m.search("tea", user_id="u", filters=bad)
            with pytest.raises(FilterError, match=r"more than (16 levels|256 conditions)"):
                m.get_all(user_id="u", filters=bad)
            with pytest.raises(FilterError, match=r"more than (16 levels|256 conditions)"):
                m.archive(None, user_id="u", filters=bad)
            with pytest.raises(FilterError, match=r"more than (16 levels|256 conditions)"):
                m.ask("what do I drink?", user_id="u", filters=bad)
        assert len(m.get_all(user_id="u")) == 1  # nothing was archived
    finally:
        m.close()


def test_cli_deep_filter_exits_2(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    monkeypatch.delenv("ANCHORMEM_PATH", raising=False)
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    assert runner.invoke(app, ["--db", db, "add", "I like tea.", "--user", "a"]).exit_code == 0
    deep = "{" + '"NOT": {' * 5000 + '"source": "user"' + "}" * 5001
    for flt, msg in ((json.dumps(nots(20)), "more than 16 levels"), (deep, "--filter nests too deeply"),
                     (json.dumps({"OR": [{"source": "user"}] * 300}), "more than 256 conditions")):
        for cmd in (["search", "tea"], ["list"]):
            res = runner.invoke(app, ["--db", db, *cmd, "--user", "a", "--filter", flt])
            assert res.exit_code == 2, res.output
            assert msg in res.output and "Traceback" not in res.output
