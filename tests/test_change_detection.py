"""Change detection (issue #22): paraphrased moves, job and employer changes, numeric changes, counts that keep the
names, endings, and the non-changes that retire nothing; English, Chinese and across the two. The language knowledge
is data (src/anchormem/data/lang/<lang>/*.json, read lazily by anchormem.langdata)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from anchormem import Memory, Settings
from anchormem.facts.changes import ENDS_ANY, number_of
from anchormem.facts.keys import value_key
from anchormem.facts.reconcile import conflicts
from anchormem.facts import extract_facts_rules
from anchormem.facts.rules import not_the_speakers
from anchormem.llms import OpenAICompatLLM
from anchormem.testing.fake_llm import FakeLLMServer
from anchormem.types import FactSlot

T1 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 10, 9, 0, tzinfo=timezone.utc)


def _facts(text: str) -> list[tuple[str, str, int]]:
    return [(f.attribute, f.value, f.polarity) for f in extract_facts_rules(text)]


@pytest.mark.parametrize("text,want", [
    # numeric slots, English and Chinese, one slot key across languages
    ("My rent went up to 1350.", [("rent", "1350", 1)]),
    ("The landlord raised my rent to 2150 dollars.", [("rent", "2150 dollars", 1)]),
    ("房租涨到4800了。", [("rent", "4800", 1)]),
    ("我的房租是4500。", [("rent", "4500", 1)]),
    ("我的月薪涨到了两万五。", [("salary", "两万五", 1)]),
    ("我涨工资了，现在每月11000。", [("salary", "11000", 1)]),
    ("I'm down to 75 kg now.", [("weight", "75 kg", 1)]),
    ("Our mortgage payment dropped to 1390.", [("mortgage_payment", "1390", 1)]),
    ("我瘦到了65公斤。", [("weight", "65公斤", 1)]),
    ("My son just turned 5.", [("son_age", "5", 1)]),
    ("我女儿现在6岁了。", [("daughter_age", "6岁", 1)]),
    # jobs and employers
    ("I left Google and joined Stripe.", [("employer", "Stripe", 1)]),
    ("I quit nursing.", [("occupation", "nursing", -1)]),
    ("I quit teaching and became a librarian.", [("occupation", "librarian", 1)]),
    ("我辞职了。", [("employer", "辞职", -1)]),
    ("我从联想离职了。", [("employer", "联想", -1)]),
    ("我换了工作，现在在招商银行上班。", [("employer", "招商银行", 1)]),
    # moves
    ("We moved to Berlin in May.", [("home_city", "Berlin", 1)]),
    ("My new home is in Osaka.", [("home_city", "Osaka", 1)]),
    ("我们全家已经搬去苏州了。", [("home_city", "苏州", 1)]),
    # counts keep what else the sentence said
    ("I have two cats, Tom and Jerry.", [("count:cat", "two cats", 1), ("cat_names", "Tom and Jerry", 1)]),
    ("We have two kids now, Amy and Ben.", [("count:child", "two kids", 1), ("child_names", "Amy and Ben", 1)]),
    ("我有两只猫，叫咪咪和花花。", [("cat_names", "咪咪和花花", 1), ("count:cat", "两只猫", 1)]),
    # endings
    ("I'm not vegetarian anymore.", [("diet", "vegetarian", -1)]),
    ("我戒烟了。", [("does:smoke", "烟", -1)]),
    ("We moved out of Lagos and now we live in Abuja.", [("home_city", "Abuja", 1)]),
    ("I don't run anymore.", [("does:run", "run", -1)]),
])
def test_changes_are_read_as_slot_values(text, want):
    assert _facts(text) == want


@pytest.mark.parametrize("text", [
    "I might move to Berlin.", "Should I move to Berlin?", "My boss said she moved to Berlin.",
    "We're considering relocating to Berlin.", "I'm thinking I might move to Valencia someday.",
    "My brother left Google and joined Stripe.", "我弟弟跳槽到了腾讯。", "我同事的房租涨到了6000。", "我要不要搬到北京？",
    "他说他搬到了深圳。", "I visited Berlin last week.",
])
def test_non_changes_state_no_fact_of_the_speaker(text):
    assert [a for a, _, _ in _facts(text) if not a.split("_")[0] in ("friend", "brother", "mother", "弟弟")] == []


def test_someone_elses_move_is_their_slot():
    assert _facts("My friend moved to Paris.") == [("friend_home_city", "Paris", 1)]
    assert _facts("我妈妈搬到了杭州。") == [("mother_home_city", "杭州", 1)]


def test_a_dislike_of_a_particular_coffee_is_not_the_coffee_habit():
    (habit,) = extract_facts_rules("我每天早上喝咖啡。")
    (dislike,) = extract_facts_rules("我不喜欢公司的咖啡。")
    assert (habit.attribute, dislike.attribute) == ("does:coffee", "likes:公司的咖啡")
    (en_dislike,) = extract_facts_rules("I don't like the office coffee.")
    assert en_dislike.attribute == "likes:office coffee"


@pytest.mark.parametrize("attribute,a,b", [
    ("rent", "1,350 euros", "1350"), ("salary", "两万五", "25000"), ("salary", "90k", "90000"),
    ("daughter_age", "6岁", "6"), ("weight", "65公斤", "65 kg"), ("occupation", "nursing", "a nurse"),
])
def test_values_of_one_slot_compare_across_wordings_and_languages(attribute, a, b):
    assert value_key(attribute, a) == value_key(attribute, b)


def test_number_of_reads_digits_words_and_chinese_numerals():
    assert [number_of(v) for v in ("1,350 euros", "一万二", "两万五", "seven", "3200元", "no number")] == [
        "1350", "12000", "25000", "7", "3200", None]


def test_an_ending_without_a_value_ends_whatever_the_slot_holds():
    assert value_key("employer", "辞职") == ENDS_ANY
    old = FactSlot(entity="user", attribute="employer", value="Amazon", polarity=1)
    assert conflicts(old, FactSlot(entity="user", attribute="employer", value="辞职", polarity=-1))
    # an ending that names another value ends only that one
    assert not conflicts(old, FactSlot(entity="user", attribute="employer", value="Google", polarity=-1))


def test_not_the_speakers_names_why():
    assert not_the_speakers("My friend moved to Berlin.", "Berlin") == "the clause is about someone else"
    assert not_the_speakers("Should I move to Berlin?", "Berlin") == "a question states no fact"
    assert "hypothetical" in not_the_speakers("I might move to Berlin.", "Berlin")
    assert not_the_speakers("I moved to Berlin last month.", "Berlin") is None


@pytest.fixture
def mem(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder="hash", settings=Settings(labeller="offline")) as m:
        yield m


def _events(mem, text, t, user="u"):
    return [(e.event, e.memory.text, e.memory.fact.attribute if e.memory.fact else None)
            for e in mem.add(text, user_id=user, timestamp=t)]


@pytest.mark.parametrize("before,after,attribute", [
    ("My rent is 1200 euros.", "My rent went up to 1350.", "rent"),
    ("我的房租是4500。", "房租涨到4800了。", "rent"),
    ("My rent is 1200 euros.", "我的房租涨到1300欧元了。", "rent"),          # said in Chinese, fact said in English
    ("My daughter is 5.", "我女儿现在6岁了。", "daughter_age"),
    ("I work at Amazon.", "我辞职了。", "employer"),
    ("I'm a nurse at St Mary's.", "I quit nursing.", "occupation"),
    ("I live in Lisbon.", "我搬到柏林了。", "home_city"),
    ("我在华为上班。", "我跳槽去了小米。", "employer"),
    ("I drink coffee every morning.", "我不再喝咖啡了。", "does:coffee"),       # one topic across languages
    ("我抽烟。", "I quit smoking.", "does:smoke"),
])
def test_a_change_supersedes_across_wordings_and_languages(mem, before, after, attribute):
    _events(mem, before, T1)
    evs = _events(mem, after, T2)
    events = [e for e, _, _ in evs]
    # (quitting a job said with its employer ends that employer too: more SUPERSEDEs, never anything else)
    assert events[:2] == ["ADD", "SUPERSEDE"] and set(events[2:]) <= {"SUPERSEDE"}, evs
    assert evs[0][2] == attribute


@pytest.mark.parametrize("before,after,job_open", [
    ("I work at a bank in Leeds as a teller.", "I quit the bank, now I manage a cafe in York.", False),
    ("I work as a product manager at Tencent.", "I left Tencent, 现在在一家叫Lumio的startup做head of product。", False),
    ("I'm a software engineer at Google.", "I left Google and joined Stripe.", True),  # the job may go on there
])
def test_quitting_an_employer_ends_the_job_said_with_it(mem_e5, before, after, job_open):
    mem = mem_e5  # the ending is read against the user's claims by meaning (facts.relative): the real model
    _events(mem, before, T1)
    _events(mem, after, T2)
    facts = {(m.fact.attribute, m.fact.value, m.fact.polarity) for m in mem.get_all(user_id="u") if m.fact}
    assert any(a == "occupation" for a, _, _ in facts) is job_open, facts
    old = [c for m in mem.get_all(user_id="u", include_superseded=True) for c in m.claims
           if c.slot == "user|employer" and c.polarity > 0 and c.value in before]
    assert old and all(c.valid_to == T2 for c in old)


@pytest.mark.parametrize("before,after", [
    ("I live in Lisbon.", "My friend moved to Berlin."),
    ("I live in Lisbon.", "I might move to Berlin."),
    ("I live in Lisbon.", "Should I move to Berlin?"),
    ("I drink coffee every morning.", "I don't like the office coffee."),
    ("我每天早上喝咖啡。", "我不喜欢公司的咖啡。"),
    ("我在阿里巴巴工作。", "我弟弟跳槽到了腾讯。"),
    ("My rent is 1200.", "My friend's rent went up to 1500."),
    ("I live in Lisbon.", "My boss said she moved to Berlin."),
])
def test_a_non_change_retires_nothing(mem, before, after):
    first = mem.add(before, user_id="u", timestamp=T1)
    evs = _events(mem, after, T2)
    assert "SUPERSEDE" not in [e for e, _, _ in evs], evs
    assert first[0].memory.id in [m.id for m in mem.get_all(user_id="u")]


def test_a_count_change_keeps_the_pets_names(mem):
    mem.add("我有两只猫，叫咪咪和花花。", user_id="u", timestamp=T1)
    evs = _events(mem, "我现在有三只猫了。", T2)
    assert [(e, a) for e, _, a in evs] == [("ADD", "count:cat"), ("SUPERSEDE", "count:cat")]
    current = {m.fact.attribute: m.fact.value for m in mem.get_all(user_id="u") if m.fact}
    assert current == {"count:cat": "三只猫", "cat_names": "咪咪和花花"}


def _llm_reply(*items) -> str:
    keys = ("entity", "attribute", "value", "polarity", "confidence", "source_quote", "previous_value")
    return json.dumps({"facts": [dict(zip(keys, it)) for it in items]}, ensure_ascii=False)


def _llm_mem(tmp_path, srv):
    return Memory(str(tmp_path / "llm.db"), embedder="hash", settings=Settings(labeller="offline"),
                  llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0))


def test_llm_proposes_the_change_and_the_turn_verifies_it(tmp_path):
    replies = [_llm_reply(("user", "home_city", "Lisbon", 1, 1.0, "I live in Lisbon.", None)),
               _llm_reply(("user", "home_city", "Berlin", 1, 1.0, "I moved from Lisbon to Berlin.", "Lisbon"))]
    with FakeLLMServer(replies) as srv, _llm_mem(tmp_path, srv) as m:
        m.add("I live in Lisbon.", user_id="u", timestamp=T1)
        evs = m.add("I moved from Lisbon to Berlin.", user_id="u", timestamp=T2)
        assert [(e.event, e.memory.fact.value) for e in evs] == [("ADD", "Berlin"), ("SUPERSEDE", "Lisbon")]
        assert "previous_value" in json.dumps(srv.requests[1]["messages"][0]["content"])


def test_llm_change_that_is_not_the_speakers_is_rejected(tmp_path):
    replies = [_llm_reply(("user", "home_city", "Lisbon", 1, 1.0, "I live in Lisbon.", None)),
               _llm_reply(("user", "home_city", "Berlin", 1, 1.0, "My friend moved to Berlin.", "Lisbon")),
               _llm_reply(("user", "home_city", "Rome", 1, 1.0, "I might move to Rome.", None))]
    with FakeLLMServer(replies) as srv, _llm_mem(tmp_path, srv) as m:
        m.add("I live in Lisbon.", user_id="u", timestamp=T1)
        for text in ("My friend moved to Berlin.", "I might move to Rome."):
            evs = m.add(text, user_id="u", timestamp=T2)
            assert "SUPERSEDE" not in [e.event for e in evs]
        assert [x.fact.value for x in m.get_all(user_id="u") if x.fact] == ["Lisbon"]
        assert m.stats["facts_rejected"] == 2


def test_llm_previous_value_is_kept_only_when_the_turn_says_it():
    from anchormem.facts.llm_extract import extract_facts_llm

    with FakeLLMServer([_llm_reply(("user", "home_city", "Berlin", 1, 1.0, "I moved to Berlin.", "Lisbon")),
                        _llm_reply(("user", "home_city", "Berlin", 1, 1.0, "I moved from Lisbon to Berlin.",
                                    "Lisbon"))]) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake", max_retries=0)
        (a,) = extract_facts_llm(llm, "I moved to Berlin.").facts
        (b,) = extract_facts_llm(llm, "I moved from Lisbon to Berlin.").facts
    assert (a.value, a.previous_value, b.value, b.previous_value) == ("Berlin", None, "Berlin", "Lisbon")


def test_llm_sees_the_known_facts_and_its_previous_value_is_checked_against_them(tmp_path):
    replies = [_llm_reply(("user", "home_city", "Cleveland", 1, 1.0, "I'm a nurse in Cleveland.", None)),
               _llm_reply(("user", "home_city", "Raleigh", 1, 1.0, "we're in Raleigh now", "Cleveland"))]
    with FakeLLMServer(replies) as srv, _llm_mem(tmp_path, srv) as m:
        m.add("I'm a nurse in Cleveland.", user_id="u", timestamp=T1)
        evs = m.add("Finally escaped!! we're in Raleigh now", user_id="u", timestamp=T2)
        assert [(e.event, e.memory.fact.value) for e in evs if e.memory.fact] == [
            ("ADD", "Raleigh"), ("SUPERSEDE", "Cleveland")]
        first, second = (r["messages"][1]["content"] for r in srv.requests)
    assert "Known current facts" not in first  # nothing known yet: no list
    assert "- user | home_city | Cleveland" in second


def test_llm_previous_value_neither_said_nor_known_is_dropped():
    from anchormem.facts.llm_extract import extract_facts_llm

    reply = _llm_reply(("user", "home_city", "Raleigh", 1, 1.0, "we're in Raleigh now", "Cleveland"))
    with FakeLLMServer([reply, reply]) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake", max_retries=0)
        (a,) = extract_facts_llm(llm, "we're in Raleigh now", known=[("user", "home_city", "Akron")]).facts
        (b,) = extract_facts_llm(llm, "we're in Raleigh now", known=[("user", "home_city", "cleveland")]).facts
    assert (a.previous_value, b.previous_value) == (None, "Cleveland")


def test_language_data_is_read_lazily_not_at_import():
    code = ("import anchormem, anchormem.facts, anchormem.langdata as L; print(L.load.cache_info().currsize); "
            "from anchormem.facts import extract_facts_rules as x; x('My rent went up to 1350.'); "
            "print(L.load.cache_info().currsize > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "True"]


@pytest.mark.parametrize("text,entity,value", [
    ("我搬到成都去了。", "user", "成都"),          # a directional complement (去/来) is no part of the place
    ("我朋友小王搬到成都去了。", "小王", "成都"),
    ("我们搬回北京来了", "user", "北京"),
    ("我搬到 Kuala Lumpur 了", "user", "Kuala Lumpur"),
    ("我搬到了上海浦东新区", "user", "上海浦东新区"),
])
def test_a_chinese_move_reads_the_place_without_its_directional_complement(text, entity, value):
    assert [(f.entity, f.value) for f in extract_facts_rules(text) if f.attribute == "home_city"] == [(entity, value)]


@pytest.mark.parametrize("text,gone", [
    ("我上个月搬到苏州了，之前住在无锡。", "无锡"),  # fresh20 D2: the earlier home said after the move
    ("我原来在腾讯上班，现在在阿里。", "腾讯"),
    ("I moved to Denver last month; before that I lived in Austin.", "Austin"),
    ("Previously I worked at Google, now I'm at a startup.", "Google"),
])
def test_a_clause_opened_by_a_past_adverb_states_no_value_of_now(text, gone):
    """past_opening of relative.json: 之前 / 原来 / "before that" opening a clause set it in the past."""
    assert all(f.value != gone for f in extract_facts_rules(text))


def test_a_move_said_with_a_time_before_is_still_a_move():
    """之前 inside a clause is a time ("三天之前" = three days ago), not a past scene."""
    assert [(f.attribute, f.value) for f in extract_facts_rules("我三天之前搬到了杭州。")] == [("home_city", "杭州")]


def test_the_earlier_home_said_beside_a_move_retires_nothing():
    with Memory(":memory:") as m:
        m.add("我住在苏州。", user_id="z", timestamp="2026-11-20T09:00:00Z")
        events = m.add("我上个月搬到苏州了，之前住在无锡。", user_id="z", timestamp="2026-11-21T09:00:00Z")
        assert "SUPERSEDE" not in [e.event for e in events]
        homes = [it.fact.value for it in m.get_all(user_id="z") if it.fact is not None and it.valid_to is None]
        assert homes == ["苏州"]
