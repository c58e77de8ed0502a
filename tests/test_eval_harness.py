"""The measurement loop the eval harnesses share (anchormem.eval.harness) and the pooled polysemy helpers
(anchormem.eval.polysemy): exact records, latencies, names, progress, and that measuring bumps no access counts."""

from __future__ import annotations

import pytest

from anchormem.errors import ConfigError, InvalidInputError
from anchormem.eval.harness import (Ticker, check_ks, collect_runs, latency_ms, read_only_configs, recipe_list,
                                    search_each, unique_name)
from anchormem.eval.polysemy import Case, passes, pooled_history, pooled_pass_rates, sense_of, word_of
from anchormem.retrieval.config import RECIPES


def test_check_ks_sorts_and_drops_repeats_and_refuses_bad_cutoffs():
    assert check_ks((10, 1, 5, 1)) == [1, 5, 10]
    assert check_ks(["3"]) == [3]
    for bad in ((), (0, 5), (-1,)):
        with pytest.raises(InvalidInputError):
            check_ks(bad)


def test_recipe_list_and_read_only_configs():
    assert recipe_list(None) == [None]
    assert recipe_list("bm25") == ["bm25"]
    assert recipe_list(RECIPES["dense"]) == [RECIPES["dense"]]
    assert recipe_list(("bm25", None)) == ["bm25", None]
    default = RECIPES["anchored"]
    cfgs = read_only_configs(["bm25", None, RECIPES["dense"]], default)
    assert [c.name for c in cfgs] == ["bm25", "anchored", "dense"]
    assert [c.track_access for c in cfgs] == [False, False, False]
    assert cfgs[0].model_dump() == {**RECIPES["bm25"].model_dump(), "track_access": False}
    assert RECIPES["bm25"].track_access is True  # the shared recipe itself is not changed
    with pytest.raises(ConfigError):
        read_only_configs(["no_such_recipe"], default)


def test_latency_and_names():
    assert latency_ms([3.0, 1.0, 2.0, 4.0]) == {"mean": 2.5, "p50": 3.0, "p95": 4.0, "max": 4.0}
    assert latency_ms([]) == {"mean": None, "p50": None, "p95": None, "max": None}
    assert unique_name("bm25", []) == "bm25"
    assert unique_name("bm25", ["bm25", "bm25'"]) == "bm25''"
    assert unique_name("bm25", {"bm25": 1}) == "bm25'"


def test_ticker_reports_each_step():
    seen = []
    tick = Ticker(5, lambda d, t: seen.append((d, t)))
    tick()
    tick(3)
    assert seen == [(1, 5), (4, 5)] and tick.done == 4
    quiet = Ticker(2)
    quiet()
    assert quiet.done == 1


def test_search_each_records_every_question_per_config_and_bumps_no_access_count(mem_det):
    ids = {}
    for user, text in (("u1", "I adopted a cat named Miso."), ("u1", "My sister lives in Porto."),
                       ("u2", "I play the cello on Sundays.")):
        ids[text] = mem_det.add(text, user_id=user)[0].memory.id
    questions = [{"id": "q1", "q": "cat named Miso", "user": "u1"}, {"id": "q2", "q": "cello Sundays", "user": "u2"}]
    cfgs = read_only_configs(["bm25", "bm25"], mem_det.search_config)
    seen = []
    results = search_each(mem_det, questions, cfgs, query=lambda q: (q["q"], q["user"]), limit=5,
                          score=lambda q, hits: {"id": q["id"], "ranked": [h.memory.id for h in hits]},
                          prepare=lambda q: {"asked": q["id"].upper()}, tick=lambda: seen.append(1))
    assert len(results) == 2 and len(seen) == 2 * (1 + 2)  # per question: prepare, then one search per config
    for records, lats in results:
        assert [r["id"] for r in records] == ["q1", "q2"] and [r["asked"] for r in records] == ["Q1", "Q2"]
        assert records[0]["ranked"][0] == ids["I adopted a cat named Miso."]
        assert records[1]["ranked"] == [ids["I play the cello on Sundays."]]  # u2's only memory; scoped by user
        assert len(lats) == 2 and all(ms >= 0 for ms in lats)
    assert all(mem_det.get(i).access_count == 0 for i in ids.values())  # read-only: no access counts
    runs = collect_runs(cfgs, results, lambda recs: {"n": len(recs)}, details=True)
    assert list(runs) == ["bm25", "bm25'"]
    assert runs["bm25"]["n"] == 2 and runs["bm25"]["recipe"]["track_access"] is False
    assert set(runs["bm25"]["search_ms"]) == {"mean", "p50", "p95", "max"}
    assert [r["id"] for r in runs["bm25'"]["questions"]] == ["q1", "q2"]
    assert "questions" not in collect_runs(cfgs, results, lambda recs: {})["bm25"]

    tracked = mem_det.search_config.model_copy(update={"track_access": True})
    search_each(mem_det, questions[:1], [tracked], query=lambda q: (q["q"], q["user"]), limit=5,
                score=lambda q, hits: {})
    assert mem_det.get(ids["I adopted a cat named Miso."]).access_count == 1  # the counter the loop leaves alone


def _case(kind: str, target: str, wrong: list[str], query: str, context: list[str], sessions: dict) -> Case:
    return Case(id=f"{target}/{kind}", lang="en", word="bank", target=target, wrong=wrong, context=context,
                query=query, sessions=sessions, group="t", kind=kind)


def test_pass_test_of_a_polysemy_case():
    assert sense_of("en/bank/0/1") == "en/bank/0" and word_of("en/bank/0/1") == "en/bank" and sense_of(None) is None
    sense = _case("sense", "en/bank/0/1", ["en/bank/1/1"], "q", [], {})
    neutral = _case("neutral", "en/bank/0/1", ["en/bank/1/1"], "q", [], {})
    assert passes(sense, ["en/bank/0/1", None, "en/crane/1/0"])
    assert not passes(sense, ["en/bank/0/0"])  # a sense case needs its own session on top
    assert passes(neutral, ["en/bank/0/0", "en/bank/0/1"])  # a neutral one: any session of the sense
    assert not passes(neutral, ["en/bank/0/1", "x", "en/bank/1/0"])  # the other sense within the first 3
    assert passes(neutral, ["en/bank/0/1", "x", "y", "en/bank/1/1"])  # ... but not below them
    assert not passes(neutral, [])


def test_pooled_history_and_pass_rates_are_read_only(mem_det):
    sessions = {"en/bank/0/0": ["I deposited my salary at the bank downtown.", "The bank raised its fees."],
                "en/bank/1/0": ["We had a picnic on the river bank.", "The bank of the river was muddy."]}
    cases = [_case("sense", "en/bank/0/0", ["en/bank/1/0"], "salary deposit fees", ["money talk"], sessions),
             _case("sense", "en/bank/1/0", ["en/bank/0/0"], "picnic river muddy", ["outdoors"], sessions)]
    owner = pooled_history(mem_det, cases)
    assert sorted(set(owner.values())) == sorted(sessions) and len(owner) == 4
    groups, fails = pooled_pass_rates(mem_det, cases, owner, "bm25")
    assert fails == [] and groups == {"lang:en": {"pass": 2, "total": 2, "rate": 1.0},
                                      "t": {"pass": 2, "total": 2, "rate": 1.0},
                                      "t/sense": {"pass": 2, "total": 2, "rate": 1.0}}
    assert all(mem_det.get(i).access_count == 0 for i in owner)
