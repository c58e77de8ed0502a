"""Atomic reconciliation (issue 22): reading a slot's current value, deciding and writing is one serialised step per
(tenant, user, slot). Two changes planned at the same moment against the same current value ("I moved to Paris." /
"I moved to Rome.") end with exactly one current home and the other in history: two threads (one Memory object, or
two: two API workers) on SQLite and PostgreSQL, and two processes on one SQLite file or one PostgreSQL database. The
writer that writes second finds the first's write (its user's generation moved: :mod:`anchormem.stores.generation`)
and plans again against it."""

from __future__ import annotations

import multiprocessing as mp
import threading

import pytest

import anchormem.memory as memory_mod
from anchormem import Settings
from anchormem.testing import DeterministicEmbedder

T0, T1 = "2024-01-10T10:00:00Z", "2024-03-10T10:00:00Z"


def _homes(mem):
    items = mem.get_all(user_id="u", include_superseded=True)
    homes = [m for m in items if m.fact is not None and m.fact.attribute == "home_city"]
    return sorted(m.fact.value for m in homes if m.valid_to is None), sorted(m.fact.value for m in homes)


def _planned_together(barrier, calls):
    """plan_facts that waits, the first time each writer has planned, until the other writer has planned too: both
    decide against Lisbon. A writer that plans again (its write found the other's) goes straight on. ``calls``
    counts the plans."""
    original = memory_mod.plan_facts
    waited = threading.local()

    def plan(*args, **kwargs):
        out = original(*args, **kwargs)
        calls.append(threading.current_thread().name)
        if not getattr(waited, "done", False):
            waited.done = True
            barrier.wait(timeout=60)
        return out
    return original, plan


def _events(evs):
    return [(e.event, e.memory.text) for e in evs if e.memory.fact is not None]


@pytest.mark.parametrize("shared", [False, True], ids=["two_objects", "one_object"])
def test_two_writers_planning_at_once_leave_one_current_value(backend, monkeypatch, shared):
    first = backend.memory()
    first.add("I live in Lisbon.", user_id="u", timestamp=T0)
    second = first if shared else backend.memory()  # else another worker: its own connections
    barrier, calls = threading.Barrier(2), []
    _, plan = _planned_together(barrier, calls)
    monkeypatch.setattr(memory_mod, "plan_facts", plan)
    errors: list[BaseException] = []
    events: dict[str, list] = {}

    def run(mem, text):
        try:
            events[text] = mem.add(text, user_id="u", timestamp=T1)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(first, "I moved to Paris."), name="paris"),
               threading.Thread(target=run, args=(second, "I moved to Rome."), name="rome")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    current, every = _homes(first)
    assert len(current) == 1 and current[0] in ("Paris", "Rome")
    assert every == ["Lisbon", "Paris", "Rome"]
    # the writer that wrote second found the other's write and planned again (three plans in all); its plan saw
    # the first's home, not Lisbon: it supersedes the first's move, which had superseded Lisbon
    assert sorted(calls) in (["paris", "paris", "rome"], ["paris", "rome", "rome"])
    second_text = "I moved to Paris." if calls.count("paris") == 2 else "I moved to Rome."
    first_text = ({"I moved to Paris.", "I moved to Rome."} - {second_text}).pop()
    assert current == [second_text.split()[-1].rstrip(".")]
    assert _events(events[first_text]) == [("ADD", first_text), ("SUPERSEDE", "I live in Lisbon.")]
    assert _events(events[second_text]) == [("ADD", second_text), ("SUPERSEDE", first_text)]
    lost = next(m for m in first.get_all(user_id="u", include_superseded=True) if m.text == first_text)
    won = next(m for m in first.get_all(user_id="u") if m.text == second_text and m.fact is not None)
    assert lost.superseded_by == won.id and lost.valid_to == won.valid_from


_CHILD_WAITED = []


def _child(path, text, barrier, calls):  # a separate process: its own Memory on the same file
    from anchormem import Memory
    import anchormem.memory as mm

    original = mm.plan_facts

    def plan(*args, **kwargs):
        out = original(*args, **kwargs)
        calls.append(text)
        if not _CHILD_WAITED:  # the first plan waits for the other process's; a second plan goes on
            _CHILD_WAITED.append(1)
            barrier.wait(timeout=60)
        return out
    mm.plan_facts = plan
    with Memory(url=path, embedder=DeterministicEmbedder(64), llm=None) as mem:
        mem.add(text, user_id="u", timestamp=T1)


def test_two_processes_leave_one_current_value(backend):
    """Two processes (two API workers) on one SQLite file, or on one PostgreSQL database."""
    from anchormem import Memory

    path = backend.url
    with Memory(url=path, embedder=DeterministicEmbedder(64), llm=None) as mem:
        mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    ctx = mp.get_context("fork")
    barrier, calls = ctx.Barrier(2), ctx.Manager().list()
    procs = [ctx.Process(target=_child, args=(path, text, barrier, calls))
             for text in ("I moved to Paris.", "I moved to Rome.")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    calls = list(calls)
    assert len(calls) == 3  # the process that wrote second planned again against the first's write
    second_text = max(set(calls), key=calls.count)
    with Memory(url=path, embedder=DeterministicEmbedder(64), llm=None) as mem:
        current, every = _homes(mem)
        lost = next(m for m in mem.get_all(user_id="u", include_superseded=True)
                    if m.valid_to is not None and m.text != "I live in Lisbon.")
        won = next(m for m in mem.get_all(user_id="u") if m.fact is not None)
    assert current == [second_text.split()[-1].rstrip(".")]
    assert every == ["Lisbon", "Paris", "Rome"]
    assert won.text == second_text and lost.superseded_by == won.id


def _lands_between_plan_and_write(monkeypatch, other, text: str, when) -> None:
    """The next add's planning is followed, before it writes, by ``other.add(text)`` (once)."""
    original = memory_mod.plan_facts

    def plan(*args, **kwargs):
        out = original(*args, **kwargs)
        monkeypatch.setattr(memory_mod, "plan_facts", original)
        other.add(text, user_id="u", timestamp=when)
        return out
    monkeypatch.setattr(memory_mod, "plan_facts", plan)


def test_a_write_planned_before_a_newer_one_landed_is_stored_closed(backend, monkeypatch):
    """The older statement is planned against Lisbon, but a newer change lands before it writes: it is stored
    already superseded by the newer one, never current."""
    mem = backend.memory()
    mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    other = backend.memory()
    _lands_between_plan_and_write(monkeypatch, other, "I moved to Rome.", T1)
    evs = mem.add("I moved to Paris.", user_id="u", timestamp="2024-02-10T10:00:00Z")
    paris = next(e for e in evs if e.memory.text == "I moved to Paris.")
    assert paris.event == "ADD_SUPERSEDED" and paris.memory.valid_to is not None
    current, every = _homes(mem)
    assert current == ["Rome"] and every == ["Lisbon", "Paris", "Rome"]


def test_a_write_planned_at_an_old_generation_writes_nothing(backend):
    """The store half of optimistic concurrency: ``write(expect_generation=...)`` refuses (StaleWriteError, nothing
    written) once another write of the user moved its generation, and writes when it has not."""
    from anchormem.errors import StaleWriteError

    from .test_contract import make, scope

    store = backend.open()
    embed = DeterministicEmbedder(64).embed_query
    gen = store.scope_generation("default", "alice")
    store.write([], [make(embed, "I drink coffee every morning.")], actor="test")  # another writer, meanwhile
    moved = store.scope_generation("default", "alice")
    assert moved > gen
    with pytest.raises(StaleWriteError):
        store.write([], [make(embed, "I drink tea now.")], actor="test", expect_generation={("default", "alice"): gen})
    assert [m.text for m in store.list_memories(scope(), None)] == ["I drink coffee every morning."]
    assert store.scope_generation("default", "alice") == moved
    done = store.write([], [make(embed, "I drink tea now.")], actor="test",
                       expect_generation={("default", "alice"): moved})
    assert [r.event for r in done] == ["ADD"]
    assert sorted(m.text for m in store.list_memories(scope(), None)) == ["I drink coffee every morning.",
                                                                          "I drink tea now."]


def test_same_instant_statements_the_change_goes_after_in_either_arrival_order(backend):
    """Two statements of one slot with one timestamp (two writers, one instant): time cannot order them, but a
    change presupposes the state it ends. "I moved to Rome." stays current whichever arrived first; "I live in
    Paris." is in history: superseded by Rome when it came first, stored already closed by it when it came second.
    Two changes, or two plain statements, keep arrival order (the later one current)."""
    for n, (first, second, now) in enumerate([("I live in Paris.", "I moved to Rome.", "Rome"),
                               ("I moved to Rome.", "I live in Paris.", "Rome"),
                               ("I moved to Paris.", "I moved to Rome.", "Rome"),
                               ("I moved to Rome.", "I moved to Paris.", "Paris")]):
        mem = backend.memory()
        user = f"u{n}"
        mem.add("I live in Lisbon.", user_id=user, timestamp=T0)
        one = _events(mem.add(first, user_id=user, timestamp=T1))
        two = _events(mem.add(second, user_id=user, timestamp=T1))
        homes = [m for m in mem.get_all(user_id=user, include_superseded=True) if m.fact is not None]
        assert sorted(m.fact.value for m in homes if m.valid_to is None) == [now], (first, second)
        assert sorted(m.fact.value for m in homes) == sorted(["Lisbon", "Paris", "Rome"]), (first, second)
        assert one == [("ADD", first), ("SUPERSEDE", "I live in Lisbon.")]
        if second == "I live in Paris.":
            assert two == [("ADD_SUPERSEDED", second)]
            paris = next(m for m in homes if m.fact.value == "Paris")
            rome = next(m for m in homes if m.fact.value == "Rome")
            assert paris.superseded_by == rome.id and paris.valid_to == rome.valid_from
        else:
            assert two == [("ADD", second), ("SUPERSEDE", first)]


def test_same_instant_order_in_chinese_and_for_amounts(backend):
    mem = backend.memory()
    mem.add("我住在上海。", user_id="zh", timestamp=T0)
    mem.add("我搬到了广州。", user_id="zh", timestamp=T1)
    assert _events(mem.add("我住在北京。", user_id="zh", timestamp=T1)) == [("ADD_SUPERSEDED", "我住在北京。")]
    assert [m.fact.value for m in mem.get_all(user_id="zh") if m.fact is not None] == ["广州"]
    mem.add("My rent is 1200.", user_id="en", timestamp=T0)
    mem.add("My rent went up to 1400.", user_id="en", timestamp=T1)
    assert _events(mem.add("My rent is 1300.", user_id="en", timestamp=T1)) == [("ADD_SUPERSEDED", "My rent is 1300.")]
    assert [m.fact.value for m in mem.get_all(user_id="en") if m.fact is not None] == ["1400"]


def test_the_turns_of_one_add_keep_their_order_at_one_instant(backend):
    """Within one add the turns' order is known: a plain statement after a change in the same call is the later
    word (no reordering of one call's own turns)."""
    mem = backend.memory()
    mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    mem.add([{"role": "user", "content": "I moved to Rome."}, {"role": "user", "content": "I live in Paris."}],
            user_id="u", timestamp=T1)
    assert [m.fact.value for m in mem.get_all(user_id="u") if m.fact is not None] == ["Paris"]


def _counted_plans(monkeypatch) -> list[str]:
    """A list that gets one "plan" per planning of an add from now on."""
    calls: list[str] = []
    original = memory_mod.plan_facts

    def plan(*args, **kwargs):
        calls.append("plan")
        return original(*args, **kwargs)
    monkeypatch.setattr(memory_mod, "plan_facts", plan)
    return calls


def test_a_single_writer_plans_each_add_once(backend, monkeypatch):
    """No other writer: every add is planned once (the generation read before planning is the one the write finds),
    tokenised PII (vault rows written before the write) included."""
    calls = _counted_plans(monkeypatch)
    mem = backend.memory(settings=Settings(pii="tokenize", pii_key="k" * 32))
    texts = ["I live in Lisbon.", "My email is sam@example.com.", "I moved to Berlin.", "I moved to Berlin."]
    for n, text in enumerate(texts):
        mem.add(text, user_id="u", session_id="s", timestamp=f"2024-0{n + 1}-10T10:00:00Z")
    assert len(calls) == len(texts)
    assert [m.fact.value for m in mem.get_all(user_id="u") if m.fact is not None and m.fact.attribute == "home_city"] \
        == ["Berlin"]


def test_an_add_that_keeps_losing_the_race_writes_on_its_slot_recheck(backend, monkeypatch):
    """Bounded: when other writers keep coming first (here: a generation read that is always behind), the add plans
    ``_REPLANS`` + 1 times and the last attempt writes with the in-transaction recheck of its slot alone."""
    mem = backend.memory()
    mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    calls = _counted_plans(monkeypatch)
    monkeypatch.setattr(mem.store, "scope_generation", lambda tenant, user_id: -1)
    embedded: list[list[str]] = []
    embed = mem.embedder.embed_documents
    monkeypatch.setattr(mem.embedder, "embed_documents", lambda texts: embedded.append(list(texts)) or embed(texts))
    evs = _events(mem.add("I moved to Rome.", user_id="u", timestamp=T1))
    assert len(calls) == memory_mod._REPLANS + 1 == 5
    assert embedded == [["I moved to Rome."]]  # embedded once: the re-plans reuse the first attempt's vectors
    assert evs == [("ADD", "I moved to Rome."), ("SUPERSEDE", "I live in Lisbon.")]
    assert _homes(mem) == (["Rome"], ["Lisbon", "Rome"])


def test_the_slot_recheck_orders_same_instant_statements_too(backend, monkeypatch):
    """Without a re-plan (the write checks only its slot), a plain statement planned against Lisbon while "I moved to
    Rome." of the same instant landed is stored already closed by the move: the same order as a plan makes."""
    monkeypatch.setattr(memory_mod, "_REPLANS", 0)
    mem = backend.memory()
    mem.add("I live in Lisbon.", user_id="u", timestamp=T0)
    other = backend.memory()
    _lands_between_plan_and_write(monkeypatch, other, "I moved to Rome.", T1)
    evs = mem.add("I live in Paris.", user_id="u", timestamp=T1)
    assert _events(evs) == [("ADD_SUPERSEDED", "I live in Paris.")]
    assert _homes(mem) == (["Rome"], ["Lisbon", "Paris", "Rome"])
