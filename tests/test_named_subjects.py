"""A person named as the subject of a move or a job change is someone else: the speaker's home and job stay."""

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.facts.subjects import clause_subject, named_subject

T = datetime(2025, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("clause, subject", [
    ("Tom just moved to Singapore last week.", "Tom"), ("Anna Li relocated to Berlin.", "Anna Li"),
    ("小李上周搬到北京了。", "小李"), ("老王搬去杭州了", "老王"), ("张伟跳槽到腾讯了", "张伟"),
    ("I moved to Berlin.", ""), ("Finally moved to Reno!", ""), ("Just moved to Reno.", ""),
    ("After the lease ended, moved to Reno.", ""), ("Sam and I moved to Paris.", ""), ("我上周搬到北京了", ""),
    ("我和小李搬到北京了", ""), ("Update: relocated to Reno.", ""), ("My roommate just took a job at Apple", "roommate"),
])
def test_clause_subject_names_someone_else(clause, subject):
    assert clause_subject(clause) == subject


def test_named_subject_needs_the_name_next_to_the_verb():
    assert named_subject("Tom just ", "en") == "Tom" and named_subject("So Tom ", "en") == "Tom"
    assert named_subject("Yesterday ", "en") == "" and named_subject("Recently ", "en") == ""


@pytest.mark.parametrize("old, new", [
    ("I live in Shenzhen.", "Tom just moved to Singapore last week."),
    ("I live in Shenzhen.", "Anna relocated to Berlin."),
    ("我住在深圳。", "小李上周搬到北京了。"),
])
def test_someone_named_moving_leaves_the_speakers_home(old, new):
    with Memory(":memory:", cache=False) as m:
        m.add(old, user_id="u", timestamp=T)
        events = m.add(new, user_id="u", timestamp=T + timedelta(days=60))
        assert [e.event for e in events] == ["ADD"]
        assert all(e.memory.fact is None or e.memory.fact.entity != "user" for e in events)
        home = [x for x in m.get_all(user_id="u", filters={"kind": "fact"}) if x.fact.attribute == "home_city"]
        assert [(x.fact.entity, x.fact.value, x.valid_to) for x in home if x.fact.entity == "user"] == [
            ("user", old[-3:-1] if "深圳" in old else "Shenzhen", None)]
        # the move is the named person's own claim (issue #22: claims carry their subject)
        assert {x.fact.entity for x in home if x.fact.entity != "user"} <= {new.split()[0] if " " in new else "小李"}


def test_a_named_persons_move_is_theirs_and_opens_no_claim_on_the_speakers_words():
    with Memory(":memory:", cache=False) as m:
        m.add("I live in Shenzhen.", user_id="u", timestamp=T)
        events = m.add("Tom moved to Singapore last week.", user_id="u", timestamp=T + timedelta(days=60))
        assert [(e.event, e.memory.fact.entity, e.memory.fact.value) for e in events if e.memory.fact] == [
            ("ADD", "Tom", "Singapore")]
        assert m.ask("Where do I live?", user_id="u").citations[0].text == "I live in Shenzhen."


@pytest.mark.parametrize("text, value", [
    ("我的手机号换了，新号码是13900139000。", "13900139000"), ("我手机号换了，新号码是13900139000。", "13900139000"),
    ("My phone number has changed, the new one is 0612345678.", "0612345678"),
    ("我的工作换了，现在在美团。", "美团"),
])
def test_a_switch_said_of_the_speakers_own_noun_reads_the_new_value(text, value):
    from anchormem.facts.rules import extract_from_text

    assert [(f.entity, f.value) for f in extract_from_text(text)] == [("user", value)]
    assert extract_from_text("他的手机号换了，新号码是13900139000。") == []  # (someone else's number)


@pytest.mark.parametrize("text, homes", [
    ("我们一家去文昌看了火箭发射。", []), ("我去上海看了F1比赛。", []), ("我来北京开会。", []),
    ("我搬到上海了。", ["上海"]), ("我去了东莞，房租便宜多了。", ["东莞"]), ("我回成都住了。", ["成都"]),
])
def test_going_somewhere_to_do_something_is_no_home(text, homes):
    from anchormem.facts.places import home_facts

    assert [f.value for f in home_facts(text)] == homes


def test_volunteering_is_no_occupation():
    from anchormem.facts.jobs import job_facts

    assert job_facts("我报名当了志愿者。") == [] and job_facts("I'm volunteering at the youth center.") == []
