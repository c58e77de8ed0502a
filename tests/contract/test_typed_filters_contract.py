"""Typed metadata filters (anchormem.filters, "Typed comparison"), the same on every backend: a stored value and a
filter value compare only when they are of the same JSON type; booleans are not numbers; ranges never cross
types; strings order by code point; bad filter values are FilterErrors, never a driver error."""

from __future__ import annotations

import math

import pytest

from anchormem import FilterError

VALUES = {"text": "string", "yes": True, "no": False, "one": 1, "one_f": 1.0, "twenty": 20, "neg": -3.5,
          "abc": "abc", "upper": "Zed", "accent": "élan", "null": None, "big": 2 ** 62}


@pytest.fixture
def typed(mem):
    ids = {}
    for name, value in VALUES.items():
        ev = mem.add(f"Note {name} about the garden.", user_id="u", metadata={"a": value, "name": name})
        ids[ev[0].memory.id] = name
    mem.add("A note without the key.", user_id="u", metadata={"name": "missing"})
    return mem


def names(mem, filters):
    return sorted(m.metadata["name"] for m in mem.get_all(user_id="u", filters=filters))


CASES = [
    ({"a": {"gt": 10}}, ["big", "twenty"]),  # never the text "string"
    ({"a": {"lt": 10}}, ["neg", "one", "one_f"]),  # never a boolean, never a string
    ({"a": {"gte": 1, "lte": 20}}, ["one", "one_f", "twenty"]),
    ({"a": 1}, ["one", "one_f"]),  # not true
    ({"a": 1.0}, ["one", "one_f"]),
    ({"a": 0}, []),  # not false
    ({"a": True}, ["yes"]),  # not 1
    ({"a": False}, ["no"]),
    ({"a": "string"}, ["text"]),
    ({"a": {"gt": "a"}}, ["abc", "accent", "text"]),  # code point order: "Zed" < "a" < "élan"
    ({"a": {"lt": "a"}}, ["upper"]),
    ({"a": {"lt": "z"}}, ["abc", "text", "upper"]),  # no number, no boolean
    ({"a": {"in": [1, True, "abc"]}}, ["abc", "one", "one_f", "yes"]),
    ({"a": {"in": [0, "x"]}}, []),
    ({"a": {"ne": 1}}, ["abc", "accent", "big", "missing", "neg", "no", "null", "text", "twenty", "upper", "yes"]),
    ({"a": {"nin": [1, True, "abc"]}}, ["accent", "big", "missing", "neg", "no", "null", "text", "twenty",
                                        "upper"]),
    ({"a": {"contains": "TR"}}, ["text"]),  # strings only
    ({"a": {"contains": "1"}}, []),  # not the number 1
    ({"a": None}, ["missing", "null"]),
    ({"a": {"exists": True}}, ["abc", "accent", "big", "neg", "no", "one", "one_f", "text", "twenty", "upper",
                               "yes"]),
    ({"a": 2 ** 62}, ["big"]),  # a 64-bit integer compares exactly
    ({"NOT": {"a": {"gt": 10}}}, ["abc", "accent", "missing", "neg", "no", "null", "one", "one_f", "text", "upper",
                                  "yes"]),
    ({"OR": [{"a": True}, {"a": {"lt": 0}}]}, ["neg", "yes"]),
]


@pytest.mark.parametrize("filters, expected", CASES, ids=[str(c[0]) for c in CASES])
def test_typed_comparison(typed, filters, expected):
    assert names(typed, filters) == expected


def test_search_uses_the_same_typed_filters(typed):
    hits = typed.search("note about the garden", user_id="u", filters={"a": {"gt": 10}}, limit=20)
    assert sorted(h.memory.metadata["name"] for h in hits) == ["big", "twenty"]
    hits = typed.search("note about the garden", user_id="u", filters={"a": 1}, limit=20)
    assert sorted(h.memory.metadata["name"] for h in hits) == ["one", "one_f"]


@pytest.mark.parametrize("filters, message", [
    ({"a": 10 ** 30}, "64-bit range"),
    ({"a": {"lt": -(2 ** 63) - 1}}, "64-bit range"),
    ({"a": {"in": [1, 2 ** 64]}}, "64-bit range"),
    ({"a": math.nan}, "finite"),
    ({"a": {"gt": math.inf}}, "finite"),
    ({"a": "x\ud800"}, "lone surrogate"),
    ({"a": "x\x00"}, "NUL"),
    ({"a": {"gt": True}}, "number or a string"),
    ({"a": {"lte": None}}, "number or a string"),
    ({"a": {"contains": 1}}, "takes a string"),
])
def test_bad_filter_values_are_filter_errors(typed, filters, message):
    with pytest.raises(FilterError, match=message):
        typed.get_all(user_id="u", filters=filters)
    with pytest.raises(FilterError, match=message):
        typed.search("garden", user_id="u", filters=filters)
    assert len(typed.get_all(user_id="u")) == len(VALUES) + 1
