"""Id prefixes (the CLI's shortened ids, ``anchormem.stores.id_prefix``) on SQLite and PostgreSQL alike."""

from __future__ import annotations

from anchormem.cli.ids import resolve_id, short_ids
from anchormem.stores.id_prefix import all_ids, ids_with_prefix


def test_prefix_lookup_on_every_backend(mem):
    a = mem.add("I grow tomatoes on the balcony.", user_id="al")[0].memory.id
    b = mem.add("My bike is a blue gravel bike.", user_id="al")[0].memory.id
    mem.add("My phone number is 555-0100.", user_id="al")
    rid = mem.add("My phone number is 555-0199.", user_id="al")[0].review_id
    assert ids_with_prefix(mem.store, mem.tenant, "memory", a[:6]) == [a]
    assert ids_with_prefix(mem.store, mem.tenant, "memory", a) == [a]
    assert ids_with_prefix(mem.store, mem.tenant, "memory", "%") == []  # no wildcards
    assert ids_with_prefix(mem.store, "other-tenant", "memory", a[:6]) == []
    assert ids_with_prefix(mem.store, mem.tenant, "review", rid[:6]) == [rid]
    assert {a, b} <= set(all_ids(mem.store, mem.tenant, "memory"))
    assert resolve_id(mem, a[:6]) == a and resolve_id(mem, rid[:7], "review") == rid
    mem.delete(b, purge=False)
    assert resolve_id(mem, b[:8]) == b  # its history is still there, so `anchormem history` can read it
    assert short_ids(mem, [a]) == {a: a[:8]}
