"""One relation said several ways is one person: "mom", "mother", 妈妈, 母亲 are one ``mother`` slot.

Facts: a later statement about a relation in other words (English, Chinese or both) supersedes the earlier one
(``valid_to`` set, ``superseded_by`` the new memory) and is the one current fact of the slot. Answers: ``ask`` about
one word of a relation answers from a memory that used another; another relation abstains.

Relations Chinese splits are kept apart (:data:`anchormem.facts.keys.KIN_NARROWER`): 哥哥 (older) and 弟弟 (younger)
are no "brother" slot, nor 奶奶 (paternal) and 外婆 (maternal) one grandmother. A question about the broader English
word is answered by a memory of the narrower one ("What does my brother do?" by 我哥哥是一名医生。: 哥哥 is a brother);
never the reverse (我哥哥做什么工作？ is not answered by "My brother is a doctor.": he may be the younger one).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem import Memory
from anchormem.answering.persons import kin_base, kin_words, stated_text
from anchormem.facts.keys import KIN_CANONICAL, kin_covers, person_key, person_slot
from anchormem.facts.model import normalize_attribute
from anchormem.facts import extract_facts_rules

T1 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 6, 1, 9, 0, tzinfo=timezone.utc)

# (earlier statement, later one in other words, the slot both share)
SAME_PERSON = [
    ("My mom lives in Paris.", "My mother moved to Berlin.", "mother_home_city"),
    ("我妈妈住在上海", "我母亲搬到北京了", "mother_home_city"),
    ("My mom lives in Paris.", "我妈妈搬到北京了", "mother_home_city"),
    ("我老妈住在杭州。", "My mum moved to Berlin.", "mother_home_city"),
    ("我老婆住在杭州。", "My wife moved to Berlin.", "wife_home_city"),
    ("My dad is a doctor.", "我爸爸是一名律师。", "father_occupation"),
    ("My coworker is Tom.", "My colleague is Sam.", "colleague_name"),
    ("我老公是一名医生。", "My husband is a teacher now.", "husband_occupation"),
]


@pytest.mark.parametrize("before,after,attribute", SAME_PERSON, ids=[f"{c[0]} / {c[1]}" for c in SAME_PERSON])
def test_a_relation_in_other_words_supersedes(before, after, attribute):
    with Memory(":memory:", cache=False) as m:
        first = m.add(before, user_id="u", timestamp=T1)
        assert [(e.event, e.memory.kind, e.memory.fact.attribute) for e in first] == [("ADD", "fact", attribute)]
        events = m.add(after, user_id="u", timestamp=T2)
        assert [e.event for e in events] == ["ADD", "SUPERSEDE"], [(e.event, e.memory.text) for e in events]
        new, old = events[0].memory, events[1].memory
        assert (new.text, new.fact.attribute) == (after, attribute)
        assert (old.id, old.valid_to, old.superseded_by) == (first[0].memory.id, T2, new.id)
        live = [x for x in m.get_all(user_id="u") if x.kind == "fact" and x.fact.attribute == attribute]
        assert [x.id for x in live] == [new.id]
        assert [x.text for x in m.get_all(user_id="u")] == [after]


def test_after_the_move_ask_quotes_the_new_home_whichever_word_asks():
    with Memory(":memory:", cache=False) as m:
        m.add("My mom lives in Paris.", user_id="u", timestamp=T1)
        new = m.add("My mother moved to Berlin.", user_id="u", timestamp=T2)[0].memory
        for q in ("Where does my mom live?", "Where does my mother live?", "我妈妈住在哪里？"):
            ans = m.ask(q, user_id="u")
            assert [c.id for c in ans.citations] == [new.id], q


# (earlier, later): relations of their own; neither closes the other
DISTINCT = [
    ("My brother lives in Paris.", "我哥哥搬到北京了"),
    ("我哥哥住在上海", "我弟弟住在北京"),
    ("My sister lives in Paris.", "我姐姐住在北京"),
    ("我奶奶住在上海", "我外婆住在北京"),
    ("My mom lives in Paris.", "My dad moved to Berlin."),
    ("我妈妈住在上海", "我舅妈住在北京"),  # an aunt, no 妈
]


@pytest.mark.parametrize("before,after", DISTINCT, ids=[f"{c[0]} / {c[1]}" for c in DISTINCT])
def test_other_relations_keep_their_own_slots(before, after):
    with Memory(":memory:", cache=False) as m:
        first = m.add(before, user_id="u", timestamp=T1)
        events = m.add(after, user_id="u", timestamp=T2)
        assert [e.event for e in events] == ["ADD"]
        assert m.get(first[0].memory.id).valid_to is None
        assert sorted(x.text for x in m.get_all(user_id="u")) == sorted([before, after])


@pytest.mark.parametrize("question,answers", [
    ("Where does my mother live?", True),
    ("Where does my mom live?", True),
    ("Where does my mum live?", True),
    ("我妈妈住在哪里？", True),
    ("我母亲住在哪里？", True),
    ("我老妈住在哪儿？", True),
    ("Where does my father live?", False),
    ("我爸爸住在哪里？", False),
    ("Where does my wife live?", False),
    ("Where do I live?", False),
])
def test_ask_about_one_word_answers_from_a_memory_in_another(question, answers):
    with Memory(":memory:", cache=False) as m:
        m.add("My mom lives in Paris.", user_id="u", timestamp=T1)
        ans = m.ask(question, user_id="u")
        assert ans.abstained is not answers
        assert [c.text for c in ans.citations] == (["My mom lives in Paris."] if answers else [])


@pytest.mark.parametrize("said,question,answers", [
    ("我哥哥是一名医生。", "What does my brother do?", True),  # 哥哥 is a brother
    ("我哥哥是一名医生。", "我哥哥做什么工作？", True),
    ("我哥哥是一名医生。", "我弟弟做什么工作？", False),
    ("我哥哥是一名医生。", "What's my job?", False),
    ("My brother is a doctor.", "What does my brother do?", True),
    ("My brother is a doctor.", "我哥哥做什么工作？", False),  # "brother" may be the younger one
    ("My brother is a doctor.", "我弟弟做什么工作？", False),
    ("我太太是一名医生。", "What does my wife do?", True),
    ("我太太是一名医生。", "What does my husband do?", False),
])
def test_a_broader_word_asks_for_the_narrower_never_the_reverse(said, question, answers):
    with Memory(":memory:", cache=False) as m:
        m.add(said, user_id="u", timestamp=T1)
        ans = m.ask(question, user_id="u")
        assert ans.abstained is not answers
        assert [c.text for c in ans.citations] == ([said] if answers else [])


def test_relation_words_have_one_canonical_form():
    assert {w: KIN_CANONICAL[w] for w in ("mom", "mum", "mommy", "妈", "老妈", "太太", "男友", "coworker", "老板")} == {
        "mom": "mother", "mum": "mother", "mommy": "mother", "妈": "mother", "老妈": "mother", "太太": "wife",
        "男友": "boyfriend", "coworker": "colleague", "老板": "boss"}
    assert not {"brother", "sister", "哥哥", "弟弟", "姐姐", "妹妹", "奶奶", "外婆", "姥姥"} & set(KIN_CANONICAL)
    assert [person_key(w) for w in ("Mom", "母亲", "older brother", "moms", "哥哥", "favourite tea")] == [
        "mother", "mother", "older brother", "mothers", "哥哥", "favourite tea"]
    assert (person_slot("mom", "a doctor"), person_slot("妈妈", "三十岁"), person_slot("老公", "Tom")) == (
        "mother_occupation", "mother_age", "husband_name")
    assert [normalize_attribute(a) for a in ("mom_birthday", "老婆的生日", "妈妈_home_city", "mother_tongue")] == [
        "mother_birthday", "wife_birthday", "mother_home_city", "mother_tongue"]
    assert kin_covers("brother", "哥哥") and not kin_covers("哥哥", "brother") and not kin_covers("哥哥", "弟弟")


def test_relation_words_are_read_the_same_on_both_sides():
    assert kin_words("Where does my Mom live?") == kin_words("我妈妈住在哪里？") == kin_words("我妈住哪？") == {"mother"}
    assert kin_words("我舅妈住在哪里？") == frozenset() and kin_words("我后妈呢？") == frozenset()  # no 妈 inside
    assert (kin_base("Moms"), kin_base("同事"), kin_base("弟弟"), kin_base("birthday")) == (
        "mother", "colleague", "弟弟", None)
    # 妈妈和我: the speaker too (a one-character 妈 is never found by backtracking inside 妈妈)
    assert stated_text("我妈妈和我都是老师。", about_speaker=True) == "我妈妈和我都是老师。"
    assert stated_text("我妈是老师。", about_speaker=True) == ""
    assert stated_text("我妈是老师。", about_speaker=True, kin=frozenset({"mother"})) == "我妈是老师。"
    assert [(f.attribute, f.value) for f in extract_facts_rules("我妈叫李梅。我妈妈叫我回家。")] == [("mother_name", "李梅")]


# a one-character relation word (哥, 姐, 弟, 妹, 妈) is a relation only as a word of its own: inside 师姐 (a senior
# fellow student), 徒弟 (an apprentice), 堂哥 (a cousin) it is none; those are people of their own, and inside 空姐 (a
# flight attendant), 大妈, 弟子 nobody the speaker is related to (data/lang/zh/kin.json)
@pytest.mark.parametrize("question, kin", [
    ("我师姐住在哪里？", {"师姐"}), ("我徒弟做什么工作？", {"徒弟"}), ("我堂哥住在哪里？", {"堂哥"}),
    ("我空姐朋友住在哪？", {"朋友"}), ("我姐住在哪里？", {"姐"}), ("我妹妹住在哪里？", {"妹妹"}),
    ("我大妈住在哪里？", set()), ("他是我的弟子", set()),
])
def test_one_character_relation_words_match_only_as_words(question: str, kin: set[str]) -> None:
    assert kin_words(question) == frozenset(kin)


def test_a_fellow_students_job_is_not_the_speakers() -> None:
    assert stated_text("我师姐是医生。我是老师。", about_speaker=True) == "我是老师。"
    got = [(f.attribute, f.value) for f in extract_facts_rules(["我师姐搬到深圳了", "我徒弟在腾讯上班", "我姐搬到深圳了"])]
    assert got == [("师姐_home_city", "深圳"), ("徒弟_employer", "腾讯"), ("姐姐_home_city", "深圳")]
