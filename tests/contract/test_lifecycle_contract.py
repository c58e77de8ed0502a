"""Lifecycle on every store: expired rows hidden from search/get_all, purge_expired (scoped by tenant and user,
indexes and history kept in step), expiry renewal (set_expiry) and access tracking (touch)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from anchormem.testing import frozen_clock

T0 = datetime(2025, 7, 1, 9, 0, tzinfo=timezone.utc)


def ids(items) -> list[str]:
    return [getattr(i, "memory", i).id for i in items]


def _seed(mem, user: str):
    """One memory expiring after 1 day, one after 7 days, one permanent; returns them."""
    day = mem.add("Flash sale code ORANGE ends soon.", user_id=user, metadata={"expire_strategy": "24h"})[0].memory
    week = mem.add("My fund yielded 3.2% this week.", user_id=user, metadata={"expire_strategy": "7d"})[0].memory
    keep = mem.add("I prefer low-risk investments.", user_id=user)[0].memory
    return day, week, keep


def test_expired_memories_leave_search_and_get_all_and_gc_purges_them(mem):
    with frozen_clock(T0) as clock:
        day, week, keep = _seed(mem, "A")
        clock.advance(days=2)
        assert ids(mem.get_all(user_id="A")) == [week.id, keep.id]
        assert ids(mem.get_all(user_id="A", show_expired=True)) == [day.id, week.id, keep.id]
        assert day.id not in ids(mem.search("flash sale code", user_id="A"))
        assert day.id in ids(mem.search("flash sale code", user_id="A", show_expired=True))
        counts = mem.gc()
        assert (counts["memories"], counts["fts"], counts["users"]) == (1, 1, 1)
        assert ids(mem.get_all(user_id="A", show_expired=True)) == [week.id, keep.id]
        assert day.id not in ids(mem.search("flash sale code", user_id="A", show_expired=True))
        history = mem.history(day.id)
        assert [(h.event, h.reason, h.old_text) for h in history][-1] == ("DELETE", "expired", day.text)
        clock.advance(days=6)  # day 8
        assert mem.gc(dry_run=True) == {"memories": 1, "users": 1}
        assert mem.gc()["memories"] == 1
        assert ids(mem.get_all(user_id="A", show_expired=True)) == [keep.id]
        # dense search still answers from the remaining memory (vector caches dropped the purged rows)
        assert ids(mem.search("low-risk investments", user_id="A")) == [keep.id]


def test_purge_expired_is_scoped_by_tenant_and_user(backend):
    a = backend.memory()
    other_tenant = backend.memory(tenant="t2")
    with frozen_clock(T0) as clock:
        day_a, _, _ = _seed(a, "A")
        day_b, _, _ = _seed(a, "B")
        day_t2, _, _ = _seed(other_tenant, "A")
        clock.advance(days=2)
        counts = a.store.purge_expired(a.tenant, clock.now, user_id="A")
        assert counts["memories"] == 1
        assert day_b.id in ids(a.get_all(user_id="B", show_expired=True))
        assert day_t2.id in ids(other_tenant.get_all(user_id="A", show_expired=True))
        assert a.store.purge_expired(a.tenant, clock.now)["memories"] == 1  # B's, tenant-wide
        assert day_b.id not in ids(a.get_all(user_id="B", show_expired=True))
        assert day_t2.id in ids(other_tenant.get_all(user_id="A", show_expired=True))
        # "before" bounds what goes: nothing else has expired before day 2
        assert a.store.purge_expired(a.tenant, clock.now)["memories"] == 0
        assert a.store.purge_expired(a.tenant, clock.now + timedelta(days=30))["memories"] == 2  # the 7-day ones


def test_purge_erases_history_text_and_uncited_source_turns(mem):
    with frozen_clock(T0) as clock:
        gone = mem.add("Temporary wifi password is kiwi-42.", user_id="A", metadata={"expire_strategy": "1h"})
        mem.add("I live in Lisbon.", user_id="A")
        clock.advance(hours=2)
        n_messages = len(mem.export(user_id="A")["messages"])
        counts = mem.gc(user_id="A", purge=True)
        assert (counts["memories"], counts["history"], counts["messages"]) == (1, 1, 1)
        hist = mem.history(gone[0].memory.id)
        assert all(h.old_text is None and h.new_text is None for h in hist)
        assert (hist[-1].event, hist[-1].reason) == ("DELETE", "expired")
        assert len(mem.export(user_id="A")["messages"]) == n_messages - 1


def test_restating_renews_expiry_on_every_store(mem):
    with frozen_clock(T0) as clock:
        first = mem.add("Gate code is 2580.", user_id="A", metadata={"expire_strategy": "7d"})[0].memory
        clock.advance(days=8)
        again = mem.add("Gate code is 2580.", user_id="A", metadata={"expire_strategy": "7d"})
        assert [(e.event, e.memory.id) for e in again] == [("NOOP", first.id)]
        assert mem.get(first.id).expires_at == clock.now + timedelta(days=7)
        assert ids(mem.get_all(user_id="A")) == [first.id]


def test_search_bumps_access_on_every_store(mem):
    with frozen_clock(T0) as clock:
        kept = mem.add("I parked on level 3.", user_id="A")[0].memory
        clock.advance(minutes=5)
        for _ in range(3):
            assert ids(mem.search("parked level", user_id="A", limit=1)) == [kept.id]
        got = mem.get(kept.id)
        assert (got.access_count, got.last_accessed_at) == (3, T0 + timedelta(minutes=5))


def test_an_expired_successor_reopens_what_it_closed(mem):
    """gc removing the memory that superseded a fact reopens that fact (history REOPEN), as delete does; a fact
    that expired with it stays gone."""
    with frozen_clock(T0) as clock:
        home = mem.add("I live in Lisbon.", user_id="A")[0].memory
        clock.advance(days=1)
        moved = mem.add("I moved to Berlin.", user_id="A", metadata={"expire_strategy": "24h"})
        assert "SUPERSEDE" in [e.event for e in moved]
        assert mem.get(home.id).valid_to is not None
        clock.advance(days=2)
        assert mem.gc()["memories"] == 1
        back = mem.get(home.id)
        assert (back.valid_to, back.superseded_by) == (None, None)
        assert [h.event for h in mem.history(home.id)][-1] == "REOPEN"
        assert ids(mem.get_all(user_id="A")) == [home.id]
