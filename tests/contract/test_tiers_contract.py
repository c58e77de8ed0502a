"""Storage tiers on every store: archive/restore (default reads skip cold memories; get, as_of, filters, history
and export keep them), merges of near-duplicates, the tier through export/import, and consolidate end to end."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.errors import FilterError, InvalidInputError, NotFoundError
from anchormem.testing import frozen_clock

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


def ids(items) -> list[str]:
    return [getattr(i, "memory", i).id for i in items]


def _seed(mem, user="ana"):
    hike = mem.add("Hiking in the Dolomites every August with my cousins.", user_id=user)[0].memory
    # (no place in it: "the flat in Porto" is a home the place reader reads, a second memory of the turn)
    rent = mem.add("Rent for the flat went up to 950 euros.", user_id=user)[0].memory
    chess = mem.add("Chess club meets on Thursday evenings near the library.", user_id=user)[0].memory
    return hike, rent, chess


def test_archived_memories_leave_default_reads_and_stay_reachable(mem):
    with frozen_clock(T0) as clock:
        hike, rent, chess = _seed(mem)
        clock.advance(days=1)
        moved = mem.archive([hike.id], reason="old plan")
        assert [(m.id, m.tier, m.archived_at) for m in moved] == [(hike.id, "cold", clock.now)]
        clock.advance(days=1)
        # default search (dense + keyword), get_all and ask leave it out
        assert hike.id not in ids(mem.search("Hiking in the Dolomites in August", user_id="ana"))
        assert ids(mem.get_all(user_id="ana")) == [rent.id, chess.id]
        assert mem.ask("Where do I go hiking in August?", user_id="ana").abstained
        # ...but get, a tier filter, both tiers, as_of and history keep it
        assert mem.get(hike.id).tier == "cold"
        assert ids(mem.get_all(user_id="ana", filters={"tier": "cold"})) == [hike.id]
        assert ids(mem.get_all(user_id="ana", filters={"tier": {"in": ["warm", "cold"]}})) == [hike.id, rent.id,
                                                                                                chess.id]
        assert ids(mem.search("Hiking in the Dolomites in August", user_id="ana", filters={"tier": "cold"})) \
            == [hike.id]
        assert hike.id in ids(mem.search("Hiking in the Dolomites in August", user_id="ana", as_of=clock.now))
        last = mem.history(hike.id)[-1]
        assert (last.event, last.actor, last.reason, last.created_at) == ("ARCHIVE", "archive", "old plan",
                                                                          T0 + timedelta(days=1))
        exported = {m["id"]: m for m in mem.export(user_id="ana")["memories"]}
        assert exported[hike.id]["tier"] == "cold" and exported[rent.id]["tier"] == "warm"
        # restore: back in default search (the SQLite vector cache follows the move), a RESTORE version
        back = mem.restore([hike.id], reason="asked again")
        assert [(m.tier, m.archived_at) for m in back] == [("warm", None)]
        assert ids(mem.search("Hiking in the Dolomites in August", user_id="ana"))[0] == hike.id
        assert [h.event for h in mem.history(hike.id)] == ["ADD", "ARCHIVE", "RESTORE"]
        assert mem.restore([hike.id]) == []  # already warm: nothing moves, no new version
        assert len(mem.history(hike.id)) == 3


def test_dense_search_on_the_store_skips_cold_rows_unless_asked(mem, embed):
    hike, rent, chess = _seed(mem)
    scope = mem._scope("ana")
    q = embed("Hiking in the Dolomites every August with my cousins.")
    assert mem.store.dense_search(scope, q, 3, None)[0][0] == hike.id
    mem.archive([hike.id])
    assert hike.id not in [d for d, _ in mem.store.dense_search(scope, q, 3, None)]
    from anchormem.filters import parse_filters

    assert [d for d, _ in mem.store.dense_search(scope, q, 3, parse_filters({"tier": "cold"}))] == [hike.id]
    mem.restore([hike.id])
    assert mem.store.dense_search(scope, q, 3, None)[0][0] == hike.id


def test_archive_and_restore_by_user_and_filters(mem):
    hike, rent, chess = _seed(mem)
    _seed(mem, user="ben")
    moved = mem.archive(user_id="ana", filters={"entity.type": "money"}, reason="bills")
    assert ids(moved) == [rent.id]
    assert ids(mem.get_all(user_id="ana", filters={"tier": "cold"})) == [rent.id]
    assert ids(mem.get_all(user_id="ana")) == [hike.id, chess.id]
    assert len(mem.get_all(user_id="ben")) == 3  # another user is untouched
    assert mem.archive(user_id="ana", filters={"entity.type": "money"}) == []  # warm ones only
    assert ids(mem.restore(user_id="ana")) == [rent.id]
    assert mem.get_all(user_id="ana", filters={"tier": "cold"}) == []


def test_bad_tier_calls_raise_and_move_nothing(mem):
    hike, _, _ = _seed(mem)
    with pytest.raises(NotFoundError):
        mem.archive([hike.id, "no-such-id"])
    assert mem.get(hike.id).tier == "warm"
    with pytest.raises(InvalidInputError):
        mem.archive()
    with pytest.raises(InvalidInputError):
        mem.archive([hike.id], user_id="ana")
    with pytest.raises(FilterError, match="warm' or 'cold"):
        mem.get_all(user_id="ana", filters={"tier": "frozen"})
    with pytest.raises(InvalidInputError):
        mem.store.set_tier(mem.tenant, [hike.id], "lukewarm", when=T0, actor="t")


def test_restating_an_archived_memory_restores_it(mem):
    hike, _, _ = _seed(mem)
    mem.archive([hike.id])
    events = mem.add("Hiking in the Dolomites every August with my cousins.", user_id="ana")
    assert [(e.event, e.memory.id) for e in events] == [("NOOP", hike.id)]
    assert mem.get(hike.id).tier == "warm"
    assert [(h.event, h.actor, h.reason) for h in mem.history(hike.id)][-1] == ("RESTORE", "add", "restated")


def test_merge_memories_closes_duplicates_into_the_kept_one(mem):
    with frozen_clock(T0) as clock:
        a = mem.add("Can you remind me which train goes to Sintra?", user_id="ana", session_id="s1")[0].memory
        clock.advance(hours=1)
        b = mem.add("Could you remind me which train goes to Sintra?", user_id="ana", session_id="s2")[0].memory
        mem.search("train to Sintra", user_id="ana")  # access counts: both hits bumped once
        clock.advance(hours=1)
        kept = mem.store.merge_memories(mem.tenant, a.id, [b.id], when=clock.now, actor="consolidate",
                                        reason="near-duplicate")
        assert kept.source_message_ids == a.source_message_ids + b.source_message_ids
        assert kept.access_count == 2
        closed = mem.get(b.id)
        assert (closed.valid_to, closed.superseded_by) == (clock.now, a.id)
        assert ids(mem.get_all(user_id="ana")) == [a.id]
        before = T0 + timedelta(hours=1, minutes=30)
        assert b.id in ids(mem.search("remind me train Sintra", user_id="ana", as_of=before))
        assert [(h.event, h.reason) for h in mem.history(b.id)][-1] == ("MERGE", f"merged into {a.id}: near-duplicate")
        assert [(h.event, h.reason) for h in mem.history(a.id)][-1] == ("MERGE", f"merged {b.id}: near-duplicate")
        from anchormem.errors import ConflictError

        with pytest.raises(ConflictError):
            mem.store.merge_memories(mem.tenant, a.id, [b.id], when=clock.now, actor="t")


def test_the_tier_survives_export_and_import(backend, target):
    src, dst = backend.memory(), target.memory()
    with frozen_clock(T0):
        hike, rent, _ = _seed(src)
        src.archive([hike.id], reason="old")
    counts = dst.import_memories(src.export(user_id="ana"))
    assert counts["memories"] == 3
    got = dst.get(hike.id)
    assert (got.tier, got.archived_at) == ("cold", T0)
    assert ids(dst.get_all(user_id="ana")) == [rent.id, ids(src.get_all(user_id="ana"))[1]]
    assert hike.id not in ids(dst.search("Hiking in the Dolomites in August", user_id="ana"))
    assert [h.event for h in dst.history(hike.id)] == ["ADD", "ARCHIVE"]


def test_consolidate_end_to_end(mem):
    with frozen_clock(T0) as clock:
        old = mem.add([{"role": "user", "content": "I paid 950 euros for the boat trip in Porto this month."},
                       {"role": "user", "content": "Chess club meets on Thursday evenings near the library."}],
                      user_id="ana", session_id="jan")
        clock.advance(days=45)
        fresh = mem.add("Is there a direct train from Porto to Lisbon on Sundays?", user_id="ana",
                        session_id="mar")[0].memory
        report = mem.consolidate(user_id="ana")
        old_ids = [e.memory.id for e in old if e.memory.kind != "fact"]
        assert [c.key for c in report.clusters] == ["session:jan"]
        assert sorted(report.clusters[0].episodes) == sorted(old_ids)
        assert all(mem.get(i).tier == "cold" for i in old_ids)
        assert mem.get(fresh.id).tier == "warm"
        summary = mem.get(report.clusters[0].summary_id)
        assert summary.kind == "summary" and "950 euros" in summary.text
        user_summary = mem.user_summary(user_id="ana")
        assert user_summary.id == report.user_summary_id
        assert user_summary.metadata["summary_level"] == "user"
        assert "I paid 950 euros for the boat trip in Porto this month." in user_summary.text
        # the summaries stay searchable; the rolled-up episodes do not, except on request
        hits = mem.search("boat trip in Porto", user_id="ana")
        assert all(h.memory.tier == "warm" for h in hits) and summary.id in ids(hits)
        assert set(old_ids) & set(ids(mem.search("boat trip in Porto", user_id="ana", filters={"tier": "cold"})))
