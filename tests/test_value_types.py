"""A slot's value must be of the slot's type (issue #22): one value-type check of every fact before reconciliation
(anchormem.facts.value_types, data/lang/*/slot_types.json). A value not of its slot's type (an employer that is a
piece of a clause, a home that is the user's pet's name, a salary read as a weight) is no claim and retires nothing;
a value said of a person of the user's ("我弟…月薪一万二", "Ray got a raise to $90k" with Ray the husband) is that
person's slot, and leaves the user's own current."""

import pytest

from anchormem.facts.model import Fact
from anchormem.facts.value_types import Names, checked, known_names, said_of, slot_type, type_failure

T1, T2, T3 = "2025-01-10T09:00:00Z", "2025-02-10T09:00:00Z", "2025-03-10T09:00:00Z"


@pytest.mark.parametrize("attribute, kind", [
    ("home_city", "place"), ("brother_home_city", "place"), ("employer", "organisation"), ("occupation", "job"),
    ("wife_occupation", "job"), ("salary", "money"), ("rent", "money"), ("weight", "weight"),
    ("commute", "duration"), ("count:cat", "count"), ("amount:1d01cd1f4e85.1", "amount"), ("son_age", "age"),
    ("likes:coffee", ""), ("diet", ""),
])
def test_each_slot_family_has_its_declared_type(attribute, kind):
    assert slot_type(attribute) == kind


@pytest.mark.parametrize("attribute, value, why", [
    ("employer", "但一想到房贷还是忍", "clause"),  # a piece of "每天都想辞职，但一想到房贷还是忍了"
    ("home_city", "得也近", "clause"),  # of 住得也近
    ("occupation", "ugh my boss", "pronoun"),
    ("home_city", "software engineer", "job title"),
    ("occupation", "Denver", "place"),
    ("salary", "212 lbs", "unit weight"),
    ("home_city", "Pepper", "pet name pepper"),
    ("employer", "Ray", "person name ray"),
])
def test_a_value_not_of_its_slots_type_fails(attribute, value, why):
    names = Names(pets=frozenset({"pepper"}), persons=frozenset({"ray"}))
    assert type_failure(Fact(attribute=attribute, value=value), names) == why


@pytest.mark.parametrize("attribute, value", [
    ("home_city", "大连"),  # one word is a name, whatever jieba tags it (an adverb)
    ("home_city", "东莞松山湖, 楼下就是公交站"),  # a place word in it
    ("home_city", "Bristolian"), ("employer", "律所"), ("employer", "深圳一家公司"), ("employer", "Microsoft I"),
    ("occupation", "自媒体运营"), ("occupation", "sous chef"), ("salary", "$1,450 a month"), ("salary", "1.2w"),
    ("commute", "一个半小时"), ("commute", "hour"), ("son_age", "三岁"), ("count:cat", "two cats"),
    ("diet", "my own thing"),  # no declared type: not checked
])
def test_a_value_of_its_slots_type_passes(attribute, value):
    assert type_failure(Fact(attribute=attribute, value=value)) == ""


def test_an_ending_is_not_checked():
    assert type_failure(Fact(attribute="employer", value="交了工牌", polarity=-1)) == ""


@pytest.mark.parametrize("text, fact, attribute, entity", [
    ("我弟刚找到工作，月薪一万二，比我还高", Fact(attribute="salary", value="一万二", source_span="月薪一万二"),
     "弟弟_salary", "user"),
    ("本人外卖小哥一枚，媳妇在超市当收银员", Fact(attribute="occupation", value="收银员", source_span="媳妇在超市当收银员"),
     "媳妇_occupation", "user"),
    ("组里最靠谱的同事跳槽去了vivo，活全压我身上了", Fact(attribute="employer", value="vivo"), "colleague_employer", "user"),
    ("Ray got a raise to $90k", Fact(attribute="salary", value="$90k"), "salary", "Ray"),
    ("My brother's rent went up, so mine is 900 now.", Fact(attribute="rent", value="900"), "rent", "user"),
    ("我做新媒体编辑，月薪八千", Fact(attribute="salary", value="八千", source_span="月薪八千"), "salary", "user"),
    ("房东涨租了，现在每个月四千八", Fact(attribute="rent", value="四千八"), "rent", "user"),  # acts on the user's rent
])
def test_a_value_said_of_a_person_of_the_users_is_that_persons(text, fact, attribute, entity):
    got = said_of(fact, text, Names(persons=frozenset({"ray"}), person_entities=("Ray",)))
    assert (got.attribute, got.entity) == (attribute, entity)


def test_known_names_reads_pets_and_persons_from_the_users_facts():
    class M:
        def __init__(self, f):
            self.fact = f

    names = known_names([M(Fact(attribute="cat_names", value="Biscuit and Fig")),
                         M(Fact(attribute="husband_name", value="Ray")),
                         M(Fact(entity="Lena", attribute="home_city", value="Seattle")),
                         M(Fact(attribute="home_city", value="Leeds"))])
    assert names.pets == {"biscuit", "fig"}
    assert names.persons == {"ray", "lena"}
    assert names.person_entities == ("Lena",)


def test_checked_keeps_order_and_gives_reasons():
    fs = [Fact(attribute="home_city", value="Leeds"), Fact(attribute="home_city", value="得也近"),
          Fact(attribute="employer", value="Acme")]
    kept, dropped = checked(fs, "I live in Leeds and work at Acme.")
    assert [f.value for f in kept] == ["Leeds", "Acme"]
    assert [(f.value, why) for f, why in dropped] == [("得也近", "clause")]


def _supersedes(mem, *turns):
    out = []
    for i, t in enumerate(turns):
        out.append(sorted(e.memory.text for e in mem.add(t, user_id="u", timestamp=(T1, T2, T3)[i])
                          if e.event == "SUPERSEDE"))
    return out


def _current(mem, attribute):
    return sorted((m.fact.entity, m.fact.value) for m in mem.get_all(user_id="u", limit=100)
                  if m.fact is not None and m.fact.attribute == attribute)


def test_a_clause_piece_read_as_an_employer_retires_nothing(mem):
    assert _supersedes(mem, "我在建行柜台上班，干了五年了", "每天都想辞职，但一想到房贷还是忍了")[1] == []
    assert _current(mem, "employer") == [("user", "建行柜台")]


def test_a_brothers_salary_leaves_the_users(mem):
    assert _supersedes(mem, "我做新媒体编辑，月薪八千，够花但存不下", "我弟刚找到工作，月薪一万二，比我还高")[1] == []
    assert _current(mem, "salary") == [("user", "八千")]
    assert _current(mem, "弟弟_salary") == [("user", "一万二")]


def test_a_named_husbands_raise_is_his_salary(mem):
    got = _supersedes(mem, "My salary is 70k.", "My husband Ray is a nurse.", "Ray got a raise to $90k")
    assert got[2] == []
    assert _current(mem, "salary") == [("Ray", "$90k"), ("user", "70k")]


def test_the_users_own_change_still_retires(mem):
    got = _supersedes(mem, "我做新媒体编辑，月薪八千", "涨薪了，现在月薪一万")
    assert got[1] == ["我做新媒体编辑，月薪八千"] or got[1] == ["月薪八千"]
    assert _current(mem, "salary") == [("user", "一万")]


@pytest.mark.parametrize("text, value, clause, asked", [
    ("As a brand-new accountant, what should I wear?", "brand-new accountant", "As a brand-new accountant", True),
    ("As a nurse, I work nights.", "nurse", "As a nurse", False),  # a statement
    ("My monthly salary is 32000 yuan, can I apply for the premium card?", "32000 yuan",
     "My monthly salary is 32000 yuan", False),  # the statement a question opens with
])
def test_a_role_a_question_presupposes_is_no_change(text, value, clause, asked):
    from anchormem.facts.value_types import presupposed

    assert presupposed(Fact(attribute="occupation", value=value, clause=clause, source_span=clause), text) is asked


def test_a_question_presupposing_a_role_leaves_the_job(mem):
    assert _supersedes(mem, "I'm a junior accountant at Pemberton Hale.",
                       "As a brand-new accountant, what should I wear?")[1] == []
    assert _current(mem, "occupation") == [("user", "junior accountant")]
