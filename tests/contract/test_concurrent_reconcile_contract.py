"""Atomic reconciliation (issue 22): reading a slot's current value, deciding and writing is one serialised step per
(tenant, user, slot). Two changes planned at the same moment against the same current value ("I moved to Paris." /
"I moved to Rome.") end with exactly one current home and the other in history: two threads (two Memory objects,
i.e. two API workers) on SQLite and PostgreSQL, and two processes on one SQLite file."""

from __future__ import annotations

import multiprocessing as mp
import threading

import anchormem.memory as memory_mod
from anchormem.testing import DeterministicEmbedder

T0, T1 = "2024-01-10T10:00:00Z", "2024-03-10T10:00:00Z"


def _homes(mem):
    items = mem.get_all(user_id="u", include_superseded=True)
    homes = [m for m in items if m.fact is not None and m.fact.attribute == "home_city"]
    return sorted(m.fact.value for m in homes if m.valid_to is None), sorted(m.fact.value for m in homes)


def _planned_together(barrier):
    """plan_facts that waits, once planned, until the other writer has planned too: both decide against Lisbon."""
    original = memory_mod.plan_facts

    def plan(*args, **kwargs):
        out = original(*args, **kwargs)
        barrier.wait(timeout=60)
        return out
    return original, plan


def test_two_writers_planning_at_once_leave_one_current_value(backend, monkeypatch):
    first = backend.memory()
    first.add("I live in Lisbon.", user_id="u", timestamp=T0)
    second = backend.memory()  # another worker: its own connections
    barrier = threading.Barrier(2)
    _, plan = _planned_together(barrier)
    monkeypatch.setattr(memory_mod, "plan_facts", plan)
    errors: list[BaseException] = []

    def run(mem, text):
        try:
            mem.add(text, user_id="u", timestamp=T1)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(first, "I moved to Paris.")),
               threading.Thread(target=run, args=(second, "I moved to Rome."))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    current, every = _homes(first)
    assert len(current) == 1 and current[0] in ("Paris", "Rome")
    assert every == ["Lisbon", "Paris", "Rome"]


def _child(path, text, barrier):  # a separate process: its own Memory on the same file
    from anchormem import Memory
    import anchormem.memory as mm

    original = mm.plan_facts

    def plan(*args, **kwargs):
        out = original(*args, **kwargs)
        barrier.wait(timeout=60)
        return out
    mm.plan_facts = plan
    with Memory(path, embedder=DeterministicEmbedder(64), llm=None) as mem:
        mem.add(text, user_id="u", timestamp=T1)


def test_two_processes_on_one_sqlite_file_leave_one_current_value(tmp_path):
    from anchormem import Memory

    path = str(tmp_path / "race.db")
    with Memory(path, embedder=DeterministicEmbedder(64), llm=None) as mem:
        mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_child, args=(path, text, barrier))
             for text in ("I moved to Paris.", "I moved to Rome.")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with Memory(path, embedder=DeterministicEmbedder(64), llm=None) as mem:
        current, every = _homes(mem)
    assert len(current) == 1 and current[0] in ("Paris", "Rome")
    assert every == ["Lisbon", "Paris", "Rome"]


def test_a_write_planned_before_a_newer_one_landed_is_stored_closed(backend, monkeypatch):
    """The older statement is planned against Lisbon, but a newer change lands before it writes: it is stored
    already superseded by the newer one, never current."""
    mem = backend.memory()
    mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    other = backend.memory()
    original = memory_mod.plan_facts

    def plan(*args, **kwargs):
        out = original(*args, **kwargs)
        monkeypatch.setattr(memory_mod, "plan_facts", original)
        other.add("I moved to Rome.", user_id="u", timestamp=T1)  # lands between planning and writing
        return out
    monkeypatch.setattr(memory_mod, "plan_facts", plan)
    evs = mem.add("I moved to Paris.", user_id="u", timestamp="2024-02-10T10:00:00Z")
    paris = next(e for e in evs if e.memory.text == "I moved to Paris.")
    assert paris.event == "ADD_SUPERSEDED" and paris.memory.valid_to is not None
    current, every = _homes(mem)
    assert current == ["Rome"] and every == ["Lisbon", "Paris", "Rome"]
