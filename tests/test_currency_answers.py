"""After a change, ``ask`` cites the current state (issue 22): the successor of a superseded value answers a question
in the first statement's words, an ending is answered by the memory saying it stopped, a count change keeps the
names, and a Chinese turn's other facts stay current after a move (:mod:`anchormem.answering.successors`)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

T1 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)
T2 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _cited(mem, question: str, **kw) -> list[str]:
    ans = mem.ask(question, user_id="u", **kw)
    return [] if ans.abstained else [c.text for c in ans.citations]


def _context_lines(block) -> list[str]:
    return [ln for s in block.sections if s.name != "recent_turns" for ln in s.text.splitlines()[1:] if ln.strip()]


@pytest.mark.parametrize("before,after,question", [
    ("I weigh 150 pounds.", "I'm up to 160 pounds now.", "How much do I weigh?"),
    ("I'm a nurse at St Mary's.", "I quit nursing.", "What is my job?"),
    ("我抽烟。", "我戒烟了。", "我抽烟吗？"),
    ("我有两辆车。", "我现在只有一辆车了。", "我有几辆车？"),
])
def test_the_current_state_is_cited_first_and_only(mem_e5, before, after, question):
    mem_e5.add(before, user_id="u", timestamp=T1)
    mem_e5.add(after, user_id="u", timestamp=T2)
    assert _cited(mem_e5, question) == [after]
    # the past is still answered from the past
    then = mem_e5.ask(question, user_id="u", as_of=T1)
    assert [c.text for c in then.citations] == [before]


def test_a_successor_in_another_session_scope_is_not_cited(mem_e5):
    mem_e5.add("I weigh 150 pounds.", user_id="u", session_id="s1", timestamp=T1)
    mem_e5.add("I'm up to 160 pounds now.", user_id="u", session_id="s2", timestamp=T2)
    assert _cited(mem_e5, "How much do I weigh?", session_id="s1") == []


def test_a_count_change_keeps_the_names(mem_e5):
    mem_e5.add("I have two cats, Tom and Jerry.", user_id="u", timestamp=T1)
    mem_e5.add("I have three cats now.", user_id="u", timestamp=T2)
    assert _cited(mem_e5, "How many cats do I have?")[0] == "I have three cats now."
    assert "I … Tom and Jerry." in _cited(mem_e5, "What are my cats called?")  # (with its sentence's subject)
    lines = _context_lines(mem_e5.context(user_id="u", session_id="probe", query="How many cats do I have?"))
    assert not [ln for ln in lines if "two cats" in ln and "until" not in ln], lines
    held = [m for m in mem_e5.get_all(user_id="u") if "Tom and Jerry" in m.text]
    assert held and all({c.slot: c.current for c in m.claims} == {"user|cat_names": True, "user|count:cat": False}
                        for m in held)


def test_chinese_count_change_keeps_the_names(mem_e5):
    mem_e5.add("我有两只猫，叫咪咪和花花。", user_id="u", timestamp=T1)
    mem_e5.add("我现在有三只猫了。", user_id="u", timestamp=T2)
    assert _cited(mem_e5, "我有几只猫？")[0] == "我现在有三只猫了。"
    assert _cited(mem_e5, "我的猫叫什么？") == ["我…叫咪咪和花花。"]  # (with its sentence's subject)


def test_a_move_keeps_the_other_facts_of_a_chinese_turn(mem_e5):
    mem_e5.add("我叫李娜，住在广州，是一名老师，喜欢爬山。", user_id="u", timestamp=T1)
    mem_e5.add("我们上个月搬到深圳了。", user_id="u", timestamp=T2)
    assert _cited(mem_e5, "我住在哪里？")[0] == "我们上个月搬到深圳了。"
    assert any("老师" in t for t in _cited(mem_e5, "我是做什么工作的？"))
    assert any("爬山" in t for t in _cited(mem_e5, "我喜欢什么？"))
    utt = next(m for m in mem_e5.get_all(user_id="u") if m.kind == "utterance")
    assert {c.slot: c.current for c in utt.claims} == {"user|name": True, "user|home_city": False,
                                                       "user|occupation": True, "user|likes:爬山": True}
