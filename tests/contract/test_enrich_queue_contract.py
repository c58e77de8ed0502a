"""The deferred-enrichment queue (``add_many(enrich="later")``) on every backend: a deleted or purged row, or a
deleted user, takes its markers along; an export holds the facts of the rows still pending (the user's queue is
drained first) and reads back exactly; workers draining one store at once enrich each row once, a user's in the
order said, leaving what one worker leaves."""

from __future__ import annotations

import threading

import pytest

from anchormem import Memory

T = "2024-01-0{}T10:0{}:00+02:00"


def _log(user: str) -> list[dict]:
    return [{"role": "user", "content": "I live in Berlin.", "timestamp": T.format(1, 0), "name": user},
            {"role": "user", "content": "I adopted a cat named Pixel.", "timestamp": T.format(1, 1), "name": user},
            {"role": "user", "content": "I work as a nurse at the city hospital.", "timestamp": T.format(2, 0)},
            {"role": "user", "content": "I moved to Munich.", "timestamp": T.format(3, 0), "name": user},
            {"role": "user", "content": "I have to renew my passport by Friday.", "timestamp": T.format(3, 1)},
            {"role": "user", "content": "Yesterday I quit the hospital and joined a clinic.",
             "timestamp": T.format(4, 0)},
            {"role": "user", "content": "I moved to Hamburg.", "timestamp": T.format(5, 0), "name": user}]


def _state(m: Memory, user: str) -> list[tuple]:
    return sorted((x.kind, x.text, x.valid_to is None, x.fact.slot if x.fact else None, x.created_at.isoformat(),
                   tuple(sorted((c.slot, c.value, c.valid_to is None) for c in x.claims)))
                  for x in m.get_all(user_id=user, include_superseded=True))


def _markers(mem: Memory) -> dict[str, int]:
    return mem.store.pending_counts(mem.tenant)


def test_deleting_a_pending_row_or_its_user_takes_the_markers_along(backend):
    mem = backend.memory(llm=None, cache=False)
    mem.add_many(_log("Ann"), user_id="ann", enrich="later")
    mem.add_many(_log("Bo"), user_id="bo", enrich="later")
    assert _markers(mem) == {"ann": 7, "bo": 7}
    first = mem.search("Pixel", user_id="ann", limit=1)[0].memory  # (a plain search: nothing enriched)
    mem.delete(first.id)
    assert _markers(mem) == {"ann": 6, "bo": 7}
    cat = mem.search("Berlin", user_id="ann", limit=1)[0].memory
    mem.delete(cat.id, purge=True)
    assert _markers(mem) == {"ann": 5, "bo": 7}
    mem.delete_all(user_id="ann", purge=True)
    assert _markers(mem) == {"bo": 7} and mem.pending("ann") == 0
    assert mem.enrich()["enriched"] == 7 and _markers(mem) == {}


def test_export_holds_the_facts_of_pending_rows_and_reads_back_exactly(backend, target):
    eager = backend.memory(llm=None, cache=False)
    eager.add_many(_log("Ann"), user_id="eager")
    mem = backend.memory(llm=None, cache=False)
    mem.add_many(_log("Ann"), user_id="ann", enrich="later")
    doc = mem.export(user_id="ann")
    assert mem.pending("ann") == 0  # drained first: the export is the state an eager add leaves
    assert _state(mem, "ann") == _state(eager, "eager")
    assert {m["text"] for m in doc["memories"] if m["kind"] == "fact" and m["valid_to"] is None} >= {
        "I moved to Hamburg."}
    dst = target.memory(llm=None, cache=False)
    dst.import_memories(doc)
    assert dst.pending() == 0 and _state(dst, "ann") == _state(mem, "ann")
    again = dst.export(user_id="ann")
    assert [m["id"] for m in again["memories"]] == [m["id"] for m in doc["memories"]]


@pytest.mark.parametrize("call", ["sweep", "one_user"])
def test_two_workers_draining_at_once_enrich_each_row_once(backend, call):
    """Two Memory objects (each its own connections) drain the queue of three users at once, one turn per write
    (21 batches per worker to take): the rows they settle add up to the rows queued, and every user ends as one
    worker's drain leaves it (an eager add's state)."""
    users = ["ann", "bo", "cy"]
    ref = backend.memory(llm=None, cache=False)
    for u in users:
        ref.add_many(_log(u.title()), user_id="eager-" + u, batch_size=1)
    loader = backend.memory(llm=None, cache=False)
    for u in users:
        loader.add_many(_log(u.title()), user_id=u, batch_size=1, enrich="later")
    assert sum(_markers(loader).values()) == 21
    workers = [backend.memory(llm=None, cache=False) for _ in range(2)]
    got: list[dict] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run(m: Memory) -> None:
        try:
            start.wait()
            if call == "sweep":
                got.append(m.enrich())
            else:
                total = {"enriched": 0}
                for u in users:
                    total["enriched"] += m.enrich(u)["enriched"]
                got.append(total)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(m,)) for m in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    left = loader.enrich()["enriched"]  # a sweep passes by a user the other worker held: left for it (none here)
    assert sum(g["enriched"] for g in got) + left == 21
    assert _markers(loader) == {}
    for u in users:
        assert _state(loader, u) == _state(ref, "eager-" + u), u


def test_the_users_enrichment_lock_is_taken_by_one_worker_at_a_time(backend):
    """PostgreSQL: a second store's try on a held user fails until the holder lets go; the holder's own thread
    takes it again (re-entrant). SQLite: no lock (its writers serialise on the file)."""
    a, b = backend.open(), backend.open()
    with a.enrich_lock("t", "u") as got:
        assert got is True
        with a.enrich_lock("t", "u") as again:  # the same thread, nested
            assert again is True
        with b.enrich_lock("t", "u", wait=False) as other:
            assert other is (backend.name == "sqlite")
        with b.enrich_lock("t", "v", wait=False) as other_user:
            assert other_user is True
    with b.enrich_lock("t", "u", wait=False) as after:
        assert after is True
