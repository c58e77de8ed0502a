"""An open claim (anchormem.facts.relative) is carried by the older memory whose words it states
(``NewMemory.carried_by``): once its change supersedes it, that memory reads without those words, on every store."""

from __future__ import annotations

from datetime import timedelta

from anchormem.facts.claims import current_view
from anchormem.types import FactSlot

from .test_contract import T0, make


def _fact(embed, text, value, at, *, slot="amount:abc.0", carried_by=(), supersedes=()):
    nm = make(embed, text, at=at)
    nm.item.kind = "fact"
    nm.item.fact = FactSlot(entity="user", attribute=slot, value=value, extractor="relative")
    nm.carried_by = list(carried_by)
    nm.supersedes = list(supersedes)
    return nm


def test_an_open_claim_is_carried_by_the_older_memory_and_closes_its_words(store, embed):
    old = make(embed, "我们家两只狗，豆豆和旺财。")
    store.write([], [old], actor="test")
    later = T0 + timedelta(days=90)
    opened = _fact(embed, "我们家两只狗", "两只狗", T0, carried_by=[old.item.id, "no-such-memory"])
    change = _fact(embed, "现在就剩豆豆一只狗了。", "一只狗", later, supersedes=[opened.item.id])
    results = store.write([], [opened, change], actor="test")
    assert [(r.event, r.item.text) for r in results] == [
        ("ADD", "我们家两只狗"), ("ADD", "现在就剩豆豆一只狗了。"), ("SUPERSEDE", "我们家两只狗")]
    carrier = store.get("default", old.item.id)
    assert [(c.fact_id, c.value, c.valid_to == later) for c in carrier.claims] == [(opened.item.id, "两只狗", True)]
    assert carrier.valid_to is None  # the names are still said by it
    assert current_view(carrier).text == "我们…豆豆和旺财。"  # the piece left keeps its sentence's subject (ask16)
