"""The filter language: parsing, errors, metadata keys, label./entity. fields, UTC comparisons."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import FilterError
from anchormem.context.taxonomy import DOMAIN_NAMES
from anchormem.filters import And, Cond, Not, Or, parse_filters
from anchormem.testing import frozen_clock


def test_parse_fields_operators_and_logic():
    assert parse_filters(None) is None and parse_filters({}) is None
    assert parse_filters({"source": "user"}) == Cond("source", "eq", "user")
    assert parse_filters({"label.domain": "finance", "entity.type": "name"}) == And(
        (Cond("label.domain", "eq", "finance"), Cond("entity.type", "eq", "name")))
    assert parse_filters({"metadata.category": {"in": ["work", "home"]}}) == Cond("metadata.category", "in",
                                                                                  ("work", "home"))
    assert parse_filters({"OR": [{"role": "user"}, {"kind": "fact"}]}) == Or(
        (Cond("role", "eq", "user"), Cond("kind", "eq", "fact")))
    assert parse_filters({"NOT": {"session_id": "s1"}}) == Not(Cond("session_id", "eq", "s1"))
    assert parse_filters({"confidence": {"gte": 0.5}}) == Cond("confidence", "gte", 0.5)
    z = parse_filters({"created_at": {"gte": "2025-07-25T00:00:00Z"}})
    o = parse_filters({"created_at": {"gte": "2025-07-25T08:00:00+08:00"}})
    assert z == o == Cond("created_at", "gte", datetime(2025, 7, 25, tzinfo=timezone.utc).timestamp())


@pytest.mark.parametrize("bad", [
    {"nope": 1},                                  # unknown key, no such metadata
    {"label.colour": "red"},                      # unknown label attribute
    {"entity.kind": "x"},
    {"source": {"like": "u%"}},                   # unknown operator
    {"source": {"$eq": "user"}},
    {"source": {}},                               # empty operator dict
    {"source": 5},                                # wrong value type
    {"confidence": "high"},
    {"created_at": {"gte": "yesterday"}},
    {"created_at": {"contains": "2025"}},
    {"label.domain": {"gt": "a"}},
    {"source": {"in": []}},
    {"source": {"exists": "yes"}},
    {"OR": {"role": "user"}},
    {"metadata.": 1},
    {"metadata.k": {"eq": [1, 2]}},
])
def test_bad_filters_raise_filter_error(bad):
    with pytest.raises(FilterError):
        parse_filters(bad)


def test_non_dict_filter_raises():
    for bad in (["source"], "source=user", 3):
        with pytest.raises(FilterError, match="must be a dict"):
            parse_filters(bad)


def test_bare_metadata_key_only_when_it_exists_in_scope(mem):
    work = mem.add("Project kickoff is on Monday.", user_id="A", metadata={"category": "work"})[0].memory.id
    mem.add("Dentist appointment on Tuesday.", user_id="A", metadata={"category": "personal"})
    mem.add("Gym on Wednesday.", user_id="B", metadata={"room": "3"})
    assert [h.memory.id for h in mem.search("What is scheduled this week?", user_id="A",
                                            filters={"category": "work"})] == [work]
    assert [m.id for m in mem.get_all(user_id="A", filters={"metadata.category": "work"})] == [work]
    with pytest.raises(FilterError, match="room"):  # B's key is not A's
        mem.search("gym", user_id="A", filters={"room": "3"})
    with pytest.raises(FilterError, match="catgory"):
        mem.get_all(user_id="A", filters={"catgory": "work"})
    assert mem.get_all(user_id="A", filters={"metadata.room": "3"}) == []  # explicit prefix: allowed, no match


def test_filter_operators_on_the_store(mem):
    a = mem.add("Alpha note about Berlin.", user_id="A", metadata={"n": 1, "tag": "x"},
                timestamp="2024-01-01T00:00:00Z")[0].memory.id
    b = mem.add("Beta note about Oslo.", user_id="A", metadata={"n": 5}, timestamp="2024-02-01T00:00:00Z")[0].memory.id
    c = mem.add([{"role": "assistant", "content": "Gamma reply about Rome."}], user_id="A",
                timestamp="2024-03-01T00:00:00Z")[0].memory.id
    ga = lambda f: [m.id for m in mem.get_all(user_id="A", filters=f)]  # noqa: E731
    assert ga({"metadata.n": {"gte": 2}}) == [b]
    assert ga({"metadata.tag": {"exists": True}}) == [a]
    assert ga({"metadata.tag": {"ne": "x"}}) == [b, c]
    assert ga({"role": {"nin": ["assistant"]}}) == [a, b]
    assert ga({"OR": [{"metadata.n": 1}, {"source": "assistant"}]}) == [a, c]
    assert ga({"NOT": {"source": "assistant"}}) == [a, b]
    assert ga({"entity.value": "Oslo"}) == [b]
    assert ga({"entity.type": "name", "entity.value": {"in": ["Rome", "Berlin"]}}) == [a, c]
    assert ga({"created_at": {"gt": "2024-01-15T00:00:00Z", "lt": "2024-02-15T00:00:00Z"}}) == [b]
    # label filters match exactly the memories holding that domain among their labels (hash-embedder labels
    # are arbitrary, so the expectation is read from the stored labels, and a domain no one holds matches none)
    items = {m.id: m for m in mem.get_all(user_id="A")}
    for domain in {lb.domain for m in items.values() for lb in m.labels}:
        assert ga({"label.domain": domain}) == [i for i, m in items.items() if any(lb.domain == domain
                                                                                    for lb in m.labels)]
    unheld = [d for d in DOMAIN_NAMES if d not in {lb.domain for m in items.values() for lb in m.labels}]
    assert unheld and ga({"label.domain": unheld[0]}) == []  # a taxonomy domain no memory holds: none
    with pytest.raises(FilterError, match="unknown label domain"):  # not a taxonomy domain: an error
        ga({"label.domain": "no-such-domain"})


def test_created_at_range_with_z_and_offset_bounds_agree(mem):
    with frozen_clock("2025-07-25T02:00:00Z") as clock:
        mid = mem.add("Note: renew the parking permit.", user_id="A")[0].memory.id
        clock.set("2025-07-24T23:30:00Z")
        before = mem.add("Note: call the plumber.", user_id="A")[0].memory.id
        clock.set("2025-07-26T00:00:00Z")
        mem.add("Note: water the garden.", user_id="A")
    z = {"created_at": {"gte": "2025-07-25T00:00:00Z", "lt": "2025-07-26T00:00:00Z"}}
    plus8 = {"created_at": {"gte": "2025-07-25T08:00:00+08:00", "lt": "2025-07-26T08:00:00+08:00"}}
    assert [m.id for m in mem.get_all(user_id="A", filters=z)] == [mid]
    assert [m.id for m in mem.get_all(user_id="A", filters=plus8)] == [mid]
    assert [h.memory.id for h in mem.search("note renew parking", user_id="A", filters=z)] == \
        [h.memory.id for h in mem.search("note renew parking", user_id="A", filters=plus8)] == [mid]
    local_day = {"created_at": {"gte": "2025-07-25T00:00:00+08:00", "lt": "2025-07-26T00:00:00+08:00"}}
    assert [m.id for m in mem.get_all(user_id="A", filters=local_day)] == [before, mid]


def test_a_misspelt_label_domain_is_an_error_not_an_empty_result():
    from anchormem.filters import parse_filters

    with pytest.raises(FilterError, match="unknown label domain 'fnance'; domains: finance"):
        parse_filters({"label.domain": "fnance"})
    with pytest.raises(FilterError, match="unknown label domain"):
        parse_filters({"label.domain": {"in": ["finance", "banking"]}})
    assert parse_filters({"label.domain": {"in": ["finance", "food"]}}) is not None
    assert parse_filters({"label.topic": "anything goes"}) is not None  # topics are free
