"""The bundled reference-agent scenarios replayed once per test module (test_agent_mediator, test_agent_support):
a fresh store on the hash embedder, no LLM, a frozen clock."""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.agents import run_scenario
from anchormem.testing import frozen_clock


def replay_fixture(scenario: str, start: str):
    """A module-scoped fixture yielding ``(mem, rows)``: ``scenario`` (a bundled scenario name) replayed by
    :func:`anchormem.agents.run_scenario` with the clock frozen at ``start`` (ISO 8601); the store closes after the
    module."""

    @pytest.fixture(scope="module")
    def replayed(tmp_path_factory):
        mem = Memory(str(tmp_path_factory.mktemp(scenario) / "m.db"), embedder="hash", llm=None)
        try:
            with frozen_clock(start) as clock:
                rows = run_scenario(mem, scenario, clock=clock)
            yield mem, rows
        finally:
            mem.close()

    return replayed


def row(rows: list[dict], session: str, text: str) -> dict:
    """The one replayed turn of ``session`` whose text is ``text`` (fails when there is not exactly one)."""
    found = [r for r in rows if r["session_id"] == session and r["text"] == text]
    assert len(found) == 1, (session, text)
    return found[0]
