"""Typed place values (anchormem.facts.places): the gazetteer, the home reader, and moves said without a frame."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.facts.places import ended_places, home_facts, left_places, place_kind, places_in, with_places
from anchormem.facts.rules import extract_from_text

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 6, 1, tzinfo=timezone.utc)


def _home(text: str) -> list[str]:
    return [f.value for f in home_facts(text)]


def test_known_places_and_common_words():
    assert place_kind("Raleigh") == "city"
    assert place_kind("Zurich") == "city"  # (Zürich without its diacritics)
    assert place_kind("Portugal") == "country"
    assert place_kind("Ohio") == "state"
    for word in ("Reading", "Bath", "Nice", "Mobile", "Orange", "Starbucks", "The"):
        assert place_kind(word) == ""
    assert places_in("Got handed the keys to a tiny place in Jersey City") == [(39, "Jersey City")]
    assert [n for _, n in places_in("上个月relocate到Kuala Lumpur了")] == ["Kuala Lumpur"]
    assert [n for _, n in places_in("现在在望京租了个一居")] == ["望京"]
    assert places_in("我在京东工作，周末去城市公园") == []  # (jieba ns, but a company and a common word)


@pytest.mark.parametrize("text,value", [
    ("finally escaped Cleveland!! we're in Raleigh now, the humidity is unreal", "Raleigh"),
    ("Got handed the keys to a tiny place in Jersey City yesterday", "Jersey City"),
    ("Finally signed a lease on a one-bedroom in Astoria", "Astoria"),
    ("Denver update: first snow at the new apartment and I've already locked myself out twice", "Denver"),
    ("ok officially a Mancunian now, the Manchester flat even has a balcony", "Manchester"),
    ("We're in Phoenix for now, husband's in the Air Force so who knows how long.", "Phoenix"),
    ("still living w my parents in Scarborough, savin up for a down payment", "Scarborough"),
    ("现在住Toronto了，冬天冷到怀疑人生。", "Toronto"),
    ("我现在base在Singapore，做consulting，天天飞。", "Singapore"),
    ("深圳房租顶不住了，年后跑路去了东莞，松山湖那边。", "东莞"),
    ("终于逃离回龙观了！现在在望京租了个一居，骑车十分钟到公司。", "望京"),
])
def test_a_home_said_without_a_frame(text, value):
    assert _home(text) == [value]


@pytest.mark.parametrize("text", [
    "Our office is in Austin now.",
    "I'm flying to Denver now.",
    "My friend moved to Denver, she's in Denver now.",
    "I'm at Starbucks now.",
    "I'm reading a book now, Nice weather too.",
    "Spent last week in Lisbon for a friend's wedding, back at my desk now.",
    "I might move to Berlin now.",
    "Should I move to Berlin now?",
    "I'm in Denver today for a conference.",
    "My sister lives in Boston now.",
    "i'm a line cook at a ramen place in Queens, 12 hr shifts",
    "saw a two-bed in Hoboken listed at $2,600, that's insane pricing honestly",
    "我上周去北京出差了。",
    "我表哥搬去了上海。",
    "我闺蜜搬去西安了，以后见一面好难。",
    "我roommate搬去Tokyo了，房间空出来了。",
    "大学那会儿我在兰州住过四年。",
    "现在人在深圳打工。",
])
def test_no_home_of_the_speakers(text):
    assert _home(text) == []


def test_places_said_as_left():
    assert ended_places("finally escaped Cleveland") == {"Cleveland"}
    assert ended_places("We moved out of Lagos") == {"Lagos"}
    assert ended_places("we're in Raleigh now") == set()
    assert left_places("finally escaped Cleveland!! we're in Raleigh now", "Raleigh") == {"Cleveland"}


def test_an_employer_that_is_a_place_is_no_employer():
    wrapped = with_places(extract_from_text)
    assert [(f.attribute, f.value) for f in extract_from_text("现在人在深圳打工。")] == [("employer", "深圳")]
    assert [(f.attribute, f.value) for f in wrapped("现在人在深圳打工。")] == []
    assert [(f.attribute, f.value) for f in wrapped("我在京东工作。")] == [("employer", "京东")]
    assert [(f.attribute, f.value, f.extractor) for f in wrapped("we're in Raleigh now")] == \
        [("home_city", "Raleigh", "places")]
    assert [(f.attribute, f.value, f.extractor) for f in wrapped("I live in Lisbon.")] == \
        [("home_city", "Lisbon", "rules")]  # (a rule's home stands)


def _events(m: Memory, first: str, then: str, user: str = "u") -> list:
    m.add(first, user_id=user, timestamp=T1)
    return list(m.add(then, user_id=user, timestamp=T2))


def _superseded(evs) -> list[tuple[str, str]]:
    return [(e.memory.fact.attribute, e.memory.fact.value) for e in evs if e.event == "SUPERSEDE" and e.memory.fact]


@pytest.mark.parametrize("first,then,old,new", [
    ("I live in Portland.", "Got handed the keys to a tiny place in Jersey City yesterday", "Portland", "Jersey City"),
    ("We're in Phoenix for now, husband's in the Air Force.", "PCS done. Unpacking in Okinawa, the kids love the beach.",
     "Phoenix", "Okinawa"),
    ("I live in Vancouver, Kitsilano area, near the beach.", "现在住Toronto了，冬天冷到怀疑人生。", "Vancouver", "Toronto"),
    ("我现在base在Singapore，做consulting，天天飞。", "上个月relocate到Kuala Lumpur了，cost of living低好多。",
     "Singapore", "Kuala Lumpur"),
])
def test_a_frameless_move_supersedes_the_home(mem, first, then, old, new):
    evs = _events(mem, first, then)
    assert _superseded(evs) == [("home_city", old)]
    cur = [m.fact.value for m in mem.get_all(user_id="u") if m.fact and m.fact.attribute == "home_city"]
    assert cur == [new]


def test_an_older_place_without_a_claim_is_the_home_that_ended(mem_e5):
    evs = _events(mem_e5, "yo it's Priya, night-shift nurse in Cleveland, 2 kids and a very loud parrot",
                  "finally escaped Cleveland!! we're in Raleigh now, the humidity is unreal")
    assert _superseded(evs) == [("home_city", "Cleveland")]
    cur = [m.fact.value for m in mem_e5.get_all(user_id="u") if m.fact and m.fact.attribute == "home_city"]
    assert cur == ["Raleigh"]


@pytest.mark.parametrize("first,then", [
    ("I live in Austin.", "Our office is in Denver now."),
    ("I live in Austin.", "I'm flying to Denver now."),
    ("I live in Austin.", "My friend moved to Denver, she's in Denver now."),
    ("I live in Austin.", "I'm at Starbucks now."),
    ("我住在上海。", "我闺蜜搬去西安了，以后见一面好难。"),
    ("I live in 上海静安，离公司很近。", "我roommate搬去Tokyo了，房间空出来了。"),
])
def test_non_changes_keep_the_home(mem, first, then):
    assert _superseded(_events(mem, first, then)) == []


def test_an_edited_home_keeps_its_slot(mem):
    (fact,) = [e.memory for e in mem.add("we're in Raleigh now", user_id="u") if e.memory.fact is not None]
    edited = mem.update(fact.id, text="we're in Durham now")
    assert (edited.fact.attribute, edited.fact.value) == ("home_city", "Durham")


def test_a_platform_or_a_site_visited_is_no_home():
    from anchormem.facts.places import home_facts

    assert home_facts("我在喜马拉雅上买了一个历史专辑，每天通勤的时候听。") == []  # 在…上: on a platform
    assert home_facts("带女儿去成都基地看了大熊猫") == []  # went to a site there to do something
    assert [(f.attribute, f.value) for f in home_facts("我现在在上海了")] == [("home_city", "上海")]
    assert [(f.attribute, f.value) for f in home_facts("搬到上海住了")] == [("home_city", "上海")]


# issue #22 (where16): the user's location frames as data, the value typed by the gazetteer and by the user's memory

@pytest.mark.parametrize("text,value,clause", [
    ("I'm in Denver, Colorado, and my cat hates the altitude.", "Denver", "I'm in Denver, Colorado"),
    ("we're in Lyon, the 6th to be exact", "Lyon", "we're in Lyon"),
    ("人在杭州，上班骑车二十分钟", "杭州", "人在杭州"),
    ("本人坐标南京鼓楼，做前端的", "南京", "本人坐标南京鼓楼"),
    ("坐标更新：青岛市南区。海鲜管够", "青岛", "坐标更新：青岛市南区。"),
    ("a cramped studio in Lisbon with my partner and two bikes", "Lisbon", "a cramped studio in Lisbon with my partner and two bikes"),
    ("the rent saga ended with me moving across the river to Cincinnati.", "Cincinnati",
     "the rent saga ended with me moving across the river to Cincinnati."),
    ("I'm a nurse based in Tampa, mostly nights", "Tampa", "I'm a nurse based in Tampa"),
    ("Our flat in Glasgow's West End has no heating", "Glasgow", "Our flat in Glasgow's West End has no heating"),
    ("北漂结束了，回老家西安了，离爸妈很近", "西安", "回老家西安了"),
    ("Grew up in Boise and never left, still here after forty years", "Boise", "Grew up in Boise and never left"),
])
def test_a_home_said_as_a_situation(text, value, clause):
    (f,) = home_facts(text)
    assert (f.value, f.clause) == (value, clause)


@pytest.mark.parametrize("text", [
    "I'm in Denver, seeing a client until Friday.",
    "I'm in Tokyo this week for work",
    "我在北京，出差三天",
    "我在上海看展",
    "viewing a flat in Leeds tomorrow, fingers crossed",
    "搬家终于搞定！苏州这边房租比上海便宜一半，新家很亮",  # (the home is 苏州: 上海 is what it is compared with)
])
def test_a_situation_that_is_no_home(text):
    assert "上海" not in _home(text) and [v for v in _home(text) if v not in ("苏州",)] == []


def test_the_city_said_before_a_district_stays_in_the_homes_words():
    (f,) = home_facts("北漂结束了，回老家西安了，住曲江，离爸妈很近")
    assert (f.value, f.clause) == ("曲江", "回老家西安了，住曲江")
    (f,) = [f for f in with_places(extract_from_text)("我们一家已经搬到成都了，住高新区，天天吃火锅")
            if f.attribute == "home_city"]
    assert "成都" in f.clause and "高新区" in f.clause


def test_a_name_the_user_gave_a_pet_is_no_home(mem):
    evs = _events(mem, "I live in Leeds. My dog is named Austin.", "Took a long walk to the new apartment with Austin, he loves it")
    assert _superseded(evs) == []
    cur = [m.fact.value for m in mem.get_all(user_id="u") if m.fact and m.fact.attribute == "home_city"]
    assert cur == ["Leeds"]


@pytest.mark.parametrize("text,value", [
    ("officially a Londoner now", "London"),
    ("we're Mancunians now, Ancoats to be exact", "Manchester"),
    ("I'm a Seattleite now lol", "Seattle"),
])
def test_a_demonym_said_of_the_speaker_now_is_their_home(text, value):
    assert _home(text) == [value]


@pytest.mark.parametrize("text", [
    "I'm a Chicagoan at heart",  # no now word: who they are, not where they moved
    "my sister is a Parisian now",
    "I'm a Banker now",  # a job, not the people of Bank
])
def test_a_demonym_that_is_no_home_of_the_speakers(text):
    assert _home(text) == []
