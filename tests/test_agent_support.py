"""The customer-service reference agent (anchormem.agents.support, ``anchormem support``): the bundled 60-turn
English and Chinese cases replayed end to end on the hash embedder with a frozen clock, expiry by category,
sensitive changes held for review, session summaries, and the CLI."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from typer.testing import CliRunner

from anchormem import Memory
from anchormem.agents import SupportAgent
from anchormem.agents import signals
from anchormem.agents.support import mask_numbers
from anchormem.cli import app
from anchormem.llms.openai_compat import OpenAICompatLLM
from anchormem.testing import FakeLLMServer, frozen_clock

from agent_replay import replay_fixture  # tests/agent_replay.py
from agent_replay import row as _row

UID_EN, UID_ZH = "cust-maya-1001", "cust-linxiao-2002"

en = replay_fixture("support_en", "2025-06-01T00:00:00Z")
zh = replay_fixture("support_zh", "2025-06-01T00:00:00Z")


def _added(row, kind=None):
    """The memories a turn stored (ADD events), optionally of one kind."""
    return [e.memory for e in row["reply"].events if e.event == "ADD" and (kind is None or e.memory.kind == kind)]


def _all_texts(mem, uid):
    return [m.text for m in mem.get_all(user_id=uid, include_superseded=True, show_expired=True)]


# ------------------------------------------------------------------------------------------ English case
def test_en_case_has_sixty_turns_over_two_weeks(en):
    _, rows = en
    assert len(rows) == 60
    assert [s for s in dict.fromkeys(r["session_id"] for r in rows)] == ["2025-06-03", "2025-06-09", "2025-06-11"]
    assert all(r["reply"].metadata["context"]["used_tokens"] <= 1500 for r in rows)
    assert all("recent_turns" in r["reply"].metadata["context"]["sections"] for r in rows)


def test_en_questions_cite_the_right_memories(en):
    _, rows = en
    [risk] = _added(_row(rows, "2025-06-03", "My risk preference is conservative."), "fact")
    assert risk.fact.attribute == "risk_preference"
    ask = _row(rows, "2025-06-03", "Can you remind me what my risk preference is?")["reply"]
    assert ask.metadata["intent"] == "question"
    assert ask.lines == ["You told me on 3 June: “My risk preference is conservative.”"]
    assert [c.id for c in ask.citations] == [risk.id]
    again = _row(rows, "2025-06-11", "What is my current risk preference?")["reply"]
    assert [c.id for c in again.citations] == [risk.id]
    [tuition] = _added(_row(rows, "2025-06-03", "I need to keep 5,000 euros available for her tuition."))
    money = _row(rows, "2025-06-09", "How much did I want to keep for tuition?")["reply"]
    assert [c.id for c in money.citations] == [tuition.id]
    [new_yield] = _added(_row(rows, "2025-06-11", "Steady Income Fund No. 3 now yields 3.4% annualised."))
    latest = _row(rows, "2025-06-11", "What yield did I mention for Steady Income Fund No. 3?")["reply"]
    assert [c.id for c in latest.citations] == [new_yield.id]
    assert "3.2%" not in latest.text


def test_en_refers_back_to_the_product_of_last_week(en):
    _, rows = en
    [first] = _added(_row(rows, "2025-06-03", "I'm looking at the Steady Income Fund No. 3."))
    [old_yield] = _added(_row(rows, "2025-06-03", "Steady Income Fund No. 3 yielded 3.2% annualised this week."))
    back = _row(rows, "2025-06-11", "What was the yield of the product we talked about last week?")["reply"]
    assert back.metadata["intent"] == "recall"
    assert back.lines == [
        "Last week we talked about Steady Income Fund No. 3. On 3 June you said: “I'm looking at the Steady Income "
        "Fund No. 3.”",
        "The yield you mentioned on 3 June is older than 7 days, so it is no longer kept as current; please check "
        "today's figure."]
    assert [c.id for c in back.citations] == [first.id]
    assert old_yield.id not in back.metadata["citations"] and "3.2" not in back.text
    assert "Global Tech" not in back.text  # discussed on 9 June: this week, not last week
    later = _row(rows, "2025-06-11", "Which product did we discuss last week?")["reply"]
    [new_yield] = _added(_row(rows, "2025-06-11", "Steady Income Fund No. 3 now yields 3.4% annualised."))
    assert [c.id for c in later.citations] == [first.id, new_yield.id]
    assert later.lines[1] == "Latest yield on record (11 June): “Steady Income Fund No. 3 now yields 3.4% annualised.”"


def test_en_expiry_by_category(en):
    mem, rows = en
    [old_yield] = _added(_row(rows, "2025-06-03", "Steady Income Fund No. 3 yielded 3.2% annualised this week."))
    assert old_yield.metadata == {"category": "product_yield", "expire_strategy": "7d",
                                  "product": "Steady Income Fund No. 3"}
    assert old_yield.expires_at - old_yield.created_at == timedelta(days=7)
    [risk] = _added(_row(rows, "2025-06-03", "My risk preference is conservative."))
    assert risk.metadata["expire_strategy"] == "permanent" and risk.expires_at is None
    [worry] = _added(_row(rows, "2025-06-03", "I'm a bit worried about inflation this year."))
    assert worry.metadata["category"] == "emotion" and worry.expires_at - worry.created_at == timedelta(hours=24)
    with frozen_clock("2025-06-11T12:00:00Z"):
        live = {m.id for m in mem.get_all(user_id=UID_EN)}
    assert risk.id in live and old_yield.id not in live and worry.id not in live


def test_en_sensitive_changes_go_to_review_and_are_not_applied(en):
    mem, rows = en
    [card] = _added(_row(rows, "2025-06-03", "My bank card number is 6222 0212 3456 7890."))
    [phone] = _added(_row(rows, "2025-06-03", "My phone number is 07700 900456."))
    queue = {r.id: r for r in mem.review_queue(user_id=UID_EN)}
    assert len(queue) == 2

    card_turn = _row(rows, "2025-06-11", "My bank card number is 6222 0288 8888 1234 now.")["reply"]
    [ev] = card_turn.events
    assert ev.event == "REVIEW" and ev.review_id in queue and card_turn.metadata["held"] == []
    assert queue[ev.review_id].targets == [card.id]
    assert card_turn.metadata["intent"] == "sensitive_change"
    assert card_turn.lines == [f"For your security, the change to your bank card was not applied: it has been sent "
                               f"for review (review {ev.review_id}).",
                               "The bank card on record stays ****7890 until the review is done."]

    phone_turn = _row(rows, "2025-06-11", "Please change my phone number to 07700 900123.")["reply"]
    [ev2] = phone_turn.events
    # the fact rules read it as a change of the phone on record: the library's review policy holds it
    assert ev2.event == "REVIEW" and phone_turn.metadata["held"] == [] and phone_turn.metadata["intent"] == \
        "sensitive_change"
    held = queue[ev2.review_id]
    assert (held.proposed.fact.attribute, held.proposed.fact.value) == ("phone", "07700 900123")
    assert held.targets == [phone.id] and held.proposed.text == "Please change my phone number to 07700 900123."

    texts = " ".join(_all_texts(mem, UID_EN))
    assert "6222 0288 8888 1234" not in texts and "07700 900123" not in texts
    facts = {m.fact.attribute: m.text for m in mem.get_all(user_id=UID_EN, filters={"kind": "fact"})}
    assert facts["bank_card"] == "My bank card number is 6222 0212 3456 7890."
    assert facts["phone"] == "My phone number is 07700 900456."
    asked = _row(rows, "2025-06-11", "What phone number do you have for me now?")["reply"]
    assert [c.id for c in asked.citations] == [phone.id]
    fee = _row(rows, "2025-06-11", "Is there a fee for monthly top-ups?")["reply"]
    assert fee.metadata["intent"] == "general_question" and fee.citations == []
    question = _row(rows, "2025-06-11", "When will the review of my bank card change be finished?")["reply"]
    assert question.metadata["intent"] == "question" and question.metadata["review_ids"] == []


def test_en_structured_summary_every_twenty_turns(en):
    mem, rows = en
    made = [(i, r) for i, r in enumerate(rows) if r["reply"].metadata["summary_id"]]
    assert [r["session_id"] for _, r in made] == ["2025-06-03", "2025-06-11"]
    for i, r in made:
        summary = next(e.memory for e in r["reply"].events if e.memory.id == r["reply"].metadata["summary_id"])
        assert summary.kind == "summary" and summary.session_id == r["session_id"]
        said = " ".join(x["text"] for x in rows if x["session_id"] == r["session_id"])
        lines = [ln[2:] for ln in summary.text.splitlines() if ln.startswith("- ")]
        assert lines and all(ln.removeprefix("Maya: ") in said for ln in lines)
        nxt = rows[i + 1]["reply"].metadata["context"]["sections"]
        assert nxt[0] == "summary"
    assert "My risk preference is conservative." in next(
        e.memory.text for e in made[0][1]["reply"].events if e.memory.kind == "summary")


# ------------------------------------------------------------------------------------------ Chinese case
def test_zh_case_end_to_end(zh):
    mem, rows = zh
    assert len(rows) == 60
    [risk] = _added(_row(rows, "2025-06-03", "我的风险偏好是保守型。"))
    assert risk.expires_at is None and risk.metadata["category"] == "risk_preference"
    ask = _row(rows, "2025-06-03", "你还记得我的风险偏好是什么吗？")["reply"]
    assert ask.lines == ["您在6月3日说过：“我的风险偏好是保守型。”"] and [c.id for c in ask.citations] == [risk.id]

    [first] = _added(_row(rows, "2025-06-03", "我在看稳健收益3号这个产品。"))
    assert first.metadata == {"category": "other", "product": "稳健收益3号"}
    [old_yield] = _added(_row(rows, "2025-06-03", "稳健收益3号这周的年化收益是3.2%。"))
    assert old_yield.expires_at - old_yield.created_at == timedelta(days=7)
    back = _row(rows, "2025-06-11", "上周我们聊的那个产品收益是多少？")["reply"]
    assert back.lines == ["上周我们聊的是稳健收益3号。6月3日您说过：“我在看稳健收益3号这个产品。”",
                          "您6月3日提到的收益数据已超过7天，不再作为当前信息保留，请以最新数据为准。"]
    assert [c.id for c in back.citations] == [first.id]

    [card] = _added(_row(rows, "2025-06-03", "我的银行卡号是6222021234567890。"))
    [phone] = _added(_row(rows, "2025-06-03", "我的手机号是13800138000。"))
    queue = {r.id: r for r in mem.review_queue(user_id=UID_ZH)}
    card_turn = _row(rows, "2025-06-11", "我的银行卡号是6222028888881234。")["reply"]
    assert card_turn.events[0].event == "REVIEW" and card_turn.events[0].review_id in queue
    assert card_turn.lines[1] == "审核完成前，记录中的银行卡仍为****7890。"
    phone_turn = _row(rows, "2025-06-11", "我的手机号换成了13700137000。")["reply"]
    # the fact rules read 换成了 as a change of the phone slot: queued by Memory.add, not by the assistant
    [held_id] = phone_turn.metadata["review_ids"]
    assert phone_turn.metadata["held"] == [] and phone_turn.events[0].event == "REVIEW"
    assert phone_turn.lines[1] == "审核完成前，记录中的手机号仍为****8000。"
    assert queue[held_id].targets == [phone.id] and queue[held_id].proposed.fact.value == "13700137000"
    assert phone_turn.lines[0] == f"为了您的账户安全，手机号的变更暂未生效，已提交人工审核（审核单号 {held_id}）。"
    texts = " ".join(_all_texts(mem, UID_ZH))
    assert "6222028888881234" not in texts and "13700137000" not in texts
    asked = _row(rows, "2025-06-11", "你那里现在记的我的手机号是多少？")["reply"]
    assert [c.id for c in asked.citations] == [phone.id]
    assert len({r["reply"].metadata["summary_id"] for r in rows} - {None}) == 2
    assert card.fact.attribute == "bank_card"


# ------------------------------------------------------------------------------------------ units
def test_approving_a_held_change_applies_it(tmp_path):
    mem = Memory(str(tmp_path / "m.db"), embedder="hash", llm=None)
    agent = SupportAgent(mem, "c1", name="Ann")
    with frozen_clock("2025-06-03T09:00:00Z"):
        [old] = [e.memory for e in agent.turn("My phone number is 07700 900456.", session_id="s1").events]
        rep = agent.turn("Please update my mobile number to 07700 900789.", session_id="s1")
        [rid] = [e.review_id for e in rep.events if e.event == "REVIEW"]
        events = mem.approve(rid)
    assert [(e.event, e.memory.id == old.id) for e in events] == [("ADD", False), ("SUPERSEDE", True)]
    assert mem.get(old.id).valid_to is not None and mem.get(old.id).superseded_by == events[0].memory.id
    [current] = mem.get_all(user_id="c1", filters={"kind": "fact"})
    assert current.text == "Please update my mobile number to 07700 900789."
    mem.close()


def test_signals_and_masking():
    assert mask_numbers("card 6222 0288 8888 1234, phone 13700137000") == "card ****1234, phone ****7000"
    assert signals.sensitive_change("Please change my bank card to 6222 0299 9999 0000.") == "bank_card"
    assert signals.sensitive_change("我的手机号换成了13700137000。") == "phone"
    assert signals.sensitive_change("When will the review of my bank card change be finished?") is None
    assert signals.refers_back("上周我们聊的那个产品收益是多少？") and signals.refers_back("the fund we discussed")
    assert not signals.refers_back("What is my risk preference?")
    assert signals.strip_meta("What yield did I mention for Steady Income?") == "What yield for Steady Income?"
    assert signals.strip_meta("你还记得我的风险偏好是什么吗？") == "我的风险偏好是什么吗？"
    assert signals.support_category("Green Bond Plus is paying a 2.9% interest rate.") == "product_yield"
    assert signals.support_category("我的风险偏好是保守型。") == "risk_preference"
    assert signals.support_category("今天股市跌得我好焦虑。") == "emotion"
    assert signals.answer_status("No, I haven't sent them yet.") == "not_done"
    assert signals.answer_status("No problem, I sent them.") == "done"
    assert signals.answer_status("还没有发，不好意思。") == "not_done"


def test_cli_support_scenario_and_interactive(tmp_path, monkeypatch):
    monkeypatch.delenv("ANCHORMEM_PATH", raising=False)
    monkeypatch.delenv("ANCHORMEM_LLM_BASE_URL", raising=False)
    runner = CliRunner()
    res = runner.invoke(app, ["--json", "support", "support_zh", "--embedder", "hash", "--db", str(tmp_path / "a.db")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert len(doc["turns"]) == 60 and len(doc["review_queue"]) == 2
    assert {r["text"] for r in doc["review_queue"]} == {"我的银行卡号是6222028888881234。",
                                                         "我的手机号换成了13700137000。"}

    lines = "My risk preference is conservative.\nWhat is my risk preference?\n/end\n/quit\n"
    res = runner.invoke(app, ["--db", str(tmp_path / "b.db"), "--json", "support", "--customer", "c9",
                              "--embedder", "hash", "--session", "s1"], input=lines)
    assert res.exit_code == 0, res.output
    out = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    assert out[1]["reply"]["lines"][0].endswith("“My risk preference is conservative.”")
    assert out[1]["reply"]["citations"][0]["text"] == "My risk preference is conservative."
    assert out[2]["summary"].startswith("Topic:") and out[2]["session_id"] == "s1"


def test_llm_reply_reads_the_context_and_is_checked(tmp_path):
    mem = Memory(str(tmp_path / "m.db"), embedder="hash", llm=None)
    noted = json.dumps({"reply": "Thanks Maya, noted.", "cited_ids": []})
    good = json.dumps({"reply": "Maya, your risk preference is conservative, as you said.", "cited_ids": ["m1"]})
    bad = json.dumps({"reply": "Maya, your risk preference is aggressive since 2019.", "cited_ids": ["m1"]})
    with frozen_clock("2025-06-03T09:00:00Z"), FakeLLMServer([noted, good, bad]) as srv:
        agent = SupportAgent(mem, "c1", name="Maya", llm=OpenAICompatLLM(srv.base_url, "fake"))
        first = agent.turn("My risk preference is conservative.", session_id="s1")
        assert first.llm is True and first.text == "Thanks Maya, noted."
        ok = agent.turn("What is my risk preference?", session_id="s1")
        assert ok.llm is True and ok.lines == ["Maya, your risk preference is conservative, as you said."]
        assert [c.text for c in ok.citations] == ["My risk preference is conservative."]
        prompt = srv.requests[1]["messages"][1]["content"]
        assert prompt.startswith("Conversation context:\n")
        assert "user (Maya): My risk preference is conservative." in prompt
        wrong = agent.turn("Can you remind me what my risk preference is?", session_id="s1")
        assert wrong.llm is False and "2019" not in wrong.text
        assert wrong.lines == ["You told me on 3 June: “My risk preference is conservative.”"]
        held = agent.turn("Please change my phone number to 07700 900123.", session_id="s1")
        assert held.llm is False and held.metadata["intent"] == "sensitive_change"
        assert len(srv.requests) == 3  # sensitive changes never go through the LLM
    mem.close()
