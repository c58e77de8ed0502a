"""The fact readers' trigger prefilter (anchormem.facts.triggers): literals derived from the readers' own patterns,
a reader skipped only where none of its gates can match, and the same facts with and without it."""

from __future__ import annotations

import re

import pytest

from anchormem.facts import triggers
from anchormem.facts.rules import extract_from_text
from anchormem.facts.triggers import _emit, declare, may_read, required_literals
from anchormem.text.tokenize import Tagged, pos_tags


def lits(pattern: str, flags: int = re.I) -> list[str] | None:
    need = required_literals(re.compile(pattern, flags))
    return None if need is None else sorted(_emit(x) for x in need)


def test_literals_of_a_rule_keep_its_words_and_spacing():
    assert lits(r"\bI\s+(?:live|reside)\s+in\s+(?P<v>.+)") == [r"\bI\s+live\s+in\s+", r"\bI\s+reside\s+in\s+"]


def test_an_optional_group_is_joined_both_ways():
    assert lits(r"我(?:们家?)?(?:住在|家在)", 0) == sorted(["我们住在", "我们家住在", "我们家家在", "我们家在", "我住在", "我家在"])


def test_a_fixed_run_is_one_literal_through_a_branch():
    assert lits(r"\bmy\s+(?:rent|salary)\s+went\s+up") == [r"\bmy\s+rent\s+went\s+up", r"\bmy\s+salary\s+went\s+up"]
    assert lits(r"[A-Z]\w+ died?", 0) == [r"\ die", r"\ died"]


def test_a_common_word_is_not_chosen_over_a_rarer_one():
    # "I" is necessary too, but data/lang/en/triggers.json marks it too common to key on
    assert lits(r"\bI\s+\w+\s+(?:allergic|intolerant)") == [r"\s+allergic", r"\s+intolerant"]


@pytest.mark.parametrize("pattern", [r"a*", r"(?:x|\b)", r"(.)\1", r"[a-z]+"])
def test_no_literal_means_no_prefilter(pattern):
    assert required_literals(re.compile(pattern)) is None


def test_a_gate_without_literals_makes_the_reader_always_run():
    declare("test.always", lambda: [re.compile(r"[A-Z]\w+"), re.compile(r"moved")])
    assert may_read("test.always", "nothing here")
    declare("test.words", lambda: [re.compile(r"\bI\s+moved\s+to"), re.compile(r"搬到")])
    assert may_read("test.words", "Yesterday I  moved to Lisbon")
    assert may_read("test.words", "我们搬到了杭州")
    assert not may_read("test.words", "We had lunch by the river")
    assert may_read("test.undeclared", "anything") and "test.undeclared" not in triggers.declared()


def test_the_readers_declare_their_gates():
    assert {"rules", "frames", "changes.clause", "changes.sentence"} <= set(triggers.declared())
    for reader in ("rules", "frames", "changes.clause"):
        assert triggers.trigger_pattern(reader) is not None  # every gate has literals: the prefilter is on


def test_skipped_clauses_really_match_no_gate():
    """Over a few hundred varied clauses: wherever the prefilter says a reader cannot read, none of its gates
    matches (the property that makes the facts identical)."""
    clauses = ["Hey Mel! Good to see you!", "The weather was great on the coast.", "Thanks, that helps a lot.",
               "I moved to Berlin last month.", "我搬到了杭州", "She's 7 now.", "My rent went up to 1350.",
               "今天天气不错", "Good morning! How are you?", "We watched a movie together."] * 3
    for reader in ("rules", "frames", "changes.clause"):
        gates = [g if isinstance(g, re.Pattern) else re.compile(g, re.I) for g in triggers._GATES[reader]()]
        for c in clauses:
            if not may_read(reader, c):
                assert not any(g.search(c) for g in gates), (reader, c)


def test_facts_are_read_through_the_prefilter():
    got = {(f.attribute, f.value, f.polarity) for f in extract_from_text("I moved to Berlin last month. "
                                                                         "My rent went up to 1350.")}
    assert ("home_city", "Berlin", 1) in got and ("rent", "1350", 1) in got
    assert extract_from_text("Hey Mel! Good to see you! How have you been?") == []
    assert {(f.attribute, f.value) for f in extract_from_text("我搬到了杭州。")} == {("home_city", "杭州")}


def test_pos_tags_by_block_equal_jieba_on_the_whole_text():
    import jieba.posseg

    for text in ["昨天我妈妈买了杭州的公寓，花了4500元。（编号bakime）", "我在Berlin工作了3.5年 and I like it",
                 "a  b\r\nc 我的 Berlin 3.5kg，＃x", ""]:
        assert pos_tags(text) == tuple(Tagged(t.word, t.flag) for t in jieba.posseg.cut(text))



# -- the derived literals kept in the cache folder (issue #24: a first add that does not derive them again) -------

def _gates():
    return [re.compile(r"\bI\s+(?:live|reside)\s+in\s+(?P<v>.+)", re.I), re.compile(r"我(?:住在|家在)")]


def test_literals_are_derived_once_then_read_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_CACHE_DIR", str(tmp_path))
    first = triggers._build(_gates())
    files = list(tmp_path.glob("triggers-*.json"))
    assert len(files) == 1
    monkeypatch.setattr(triggers, "required_literals", lambda g: pytest.fail("derived again"))
    again = triggers._build(list(reversed(_gates())))  # (the gates' order is not part of the key)
    assert again.pattern == first.pattern
    assert again.search("so I  reside in Leeds") and again.search("我家在成都") and not again.search("I live")


def test_a_changed_gate_or_a_bad_file_is_derived_again(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_CACHE_DIR", str(tmp_path))
    base = triggers._build(_gates())
    (path,) = tmp_path.glob("triggers-*.json")
    other = triggers._build(_gates() + [re.compile(r"\bmoved\s+to\b", re.I)])
    assert len(list(tmp_path.glob("triggers-*.json"))) == 2  # a new key, the old file untouched
    assert other.search("we moved to Rome") and not base.search("we moved to Rome")
    path.write_text("{not json")
    assert triggers._build(_gates()).pattern == base.pattern  # derived again, and the file rewritten
    assert '"literals"' in path.read_text()


def test_an_empty_cache_setting_keeps_nothing_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    rx = triggers._build(_gates())
    assert rx.search("I live in York") and not list(tmp_path.rglob("*"))


def test_a_reader_that_always_runs_is_cached_as_such(tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHORMEM_CACHE_DIR", str(tmp_path))
    assert triggers._build([re.compile(r"[A-Z]\w+")]) is None
    monkeypatch.setattr(triggers, "required_literals", lambda g: pytest.fail("derived again"))
    assert triggers._build([re.compile(r"[A-Z]\w+")]) is None
