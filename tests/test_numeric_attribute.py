"""An amount changes only the attribute it is about (issue #22 follow-up): the attribute is the noun the amount is
of (slot nouns of data/lang/*/slots.json and frames.json, either language); a turn naming another attribute is a
new fact, never a change of that claim; a change of a sensitive slot goes to review whichever path detected it."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.facts.frames import slots_named
from anchormem.facts.rules import extract_from_text
from fact_helpers import add_events


T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


_events = add_events


def _facts(text):
    return [(f.attribute, f.value) for f in extract_from_text(text)]


def test_slot_noun_used_as_a_verb_names_nothing():
    assert _facts("I pay 120 yuan a month for my gym.") == []
    assert _facts("We pay 40 euros a month for the kids' swimming club.") == []
    assert _facts("My salary is 20000 a month.") == [("salary", "20000 a month")]
    assert _facts("My pay is 5000 a month.") == [("salary", "5000 a month")]
    assert _facts("They cut my pay to 4000.") == [("salary", "4000")]
    assert slots_named("I pay 120 yuan a month for my gym.") == frozenset()


def test_attribute_named_in_either_language():
    assert slots_named("工资涨了，现在每个月38000。") == frozenset({"salary"})
    assert slots_named("会员费涨到了128元一个月") == frozenset({"membership"})
    assert slots_named("My rent went up, and my salary did not.") == frozenset({"rent", "salary"})
    assert _facts("I have a Pro membership at 88 yuan per month.") == [("membership", "88 yuan per month")]
    assert _facts("会员费涨到了128元一个月，太贵了。") == [("membership", "128元")]


def test_a_salary_never_closes_a_gym_fee(mem_e5):
    _events(mem_e5, "I pay 120 yuan a month for my gym.", T1)
    evs = _events(mem_e5, "My salary is 20000 a month.", T2)
    assert [e for e in evs if e[0] == "SUPERSEDE"] == []
    assert ("ADD", "My salary is 20000 a month.", "salary", "20000 a month") in evs
    gym = mem_e5.get_all(user_id="u")
    assert any("gym" in it.text for it in gym)


def test_chinese_salary_is_a_new_fact_not_a_broadband_change(mem_e5):
    _events(mem_e5, "我的宽带套餐是每月199元的。", T1)
    evs = _events(mem_e5, "工资涨了，现在每个月38000。", T2)
    assert [e for e in evs if e[0] == "SUPERSEDE"] == []
    assert ("ADD", "工资涨了，现在每个月38000。", "salary", "38000") in evs


def test_monthly_salary_does_not_close_a_plan_but_the_plan_still_changes(mem_e5):
    _events(mem_e5, "我的宽带套餐是每月99元的。", T1, user="a")
    evs = _events(mem_e5, "我现在的月薪是38000元。", T2, user="a")
    assert [e for e in evs if e[0] == "SUPERSEDE"] == []
    assert [e[2:] for e in evs if e[0] == "ADD"] == [("salary", "38000元")]
    evs = _events(mem_e5, "套餐又改了，现在每个月49块。", datetime(2024, 6, 1, tzinfo=timezone.utc), user="a")
    assert [e[2:] for e in evs if e[0] == "SUPERSEDE"] == [("宽带套餐", "每月99元")]


def test_a_rent_change_across_languages_still_supersedes(mem_e5):
    _events(mem_e5, "My rent is 1350 a month.", T1)
    evs = _events(mem_e5, "房租涨到1500了。", T2)
    assert [e[2:] for e in evs if e[0] == "SUPERSEDE"] == [("rent", "1350 a month")]


def test_membership_price_change_across_languages(mem_e5):
    _events(mem_e5, "I have a Pro membership at 88 yuan per month.", T1)
    evs = _events(mem_e5, "会员费涨到了128元一个月，太贵了。", T2)
    assert [e[2:] for e in evs if e[0] == "SUPERSEDE"] == [("membership", "88 yuan per month")]
    assert "128元" in ans_value(mem_e5, "How much is my membership?")


def ans_value(m, q):
    cites = m.ask(q, user_id="u").citations
    return cites[0].text if cites else None


def test_a_sensitive_change_goes_to_review_on_every_path(mem_e5):
    _events(mem_e5, "我的手机号是13800001111。", T1)
    evs = _events(mem_e5, "手机号换了，新号码13922223333。", T2)
    assert [e[0] for e in evs] == ["REVIEW"]
    assert [e[3] for e in evs] == ["13922223333"]
    _events(mem_e5, "My phone number is 555-0100.", T1, user="b")
    evs = _events(mem_e5, "Got a new phone, the number is 555-0199 now.", T2, user="b")
    assert "SUPERSEDE" not in [e[0] for e in evs]


def test_a_question_carries_the_statement_it_opens_with():
    from anchormem.ingest.classify import stated_part

    assert stated_part("My monthly salary is 32000 yuan, can I apply for the premium card?") == \
        "My monthly salary is 32000 yuan"
    assert stated_part("我月薪三万二，可以申请白金卡吗？") == "我月薪三万二"
    assert stated_part("Should I move to Berlin, given my rent?") == ""
    assert stated_part("Is my rent too high?") == ""
    assert _facts("My rent is 1,350, is that too much?") == [("rent", "1,350")]
    assert _facts("我的房租是3000，贵不贵？") == [("rent", "3000")]
    assert _facts("I might move to Berlin, what do you think?") == []
    assert _facts("If I move to Berlin, should I sell my car?") == []


def test_a_salary_said_in_a_question_is_superseded(mem_e5):
    evs = _events(mem_e5, "My monthly salary is 32000 yuan, can I apply for the premium card?", T1)
    assert ("ADD", "My monthly salary is 32000 yuan", "salary", "32000 yuan") in evs
    evs = _events(mem_e5, "My salary is now 35000 yuan a month.", T2)
    assert [e[2:] for e in evs if e[0] == "SUPERSEDE"] == [("salary", "32000 yuan")]
    ctx = mem_e5.context(query="What is my salary?", user_id="u", session_id="s").text
    assert "35000" in ctx and "32000" not in ctx
    assert "35000" in mem_e5.ask("What is my salary?", user_id="u").citations[0].text


def test_own_sentences_other_attributes_in_en_zh_and_mixed(mem_e5):
    _events(mem_e5, "My gym membership is 300 a month.", T1, user="c")
    evs = _events(mem_e5, "工资涨到了25000。", T2, user="c")
    assert [e for e in evs if e[0] == "SUPERSEDE"] == []
    _events(mem_e5, "我的rent是每月2800 SGD。", T1, user="d")
    evs = _events(mem_e5, "My salary went up to 9000 SGD a month.", T2, user="d")
    assert [e for e in evs if e[0] == "SUPERSEDE"] == []
    evs = _events(mem_e5, "房租涨到3000 SGD了。", datetime(2024, 6, 1, tzinfo=timezone.utc), user="d")
    assert [e[2] for e in evs if e[0] == "SUPERSEDE"] == ["rent"]


def test_a_phone_plan_price_is_no_sensitive_change(mem_e5):
    _events(mem_e5, "My phone plan is $35/month with Mint.", T1, user="e")
    evs = _events(mem_e5, "Switched plans, it's $25 a month now.", T2, user="e")
    assert "REVIEW" not in [e[0] for e in evs]
    assert [e[2:] for e in evs if e[0] == "SUPERSEDE"] == [("phone_plan", "$35/month")]


def test_a_small_price_said_in_words_is_an_amount_only_when_about_a_price():
    from anchormem.facts.relative import clause_values

    assert [(v.kind, v.value) for v in clause_values("换了个五十八的套餐，够用了。")] == [("amount", "五十八")]
    assert [(v.kind, v.value) for v in clause_values("爱奇艺又涨价了，包月要三十了。") if v.kind == "amount"] == \
        [("amount", "三十")]
    assert [v for v in clause_values("我们聊了三十分钟。") if v.kind == "amount" and v.value == "三十"] == []
    assert [v for v in clause_values("I waited for thirty minutes.") if v.value == "thirty"] == []
