"""The quantity reader (facts/quantities.py): amounts typed by the attribute they measure, ages by the person named,
counts by their noun or the one current count; a pet that is gone leaves the names said to be left; an ending names
its habit in other words or the other language (topic_synonyms)."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.facts.keys import topic_root, translated_topics
from anchormem.facts.quantities import quantity_facts
from anchormem.facts.stance import scene
from fact_helpers import add_events

T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 4, 1, tzinfo=timezone.utc)


def _read(text):
    return [(f.attribute, f.value) for f in quantity_facts(text)]


def _changes(evs):
    return [(e, a, v) for e, _, a, v in evs if a is not None and e in ("ADD", "SUPERSEDE")]


def test_an_amount_takes_the_attribute_named_near_it():
    assert _read("I make about sixty-five thousand a year at the library.") == [
        ("salary", "sixty-five thousand a year")]
    assert _read("My raise finally went through, seventy-two thousand now.") == [("salary", "seventy-two thousand")]
    assert _read("涨薪了！现在1.5w，请全组喝了奶茶") == [("salary", "1.5w")]
    assert _read("续租的时候房东涨到四千二了，心在滴血") == [("rent", "四千二")]
    assert _read("通勤单程四十分钟，地铁倒一趟") == [("commute", "四十分钟")]
    assert _read("Landlord bumped it to 1,450. For a place with a broken dishwasher.") == []  # no word names it
    assert _read("Mid-year review went great, they bumped my base to 75k.") == [("salary", "75k")]


def test_a_goal_a_difference_or_the_past_is_no_value_now():
    assert _read("今早称了一下70.5kg，目标减到65") == [("weight", "70.5kg")]
    assert _read("Starting weight 212 lbs, goal is 180 by summer") == [("weight", "212 lbs")]
    assert _read("On keto since January, down 9 pounds so far.") == []
    assert _read("体重掉到62了！！！比目标还少三公斤") == [("weight", "62")]


def test_someone_else_a_question_a_plan_or_a_verb_states_nothing():
    assert _read("My friend's rent went up to 2000.") == []
    assert _read("他的工资涨到两万了") == []
    assert _read("My brother weighs 95 kg.") == []
    assert _read("我老公月薪两万。") == []
    assert _read("Should I ask for a raise to 80k?") == []
    assert _read("I might move somewhere with rent under 1500.") == []
    assert _read("I pay 120 yuan a month for my gym.") == []  # "pay" said as a verb is no salary


def test_a_count_keeps_its_own_words_apart_from_the_names():
    fs = quantity_facts("I keep three chickens: Nugget, Pepper and Dolly.")
    assert [(f.attribute, f.value, f.clause) for f in fs] == [("count:chicken", "three chickens", "I keep three chickens")]
    assert _read("我现在有三只猫了") == [("count:cat", "三只猫")]


def test_a_salary_said_with_a_verb_changes_with_a_raise(mem_e5):
    add_events(mem_e5, "I make about sixty-five thousand a year at the library.", T1)
    evs = add_events(mem_e5, "My raise finally went through, seventy-two thousand now.", T2)
    assert _changes(evs) == [("ADD", "salary", "seventy-two thousand"),
                             ("SUPERSEDE", "salary", "sixty-five thousand a year")]


def test_an_age_follows_the_name_of_the_person(mem_e5):
    add_events(mem_e5, "My son Theo is 6 and loves trains.", T1)
    evs = add_events(mem_e5, "Theo turned seven on Sunday, we had a train cake.", T2)
    assert _changes(evs) == [("ADD", "son_age", "seven"), ("SUPERSEDE", "son_age", "6")]


def test_a_count_said_without_its_noun_takes_the_one_current_count(mem_e5):
    add_events(mem_e5, "我在窗台上养了六盆绿植，最喜欢那盆叫阿绿。", T1)
    evs = add_events(mem_e5, "冬天冻死了两盆，剩四盆了，阿绿还好。", T2)
    assert _changes(evs) == [("ADD", "count:plant", "四盆"), ("SUPERSEDE", "count:plant", "六盆绿植")]


def test_non_changes_retire_nothing(mem_e5):
    for user, (old, new) in enumerate([("I weigh 80 kg.", "My brother weighs 95 kg."),
                                       ("My salary is 60k.", "Should I ask for 70k?"),
                                       ("我月薪一万二。", "我老公月薪两万。"),
                                       ("I have two dogs.", "My sister has three dogs now."),
                                       ("My commute is 40 minutes.", "If we moved, my commute would be 15 minutes.")]):
        add_events(mem_e5, old, T1, user=f"u{user}")
        evs = add_events(mem_e5, new, T2, user=f"u{user}")
        assert [e for e in evs if e[0] == "SUPERSEDE"] == [], new


def test_a_pet_gone_leaves_the_names_said_to_be_left(mem_e5):
    add_events(mem_e5, "We have two cats, Mochi and Dumpling.", T1)
    evs = add_events(mem_e5, "Mochi passed away last week. It's just Dumpling and me now.", T2)
    # the names left replace the list, and the count said with the old list ("two cats") is now as many as the
    # members said to remain (facts.counts: members_left)
    assert _changes(evs) == [("ADD", "count:cat", "one cat"), ("SUPERSEDE", "count:cat", "two cats"),
                             ("ADD", "cat_names", "Dumpling"), ("SUPERSEDE", "cat_names", "Mochi and Dumpling")]
    add_events(mem_e5, "We have two dogs, Rex and Bella.", T1, user="v")
    evs = add_events(mem_e5, "Rex passed away last night.", T2, user="v")  # Bella unsaid: the list stays as it is
    assert [e for e in evs if e[0] == "SUPERSEDE"] == []


def test_one_topic_in_other_words_or_the_other_language():
    assert topic_root("cigarette") == topic_root("烟") == "smoke"
    assert topic_root("啤酒") == topic_root("sober") == "alcohol"
    assert {"smoke", "烟", "抽烟"} <= set(translated_topics("cigarette"))
    assert "奶茶" in translated_topics("boba")
    assert scene("游戏我已经不玩了") == ""  # 不玩了 ends a habit; it is no trip (玩了)
    assert scene("上周去杭州玩了") == "visit"


def test_an_ending_names_its_habit_in_other_words(mem_e5):
    add_events(mem_e5, "I smoke about a pack a day, I know.", T1)
    evs = add_events(mem_e5, "Day 40 without a cigarette!", T2)
    assert [e[1] for e in evs if e[0] == "SUPERSEDE"] == ["I smoke about a pack a day"]
    add_events(mem_e5, "我每天喝奶茶，一天至少一杯。", T1, user="v")
    evs = add_events(mem_e5, "Quit boba completely, 两个月没喝了。", T2, user="v")
    assert [e[1] for e in evs if e[0] == "SUPERSEDE"] == ["我每天喝奶茶"]


def test_the_speakers_own_age():
    assert _read("I'm 34 and I work as a nurse.") == [("age", "34")]
    assert _read("我今年34岁。") == [("age", "34岁")]
    assert _read("I just turned 35.") == [("age", "35")]
    assert _read("I'm 25 percent done") == []
    assert _read("他今年30岁") == []
    assert _read("我儿子今年5岁") == [("son_age", "5岁")]  # someone else's age is that person's own slot


def test_a_count_said_in_an_event_or_of_someone_else_is_none():
    assert _read("三月份我借了一辆新自行车。") == []  # borrowed a bike: no count of the speaker's (nor a car)
    assert _read("去年夏天我朋友买了一辆新自行车，感觉很值。") == []
    assert _read("I bought two books yesterday.") == []
    assert _read("Tom paid for the car insurance this morning and it cost 450 euros.") == []
    assert _read("The proposed budget for this initiative is $1,150,000.") == []
    assert _read("It's about a thirty year old woman on a journey of self-discovery.") == []
    assert _read("Backyard flock is six hens - Dolly, Reba and Patsy.") == [("count:chicken", "six hens")]


def test_a_turn_without_a_number_is_not_read():
    assert quantity_facts("Hey Mel! Good to see you! How have you been?") == []


def test_the_speakers_age_changes_when_restated_older(mem_e5):
    add_events(mem_e5, "I'm 34 and I work as a nurse.", T1)
    assert [e for e in add_events(mem_e5, "I'm 34.", T2) if e[0] == "SUPERSEDE"] == []  # a restatement
    evs = add_events(mem_e5, "I just turned 35!", datetime(2024, 9, 1, tzinfo=timezone.utc))
    assert _changes(evs) == [("ADD", "age", "35"), ("SUPERSEDE", "age", "34")]


def test_a_slot_noun_coordinated_with_the_speakers_verb_is_a_verb():
    """"… and pay $1,800" shares the speaker's subject: what they pay, not what they are paid (frames.json
    verb_coordinators); "… and pay is $5,000" keeps the noun."""
    from anchormem.facts.frames import frame_facts

    assert _read("I rent a one-bedroom in Austin and pay $1,800 a month.") == [("rent", "$1,800 a month")]
    assert _read("I make $5,000 a month and pay $1,800 in rent.") == [("salary", "$5,000 a month"),
                                                                     ("rent", "$1,800")]
    assert frame_facts("I rent a one-bedroom in Austin and pay $1,800 a month.")[0] == []
    assert frame_facts("I got the job and pay is $5,000 a month.")[0] == [("salary", "$5,000 a month", 1)]
