"""The search's candidate reads, every backend: ``get_many(entities=False)`` leaves entities out and nothing else,
``with_entities`` gives back what ``get_many`` reads, and a search returns its hits with their entities."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.testing import frozen_clock

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
TEXTS = ["I met Anna Schmidt in Berlin on 3 May 2024.", "My sister Clara lives in Leeds.",
         "I keep bees on the roof.", "Anna Schmidt moved to Lisbon."]


def test_candidates_without_entities_then_with_them(mem):
    with frozen_clock(T0):
        for t in TEXTS:
            mem.add(t, user_id="u")
    store = mem.store
    whole = {m.id: m for m in mem.get_all(user_id="u")}
    ids = sorted(whole)
    assert any(m.entities for m in whole.values())  # the texts name people and places
    full = store.get_many(mem.tenant, ids)
    bare = store.get_many(mem.tenant, ids, entities=False)
    assert set(bare) == set(full) == set(ids)
    for i in ids:
        assert bare[i].entities == []
        assert bare[i].model_dump(exclude={"entities"}) == full[i].model_dump(exclude={"entities"})
    again = store.with_entities(mem.tenant, [bare[i] for i in ids])
    assert [m.model_dump() for m in again] == [full[i].model_dump() for i in ids]
    assert all(bare[i].entities == [] for i in ids)  # copies: the items given are left as they were
    assert store.with_entities(mem.tenant, []) == []


def test_search_hits_carry_their_entities(mem):
    with frozen_clock(T0):
        for t in TEXTS:
            mem.add(t, user_id="u")
        hits = mem.search("Anna Schmidt", user_id="u", limit=4)
    assert hits
    for h in hits:
        stored = mem.store.get_many(mem.tenant, [h.memory.id])[h.memory.id]
        assert h.memory.entities == stored.entities
    assert any(e.value == "Anna Schmidt" for h in hits for e in h.memory.entities)
