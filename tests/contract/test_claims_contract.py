"""Claims carry currency on every store: an utterance carries the facts drawn from it, superseding a fact closes its
claim everywhere, a memory with no current claim left is closed, a late older statement is stored closed, and
files written before the claims table are migrated (backfilled)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone

from anchormem.facts.claims import current_view

T1 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 10, 9, 0, tzinfo=timezone.utc)
T3 = T2 + timedelta(days=30)
SAM = "Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital."


def _utterance(mem, user="u", **kw):
    return next(m for m in mem.get_all(user_id=user, **kw) if m.kind == "utterance")


def test_an_utterance_carries_the_claims_of_its_facts(mem):
    evs = mem.add(SAM, user_id="u", timestamp=T1)
    utt = evs[0].memory
    assert utt.kind == "utterance"
    assert sorted((c.slot, c.value) for c in utt.claims) == [
        ("user|employer", "Santa Maria hospital"), ("user|home_city", "Lisbon"), ("user|occupation", "nurse")]
    facts = {e.memory.fact.attribute: e.memory for e in evs if e.memory.kind == "fact"}
    assert {c.fact_id for c in utt.claims} == {m.id for m in facts.values()}
    assert [(c.fact_id, c.value) for c in facts["home_city"].claims] == [(facts["home_city"].id, "Lisbon")]
    stored = mem.get(utt.id)
    assert stored.current is True and all(c.valid_to is None for c in stored.claims)
    assert stored.model_dump()["current"] is True


def test_superseding_a_fact_closes_its_claim_on_the_utterance(mem):
    utt = mem.add(SAM, user_id="u", timestamp=T1)[0].memory
    evs = mem.add("I moved to Berlin last month.", user_id="u", timestamp=T2)
    berlin = evs[0].memory
    assert [(e.event, e.memory.text) for e in evs] == [("ADD", "I moved to Berlin last month."),
                                                       ("SUPERSEDE", "I live in Lisbon")]
    now = mem.get(utt.id)
    home = next(c for c in now.claims if c.slot == "user|home_city")
    assert (home.value, home.valid_to, home.superseded_by) == ("Lisbon", T2, berlin.id)
    assert all(c.valid_to is None for c in now.claims if c.slot != "user|home_city")
    assert now.valid_to is None and now.current is True  # still current for the job
    assert current_view(now).text == "Hi, I'm Sam. I work as a nurse at Santa Maria hospital."
    assert utt.id in [m.id for m in mem.get_all(user_id="u")]


def test_a_memory_whose_claims_are_all_superseded_is_closed(mem):
    evs = mem.add("I live in Lisbon. The light there is lovely.", user_id="u", timestamp=T1)
    utt = evs[0].memory
    assert utt.kind == "utterance" and [c.value for c in utt.claims] == ["Lisbon"]
    evs = mem.add("I moved to Berlin.", user_id="u", timestamp=T2)
    closed = {e.memory.id: e.memory for e in evs if e.event == "SUPERSEDE"}
    assert utt.id in closed
    assert (closed[utt.id].valid_to, closed[utt.id].superseded_by) == (T2, evs[0].memory.id)
    assert closed[utt.id].current is False
    assert [m.text for m in mem.get_all(user_id="u")] == ["I moved to Berlin."]
    assert [h.event for h in mem.history(utt.id)] == ["ADD", "SUPERSEDE"]
    # the past is kept
    assert utt.id in [h.memory.id for h in mem.search("Lisbon light", user_id="u", as_of=T1 + timedelta(days=1))]


def test_an_older_statement_imported_later_is_stored_superseded(mem):
    berlin = mem.add("I moved to Berlin.", user_id="u", timestamp=T2)[0].memory
    evs = mem.add("I live in Lisbon. The light there is lovely.", user_id="u", timestamp=T1)
    assert sorted(e.event for e in evs) == ["ADD_SUPERSEDED", "ADD_SUPERSEDED"]
    for e in evs:
        assert (e.memory.valid_to, e.memory.superseded_by, e.memory.current) == (T2, berlin.id, False)
    assert [m.id for m in mem.get_all(user_id="u")] == [berlin.id]
    assert mem.get(berlin.id).current is True


def _downgrade(backend, store):
    """Make the database look written before v6: no claims table, utterances open."""
    if backend.name == "sqlite":
        store.close()
        c = sqlite3.connect(backend.url[len("sqlite:///"):], isolation_level=None)
        for name in ("keyword_log_ins", "keyword_log_del", "keyword_log_upd"):  # v7
            c.execute(f"DROP TRIGGER {name}")
        c.execute("DROP TABLE keyword_log")
        c.execute("DROP INDEX ix_mem_event")
        c.execute("DROP TABLE claims")
        c.execute("DROP TABLE memory_entities_past")
        c.execute("DROP TABLE memory_sessions")
        c.execute("DROP TABLE enrich_queue")  # v9
        c.execute("ALTER TABLE memory_history DROP COLUMN old_state")
        c.execute("UPDATE memories SET valid_to = NULL, superseded_by = NULL WHERE kind = 'utterance'")
        c.execute("PRAGMA user_version = 5")
        c.close()
    else:
        import psycopg

        store.close()
        with psycopg.connect(backend.url, autocommit=True) as c:
            c.execute("DROP TABLE claims")
            c.execute("DROP TABLE memory_entities_past")
            c.execute("DROP TABLE memory_sessions")
            c.execute("DROP TABLE enrich_queue")  # v10
            c.execute("ALTER TABLE memory_history DROP COLUMN old_state")
            c.execute("UPDATE memories SET valid_to = NULL, superseded_by = NULL WHERE kind = 'utterance'")
            c.execute("DELETE FROM anchormem_schema WHERE version >= 6")


def test_files_written_before_claims_are_backfilled(backend):
    mem = backend.memory()
    utt = mem.add(SAM, user_id="u", timestamp=T1)[0].memory
    gone = mem.add("I live in Porto. The light there is lovely.", user_id="v", timestamp=T1)[0].memory
    mem.add("I moved to Berlin.", user_id="u", timestamp=T2)
    mem.add("I moved to Rome.", user_id="v", timestamp=T2)
    _downgrade(backend, mem.store)
    mem2 = backend.memory()
    now = mem2.get(utt.id)
    assert sorted((c.slot, c.valid_to is None) for c in now.claims) == [
        ("user|employer", True), ("user|home_city", False), ("user|occupation", True)]
    assert now.current is True
    closed = mem2.get(gone.id)
    assert (closed.valid_to, closed.current) == (T2, False)
    assert [m.text for m in mem2.get_all(user_id="v")] == ["I moved to Rome."]
