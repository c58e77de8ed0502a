"""Physical forgetting on PostgreSQL: after ``delete_all(purge=True, physical=True)`` (or a purge followed by
``store.rewrite_tables()``) and a CHECKPOINT, no data file of any relation a user's data lives in (the tables,
their TOAST tables and TOAST indexes, every index, ``ix_mem_tsv`` included, every fork and segment) holds a byte
of the purged text. Before the purge the same scan finds it (a scan that finds nothing proves nothing), and after
it the other user's text is still found (the scan reads the new files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchormem import Memory
from anchormem.errors import InvalidInputError
from anchormem.stores.pg_physical import USER_TABLES
from anchormem.testing import DeterministicEmbedder

from .conftest import DIM
from .test_purge_scan_contract import NEEDLE, T1, _fill, needle_columns

OTHER = "Vrimblestock"  # another user's word: must survive, and be found by the same scan


@pytest.fixture
def pg_mem(pg_server):
    mem = Memory(url=pg_server.new_database(), embedder=DeterministicEmbedder(DIM), llm=None, cache=False)
    yield mem
    mem.close()


def relation_files(store) -> dict[str, list[Path]]:
    """``relation name -> its data files`` (main fork and its segments, free space map, visibility map) for every
    table of :data:`USER_TABLES`, its TOAST table, the TOAST index and every index of both."""
    data_dir = Path(store._read("SHOW data_directory")[0][0])
    rels = store._read(
        "WITH t AS (SELECT c.oid, c.reltoastrelid FROM pg_class c WHERE c.oid = ANY(%s::regclass[])), "
        "r AS (SELECT oid FROM t UNION SELECT reltoastrelid FROM t WHERE reltoastrelid <> 0 "
        "UNION SELECT i.indexrelid FROM pg_index i WHERE i.indrelid IN (SELECT oid FROM t UNION "
        "SELECT reltoastrelid FROM t)) "
        "SELECT c.relname, pg_relation_filepath(c.oid) FROM r JOIN pg_class c ON c.oid = r.oid", [list(USER_TABLES)])
    out: dict[str, list[Path]] = {}
    for name, rel in rels:
        base = data_dir / rel
        out[name] = sorted(p for p in base.parent.glob(base.name + "*")
                           if p.name == base.name or p.name[len(base.name)] in "._")
    return out


def files_holding(store, needle: str) -> list[str]:
    """After a CHECKPOINT (dirty pages written to the files): the relations whose files hold ``needle``
    (as written, or lower-cased: the tsvector keeps lexemes lower-cased)."""
    with store._conn() as conn:
        conn.execute("CHECKPOINT")
    forms = {needle.encode(), needle.lower().encode()}
    return sorted({name for name, paths in relation_files(store).items() for p in paths
                   if any(f in p.read_bytes() for f in forms)})


def database_files_holding(store, needle: str) -> list[str]:
    """Every file of the store's database directory (``base/<oid>``: user tables, catalogs, statistics) holding
    ``needle``, after a CHECKPOINT."""
    with store._conn() as conn:
        conn.execute("CHECKPOINT")
    data_dir = Path(store._read("SHOW data_directory")[0][0])
    oid = store._read("SELECT oid FROM pg_database WHERE datname = current_database()")[0][0]
    forms = {needle.encode(), needle.lower().encode()}
    return sorted(p.name for p in (data_dir / "base" / str(oid)).iterdir()
                  if p.is_file() and any(f in p.read_bytes() for f in forms))


def test_delete_all_physical_leaves_no_byte_in_any_relation_file(pg_mem):
    files = relation_files(pg_mem.store)
    assert {"memories", "messages", "memory_history", "ix_mem_tsv"} <= set(files)
    assert any(n.startswith("pg_toast_") for n in files)  # TOAST tables and their indexes are scanned too
    _fill(pg_mem, "u")
    pg_mem.add(f"I keep bees in {OTHER} valley.", user_id="v", timestamp=T1)
    with pg_mem.store._conn() as conn:
        conn.execute("ANALYZE")  # as autovacuum would: the statistics now quote the user's words
    before = files_holding(pg_mem.store, NEEDLE)
    assert {"memories", "messages", "memory_history", "ix_mem_tsv"} <= set(before), before
    stats_file = str(pg_mem.store._read("SELECT pg_relation_filenode('pg_catalog.pg_statistic')")[0][0])
    assert stats_file in database_files_holding(pg_mem.store, NEEDLE)  # the statistics quote it too
    counts = pg_mem.delete_all(user_id="u", purge=True, physical=True)
    assert counts["rewritten"] == len(USER_TABLES)
    assert needle_columns(pg_mem.store) == []
    assert files_holding(pg_mem.store, NEEDLE) == []
    left = database_files_holding(pg_mem.store, NEEDLE)  # superuser here: pg_statistic rewritten too
    assert left == [], pg_mem.store._read("SELECT relname FROM pg_class WHERE relfilenode::text = ANY(%s)", (left,))
    assert {"memories", "messages", "ix_mem_tsv"} <= set(files_holding(pg_mem.store, OTHER))
    # what the rewrite does not reach (docs/privacy.md): the WAL still holds the inserts, until recycled
    wal = Path(pg_mem.store._read("SHOW data_directory")[0][0]) / "pg_wal"
    assert any(NEEDLE.encode() in p.read_bytes() for p in wal.iterdir() if p.is_file())
    assert [m.text for m in pg_mem.get_all(user_id="v")] == [f"I keep bees in {OTHER} valley."]
    assert [h.memory.text for h in pg_mem.search(OTHER, user_id="v")] == [f"I keep bees in {OTHER} valley."]


def test_a_purge_alone_leaves_bytes_that_rewrite_tables_removes(pg_mem):
    """One memory purged (``delete(purge=True)``): the rows are gone from every column, but a plain VACUUM leaves
    the bytes in the files; ``rewrite_tables`` removes them."""
    mid = pg_mem.add(f"My {NEEDLE} password hint is the cat.", user_id="u", timestamp=T1)[0].memory.id
    kept = pg_mem.add("I water the plants on Fridays.", user_id="u", timestamp=T1)[0].memory.id
    pg_mem.delete(mid, purge=True)
    assert needle_columns(pg_mem.store) == []
    with pg_mem.store._conn() as conn:
        conn.execute("VACUUM memories, messages, memory_history")
    assert "memories" in files_holding(pg_mem.store, NEEDLE)  # logical forgetting only
    assert pg_mem.store.rewrite_tables() == list(USER_TABLES)
    assert files_holding(pg_mem.store, NEEDLE) == []
    assert [m.id for m in pg_mem.get_all(user_id="u")] == [kept]


def test_physical_needs_purge_and_tables_must_be_anchormems(pg_mem):
    pg_mem.add("I like tea.", user_id="u")
    for physical, purge in ((True, False), ("yes", True), (1, True)):
        with pytest.raises(InvalidInputError, match="physical must be a bool and needs purge=True"):
            pg_mem.delete_all(user_id="u", physical=physical, purge=purge)
    assert len(pg_mem.get_all(user_id="u")) == 1  # nothing deleted
    with pytest.raises(InvalidInputError, match="pg_class"):
        pg_mem.store.rewrite_tables(["pg_class"])


def test_physical_on_sqlite_is_the_purge_itself(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder=DeterministicEmbedder(DIM), llm=None) as mem:
        mem.add(f"My {NEEDLE} bicycle is red.", user_id="u")
        assert mem.delete_all(user_id="u", purge=True, physical=True)["rewritten"] == 0
        data = (tmp_path / "m.db").read_bytes() + (tmp_path / "m.db-wal").read_bytes()
        assert NEEDLE.encode() not in data and NEEDLE.lower().encode() not in data


def test_the_cli_forget_purge_physical(pg_server, monkeypatch):
    import json

    from typer.testing import CliRunner

    from anchormem.cli import app

    url = pg_server.new_database()
    monkeypatch.setenv("ANCHORMEM_URL", url)
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    runner = CliRunner()
    for user, text in (("u", f"My {NEEDLE} locker is number 12."), ("v", f"I keep bees in {OTHER} valley.")):
        assert runner.invoke(app, ["add", text, "--user", user]).exit_code == 0
    res = runner.invoke(app, ["--json", "forget", "--user", "u", "--physical", "--yes"])
    assert res.exit_code == 2 and "purge" in res.output  # --physical alone: refused, nothing deleted
    res = runner.invoke(app, ["--json", "forget", "--user", "u", "--purge", "--physical", "--yes"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["rewritten"] == len(USER_TABLES)
    with Memory(url=url, embedder="hash", llm=None, cache=False) as mem:
        assert files_holding(mem.store, NEEDLE) == []
        assert "memories" in files_holding(mem.store, OTHER)
        mid = mem.add(f"Another {NEEDLE} note.", user_id="v")[0].memory.id
    res = runner.invoke(app, ["--json", "forget-memory", mid, "--purge", "--physical"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["rewritten"] == len(USER_TABLES)
    with Memory(url=url, embedder="hash", llm=None, cache=False) as mem:
        assert files_holding(mem.store, NEEDLE) == []
