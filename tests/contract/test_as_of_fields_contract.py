"""``as_of`` is complete (issue 22): a read as of a past time shows that time's text and structured fields."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.types import Scope

T1 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)


def test_an_edited_memory_read_as_of_before_the_edit_has_its_old_fields(mem):
    item = mem.add("My phone number is 555-0142 and I call on 3 May.", user_id="u", timestamp=T1)[0].memory
    before = {(e.type, e.value) for e in mem.get(item.id).entities}
    mark = datetime.now(timezone.utc)
    fact = mem.add("I live in Lisbon.", user_id="u", timestamp=T1)[0].memory
    mem.update(item.id, "My phone number changed; I call on 9 June.")
    mem.update(fact.id, "I live in Porto.")
    assert mem.get(fact.id).fact.value == "Porto"
    then = {it.id: it for it in mem.store.list_memories(Scope(tenant=mem.tenant, user_id="u"), None, as_of=mark)}
    assert then[fact.id].text == "I live in Lisbon." and then[fact.id].fact.value == "Lisbon"
    assert {(e.type, e.value) for e in then[item.id].entities} == before
    hits = mem.search("where do I live", user_id="u", as_of=mark)
    got = next(h.memory for h in hits if h.memory.id == fact.id)
    assert (got.text, got.fact.value) == ("I live in Lisbon.", "Lisbon")
    now = next(h.memory for h in mem.search("where do I live", user_id="u") if h.memory.id == fact.id)
    assert (now.text, now.fact.value) == ("I live in Porto.", "Porto")


def test_entity_filters_as_of_then_match_then_values(mem):
    from anchormem.filters import parse_filters

    item = mem.add("The invoice total was 4,200 euros.", user_id="u", timestamp=T1)[0].memory
    old_values = {e.value for e in mem.get(item.id).entities}
    mark = datetime.now(timezone.utc)
    mem.update(item.id, "The invoice total was 5,300 euros.")
    new_values = {e.value for e in mem.get(item.id).entities} - old_values
    old_value = next(iter(old_values - {e.value for e in mem.get(item.id).entities}))
    new_value = next(iter(new_values))
    scope = Scope(tenant=mem.tenant, user_id="u")

    def ids(value, as_of=None):
        return [m.id for m in mem.store.list_memories(scope, parse_filters({"entity.value": value}), as_of=as_of)]

    assert ids(old_value) == [] and ids(new_value) == [item.id]  # now: today's values
    assert ids(old_value, mark) == [item.id] and ids(new_value, mark) == []  # then: then's values
    hits = mem.search("invoice total", user_id="u", as_of=mark, filters={"entity.value": old_value})
    assert [h.memory.text for h in hits] == ["The invoice total was 4,200 euros."]
