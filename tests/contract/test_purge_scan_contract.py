"""A purge leaves no copy of the user's text anywhere in the database, on every store.

Each test puts a distinctive needle in a memory's text, its edited text, the edit's reason, a tier move's reason,
a metadata key, a review item and a memory deleted earlier without purge; purges; then reads every column of every
table (SQLite: also the FTS5 shadow tables and the raw file bytes) and asserts the needle is in none of them.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

NEEDLE = "Qwzxorblat"  # one token, no stem change, in no English or Chinese word list
T1 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _tables_and_columns(store) -> list[tuple[str, str]]:
    if type(store).__name__ == "SQLiteStore":
        out = []
        for (t,) in store._read("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"):
            out += [(t, r[1]) for r in store._read(f'PRAGMA table_info("{t}")')]
        return out
    return [(t, c) for t, c in store._read(
        "SELECT table_name, column_name FROM information_schema.columns c JOIN information_schema.tables t "
        "USING (table_schema, table_name) WHERE table_schema = current_schema() AND t.table_type = 'BASE TABLE'")]


def needle_columns(store, needle: str = NEEDLE) -> list[str]:
    """``"table.column"`` of every column of every table holding ``needle`` (case-insensitive; values cast to text,
    so vectors, JSON and tsvectors are read too)."""
    ph = store._filters.param
    found = []
    for t, c in _tables_and_columns(store):
        if type(store).__name__ == "SQLiteStore":
            sql = f'SELECT count(*) FROM "{t}" WHERE instr(lower(CAST("{c}" AS TEXT)), lower({ph})) > 0'
        else:
            sql = f'SELECT count(*) FROM "{t}" WHERE position(lower({ph}) in lower(CAST("{c}" AS text))) > 0'
        if store._read(sql, [needle])[0][0]:
            found.append(f"{t}.{c}")
    return sorted(found)


def raw_file_hits(backend, needle: str = NEEDLE) -> list[str]:
    """SQLite files (database, WAL and every file of the ``<db>.vec`` index folder) whose bytes hold the needle;
    [] on PostgreSQL (tests/contract/test_physical_forget_pg.py scans its data files) or an encrypted file."""
    if backend.name != "sqlite" or os.environ.get("ANCHORMEM_TEST_ENCRYPT"):
        return []
    path = Path(backend.url[len("sqlite:///"):])
    index_dir = Path(str(path) + ".vec")
    files = [path, Path(str(path) + "-wal"), *(sorted(index_dir.iterdir()) if index_dir.is_dir() else [])]
    return [p.name for p in files if p.is_file()
            and (needle.encode() in p.read_bytes() or needle.lower().encode() in p.read_bytes())]


def _fill(mem, user: str) -> dict[str, str]:
    """Put the needle in every place a user's text can reach; returns the ids used."""
    home = mem.add(f"I live in Lisbon near {NEEDLE} square.", user_id=user, timestamp=T1)[0].memory
    mem.update(home.id, f"I live in Berlin near {NEEDLE} park.", reason=f"user corrected it: {NEEDLE}")
    hike = mem.add("I went hiking in the Dolomites.", user_id=user, timestamp=T1, metadata={NEEDLE: "x"})[0].memory
    mem.archive([hike.id], reason=f"archived because {NEEDLE}")
    mem.restore([hike.id], reason=f"restored because {NEEDLE}")
    gone = mem.add(f"My {NEEDLE} bicycle is red.", user_id=user, timestamp=T1)[0].memory
    mem.delete(gone.id)  # not purged: the DELETE history row keeps the text
    mem.add("My favourite tea is oolong.", user_id=user, timestamp=T1)
    held = mem.add(f"I think my favourite tea is {NEEDLE} chai.", user_id=user, timestamp=T1 + timedelta(days=30))
    assert [e.event for e in held] == ["REVIEW"]
    return {"home": home.id, "hike": hike.id, "gone": gone.id}


def test_delete_all_purge_leaves_the_needle_in_no_table(backend):
    mem = backend.memory()
    _fill(mem, "u")
    mem.add("Someone else's note without it.", user_id="v")
    before = needle_columns(mem.store)
    # the scan sees every kind of copy before the purge (a scan that finds nothing proves nothing)
    assert {"memory_history.reason", "memory_history.old_text", "memory_history.new_text", "messages.content",
            "memories.text", "review_queue.proposed", "metadata_keys.key"} <= set(before), before
    counts = mem.delete_all(user_id="u", purge=True)
    assert counts["review"] == 1
    assert needle_columns(mem.store) == []
    assert raw_file_hits(backend) == []
    assert [m.text for m in mem.get_all(user_id="v")] == ["Someone else's note without it."]


def test_delete_one_purge_erases_its_update_reason_and_texts(backend):
    mem = backend.memory()
    home = mem.add(f"I live in Lisbon near {NEEDLE} square.", user_id="u", timestamp=T1)[0].memory
    mem.update(home.id, f"I live in Berlin near {NEEDLE} park.", reason=f"user corrected it: {NEEDLE}")
    mem.archive([home.id], reason=f"archived because {NEEDLE}")
    kept = mem.add("I water the plants on Fridays.", user_id="u", timestamp=T1)[0].memory
    assert "memory_history.reason" in needle_columns(mem.store)
    mem.delete(home.id, purge=True)
    assert needle_columns(mem.store) == []
    assert raw_file_hits(backend) == []
    hist = mem.history(home.id)
    assert [h.event for h in hist] == ["ADD", "UPDATE", "ARCHIVE", "DELETE"]
    assert [(h.old_text, h.new_text, h.reason) for h in hist[:3]] == [(None, None, None)] * 3
    assert hist[3].reason == "purge"
    assert [m.id for m in mem.get_all(user_id="u")] == [kept.id]
