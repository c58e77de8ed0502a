"""A purge also forgets the review queue's copies of what it removed, on every store: review items drawn from a
purged memory's turn, the approved item whose result is the purged memory, and (a narrowed ``delete_all``) the
items drawn from the purged session's turns. A pending change that only *targets* a purged memory keeps its own
proposal (its text is another turn of the user), with the purged id dropped from its targets. A repeated search
after the purge (hot cache on) returns nothing of the purged text, and the cache holds none of it."""

from __future__ import annotations

from .test_purge_scan_contract import NEEDLE, needle_columns, raw_file_hits

OLD_PHONE = "My phone number is 555-0100."
TURN = f"I keep my {NEEDLE} bike in the shed. My phone number is 555-0199."


def _pending(mem, user="u"):
    return [(r.proposed.text, r.targets) for r in mem.review_queue(user_id=user)]


def _cache_values(mem) -> bytes:
    backend = mem.cache.cache.backend
    return b"".join(v for _, v in backend._d.values())


def test_delete_purge_drops_the_review_items_drawn_from_its_turn(backend):
    mem = backend.memory()
    old = mem.add(OLD_PHONE, user_id="u", session_id="s1")[0].memory
    events = mem.add(TURN, user_id="u", session_id="s2")
    assert [e.event for e in events] == ["ADD", "REVIEW"]
    stored = events[0].memory
    assert _pending(mem) == [("My phone number is 555-0199.", [old.id])]
    assert [h.memory.id for h in mem.search(f"{NEEDLE} bike", user_id="u", limit=1)] == [stored.id]  # cached

    counts = mem.delete(stored.id, purge=True)
    assert counts["review"] == 1
    assert mem.review_queue(user_id="u", status=None) == []
    assert needle_columns(mem.store) == [] and raw_file_hits(backend) == []
    hits = mem.search(f"{NEEDLE} bike", user_id="u", limit=5)
    assert all(NEEDLE not in h.memory.text and h.memory.id != stored.id for h in hits)
    assert mem.stats["cache_search_hits"] == 0 and NEEDLE.encode() not in _cache_values(mem)
    assert [m.text for m in mem.get_all(user_id="u")] == [OLD_PHONE]


def test_delete_purge_drops_the_approved_item_that_wrote_the_memory(backend):
    mem = backend.memory()
    mem.add(OLD_PHONE, user_id="u")
    (held,) = mem.add(f"My phone number is 555-0177, ask {NEEDLE}.", user_id="u")
    assert held.event == "REVIEW"
    new = next(e.memory for e in mem.approve(held.review_id) if e.event == "ADD")
    assert [(r.status, r.result_memory_id) for r in mem.review_queue(user_id="u", status=None)] == \
        [("approved", new.id)]
    counts = mem.delete(new.id, purge=True)
    assert counts["review"] == 1 and mem.review_queue(user_id="u", status=None) == []
    assert needle_columns(mem.store) == [] and raw_file_hits(backend) == []


def test_a_pending_change_targeting_a_purged_memory_keeps_its_proposal_without_the_purged_id(backend):
    mem = backend.memory()
    old = mem.add(f"My phone number is 555-0100, ask {NEEDLE}.", user_id="u")[0].memory
    (held,) = mem.add("My phone number is 555-0199.", user_id="u")
    assert _pending(mem) == [("My phone number is 555-0199.", [old.id])]
    counts = mem.delete(old.id, purge=True)
    assert counts["review"] == 0
    assert _pending(mem) == [("My phone number is 555-0199.", [])]
    assert needle_columns(mem.store) == [] and raw_file_hits(backend) == []
    assert [e.event for e in mem.approve(held.review_id)] == ["ADD"]


def test_a_narrowed_delete_all_purge_drops_the_review_items_of_its_session_only(backend):
    mem = backend.memory()
    old = mem.add(OLD_PHONE, user_id="u", session_id="s1")[0].memory
    mem.add(f"My phone number is 555-0177, ask {NEEDLE}.", user_id="u", session_id="s2")  # review only
    mem.add(TURN, user_id="u", session_id="s2")  # a memory and a review item
    mem.add("My phone number is 555-0123.", user_id="u", session_id="s3")  # another session's review item
    assert len(mem.review_queue(user_id="u")) == 3
    assert mem.search(f"{NEEDLE} bike", user_id="u", limit=2)  # cached

    counts = mem.delete_all(user_id="u", session_id="s2", purge=True)
    assert counts["review"] == 2
    assert _pending(mem) == [("My phone number is 555-0123.", [old.id])]
    assert needle_columns(mem.store) == [] and raw_file_hits(backend) == []
    again = mem.search(f"{NEEDLE} bike", user_id="u", limit=5)
    assert all(NEEDLE not in h.memory.text for h in again) and NEEDLE.encode() not in _cache_values(mem)
    assert {m.session_id for m in mem.get_all(user_id="u")} == {"s1"}


def test_a_gc_purge_drops_the_review_items_of_the_expired_turns(backend):
    mem = backend.memory()
    mem.add(OLD_PHONE, user_id="u")
    mem.add(TURN, user_id="u", metadata={"expires_at": "2020-01-01T00:00:00Z"})
    assert len(mem.review_queue(user_id="u")) == 1
    counts = mem.gc(user_id="u", purge=True)
    assert counts["memories"] == 1 and counts["review"] == 1
    assert mem.review_queue(user_id="u", status=None) == []
    assert needle_columns(mem.store) == [] and raw_file_hits(backend) == []


def test_without_purge_the_review_queue_is_left_as_it_is(backend):
    mem = backend.memory()
    mem.add(OLD_PHONE, user_id="u")
    stored = mem.add(TURN, user_id="u")[0].memory
    mem.delete(stored.id)
    assert [r.proposed.text for r in mem.review_queue(user_id="u")] == ["My phone number is 555-0199."]
