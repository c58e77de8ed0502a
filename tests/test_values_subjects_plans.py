"""Values, subjects and plans (issue #22): numbers read by libraries (facts.values), whose action a clause states by
its structure (facts.subjects), and a fact with a date ahead as a plan (facts.plans). English and Chinese."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem.facts.changes import number_of
from anchormem.facts.keys import value_key
from anchormem.facts.meaning import typed_values
from anchormem.facts.rules import extract_from_text
from anchormem.facts.subjects import clause_subject, possessed_subject
from anchormem.facts.values import parse, same_number

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 4, 9, tzinfo=timezone.utc)


# -- values ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,number,kind,unit,period", [
    ("My raise went through, seventy-two thousand now.", 72000, "number", "", ""),
    ("I make about sixty-five thousand a year", 65000, "number", "", "year"),
    ("It comes to a grand and a half a month", 1500, "number", "", "month"),
    ("the room was three-fifty", 350, "number", "", ""),
    ("I earn 1.5k", 1500, "number", "", ""),
    ("Rent is €1,299.50 a month", 1299.5, "money", "EUR", "month"),
    ("Landlord bumped the rent to $2,050", 2050, "money", "USD", ""),
    ("Down to 84kg!!", 84, "weight", "kg", ""),
    ("my commute's down to twenty minutes", 20, "duration", "minutes", ""),
    ("an hour and a half each way", 1.5, "duration", "hour", ""),
    ("Mia turned seven on Saturday", 7, "age", "years", ""),
    ("so three cats total", 3, "count", "cat", ""),
    ("我一个月工资一万二，税前", 12000, "number", "", ""),
    ("我现在房租一个月三千二。", 3200, "number", "", "month"),
    ("下个月开始三千五", 3500, "number", "", ""),
    ("两百来块", 200, "money", "CNY", ""),
    ("每个月39块", 39, "money", "CNY", "month"),
    ("健身卡嘛，一年2999。", 2999, "number", "", "year"),
    ("我每天通勤要一个半小时", 1.5, "duration", "小时", ""),
    ("瘦到128斤了！", 128, "weight", "斤", ""),
    ("1万2", 12000, "number", "", ""),
    ("现在三只猫了", 3, "count", "cat", ""),
])
def test_one_parser_reads_numbers_in_words_units_and_periods(text, number, kind, unit, period):
    v = parse(text)[0]
    assert (v.number, v.kind, v.unit, v.period) == (number, kind, unit, period)


def test_approximations_bases_and_no_values():
    assert parse("两百来块")[0].approx is True and parse("about 200 quid")[0].approx is True
    assert parse("我每天通勤要一个半小时")[0].base == 90.0  # minutes
    assert parse("瘦到128斤了")[0].base == 64.0  # kg
    for text in ("In 2024 I moved", "at 8:30 am", "三月份搬过来的", "5号见", "我一直在一起"):
        assert parse(text) == [], text


@pytest.mark.parametrize("a,b", [("三千五", "3500"), ("一万二", "12,000"), ("seventy-two thousand", "72k"),
                                 ("a grand and a half", "1500"), ("140斤", "70 kg"), ("一个半小时", "90 minutes")])
def test_values_said_two_ways_compare_equal(a, b):
    assert same_number(a, b)


def test_slot_values_compare_by_number():
    assert number_of("一万二") == number_of("12000") == "12000"
    assert value_key("rent", "三千五") == value_key("rent", "3,500") == "3500"
    assert value_key("salary", "seventy-two thousand") == value_key("salary", "72k") == "72000"
    assert value_key("count:cat", "three cats") == value_key("count:cat", "3 cats") == "3"
    assert value_key("rent", "三千二") != value_key("rent", "三千五")


def test_typed_values_read_amounts_and_ages_through_the_parser():
    assert typed_values("My raise finally went through, seventy-two thousand now.", "en")["number"] == \
        ["seventy-two thousand"]
    assert typed_values("调薪了，现在税前一万五。", "zh")["number"] == ["一万五"]
    assert typed_values("Mia turned seven on Saturday.", "en")["age"] == ["seven"]
    assert "number" not in typed_values("I have two kids.", "en")  # a small count is no amount


def test_rules_read_a_number_in_words_as_the_slot_value():
    got = [(f.attribute, f.value) for f in extract_from_text("My salary went up to seventy-two thousand.")]
    assert got == [("salary", "seventy-two thousand")]
    assert [(f.attribute, f.value) for f in extract_from_text("我工资涨到一万二了。")] == [("salary", "一万二")]


def test_a_number_said_in_words_changes_the_slot(mem_det):
    mem_det.add("My salary is 65000.", user_id="u", timestamp=T1)
    evs = mem_det.add("My salary went up to seventy-two thousand.", user_id="u", timestamp=T2)
    assert [(e.event, e.memory.text) for e in evs if e.event == "SUPERSEDE"] == [("SUPERSEDE", "My salary is 65000.")]
    mem_det.add("我房租三千五。", user_id="z", timestamp=T1)
    evs = mem_det.add("我房租是3500。", user_id="z", timestamp=T2)  # the same amount said in digits: no change
    assert [e.event for e in evs if e.memory.kind == "fact"] == ["NOOP"] or not any(
        e.event == "SUPERSEDE" for e in evs)


# -- subjects --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("clause,who", [
    ("My bestie just moved to Denver", "bestie"), ("My roommate took a job at Apple", "roommate"),
    ("Since the office moved to Kings Cross", "office"), ("我闺蜜搬到杭州了", "闺蜜"), ("我哥们搬到杭州了", "哥们"),
    ("我舍友上个月搬去上海了", "舍友"), ("我们公司搬到杭州了", "公司"),
    ("My wife and I moved to Leeds", ""), ("I moved to Leeds", ""), ("我搬到杭州了", ""), ("我们搬到杭州了", ""),
    ("我家搬到杭州了", ""), ("My rent went up to 1350", ""), ("My address changed to 5 Main St", ""),
    ("我的发小搬到杭州了", "发小"), ("我的邻居搬到杭州了", "邻居"),  # after 的 a noun, whatever jieba tags it (v)
    ("我的房租涨到三千", ""), ("我的手机号换了", ""),
])
def test_a_possessed_noun_before_the_verb_is_someone_else(clause, who):
    assert clause_subject(clause) == who


def test_the_speakers_own_slot_nouns_are_the_speakers():
    assert possessed_subject("我工资", "zh") == possessed_subject("我体重", "zh") == possessed_subject("我房租", "zh") == ""
    assert possessed_subject("My salary ", "en") == ""
    assert [(f.attribute, f.value) for f in extract_from_text("我体重降到60公斤了。")] == [("weight", "60公斤")]


@pytest.mark.parametrize("text", ["My bestie moved to Denver.", "我闺蜜搬到杭州了。", "我舍友搬去上海了。",
                                  "我哥们跳槽到腾讯了。", "My flatmate just moved to Leeds."])
def test_someone_elses_move_states_no_fact_of_the_speakers(text):
    assert [f for f in extract_from_text(text) if f.attribute in ("home_city", "employer")] == []


@pytest.mark.parametrize("first,then,theirs", [
    ("I live in Austin.", "My bestie moved to Denver.", "user|bestie_home_city"),
    ("我住在南京。", "我闺蜜搬到杭州了。", "user|闺蜜_home_city"), ("我在华为上班。", "我舍友跳槽到腾讯了。", "user|舍友_employer")])
def test_someone_elses_move_retires_nothing(mem_det, first, then, theirs):
    """Someone else's move is that person's claim (issue #22): it retires none of the speaker's."""
    mem_det.add(first, user_id="u", timestamp=T1)
    evs = mem_det.add(then, user_id="u", timestamp=T2)
    assert not any(e.event == "SUPERSEDE" for e in evs)
    facts = {m.text: m.fact.slot for m in mem_det.get_all(user_id="u") if m.fact is not None and m.valid_to is None}
    assert facts[first] in ("user|home_city", "user|employer") and facts[then] == theirs


# -- plans -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("first,plan,later", [
    ("I live in Leeds.", "I'm moving to York next month.", "I moved to York."),
    ("我住在南京。", "下个月搬去苏州。", "我搬到苏州了。"),
])
def test_a_move_with_a_date_ahead_is_scheduled(mem_det, first, plan, later):
    mem_det.add(first, user_id="u", timestamp=T1)
    evs = mem_det.add(plan, user_id="u", timestamp=T2)
    start = datetime(2024, 4, 1, tzinfo=timezone.utc)  # "next month" of 2024-03-04: holds from then
    assert [(e.event, e.memory.valid_from if e.event == "ADD" else e.memory.valid_to) for e in evs] == \
        [("ADD", start), ("SUPERSEDE", start)]
    assert mem_det.ask(first, user_id="u", as_of=T2 + timedelta(days=1)).citations[0].text == first
    evs = mem_det.add(later, user_id="u", timestamp=datetime(2024, 4, 10, tzinfo=timezone.utc))
    assert [e.event for e in evs if e.event == "SUPERSEDE"] == []  # said as done: the value already scheduled


def test_a_move_said_with_a_past_date_is_a_change(mem_det):
    mem_det.add("I live in Leeds.", user_id="u", timestamp=T1)
    evs = mem_det.add("I moved to York last month.", user_id="u", timestamp=T2)
    assert [e.memory.text for e in evs if e.event == "SUPERSEDE"] == ["I live in Leeds."]


def test_an_amount_announced_for_a_date_ahead_is_the_new_amount(mem_det):
    mem_det.add("我房租一个月三千二。", user_id="u", timestamp=T1)
    evs = mem_det.add("我房租下个月开始涨到三千五。", user_id="u", timestamp=T2)
    assert [e.memory.text for e in evs if e.event == "SUPERSEDE"] == ["我房租一个月三千二。"]


def test_a_new_value_said_beside_the_end_of_the_old_one_is_no_plan(mem_det):
    from anchormem.facts.plans import _ends_now

    assert _ends_now("I'm starting at Puma next week after leaving Adidas.")
    assert _ends_now("我从字节离职了，下周一去美团报到。")
    assert not _ends_now("I'm moving to York next month.") and not _ends_now("I'm leaving Google next month.")
    mem_det.add("我在字节跳动上班。", user_id="u", timestamp=T1)
    evs = mem_det.add("我从字节离职了，下周一去美团报到。", user_id="u", timestamp=T2)
    assert any(e.event == "SUPERSEDE" and e.memory.text == "我在字节跳动上班。" for e in evs)


@pytest.mark.parametrize("text, cut", [("烟两个月", 1), ("swimming for two months", 13), ("coffee 3 years", 7),
                                       ("烟", -1), ("3 cats", -1), ("打三次羽毛球", -1)])
def test_a_length_of_time_is_where_a_value_ends(text, cut):
    from anchormem.facts.values import duration_at

    assert duration_at(text) == cut


def test_quitting_for_a_while_closes_the_habit_itself():
    from anchormem import Memory

    with Memory(":memory:", cache=False) as m:
        m.add("我每天抽烟。", user_id="u", timestamp="2025-01-01T10:00:00Z")
        events = m.add("我已经戒烟两个月了。", user_id="u", timestamp="2025-03-01T10:00:00Z")
        assert [(e.event, e.memory.fact.attribute) for e in events if e.memory.fact] == [
            ("ADD", "does:smoke"), ("SUPERSEDE", "does:smoke")]
        assert m.ask("我还抽烟吗？", user_id="u").citations[0].text == "我已经戒烟两个月了。"


def test_a_new_job_after_a_comma_and_now_is_its_own_clause():
    from anchormem import Memory

    with Memory(":memory:", cache=False) as m:
        m.add("I work at Tesco as a cashier.", user_id="u", timestamp="2025-01-05T10:00:00Z")
        events = m.add("Left Tesco in March, now I'm a barista at Pret.", user_id="u",
                       timestamp="2025-05-05T10:00:00Z")
        got = [(e.event, e.memory.fact.attribute, e.memory.fact.value) for e in events if e.memory.fact]
        assert ("SUPERSEDE", "employer", "Tesco") in got and ("ADD", "employer", "Pret") in got
        assert ("SUPERSEDE", "occupation", "cashier") in got
