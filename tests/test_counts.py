"""Relative count changes (facts/counts.py): a count said as a change ("adopted a third", "another one", 又养了一只狗,
老三出生了, "gave one of the cats to my mum") is read against the user's stored count of the same noun; the names said
with a count are their own claim, which a count change never closes (issue #22, fresh13)."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from anchormem.facts.counts import count_changes
from anchormem.facts.model import Fact
from anchormem.facts.quantities import quantity_facts
from fact_helpers import add_events

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


def _stored(*pairs):
    items = [SimpleNamespace(fact=Fact(attribute=a, value=v), text=v) for a, v in pairs]
    return lambda: items


def _read(text, *pairs):
    return [(f.attribute, f.value, said) for f, said in count_changes(text, claims=_stored(*pairs))]


def _changes(evs):
    return [(e, a, v) for e, _, a, v in evs if a is not None and e in ("ADD", "SUPERSEDE")]


def test_an_increment_adds_to_the_stored_count():
    assert _read("We got another dog last week.", ("count:dog", "one dog")) == [
        ("count:dog", "two dogs", "another dog")]
    assert _read("Came home with one more kitten", ("count:cat", "two cats")) == [
        ("count:cat", "three cats", "one more kitten")]
    assert _read("two more pullets from the feed store", ("count:chicken", "4 hens")) == [
        ("count:chicken", "6 hens", "two more pullets")]
    assert _read("我们又养了一只狗。", ("count:dog", "一只狗")) == [("count:dog", "两只狗", "又养了一只狗")]
    assert _read("给老婆添了辆五菱小电车", ("count:car", "一辆车")) == [("count:car", "两辆车", "添了辆五菱小电车")]


def test_a_decrement_takes_away_from_the_stored_count():
    assert _read("I gave one of the cats to my mum.", ("count:cat", "three cats")) == [
        ("count:cat", "two cats", "gave one of the cats")]
    assert _read("死了两条小的金鱼", ("count:fish", "五条金鱼")) == [("count:fish", "三条金鱼", "死了两条小的金鱼")]
    assert _read("Sold one of the bikes.", ("count:bike", "two bikes")) == [("count:bike", "one bike", "Sold one of the bikes")]


def test_an_ordinal_is_one_more_than_the_stored_count():
    # no noun said: the one count claim the ordinal is one more than ("a third" after two cats, not after one kid)
    assert _read("Adopted a third!! named her Tempeh", ("count:cat", "two cats"), ("count:child", "one kid")) == [
        ("cat_names", "Tempeh", "named her Tempeh"), ("count:cat", "three cats", "a third")]  # (her name joins)
    assert _read("老三出生了！", ("count:child", "两个孩子")) == [("count:child", "三个孩子", "老三")]
    assert _read("Baby number two arrived on Tuesday", ("count:child", "one kid")) == [
        ("count:child", "two kids", "Baby number two")]
    # an ordinal that is not one more than the count, or no count at all, says nothing
    assert _read("老三出生了！", ("count:child", "一个孩子")) == []
    assert _read("I got a second opinion from the vet.", ("count:cat", "one cat")) == []
    assert _read("Adopted another cat.") == []


def test_a_count_said_outright_in_the_sentence_wins():
    # "现在两只了" and "so that's six birds" are the count: the increment beside them is not read again
    assert _read("Two more pullets, so that's six birds.", ("count:chicken", "4 hens")) != []  # alone it reads
    said = frozenset({"Two more pullets, so that's six birds."})
    assert count_changes("Two more pullets, so that's six birds.", claims=_stored(("count:chicken", "4 hens")),
                         said=said) == []
    # the increment's own number is no count held: 又养了一只狗 is not "一只狗"
    assert [(f.attribute, f.value) for f in quantity_facts("我们又养了一只狗。")] == []


def test_a_count_change_keeps_the_names_said_with_the_count(mem):
    # fresh13: the count's words are its own claim, so the dog's name stays current
    add_events(mem, "我有一只狗叫旺财。", T1)
    evs = add_events(mem, "我们又养了一只狗，现在两只了。", T2)
    assert _changes(evs) == [("ADD", "count:dog", "两只"), ("SUPERSEDE", "count:dog", "一只狗")]
    names = [m for m in mem.get_all(user_id="u") if m.fact is not None and m.fact.attribute == "dog_names"]
    assert [(m.fact.value, m.valid_to) for m in names] == [("旺财", None)]
    assert "旺财" in mem.ask("我的狗叫什么？", user_id="u").citations[0].text


def test_a_relative_change_supersedes_the_stored_count(mem):
    add_events(mem, "I have two cats, Tom and Jerry.", T1)
    evs = add_events(mem, "We adopted another cat yesterday!", T2)
    assert _changes(evs) == [("ADD", "count:cat", "three cats"), ("SUPERSEDE", "count:cat", "two cats")]
    names = [m for m in mem.get_all(user_id="u") if m.fact is not None and m.fact.attribute == "cat_names"]
    assert [(m.fact.value, m.valid_to) for m in names] == [("Tom and Jerry", None)]
    add_events(mem, "我有两只猫，叫咪咪和花花。", T1, user="z")
    evs = add_events(mem, "又捡了一只小橘猫回来。", T2, user="z")
    assert _changes(evs) == [("ADD", "count:cat", "三只猫"), ("SUPERSEDE", "count:cat", "两只猫")]
    add_events(mem, "I have two cats, Tom and Jerry.", T1, user="x")  # mixed: a Chinese change of an English count
    evs = add_events(mem, "又领养了一只猫。", T2, user="x")
    assert _changes(evs) == [("ADD", "count:cat", "three cats"), ("SUPERSEDE", "count:cat", "two cats")]


def test_non_changes_of_a_count_retire_nothing(mem):
    for user, (old, new) in enumerate([("I have two cats.", "My sister got another cat."),
                                       ("I have two cats.", "Should we get another cat?"),
                                       ("我有两只猫。", "如果再养一只猫就好了。"),
                                       ("I have one kid.", "I got a second opinion from the doctor."),
                                       ("I have two kids.", "My sister had her third baby."),
                                       ("我有两个孩子。", "我姐又生了一个孩子。"),
                                       ("I have two cats.", "Another day at work, so tired."),
                                       ("我有两个孩子。", "再等一个月就放假了。"),
                                       ("I have two bikes.", "I lost two pounds this week.")]):
        add_events(mem, old, T1, user=f"u{user}")
        evs = add_events(mem, new, T2, user=f"u{user}")
        assert [e for e in evs if e[0] == "SUPERSEDE"] == [], new


def test_a_name_said_with_an_increment_joins_the_names(mem):
    add_events(mem, "I have two cats, Tom and Jerry.", T1)
    evs = add_events(mem, "We adopted another cat, named her Luna.", T2)
    assert sorted(_changes(evs)) == [("ADD", "cat_names", "Luna"), ("ADD", "count:cat", "three cats"),
                                     ("SUPERSEDE", "count:cat", "two cats")]
    names = sorted(m.fact.value for m in mem.get_all(user_id="u") if m.fact is not None and
                   m.fact.attribute == "cat_names")
    assert names == ["Luna", "Tom and Jerry"]
    cited = " ".join(c.text for c in mem.ask("What are my cats called?", user_id="u").citations)
    assert "Tom and Jerry" in cited and "Luna" in cited  # every current names claim is evidence (slot_evidence)
    add_events(mem, "家里两只猫，一只叫年糕，一只叫汤圆。我有两只猫。", T1, user="z")
    evs = add_events(mem, "又捡了只小橘猫回来，取名馄饨。", T2, user="z")
    assert ("ADD", "cat_names", "馄饨") in _changes(evs)
    assert ("SUPERSEDE", "count:cat", "两只猫") in _changes(evs)


def test_a_count_with_one_name_in_english_keeps_the_name(mem):
    add_events(mem, "I have one dog named Rex.", T1)
    evs = add_events(mem, "We got another dog.", T2)
    assert _changes(evs) == [("ADD", "count:dog", "two dogs"), ("SUPERSEDE", "count:dog", "one dog")]
    names = [m for m in mem.get_all(user_id="u") if m.fact is not None and m.fact.attribute == "dog_names"]
    assert [(m.fact.value, m.valid_to) for m in names] == [("Rex", None)]


def test_n_more_is_no_count_held():
    # "two more dogs" says a change, never "the speaker has two dogs"
    from anchormem.facts.rules import extract_from_text

    assert [f.attribute for f in extract_from_text("We got two more dogs.")] == []
    assert [(f.attribute, f.value) for f in quantity_facts("We got two more dogs.")] == []
    assert _read("We got two more dogs.", ("count:dog", "one dog")) == [("count:dog", "three dogs", "two more dogs")]


def test_a_name_set_off_after_a_count_is_a_claim_of_its_own():
    from anchormem.facts.rules import extract_from_text

    got = [(f.attribute, f.value) for f in extract_from_text("I have one kid, Leo, he's in kindergarten.")]
    assert ("child_names", "Leo") in got and ("count:child", "one kid") in got
    got = [(f.attribute, f.value) for f in extract_from_text("I have two kids, Sunday is their day off.")]
    assert got == [("count:child", "two kids")]  # a capitalised word that goes on is no name
