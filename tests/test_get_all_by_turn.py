"""Issue #22 item 6: get_all(by_turn=True) shows one row per utterance; the fact memories it carries stay reachable
from its claims (nothing is lost)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest


T = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)


@pytest.fixture
def mem(mem_det):
    return mem_det


def test_by_turn_folds_the_facts_of_a_kept_utterance(mem):
    mem.add("I have a dog named Rex. I like to walk him in the park.", user_id="g", timestamp=T)
    mem.add("I live in Lisbon.", user_id="g", timestamp=T)
    plain = mem.get_all(user_id="g")
    assert [(m.kind, m.text) for m in plain] == [
        ("utterance", "I have a dog named Rex. I like to walk him in the park."),
        ("fact", "I have a dog named Rex."), ("fact", "I like to walk him in the park."),
        ("fact", "I live in Lisbon.")]
    rows = mem.get_all(user_id="g", by_turn=True)
    assert [(m.kind, m.text) for m in rows] == [
        ("utterance", "I have a dog named Rex. I like to walk him in the park."), ("fact", "I live in Lisbon.")]
    folded = {c.fact_id for c in rows[0].claims}
    assert folded == {m.id for m in plain[1:3]}  # nothing lost: each folded fact is one of its claims
    assert {mem.get(f).text for f in folded} == {"I have a dog named Rex.", "I like to walk him in the park."}


def test_by_turn_pages_the_folded_rows(mem):
    mem.add("I have a dog named Rex. I like to walk him in the park.", user_id="g", timestamp=T)
    mem.add("I live in Lisbon.", user_id="g", timestamp=T)
    mem.add("I work as a nurse.", user_id="g", timestamp=T)
    assert [m.text for m in mem.get_all(user_id="g", by_turn=True, offset=1, limit=1)] == ["I live in Lisbon."]
