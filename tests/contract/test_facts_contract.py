"""Facts on every store: supersede with validity times, NOOP on restatement, as_of reads, the review queue."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.errors import ConflictError, NotFoundError

T1 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=30)
T3 = T2 + timedelta(days=30)


def events(evs):
    return [(e.event, e.memory.text) for e in evs]


def test_reversed_preference_supersedes_and_keeps_history(mem):
    """Case C3: the dislike is current and first; the like is closed (valid_to set), not lost."""
    like = mem.add("I really enjoy spicy food.", user_id="A", timestamp=T1)
    assert events(like) == [("ADD", "I really enjoy spicy food.")]
    old = like[0].memory
    assert (old.kind, old.fact.attribute, old.fact.polarity, old.valid_to) == ("fact", "likes:spicy food", 1, None)
    evs = mem.add("Actually, I can't stand spicy food any more.", user_id="A", timestamp=T2)
    assert events(evs) == [("ADD", "Actually, I can't stand spicy food any more."),
                           ("SUPERSEDE", "I really enjoy spicy food.")]
    new, closed = evs[0].memory, evs[1].memory
    assert (new.fact.attribute, new.fact.polarity, new.valid_from) == ("likes:spicy food", -1, T2)
    assert (closed.id, closed.valid_to, closed.superseded_by) == (old.id, T2, new.id)
    hits = mem.search("Does the user like spicy food?", user_id="A")
    assert [h.memory.id for h in hits] == [new.id]
    assert [m.id for m in mem.get_all(user_id="A")] == [new.id]
    assert [m.id for m in mem.get_all(user_id="A", include_superseded=True)] == [old.id, new.id]
    assert [(h.event, h.reason) for h in mem.history(old.id)] == [("ADD", None), ("SUPERSEDE", f"superseded by {new.id}")]
    # what was true in between
    assert [h.memory.id for h in mem.search("spicy food", user_id="A", as_of=T1 + timedelta(days=1))] == [old.id]
    assert [h.memory.id for h in mem.search("spicy food", user_id="A", as_of=T2 + timedelta(days=1))] == [new.id]
    assert mem.search("spicy food", user_id="A", as_of=T1 - timedelta(days=1)) == []


def test_restating_a_fact_is_a_noop_with_the_same_id(mem):
    first = mem.add("I live in Lisbon.", user_id="A", timestamp=T1)[0].memory
    again = mem.add("I live in Lisbon!", user_id="A", timestamp=T2)
    assert [(e.event, e.memory.id) for e in again] == [("NOOP", first.id)]
    assert [m.id for m in mem.get_all(user_id="A", include_superseded=True)] == [first.id]


def test_a_new_value_closes_only_its_own_slot(mem):
    mem.add("I live in Berlin.", user_id="A", timestamp=T1)
    cat = mem.add("My cat is called Tom.", user_id="A", timestamp=T1)[0].memory
    evs = mem.add("I moved to Munich last month.", user_id="A", timestamp=T2)
    assert events(evs) == [("ADD", "I moved to Munich last month."), ("SUPERSEDE", "I live in Berlin.")]
    current = {m.text for m in mem.get_all(user_id="A")}
    assert current == {"My cat is called Tom.", "I moved to Munich last month."}
    assert mem.get(cat.id).valid_to is None
    # speakers are separate entities: Melanie moving does not move Caroline
    mem.add([{"role": "user", "name": "Caroline", "content": "I live in Boston."}], user_id="B", timestamp=T1)
    evs = mem.add([{"role": "user", "name": "Melanie", "content": "I live in Denver."}], user_id="B", timestamp=T2)
    assert [e.event for e in evs] == ["ADD"]
    assert {m.fact.entity for m in mem.get_all(user_id="B")} == {"Caroline", "Melanie"}


def test_negation_of_the_current_value_keeps_the_topic_non_empty(mem):
    mem.add("I work at Company K.", user_id="A", timestamp=T1)
    evs = mem.add("I no longer work at Company K.", user_id="A", timestamp=T2)
    assert events(evs) == [("ADD", "I no longer work at Company K."), ("SUPERSEDE", "I work at Company K.")]
    assert [(m.text, m.fact.polarity) for m in mem.get_all(user_id="A")] == [("I no longer work at Company K.", -1)]


def test_a_late_arriving_older_statement_is_stored_already_closed(mem):
    newer = mem.add("I live in Oslo.", user_id="A", timestamp=T3)[0].memory
    evs = mem.add("I live in Bergen.", user_id="A", timestamp=T1)  # an import of an older conversation
    assert [e.event for e in evs] == ["ADD_SUPERSEDED"]  # issue 22: not a plain ADD
    older = evs[0].memory
    assert (older.valid_from, older.valid_to, older.superseded_by) == (T1, T3, newer.id)
    assert [m.text for m in mem.get_all(user_id="A")] == ["I live in Oslo."]
    assert [h.memory.text for h in mem.search("where do I live", user_id="A", as_of=T2)] == ["I live in Bergen."]


def test_a_late_older_statement_is_closed_by_the_next_one_said_after_it(mem):
    """Sheffield (said first) imported after Leeds and Manchester: it held until Leeds was said, not until today's
    Manchester."""
    leeds = mem.add("I live in Leeds.", user_id="L", timestamp=T2)[0].memory
    mem.add("I live in Manchester.", user_id="L", timestamp=T3)
    evs = mem.add("I live in Sheffield.", user_id="L", timestamp=T1)
    assert [e.event for e in evs] == ["ADD_SUPERSEDED"]
    older = evs[0].memory
    assert (older.valid_from, older.valid_to, older.superseded_by) == (T1, T2, leeds.id)
    between = T1 + timedelta(days=10)
    assert [h.memory.text for h in mem.search("where do I live", user_id="L", as_of=between)] == \
        ["I live in Sheffield."]
    assert "I live in Sheffield." not in [h.memory.text for h in mem.search("where do I live", user_id="L",
                                                                              as_of=T2 + timedelta(days=1))]


def test_sensitive_or_uncertain_changes_wait_for_review(mem):
    mem.add("My favourite tea is oolong.", user_id="A", timestamp=T1)
    evs = mem.add("Maybe my favourite tea is green tea.", user_id="A", timestamp=T2)  # 0.6 vs 1.0
    assert [(e.event, e.memory.text) for e in evs] == [("REVIEW", "Maybe my favourite tea is green tea.")]
    rid = evs[0].review_id
    assert [m.text for m in mem.get_all(user_id="A")] == ["My favourite tea is oolong."]  # nothing applied
    queued = mem.review_queue(user_id="A")
    assert [(q.id, q.status, q.proposed.confidence) for q in queued] == [(rid, "pending", 0.6)]
    assert "confidence 0.60 vs 1.00" in queued[0].reason
    assert mem.review_queue(user_id="B") == []

    mem.add("My phone number is 555-0100.", user_id="A", timestamp=T1)
    held = mem.add("My phone number is 555-0199.", user_id="A", timestamp=T2)
    assert [e.event for e in held] == ["REVIEW"]
    assert "sensitive" in mem.review_queue(user_id="A")[1].reason

    applied = mem.approve(rid)
    assert [(e.event, e.memory.text) for e in applied] == [("ADD", "Maybe my favourite tea is green tea."),
                                                          ("SUPERSEDE", "My favourite tea is oolong.")]
    assert {m.text for m in mem.get_all(user_id="A")} == {"Maybe my favourite tea is green tea.",
                                                          "My phone number is 555-0100."}
    rejected = mem.reject(held[0].review_id)
    assert rejected.status == "rejected" and rejected.resolved_by == "review"
    assert [m.text for m in mem.get_all(user_id="A") if m.fact.attribute == "phone"] == [
        "My phone number is 555-0100."]
    assert [q.status for q in mem.review_queue(user_id="A", status=None)] == ["approved", "rejected"]
    assert mem.review_queue(user_id="A", status="approved")[0].result_memory_id == applied[0].memory.id
    with pytest.raises(ConflictError, match="already approved"):
        mem.approve(rid)
    with pytest.raises(ConflictError, match="already rejected"):
        mem.reject(held[0].review_id)
    with pytest.raises(NotFoundError):
        mem.approve("no-such-item")


def test_review_items_are_tenant_scoped_and_forgotten_with_the_user(backend):
    a, b = backend.memory(tenant="ta"), backend.memory(tenant="tb")
    a.add("My favourite tea is oolong.", user_id="u", timestamp=T1)
    rid = a.add("I think my favourite tea is chai.", user_id="u", timestamp=T2)[0].review_id
    assert b.review_queue() == []
    with pytest.raises(NotFoundError):
        b.approve(rid)
    counts = a.delete_all(user_id="u", purge=True)
    assert counts["review"] == 1
    assert a.review_queue(status=None) == []


def test_editing_a_fact_moves_its_slot_with_the_text(mem):
    item = mem.add("I moved to Lisbon last month.", user_id="A", timestamp=T1)[0].memory
    edited = mem.update(item.id, "I moved to Porto last month.")
    assert (edited.fact.attribute, edited.fact.value) == ("home_city", "Porto")
    assert mem.get(item.id).fact.value == "Porto"
    # the edited value is the current one: restating it is a NOOP, a new city supersedes it
    assert [e.event for e in mem.add("I moved to Porto last month!", user_id="A", timestamp=T2)] == ["NOOP"]
    evs = mem.add("I live in Faro.", user_id="A", timestamp=T3)
    assert [(e.event, e.memory.id if e.event == "SUPERSEDE" else None) for e in evs] == [
        ("ADD", None), ("SUPERSEDE", item.id)]
    other = mem.add("My cat is called Tom.", user_id="A", timestamp=T1)[0].memory
    assert mem.update(other.id, "Tom is sleeping.").fact is None and mem.get(other.id).fact is None
