"""Saved indexes beside a database that was replaced: a restored backup or a diverged copy with the same generation
numbers is detected (the file's token is not the database's) and the index is reconciled / rebuilt, never served
stale (stores/vectors.py, stores/keyword_index.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from anchormem import Memory, Settings
from anchormem.types import Scope

BASE = [f"note {i}: the meeting about budget line {w} moved to room {w}" for i, w in
        enumerate(["amber", "birch", "cedar", "dune", "elm", "fjord", "grove", "heath", "inlet", "juniper"])]


def _mem(path: Path) -> Memory:
    return Memory(str(path), embedder="hash", llm=None, settings=Settings(ann_threshold=5))


def _grow(path: Path, text: str) -> None:
    with _mem(path) as mem:
        mem.add(text, user_id="u")
        assert mem.search(text, user_id="u", recipe="dense")  # past ann_threshold: the HNSW index is in use
        mem.store.keyword_search(Scope(tenant=mem.tenant, user_id="u"), ["budget"], 3, None)  # keyword index loaded


def _copy_db(src: Path, dst: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
        if Path(str(src) + suffix).exists():
            shutil.copyfile(str(src) + suffix, str(dst) + suffix)


def test_a_diverged_copy_restored_over_the_database_is_not_served_from_its_saved_indexes(tmp_path: Path) -> None:
    live, other = tmp_path / "m.db", tmp_path / "b.db"
    with _mem(live) as mem:
        mem.add_many(BASE, user_id="u")
        assert mem.search("budget", user_id="u", recipe="dense")
    _copy_db(live, other)  # a backup of this state
    _grow(live, "Zanzibar is where my sister opened her bakery")  # the live database moves on; its indexes saved
    _grow(other, "the plumber fixed the boiler in Oslo")  # the backup's copy takes another write: same counts
    _copy_db(other, live)  # ... and is restored over the live database, whose saved indexes stay
    with _mem(live) as mem:
        scope = Scope(tenant=mem.tenant, user_id="u")
        # the keyword index saved beside the other state would find Zanzibar at the rowid the plumber has here
        assert mem.store.keyword_search(scope, ["zanzibar"], 5, None) == []
        oslo = mem.store.keyword_search(scope, ["oslo"], 5, None)
        assert [mem.get(i).text for i, _ in oslo] == ["the plumber fixed the boiler in Oslo"]
        q = mem.embedder.embed_query("the plumber fixed the boiler in Oslo")
        top = mem.store.dense_search(scope, q, 1, None)
        assert mem.get(top[0][0]).text == "the plumber fixed the boiler in Oslo"
        sv = mem.store.vectors._items[(mem.tenant, "u")]  # noqa: SLF001 - the index against the database's rows
        assert sv.ann is not None and len(sv.ann) == sv.size == 11
        for rowid, i in sv.pos.items():  # every row's stored copy (at the graph's precision) is the database's vector
            saved = np.asarray(sv.ann.get(rowid))
            assert np.array_equal(saved, sv._m[i].astype(saved.dtype))  # noqa: SLF001
    # closed: both files saved again and marked in the database, so the next open takes them as they are
    import json
    import sqlite3

    info = json.loads(next((tmp_path / "m.db.vec").glob("*.json")).read_text())
    with sqlite3.connect(live) as conn:
        marks = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE '%index_token%'").fetchall())
    assert marks[f"vector_index_token:{next((tmp_path / 'm.db.vec').glob('*.json')).stem}"] == info["token"]
    with np.load(tmp_path / "m.db.kw") as z:
        assert json.loads(bytes(z["meta"]).decode())["token"] == marks["keyword_index_token"]


def test_a_reopen_of_the_same_state_trusts_its_saved_indexes(tmp_path: Path) -> None:
    live = tmp_path / "m.db"
    with _mem(live) as mem:
        mem.add_many(BASE, user_id="u")
        assert mem.search("budget", user_id="u", recipe="dense")
        assert mem.store.keyword_search(Scope(tenant=mem.tenant, user_id="u"), ["budget"], 3, None)
    kw_before = (tmp_path / "m.db.kw").stat().st_mtime_ns
    vec = next((tmp_path / "m.db.vec").glob("*.json"))
    vec_before = vec.read_text()
    with _mem(live) as mem:
        scope = Scope(tenant=mem.tenant, user_id="u")
        assert len(mem.store.keyword_search(scope, ["budget"], 20, None)) == 10
        assert mem.search("budget line cedar", user_id="u", recipe="dense")
    assert (tmp_path / "m.db.kw").stat().st_mtime_ns == kw_before  # loaded as saved: neither rebuilt nor re-saved
    assert vec.read_text() == vec_before
