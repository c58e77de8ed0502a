"""A listing of one kind does not walk the user's scope: ``get_all(filters={"kind": ...})`` and ``Memory.due`` cost
about the same SQLite work in a scope of 1,500 memories and in one of 6,000 holding the same facts and commitments.

Without an index on the kind (the index ``ix_mem_kind``, :data:`anchormem.stores.schema.KIND_INDEX`) both read every
current row of the scope in listing order (``ix_mem_created``) and keep the few of that kind: 31 ms CPU at 100k
memories. As tests/test_read_cost_bounded.py does, this counts SQLite virtual-machine instructions
(``set_progress_handler``: deterministic), not time; speed is measured in bench/ (bench/kind_reads.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory

from sqlite_cost import load_notes, vm_steps

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
_WORDS = "coffee tea rent Berlin Lisbon nurse teacher cat dog gym bike train salary flat garden piano".split()


def _text(i: int) -> str:
    w = _WORDS
    return f"Note {i}: the {w[i % len(w)]} and the {w[(i * 7) % len(w)]} came up again."


def _run(n: int) -> tuple[dict[str, int], dict[str, list[str]]]:
    steps: dict[str, int] = {}
    got: dict[str, list[str]] = {}
    with Memory(":memory:", embedder="hash", cache=False) as mem:
        load_notes(mem, n, _text, T0)  # (no fact, no commitment among them)
        day = T0 + timedelta(days=30)
        mem.add("My rent is 1200 euros a month.", user_id="u", timestamp=day)
        mem.add("I live in Berlin now.", user_id="u", timestamp=day + timedelta(minutes=1))
        for i in range(6):
            mem.add(f"I promise to send report {i} to Anna by Monday.", user_id="u",
                    timestamp=day + timedelta(minutes=2 + i))
        calls = [
            ("facts", lambda: mem.get_all(user_id="u", filters={"kind": "fact"})),
            ("facts_page", lambda: mem.get_all(user_id="u", filters={"kind": "fact"}, limit=1)),
            ("due", lambda: mem.due(user_id="u")),
        ]
        for name, call in calls:
            steps[name], rows = vm_steps(mem, call)
            got[name] = [m.text for m in rows]
    return steps, got


@pytest.mark.slow
def test_a_listing_of_one_kind_costs_the_same_in_a_scope_four_times_larger():
    (small, got_small), (large, got_large) = _run(1500), _run(6000)
    assert got_small == got_large  # the same rows, in the same order
    assert got_small["facts"] == ["My rent is 1200 euros a month.", "I live in Berlin now."]
    assert got_small["facts_page"] == ["My rent is 1200 euros a month."]
    assert len(got_small["due"]) == 6 and got_small["due"][0] == "I promise to send report 0 to Anna by Monday."
    for name in small:
        # reading every row of the scope made it ~4x; the index keeps it within a few hundred instructions
        assert large[name] <= small[name] + 1_000, (name, small[name], large[name])
