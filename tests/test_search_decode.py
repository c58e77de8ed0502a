"""A search's candidate rows decoded without the JSON parser or pydantic's validation give what those give
(stores/schema.py: ``source_message_ids``, a ``valid_from`` equal to ``created_at``), and the keyword index's
ranked arrays are its ranked pairs (stores/keyword_index.py ``top_arrays``)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.stores.schema import SQLITE_JSON, _ids, json_text, memory_item, memory_values, scope_token
from anchormem.testing import DeterministicEmbedder, frozen_clock
from anchormem.types import Label, MemoryItem

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("ids", [[], ["d33bf1a84393475e86cd88f4c4b326ef"], ["a", "b c", "中文"], [""], ["", ""],
                                 ['a"b'], ["a\\b", "c"], ['", "'], ['a", "b'], ["x\n"]])
def test_source_ids_are_split_as_the_parser_reads_them(ids):
    text = json_text(ids)
    assert _ids(json.loads, text) == json.loads(text) == ids


def test_source_ids_written_otherwise_go_to_the_parser():
    assert _ids(json.loads, '["a","b"]') == ["a", "b"]  # no space after the comma: not split
    assert _ids(json.loads, '[ "a" ]') == ["a"]
    assert _ids(json.loads, "[]") == []
    assert _ids(lambda v: v, ["a", "b"]) == ["a", "b"]  # PostgreSQL's jsonb: a list already


@pytest.mark.parametrize("later", [timedelta(0), timedelta(hours=5)])
def test_a_row_decodes_to_the_memory_written(later):
    item = MemoryItem(id="m1", text="Moved to Lyon.", user_id="u", session_id="s1", created_at=T0,
                      valid_from=T0 + later, labels=[Label(domain="travel", score=0.75, primary=True)],
                      metadata={"k": "v"}, source_message_ids=["t1", "t2"], source_text="Moved to Lyon.",
                      access_count=3, last_accessed_at=T0 + timedelta(days=1))
    got = memory_item(memory_values(item, SQLITE_JSON, imported=True), SQLITE_JSON, [], [])
    assert got == item and got.model_dump() == item.model_dump()
    assert got.valid_from == T0 + later and (got.valid_from is got.created_at) == (later == timedelta(0))
    assert got.source_message_ids == ["t1", "t2"] and got.labels[0].score == 0.75


def test_keyword_index_arrays_are_its_pairs(tmp_path):
    with frozen_clock(T0), Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(32), llm=None,
                                  cache=False) as mem:
        for i in range(8):
            mem.add(f"The bees swarmed near hive number {i}, bees everywhere." if i % 2 else
                    f"A hive of {i} bees.", user_id="u")
        store = mem.store
        args = (store._read, store._kw_snapshot, scope_token(mem.tenant, "u"), ["bees", "hive"])
        rows, scores = store.keywords.top_arrays(*args, 5)
        pairs = store.keywords.top(*args, 5)
        assert len(pairs) == 5 and pairs == list(zip(rows.tolist(), scores.tolist()))
        assert scores.tolist() == sorted(scores.tolist(), reverse=True) and scores[0] > 0
        empty = store.keywords.top_arrays(*args[:3], ["nothingmatches"], 5)
        assert len(empty[0]) == 0 and store.keywords.top(*args[:3], ["nothingmatches"], 5) == []
