"""The SQLite store's in-process keyword index (stores/keyword_index.py): the same ranking as FTS5 (ids and scores),
kept in step with writes from any connection through the keyword log, saved beside the file and caught up on
reopen, dropped on purge; tenant and user scoping, Chinese text, ``:memory:``."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from anchormem import Memory
from anchormem.filters import Cond
from anchormem.stores.keyword_index import KeywordIndex
from anchormem.stores.schema import scope_token
from anchormem.text.tokenize import query_terms
from anchormem.types import Scope

WORDS = ("apple orchard running runner hiking hike tree river café naïve data's e-mail 3.5 学习 中文 北京 天气 "
         "the of cats Lisbon").split()


def _both(m: Memory, scope: Scope, terms: list[str], k: int = 20, where=None, as_of=None) -> tuple[list, list]:
    """(the index's answer, FTS5's answer) of one keyword search."""
    got = m.store.keyword_search(scope, terms, k, where, as_of)
    index, m.store.keywords = m.store.keywords, None
    try:
        want = m.store.keyword_search(scope, terms, k, where, as_of)
    finally:
        m.store.keywords = index
    return got, want


def test_index_ranks_as_fts5_through_deletes_updates_and_closed_rows():
    rnd = random.Random(7)
    with Memory(":memory:", embedder="hash", llm=None) as m:
        for u in ("A", "B"):
            m.add([{"role": "user", "content": " ".join(rnd.choices(WORDS, k=rnd.randint(2, 12)))}
                   for _ in range(150)], user_id=u)
        items = m.get_all(user_id="A")
        queries = [query_terms(" ".join(rnd.choices(WORDS, k=3))) for _ in range(60)]
        queries = [q for q in queries if q]

        def check() -> int:
            nonempty = 0
            for terms in queries:
                for u in ("A", "B"):
                    got, want = _both(m, Scope(user_id=u), terms)
                    assert got == want, (u, terms)
                    nonempty += bool(got)
            return nonempty

        assert check() > 60
        before_edits = datetime.now(timezone.utc)
        for it in items[:30]:
            m.delete(it.id)
        for i, it in enumerate(items[30:40]):
            m.update(it.id, f"apple apple river hiking naïve number{i}")
        for it in items[40:50]:
            m.store.close_memory("default", it.id, when=datetime.now(timezone.utc), actor="test", event="COMPLETE")
        assert check() > 60
        for terms in queries[:20]:  # a past state (closed rows count again) and a filter: the same answers too
            got, want = _both(m, Scope(user_id="A"), terms, 50, as_of=before_edits)
            assert got == want
            got, want = _both(m, Scope(user_id="A"), terms, 50, where=Cond("created_at", "gte", 0))
            assert got == want
        got, _ = _both(m, Scope(user_id="A"), ["number3"])
        assert [mid for mid, _ in got] == [items[33].id] and got[0][1] > 0
        assert all(mid not in {it.id for it in items[:30]} for terms in queries
                   for mid, _ in m.store.keyword_search(Scope(user_id="A"), terms, 50, None))


def test_tenants_users_and_chinese_text(tmp_path):
    db = tmp_path / "kw.db"
    with Memory(str(db), embedder="hash", llm=None, tenant="t1") as m1, \
            Memory(str(db), embedder="hash", llm=None, tenant="t2") as m2:
        m1.add("我在北京学习中文，住在朝阳区。", user_id="u")
        m1.add("Zanzibar trip planned for March", user_id="other")
        m2.add("Zanzibar is where my sister lives", user_id="u")
        a = m1.store.keyword_search(Scope(tenant="t1", user_id="u"), query_terms("北京 学习"), 10, None)
        assert [m1.get(mid).text for mid, _ in a] == ["我在北京学习中文，住在朝阳区。"]
        assert m1.store.keyword_search(Scope(tenant="t1", user_id="u"), ["zanzibar"], 10, None) == []
        z = m2.store.keyword_search(Scope(tenant="t2", user_id="u"), ["zanzibar"], 10, None)
        assert [m2.get(mid).text for mid, _ in z] == ["Zanzibar is where my sister lives"]
        for mem, scope in ((m1, Scope(tenant="t1", user_id="u")), (m2, Scope(tenant="t2", user_id="u"))):
            got, want = _both(mem, scope, ["zanzibar", "北京"])
            assert got == want


def test_saved_beside_the_file_and_reopened_without_a_build(tmp_path, monkeypatch):
    db = tmp_path / "kw.db"
    with Memory(str(db), embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"orchard note {i} about apples"} for i in range(30)], user_id="A")
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 30
        m.add("a late orchard visit in Lisbon", user_id="A")  # after the build: in the log, then in the index
    kw = Path(str(db) + ".kw")
    assert kw.exists() and kw.stat().st_mode & 0o777 == 0o600
    builds = []
    monkeypatch.setattr(KeywordIndex, "_build", lambda self, snap: builds.append(1))
    with Memory(str(db), embedder="hash", llm=None) as m:
        got = m.store.keyword_search(Scope(user_id="A"), ["lisbon"], 5, None)
        assert [m.get(mid).text for mid, _ in got] == ["a late orchard visit in Lisbon"]
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 31
        # the log was pruned up to the saved watermark on close
        assert m.store._read("SELECT count(*) FROM keyword_log")[0][0] == 0
    assert builds == []


def test_killed_after_the_commit_the_reopen_catches_up(tmp_path, monkeypatch):
    """A process writes rows after its index was saved and dies (os._exit: no close, no save): the saved index is
    behind the database; the reopen loads it and applies the log, so no row is lost from keyword search."""
    db = tmp_path / "kw.db"
    script = textwrap.dedent(f"""
        import os
        from anchormem import Memory
        from anchormem.types import Scope
        m = Memory({str(db)!r}, embedder="hash", llm=None)
        m.add([{{"role": "user", "content": f"orchard note {{i}}"}} for i in range(20)], user_id="A")
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 20  # built and saved
        m.add("the kiwi orchard in Lisbon", user_id="A")
        m.delete(m.get_all(user_id="A")[0].id)
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path)
    assert Path(str(db) + ".kw").exists()
    builds = []
    monkeypatch.setattr(KeywordIndex, "_build", lambda self, snap: builds.append(1))
    with Memory(str(db), embedder="hash", llm=None) as m:
        got = m.store.keyword_search(Scope(user_id="A"), ["kiwi"], 5, None)
        assert [m.get(mid).text for mid, _ in got] == ["the kiwi orchard in Lisbon"]
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 20  # 21 - 1 deleted
        assert m.store.keywords.seq == m.store._read("SELECT max(seq) FROM keyword_log")[0][0]
    assert builds == []


def test_another_connection_writes_and_prunes_the_log(tmp_path):
    """Two stores on one file: one's writes reach the other's loaded index; when the other saved and pruned the
    log past this one's watermark, this one rebuilds rather than miss rows."""
    db = tmp_path / "kw.db"
    a = Memory(str(db), embedder="hash", llm=None)
    a.add("orchard one", user_id="A")
    assert len(a.store.keyword_search(Scope(user_id="A"), ["orchard"], 10, None)) == 1
    with Memory(str(db), embedder="hash", llm=None) as b:
        b.add("orchard two", user_id="A")
        assert len(a.store.keyword_search(Scope(user_id="A"), ["orchard"], 10, None)) == 2
        b.store.keyword_search(Scope(user_id="A"), ["orchard"], 10, None)
        b.add("orchard three", user_id="A")
    # b saved on close and pruned the log up to its watermark
    got = a.store.keyword_search(Scope(user_id="A"), ["orchard"], 10, None)
    assert sorted(a.get(mid).text for mid, _ in got) == ["orchard one", "orchard three", "orchard two"]
    a.close()


def test_purge_deletes_the_saved_index_and_its_tokens(tmp_path):
    db = tmp_path / "kw.db"
    with Memory(str(db), embedder="hash", llm=None) as m:
        keep = m.add("the orchard by the river", user_id="A")[0].memory.id
        gone = m.add("my secret word is xylophonic", user_id="A")[0].memory.id
        assert m.store.keyword_search(Scope(user_id="A"), ["xylophonic"], 5, None)[0][0] == gone
        m.store.keywords.persist(m.store._read, m.store._kw_snapshot)
        m.store.keywords._dirty = True
        m.store.keywords.persist(m.store._read, m.store._kw_snapshot)
        assert b"xylophon" in Path(str(db) + ".kw").read_bytes()
        m.delete(gone, purge=True)
        assert not Path(str(db) + ".kw").exists()
        assert m.store.keyword_search(Scope(user_id="A"), ["xylophonic"], 5, None) == []
        assert m.store.keyword_search(Scope(user_id="A"), ["orchard"], 5, None)[0][0] == keep
    assert b"xylophon" not in Path(str(db) + ".kw").read_bytes()


def test_memory_store_and_phrase_terms_fall_back_to_fts5(monkeypatch):
    with Memory(":memory:", embedder="hash", llm=None) as m:
        assert m.store.keywords.path is None
        m.add([{"role": "user", "content": t} for t in ("send the e-mail to Maya", "an email from Maya",
                                                         "version 3.5 is out")], user_id="A")
        calls = []
        real = KeywordIndex.top_arrays  # what the store's keyword stage calls

        def top(self, *a, **k):
            out = real(self, *a, **k)
            calls.append(out is None)
            return out

        monkeypatch.setattr(KeywordIndex, "top_arrays", top)
        got, want = _both(m, Scope(user_id="A"), ["e-mail", "maya"])  # "e-mail": FTS5 reads a phrase
        assert got == want and len(got) == 2 and calls == [True]
        got, want = _both(m, Scope(user_id="A"), ["email", "maya"])
        assert got == want and len(got) == 2 and calls[-1] is False


def test_a_purge_by_another_store_never_comes_back_in_its_saved_index(tmp_path):
    """Store ``a`` has the index loaded (with the word) when store ``b`` on the same file purges the memory; when
    ``a`` closes it applies the log first and saves an index in which no token of the purged row is left."""
    db = tmp_path / "kw.db"
    a = Memory(str(db), embedder="hash", llm=None)
    a.add("the orchard by the river", user_id="A")
    gone = a.add("my secret word is xylophonic", user_id="A")[0].memory.id
    assert a.store.keyword_search(Scope(user_id="A"), ["xylophonic"], 5, None)[0][0] == gone
    with Memory(str(db), embedder="hash", llm=None) as b:
        b.delete(gone, purge=True)
    a.add("a new note about pears", user_id="A")
    a.close()
    data = Path(str(db) + ".kw").read_bytes()
    assert b"xylophon" not in data and b"secret" not in data and b"pear" in data and b"orchard" in data
    with Memory(str(db), embedder="hash", llm=None) as m:
        assert m.store.keyword_search(Scope(user_id="A"), ["xylophonic"], 5, None) == []
        got, want = _both(m, Scope(user_id="A"), ["orchard", "pears", "river"])
        assert got == want and len(got) == 2


def test_memory_store_prunes_the_log_it_applied():
    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add("the first orchard note", user_id="A")
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 5, None)) == 1  # built
        for part in range(2):
            m.add([{"role": "user", "content": f"orchard row {i}"} for i in range(550 * part, 550 * (part + 1))],
                  user_id="A")
        assert m.store._read("SELECT count(*) FROM keyword_log")[0][0] == 1100
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 2000, None)) == 1101
        assert m.store._read("SELECT count(*) FROM keyword_log")[0][0] == 0
        m.add("one more orchard", user_id="A")
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 2000, None)) == 1102


def test_a_bulk_writer_that_never_searched_leaves_an_up_to_date_index(tmp_path, monkeypatch):
    """A process that only writes (an import) and closes: past _EAGER_LOG unsaved changes the close builds or
    catches up the index and saves it, so the next process's first keyword search applies nothing."""
    import anchormem.stores.keyword_index as ki

    monkeypatch.setattr(ki, "_EAGER_LOG", 50)
    db = tmp_path / "kw.db"
    with Memory(str(db), embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"orchard row {i}"} for i in range(10)], user_id="A")
    assert not Path(str(db) + ".kw").exists()  # few changes: left to the first search
    with Memory(str(db), embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"kiwi row {i}"} for i in range(60)], user_id="A")
    assert Path(str(db) + ".kw").exists()
    applied = []
    real = KeywordIndex._catch_up

    def catch_up(self, read, snapshot):
        head = self._head_sql_read(read)
        applied.append(head - self.seq)
        return real(self, read, snapshot)

    monkeypatch.setattr(KeywordIndex, "_catch_up", catch_up)
    monkeypatch.setattr(KeywordIndex, "_build", lambda self, snap: pytest.fail("rebuilt"))
    with Memory(str(db), embedder="hash", llm=None) as m:
        assert len(m.store.keyword_search(Scope(user_id="A"), ["kiwi"], 100, None)) == 60
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 100, None)) == 10
    assert applied and set(applied) == {0}


def test_a_common_word_is_added_only_to_the_rows_the_rarer_words_hold(monkeypatch):
    """MaxScore (keyword_index._minor): a query's common word cannot bring a row into the best n on its own, so its
    postings are added only to the rows its rarer words hold, never scattered over the scope; the best n are the same
    rows with the same float scores, in the same order, as when every posting is scored."""
    import anchormem.stores.keyword_index as ki

    rnd = random.Random(11)
    rare = ("lisbon", "orchard", "hiking")
    with Memory(":memory:", embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": " ".join(["the"] * rnd.randint(1, 3) + rnd.choices(rare, k=rnd.randint(0, 2))
                                                     + rnd.choices(WORDS, k=rnd.randint(1, 6)))}
               for _ in range(400)], user_id="A")
        store, index = m.store, m.store.keywords
        token = scope_token("default", "A")
        minors: list[set[int]] = []
        real = ki._minor

        def spy(got, n):  # the phrases left minor, per call
            out = real(got, n)
            minors.append(out)
            return out

        queries = [["the", "lisbon"], ["orchard", "the", "hiking"], ["the", "the", "lisbon", "cats"], ["hiking"],
                   ["lisbon", "orchard", "hiking", "the"]]
        for terms in queries:
            for n in (5, 20, 60, 400):
                monkeypatch.setattr(ki, "_minor", spy)
                got = index.top_arrays(store._read, store._kw_snapshot, token, terms, n)
                monkeypatch.setattr(ki, "_minor", lambda got, n: set())
                want = index.top_arrays(store._read, store._kw_snapshot, token, terms, n)
                assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist(), (terms, n)
                assert len(got[0]) == min(n, len(want[0])) and len(got[0]) > 0
        # "the" is in every row: for a small n it was left to the rows "lisbon" holds
        assert minors[0] == {0} and minors[-1] == set()  # n=400 over 400 rows: nothing can be left out
        assert sum(bool(x) for x in minors) >= 8


def test_a_close_after_a_few_additions_leaves_the_saved_file_and_the_reopen_applies_them(tmp_path, monkeypatch):
    """Few rows added since the file was saved: the close leaves the file as it is and the log unpruned (the delta);
    the reopen loads the file and applies the log, no build. A delete then saves it whole, without the row's words."""
    import anchormem.stores.keyword_index as ki

    monkeypatch.setattr(ki, "DELTA_FRACTION", 0.25)
    db, kw = tmp_path / "kw.db", Path(str(tmp_path / "kw.db") + ".kw")
    with Memory(str(db), embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"orchard note {i} about apples"} for i in range(40)], user_id="A")
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 40  # built and saved
        saved = kw.read_bytes()
        m.add([{"role": "user", "content": t} for t in ("a quince orchard in Porto", "the zucchini patch")],
              user_id="A")
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 41
    assert kw.read_bytes() == saved  # not rewritten: 2 added rows <= 25% of 42
    builds = []
    monkeypatch.setattr(KeywordIndex, "_build", lambda self, snap: builds.append(1))
    with Memory(str(db), embedder="hash", llm=None) as m:
        assert m.store._read("SELECT count(*) FROM keyword_log")[0][0] == 2  # the delta, kept in the log
        got, want = _both(m, Scope(user_id="A"), ["quince", "zucchini", "orchard"], k=50)
        assert got == want and len(got) == 42
        gone = next(x.id for x in m.get_all(user_id="A") if x.text == "the zucchini patch")
        m.delete(gone)
    assert builds == []
    data = kw.read_bytes()
    assert data != saved and b"zucchini" not in data and b"quinc" in data  # a removal: saved whole, compacted
    with Memory(str(db), embedder="hash", llm=None) as m:
        assert m.store._read("SELECT count(*) FROM keyword_log")[0][0] == 0  # pruned by the whole save
        assert m.store.keyword_search(Scope(user_id="A"), ["zucchini"], 5, None) == []
        assert len(m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)) == 41
    assert builds == []


def test_more_additions_than_the_delta_holds_save_the_file_whole(tmp_path, monkeypatch):
    import anchormem.stores.keyword_index as ki

    monkeypatch.setattr(ki, "DELTA_FRACTION", 0.05)
    db, kw = tmp_path / "kw.db", Path(str(tmp_path / "kw.db") + ".kw")
    with Memory(str(db), embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"orchard note {i} about apples"} for i in range(40)], user_id="A")
        m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)
        saved = kw.read_bytes()
        m.add([{"role": "user", "content": f"a quince tree {i}"} for i in range(5)], user_id="A")  # 5 > 5% of 45
    assert kw.read_bytes() != saved and b"quinc" in kw.read_bytes()
    with Memory(str(db), embedder="hash", llm=None) as m:
        assert m.store._read("SELECT count(*) FROM keyword_log")[0][0] == 0


def test_a_torn_saved_file_is_rebuilt_not_raised(tmp_path, monkeypatch):
    """A .kw file cut short (a crash while it was written, on a file system without atomic renames) or damaged:
    the reopen rebuilds the index from memories_fts; searches answer as FTS5 does, no exception."""
    import anchormem.stores.keyword_index as ki

    monkeypatch.setattr(ki, "DELTA_FRACTION", 0.5)
    db, kw = tmp_path / "kw.db", Path(str(tmp_path / "kw.db") + ".kw")
    with Memory(str(db), embedder="hash", llm=None) as m:
        m.add([{"role": "user", "content": f"orchard note {i} about apples"} for i in range(40)], user_id="A")
        m.store.keyword_search(Scope(user_id="A"), ["orchard"], 50, None)
        m.add("a quince orchard in Porto", user_id="A")  # in the delta (the log), not in the file
    whole = kw.read_bytes()
    for torn in (whole[: len(whole) // 2], whole[:100], whole[:-20], b""):
        kw.write_bytes(torn)
        with Memory(str(db), embedder="hash", llm=None) as m:
            got, want = _both(m, Scope(user_id="A"), ["quince", "orchard"], k=50)
            assert got == want and len(got) == 41
        assert kw.read_bytes() != torn  # rebuilt and saved again
