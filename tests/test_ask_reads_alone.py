"""issue #22 (session 16): ``ask`` answers what is stored, its quotes read alone, and past questions in both languages.

- A piece left of a sentence once a superseded claim's words went out, or a fact's span cut from its turn, keeps
  the subject its sentence opened with ("I … work at Google." of "I live in Leeds and work at Google." after a
  move; 我…在阿里巴巴工作。): :func:`anchormem.facts.claims.with_subject`, :func:`anchormem.answering.extractive.
  reading_alone`.
- A name after a preposition is no clause subject (在阿里巴巴工作 is the speaker's employer, not 阿里巴巴's job):
  :func:`anchormem.facts.subjects.named_subject`; so 我在哪工作？ / 我以前在哪工作？ find it.
- A word of the other language covering a question term by embedding is its translation (``AnswerConfig.
  translation_credit``): "When did I get married?" is answered by 我们2018年6月结的婚。
- 伴侣 / 爱人 are person words and "partner" a relation in both languages (data/lang/*/kin.json).
Real multilingual-e5-small (the ``e5`` fixture) for the ``ask`` cases.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from anchormem import Memory
from anchormem.facts.claims import elided, with_subject
from anchormem.facts.subjects import named_subject

T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("original,cut,expected", [
    ("I live in Leeds and work at Google.", "work at Google.", "I … work at Google."),
    ("We live in Paris and love the food.", "love the food.", "We … love the food."),
    ("我住在杭州，在阿里巴巴工作。", "在阿里巴巴工作。", "我…在阿里巴巴工作。"),
    ("我在腾讯当产品经理。", "当产品经理。", "我…当产品经理。"),
])
def test_a_piece_without_a_subject_keeps_its_sentences(original, cut, expected):
    assert elided(original, with_subject(original, cut)) == expected


@pytest.mark.parametrize("original,cut", [
    ("Hi, I'm Sam. I live in Lisbon. I work as a nurse.", "Hi, I'm Sam. I work as a nurse."),  # whole sentences
    ("My partner is Sam and I live in York.", "My partner is Sam."),  # the sentence's own start
    ("We had a baby, so now I have three kids.", "so now I have three kids."),  # a subject of its own
    ("The office is in Leeds and opens at nine.", "opens at nine."),  # no first-person subject to give
])
def test_a_piece_reading_alone_is_left_as_it_is(original, cut):
    assert with_subject(original, cut) == cut


@pytest.mark.parametrize("pre,expected", [("在阿里巴巴", ""), ("跟小李", ""), ("从华为", ""), ("小李上周", "小李")])
def test_a_name_after_a_preposition_is_no_subject(pre, expected):
    assert named_subject(pre, "zh") == expected


def _store(e5, texts: list[str], gap: int = 30) -> Memory:
    m = Memory(":memory:", embedder=e5)
    for i, t in enumerate(texts):
        m.add(t, user_id="u", timestamp=T0 + timedelta(days=gap * i))
    return m


@pytest.mark.parametrize("texts,question,first", [
    (["I live in Leeds and work at Google.", "I moved to York."], "Where do I work?", "I … work at Google."),
    (["我住在杭州，在阿里巴巴工作。", "我搬到了北京。"], "我在哪工作？", "我…在阿里巴巴工作。"),
    (["我住在杭州，在阿里巴巴工作。", "我搬到了北京。"], "Where do I work?", "我…在阿里巴巴工作。"),
    (["I work at Deloitte as an auditor.", "I joined KPMG last week."], "What is my job?", "I … as an auditor."),
    (["我在腾讯当产品经理。", "我跳槽到字节了。"], "我是做什么工作的？", "我…当产品经理。"),
])
def test_a_quote_cut_from_its_turn_reads_alone(e5, texts, question, first):
    m = _store(e5, texts)
    try:
        ans = m.ask(question, user_id="u")
        assert not ans.abstained and ans.citations[0].text == first
        assert f"“{first}”" in ans.text or f'"{first}"' in ans.text  # the text quotes what the citation says
    finally:
        m.close()


@pytest.mark.parametrize("question,first,note", [
    ("我以前在哪工作？", "我住在杭州，在阿里巴巴工作。", "2025-06以前如此"),
    ("我之前在哪工作？", "我住在杭州，在阿里巴巴工作。", "2025-06以前如此"),
    ("Where did I work before?", "我住在杭州，在阿里巴巴工作。", "true until 2025-06"),
    ("我以前住在哪？", "我住在杭州，在阿里巴巴工作。", "2025-04以前如此"),  # the home's end, not the job's
])
def test_a_chinese_past_question_finds_the_superseded_employer(e5, question, first, note):
    m = _store(e5, ["我住在杭州，在阿里巴巴工作。", "我搬到了北京。", "我换工作了，现在在腾讯工作。"], gap=60)
    try:
        ans = m.ask(question, user_id="u")
        assert [(c.text, c.note) for c in ans.citations][:1] == [(first, note)]
    finally:
        m.close()


FILL_EN = ["I like hiking on weekends.", "My sister is a nurse.", "I drink coffee every morning.",
           "My favourite colour is green.", "My car is a blue Honda."]
FILL_ZH = ["我周末喜欢去爬山。", "我姐姐是护士。", "我每天早上喝咖啡。", "我最喜欢的颜色是绿色。", "我的车是一辆蓝色的本田。"]


@pytest.mark.parametrize("fill,said,question", [
    (FILL_EN, "joined a gym last March", "我什么时候加入健身房的？"),
    (FILL_EN, "We got married in June 2018.", "我什么时候结婚的？"),
    (FILL_ZH, "我们2018年6月结的婚。", "When did I get married?"),
    (FILL_ZH, "我养了一只猫叫年糕", "What's my cat called?"),
    (FILL_EN, "I adopted a kitten and named her Mochi.", "我的猫叫什么名字？"),
])
def test_a_question_in_the_other_language_answers_what_is_stored(e5, fill, said, question):
    m = _store(e5, fill[:3] + [said] + fill[3:], gap=10)
    try:
        ans = m.ask(question, user_id="u")
        assert not ans.abstained and ans.citations[0].text == said
    finally:
        m.close()


@pytest.mark.parametrize("question", ["我的伴侣是做什么的？", "What does my partner do?"])
@pytest.mark.parametrize("fill,partner,mine", [
    (FILL_ZH, "我的伴侣小林是厨师。", "我在阿里巴巴当工程师。"),
    (FILL_EN, "My partner Sam is a chef.", "I work at Google as an engineer."),
])
def test_a_partners_job_is_not_the_askers(e5, question, fill, partner, mine):
    m = _store(e5, fill[:3] + [mine] + fill[3:] + [partner], gap=10)
    try:
        ans = m.ask(question, user_id="u")
        assert not ans.abstained and [c.text for c in ans.citations] == [partner]
    finally:
        m.close()


def _turn(text: str, ends: dict[str, datetime]) -> "MemoryItem":
    from anchormem.types import Claim, MemoryItem

    claims = [Claim(fact_id=f"f{i}", slot=f"user|{slot}", value=slot, said_at=T0, valid_from=T0, valid_to=end,
                    superseded_by=f"n{i}", span=text, words=text) for i, (slot, end) in enumerate(ends.items())]
    return MemoryItem(id="m1", text=text, user_id="u", created_at=T0, valid_from=T0, valid_to=max(ends.values()),
                      claims=claims)


@pytest.mark.parametrize("question,note", [
    ("Where did I live before?", "true until 2025-04"),  # the home's end, not the job's
    ("Where did I work before?", "true until 2025-06"),
    ("我以前住在哪？", "2025-04以前如此"),
    ("What did I say back then?", "true until 2025-06"),  # no slot named: the quote's own validity
])
def test_the_until_note_is_the_asked_facts_end(question, note):
    from anchormem.answering.extractive import noted_for_asked, quoted
    from anchormem.text.tokenize import has_cjk
    from anchormem.types import Answer

    m = _turn("I live in Leeds and I work at Google.", {"home_city": T0 + timedelta(days=60),
                                                       "employer": T0 + timedelta(days=120)})
    text, cites = quoted([m], zh=has_cjk(question))
    ans = noted_for_asked(Answer(text=text, citations=cites), question)
    assert ans.citations[0].note == note
    assert (f"（{note}）" if has_cjk(question) else f"({note})") in ans.text
    assert ans.citations[0].text == m.text


def test_a_light_verb_or_a_slot_word_is_no_translation(e5):
    """做 (a light verb said: 做意大利面; or the word of a does:… slot) is near "work" both ways but translates nothing:
    "Where did I work before?" cites the old employer only."""
    m = _store(e5, ["我在阿里巴巴工作。", "我周五一般做意大利面。", "我去年三月办了健身卡。", "我现在在腾讯工作。"], gap=10)
    try:
        ans = m.ask("Where did I work before?", user_id="u")
        assert [c.text for c in ans.citations] == ["我在阿里巴巴工作。"]
    finally:
        m.close()
