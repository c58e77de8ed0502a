"""A name changes only the name it is about (issue #22): a claim holding someone's or something's name (a pet's, a
boyfriend's) is changed only by words naming its holder, saying a name as a name or repeating the old name; a place
is no pet's name, an ending's leftover words are no boyfriend's name, and a word an ending names is no topic of a new
name said beside it. English, Chinese and mixed sentences of our own (not from the benchmark stories)."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem import Memory
from anchormem.facts.name_claims import about_holder, ending_word, holder_of, holder_words
from fact_helpers import add_events


T1 = datetime(2024, 1, 1, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 1, tzinfo=timezone.utc)


_events = add_events


def _retired(events):
    return [(attr, value) for ev, _, attr, value in events if ev == "SUPERSEDE"]


def test_holder_of_name_attributes():
    assert holder_of("cat_name") == "cat"
    assert holder_of("boyfriend_name") == "boyfriend"
    assert holder_of("older_brother_name") == "older brother"
    assert holder_of("name") == ""
    assert holder_of("home_city") is None
    assert holder_of("name:c2fbef7d5ace.0") is None
    assert holder_of("habit:abc.0") is None


def test_holder_words_in_both_languages():
    cat = holder_words("cat")
    assert {"cat", "kitty", "猫", "猫咪"} <= set(cat)
    assert "dog" not in cat and "狗" not in cat
    bf = holder_words("boyfriend")
    assert {"boyfriend", "男朋友", "男友"} <= set(bf)
    assert "girlfriend" not in bf
    assert {"parrot", "bird", "鸟"} <= set(holder_words("parrot"))
    assert holder_words("") == ()


def test_about_holder():
    assert not about_holder("I moved to Cranston last month.", "cat_name", "Mochi")
    assert not about_holder("烟终于戒了！", "boyfriend_name", "小王")
    assert not about_holder("搬到杭州了", "cat_name", "咪咪")
    assert about_holder("We renamed the cat, she's Momo now.", "cat_name", "Mochi")
    assert about_holder("猫改名了，现在叫球球。", "cat_name", "咪咪")
    assert about_holder("He goes by Buster now.", "dog_name", "Rex")
    assert about_holder("Mochi is Momo now, the kids insisted.", "cat_name", "Mochi")
    assert about_holder("跟男朋友分手了", "boyfriend_name", "小王")
    assert about_holder("moved to Leeds", "home_city", "York")  # no name claim: not this module's concern


def test_ending_word():
    text = "网易云会员退订了，听歌现在用QQ音乐免费的。"
    assert ending_word(text, "网易云会员退订了", "会员", "QQ")
    assert not ending_word(text, "网易云会员退订了", "", "QQ")
    assert not ending_word(text, text, "会员", "QQ")  # the whole run is the ending piece
    assert not ending_word("cancelled my gym membership, now on a ClassPass membership", "cancelled my gym membership",
                           "membership", "ClassPass")  # the shared word is said beside the new name too


def test_place_is_no_pets_name_en():
    m = Memory(":memory:")
    _events(m, "My cat's name is Mochi. Home is a flat in Providence.", T1)
    ev = _events(m, "I moved to Cranston last month.", T2)
    assert ("cat_name", "Cranston") not in [(a, v) for _, _, a, v in ev]
    assert _retired(ev) == [("home_city", "Providence")]


def test_rename_with_holder_still_changes():
    m = Memory(":memory:")
    _events(m, "My dog is named Rex.", T1)
    ev = _events(m, "We renamed the dog, he's Buster now.", T2)
    assert _retired(ev) == [("dog_name", "Rex")]


def test_ending_leftover_is_no_boyfriends_name_zh():
    m = Memory(":memory:")
    first = _events(m, "我男朋友叫小王，他一直劝我少抽点烟。", T1)
    assert ("boyfriend_name", "小王") in [(a, v) for _, _, a, v in first]
    ev = _events(m, "烟终于戒了！", T2)
    assert not any(a == "boyfriend_name" for _, _, a, _ in ev)
    assert _retired(ev) == []


def test_ending_word_is_no_topic_of_a_new_name_zh():
    m = Memory(":memory:")
    _events(m, "订了腾讯视频、网易云黑胶和B站大会员。", T1)
    ev = _events(m, "网易云会员退订了，听歌现在用QQ音乐免费的。", T2)
    retired = _retired(ev)
    assert all("腾讯" not in v for _, v in retired)
    assert [v for _, v in retired] == ["网易云黑胶"]


def test_old_value_named_where_it_ended_is_a_change_zh():
    m = Memory(":memory:")
    _events(m, "房子嘛，我在深圳南山租的。", T1)
    ev = _events(m, "深圳那边的房子退了，我已经回长沙了。", T2)
    assert _retired(ev) == [("home_city", "深圳")]


def test_mixed_move_keeps_pet_name():
    m = Memory(":memory:")
    _events(m, "我家的狗叫Lucky，我住在Toronto。", T1)
    ev = _events(m, "上个月搬到Vancouver了。", T2)
    assert not any(a == "dog_name" for a, _ in _retired(ev))
    assert not any(a == "dog_name" and v == "Vancouver" for _, _, a, v in ev)


def test_pronoun_may_stand_for_the_holder_unless_the_value_is_a_place():
    assert about_holder("We changed it, she's Luna now.", "kitten_name", "Mochi")
    assert not about_holder("She moved to Boston last month.", "kitten_name", "Mochi", placed=True)
    assert about_holder("他现在是老李了", "boyfriend_name", "小王")
    assert not about_holder("She's Anna now.", "boyfriend_name", "Tom")  # "she" stands for no boyfriend
    assert not about_holder("It's Luna now.", "name", "Priya")  # the speaker's own name: no pronoun stands for it


def test_rename_said_with_a_pronoun_changes_en():
    m = Memory(":memory:")
    _events(m, "My kitten's name is Mochi.", T1)
    ev = _events(m, "We changed it, she's Luna now.", T2)
    assert _retired(ev) == [("kitten_name", "Mochi")]
