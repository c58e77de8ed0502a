"""The ``anchormem`` CLI driven through typer's CliRunner against a temp database on the hash embedder, for the CLI
tests (test_cli, test_cli_ids, test_cli_review): one runner, one environment fixture, one way to call it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from anchormem.cli import app

runner = CliRunner()


@pytest.fixture
def hash_cli_env(monkeypatch):
    """The CLI's environment for a test: the hash embedder, no ``ANCHORMEM_PATH`` (every call names ``--db``)."""
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    monkeypatch.delenv("ANCHORMEM_PATH", raising=False)


def invoke(db: str, *args: str, json_out: bool = False, input: str | bytes | None = None) -> Result:
    """``anchormem --db DB [--json] ARGS...`` (``input``: its stdin); the result, whatever the exit code."""
    return runner.invoke(app, ["--db", db] + (["--json"] if json_out else []) + list(args), input=input)


def invoke_json(db: str, *args: str, input: str | bytes | None = None) -> Any:
    """:func:`invoke` with ``--json``; asserts exit code 0 and returns the parsed stdout."""
    res = invoke(db, *args, json_out=True, input=input)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)
