"""The aspect of a clause (anchormem.facts.aspect) and endings resolved by meaning against the user's own claims
(anchormem.facts.relative): an ending that names nothing the user said still ends the state it is about."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.facts.aspect import aspect, episodic, inchoative, terminative, without_markers
from anchormem.facts.grounding import check_support
from anchormem.facts.model import Fact

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


def _add(m, text, when, user="u"):
    return list(m.add(text, user_id=user, timestamp=when))


def _sup(evs):
    return [e.memory.text for e in evs if e.event == "SUPERSEDE"]


def test_terminative_markers_are_grammar_words():
    assert terminative("烟终于戒了！") == "戒了"
    assert terminative("not vegetarian anymore") == "not vegetarian anymore"
    assert terminative("不开出租了，改跑滴滴了") == "不开出租了"
    assert terminative("day 30 without a cigarette") == "without"
    assert terminative("我已经不是黄金会员了。") == "不是黄金会员了"  # 不(再)是…了: no longer being something
    assert terminative("他不是我男朋友了") == "不是我男朋友了"
    assert terminative("我不是学生") == "" and terminative("这不是问题") == ""  # a plain negation ends nothing
    assert terminative("胃不行了") == ""  # (not_terminative: a state said with 不…了, nothing ended)
    assert terminative("the night shift is over") == ""  # a bare "over" says an event ended, not a state
    assert terminative("I live in Leeds") == ""


def test_inchoative_episodic_and_what_ended():
    assert inchoative("we're in Raleigh now") == "now" and inchoative("现在住Toronto了") == "现在"
    assert aspect("不开出租了，改跑滴滴了") == "terminative" and aspect("I switched to tea") == "inchoative"
    assert aspect("I live in Leeds") == ""
    assert episodic("no tennis this week") and episodic("今天下雨，不跑了") and not episodic("I quit smoking")
    assert without_markers("not vegetarian anymore") == "vegetarian"
    assert without_markers("烟终于戒了") == "烟终于"
    assert without_markers("day 30 without a cigarette") == "day 30 a cigarette"


def test_grounding_reads_a_terminative_clause_as_an_ending():
    f = Fact(entity="user", attribute="does:bouldering", value="bouldering", polarity=-1)
    assert check_support(f, "I'm done with bouldering for good.").ok
    g = Fact(entity="user", attribute="does:bouldering", value="bouldering", polarity=-1)
    assert not check_support(g, "I love bouldering.").ok


def test_an_ending_resolved_by_meaning(mem_e5):
    _add(mem_e5, "我每天抽一包烟", T1)
    evs = _add(mem_e5, "烟终于戒了！", T2)
    assert _sup(evs) == ["我每天抽一包烟"]  # no word shared with what it ends (烟 is in 抽一包烟 only as the object)
    ans = mem_e5.ask("我抽烟吗？", user_id="u")
    assert ans.citations[0].text == "烟终于戒了！"


def test_non_endings_retire_nothing(mem_e5):
    cases = [("I work as a nurse at Mercy.", "the night shift is over, finally home"),
             ("我每天跑步。", "今天下雨，不跑了"),
             ("I play tennis on Sundays.", "no tennis this week, my wrist hurts"),
             ("I drink coffee every morning.", "I don't like the office coffee"),
             ("I smoke half a pack a day.", "my brother quit smoking last month"),
             # an ending of something never said ends nothing near it (the calibration's end_meaning)
             ("I drink coffee every morning.", "I'm not a morning person anymore, lol"),
             ("我每天喝咖啡。", "我不再熬夜了"),
             ("我在北京工作，住在朝阳。", "我不吃辣了"),
             ("I live in Austin and work at Dell.", "I quit sugar last month")]
    for n, (said, later) in enumerate(cases):
        _add(mem_e5, said, T1, user=f"n{n}")
        assert _sup(_add(mem_e5, later, T2, user=f"n{n}")) == [], later


def test_a_first_home_said_as_a_move_replaces_the_older_words(mem_e5):
    _add(mem_e5, "我叫小林，在成都做平面设计，养了只柯基。", T1)
    _add(mem_e5, "柯基最近老拆家，沙发都被啃了一个角，头大。", T1)
    evs = _add(mem_e5, "上个月搬到杭州了，还是做设计，换个城市接着卷。", T2)
    sup = [(e.memory.text, e.memory.fact.attribute) for e in evs if e.event == "SUPERSEDE" and e.memory.fact]
    assert sup == [("在成都做平面设计", "home_city")]  # the piece: the name and the corgi stay current
    assert mem_e5.ask("我住在哪里？", user_id="u").citations[0].text.startswith("上个月搬到杭州了")


def test_someone_elses_or_a_past_place_is_not_replaced(mem_e5):
    cases = [("My wife works at Apple in Cupertino.", "I just joined Google as a PM."),
             ("I grew up in Ohio.", "We moved to Denver now.")]
    for n, (said, later) in enumerate(cases):
        _add(mem_e5, said, T1, user=f"o{n}")
        assert _sup(_add(mem_e5, later, T2, user=f"o{n}")) == [], later
    _add(mem_e5, "I work at Apple in Cupertino.", T1, user="mine")
    assert _sup(_add(mem_e5, "I just joined Google as a PM.", T2, user="mine")) == ["I work at Apple in Cupertino."]


def test_a_job_said_to_hold_now_replaces_the_speakers_job(mem_e5):
    _add(mem_e5, "I'm a barista at Blue Bottle.", T1)
    evs = _add(mem_e5, "Junior UX designer at Shopify as of Monday.", T2)  # "as of": an inchoative marker
    sup = [(e.memory.text, e.memory.fact.attribute) for e in evs if e.event == "SUPERSEDE" and e.memory.fact]
    assert sorted(sup) == [("I'm a barista", "occupation"), ("I'm a barista at Blue Bottle.", "employer")]
    _add(mem_e5, "I'm a nurse at Mercy.", T1, user="sis")
    assert _sup(_add(mem_e5, "My sister is a doctor now", T2, user="sis")) == []


def test_an_ending_naming_a_name_the_user_said(mem_e5):
    _add(mem_e5, "I pay for Spotify Premium, Disney+ and the NYT app.", T1)
    evs = _add(mem_e5, "Axed Disney+, nobody in this house watched it.", T2)
    assert any("Disney+" in t for t in _sup(evs))


def test_no_longer_being_a_member_ends_the_membership(mem_e5):
    _add(mem_e5, "我是黄金会员。", T1)
    assert _sup(_add(mem_e5, "我已经不是黄金会员了。", T2)) == ["我是黄金会员。"]
    assert [c.text for c in mem_e5.ask("我还是黄金会员吗？", user_id="u").citations] == ["我已经不是黄金会员了。"]
