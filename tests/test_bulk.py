"""Bulk import in worker processes: same result as in-process, per-user order kept, errors surface."""

from __future__ import annotations

import pytest

from anchormem import Memory
from anchormem.bulk import import_batches, plan_workers
from anchormem.errors import InvalidInputError


def _batches():
    out = []
    for u in ("ann", "bob", "cyd"):
        out.append(({"user_id": u, "session_id": "s1"}, [
            {"role": "user", "content": f"I live in Berlin. My name is {u.title()}.", "timestamp": "2024-01-01T10:00:00Z"},
            {"role": "user", "content": f"{u} adopted a cat named Pixel.", "timestamp": "2024-01-01T10:01:00Z"}]))
        out.append(({"user_id": u, "session_id": "s2"}, [
            {"role": "user", "content": "I moved to Munich.", "timestamp": "2024-03-01T10:00:00Z"}]))
    return out


def test_plan_keeps_each_users_batches_together_and_in_order():
    lanes = plan_workers(_batches(), 2)
    assert len(lanes) == 2
    for lane in lanes:
        users = [s["user_id"] for s, _ in lane]
        for u in set(users):
            sessions = [s["session_id"] for s, _ in lane if s["user_id"] == u]
            assert sessions == ["s1", "s2"]
    assert sorted(s["user_id"] for lane in lanes for s, _ in lane) == sorted(s["user_id"] for s, _ in _batches())


def _state(path):
    with Memory(path, embedder="hash") as m:
        return {u: sorted((x.kind, x.text, x.valid_to is None) for x in m.get_all(user_id=u, include_superseded=True))
                for u in ("ann", "bob", "cyd")}


def test_two_workers_match_one(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    ticks: list[int] = []
    c1 = import_batches(_batches(), path=one, workers=1)
    c2 = import_batches(_batches(), path=two, workers=2, on_progress=ticks.append)
    assert c2["workers"] == 2 and c1["workers"] == 1
    assert {k: v for k, v in c1.items() if k != "workers"} == {k: v for k, v in c2.items() if k != "workers"}
    assert (c2["batches"], c2["messages"], c2["SUPERSEDE"], c2["users"]) == (6, 9, 3, ["ann", "bob", "cyd"])
    assert sum(ticks) == 9
    assert _state(one) == _state(two)
    # per-user order held: Munich is current, Berlin was superseded, for every user
    for rows in _state(two).values():
        assert ("fact", "I moved to Munich.", True) in rows
        assert ("fact", "I live in Berlin.", False) in rows


def test_bad_workers_and_in_memory_fallback():
    with pytest.raises(InvalidInputError, match="workers"):
        import_batches(_batches(), path=":memory:", workers=0)
    with Memory(":memory:", embedder="hash") as m:
        counts = import_batches(_batches(), memory=m, workers=4)  # cannot share: runs in-process
        assert counts["workers"] == 1 and counts["ADD"] > 0
        assert len(m.get_all(user_id="bob")) > 0
