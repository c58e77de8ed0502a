"""The saved HNSW index's delta (stores/vector_delta.py): a close after writes appends them instead of rewriting the
saved index; a reopen replays them and searches as before the close; a torn delta (a close killed while appending)
is ignored, never served and never damages the base files; a large delta is compacted into a whole save."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

from anchormem import Memory, Settings
from anchormem.stores import vector_delta
from anchormem.types import Scope

WORDS = ("amber birch cedar dune elm fjord grove heath inlet juniper kelp larch moss nettle oak pine quartz reed "
         "sage thyme").split()


def _text(i: int) -> str:
    return f"note {i}: the {WORDS[i % 20]} by the {WORDS[(i * 7) % 20]} near the {WORDS[(i * 3 + 1) % 20]}"


def _mem(path: Path) -> Memory:
    return Memory(str(path), embedder="hash", llm=None, settings=Settings(ann_threshold=20))


def _files(path: Path) -> dict[str, Path]:
    vec = Path(str(path) + ".vec")
    out = {p.suffix if not p.name.endswith(".mat.npy") else ".mat.npy": p for p in vec.iterdir()}
    return out


def _top(mem: Memory, queries: list[str], k: int = 5) -> list[list[tuple[str, float]]]:
    scope = Scope(tenant=mem.tenant, user_id="u")
    return [mem.store.dense_search(scope, mem.embedder.embed_query(q), k, None) for q in queries]


def _exact(mem: Memory, got: list[list[tuple[str, float]]], queries: list[str], k: int = 5) -> bool:
    """``got`` (per query: (id, score) best first) is an exact top ``k`` over the current memories' stored vectors:
    its scores are the best ``k`` brute-force scores and each id is a current memory scored as brute force scores it
    (which of two tied rows comes first is left open)."""
    ids = [m.id for m in mem.get_all(user_id="u")]
    vecs = mem.store.get_vectors(mem.tenant, ids)
    mat = np.stack([vecs[i] for i in ids])
    for q, hits in zip(queries, got):
        score = dict(zip(ids, (mat @ mem.embedder.embed_query(q)).tolist()))
        best = sorted(score.values(), reverse=True)[:k]
        if not np.allclose([s for _, s in hits], best, atol=1e-6):
            return False
        if any(i not in score or abs(score[i] - s) > 1e-6 for i, s in hits):
            return False
    return True


def _same(a: list[list[tuple[str, float]]], b: list[list[tuple[str, float]]]) -> bool:
    """The same scores (to a float bit or two: a gathered matrix of another size sums in another order) and the same
    ids, but where two rows tie (the hash embedder's ties go by the row's place in the matrix, which a reopen sets:
    base rows, then the delta's; and by which of the tied rows the graph reaches): one query's last hit here."""
    return (np.allclose([[s for _, s in r] for r in a], [[s for _, s in r] for r in b], atol=1e-6)
            and sum([i for i, _ in x][:-1] != [i for i, _ in y][:-1] for x, y in zip(a, b)) == 0
            and sum([i for i, _ in x] != [i for i, _ in y] for x, y in zip(a, b)) <= 1)


QUERIES = [_text(i) for i in (3, 17, 42, 61, 77)] + ["the oak by the pine", "kelp and moss"]


def test_a_close_after_writes_appends_them_and_a_reopen_searches_as_before(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(60)], user_id="u")
        assert mem.search(_text(1), user_id="u", recipe="dense")  # past ann_threshold: the HNSW index in use
    base = {k: p.read_bytes() for k, p in _files(db).items()}
    assert ".delta" not in base  # a whole save: no delta
    with _mem(db) as mem:
        added = [e.memory.id for e in mem.add_many([_text(i) for i in range(60, 70)], user_id="u",
                                                    return_events=True)["events"]]
        gone = mem.get_all(user_id="u")[5]
        mem.delete(gone.id)
        edited = mem.get_all(user_id="u")[7]
        mem.update(edited.id, "the quartz reed sage thyme moss, edited")
        before = _top(mem, QUERIES + ["the quartz reed sage thyme moss, edited"])
    files = _files(db)
    # the base files as they were; the delta holds the 10 new rows and the edited one (re-added), one removal more
    for name in (".usearch", ".npz", ".json"):
        assert files[name].read_bytes() == base[name], name
    mat = files[".mat.npy"].read_bytes()
    assert mat[: len(base[".mat.npy"])] == base[".mat.npy"] and len(mat) == len(base[".mat.npy"]) + 11 * 4 * 256
    recs = vector_delta.read_log(files[".delta"], __import__("json").loads(base[".json"])["token"])
    assert len(recs) == 1 and len(recs[0].added) == 11 and len(recs[0].removed) == 2
    assert set(added) <= set(recs[0].ids) and edited.id in recs[0].ids
    with _mem(db) as mem:
        after = _top(mem, QUERIES + ["the quartz reed sage thyme moss, edited"])
        sv = mem.store.vectors._items[(mem.tenant, "u")]  # noqa: SLF001
        assert sv.saved is not None and sv.saved.delta_rows == 13  # restored from the base and its delta
        assert _same(after, before)
        assert _exact(mem, after[:len(QUERIES)], QUERIES)
        assert gone.id not in {i for r in after for i, _ in r}
        mem.store.vectors.wait_indexed()  # the delta's rows into the graph (it loads into memory): same results
        assert _same(_top(mem, QUERIES), after[:len(QUERIES)])
        assert len(sv.ann) == sv.size == 69


def test_a_torn_delta_is_ignored_and_the_next_close_cuts_it_away(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(60)], user_id="u")
        mem.search(_text(1), user_id="u", recipe="dense")
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(60, 65)], user_id="u")
    files = _files(db)
    base = {k: p.read_bytes() for k, p in files.items() if k != ".delta"}
    good = files[".delta"].read_bytes()
    # a second close killed mid-append: vectors appended, half a record written, the database's mark not moved
    with open(files[".mat.npy"], "ab") as fh:
        fh.write(np.ones((3, 256), "<f4").tobytes())
    files[".delta"].write_bytes(good + good[: len(good) // 2])
    with _mem(db) as mem:
        assert _exact(mem, _top(mem, QUERIES), QUERIES)
        assert mem.store.vectors._items[(mem.tenant, "u")].saved.delta_rows == 5  # noqa: SLF001 - the whole record
        mem.add_many([_text(i) for i in range(65, 68)], user_id="u")
    assert files[".delta"].read_bytes()[: len(good)] == good  # the torn tail cut, the new record after the good one
    assert len(files[".mat.npy"].read_bytes()) == len(base[".mat.npy"]) + 3 * 4 * 256  # the garbage rows cut too
    with _mem(db) as mem:
        assert _exact(mem, _top(mem, QUERIES), QUERIES)
        assert mem.store.vectors._items[(mem.tenant, "u")].saved.delta_rows == 8  # noqa: SLF001
    # a damaged record the database's mark names: not served; the base reconciled with the database instead
    data = bytearray(files[".delta"].read_bytes())
    data[-3] ^= 0xFF
    files[".delta"].write_bytes(bytes(data))
    with _mem(db) as mem:
        assert _exact(mem, _top(mem, QUERIES), QUERIES)
        assert mem.store.vectors._items[(mem.tenant, "u")].ann_view is None  # noqa: SLF001 - not restored from it
    assert ".delta" not in _files(db)  # that close saved the whole index again


_CHILD = """
import os, sys
from pathlib import Path
from anchormem import Memory, Settings
from anchormem.stores import vector_delta
sys.path.insert(0, {tests!r})
from test_vector_delta import _text
real = vector_delta.append
def torn(log, mat, saved, token, *a, **k):
    real(log, mat, saved, token, *a, **k)
    with open(log, "r+b") as fh:  # the record half on disk when the process dies
        fh.truncate(os.path.getsize(log) - 20)
    os.kill(os.getpid(), 9)
vector_delta.append = torn
mem = Memory({db!r}, embedder="hash", llm=None, settings=Settings(ann_threshold=20))
mem.add_many([_text(i) for i in range(60, 66)], user_id="u")
mem.close()
"""


def test_a_close_killed_while_appending_leaves_a_store_that_searches_exactly(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(60)], user_id="u")
        mem.search(_text(1), user_id="u", recipe="dense")
    base = {k: p.read_bytes() for k, p in _files(db).items()}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.run([sys.executable, "-c", _CHILD.format(tests=str(Path(__file__).parent), db=str(db))],
                       env=env, capture_output=True, text=True)
    assert p.returncode == -signal.SIGKILL, p.stderr
    files = _files(db)
    for name in (".usearch", ".npz", ".json"):
        assert files[name].read_bytes() == base[name], name
    with _mem(db) as mem:
        assert len(mem.get_all(user_id="u")) == 66  # the writes were committed before the close
        assert _exact(mem, _top(mem, QUERIES), QUERIES)
        assert mem.search(_text(63), user_id="u", recipe="dense")[0].memory.text == _text(63)


def test_a_delta_past_the_threshold_is_compacted_into_a_whole_save(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(vector_delta, "COMPACT_MIN", 8)
    db = tmp_path / "m.db"
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(60)], user_id="u")
        mem.search(_text(1), user_id="u", recipe="dense")
    first = _files(db)[".json"].read_text()
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(60, 66)], user_id="u")  # 6 rows: appended
    assert _files(db)[".json"].read_text() == first and ".delta" in _files(db)
    with _mem(db) as mem:
        mem.add_many([_text(i) for i in range(66, 70)], user_id="u")  # 6 + 4 > 8: saved whole
    assert _files(db)[".json"].read_text() != first and ".delta" not in _files(db)
    with _mem(db) as mem:
        sv = mem.store.vectors._items.get((mem.tenant, "u"))  # noqa: SLF001
        assert _exact(mem, _top(mem, QUERIES), QUERIES)
        sv = mem.store.vectors._items[(mem.tenant, "u")]  # noqa: SLF001
        assert sv.saved.delta_rows == 0 and len(sv.ann) == 70 and not sv.queued
