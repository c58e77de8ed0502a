"""The LLM context labeller, against a scripted OpenAI-compatible server on loopback: strict JSON validated against
the taxonomy, topics grounded in the text, one retry on a broken reply, then the offline labels; a cache by
normalised text; wired into Memory.add when an LLM is configured."""

from __future__ import annotations

import json
import os

import pytest

from anchormem import Memory, Settings
from anchormem.context.llm_labeller import SYSTEM_PROMPT, LLMLabeller
from anchormem.errors import ConfigError, LLMParseError
from anchormem.llms.openai_compat import OpenAICompatLLM
from anchormem.testing.fake_llm import FakeLLMServer


def _reply(*items: dict) -> str:
    return json.dumps({"labels": list(items)}, ensure_ascii=False)


def _llm(srv: FakeLLMServer) -> OpenAICompatLLM:
    return OpenAICompatLLM(srv.base_url, "fake", max_retries=0)


def test_labels_are_validated_grounded_and_cached():
    reply = _reply({"turn": 1, "domain": "Finance", "topic": "Savings", "intent": "report", "score": 0.95,
                    "secondary": ["home", "astrology"]},
                   {"turn": 2, "domain": "banking", "topic": "loan", "intent": "ask"},  # not a taxonomy domain
                   {"turn": 3, "domain": "travel", "topic": "kyoto temples", "intent": "plan"})  # topic never said
    with FakeLLMServer([reply]) as srv:
        lab = LLMLabeller(_llm(srv))
        texts = ["It's 20k locked for three years.", "Can I borrow against it?", "We fly out in May."]
        got = lab.label(texts, context=["I opened a savings account at my bank."])
        assert [(x.domain, x.topic, x.intent, x.score, x.primary) for x in got[0]] == [
            ("finance", "savings", "report", 0.95, True), ("home", None, "report", 0.6, False)]
        assert got[1] is None  # no valid domain: the caller keeps the offline labels
        assert [(x.domain, x.topic) for x in got[2]] == [("travel", None)]  # ungrounded topic dropped
        assert (lab.stats.calls, lab.stats.labelled, lab.stats.rejected, lab.stats.topics_dropped) == (1, 2, 2, 1)
        sent = srv.requests[0]["messages"]
        assert sent[0]["content"] == SYSTEM_PROMPT
        assert "I opened a savings account" in sent[1]["content"] and "1. It's 20k locked" in sent[1]["content"]
        # the same turns in the same conversation, spaced and cased differently: no second call
        again = lab.label([" it's 20K  locked for three years.", *texts[1:]],
                          context=["I opened a savings account at my bank."])
        assert again[0][0].domain == "finance" and len(srv.requests) == 1 and lab.stats.cached == 3
        again[0][0] = again[0][0].model_copy(update={"topic": "edited"})  # what a caller does to its copy
        assert lab.label(texts, context=["I opened a savings account at my bank."])[0][0].topic == "savings"


def test_a_chinese_topic_is_grounded_as_a_substring():
    reply = _reply({"turn": 1, "domain": "technology", "topic": "苹果手机", "intent": "report"})
    with FakeLLMServer([reply]) as srv:
        got = LLMLabeller(_llm(srv)).label(["我的苹果手机升级后很卡。"])
        assert (got[0][0].domain, got[0][0].topic) == ("technology", "苹果手机")


def test_one_retry_then_a_typed_error():
    good = _reply({"turn": 1, "domain": "food", "topic": "apple", "intent": "report"})
    with FakeLLMServer(["Sure! Here you go: labels are food.", f"```json\n{good}\n```"]) as srv:
        lab = LLMLabeller(_llm(srv))
        assert lab.label(["I eat an apple every morning."])[0][0].domain == "food"
        assert len(srv.requests) == 2 and "could not be used" in srv.requests[1]["messages"][-1]["content"]
    with FakeLLMServer(["not json", '{"labels": "nope"}']) as srv:
        with pytest.raises(LLMParseError):
            LLMLabeller(_llm(srv)).label(["I eat an apple every morning."])


def _script(req: dict) -> str:
    """Answers label requests: every numbered turn is finance, with the topic 'savings' when it says it."""
    system = req["messages"][0]["content"]
    assert system == SYSTEM_PROMPT, "only the labeller calls the LLM in these tests"
    turns = [ln for ln in req["messages"][1]["content"].split("Turns to label:\n", 1)[1].splitlines() if ln]
    return _reply(*({"turn": n, "domain": "finance", "topic": "savings" if "saving" in t else "deposit",
                     "intent": "report"} for n, t in enumerate(turns, 1)))


def test_memory_add_labels_with_the_llm_and_search_stays_offline(tmp_path):
    with FakeLLMServer(_script) as srv:
        m = Memory(str(tmp_path / "m.db"), embedder="hash", llm=_llm(srv),
                   settings=Settings(fact_extractor="rules"))
        try:
            m.add([{"role": "user", "content": "I moved my savings to a fixed deposit."},
                   {"role": "user", "content": "It's locked for three years."}], user_id="u", session_id="s")
            items = m.get_all(user_id="u")
            assert [(it.labels[0].domain, it.labels[0].topic) for it in items] == [
                ("finance", "savings"), ("finance", "deposit")]
            n = len(srv.requests)
            assert m.search("locked", user_id="u", recipe="anchored")  # queries are labelled offline
            assert len(srv.requests) == n
            m.add("The bank pays two percent on it.", user_id="u", session_id="s")
            assert "It's locked for three years." in srv.requests[-1]["messages"][1]["content"]  # its context
            assert m.anchor.llm_labeller.stats.failed == 0
        finally:
            m.close()


def test_a_failing_labeller_keeps_the_offline_labels_and_counts_it(tmp_path):
    with FakeLLMServer(["garbage", "more garbage"]) as srv:
        m = Memory(str(tmp_path / "m.db"), embedder="hash", llm=_llm(srv),
                   settings=Settings(fact_extractor="rules"))
        try:
            ev = m.add("I deposited my salary into my savings account.", user_id="u")
            assert [e.event for e in ev] == ["ADD"] and ev[0].memory.labels  # stored, with offline labels
            assert m.anchor.llm_labeller.stats.failed == 1 and len(srv.requests) == 2
        finally:
            m.close()


def test_labeller_llm_needs_an_llm_and_offline_needs_none(tmp_path):
    m = Memory(str(tmp_path / "a.db"), embedder="hash", llm=None, settings=Settings(labeller="llm"))
    try:
        with pytest.raises(ConfigError, match="labeller='llm' needs an LLM"):
            m.add("I like tea.", user_id="u")
    finally:
        m.close()
    with FakeLLMServer([]) as srv:  # no scripted reply: any LLM call would fail
        m = Memory(str(tmp_path / "b.db"), embedder="hash", llm=_llm(srv),
                   settings=Settings(labeller="offline", fact_extractor="rules"))
        try:
            assert m.add("I deposited my salary into my savings account.", user_id="u")[0].memory.labels
            assert srv.requests == [] and m.anchor.llm_labeller is None
        finally:
            m.close()


@pytest.mark.llm_integration
@pytest.mark.skipif(not os.environ.get("ANCHORMEM_LLM_BASE_URL"),
                    reason="ANCHORMEM_LLM_BASE_URL is not set (opt-in test against a real LLM endpoint)")
def test_real_endpoint_labels_a_turn_by_its_conversation():
    from anchormem.llms import make_llm

    lab = LLMLabeller(make_llm())
    got = lab.label(["It's 20k locked for three years.", "我的苹果手机升级后很卡。"],
                    context=["I opened a fixed-term savings account at my bank."])
    assert got[0] and got[0][0].domain == "finance", lab.stats
    assert got[1] and got[1][0].domain == "technology", lab.stats
