"""The mediator reference agent (anchormem.agents.mediator, ``anchormem mediate``): the bundled neighbour disputes
replayed end to end on the hash embedder with a frozen clock, the stage machine, neutrality, state across
processes, the grounded LLM rewrite and the CLI."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from typer.testing import CliRunner

from anchormem import Memory
from anchormem.agents import Mediator, load_scenario
from anchormem.agents.mediator import TurnSignals, next_stage
from anchormem.cli import app
from anchormem.errors import InvalidInputError
from anchormem.llms.openai_compat import OpenAICompatLLM
from anchormem.testing import FakeLLMServer, frozen_clock

from agent_replay import replay_fixture  # tests/agent_replay.py
from agent_replay import row as _row

CASE_EN, CASE_ZH = "hedge-dispute-42", "noise-dispute-7"

en = replay_fixture("neighbour_dispute_en", "2025-05-01T00:00:00Z")
zh = replay_fixture("neighbour_dispute_zh", "2025-05-01T00:00:00Z")


def _private_texts(mem, case, party):
    items = mem.get_all(user_id=case, filters={"metadata.party": party, "metadata.visibility": "private",
                                               "source": "user"}, include_superseded=True, show_expired=True)
    return {m.id: m.text for m in items}


# ------------------------------------------------------------------------------------------ English scenario
def test_en_stages_follow_the_conversation(en):
    _, rows = en
    stage = {r["text"]: r["reply"].metadata["stage"] for r in rows}
    assert stage["My neighbour Bob and I have a problem with his hedge."] == "information_gathering"
    assert stage["I'm so angry that he ignores my letters."] == "de_escalation"
    assert stage["Honestly, I am furious about it."] == "de_escalation"
    assert stage["The hedge gives my family privacy from the street."] == "option_exploration"
    agree = _row(rows, "2025-05-10", "I agree to 2.2 metres, and I will trim the hedge to 2.2 metres by May 31.")
    assert agree["reply"].metadata["stage"] == "agreement_confirmation"
    assert agree["reply"].metadata["accepted_by"] == ["bob"]
    assert agree["reply"].lines[-1] == "Still waiting for Alice to confirm."
    accept = _row(rows, "2025-05-10", "Yes, I accept 2.2 metres by May 31.")
    assert accept["reply"].metadata["stage"] == "follow_up"
    assert accept["reply"].metadata["accepted_by"] == ["alice", "bob"]
    assert rows[-1]["reply"].metadata["stage"] == "follow_up"


def test_en_overdue_commitment_is_raised_first_and_breach_recorded(en):
    mem, rows = en
    promise = _row(rows, "2025-05-03", "I will send you the land survey documents by Monday.")
    [doc_id] = promise["reply"].metadata["new_commitments"]
    doc = mem.get(doc_id)
    assert doc.kind == "commitment" and doc.speaker == "Bob" and doc.metadata["party"] == "bob"
    assert promise["reply"].lines[-1] == "Noted as a commitment: “I will send you the land survey documents by " \
                                         "Monday.” (due 5 May)."

    back = _row(rows, "2025-05-10", "Hello again.")["reply"]
    assert back.lines[0] == "About “I will send you the land survey documents by Monday.” (due 5 May, overdue): done?"
    assert back.metadata["raised_commitments"] == [doc_id]

    answer = _row(rows, "2025-05-10", "No, I haven't sent them yet, sorry. I will send them by Wednesday.")["reply"]
    assert answer.lines[0] == "Recorded as not kept: “I will send you the land survey documents by Monday.” " \
                              "(it was due 5 May)."
    assert answer.metadata["closed_commitments"] == [{"id": doc_id, "status": "breached"}]
    closed = mem.get(doc_id)
    assert closed.valid_to is not None
    assert [h.event for h in mem.history(doc_id)][-1] == "DONE"
    assert mem.history(doc_id)[-1].reason.startswith("breached: Bob: No, I haven't sent them yet")
    [record] = mem.get_all(user_id=CASE_EN, filters={"metadata.record": "commitment_status",
                                                     "metadata.commitment_id": doc_id})
    assert record.metadata["status"] == "breached" and record.source == "assistant"
    assert record.text == "Bob reported the commitment due 5 May as not kept on 10 May."
    [new_id] = answer.metadata["new_commitments"]
    assert mem.get(new_id).text == "I will send them by Wednesday."

    third = _row(rows, "2025-06-02", "Hi, Bob here.")["reply"]
    assert third.lines[0] == "About “I will send them by Wednesday.” (due 14 May, overdue): done?"
    assert third.lines[1] == "About “I agree to 2.2 metres, and I will trim the hedge to 2.2 metres by May 31.” " \
                             "(due 31 May, overdue): done?"
    done = _row(rows, "2025-06-02", "Yes, I did both: I sent the documents and trimmed the hedge on Saturday.")
    assert [c["status"] for c in done["reply"].metadata["closed_commitments"]] == ["fulfilled", "fulfilled"]
    assert done["reply"].metadata["closed_commitments"][0]["id"] == new_id
    alice_back = _row(rows, "2025-06-02", "Hello, the hedge looks much better now.")["reply"]
    assert alice_back.lines[0] == "About “I will ask a gardener for a quote by Friday.” (due 16 May, overdue): done?"
    with frozen_clock("2025-06-03T00:00:00Z"):
        assert mem.due(user_id=CASE_EN) == []


def test_en_replies_cite_the_right_memories(en):
    mem, rows = en
    third = _row(rows, "2025-05-03", "I want the hedge cut down to two metres.")["reply"]
    assert "On 3 May you said: “Bob's hedge has grown to four metres and it blocks the light in my kitchen.”" \
        in third.lines
    own = [c for c in third.citations if c.text.startswith("Bob's hedge has grown")]
    assert len(own) == 1 and own[0].metadata["party"] == "alice"

    offer_text = "You can tell Alice that I am willing to trim it to 2.5 metres."
    [offer] = [m for m in mem.get_all(user_id=CASE_EN, filters={"metadata.party": "bob"}) if m.text == offer_text]
    assert offer.metadata["visibility"] == "shared" and offer.metadata["category"] == "proposal"
    reply = _row(rows, "2025-05-03", "Two and a half metres is still too tall for my kitchen window.")["reply"]
    assert f"On 3 May Bob said (shared with their consent): “{offer_text}”" in reply.lines
    assert offer.id in reply.metadata["citations"]
    consent = _row(rows, "2025-05-03", offer_text)["reply"]
    assert consent.lines[-1] == "As you allowed, this can be passed on to Alice."


def test_en_private_memories_of_one_party_never_reach_the_other(en):
    mem, rows = en
    for viewer, other in (("alice", "bob"), ("bob", "alice")):
        private = _private_texts(mem, CASE_EN, other)
        assert len(private) >= 4
        replies = [r["reply"] for r in rows if r["party"] == viewer]
        for rep in replies:
            for mid, text in private.items():
                assert text not in rep.text, (viewer, text)
                assert mid not in rep.metadata["citations"]
            assert all(c.metadata.get("party") == viewer or c.metadata.get("visibility") == "shared"
                       for c in rep.citations)
    bob_private = set(_private_texts(mem, CASE_EN, "bob").values())
    assert "My bottom line is that the hedge stays at least 2.5 metres tall." in bob_private
    assert "I will send you the land survey documents by Monday." in bob_private


def test_en_emotions_expire_after_a_day_and_positions_stay(en):
    mem, _ = en
    [angry] = mem.get_all(user_id=CASE_EN, filters={"metadata.category": "emotion", "metadata.party": "alice"},
                          show_expired=True)
    assert angry.text == "I'm so angry that he ignores my letters."
    assert angry.expires_at - angry.created_at == timedelta(hours=24)
    [kitchen] = mem.get_all(user_id=CASE_EN, filters={"metadata.category": "position", "metadata.party": "alice",
                                                      "created_at": {"gte": "2025-05-03T09:02:00Z",
                                                                     "lt": "2025-05-03T09:03:00Z"}})
    assert kitchen.text.startswith("Bob's hedge has grown") and kitchen.expires_at is None
    with frozen_clock("2025-05-10T10:00:00Z"):
        texts = [m.text for m in mem.get_all(user_id=CASE_EN, filters={"metadata.party": "alice"})]
    assert angry.text not in texts and kitchen.text in texts


# ------------------------------------------------------------------------------------------ Chinese scenario
def test_zh_dispute_raises_the_overdue_commitment_first_and_stays_neutral(zh):
    mem, rows = zh
    back = _row(rows, "2025-05-10", "你好，我又来了。")["reply"]
    assert back.lines[0] == "关于“我会在下周一前把施工合同发给你。”（5月5日到期，已逾期）：完成了吗？"
    breach = _row(rows, "2025-05-10", "还没有发，不好意思。我会在下周三前发过去。")["reply"]
    assert breach.lines[0] == "已记录为未按时完成：“我会在下周一前把施工合同发给你。”（原定5月5日）。"
    assert breach.metadata["closed_commitments"][0]["status"] == "breached"
    third = _row(rows, "2025-06-02", "你好。")["reply"]
    assert third.lines[:2] == ["关于“我会在下周三前发过去。”（5月14日到期，已逾期）：完成了吗？",
                               "关于“我同意：周末停工，工作日九点以后开工，我会在5月31日前完成装修。”（5月31日到期，已逾期）：完成了吗？"]
    assert _row(rows, "2025-05-03", "我真的很生气。")["reply"].metadata["stage"] == "de_escalation"
    li = _row(rows, "2025-05-03", "九点开工还行，可周末的噪音怎么办？")["reply"]
    assert "5月3日老王说过（经其同意转达）：“可以转告小李，我愿意让装修队九点以后再开工。”" in li.lines
    assert rows[-1]["reply"].metadata["stage"] == "follow_up"
    for viewer, other in (("li", "wang"), ("wang", "li")):
        private = _private_texts(mem, CASE_ZH, other)
        assert len(private) >= 4
        for rep in (r["reply"] for r in rows if r["party"] == viewer):
            assert not any(t in rep.text for t in private.values())
            assert not set(private) & set(rep.metadata["citations"])
    with frozen_clock("2025-06-03T00:00:00Z"):
        assert mem.due(user_id=CASE_ZH) == []


# ------------------------------------------------------------------------------------------ units
def test_stage_machine_rules():
    both = ["a", "b"]
    calm = TurnSignals(categories=["position"])
    assert next_stage("information_gathering", calm, party="a", parties=both, heard={"a"}, accepted=set()) == \
        ("information_gathering", set())
    assert next_stage("information_gathering", calm, party="b", parties=both, heard={"a", "b"}, accepted=set())[0] \
        == "option_exploration"
    assert next_stage("follow_up", TurnSignals(emotion="anger"), party="a", parties=both, heard=set(),
                      accepted={"a", "b"}) == ("de_escalation", set())
    agree = TurnSignals(accepts=True)
    assert next_stage("option_exploration", agree, party="a", parties=both, heard=set(), accepted=set()) == \
        ("agreement_confirmation", {"a"})
    assert next_stage("agreement_confirmation", agree, party="b", parties=both, heard=set(), accepted={"a"}) == \
        ("follow_up", {"a", "b"})
    assert next_stage("agreement_confirmation", TurnSignals(rejects=True), party="b", parties=both, heard=set(),
                      accepted={"a"}) == ("option_exploration", set())
    assert next_stage("follow_up", TurnSignals(breached=True), party="a", parties=both, heard=set(),
                      accepted={"a", "b"}) == ("option_exploration", set())
    with pytest.raises(InvalidInputError):
        next_stage("negotiation", calm, party="a", parties=both, heard=set(), accepted=set())


def test_bad_input_raises_clear_errors(tmp_path):
    mem = Memory(str(tmp_path / "m.db"), embedder="hash", llm=None)
    with pytest.raises(InvalidInputError, match="at least two parties"):
        Mediator(mem, "c", {"a": "A"})
    med = Mediator(mem, "c", {"a": "A", "b": "B"})
    with pytest.raises(InvalidInputError, match="unknown party 'z'"):
        med.turn("z", "hello", session_id="s1")
    with pytest.raises(InvalidInputError, match="non-empty text"):
        med.turn("a", "   ", session_id="s1")
    with pytest.raises(InvalidInputError, match="not a file"):
        load_scenario("no_such_scenario")
    bad = load_scenario("neighbour_dispute_en")
    bad["sessions"][0]["turns"][0]["party"] = "carol"
    with pytest.raises(InvalidInputError, match="party 'carol'"):
        load_scenario(bad)
    mem.close()


def test_state_continues_in_a_new_process(tmp_path):
    path = str(tmp_path / "m.db")
    parties = {"ann": "Ann", "ben": "Ben"}
    with frozen_clock("2025-03-03T09:00:00Z"):
        with Memory(path, embedder="hash", llm=None) as mem:
            med = Mediator(mem, "fence", parties)
            med.turn("ann", "The fence between our gardens is falling apart.", session_id="s1",
                     at="2025-03-03T09:00:00+00:00")
            med.turn("ben", "I will repair the fence by March 10.", session_id="s1", at="2025-03-03T09:05:00+00:00")
            assert med.stage == "option_exploration"
    with frozen_clock("2025-03-12T09:00:00Z"):
        with Memory(path, embedder="hash", llm=None) as mem:
            med = Mediator(mem, "fence", parties)
            assert med.stage == "option_exploration"
            first = med.turn("ben", "Good morning.", session_id="s2", at="2025-03-12T09:00:00+00:00")
            assert first.lines[0] == "About “I will repair the fence by March 10.” (due 10 March, overdue): done?"
            second = med.turn("ben", "Yes, it is fixed now.", session_id="s2", at="2025-03-12T09:01:00+00:00")
            assert second.metadata["closed_commitments"][0]["status"] == "fulfilled"
            assert med.open_commitments("ben") == []


def test_llm_rewrite_is_used_when_grounded_and_dropped_when_not(tmp_path):
    mem = Memory(str(tmp_path / "m.db"), embedder="hash", llm=None)
    parties = {"ann": "Ann", "ben": "Ben"}
    secret = "Between us, I never liked Ann's dog."
    grounded = json.dumps({"reply": "Ann, thanks. You told me the fence is falling apart; let's look at options.",
                           "cited_ids": ["m1"]})
    invented = json.dumps({"reply": "Ann, Ben will pay 500 euros on Friday.", "cited_ids": ["m1"]})
    with frozen_clock("2025-03-03T09:00:00Z"), FakeLLMServer([grounded, invented]) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake")
        plain = Mediator(mem, "fence", parties)
        plain.turn("ann", "The fence between our gardens is falling apart.", session_id="s1")
        plain.turn("ben", secret, session_id="s1")
        med = Mediator(mem, "fence", parties, llm=llm)
        ok = med.turn("ann", "The fence needs work before spring.", session_id="s1")
        assert ok.llm is True
        assert ok.lines == ["Ann, thanks. You told me the fence is falling apart; let's look at options."]
        assert [c.text for c in ok.citations] == ["The fence between our gardens is falling apart."]
        bad = med.turn("ann", "What about the fence posts?", session_id="s1")
        assert bad.llm is False
        assert "500" not in bad.text and bad.lines[0] == "Let's look for options that could work for both sides."
        prompts = json.dumps(srv.requests, ensure_ascii=False)
    assert len(srv.requests) == 2 and secret not in prompts
    mem.close()


def test_cli_mediate_runs_the_bundled_scenario(tmp_path, monkeypatch):
    monkeypatch.delenv("ANCHORMEM_PATH", raising=False)
    monkeypatch.delenv("ANCHORMEM_LLM_BASE_URL", raising=False)
    res = CliRunner().invoke(app, ["--json", "mediate", "neighbour_dispute_en", "--embedder", "hash",
                                   "--db", str(tmp_path / "cli.db")])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["agent"] == "mediator" and len(doc["turns"]) == 24 and doc["open_commitments"] == []
    back = next(t for t in doc["turns"] if t["session_id"] == "2025-05-10" and t["text"] == "Hello again.")
    assert back["reply"]["lines"][0] == \
        "About “I will send you the land survey documents by Monday.” (due 5 May, overdue): done?"
    assert back["reply"]["metadata"]["stage"] == "option_exploration"
    listed = CliRunner().invoke(app, ["--json", "mediate", "--list"])
    assert json.loads(listed.stdout) == ["neighbour_dispute_en", "neighbour_dispute_zh", "support_en", "support_zh"]
    wrong = CliRunner().invoke(app, ["mediate", "support_en", "--embedder", "hash", "--db", str(tmp_path / "x.db")])
    assert wrong.exit_code == 2 and "anchormem support" in wrong.stderr
