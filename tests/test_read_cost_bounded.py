"""Reads do not walk the user's scope: the SQLite work of one search, ask and context grows far less than the scope.

A read that tests every row of the scope (the scheduled-value test of every read did, by `ix_mem_created`: 35 ms
per search at 100k memories) is invisible in small tests and in results; it shows only in the cost. Time is noisy on
a shared machine, so this counts SQLite virtual-machine instructions instead (``set_progress_handler``, called every
``_STEP`` instructions: deterministic), in one scope of 1,500 memories and one of 6,000, and checks that four times
the memories cost less than twice the instructions. Speed itself is measured in ``bench/`` (search_ab.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory

from sqlite_cost import load_notes, vm_steps

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
_WORDS = ("coffee tea rent Berlin Lisbon nurse teacher cat dog gym bike train salary flat garden piano football "
          "doctor school trip beach").split()


def _text(i: int) -> str:
    w = _WORDS
    return f"Note {i}: the {w[i % len(w)]} and the {w[(i * 7) % len(w)]} came up with {w[(i * 13) % len(w)]} again."


def _steps(n: int) -> dict[str, int]:
    out: dict[str, int] = {}
    with Memory(":memory:", embedder="hash", cache=False) as mem:
        load_notes(mem, n, _text, T0)
        mem.add("My rent is 1200 a month.", user_id="u", timestamp=T0 + timedelta(days=30))
        calls = [
            ("search", lambda: mem.search("what is my rent", user_id="u", limit=10)),
            ("ask", lambda: mem.ask("How much is my rent?", user_id="u")),
            ("context", lambda: mem.context(query="How much is my rent?", user_id="u")),
        ]
        for name, call in calls:
            out[name] = vm_steps(mem, call)[0]
    return out


@pytest.mark.slow
def test_the_sqlite_work_of_a_read_grows_far_less_than_the_scope():
    small, large = _steps(1500), _steps(6000)
    for name in small:
        assert large[name] < 2 * max(small[name], 20_000), (name, small[name], large[name])
