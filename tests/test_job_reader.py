"""The job reader (anchormem.facts.jobs, issue #22): typed job titles and employers, and the clauses that start,
change (a promotion) or end them, in English, Chinese and mixed turns; the non-changes retire nothing."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from anchormem import Memory
from anchormem.facts.jobs import is_title, job_facts, merge_job_facts, read_clauses
from anchormem.facts.keys import value_key
from anchormem.facts.model import Fact

T1 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 10, 9, 0, tzinfo=timezone.utc)


def _read(text: str) -> list[tuple[str, str, str]]:
    return [(r.aspect, r.title, r.org) for r in read_clauses(text)]


@pytest.mark.parametrize("text,want", [
    ("Left the bookshop and started as a cataloguer at the university library today!",
     [("end", "", "bookshop"), ("start", "cataloguer", "university library")]),
    ("I handed in my badge.", [("end", "", "")]),
    ("I got promoted to senior engineer.", [("promote", "senior engineer", "")]),
    ("chef bumped me up to sous chef!! still the ramen spot", [("promote", "sous chef", "")]),
    ("So... Maersk let go of half our team yesterday, me included.", [("end", "", "")]),
    ("Big news, I left Shopify and started at Datadog on Monday.", [("start", "", "Datadog")]),
    ("Took a full-time gig as an in-house photographer at IKEA.", [("start", "in-house photographer", "IKEA")]),
    ("Junior UX designer at Shopify as of Monday.", [("start", "Junior UX designer", "Shopify")]),
    ("I'm a recruiter at Meta, been there 4 yrs", [("", "recruiter", "Meta")]),
    ("i drive for UPS, mostly the downtown route", [("", "", "UPS")]),
    ("I am now freelancing.", [("start", "freelancing", "")]),
    ("跳槽了，现在在瑞幸当区域经理", [("start", "区域经理", "瑞幸")]),
    ("我从字节离职了，下周一去美团报到。", [("end", "", "字节"), ("start", "", "美团")]),
    ("店长提拔我当值班主管了，一个月多五百块。", [("promote", "值班主管", "")]),
    ("被优化了……N+1拿到手，先歇两个月再说。", [("end", "", "")]),
    ("我是招行支行的客户经理，天天冲业绩。", [("", "客户经理", "招行支行")]),
    ("我在县医院当了三十年护士。", [("", "护士", "县医院")]),
    ("I left Amazon last month, 现在在 Cloudflare 做 infra。", [("start", "", "Cloudflare")]),
    ("reorg之后被提成Engineering Manager，现在管三个team。", [("promote", "Engineering Manager", "")]),
    ("Startup 倒闭了，我现在 freelance 接单。", [("start", "freelance", "")]),
    ("我被公司开除了。", [("end", "", "")]),
    ("They made me redundant last Friday.", [("end", "", "")]),
])
def test_reads_job_clauses(text: str, want: list[tuple[str, str, str]]) -> None:
    assert _read(text) == want


@pytest.mark.parametrize("text", [
    "My friend got a new job at Google.",
    "I am thinking about quitting.",
    "Should I take the offer from Meta?",
    "My boss is a nightmare, he yells at everyone.",
    "My brother quit his job at Amazon to open a food truck.",
    "If I quit nursing I would become a teacher.",
    "Thinking about jumping ship to a startup next year, haven't decided.",
    "我老公跳槽去了阿里。",
    "我老公从腾讯离职了，说要去创业，心累。",
    "我该不该辞职？",
    "我在考虑要不要辞职。",
    "如果去Amazon的话package会高一点，但是不想搬去Seattle。",
    "I didn't get the job at Google.",
    "I started working out at Planet Fitness.",
    "A recruiter from Boeing called me about a job.",
    "I joined a gym.",
    "I'm at Starbucks now.",
    "现在在星巴克。",
    "公司裁员了，还好没裁到我。",
    "我同事被裁了。",
    "我的银行卡密码提示是紫色长颈鹿。",  # the copula's subject is a thing; 长 ends no word (长颈鹿)
    "我的目标是当老师。",  # a goal
])
def test_non_changes_read_nothing(text: str) -> None:
    assert _read(text) == []


def test_leaving_a_name_ends_a_job_only_when_it_is_the_current_employer() -> None:
    text = "Big news, I left Shopify and started at Datadog on Monday."
    got = [(r.aspect, r.org) for r in read_clauses(text, named=["Shopify"])]
    assert got == [("end", "Shopify"), ("start", "Datadog")]
    assert [r.aspect for r in read_clauses("I quit Instagram.", named=["Google"])] == []
    assert [r.aspect for r in read_clauses("I left my wallet at Starbucks.", named=["Starbucks"])] == []


def test_titles_are_typed_from_the_lexicon() -> None:
    assert is_title("Audit Manager") and is_title("sous chef") and is_title("区域经理") and is_title("值班主管")
    assert not is_title("nightmare") and not is_title("big fan") and not is_title("老家")


def _claim(attr: str, value: str) -> SimpleNamespace:
    return SimpleNamespace(fact=Fact(entity="user", attribute=attr, value=value))


def test_an_ending_names_the_claims_it_closes() -> None:
    cur = {"employer": [_claim("employer", "Google")], "occupation": [_claim("occupation", "software engineer")]}
    got = [(f.attribute, f.value, f.polarity, f.ends) for f in job_facts("I got laid off.", current=lambda a: cur[a])]
    assert got == [("employer", "laid off", -1, value_key("employer", "Google")),
                   ("occupation", "laid off", -1, value_key("occupation", "software engineer"))]
    # a promotion changes the title, never the employer
    got = [(f.attribute, f.value, f.polarity) for f in job_facts("I got promoted to senior engineer.",
                                                                  current=lambda a: cur[a])]
    assert got == [("occupation", "senior engineer", 1)]
    # an ending with nothing current ends nothing
    assert job_facts("I got laid off.", current=lambda a: []) == []


def test_a_misread_employer_gives_way_to_the_typed_one() -> None:
    rules = [Fact(entity="user", attribute="employer", value="瑞幸当区域经理", clause="现在在瑞幸当区域经理")]
    jobs = job_facts("跳槽了，现在在瑞幸当区域经理")
    merged = sorted((f.attribute, f.value) for f in merge_job_facts(rules, jobs))
    assert merged == [("employer", "瑞幸"), ("occupation", "区域经理")]


def _changes(first: str, second: str) -> tuple[list[tuple[str, str]], list[tuple[str, str, int]]]:
    m = Memory(":memory:", embedder="hash")
    m.add(first, user_id="u", timestamp=T1)
    evs = m.add(second, user_id="u", timestamp=T2)
    sup = [(e.memory.fact.attribute if e.memory.fact else "", e.memory.text) for e in evs if e.event == "SUPERSEDE"]
    current = [(i.fact.attribute, i.fact.value, i.fact.polarity) for i in m.get_all(user_id="u")
               if i.fact is not None and i.valid_to is None]
    m.close()
    return sup, current


def test_a_change_in_words_nobody_wrote_a_pattern_for_supersedes() -> None:
    sup, cur = _changes("I work at a bookshop in Leeds as a bookseller.",
                        "Left the bookshop and started as a cataloguer at the university library today!")
    assert ("occupation", "I work at a bookshop in Leeds as a bookseller.") in sup
    assert ("occupation", "cataloguer", 1) in cur and ("employer", "university library", 1) in cur
    assert ("employer", "bookshop", 1) not in cur


def test_a_chinese_switch_closes_the_old_employer_and_title() -> None:
    sup, cur = _changes("我在星巴克当店长。", "跳槽了，现在在瑞幸当区域经理")
    assert {a for a, _ in sup} >= {"employer", "occupation"}
    assert ("employer", "瑞幸", 1) in cur and ("occupation", "区域经理", 1) in cur
    assert ("employer", "星巴克", 1) not in cur


def test_an_ending_across_languages_closes_the_employer() -> None:
    sup, cur = _changes("I'm a nurse at St Mary's.", "我被裁了。")
    assert ("employer", "I'm a nurse at St Mary's.") in sup
    assert not any(a == "employer" and p > 0 for a, _, p in cur)


@pytest.mark.parametrize("second", [
    "My friend got a new job at Stripe.",
    "I am thinking about quitting.",
    "Should I take the offer from Meta?",
    "My boss is a nightmare, he yells at everyone.",
    "我朋友跳槽去了腾讯。",
])
def test_non_changes_retire_nothing(second: str) -> None:
    sup, cur = _changes("I'm a software engineer at Google.", second)
    assert sup == []
    assert ("employer", "Google", 1) in cur and ("occupation", "software engineer", 1) in cur


def test_an_occupation_noun_that_heads_nothing_is_no_title():
    from anchormem.facts.jobs import job_facts

    assert job_facts("I wanted to tell ya I just joined a writers group.") == []  # a group, not a writer's job
    assert [(f.attribute, f.value) for f in job_facts("I'm a nurse at Santa Maria hospital")] == \
        [("occupation", "nurse"), ("employer", "Santa Maria hospital")]
    assert [(f.attribute, f.value) for f in job_facts("I work as a dental hygienist")] == \
        [("occupation", "dental hygienist")]
    assert job_facts("Booked a coach from London to Edinburgh, 9 hours overnight.") == []  # a bus, no job
    assert [(f.attribute, f.value) for f in job_facts("I work as a writer for Vox")] == \
        [("occupation", "writer"), ("employer", "Vox")]


@pytest.mark.parametrize("text,ends", [
    ("Hey Maria, last week was really eye-opening.", False),  # grounding eval: stored "NOT occupation: last week was"
    ("Touring with Frank Ocean last week was wild.", False),
    ("Last day at Google today!", True),
    ("My last week at Acme, then freedom.", True),
])
def test_last_week_is_no_job_ending_unless_at_a_job(text, ends):
    from anchormem.facts.jobs import read_clauses

    assert any(r.aspect == "end" for r in read_clauses(text)) is ends


def test_an_ending_that_names_the_employer_stores_that_name():
    """fresh26 D14: "Last day at ByteDance today." closes the employer with the value it names (ByteDance, -1), not
    the words "Last day at"; an ending naming nothing keeps its own words."""
    from anchormem import Memory

    m = Memory(":memory:", embedder="hash")
    m.add("I work at ByteDance.", user_id="u", timestamp="2026-07-01T10:00:00+00:00")
    ev = m.add("Last day at ByteDance today.", user_id="u", timestamp="2026-07-08T10:00:00+00:00")
    assert [(e.event, e.memory.fact.value, e.memory.fact.polarity) for e in ev if e.memory.fact] == [
        ("ADD", "ByteDance", -1), ("SUPERSEDE", "ByteDance", 1)]
    m.add("I work at Google.", user_id="u", timestamp="2026-08-01T10:00:00+00:00")
    ev = m.add("Handed in my badge today.", user_id="u", timestamp="2026-09-01T10:00:00+00:00")
    assert [(e.event, e.memory.fact.value) for e in ev if e.memory.fact] == [
        ("ADD", "Handed in my badge"), ("SUPERSEDE", "Google")]
    m.close()
