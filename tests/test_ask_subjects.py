"""The subject asked is the subject cited (subj13): ``ask`` about the asker never cites what is someone else's
("My brother is vegan." for "Am I vegan?"), ``ask`` about a relation or a named person never cites the asker's own
value ("I work at a bank." for "Where does my wife work?"); with nothing recorded about the person asked, it
abstains."""

from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from anchormem import Memory
from anchormem.answering.subject_gate import about_asked, of_subject, others_only, owners
from anchormem.types import Answer, MemoryItem

NOW = datetime(2025, 3, 1, tzinfo=timezone.utc)


def _mem(text, slots=()):
    claims = [SimpleNamespace(slot=s, valid_to=None) for s in slots]
    return SimpleNamespace(text=text, fact=None, claims=claims)


@pytest.mark.parametrize("text, question, other", [
    ("My brother is vegan.", "Am I vegan?", True),
    ("My dog Rex is 5 years old.", "How old am I?", True),
    ("My dog Rex is 5 years old.", "How old is my dog?", False),  # the question names the dog
    ("My dog Rex is 5 years old.", "What pets do I have?", False),  # and a pet answers "what pets"
    ("Tom is vegetarian.", "Am I vegetarian?", True),
    ("She is vegan.", "Am I vegan?", True),
    ("我家的狗豆豆三岁了。", "我几岁？", True),
    ("我爸住在广州。", "我住在哪里？", True),
    ("我的朋友小美在上海开咖啡店。", "小美在哪里工作？", False),  # the subject read is the one asked
    ("I work at a bank and my wife works at Tencent.", "Where do I work?", False),
    ("我在一家银行做风控，我老婆在腾讯做产品经理。", "我在哪工作？", False),
    ("My wife and I moved to Berlin last year.", "Where do I live?", False),
    ("My job is at a bank.", "Where do I work?", False),
    ("Vegan since 2019.", "Am I vegan?", False),  # no subject said: the speaker's
    ("Berlin is great.", "Where do I live?", False),  # a place is no person
    ("旧卡罗拉换掉了，现在车库里是一辆Model 3。", "What car do I drive?", False),  # 车库里 is no name
    ("我女儿朵朵六一要参加学校的钢琴演出。", "朵朵的钢琴演出结果怎么样？", False),  # the question asks about 朵朵
    ("鱼竿都送人了，钓鱼这事翻篇了，老婆很开心。", "我周末还钓鱼吗？", False),  # no subject first: the speaker's
    ("我爸住在广州。", "我住在哪里？", True),
    ("Lily's company relocated her to Singapore for six months.", "我住在哪里？", True),  # a possessive subject
    ("Lily's company relocated her to Singapore for six months.", "Where does Lily live?", False),
    ("Berlin's rents went up again.", "Where do I live?", False),  # a place's: no person's
])
def test_others_only_reads_the_subject_of_the_words(text, question, other):
    assert others_only(_mem(text), question) is other


def test_claims_tell_a_named_subject_the_words_do_not():
    # "Tom works at Google" holds Tom's claim: not the asker's job
    assert owners(_mem("Tom works at Google.", ["tom|employer"])) == {("tom", "")}
    assert owners(_mem("Mia turned seven.", ["user|daughter_age"])) == {("user", "daughter")}
    assert others_only(_mem("Tom drives to Google.", ["tom|employer"]), "Where do I work?") is True
    assert others_only(_mem("Tom drives to Google.", ["tom|employer"]), "Where does Tom work?") is False
    # a capitalised common noun read as a name is overruled by the speaker's own claim
    assert others_only(_mem("Landlord bumped the rent to $2,050.", ["user|rent"]), "What's my rent?") is False


@pytest.mark.parametrize("text, person, about", [
    ("My wife works at Tencent.", ("", "wife"), True),
    ("我老婆在腾讯做产品经理", ("", "wife"), True),
    ("I work at a bank.", ("", "wife"), False),
    ("我在一家银行做风控", ("", "wife"), False),
    ("My friend Tom lives in Porto.", ("Tom", ""), True),
    ("I live in Lisbon.", ("Tom", ""), False),
    ("我姐姐住在成都。", ("", "sister"), True),  # asked "sister", said 姐姐
])
def test_about_asked_names_the_person(text, person, about):
    assert about_asked(_mem(text), person) is about


def test_a_relations_claim_is_theirs_without_the_word():
    assert about_asked(_mem("Mia turned seven last week.", ["user|daughter_age"]), ("", "daughter"))


def _item(text):
    return MemoryItem(id="m1", text=text, user_id="u", created_at=NOW, valid_from=NOW)


def test_of_subject_drops_the_other_persons_citation_and_abstains():
    wrong = _item("My brother is vegan.")
    ans = Answer(text='You said: "My brother is vegan."', citations=[wrong], abstained=False, evidence=[])
    out = of_subject(ans, "Am I vegan?")
    assert out.abstained and out.citations == [] and out.text == "I have no record of that."
    mine = _item("I work at a bank.")
    ans = Answer(text="x", citations=[mine], abstained=False, evidence=[])
    assert of_subject(ans, "Where does my wife work?").abstained
    assert of_subject(ans, "Where do I work?") is ans  # about the asker: unchanged
    assert of_subject(ans, "Where did I work before?") is ans  # a past question: no single subject read, no gate
    both = Answer(text="x", citations=[_item("My wife works at Tencent."), mine], abstained=False, evidence=[])
    out = of_subject(both, "Where do I work?")
    assert [c.text for c in out.citations] == ["I work at a bank."] and '"I work at a bank."' in out.text


@pytest.mark.parametrize("turns, question, expect", [
    (["I work at a bank as a risk analyst.", "My wife works at Tencent as a product manager."],
     "Where does my wife work?", "Tencent"),
    (["I work at a bank as a risk analyst."], "Where does my wife work?", None),
    (["Tom works at Google."], "Where do I work?", None),
    (["Tom works at Google.", "I work at Apple."], "Where does Tom work?", "Google"),
    (["My brother is vegan."], "Am I vegan?", None),
    (["My cat Luna is 3 years old."], "How old am I?", None),
    (["My dog Rex is 5 years old."], "How old is my dog?", "Rex"),
    (["我住在杭州西湖边。", "我妈住在成都。"], "我妈住在哪里？", "成都"),
    (["我家的狗豆豆三岁了。"], "我几岁？", None),
])
def test_ask_cites_the_subject_asked_or_abstains(turns, question, expect):
    with Memory(":memory:", embedder="hash", llm=None, cache=False) as m:
        for t in turns:
            m.add(t, user_id="u")
        ans = m.ask(question, user_id="u")
        if expect is None:
            assert ans.abstained and ans.citations == []
        else:
            assert not ans.abstained and expect in ans.citations[0].text
