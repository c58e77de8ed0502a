"""Consolidation (anchormem.consolidate): near-duplicate rules, merges, episode roll-ups, idle demotion, promotion,
per-user rolled-up summaries, context, CLI. SQLite + hash embedder, frozen clock."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from anchormem import Memory
from anchormem.cli import app
from anchormem.consolidate import (DEMOTE_MAX_IMPORTANCE, near_duplicates, same_values, text_overlap,
                                   user_summary_memory)
from anchormem.errors import InvalidInputError
from anchormem.lifecycle import importance
from anchormem.testing import DeterministicEmbedder, frozen_clock
from anchormem.types import FactSlot, MemoryItem

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)  # a Monday


@pytest.fixture
def mem(tmp_path):
    m = Memory(str(tmp_path / "cons.db"), embedder=DeterministicEmbedder(64), llm=None)
    yield m
    m.close()


def item(text: str, i: int = 0, **kw) -> MemoryItem:
    kw.setdefault("created_at", T0 + timedelta(minutes=i))
    return MemoryItem(id=f"m{i}", text=text, user_id="u", valid_from=kw["created_at"], **kw)


def texts(items) -> list[str]:
    return [getattr(x, "memory", x).text for x in items]


# ---------------------------------------------------------------- the rules
def test_text_overlap_counts_every_word_and_cjk_characters():
    assert text_overlap("I love hiking.", "i love HIKING!") == 1.0
    assert text_overlap("I love hiking", "I love swimming") == pytest.approx(2 / 4)
    assert text_overlap("我喜欢爬山", "我喜欢游泳") == pytest.approx(3 / 7)


@pytest.mark.parametrize("a, b, same", [
    ("I paid 4500 yuan rent.", "I really paid 4500 yuan rent!", True),
    ("I paid 4500 yuan rent.", "I paid 4800 yuan rent.", False),
    ("月租四千五", "月租四千八", False),
    ("I eat meat.", "I don't eat meat.", False),
    ("I don't eat meat.", "I don't not eat meat.", False),   # a second negation flips it back
    ("我喜欢咖啡", "我不喜欢咖啡", False),
])
def test_same_values_blocks_changed_numbers_and_negations(a, b, same):
    assert same_values(item(a), item(b, 1)) is same


def test_same_values_compares_facts_and_event_dates():
    berlin = FactSlot(entity="user", attribute="lives_in", value="Berlin")
    munich = FactSlot(entity="user", attribute="lives_in", value="Munich")
    assert not same_values(item("I live in Berlin.", fact=berlin), item("I live in Berlin!", 1, fact=munich))
    assert same_values(item("I live in Berlin.", fact=berlin), item("I live in Berlin!", 1, fact=berlin))
    day = T0 + timedelta(days=3)
    assert not same_values(item("Dinner with Li next Friday.", event_time=day),
                           item("Dinner with Li next Friday!", 1, event_time=day + timedelta(days=7)))


def test_near_duplicates_keeps_the_oldest_and_respects_kind_speaker_and_values():
    emb = DeterministicEmbedder(64)
    rows = [item("Can you remind me which train goes to Sintra?", 0, kind="question"),
            item("Can you remind me which train goes to Sintra??", 1, kind="question"),
            item("Could you remind me which train goes to Sintra?", 2, kind="question"),
            item("Can you remind me which train goes to Sintra?", 3, kind="question", speaker="Bo"),
            item("Can you remind me which train goes to Sintra?", 4, kind="utterance"),
            item("Is the rent 950 euros?", 5, kind="question"),
            item("Is the rent 980 euros?", 6, kind="question")]
    vecs = {r.id: emb.embed_documents([r.text])[0] for r in rows}
    groups = near_duplicates(rows, vecs)
    assert [(k.id, [d.id for d in ds]) for k, ds in groups] == [("m0", ["m1"])]
    # a looser rule takes the reworded question too, still never the other speaker, kind or amount
    loose = near_duplicates(rows, vecs, min_cosine=0.5, min_overlap=0.6)
    assert [(k.id, sorted(d.id for d in ds)) for k, ds in loose] == [("m0", ["m1", "m2"])]


# ---------------------------------------------------------------- consolidate
def test_consolidate_merges_near_duplicates_and_dry_run_changes_nothing(mem):
    with frozen_clock(T0) as clock:
        a = mem.add("Can you remind me which train goes to Sintra?", user_id="u")[0].memory
        clock.advance(days=1)
        b = mem.add("Can you remind me, which train goes to Sintra?", user_id="u")[0].memory
        c = mem.add("Is the rent 950 euros?", user_id="u")[0].memory
        d = mem.add("Is the rent 980 euros?", user_id="u")[0].memory
        assert a.id != b.id  # not an exact duplicate at write time
        before = [(m.id, m.tier, m.valid_to) for m in mem.get_all(user_id="u", include_superseded=True)]
        dry = mem.consolidate(user_id="u", dry_run=True)
        assert [(g.kept, g.merged) for g in dry.merged] == [(a.id, [b.id])]
        assert (dry.dry_run, dry.counts["merged"], dry.user_summary_id) == (True, 1, None)
        assert [(m.id, m.tier, m.valid_to) for m in mem.get_all(user_id="u", include_superseded=True)] == before
        assert [h.event for h in mem.history(b.id)] == ["ADD"]
        clock.advance(hours=1)
        report = mem.consolidate(user_id="u")
        assert [(g.kept, g.merged) for g in report.merged] == [(a.id, [b.id])]
        assert texts(mem.get_all(user_id="u")) == [a.text, c.text, d.text]
        closed = mem.get(b.id)
        assert (closed.valid_to, closed.superseded_by) == (clock.now, a.id)
        assert mem.get(a.id).source_message_ids == a.source_message_ids + b.source_message_ids
        assert mem.consolidate(user_id="u").merged == []  # idempotent


def test_old_session_episodes_roll_up_into_the_session_summary_and_go_cold(mem):
    with frozen_clock(T0) as clock:
        jan = mem.add([{"role": "user", "content": "I don't drink coffee after 3pm any more."},
                       {"role": "assistant", "content": "Noted: decaf or rooibos tea in the afternoon then."},
                       {"role": "user", "content": "We agreed to pay 4500 yuan rent by the 5th."}],
                      user_id="u", session_id="jan")
        clock.advance(days=40)
        feb = mem.add("Can you book a table for 4 on Friday?", user_id="u", session_id="feb")
        clock.advance(days=20)  # on the user's timeline (their latest turn: feb) jan is 40 days old, feb 0
        report = mem.consolidate(user_id="u")
        assert [c.key for c in report.clusters] == ["session:jan"]
        episodes = {e.memory.id for e in jan if e.memory.kind in ("utterance", "question", "assistant")}
        assert set(report.clusters[0].episodes) == episodes and set(report.archived) == episodes
        summary = mem.get(report.clusters[0].summary_id)
        assert summary.kind == "summary" and summary.session_id == "jan" and summary.tier == "warm"
        assert "I don't drink coffee after 3pm any more." in summary.text  # negation and number verbatim
        assert "4500 yuan" in summary.text
        for e in jan:
            want = "cold" if e.memory.id in episodes else "warm"  # facts and commitments stay warm
            assert mem.get(e.memory.id).tier == want
        assert all(mem.get(e.memory.id).tier == "warm" for e in feb)
        hist = mem.history(next(iter(episodes)))[-1]
        assert (hist.event, hist.actor, hist.reason) == ("ARCHIVE", "consolidate",
                                                        f"rolled up into summary {summary.id}")


def test_sessionless_episodes_cluster_by_week(mem):
    with frozen_clock(T0) as clock:  # Monday of ISO week 2025-W02
        mem.add("My sister Ana throws her big party on the 14th.", user_id="u")  # (an episode: no fact of the
        clock.advance(days=2)  # user's; "Ana turns 30" is her age, a fact: facts.quantities)
        mem.add("Is the gym open until 10pm on Wednesdays?", user_id="u")
        clock.advance(days=60)
        mem.add("I started a new job at the library today.", user_id="u")  # ages count on the user's timeline
        report = mem.consolidate(user_id="u")
        assert [c.key for c in report.clusters] == ["week:2025-W02"]
        summary = mem.get(report.clusters[0].summary_id)
        assert summary.metadata["summary_level"] == "cluster"
        assert summary.text.startswith("Week 2025-W02\n") and "big party on the 14th" in summary.text


def test_ages_count_on_the_users_timeline_not_the_wall_clock(mem):
    """Issue 22: a user who has been away (or whose past conversations were imported) keeps them warm: ages are
    measured from the user's latest turn."""
    with frozen_clock(T0) as clock:
        mem.add("My sister Ana turns 30 on the 14th.", user_id="u", session_id="s")
        clock.advance(days=400)
        report = mem.consolidate(user_id="u")
        assert report.clusters == [] and report.demoted == [] and report.archived == []


def test_idle_unimportant_memories_are_demoted_and_promoted_when_used_again(mem):
    with frozen_clock(T0) as clock:
        chat = mem.add("The blue bike in the hallway belongs to my neighbour.", user_id="u")[0].memory
        used = mem.add("The red kayak in the garage belongs to my uncle.", user_id="u")[0].memory
        fact = mem.add("I live in Porto.", user_id="u")[0].memory
        assert fact.kind == "fact"
        assert importance(chat) <= DEMOTE_MAX_IMPORTANCE < importance(fact)
        clock.advance(days=50)
        assert used.id in [h.memory.id for h in mem.search("red kayak garage uncle", user_id="u", limit=1)]
        clock.advance(days=50)  # 100 days after writing; `used` was last accessed 50 days ago
        mem.add("The green umbrella by the door is mine.", user_id="u")  # the user's latest activity: now
        report = mem.consolidate(user_id="u", episode_age_days=10_000)
        assert report.demoted == [chat.id] and report.clusters == []
        assert mem.get(chat.id).tier == "cold" and mem.get(fact.id).tier == "warm" and mem.get(used.id).tier == "warm"
        assert report.user_summary_id is None  # no session summary to roll up
        # found again (a tier filter asks for archived memories): promoted by the next consolidate
        clock.advance(days=1)
        assert [h.memory.id for h in mem.search("blue bike hallway", user_id="u", filters={"tier": "cold"})] \
            == [chat.id]
        clock.advance(days=1)
        again = mem.consolidate(user_id="u", episode_age_days=10_000)
        assert again.promoted == [chat.id] and again.demoted == []
        assert mem.get(chat.id).tier == "warm"
        assert [(h.event, h.reason) for h in mem.history(chat.id)][-2:] == [
            ("ARCHIVE", f"idle 90 days, importance <= {DEMOTE_MAX_IMPORTANCE}"), ("RESTORE", "accessed since archived")]


def test_bad_consolidate_arguments_raise(mem):
    with pytest.raises(InvalidInputError):
        mem.consolidate(user_id="u", idle_days=-1)
    with pytest.raises(InvalidInputError):
        mem.consolidate(user_id="u", now="yesterday")


# ---------------------------------------------------------------- per-user summaries
def _two_sessions(mem, clock):
    mem.add([{"role": "user", "content": "I live in Berlin."},
             {"role": "user", "content": "I pay 900 euros rent every month."}], user_id="u", session_id="s1")
    mem.summarize(user_id="u", session_id="s1")
    clock.advance(days=7)
    mem.add([{"role": "user", "content": "I moved to Munich last week."},
             {"role": "user", "content": "I don't eat meat any more."}], user_id="u", session_id="s2")


def test_summarize_without_a_session_rolls_up_the_session_summaries(mem):
    with frozen_clock(T0) as clock:
        _two_sessions(mem, clock)
        us = mem.summarize(user_id="u")  # s2 has no summary yet: it gets one first
        assert us is not None and us.metadata["summary_level"] == "user" and us.session_id is None
        assert us.text.startswith("User summary: 2 sessions, 2025-01-06..2025-01-13\n")
        lines = json.loads(us.metadata["summary_lines"])
        assert [ln["text"] for ln in lines] == ["I pay 900 euros rent every month.",
                                               "I moved to Munich last week. [Berlin → Munich, 2025-01]",
                                               "I don't eat meat any more."]  # Berlin was superseded: a change
        # every line quotes a stored message of a current memory
        alive = {m for it in mem.get_all(user_id="u") for m in it.source_message_ids}
        assert {ln["message_id"] for ln in lines} <= alive
        assert set(us.source_message_ids) == {ln["message_id"] for ln in lines}
        assert mem.user_summary(user_id="u").id == us.id
        assert mem.summarize(user_id="u").id == us.id  # nothing changed: the same summary (NOOP)


def test_deleting_a_quoted_memory_drops_the_user_summary_and_the_rebuild_leaves_it_out(mem):
    with frozen_clock(T0) as clock:
        _two_sessions(mem, clock)
        us = mem.summarize(user_id="u")
        meat = next(m for m in mem.get_all(user_id="u") if "meat" in m.text)
        counts = mem.delete(meat.id)
        assert counts["summaries"] >= 2  # the s2 session summary and the user summary quote it
        assert mem.user_summary(user_id="u") is None
        with pytest.raises(Exception):
            mem.get(us.id)
        again = mem.summarize(user_id="u")
        assert "meat" not in again.text and "900 euros" in again.text


def test_context_falls_back_to_the_user_summary(mem):
    with frozen_clock(T0) as clock:
        _two_sessions(mem, clock)
        us = mem.summarize(user_id="u")
        block = mem.context(user_id="u", session_id="s3", query="What should I cook tonight?", budget_tokens=800)
        sec = block.section("summary")
        assert sec is not None and sec.title == "## User summary"
        assert sec.items[0]["id"] == us.id and "I don't eat meat any more." in sec.text


def test_user_summary_memory_is_none_without_summaries(mem):
    mem.add("Can you remind me which train goes to Sintra?", user_id="u")
    assert user_summary_memory(mem.store, mem._scope("u"), embedder=mem.embedder) is None
    assert mem.summarize(user_id="u") is None


# ---------------------------------------------------------------- command line
def test_cli_consolidate_archive_restore(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    with frozen_clock(T0) as clock:
        with Memory(db) as m:
            a = m.add("Can you remind me which train goes from Lisbon to Sintra on Sunday mornings?",
                      user_id="u")[0].memory
            clock.advance(minutes=1)
            b = m.add("Can you remind me, which train goes from Lisbon to Sintra on Sunday mornings?",
                      user_id="u")[0].memory
        clock.advance(days=1)
        out = runner.invoke(app, ["--db", db, "--json", "consolidate", "--user", "u", "--dry-run"])
        assert out.exit_code == 0, out.output
        data = json.loads(out.stdout)
        assert data["dry_run"] is True and data["merged"] == [{"kept": a.id, "merged": [b.id]}]
        assert data["counts"]["merged"] == 1
        out = runner.invoke(app, ["--db", db, "consolidate", "--user", "u"])
        assert out.exit_code == 0 and "consolidated" in out.stdout and "merge 1 near-duplicate" in out.stdout
        out = runner.invoke(app, ["--db", db, "--json", "archive", a.id, "--reason", "done"])
        assert json.loads(out.stdout) == {"archived": [a.id], "count": 1}
        out = runner.invoke(app, ["--db", db, "--json", "restore", "--user", "u"])
        assert json.loads(out.stdout) == {"restored": [a.id], "count": 1}
        out = runner.invoke(app, ["--db", db, "archive"])
        assert out.exit_code == 2 and "either ids or user_id" in out.stderr
