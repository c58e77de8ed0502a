"""The SQLite store: dedupe under concurrency, tenant isolation, deletes across every index, the vector index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from anchormem import EmbedderMismatchError, InvalidInputError, Memory, NotFoundError, Scope, Settings
from anchormem.testing import run_concurrently
from anchormem.stores import vector_delta
from anchormem.stores.protocol import NewMemory


# ---------------------------------------------------------------- dedupe under concurrency


def test_concurrent_identical_adds_one_object_give_one_row(mem, count):
    out = run_concurrently([lambda: mem.add("I drink coffee every morning.", user_id="A") for _ in range(8)])
    assert count(mem, "A") == 1
    ids = {evs[0].memory.id for evs in out}
    assert len(ids) == 1
    assert sorted(evs[0].event for evs in out) == ["ADD"] + ["NOOP"] * 7


def test_concurrent_identical_adds_separate_objects_on_one_file(db_path, count):
    mems = [Memory(db_path, embedder="hash") for _ in range(8)]
    try:
        out = run_concurrently([lambda m=m: m.add("I drink coffee every morning.", user_id="A") for m in mems])
        assert count(mems[0], "A") == 1
        assert len({evs[0].memory.id for evs in out}) == 1
        assert [e[0].event for e in out].count("ADD") == 1
    finally:
        for m in mems:
            m.close()


def test_concurrent_adds_for_different_users_each_get_a_row(mem, count):
    users = [f"user{i}" for i in range(8)]
    out = run_concurrently([lambda u=u: mem.add("I drink coffee every morning.", user_id=u) for u in users])
    assert [evs[0].event for evs in out] == ["ADD"] * 8
    assert len({evs[0].memory.id for evs in out}) == 8
    for u in users:
        items = mem.get_all(user_id=u)
        assert [(it.user_id, it.text) for it in items] == [(u, "I drink coffee every morning.")]


@pytest.mark.parametrize("where", [":memory:", "file"])
def test_searches_from_four_threads_count_every_access_and_log_nothing(where, db_path, caplog):
    """An in-memory store used from 4 threads: every search's access-count update lands (a shared-cache
    in-memory database used to answer "database table is locked" at once, without waiting, and lose it)."""
    mem = Memory(":memory:" if where == ":memory:" else db_path, embedder="hash", llm=None, cache=False)
    for i in range(12):
        mem.add(f"I keep bottle number {i} in the cellar.", user_id="u")
    target = next(m for m in mem.get_all(user_id="u") if m.text == "I keep bottle number 7 in the cellar.")

    def searches() -> list[str]:
        return [mem.search("bottle number 7 cellar", user_id="u", limit=1)[0].memory.id for _ in range(25)]

    with caplog.at_level("WARNING"):
        found = run_concurrently([searches] * 4)
    assert {i for ids in found for i in ids} == {target.id}
    counts = {m.id: m.access_count for m in mem.get_all(user_id="u")}
    assert counts[target.id] == 100 and sum(counts.values()) == 100
    assert mem.get(target.id).last_accessed_at is not None
    assert [r.getMessage() for r in caplog.records if r.levelname in ("WARNING", "ERROR")] == []
    mem.close()


def test_an_in_memory_store_on_sqlite_before_3_36_uses_a_shared_cache_database(monkeypatch):
    """No memdb VFS before SQLite 3.36: the in-memory store falls back to a shared-cache database and still works
    (two stores stay apart)."""
    import anchormem.stores.sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store.sqlite3, "sqlite_version_info", (3, 35, 5))
    a = Memory(":memory:", embedder="hash", llm=None)
    b = Memory(":memory:", embedder="hash", llm=None)
    assert "cache=shared" in a.store._uri and "vfs=memdb" not in a.store._uri
    a.add("I keep my bike in the shed.", user_id="u")
    assert [h.memory.text for h in a.search("bike shed", user_id="u")] == ["I keep my bike in the shed."]
    assert b.get_all(user_id="u") == []
    a.close()
    b.close()


# ---------------------------------------------------------------- tenants
def test_tenant_isolation_on_one_file(db_path):
    a = Memory(db_path, embedder="hash", tenant="acme")
    b = Memory(db_path, embedder="hash", tenant="globex")
    try:
        ida = a.add("I live in Tokyo.", user_id="u1")[0].memory.id
        idb = b.add("I live in Oslo.", user_id="u1")[0].memory.id
        assert [m.text for m in a.get_all(user_id="u1")] == ["I live in Tokyo."]
        assert [m.text for m in b.get_all(user_id="u1")] == ["I live in Oslo."]
        for recipe in ("hybrid_rrf", "dense", "bm25"):
            assert [h.memory.id for h in a.search("Oslo live", user_id="u1", recipe=recipe)] in ([ida], [])
            assert idb not in [h.memory.id for h in a.search("Oslo", user_id="u1", recipe=recipe)]
        with pytest.raises(NotFoundError):
            a.get(idb)
        with pytest.raises(NotFoundError):
            a.delete(idb)
        with pytest.raises(NotFoundError):
            a.history(idb)
        assert a.export(user_id="u1")["memories"][0]["id"] == ida
        assert [m["content"] for m in a.export(user_id="u1")["messages"]] == ["I live in Tokyo."]
        a.delete_all(user_id="u1")
        assert [m.id for m in b.get_all(user_id="u1")] == [idb]
    finally:
        a.close()
        b.close()


# ---------------------------------------------------------------- bad vectors, embedder mismatch
def test_wrong_dimension_embedding_is_rejected_and_nothing_is_lost(mem, count):
    item = mem.add("My favourite tea is oolong.", user_id="A")[0].memory
    other = item.model_copy(update={"id": "x" * 32, "text": "My favourite coffee is mocha."})
    with pytest.raises(InvalidInputError, match="dimension 5"):
        mem.store.write([], [NewMemory(other, np.ones(5, np.float32), "h" * 64, "coffee mocha")], actor="test")
    with pytest.raises(InvalidInputError, match="dimension 7"):
        mem.store.dense_search(Scope(user_id="A"), np.ones(7, np.float32), 3, None)
    with pytest.raises(InvalidInputError):
        mem.store.update("default", item.id, text="x", vector=np.ones(3), index_text="x", content_hash="h",
                         actor="test")
    assert count(mem, "A") == 1
    assert mem.get(item.id).text == "My favourite tea is oolong."


def test_reopening_with_another_embedder_raises(db_path):
    with Memory(db_path, embedder="hash") as m:
        m.add("I keep bees.", user_id="A")
    with pytest.raises(EmbedderMismatchError, match="hash-256"):
        Memory(db_path, embedder="hash-128")
    with Memory(db_path, embedder="hash") as m:  # the right embedder still opens it, data intact
        assert [x.text for x in m.get_all(user_id="A")] == ["I keep bees."]


# ---------------------------------------------------------------- delete
def test_delete_removes_from_dense_keyword_and_top1(mem):
    target = mem.add("Person T manages the office in City C.", user_id="A")[0].memory.id
    plants = mem.add("I water the plants on Fridays.", user_id="A")[0].memory.id
    assert mem.search("Person T manages office", user_id="A")[0].memory.id == target
    counts = mem.delete(target)
    assert counts["memories"] == 1 and counts["fts"] == 1 and counts["entities"] >= 1
    for recipe in ("dense", "bm25", "hybrid_rrf", "hybrid_weighted"):
        ids = [h.memory.id for h in mem.search("Person T manages the office", user_id="A", recipe=recipe)]
        assert target not in ids, recipe
    top = mem.search("Person T manages the office in City C.", user_id="A")
    assert [h.memory.id for h in top] in ([], [plants])  # the only other memory, if it scores at all
    assert mem.store._read("SELECT count(*) FROM memory_entities WHERE value='Person T'")[0][0] == 0
    with pytest.raises(NotFoundError):
        mem.get(target)
    hist = mem.history(target)
    assert [h.event for h in hist] == ["ADD", "DELETE"]
    assert hist[-1].old_text == "Person T manages the office in City C."


def test_purge_erases_text_from_history_and_source_message(mem):
    target = mem.add("Person T manages the office in City C.", user_id="A")[0].memory
    mem.add("I water the plants on Fridays.", user_id="A")
    counts = mem.delete(target.id, purge=True)
    assert counts["messages"] == 1
    hist = mem.history(target.id)
    assert [h.event for h in hist] == ["ADD", "DELETE"]
    assert all(h.old_text is None and h.new_text is None for h in hist)
    dump = json.dumps(mem.export(user_id="A"), ensure_ascii=False)
    assert "Person T" not in dump and "I water the plants on Fridays." in dump
    rows = mem.store._read("SELECT count(*) FROM memory_history WHERE old_text LIKE '%Person T%' "
                           "OR new_text LIKE '%Person T%'")
    assert rows[0][0] == 0


# ---------------------------------------------------------------- vector index (HNSW past a threshold)
def _texts(n):
    foods = ["ramen", "tacos", "paella", "borscht", "sushi", "falafel", "pierogi", "kimchi", "gumbo", "pho"]
    return [f"Memory {i}: on trip {i} I visited town{i} and ate {foods[i % 10]} with friend{i % 13}."
            for i in range(n)]


_PICKS = (3, 57, 88, 120, 199, 211)


def test_ann_matches_exact_search_and_follows_deletes(tmp_path):
    texts = _texts(240)
    ann = Memory(str(tmp_path / "ann.db"), embedder="hash", settings=Settings(ann_threshold=50))
    exact = Memory(str(tmp_path / "exact.db"), embedder="hash")
    try:
        for m in (ann, exact):
            m.add([{"role": "user", "content": t} for t in texts], user_id="A")
        for i in _PICKS:
            a = ann.search(texts[i], user_id="A", recipe="dense")
            e = exact.search(texts[i], user_id="A", recipe="dense")
            assert a[0].memory.text == e[0].memory.text == texts[i]
            assert [h.memory.text for h in a[:3]] == [h.memory.text for h in e[:3]]
        sv = ann.store.vectors._items[("default", "A")]
        assert sv.ann is not None and len(sv.ann) == 240
        # delete the top hit: it leaves the ANN results too, and the next best is what exact search says
        q = texts[57]
        top = ann.search(q, user_id="A", recipe="dense")[0].memory
        assert top.text == texts[57]
        ann.delete(top.id)
        exact.delete(next(m.id for m in exact.get_all(user_id="A") if m.text == top.text))
        after = ann.search(q, user_id="A", recipe="dense", limit=50)
        assert top.id not in [h.memory.id for h in after]
        assert after[0].memory.text == exact.search(q, user_id="A", recipe="dense")[0].memory.text
        assert len(sv.ann) == 239
    finally:
        ann.close()
        exact.close()


def test_every_stored_vector_is_reachable_through_the_ann_index(tmp_path):
    # usearch's multi-threaded add() could strand a vector no search reaches (USearch#735): in about half the builds
    # of these near-duplicate texts. Every stored vector must find itself.
    texts = _texts(240)
    for run in range(8):
        with Memory(str(tmp_path / f"ann{run}.db"), embedder="hash", settings=Settings(ann_threshold=50)) as m:
            m.add([{"role": "user", "content": t} for t in texts], user_id="A")
            m.search(texts[0], user_id="A", recipe="dense")  # builds the scope's index
            sv = m.store.vectors._items[("default", "A")]
            ids, vecs = sv._ids[: sv.n], sv._m[: sv.n]
            found = sv.ann.search(vecs, 1).keys[:, 0]
            stranded = [int(i) for i, f in zip(ids, found) if int(i) != int(f)]
            assert len(ids) == 240 and stranded == []


def _index_files(db: Path) -> list[Path]:
    return sorted(Path(str(db) + ".vec").glob("*.usearch"))


@pytest.mark.skipif(bool(os.environ.get("ANCHORMEM_TEST_ENCRYPT")),
                    reason="an encrypted store keeps its HNSW index in memory only (no plaintext index file)")
def test_ann_index_is_persisted_and_rebuilt_when_deleted_or_stale(tmp_path):
    db = tmp_path / "ann.db"
    s = Settings(ann_threshold=50)
    with Memory(str(db), embedder="hash", settings=s) as m:
        m.add([{"role": "user", "content": t} for t in _texts(200)], user_id="A")
        want = m.search(_texts(200)[120], user_id="A", recipe="dense")[0].memory.text
        assert want == _texts(200)[120]
    files = _index_files(db)
    assert len(files) == 1
    # 1. index file deleted -> rebuilt on reopen, same answer
    files[0].unlink()
    with Memory(str(db), embedder="hash", settings=s) as m:
        assert m.search(want, user_id="A", recipe="dense")[0].memory.text == want
        assert m.store.vectors._items[("default", "A")].ann is not None
    assert len(_index_files(db)) == 1
    # 2. stale index (a later write from another process) -> rebuilt, and the new memory is found
    with Memory(str(db), embedder="hash") as plain:  # default threshold: never touches the index file
        plain.add("Memory 999: on trip 999 I visited town999 and ate dumplings with friend7.", user_id="A")
    with Memory(str(db), embedder="hash", settings=s) as m:
        q = "Memory 999: on trip 999 I visited town999 and ate dumplings with friend7."
        assert m.search(q, user_id="A", recipe="dense")[0].memory.text == q
        assert len(m.store.vectors._items[("default", "A")].ann) == 201
    # 3. a new database at the same path never reuses the old file's index, even with equal counts
    for p in [db, Path(str(db) + "-wal"), Path(str(db) + "-shm")]:
        if p.exists():
            os.remove(p)
    other = [t.replace("town", "village").replace("ate", "cooked") for t in _texts(201)]
    with Memory(str(db), embedder="hash", settings=s) as m:  # same write count and size as the saved index
        m.add([{"role": "user", "content": t} for t in other[:200]], user_id="A")
        m.add(other[200], user_id="A")
    with Memory(str(db), embedder="hash", settings=s) as m:
        hit = m.search(other[120], user_id="A", recipe="dense")[0]
        assert hit.memory.text == other[120]
        assert hit.explain["dense"] == pytest.approx(1.0, abs=1e-4)


@pytest.mark.skipif(bool(os.environ.get("ANCHORMEM_TEST_ENCRYPT")),
                    reason="an encrypted store keeps its HNSW index in memory only (no plaintext index file)")
def test_ann_index_is_caught_up_on_reopen_not_rebuilt_and_saved_on_close(tmp_path, monkeypatch):
    from anchormem.stores.vectors import VectorCache

    db = tmp_path / "ann.db"
    s = Settings(ann_threshold=50)
    texts = _texts(200)
    with Memory(str(db), embedder="hash", settings=s) as m:
        m.add([{"role": "user", "content": t} for t in texts], user_id="A")
        m.search(texts[0], user_id="A", recipe="dense")  # builds and saves the index
        ids = {it.text: it.id for it in m.get_all(user_id="A")}
    # another process writes without the index: one add, one text edit (same rowid, new vector), one delete
    new = "Memory 999: on trip 999 I visited town999 and ate dumplings with friend7."
    edited = "Memory 120 was rewritten: a trip to the mountains with a borrowed tent."
    with Memory(str(db), embedder="hash") as plain:
        plain.add(new, user_id="A")
        plain.update(ids[texts[120]], edited)
        plain.delete(ids[texts[7]])
    seen: list[int] = []
    real = vector_delta.reconcile
    monkeypatch.setattr(vector_delta, "reconcile", lambda idx, sv: seen.append(real(idx, sv)) or seen[-1])
    with Memory(str(db), embedder="hash", settings=s) as m:
        assert m.search(new, user_id="A", recipe="dense")[0].memory.text == new
        assert m.search(edited, user_id="A", recipe="dense")[0].memory.text == edited
        got = [h.memory.text for h in m.search(texts[7], user_id="A", recipe="dense", limit=50)]
        assert texts[7] not in got
        sv = m.store.vectors._items[("default", "A")]
        # restored and caught up: removed the deleted row and the edited row's old vector, added 2 rows
        assert seen == [4] and len(sv.ann) == 200 and sv.ann_dirty
        m.add("Memory 1000: a new note written while the index is loaded.", user_id="A")  # maintained on write
        assert len(sv.ann) == 201
    # closed: the index was saved at the current generation, so the next open has nothing to catch up
    with Memory(str(db), embedder="hash", settings=s) as m:
        hit = m.search("Memory 1000: a new note written while the index is loaded.", user_id="A", recipe="dense")
        assert hit[0].memory.text.startswith("Memory 1000")
        assert seen == [4] and len(m.store.vectors._items[("default", "A")].ann) == 201  # restored as saved


@pytest.mark.parametrize("unscoped", [0.0, 2.0])
@pytest.mark.parametrize("cap", [(2, 8), (2, 1024), (64, 4096)])
def test_bounded_keyword_stage_returns_what_filtering_every_match_returns(monkeypatch, cap, unscoped):
    """The SQLite keyword stage ranks a capped number of FTS5 matches before filtering; when the filter (here:
    closed memories, and an agent scope) removes most of them, the cap widens, and past its maximum the stage
    filters every match. Each way, the answer is the unbounded query's; with the scope token left out of the FTS
    query (``unscoped`` 0: whatever the user's share of the index) too, another user's matching rows in the index."""
    import anchormem.stores.keyword_sqlite as sqlite_store
    from datetime import datetime, timezone

    monkeypatch.setattr(sqlite_store, "UNSCOPED_SHARE", unscoped)
    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"apple orchard apple {j} of user B"} for j in range(25)], user_id="B")
        texts = [f"note {i}: " + "apple " * (1 + i % 5) + ("orchard " if i % 3 == 0 else "") + f"tree{i}"
                 for i in range(40)]
        m.add([{"role": "user", "content": f"weather report {j}: sunny and warm, day{j}"} for j in range(80)],
              user_id="A")  # rows without the terms: the IDF of "apple" is positive
        m.add([{"role": "user", "content": t} for t in texts[:30]], user_id="A")
        m.add([{"role": "user", "content": t} for t in texts[30:]], user_id="A", agent_id="bot")
        by_text = {it.text: it.id for it in m.get_all(user_id="A")}
        for t in texts[:24]:  # the best-scored (most "apple") rows are mostly closed now
            if texts.index(t) % 5:
                m.store.close_memory("default", by_text[t], when=datetime.now(timezone.utc), actor="test",
                                     event="COMPLETE")

        def run(scope: Scope, k: int) -> list[tuple[str, float]]:
            m.search("apple", user_id=scope.user_id, recipe="dense")  # the user's vectors cached: their share known
            return m.store.keyword_search(scope, ["apple", "orchard"], k, None)

        monkeypatch.setattr(sqlite_store, "KEYWORD_CAP_MIN", cap[0])
        monkeypatch.setattr(sqlite_store, "KEYWORD_CAP_MAX", cap[1])
        got = {k: (run(Scope(user_id="A"), k), run(Scope(user_id="A", agent_id="bot"), k)) for k in (1, 3, 10, 50)}
        monkeypatch.setattr(sqlite_store, "KEYWORD_CAP_MAX", 0)  # the unbounded join
        want = {k: (run(Scope(user_id="A"), k), run(Scope(user_id="A", agent_id="bot"), k)) for k in (1, 3, 10, 50)}
    assert got == want
    assert len(want[50][0]) == 40 - (24 - 5) and len(want[50][1]) == 10 and len(want[3][1]) == 3
    scores = [s for _, s in want[50][0]]
    assert scores == sorted(scores, reverse=True) and scores[0] > 2 * scores[-1] > 0


@pytest.mark.skipif(bool(os.environ.get("ANCHORMEM_TEST_ENCRYPT")),
                    reason="an encrypted store keeps its HNSW index in memory only (no plaintext index file)")
def test_a_purge_leaves_no_saved_index_even_when_its_file_was_gone(tmp_path):
    """The loaded index of a purged scope is dropped with its file: closing the store must not save it again."""
    db = tmp_path / "ann.db"
    with Memory(str(db), embedder="hash", settings=Settings(ann_threshold=50)) as m:
        m.add([{"role": "user", "content": t} for t in _texts(120)], user_id="A")
        m.search(_texts(120)[0], user_id="A", recipe="dense")  # builds and saves the index
        for f in _index_files(db):
            f.unlink()  # e.g. removed by hand: the index lives on in memory
        m.add("Memory 500: one more note after the file went away.", user_id="A")  # the loaded index changes
        victim = m.get_all(user_id="A")[3]
        m.delete(victim.id, purge=True)
    assert _index_files(db) == []


def test_a_past_question_scores_current_rows_from_the_cache_and_superseded_rows_from_the_table():
    """A past question reads current and superseded memories: the current ones come from the cached vectors (no scan
    of every stored vector), the superseded ones from the table, merged into the exact ranking over both."""
    from datetime import datetime, timezone

    from anchormem.retrieval.currency import past_where

    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": t} for t in _texts(60)], user_id="A")
        items = m.get_all(user_id="A")
        for it in items[::4]:
            m.store.close_memory("default", it.id, when=datetime.now(timezone.utc), actor="test", event="COMPLETE")
        q = m.embedder.embed_query(_texts(60)[8])
        vecs = m.store.get_vectors("default", [it.id for it in items])
        want = sorted(((float(vecs[it.id] @ q), it.id) for it in items), key=lambda x: -x[0])[:10]
        reads: list[str] = []
        real = m.store._read

        def spy(sql, params=()):
            reads.append(sql)
            return real(sql, params)

        m.store._read = spy
        got = m.store.dense_search(Scope(user_id="A"), q, 10, past_where(None))
    assert [mid for mid, _ in got] == [mid for _, mid in want]
    assert np.allclose([s for _, s in got], [s for s, _ in want], atol=1e-6)
    assert {mid for mid, _ in got} & {it.id for it in items[::4]}  # superseded rows are among them
    assert not any("m.embedding" in sql and "valid_to IS NOT NULL" not in sql for sql in reads)  # no full scan


def test_rows_decode_to_the_items_validation_builds():
    """Stored rows are decoded without validating the MemoryItem again: the items equal the validated ones, field
    for field (types, set fields, JSON), for memories with labels, entities, metadata, facts and claims."""
    from anchormem.types import MemoryItem

    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add("Hi, I'm Sam. I live in Lisbon and my email is sam@example.com.", user_id="A", session_id="s1",
              metadata={"app": "x", "n": 2}, timestamp="2024-01-10T10:00:00Z")
        m.add("I moved to Berlin on 3 March 2024, it cost 500 euros.", user_id="A", session_id="s2",
              timestamp="2024-03-10T10:00:00Z")
        m.add("ok", user_id="A")
        items = m.store.list_memories(Scope(user_id="A"), None, include_superseded=True)
    assert any(it.labels for it in items) and any(it.entities for it in items) and any(it.fact for it in items)
    assert any(it.claims for it in items) and any(it.metadata for it in items) and any(it.valid_to for it in items)
    for it in items:
        again = MemoryItem.model_validate(dict(it.__dict__))
        assert it == again and it.model_fields_set == again.model_fields_set
        assert it.model_dump_json() == again.model_dump_json() and list(it.__dict__) == list(again.__dict__)
        assert type(it.confidence) is float and all(type(lb.score) is float for lb in it.labels)
