"""add_many(enrich="later"): rows searchable at once with their fact extraction queued; Memory.enrich and every
read that depends on claims settle the queue to the state an eager add_many leaves; the marker is written in the
row's transaction and settled in the enrichment's. The store-facing scenarios run on SQLite and on PostgreSQL
(``eng``: a fresh database per test on each; pgserver as in tests/contract)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from anchormem import Memory
from anchormem.errors import InvalidInputError
from anchormem.testing import HashEmbedder

from cli_helpers import hash_cli_env, invoke_json  # noqa: F401 (a fixture)
from pg_fixtures import pg_server  # noqa: F401 (a fixture: PostgreSQL for the eng["postgres"] scenarios)


def _log(user: str = "Ann"):
    t = "2024-01-0{}T10:0{}:00+02:00"
    return [
        {"role": "user", "content": "I live in Berlin.", "timestamp": t.format(1, 0), "name": user},
        {"role": "user", "content": "I adopted a cat named Pixel.", "timestamp": t.format(1, 1), "name": user},
        {"role": "assistant", "content": "A cat is lovely company.", "timestamp": t.format(1, 2)},
        {"role": "user", "content": "ok thanks", "timestamp": t.format(1, 3)},
        {"role": "user", "content": "I work as a nurse at the city hospital.", "timestamp": t.format(2, 0)},
        {"role": "user", "content": "I live in Berlin.", "timestamp": t.format(2, 1), "name": user},
        {"role": "user", "content": "I moved to Munich.", "timestamp": t.format(3, 0), "name": user},
        {"role": "user", "content": "I have to renew my passport by Friday.", "timestamp": t.format(3, 1)},
        {"role": "user", "content": "Yesterday I quit the hospital and joined a clinic.", "timestamp": t.format(4, 0)},
    ]


def _state(m: Memory, user: str = "ann"):
    return sorted((x.kind, x.text, x.valid_to is None, x.fact.slot if x.fact else None, x.created_at.isoformat(),
                   x.event_time.isoformat() if x.event_time else None, tuple(sorted((c.slot, c.valid_to is None) for c in x.claims)))
                  for x in m.get_all(user_id=user, include_superseded=True))


def _mem(path=":memory:") -> Memory:
    return Memory(str(path), embedder=HashEmbedder(64), llm=None, cache=False)


@dataclass
class Eng:
    """Fresh databases of one engine: ``mem(n)`` opens a Memory on database ``n`` (made on first use), ``sql(n, q)``
    reads it directly (``?`` placeholders; ``JOIN`` joins ``enrich_queue q`` to ``memories m``)."""

    name: str
    _new: Any
    _dbs: dict[int, str] = field(default_factory=dict)
    _open: list[Memory] = field(default_factory=list)

    @property
    def JOIN(self) -> str:
        return ("JOIN memories m ON m.rowid = q.memory_rowid" if self.name == "sqlite" else
                "JOIN memories m ON m.tenant = q.tenant AND m.user_id = q.user_id AND m.id = q.memory_id")

    def db(self, n: int = 0) -> str:
        if n not in self._dbs:
            self._dbs[n] = self._new(n)
        return self._dbs[n]

    def mem(self, n: int = 0, **kwargs: Any) -> Memory:
        kwargs = {"embedder": HashEmbedder(64), "llm": None, "cache": False, **kwargs}
        m = Memory(self.db(n), **kwargs) if self.name == "sqlite" else Memory(url=self.db(n), **kwargs)
        self._open.append(m)
        return m

    def sql(self, q: str, params: tuple = (), n: int = 0) -> list[tuple]:
        if self.name == "sqlite":
            con = sqlite3.connect(self.db(n))
            try:
                return con.execute(q, params).fetchall()
            finally:
                con.close()
        import psycopg

        with psycopg.connect(self.db(n), autocommit=True) as con:
            return con.execute(q.replace("?", "%s"), params).fetchall()

    def raw(self, n: int = 0) -> tuple[int, int]:
        """(queue markers, fact memories) of database ``n``."""
        return (self.sql("SELECT count(*) FROM enrich_queue", n=n)[0][0],
                self.sql("SELECT count(*) FROM memories WHERE kind='fact'", n=n)[0][0])

    def close(self) -> None:
        for m in reversed(self._open):
            try:
                m.close()
            except Exception:  # noqa: BLE001
                pass


@pytest.fixture(params=["sqlite", "postgres"])
def eng(request, tmp_path):
    if request.param == "sqlite":
        e = Eng("sqlite", lambda n: str(tmp_path / f"m{n}.db"))
    else:
        server = request.getfixturevalue("pg_server")
        e = Eng("postgres", lambda n: server.new_database())
    yield e
    e.close()


@pytest.mark.parametrize("batch", [1, 3, 500])
def test_after_enrich_the_memories_are_those_of_an_eager_add(eng, batch):
    eager, later = eng.mem(0), eng.mem(1)
    eager.add_many(_log(), user_id="ann", batch_size=batch)
    got = later.add_many(_log(), user_id="ann", batch_size=batch, enrich="later")
    assert got["chitchat"] == 1
    assert later.pending("ann") == 7  # every row stored (the repeated "I live in Berlin." is one)
    res = later.enrich("ann")
    assert res["enriched"] == 7 and res["pending"] == 0 and res["ADD"] >= 4
    assert _state(later) == _state(eager)
    assert later.enrich() == {"enriched": 0, "pending": 0}


def test_rows_are_searchable_before_enrichment_and_no_fact_is_written(eng):
    m = eng.mem()
    m.add_many(_log(), user_id="ann", enrich="later")
    assert eng.raw() == (7, 0)
    hits = m.search("Munich", user_id="ann", limit=3)
    assert hits and hits[0].memory.text == "I moved to Munich." and hits[0].memory.kind == "utterance"
    m.close()
    m = eng.mem()  # the queue survives a reopen
    assert m.pending() == 7


@pytest.mark.parametrize("read", ["get_all", "ask", "as_of", "summarize"])
def test_reads_that_depend_on_claims_enrich_that_user_first(eng, read):
    m = eng.mem()
    m.add_many(_log(), user_id="ann", enrich="later")
    m.add_many(_log("Bo"), user_id="bo", enrich="later")
    if read == "get_all":
        m.get_all(user_id="ann")
    elif read == "ask":
        m.ask("Where do I live?", user_id="ann")
    elif read == "as_of":
        m.search("Berlin", user_id="ann", as_of="2024-01-02T12:00:00Z")
    else:
        m.summarize(user_id="ann")
    assert m.pending("ann") == 0 and m.pending("bo") == 7
    current = {x.text for x in m.get_all(user_id="ann") if x.kind == "fact"}
    assert "I moved to Munich." in current and "I live in Berlin." not in current


def test_plain_search_does_not_wait_for_enrichment(eng):
    m = eng.mem()
    m.add_many(_log(), user_id="ann", enrich="later")
    m.search("Berlin", user_id="ann")
    assert m.pending("ann") == 7


def test_limit_enriches_the_writes_said_first(eng):
    m = eng.mem()
    m.add_many(list(reversed(_log())), user_id="ann", batch_size=1, enrich="later")  # written newest first
    said = f"SELECT m.created_at FROM enrich_queue q {eng.JOIN} ORDER BY 1"
    before = [r[0] for r in eng.sql(said)]
    got = m.enrich("ann", limit=2)
    assert got["enriched"] == 2 and got["pending"] == 5
    assert [r[0] for r in eng.sql(said)] == before[2:]  # the two said first are gone from the queue


def test_said_time_keeps_the_speakers_offset_for_relative_dates(eng):
    m = eng.mem()
    m.add_many(_log(), user_id="ann", enrich="later")
    said = sorted(r[0] for r in eng.sql("SELECT said_at FROM enrich_queue"))
    assert said[0] == "2024-01-01T10:00:00+02:00"


def test_failed_enrichment_write_leaves_the_queue_and_rows_as_they_were(eng, monkeypatch):
    m = eng.mem()
    m.add_many(_log(), user_id="ann", enrich="later")
    rows = "SELECT id, text, valid_to, labels FROM memories ORDER BY id"
    rows_before = eng.sql(rows)
    def boom(*a, **k):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(f"anchormem.stores.{'sqlite' if eng.name == 'sqlite' else 'postgres'}.settle_pending", boom)
    with pytest.raises(Exception):
        m.enrich("ann")
    assert eng.sql(rows) == rows_before
    assert eng.raw() == (7, 0)


def test_precomputed_vectors_are_kept_by_the_fact_memories(eng):
    msgs = _log()
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(len(msgs), 64)).astype(np.float32)
    eager, later = eng.mem(0), eng.mem(1)
    eager.add_many(msgs, user_id="ann", vectors=vecs)
    later.add_many(msgs, user_id="ann", vectors=vecs, enrich="later")
    later.enrich()

    def by_text(m):
        items = m.get_all(user_id="ann", include_superseded=True)
        vs = m.store.get_vectors(m.tenant, [x.id for x in items])
        return {(x.kind, x.text): np.round(vs[x.id], 5).tobytes() for x in items}

    assert by_text(eager) == by_text(later)


def test_bad_mode_and_limit_are_refused():
    m = _mem()
    with pytest.raises(InvalidInputError, match="enrich must be one of now, later"):
        m.add_many(["hi there"], user_id="ann", enrich="soon")
    with pytest.raises(InvalidInputError, match="limit must be a positive integer"):
        m.enrich("ann", limit=0)


def test_the_cli_reports_and_drains_the_queue(tmp_path, hash_cli_env):
    db = tmp_path / "m.db"
    m = Memory(str(db), embedder="hash", llm=None, cache=False)
    m.add_many(_log(), user_id="ann", enrich="later")
    m.close()
    assert invoke_json(str(db), "enrich", "--status") == {"pending": 7}
    got = invoke_json(str(db), "enrich")
    assert got["enriched"] == 7 and got["pending"] == 0
    assert Eng("sqlite", lambda n: str(db)).raw()[0] == 0 and Eng("sqlite", lambda n: str(db)).raw()[1] >= 4


@pytest.mark.parametrize("workers", [1, 2])
def test_enrich_users_across_processes_gives_what_memory_enrich_gives(eng, monkeypatch, workers):
    from anchormem.bulk import enrich_users

    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")  # the workers' embedder, by the settings
    for n in (0, 1):
        m = eng.mem(n, embedder="hash")
        m.add_many(_log(), user_id="ann", enrich="later")
        m.add_many(_log("Bo"), user_id="bo", enrich="later")
        m.close()
    a = eng.mem(0, embedder="hash")
    a.enrich()
    got = enrich_users(memory=eng.mem(1, embedder="hash"), embedder="hash", workers=workers)
    assert (got["enriched"], got["users"], got["workers"]) == (14, 2, workers)
    b = eng.mem(1, embedder="hash")
    assert b.pending() == 0
    assert [_state(a, u) for u in ("ann", "bo")] == [_state(b, u) for u in ("ann", "bo")]


def test_a_deferred_import_keeps_the_scopes_vectors_in_step(tmp_path):
    m = _mem(tmp_path / "m.db")
    m.add_many(_log(), user_id="ann", enrich="later")
    assert m.store.vectors.cached_size((m.tenant, "ann")) == 7  # kept by the writes: saved on close, no rebuild


def test_a_search_before_enrichment_leaves_no_stale_ranking_rows_after_it(eng):
    """Searches rank on kept rank rows (stores.rank_rows, kept per scope generation); enrichment rewrites rows (its
    fact memories, labels, closed claims), so a search after it ranks what a fresh process reads."""
    m = eng.mem()
    m.add_many(_log(), user_id="ann", enrich="later")
    queries = ["Where do I live?", "Munich", "Where do I work?", "cat"]
    for q in queries:
        m.search(q, user_id="ann", limit=5)
    m.enrich("ann")
    after = [[(h.memory.id, h.memory.text, h.memory.valid_to, h.memory.state, [lb.domain for lb in h.memory.labels])
              for h in m.search(q, user_id="ann", limit=5)] for q in queries]
    m.close()
    fresh = eng.mem()
    again = [[(h.memory.id, h.memory.text, h.memory.valid_to, h.memory.state, [lb.domain for lb in h.memory.labels])
              for h in fresh.search(q, user_id="ann", limit=5)] for q in queries]  # (scores: the access counts grew)
    assert after == again
    assert any(text == "I moved to Munich." for text in (h[1] for h in after[1]))


def test_a_turn_is_never_read_against_itself_or_a_later_pending_turn(eng):
    """The enrichment's fact plan does not see the rows still pending (the relative reader's dense search found the
    turn itself and read "started a new job at Tencent" as a home that its own move then closed)."""
    msgs = [{"role": "user", "content": "My shipping address is 88 Wulin Road, Hangzhou.",
             "timestamp": "2026-08-03T10:00:00Z"},
            {"role": "user", "content": "I just relocated to Shenzhen and started a new job at Tencent, so ship to 12 "
             "Keyuan Road, Nanshan from now on.", "timestamp": "2026-09-15T10:00:00Z"}]
    eager, later = eng.mem(0, embedder=None, llm=None), eng.mem(1, embedder=None, llm=None)  # the real model
    eager.add_many(msgs, user_id="w")
    later.add_many(msgs, user_id="w", enrich="later")
    later.enrich("w")
    assert _state(later, "w") == _state(eager, "w")
    slots = {(c.slot, c.value, c.valid_to is None) for x in later.get_all(user_id="w") for c in x.claims}
    assert ("user|employer", "Tencent", True) in slots and ("user|home_city", "Shenzhen", True) in slots
