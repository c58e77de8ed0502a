"""Issue #22 (endev16): an ending is the current answer to a question about the slot it closed.

After "Marcus and I called it off" closed ``boyfriend_name`` (or 车卖了 a possession, 戒烟 a habit, "Miso died" a
pet's name), the natural question ("Am I seeing anyone?", "Who is my boyfriend?", 我男朋友叫什么？, 我现在有对象吗？)
is answered by the memory that closed the slot, cited first: what the closed claim said tells whose the ending is
(:func:`anchormem.answering.successors.closed_by`, :func:`anchormem.answering.subject_gate.of_subject`), and a
question naming the partner family by its words ("seeing anyone", 单身, 对象) asks every partner-name slot
(:func:`anchormem.answering.slot_questions.asked_slots`). No record still abstains.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from anchormem.answering.slot_questions import asked_slots
from anchormem.answering.tense import asks_plan, asks_present
from anchormem.facts.keys import PARTNER_SLOTS

T1 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _cited(mem, question: str) -> list[str]:
    ans = mem.ask(question, user_id="u")
    return [] if ans.abstained else [c.text for c in ans.citations]


@pytest.mark.parametrize("question", ["Am I seeing anyone?", "Am I dating anyone?", "Am I single?",
                                      "我现在有对象吗？", "我还在谈恋爱吗？", "我现在单身吗？"])
def test_a_partner_family_question_asks_every_partner_slot(question):
    assert set(asked_slots(question)) == set(PARTNER_SLOTS)
    assert not asks_plan(question)


def test_a_state_progressive_is_present_unless_a_plan_word_says_otherwise():
    assert asks_present("Am I seeing anyone?")
    assert asks_plan("Am I seeing anyone next week?")
    assert asks_plan("Am I seeing the dentist?")  # an arrangement, as before


@pytest.mark.parametrize("before,after,questions", [
    ("My boyfriend Marcus is a chef.", "Marcus and I called it off last week.",
     ["Am I seeing anyone?", "Who is my boyfriend?", "Do I have a boyfriend?", "Am I single?"]),
    ("我男朋友叫阿杰。", "我和阿杰分了。", ["我现在有男朋友吗？", "我男朋友叫什么？", "我现在有对象吗？", "我还在谈恋爱吗？"]),
    ("我女朋友叫小雨，她是护士。", "我和小雨分手了。", ["我有女朋友吗？", "我女朋友是谁？"]),
    ("I drive a 2012 Corolla.", "Sold the Corolla last weekend.", ["Do I still have the Corolla?", "Do I have a car?"]),
    ("我有一台钢琴。", "钢琴送人了。", ["我还有钢琴吗？"]),
    ("I smoke about a pack a day.", "Haven't smoked in 3 months.", ["Do I smoke?", "Am I still smoking?"]),
    ("我抽烟。", "我已经三个月没抽烟了。", ["我还抽烟吗？"]),
    ("I have a cat named Miso.", "Miso died last week.", ["Do I have a cat?", "What's my cat's name?"]),
    ("我养了一只猫叫年糕。", "年糕走丢了。", ["我有猫吗？", "我的猫叫什么？"]),
])
def test_the_ending_is_cited_first(mem_e5, before, after, questions):
    mem_e5.add(before, user_id="u", timestamp=T1)
    mem_e5.add(after, user_id="u", timestamp=T2)
    for q in questions:
        assert _cited(mem_e5, q)[:1] == [after], q


def test_a_name_question_quotes_the_closed_name_as_the_past(mem_e5):
    mem_e5.add("我男朋友叫阿杰。", user_id="u", timestamp=T1)
    mem_e5.add("我和阿杰分了。", user_id="u", timestamp=T2)
    ans = mem_e5.ask("我男朋友叫什么？", user_id="u")
    assert [c.text for c in ans.citations] == ["我和阿杰分了。", "我男朋友叫阿杰。"]
    assert ans.citations[0].valid_to is None and ans.citations[1].valid_to == T2
    assert "2024-03以前如此" in ans.text


def test_a_current_partner_answers_and_no_record_abstains(mem_e5):
    assert mem_e5.ask("Am I seeing anyone?", user_id="u").abstained
    mem_e5.add("My girlfriend Sarah is a nurse.", user_id="u", timestamp=T1)
    assert _cited(mem_e5, "Am I seeing anyone?") == ["My girlfriend Sarah is a nurse."]
    assert mem_e5.ask("我现在有对象吗？", user_id="v").abstained
