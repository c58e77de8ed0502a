"""Change detection that reads what a value is about rather than a slot lexicon (anchormem.facts.relative, issue
#22): a count of a kind covers the counts under it, a value-only clause is about the clause before it, an ending
said as a span of time is a lasting state, and a digit run into a name is no amount."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.facts.aspect import episodic, lasting
from anchormem.facts.relative import _cut_old, clause_values, counted_cover

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


def _add(m, text, when, user="u"):
    return list(m.add(text, user_id=user, timestamp=when))


def _sup(evs):
    return [(e.memory.text, e.memory.fact.attribute if e.memory.fact else None) for e in evs if e.event == "SUPERSEDE"]


def test_a_span_since_an_ending_is_no_one_occasion():
    assert lasting("Three months without a cigarette today!") and not episodic("Three months without a cigarette today!")
    assert lasting("Day 40 without a drink") and lasting("两个月没喝了，这周也没喝")
    assert episodic("no tennis this week") and episodic("今天下雨，不跑了")  # one occasion, no span said
    assert episodic("Three days without running this week") and episodic("这周三天没跑了")  # a few days: an occasion
    assert not lasting("I quit smoking")


def test_counted_kinds_cover_the_counts_under_them():
    assert counted_cover("daughter", "child") == "child" and counted_cover("child", "son") == "child"
    assert counted_cover("cat", "pet") == "pet" and counted_cover("dog", "dog") == "dog"
    assert counted_cover("cat", "dog") == "" and counted_cover("son", "daughter") == ""
    old, new = clause_values("我有一个女儿"), clause_values("现在两个孩子了")
    assert [(v.noun, v.value) for v in old] == [("daughter", "一个女儿")] and new[0].compatible(old[0])
    assert not clause_values("two cats")[0].compatible(clause_values("one dog")[0])


def test_a_value_only_clause_is_about_the_clause_before_it():
    cut = _cut_old("爱奇艺黄金会员连续包月，每月二十五。")
    assert [(c[1], c[4]) for c in cut] == [("爱奇艺黄金会员连续包月", "爱奇艺黄金会员连续包月"),
                                          ("爱奇艺黄金会员连续包月，每月二十五。", "每月二十五。")]
    assert [c[1] for c in _cut_old("我的手机套餐每月59块。")] == ["我的手机套餐每月59块。"]  # a topic of its own


def test_a_digit_run_into_letters_is_a_name():
    assert clause_values("4S店送了一年保养") == []
    assert [(v.value, v.unit) for v in clause_values("Down to 84kg")] == [("84kg", "weight")]


def test_a_price_said_after_its_topic_changes(mem_e5):
    _add(mem_e5, "腾讯视频会员连续包月，每月二十五。", T1)
    evs = _add(mem_e5, "腾讯视频又涨价了，包月要三十了。", T2)
    sup = _sup(evs)
    assert [t for t, a in sup if a] == ["每月二十五。"] and sup[0][1].startswith("amount:")
    current = " ".join(m.text for m in mem_e5.get_all(user_id="u"))
    assert "三十" in current


def test_a_streak_ends_the_habit(mem_e5):
    _add(mem_e5, "I smoke about a pack a day, I know.", T1)
    evs = _add(mem_e5, "Two months without a cigarette today!", T2)
    assert [t for t, a in _sup(evs) if a] == ["I smoke about a pack a day"]


def test_a_count_of_children_closes_the_count_of_a_daughter(mem_e5):
    _add(mem_e5, "我有一个女儿，叫朵朵。", T1)
    evs = _add(mem_e5, "二胎生了，是个儿子，现在两个孩子了。", T2)
    assert [t for t, a in _sup(evs) if a] == ["我有一个女儿"]
    current = " ".join(m.text for m in mem_e5.get_all(user_id="u"))
    assert "朵朵" in current and "两个孩子" in current
