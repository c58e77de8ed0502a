"""The typed readers' prefilters (issue #24): the job, home and count-change readers and the English value parser
skip a clause (or text) holding none of their literals, and read exactly what they read without the prefilter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from anchormem.facts import counts, jobs, places, quantities, triggers, values

DEV = Path(__file__).resolve().parents[1] / "bench" / "data" / "currency_stories.json"


def dev_turns() -> list[str]:
    """The turns of the dev story file (a tune set) and a few made-up ones in both languages."""
    stories = json.loads(DEV.read_text(encoding="utf-8"))["stories"]
    return [t["text"] for s in stories for t in s["turns"]] + [
        "Left the bookshop and started as a cataloguer at the university library today!",
        "I got  hired at Stripe", "Work: nurse at Santa Maria hospital", "跳槽了，现在在瑞幸当区域经理",
        "finally escaped Cleveland!! we're in Raleigh now", "现在住Toronto了",
        "Denver update: first snow at the new apartment",
        "We adopted another cat, so that's three now", "又养了一只狗", "I lost twenty-five pounds", "an hour later",
        "Ｋilo", "ſtone", "İ got a kilo of rice"]


def test_the_readers_declare_their_gates():
    for reader in ("jobs", "places.located", "places.state", "places.home_noun", "places.new_home", "counts.en",
                   "counts.zh"):
        assert reader in triggers.declared()
        assert triggers.trigger_pattern(reader) is not None  # literals derived: the prefilter is on


def test_gates_skip_chat_and_pass_statements():
    assert not jobs._may_read("We had pizza with the kids")
    assert jobs._may_read("I got  hired at Stripe") and jobs._may_read("Work: cataloguer")
    assert not places._may_say_home("我喜欢喝茶", "我喜欢喝茶")
    assert places._may_say_home("现在住深圳了", "现在住深圳了")
    assert not triggers.may_read("counts.en", "I like tea") and triggers.may_read("counts.en", "we got another cat")
    assert not values._may_hold_en("someone came over, I'm good") and values.parse("someone came over") == []
    assert [v.unit for v in values.parse("an hour later")] == ["hour"]
    assert [v.number for v in values.parse("I lost twenty-five pounds")] == [25.0]


def test_the_readers_read_the_same_with_and_without_their_prefilters(monkeypatch):
    texts = dev_turns()

    def read() -> list:
        jobs._open_clauses.cache_clear()
        values._parsed.cache_clear()
        places._places_in.cache_clear()
        out = []
        for t in texts:
            out.append([[(r.aspect, r.title, r.org, r.cue) for r in jobs.read_clauses(t)],
                        [(f.attribute, f.value, f.polarity) for f in jobs.job_facts(t)],
                        [(f.attribute, f.value, f.clause) for f in places.home_facts(t)],
                        [(f.attribute, f.value) for f in quantities.quantity_facts(t, claims=lambda: [])],
                        [counts._readings(c) for c, *_ in jobs.open_clauses(t)], values.parse(t)])
        return out

    with_filters = read()
    monkeypatch.setattr(jobs, "_may_read", lambda clause: True)
    monkeypatch.setattr(places, "_may_say_home", lambda sentence, clause: True)
    monkeypatch.setattr(values, "_may_hold_en", lambda text: True)
    monkeypatch.setattr(counts.triggers, "may_read", lambda reader, text: True)
    without = read()
    assert len(with_filters) == len(texts) > 300
    assert with_filters == without
    assert any(x[1] for x in without) and any(x[2] for x in without) and any(x[3] for x in without)


@pytest.mark.parametrize("reader", ["jobs", "counts.en", "counts.zh"])
def test_skipped_clauses_really_match_no_gate(reader):
    gates = [g if isinstance(g, re.Pattern) else re.compile(g, re.I) for g in triggers._GATES[reader]()]
    for t in dev_turns():
        text = " ".join(t.split())
        if not triggers.may_read(reader, text):
            assert not any(g.search(text) for g in gates), (reader, t)


def test_home_facts_through_the_prefilter():
    assert [f.value for f in places.home_facts("finally escaped Cleveland!! we're in Raleigh now")] == ["Raleigh"]
    assert places.home_facts("I'm at Starbucks now") == []


def test_an_ascii_text_is_searched_lower_cased_with_the_same_answer():
    texts = [t for t in dev_turns() if t.isascii()] + ["I MOVED TO BERLIN", "Got Hired At Stripe", "a\tnew\u3000job"]
    for reader in triggers.declared():
        rx = triggers.trigger_pattern(reader)
        for t in texts:
            want = rx is None or rx.search(t) is not None
            assert triggers.may_read(reader, t) == want, (reader, t)
    assert not triggers.may_read("counts.zh", "we got another cat")  # (its literals are all Chinese)
    assert triggers.may_read("rules", "I MOVED TO BERLIN") and triggers.may_read("jobs", "GOT HIRED")
