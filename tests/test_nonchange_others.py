"""Other people's news and remarks about a place in general never retire the user's facts nor answer for them
(issue #22, fresh22 D1 / D2): "Rent in London is like 2000 pounds these days", "我 boyfriend 换工作了, now at Canva",
"Rent 在 Sydney 越来越贵了, 朋友那边每周要 900" retire nothing; ``ask`` about the asker's own slot cites neither a
friend's statement (朋友小李现在在深圳工作) nor a past or imagined scene (小时候我住在福州, "I used to dream of living in
Paris as a kid") beside the asker's own; a real change of the user's still retires the old value."""

import pytest

from anchormem.answering.subject_gate import others_only, scene_only
from anchormem.facts.rules import _speaker_subject
from anchormem.facts.stance import opens_with_person, others_value, remark_of_place

T1, T2 = "2025-01-10T09:00:00Z", "2025-03-10T09:00:00Z"


@pytest.mark.parametrize("clause, general", [
    ("Rent in London is like 2000 pounds these days.", True),
    ("Rent 在 Sydney 越来越贵了", True),
    ("Sydney的房租越来越贵了。", True),
    ("北京的房租太贵了", True),
    ("London rents are mad", True),
    ("My rent in London is 2000", False),  # the speaker's own rent
    ("我的房租每周 650 澳元。", False),
    ("房租涨到三千五了。", False),  # no place: a Chinese clause without a subject is the speaker's
    ("I moved to London, my rent is 2000 pounds now.", False),
    ("I pay rent in cash", False),
])
def test_a_slot_noun_qualified_by_a_place_is_a_remark_about_the_place(clause, general):
    assert remark_of_place(clause) is general


@pytest.mark.parametrize("sentence, value, why", [
    ("Rent in London is like 2000 pounds these days.", "2000 pounds", "place:London"),
    ("Rent 在 Sydney 越来越贵了, 朋友那边每周要 900。", "900", "person"),  # the friend's, the remark's example
    ("Landlord bumped it to 1,450. For a place with a broken dishwasher.", "1,450", ""),  # acts on the speaker's
    ("朋友那边每周要 900。", "900", ""),  # a person not possessed, no remark: left to the readers
    ("我 friend 那边每周要 900。", "900", "person"),
    ("my 男朋友 moved to Canva.", "Canva", "person"),
    ("Landlord bumped the rent to $2,050 starting March, ugh.", "$2,050", ""),  # names the rent it changed
    ("深圳房租顶不住了，年后跑路去了东莞，松山湖那边。", "东莞", ""),  # the move is the speaker's
    ("Rents in Leeds are mad, mine went up to 900.", "900", ""),
    ("My wife and I moved to Leeds.", "Leeds", ""),
    ("我的房租每周 650 澳元。", "650", ""),
])
def test_a_value_said_of_a_place_or_a_person_is_not_the_speakers(sentence, value, why):
    assert others_value(sentence, value) == why


@pytest.mark.parametrize("clause, person", [
    ("我 boyfriend 换工作了", "boyfriend"), ("my 男朋友 moved", "男朋友"), ("朋友小李现在在深圳工作。", "朋友"),
    ("My wife and I moved.", ""), ("我老婆和我搬到了上海", ""), ("I moved to Leeds.", ""),
])
def test_opens_with_person_in_either_script(clause, person):
    assert opens_with_person(clause) == person


@pytest.mark.parametrize("clause, who", [
    ("我 boyfriend 换工作了", "other"),
    ("my 男朋友 moved to Canva.", "other"),
    ("我 friend 那边每周要 900。", "other"),
    ("My boyfriend changed jobs", "other"),
    ("我男朋友换工作了", "other"),
    ("我换工作了", "user"),
    ("I moved to Canva.", "user"),
])
def test_a_person_of_the_speakers_is_read_in_either_script(clause, who):
    assert _speaker_subject(clause) == who


class _M:
    def __init__(self, text):
        self.text, self.fact, self.claims = text, None, []


@pytest.mark.parametrize("text, question, other", [
    ("朋友小李现在在深圳工作。", "我在哪里工作？", True),
    ("我 boyfriend 换工作了, now at Canva。", "Where do I work?", True),
    ("my 男朋友 moved to Canva.", "Where do I work?", True),
    ("我 boyfriend 换工作了, now at Canva。", "Where does my boyfriend work?", False),  # the question names him
    ("我在 Atlassian 做 engineer。", "Where do I work?", False),
    ("My wife and I moved to Leeds.", "Where do I live?", False),
])
def test_someone_elses_statement_in_either_script_is_not_the_askers(text, question, other):
    assert others_only(_M(text), question) is other


@pytest.mark.parametrize("text, only", [
    ("小时候我住在福州。", True),
    ("I used to dream of living in Paris as a kid.", True),
    ("Rent 在 Sydney 越来越贵了, 朋友那边每周要 900。", True),  # a place, then a friend: nothing of the speaker's
    ("深圳房租顶不住了，年后跑路去了东莞，松山湖那边。", False),  # the move after the remark is the speaker's
    ("Landlord bumped the rent to $2,050 starting March, ugh.", False),
    ("我住在厦门。", False),
    ("I live in Leeds. Back in college I lived in Ithaca.", False),  # one present statement is enough
])
def test_scene_only(text, only):
    assert scene_only(text) is only


def _run(mem, first, second):
    mem.add(first, user_id="u", timestamp=T1)
    events = mem.add(second, user_id="u", timestamp=T2)
    return sorted(e.memory.text for e in events if e.event == "SUPERSEDE")


def _cited(mem, question):
    ans = mem.ask(question, user_id="u")
    return [] if ans.abstained else [c.text for c in ans.citations]


def test_a_remark_about_london_rents_retires_nothing(mem_e5):
    assert _run(mem_e5, "I live in Leeds. My rent is 1100 pounds.",
                "Rent in London is like 2000 pounds these days.") == []
    assert _cited(mem_e5, "Where do I live?") == ["I live in Leeds. My rent is 1100 pounds."]
    assert _cited(mem_e5, "How much is my rent?") == ["I live in Leeds. My rent is 1100 pounds."]


def test_a_mixed_remark_about_sydney_rents_and_a_friends_rent_retire_nothing(mem_e5):
    assert _run(mem_e5, "我的房租每周 650 澳元。", "Rent 在 Sydney 越来越贵了, 朋友那边每周要 900。") == []
    assert _cited(mem_e5, "How much is my rent?") == ["我的房租每周 650 澳元。"]
    assert _cited(mem_e5, "我的房租多少？") == ["我的房租每周 650 澳元。"]


def test_a_friends_rent_said_in_mixed_words_retires_nothing(mem_e5):
    assert _run(mem_e5, "我的房租每周 650 澳元。", "我 friend 那边每周要 900。") == []


def test_a_boyfriends_new_job_in_mixed_words_retires_nothing(mem_e5):
    assert _run(mem_e5, "我在 Atlassian 做 engineer。", "我 boyfriend 换工作了, now at Canva。") == []
    assert _cited(mem_e5, "Where do I work?") == ["我在 Atlassian 做 engineer。"]
    assert _cited(mem_e5, "我在哪里工作？") == ["我在 Atlassian 做 engineer。"]


def test_a_boyfriend_said_in_chinese_inside_english_retires_nothing(mem_e5):
    assert _run(mem_e5, "I work at Atlassian as an engineer.", "my 男朋友 moved to Canva.") == []


def test_a_friends_job_is_not_the_askers(mem_e5):
    assert _run(mem_e5, "我在一家外贸公司做会计。", "朋友小李现在在深圳工作。") == []
    assert _cited(mem_e5, "我在哪里工作？") == ["我在一家外贸公司做会计。"]
    assert _cited(mem_e5, "What's my job?") == ["我在一家外贸公司做会计。"]


@pytest.mark.parametrize("first, second, question", [
    ("我住在厦门。", "小时候我住在福州。", "我住在哪里？"),
    ("我住在厦门。", "小时候我住在福州。", "Where do I live?"),
    ("I live in Leeds.", "I used to dream of living in Paris as a kid.", "Where do I live?"),
])
def test_a_past_or_imagined_home_is_not_the_current_answer(mem_e5, first, second, question):
    assert _run(mem_e5, first, second) == []
    assert _cited(mem_e5, question) == [first]


def test_a_real_move_and_rent_change_still_retire(mem_e5):
    assert _run(mem_e5, "I live in Leeds. My rent is 1100 pounds.",
                "I moved to London, my rent is 2000 pounds now.") == [
        "I live in Leeds.", "I live in Leeds. My rent is 1100 pounds.", "My rent is 1100 pounds."]
    assert _cited(mem_e5, "How much is my rent?") == ["I moved to London, my rent is 2000 pounds now."]


def test_a_real_job_change_in_mixed_words_still_retires(mem_e5):
    assert _run(mem_e5, "我在 Atlassian 做 engineer。", "我换工作了, now at Canva。") == ["我在 Atlassian"]
    assert _cited(mem_e5, "Where do I work?")[0] == "我换工作了, now at Canva。"


def test_a_real_rent_change_in_mixed_words_still_retires(mem_e5):
    assert _run(mem_e5, "我的房租每周 650 澳元。", "我的 rent 涨到每周 900 了。") == ["我的房租每周 650 澳元。"]
    assert _cited(mem_e5, "How much is my rent?") == ["我的 rent 涨到每周 900 了。"]


def test_a_remark_about_where_the_user_lives_is_their_own(mem_e5):
    # the speaker lives in 深圳: 深圳房租 is their rent; elsewhere (London for a Leeds tenant) it is the place's
    assert _run(mem_e5, "我住在深圳，房租每月四千。", "深圳房租涨到五千了。") == ["房租每月四千。"]
    assert _cited(mem_e5, "我的房租多少？")[0] == "深圳房租涨到五千了。"


def test_a_remark_about_another_city_is_not_the_users_rent(mem_e5):
    assert _run(mem_e5, "我住在广州，房租每月四千。", "深圳房租涨到五千了。") == []
