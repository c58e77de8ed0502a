"""The searches' access-count bumps are kept in the process and written in batches (stores/touches.py): every read
of the process sees them exactly, a write, a read of the counts or closing the store writes them."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from anchormem import Memory
from anchormem.stores.touches import PendingTouches
from anchormem.testing import frozen_clock

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def _stored(db, mid: str) -> tuple[int, float | None]:
    """(access_count, last_accessed_at) as written in the file, read by another connection."""
    with sqlite3.connect(db) as c:
        return c.execute("SELECT access_count, last_accessed_at FROM memories WHERE id=?", (mid,)).fetchone()


def _filled(tmp_path):
    db = tmp_path / "m.db"
    mem = Memory(str(db), embedder="hash", llm=None)
    with frozen_clock(T0):
        kept = mem.add("I parked on level 3.", user_id="a")[0].memory
        mem.add("Bananas are yellow.", user_id="a")
    return db, mem, kept


def test_pending_bumps_are_read_exactly_and_written_on_close(tmp_path):
    db, mem, kept = _filled(tmp_path)
    with frozen_clock(T0 + timedelta(hours=1)):
        for _ in range(3):
            assert mem.search("parked level", user_id="a", limit=1)[0].memory.id == kept.id
        assert _stored(db, kept.id) == (0, None)  # kept in the process, not written yet
        hits = mem.search("parked level", user_id="a", limit=1, recipe="dense")  # the search's own reads add them
    assert hits[0].memory.access_count == 3
    assert hits[0].memory.last_accessed_at == T0 + timedelta(hours=1)
    assert _stored(db, kept.id)[0] == 0
    got = mem.get(kept.id)  # a whole-row read writes them first
    assert (got.access_count, got.last_accessed_at) == (4, T0 + timedelta(hours=1))
    assert _stored(db, kept.id) == (4, (T0 + timedelta(hours=1)).timestamp())
    with frozen_clock(T0 + timedelta(hours=2)):
        mem.search("parked level", user_id="a", limit=1)
    mem.close()
    assert _stored(db, kept.id) == (5, (T0 + timedelta(hours=2)).timestamp())


def test_a_filter_on_the_count_and_a_write_see_the_pending_bumps(tmp_path):
    db, mem, kept = _filled(tmp_path)
    with frozen_clock(T0 + timedelta(hours=1)):
        mem.search("parked level", user_id="a", limit=1)
        assert [m.id for m in mem.get_all(user_id="a", filters={"access_count": {"gte": 1}})] == [kept.id]
        mem.search("parked level", user_id="a", limit=1)
        assert _stored(db, kept.id)[0] == 1
        mem.add("The garage closes at ten.", user_id="a")  # a write's transaction writes them first
        assert _stored(db, kept.id)[0] == 2
    mem.close()


def test_two_stores_on_one_file_share_the_pending_bumps(tmp_path):
    db, mem, kept = _filled(tmp_path)
    other = Memory(str(db), embedder="hash", llm=None)
    with frozen_clock(T0 + timedelta(hours=1)):
        mem.search("parked level", user_id="a", limit=1)
        mem.search("parked level", user_id="a", limit=1)
        assert other.search("parked level", user_id="a", limit=1)[0].memory.access_count == 2
    other.close()  # either store writes them
    assert _stored(db, kept.id)[0] == 3
    mem.close()


def test_pending_bumps_are_due_by_count_and_by_age(monkeypatch):
    p = PendingTouches()
    monkeypatch.setattr(PendingTouches, "MAX_IDS", 3)
    assert p.add("t", ["a", "b"], 1.0) is False
    assert p.add("t", ["a"], 2.0) is False  # a repeat bumps twice, keeps the latest time
    assert p.get("t", "a") == (1 + 1, 2.0)
    assert p.counts("t", ["a", "b", "z"]) == {"a": 2, "b": 1} and p.times("t", ["b"]) == {"b": 1.0}
    assert p.counts("other", ["a"]) == {}
    assert p.add("t", ["c"], 3.0) is True
    assert sorted(p.take()) == [(1, 1.0, "b", "t"), (1, 3.0, "c", "t"), (2, 2.0, "a", "t")]
    assert not p and p.get("t", "a") is None
    monkeypatch.setattr(PendingTouches, "MAX_AGE", 0.0)
    assert p.add("t", ["a"], 4.0) is True


def test_the_user_summary_is_found_once_per_generation(tmp_path):
    """``context()`` asks for the user's rolled-up summary each call: kept (which memory, or none) until a write."""
    mem = Memory(str(tmp_path / "s.db"), embedder="hash", llm=None)
    with frozen_clock(T0):
        mem.add([{"role": "user", "content": "I pay 900 euros rent every month."},
                 {"role": "user", "content": "I moved to Munich last week."}], user_id="a", session_id="s1")
        lists = []
        real = mem.store.list_memories
        mem.store.list_memories = lambda *a, **kw: lists.append(1) or real(*a, **kw)
        assert mem.user_summary(user_id="a") is None and mem.user_summary(user_id="a") is None
        assert len(lists) == 1
        summary = mem.summarize(user_id="a")  # a write: the next call looks again
        lists.clear()
        got = mem.user_summary(user_id="a")
        assert got is not None and got.id == summary.id and len(lists) == 1
        again = mem.user_summary(user_id="a")  # kept: read by id
        assert again.model_dump() == got.model_dump() and len(lists) == 1
        mem.add("The garage closes at ten.", user_id="a")
        lists.clear()
        assert mem.user_summary(user_id="a").id == got.id and len(lists) == 1
    mem.close()


def test_a_read_inside_a_write_leaves_the_pending_bumps_for_the_next_flush(tmp_path):
    db, mem, kept = _filled(tmp_path)
    store = mem.store
    with frozen_clock(T0 + timedelta(hours=1)):
        mem.search("parked level", user_id="a", limit=1)  # a bump pending
        with store._tx() as c:  # noqa: SLF001 - a write's transaction (it wrote the bump first) ...
            store.touch("default", [kept.id], T0 + timedelta(hours=1))  # ... another thread's bump meanwhile ...
            assert store.get("default", kept.id).access_count == 1  # ... and a row read inside it: no nested
            c.execute("UPDATE memories SET confidence = confidence WHERE id=?", (kept.id,))  # transaction
        assert mem.get(kept.id).access_count == 2  # the bump left pending is written by the next read
    mem.close()
    assert _stored(db, kept.id)[0] == 2
