"""Memory lifecycle: expiry strategies (TTL, dynamic, explicit), gc, recency decay, importance, access tracking."""

from __future__ import annotations

import json
import logging
import math
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from anchormem import Memory
from anchormem.cli import app
from anchormem.errors import ConfigError, InvalidInputError, StoreError
from anchormem.lifecycle import (ExpiryPolicy, explain_expiry, importance, is_transient, parse_duration,
                                 parse_strategy, resolve_expiry)
from anchormem.retrieval.config import SearchConfig
from anchormem.retrieval.fusion import recency_weight
from anchormem.testing import DeterministicEmbedder, frozen_clock
from anchormem.types import Label, MemoryItem

T0 = datetime(2025, 7, 1, 9, 0, tzinfo=timezone.utc)
UTC = timezone.utc


@pytest.fixture
def mem(tmp_path):
    m = Memory(str(tmp_path / "life.db"), embedder=DeterministicEmbedder(64), llm=None)
    yield m
    m.close()


def item(text: str = "x", **kw) -> MemoryItem:
    kw.setdefault("created_at", T0)
    return MemoryItem(id="m1", text=text, user_id="u", valid_from=kw["created_at"], **kw)


def texts(items) -> list[str]:
    return sorted(getattr(i, "memory", i).text for i in items)


# ---------------------------------------------------------------- durations and strategies
@pytest.mark.parametrize("value, expected", [
    ("7d", timedelta(days=7)), ("24h", timedelta(hours=24)), ("30m", timedelta(minutes=30)),
    ("2w", timedelta(weeks=2)), (" 1.5D ", timedelta(hours=36)), ("7天", timedelta(days=7)),
    ("24小时", timedelta(hours=24)), ("30分钟", timedelta(minutes=30)), ("2周", timedelta(weeks=2)),
])
def test_durations_parse(value, expected):
    assert parse_duration(value) == expected


@pytest.mark.parametrize("bad", ["7x", "", "d", "7", "0d", "-1d", "seven days", "1e3d", "7 d d"])
def test_bad_durations_raise_invalid_input(bad):
    with pytest.raises(InvalidInputError):
        parse_duration(bad)


def test_strategies_parse_and_bad_ones_name_the_forms():
    assert parse_strategy("Permanent") == "permanent"
    assert parse_strategy("dynamic") == "dynamic"
    assert parse_strategy("24h") == timedelta(hours=24)
    with pytest.raises(InvalidInputError, match="'permanent', 'dynamic' or a duration"):
        parse_strategy("forever")
    with pytest.raises(InvalidInputError, match="must be a string"):
        parse_strategy(7)


def test_a_bad_policy_is_a_config_error():
    with pytest.raises(ConfigError, match=r"kinds\['utterance'\]"):
        ExpiryPolicy(kinds={"utterance": "soon"})
    with pytest.raises(ConfigError):
        ExpiryPolicy(metadata={"category": {"emotion": "1 day"}})
    with pytest.raises(ConfigError):
        ExpiryPolicy(transient="permanent")
    with pytest.raises(ConfigError):
        ExpiryPolicy(default="7y")


# ---------------------------------------------------------------- the rule order
def test_policy_rules_in_order():
    policy = ExpiryPolicy(default="30d", labels={"finance/investing": "7d", "health": "24h"},
                          metadata={"category": {"emotion": "24h", "risk_preference": "permanent"}})
    fund = [Label(domain="finance", topic="investing", primary=True)]
    assert explain_expiry(item(labels=fund), policy) == (T0 + timedelta(days=7), "policy.labels[finance/investing]")
    assert explain_expiry(item(labels=[Label(domain="health", topic="illness")]), policy) == \
        (T0 + timedelta(hours=24), "policy.labels[health]")
    # facts are permanent by default, before labels are consulted
    assert explain_expiry(item(kind="fact", labels=fund), policy) == (None, "policy.kinds[fact]")
    # the policy's metadata rules come before kinds and labels
    assert resolve_expiry(item(labels=fund, metadata={"category": "risk_preference"}), policy) is None
    assert resolve_expiry(item(metadata={"category": "emotion"}), policy) == T0 + timedelta(hours=24)
    # add-time metadata wins over everything; an explicit instant over a strategy
    assert resolve_expiry(item(kind="fact", metadata={"expire_strategy": "2w"}), policy) == T0 + timedelta(weeks=2)
    assert resolve_expiry(item(metadata={"expire_strategy": "2w", "expires_at": "2025-07-03T08:00:00+08:00"}),
                          policy) == datetime(2025, 7, 3, 0, 0, tzinfo=UTC)
    assert explain_expiry(item(), policy) == (T0 + timedelta(days=30), "policy.default")
    assert resolve_expiry(item(), ExpiryPolicy()) is None  # the default policy expires nothing


def test_durations_run_from_when_said_or_from_the_write_time():
    said = item(created_at=T0, metadata={"expire_strategy": "7d"})
    later = T0 + timedelta(days=100)
    assert resolve_expiry(said, ExpiryPolicy(), later) == T0 + timedelta(days=7)
    assert resolve_expiry(said, ExpiryPolicy(anchor="written"), later) == later + timedelta(days=7)


@pytest.mark.parametrize("text, transient", [
    ("I'm so tired today", True), ("Feeling really stressed right now.", True), ("I am hungry", True),
    ("今天好累", True), ("饿死了", True), ("我现在有点困", True),
    ("I'm tired of my job", False), ("I'm excited about moving to Lisbon", False), ("I was tired", False),
    ("我对工作很烦", False), ("我住在杭州", False), ("I'm a nurse", False),
    ("I'm so tired today because the night shift at the hospital where I work ran late again", False),
])
def test_transient_statements(text, transient):
    assert is_transient(text) is transient


def test_dynamic_rules():
    policy = ExpiryPolicy(default="dynamic")
    assert explain_expiry(item("I'm so tired today"), policy) == \
        (T0 + timedelta(hours=24), "policy.default→dynamic:transient")
    plan = item("Dentist on Tuesday", event_time=datetime(2025, 7, 8, tzinfo=UTC),
                event_time_end=datetime(2025, 7, 8, 23, 59, 59, tzinfo=UTC))
    assert explain_expiry(plan, policy) == (datetime(2025, 7, 15, 23, 59, 59, tzinfo=UTC),
                                            "policy.default→dynamic:event")
    past = item("I moved in June", event_time=datetime(2025, 6, 1, tzinfo=UTC),
                event_time_end=datetime(2025, 6, 30, tzinfo=UTC))
    assert resolve_expiry(past, policy) is None
    assert resolve_expiry(item("I have two cats"), policy) is None
    assert resolve_expiry(item("I'm so tired today", kind="fact"), policy) is None  # kinds before default
    custom = ExpiryPolicy(default="dynamic", transient="6h", event_grace="1d")
    assert resolve_expiry(item("今天好累"), custom) == T0 + timedelta(hours=6)
    assert resolve_expiry(plan, custom) == datetime(2025, 7, 9, 23, 59, 59, tzinfo=UTC)


# ---------------------------------------------------------------- expiry through Memory
def test_seven_day_memory_visible_then_expired_then_gc(mem):
    with frozen_clock(T0) as clock:
        yield_ = mem.add("My fund yielded 3.2% this week.", user_id="a", metadata={"expire_strategy": "7d"})
        fund = yield_[0].memory
        assert fund.expires_at == T0 + timedelta(days=7)
        risk = mem.add("I prefer low-risk investments.", user_id="a")[0].memory
        assert risk.expires_at is None
        clock.advance(days=6)
        assert fund.id in [h.memory.id for h in mem.search("fund yielded", user_id="a")]
        assert texts(mem.get_all(user_id="a")) == sorted([fund.text, risk.text])
        clock.advance(days=2)  # day 8
        assert fund.id not in [h.memory.id for h in mem.search("fund yielded", user_id="a")]
        assert [m.id for m in mem.get_all(user_id="a")] == [risk.id]
        assert [m.id for m in mem.get_all(user_id="a", filters={"source": "user"})] == [risk.id]
        assert fund.id in [h.memory.id for h in mem.search("fund yielded", user_id="a", show_expired=True)]
        assert [m.id for m in mem.get_all(user_id="a", show_expired=True)] == [fund.id, risk.id]
        assert mem.gc(dry_run=True) == {"memories": 1, "users": 1}
        assert [m.id for m in mem.expired()] == [fund.id]
        counts = mem.gc()
        assert (counts["memories"], counts["fts"], counts["users"]) == (1, 1, 1)
        assert counts["entities"] == len(fund.entities) > 0
        assert [m.id for m in mem.get_all(user_id="a", show_expired=True)] == [risk.id]
        assert fund.id not in [h.memory.id for h in mem.search("fund yielded", user_id="a", show_expired=True)]
        assert [h.memory.id for h in mem.search("low-risk investments", user_id="a")] == [risk.id]
        last = mem.history(fund.id)[-1]
        assert (last.event, last.reason, last.actor, last.old_text) == ("DELETE", "expired", "gc", fund.text)
        assert mem.gc() == {"memories": 0, "fts": 0, "entities": 0, "users": 0}
        clock.advance(days=3650)  # permanent never expires
        assert [m.id for m in mem.get_all(user_id="a")] == [risk.id]
        assert mem.gc()["memories"] == 0


def test_explicit_expires_at_and_utc_offsets(mem):
    with frozen_clock(T0) as clock:
        ev = mem.add("Parking permit code 4411.", user_id="a", metadata={"expires_at": "2025-07-03T08:00:00+08:00"})
        assert ev[0].memory.expires_at == datetime(2025, 7, 3, 0, 0, tzinfo=UTC)
        clock.set("2025-07-02T23:59:00Z")
        assert len(mem.get_all(user_id="a")) == 1
        clock.set("2025-07-03T00:00:00Z")  # expires_at <= now: expired
        assert mem.get_all(user_id="a") == []
        assert mem.search("parking permit", user_id="a") == []


def test_bad_expiry_metadata_is_refused_before_anything_is_written(mem):
    with pytest.raises(InvalidInputError, match="expire strategy"):
        mem.add("I like tea.", user_id="a", metadata={"expire_strategy": "soonish"})
    with pytest.raises(InvalidInputError, match="expires_at"):
        mem.add("I like tea.", user_id="a", metadata={"expires_at": "next week"})
    with pytest.raises(InvalidInputError, match="message 1"):
        mem.add([{"role": "user", "content": "I like tea."},
                 {"role": "user", "content": "I like coffee.", "metadata": {"expire_strategy": "7y"}}], user_id="a")
    assert mem.get_all(user_id="a", show_expired=True) == []


def test_policy_on_memory_per_kind_and_metadata(tmp_path):
    policy = ExpiryPolicy(default="24h", metadata={"category": {"fund_yield": "7d", "risk_preference": "permanent"}})
    with Memory(str(tmp_path / "p.db"), embedder=DeterministicEmbedder(64), llm=None, expiry=policy) as m, \
            frozen_clock(T0):
        fact = m.add("I live in Lisbon.", user_id="a")[0].memory
        chat = m.add("We watched a film about sharks.", user_id="a")[0].memory
        yld = m.add("The fund paid 3.1% this month.", user_id="a", metadata={"category": "fund_yield"})[0].memory
        risk = m.add("Low risk matters most to me.", user_id="a", metadata={"category": "risk_preference"})[0].memory
    assert (fact.kind, fact.expires_at) == ("fact", None)
    assert chat.expires_at == T0 + timedelta(hours=24)
    assert yld.expires_at == T0 + timedelta(days=7)
    assert risk.expires_at is None


def test_dynamic_through_add_in_english_and_chinese(mem):
    said = "2025-07-25T10:00:00+08:00"
    evs = mem.add([{"role": "user", "content": "今天好累"},
                   {"role": "user", "content": "下周三要去医院复查。"},
                   {"role": "user", "content": "I'm so tired today"},
                   {"role": "user", "content": "My sister has two kids."}],
                  user_id="a", timestamp=said, metadata={"expire_strategy": "dynamic"})
    by_text = {e.memory.text: e.memory for e in evs}
    said_utc = datetime(2025, 7, 25, 2, 0, tzinfo=UTC)
    assert by_text["今天好累"].expires_at == said_utc + timedelta(hours=24)
    assert by_text["I'm so tired today"].expires_at == said_utc + timedelta(hours=24)
    visit = by_text["下周三要去医院复查。"]
    assert visit.event_time_end.astimezone(timezone(timedelta(hours=8))).date().isoformat() == "2025-07-30"
    assert visit.expires_at == visit.event_time_end + timedelta(days=7)
    assert by_text["My sister has two kids."].expires_at is None


def test_restating_an_expired_memory_renews_it(mem):
    with frozen_clock(T0) as clock:
        first = mem.add("Gate code is 2580.", user_id="a", metadata={"expire_strategy": "7d"})[0].memory
        clock.advance(days=8)
        assert mem.get_all(user_id="a") == []
        again = mem.add("Gate code is 2580.", user_id="a", metadata={"expire_strategy": "7d"})
        assert [(e.event, e.memory.id) for e in again] == [("NOOP", first.id)]
        assert again[0].memory.expires_at == clock.now + timedelta(days=7)
        assert mem.get(first.id).expires_at == clock.now + timedelta(days=7)
        assert [m.id for m in mem.get_all(user_id="a")] == [first.id]
        # a restatement that would expire sooner changes nothing
        mem.add("Gate code is 2580.", user_id="a", metadata={"expire_strategy": "1h"})
        assert mem.get(first.id).expires_at == clock.now + timedelta(days=7)
        # a restated fact (matched by slot before the write) is renewed too
        fact = mem.add("I live in Lisbon.", user_id="a", metadata={"expire_strategy": "24h"})[0].memory
        clock.advance(days=2)
        evs = mem.add("I live in Lisbon!", user_id="a")
        assert [(e.event, e.memory.id) for e in evs] == [("NOOP", fact.id)]
        assert mem.get(fact.id).expires_at == clock.now + timedelta(hours=24)  # the fact's own 24h, said again


# ---------------------------------------------------------------- recency and importance
@pytest.mark.parametrize("days, expected", [(0, 1.0), (1, 1 / (1 + math.log(2))), (10, 1 / (1 + math.log(11))),
                                            (100, 1 / (1 + math.log(101)))])
def test_recency_decay_matches_the_formula(days, expected):
    now = T0 + timedelta(days=days)
    assert recency_weight(T0, now) == pytest.approx(expected, rel=1e-12)
    assert recency_weight(now, T0) == 1.0  # said "in the future": counts as now


def test_recency_curve_is_configurable():
    assert recency_weight(T0, T0 + timedelta(days=30), curve="exp", half_life_days=30) == pytest.approx(0.5)
    assert recency_weight(T0, T0 + timedelta(days=7), curve="exp", half_life_days=7) == pytest.approx(0.5)
    assert SearchConfig().recency_curve == "log"
    with pytest.raises(ValueError):
        SearchConfig(recency_curve="linear")


def test_search_explains_recency_importance_and_the_final_product(mem):
    with frozen_clock(T0) as clock:
        mem.add("I keep my passport in the blue drawer.", user_id="a")
        clock.advance(days=10)
        hit = mem.search("where is my passport", user_id="a")[0]
    e = hit.explain
    assert {"dense", "bm25", "fused", "recency", "importance", "source_weight", "final"} <= set(e)
    assert e["recency"] == pytest.approx(1 / (1 + math.log(11)))
    assert e["importance"] == pytest.approx(importance(hit.memory))
    cfg = SearchConfig()
    expected = (e["fused"] * ((1 - cfg.recency_weight) + cfg.recency_weight * e["recency"])
                * ((1 - cfg.importance_weight) + cfg.importance_weight * e["importance"]) * e["source_weight"])
    assert hit.score == pytest.approx(expected) == e["final"]


def test_importance_ordering_and_bounds():
    fact, utt, asst = item(kind="fact"), item(kind="utterance"), item(kind="assistant")
    assert importance(fact) > importance(utt) > importance(asst)
    assert importance(item(confidence=1.0)) > importance(item(confidence=0.4))
    counts = [importance(item(access_count=n)) for n in (0, 1, 5, 20, 1000)]
    assert counts == sorted(counts) and counts[0] < counts[1] < counts[2] < counts[3] == counts[4]
    assert importance(item(kind="fact", confidence=1.0, access_count=20)) == pytest.approx(1.0)
    assert importance(item(kind="utterance", confidence=1.0)) == pytest.approx(0.5 * 0.6 + 0.3)
    assert importance(item(kind="assistant", confidence=0.0)) == pytest.approx(0.5 * 0.3)
    assert all(0.0 <= importance(item(kind=k, confidence=c, access_count=n)) <= 1.0
               for k in ("fact", "other", "assistant") for c in (-1, 0, 0.5, 2) for n in (0, 3, 10**6))


def test_importance_weight_changes_the_ranking_only_when_asked(mem):
    with frozen_clock(T0):
        mem.add([{"role": "assistant", "content": "Your cat Pixel likes tuna."}], user_id="a")
        mem.add("my cat Pixel likes tuna", user_id="a")
        plain = SearchConfig(importance_weight=0.0, source_weights={}, track_access=False)
        heavy = SearchConfig(importance_weight=1.0, source_weights={}, track_access=False)
        a = mem.search("cat Pixel tuna", user_id="a", recipe=plain, limit=2)
        b = mem.search("cat Pixel tuna", user_id="a", recipe=heavy, limit=2)
    assert all(h.score == pytest.approx(h.explain["fused"] * ((1 - 0.1) + 0.1 * h.explain["recency"])) for h in a)
    assert [h.memory.kind for h in a] == ["assistant", "utterance"]  # by fused score alone
    assert a[0].explain["fused"] > a[1].explain["fused"]
    assert [h.memory.kind for h in b] == ["utterance", "assistant"]  # importance 0.6 vs 0.3 flips them
    assert b[0].score / b[0].explain["importance"] == pytest.approx(b[0].explain["fused"] * 1.0)


# ---------------------------------------------------------------- access tracking
def test_each_search_bumps_access_of_returned_hits(mem):
    with frozen_clock(T0) as clock:
        kept = mem.add("I parked on level 3.", user_id="a")[0].memory
        other = mem.add("Bananas are yellow.", user_id="a")[0].memory
        clock.advance(hours=1)
        hits = mem.search("parked level", user_id="a", limit=1)
        assert [h.memory.id for h in hits] == [kept.id]
        assert hits[0].memory.access_count == 0  # the count as it was when searched
        mem.search("parked level", user_id="a", limit=1)
        got = mem.get(kept.id)
        assert (got.access_count, got.last_accessed_at) == (2, T0 + timedelta(hours=1))
        assert mem.get(other.id).access_count == 0
        mem.search("parked level", user_id="a", limit=1, recipe=SearchConfig(track_access=False))
        assert mem.get(kept.id).access_count == 2
        clock.advance(seconds=mem.settings.cache_ttl + 1)  # a cached hit keeps the counts it was computed with
        assert mem.search("parked level", user_id="a", limit=1)[0].explain["importance"] == \
            pytest.approx(0.5 * 0.6 + 0.3 + 0.2 * math.log(3) / math.log(21))


def test_a_failing_access_write_never_fails_the_search(mem, monkeypatch, caplog):
    mem.add("I parked on level 3.", user_id="a")

    def broken(*args, **kwargs):
        raise StoreError("database is locked")

    monkeypatch.setattr(mem.store, "touch", broken)
    with caplog.at_level(logging.WARNING, logger="anchormem"):
        hits = mem.search("parked", user_id="a")
    assert [h.memory.text for h in hits] == ["I parked on level 3."]
    assert "could not record access" in caplog.text and "database is locked" in caplog.text


# ---------------------------------------------------------------- CLI
runner = CliRunner()


def test_cli_gc_dry_run_then_delete(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    db = str(tmp_path / "cli.db")
    with Memory(db, embedder="hash", llm=None) as m:
        old = m.add("Old promo code SPRING20.", user_id="a", timestamp="2020-01-01T00:00:00Z",
                    metadata={"expire_strategy": "7d"})[0].memory
        m.add("今天好累", user_id="b", timestamp="2020-01-01T00:00:00Z", metadata={"expire_strategy": "dynamic"})
        m.add("I live in Lisbon.", user_id="a", timestamp="2020-01-01T00:00:00Z")
    res = runner.invoke(app, ["--db", db, "--json", "gc", "--dry-run", "--user", "a"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert (data["dry_run"], data["memories"], [x["id"] for x in data["expired"]]) == (True, 1, [old.id])
    res = runner.invoke(app, ["--db", db, "gc", "--dry-run"])
    assert res.exit_code == 0 and "2 expired memories" in res.stdout and "今天好累" in res.stdout
    res = runner.invoke(app, ["--db", db, "--json", "gc"])
    assert res.exit_code == 0, res.output
    deleted = json.loads(res.stdout)["deleted"]
    assert (deleted["memories"], deleted["users"], deleted["fts"]) == (2, 2, 2)
    res = runner.invoke(app, ["--db", db, "gc"])
    assert res.exit_code == 0 and "nothing has expired" in res.stdout
    with Memory(db, embedder="hash", llm=None) as m:
        assert [x.text for x in m.get_all(user_id="a", show_expired=True)] == ["I live in Lisbon."]
        assert m.get_all(user_id="b", show_expired=True) == []


def test_cli_gc_human_output_and_add_meta(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    db = str(tmp_path / "cli2.db")
    res = runner.invoke(app, ["--db", db, "add", "Flash sale ends tonight.", "--user", "a",
                              "--timestamp", "2020-01-01T00:00:00Z", "--meta", "expire_strategy=24h"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["--db", db, "gc", "--purge"])
    assert res.exit_code == 0, res.output
    assert "deleted 1 expired memories of 1 user(s)" in res.stdout
    res = runner.invoke(app, ["--db", db, "add", "x y z", "--user", "a", "--meta", "expire_strategy=later"])
    assert res.exit_code == 2 and "expire strategy" in res.output
