"""Issue #22 (fresh13): habits, diets and pets keyed by what they are about, so that an ending said another way or in
the other language meets them: amounts, hedges and times leave a habit's key; a reduction is a new amount of the same
habit; a breed names its kind's name slot; an opinion of a particular thing ends no habit."""

from datetime import datetime, timezone

import pytest

from anchormem import Memory, Settings
from anchormem.facts.keys import habit_amount, pet_kind, same_value, topic_key
from anchormem.facts.rules import extract_from_text

T1 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 6, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="hash", cache=False, settings=Settings(labeller="offline")) as m:
        yield m


@pytest.mark.parametrize("text,key", [
    ("smoke like half a pack a day", "smoke"),
    ("smoke maybe half a pack a day", "smoke"),
    ("drink like 3 coffees a day", "coffee"),
    ("one coffee a day", "coffee"),
    ("two cigarettes a day", "smoke"),
    ("烟第三天", "smoke"),
    ("喝咖啡三年多", "coffee"),
    ("一天两根烟", "smoke"),
    # kept as they are: no amount in them, or nothing but the time
    ("half marathon", "half marathon"),
    ("第三天", "第三天"),
    ("office coffee", "office coffee"),
    ("公司的咖啡", "公司的咖啡"),
])
def test_amounts_hedges_and_times_leave_the_key(text, key):
    assert topic_key(text) == key


def test_an_opinion_of_a_thing_at_a_particular_place_keeps_the_place():
    assert topic_key("coffee at work", opinion=True) == "coffee at work"
    assert topic_key("coffee at work") == "coffee"  # a habit at work is the habit


@pytest.mark.parametrize("text,want", [
    ("戒烟第三天了，好难受", [("does:smoke", "烟", -1)]),
    ("haven't had a drink in 3 months", [("does:alcohol", "drink", -1)]),
    ("I just don't drink anymore.", [("does:alcohol", "drink", -1)]),
    ("I drink like 3 coffees a day", [("does:coffee", "drink like 3 coffees a day", 1)]),
    ("cut down to one coffee a day", [("does:coffee", "one coffee a day", 1)]),
    ("I drink about four beers every night.", [("does:beer", "drink about four beers every night", 1)]),
    ("I go about my day", []),
    ("I've cut back to two cigarettes a day", [("does:smoke", "two cigarettes a day", 1)]),
    ("我把咖啡减到一天一杯了", [("does:coffee", "一天一杯咖啡", 1)]),
    ("烟我减到一天两根了", [("does:smoke", "一天两根烟", 1)]),
    ("最近开始吃肉了，医生说我缺铁", [("diet", "吃肉", 1)]),
    ("We have a golden retriever named Lucky.", [("dog_name", "Lucky", 1)]),
    ("我们家有一只金毛叫Lucky", [("dog_name", "Lucky", 1)]),
    ("我家的狗叫旺财", [("dog_name", "旺财", 1)]),
    ("Lucky走了，上周去世的", [("gone", "Lucky", 1)]),
    ("I don't like the coffee at work.", [("likes:coffee at work", "coffee at work", -1)]),
    ("奶茶我不喝了", [("does:milk tea", "奶茶", -1)]),
    ("游戏我已经不玩了, uninstalled it.", [("does:game", "游戏", -1)]),
    # not the speaker's, not a departure, not an ending (a time before the speaker: "not today")
    ("今天我不喝了", []),
    ("他开始吃肉了", []),
    ("吃肉了的人很多", []),
    ("Lucky走了去上学", []),
])
def test_extracted_facts(text, want):
    assert [(f.attribute, f.value, f.polarity) for f in extract_from_text(text)] == want


def test_a_new_amount_is_another_value_of_the_habit():
    assert habit_amount("drink like 3 coffees a day") == "3"
    assert habit_amount("one coffee a day") == "1"
    assert habit_amount("一天一杯咖啡") == "1"
    assert habit_amount("喝两瓶啤酒") == "2"
    assert habit_amount("drink coffee every morning") is None
    assert not same_value("does:coffee", "drink like 3 coffees a day", "one coffee a day")
    assert same_value("does:coffee", "drink coffee every morning", "one coffee a day")  # no amount said before
    assert same_value("likes:coffee", "3 coffees", "one coffee")  # a liking has no amount


def test_pet_kinds():
    assert pet_kind("Golden Retriever") == "dog"
    assert pet_kind("金毛") == "dog"
    assert pet_kind("kitten") is None  # kitten_name stays a slot of its own
    assert pet_kind("sister") is None


def _retired(mem, first: str, then: str, user: str) -> list[str]:
    mem.add(first, user_id=user, timestamp=T1)
    return [e.memory.text for e in mem.add(then, user_id=user, timestamp=T2) if e.event == "SUPERSEDE"]


@pytest.mark.parametrize("first,then,retired", [
    ("I smoke.", "戒烟第三天了，好难受", ["I smoke."]),
    ("I smoke like half a pack a day.", "戒烟第三天了，好难受", ["I smoke like half a pack a day."]),
    ("I'm vegetarian.", "最近开始吃肉了，医生说我缺铁", ["I'm vegetarian."]),
    ("I drink like 3 coffees a day", "cut down to one coffee a day", ["I drink like 3 coffees a day"]),
    ("我每天晚上都要喝两瓶啤酒", "haven't had a drink in 3 months", ["我每天晚上都要喝两瓶啤酒"]),
    ("We have a golden retriever named Lucky.", "Lucky走了，上周去世的", ["We have a golden retriever named Lucky."]),
    ("I drink coffee every morning.", "我不再喝咖啡了", ["I drink coffee every morning."]),
    ("我每天喝奶茶", "奶茶我已经不喝了", ["我每天喝奶茶"]),
])
def test_endings_and_reductions_meet_the_habit(mem, first, then, retired):
    assert _retired(mem, first, then, "u") == retired


@pytest.mark.parametrize("first,then", [
    ("I drink coffee every morning.", "I hate the office coffee."),
    ("I drink coffee every morning.", "I don't like the coffee at work."),
    ("我每天喝咖啡", "公司的咖啡太难喝了"),
    ("I drink coffee every morning.", "I don't drink anymore."),  # not drinking is alcohol, not coffee
    ("I smoke.", "My friend quit smoking."),
    ("I drink 2 coffees a day.", "I drink coffee every morning."),  # a restatement without an amount
    ("I'm vegetarian.", "我妈开始吃肉了"),
    ("I have a dog named Lucky.", "My friend's dog Lucky died."),
])
def test_non_changes_retire_nothing(mem, first, then):
    assert _retired(mem, first, then, "u") == []


def test_a_key_stored_before_concept_keys_is_still_met(tmp_path):
    """A habit stored under its old word key (``does:咖啡``, before keys were concepts) is still ended by a new
    ending, whose key is the concept (``does:coffee``): nothing is migrated, the comparison meets both."""
    path = str(tmp_path / "m.db")
    with Memory(path, embedder="hash", cache=False, settings=Settings(labeller="offline")) as m:
        m.add("我每天喝咖啡。", user_id="u", timestamp=T1)
        with m.store._tx() as c:  # as an older version wrote it
            c.execute("UPDATE memories SET slot='user|does:咖啡' WHERE slot='user|does:coffee'")
            c.execute("UPDATE claims SET slot='user|does:咖啡' WHERE slot='user|does:coffee'")
        events = m.add("I quit coffee.", user_id="u", timestamp=T2)
        assert [(e.event, e.memory.text) for e in events if e.event == "SUPERSEDE"] == [("SUPERSEDE", "我每天喝咖啡。")]
