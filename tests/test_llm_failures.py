"""What a slow or broken LLM does to anchormem, against the scripted fake server (fast; the same cases against a real
model are in tests/test_llm_real.py): a timeout is a clear error after ONE wait (not retried), every reply is
bounded by the ``max_tokens`` ceiling, and a summary written by ``add`` after its memories are stored never fails
the add (the offline summary instead): never a half-stored add."""

from __future__ import annotations

import time

import pytest

from anchormem import Memory
from anchormem.config import Settings
from anchormem.errors import ConfigError, LLMError
from anchormem.llms import OpenAICompatLLM, make_llm
from anchormem.testing.fake_llm import FakeLLMServer, FakeReply

NEVER_CLOSED = '{"topic": ["杭州"], "lines": [{"section": "facts", "text": "我搬到杭州'


def _slow(seconds: float, reply: str = '{"facts": []}'):
    def answer(req: dict) -> str:
        time.sleep(seconds)
        return reply
    return answer


def test_timeout_is_one_clear_error_not_retried():
    with FakeLLMServer(_slow(1.5)) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake", timeout=0.3, max_retries=2)
        t = time.perf_counter()
        with pytest.raises(LLMError, match=r"timed out after 0\.3 s.*ANCHORMEM_LLM_TIMEOUT"):
            llm.complete([{"role": "user", "content": "hi"}])
        elapsed = time.perf_counter() - t
        time.sleep(1.3)  # let the handler finish before counting
        assert len(srv.requests) == 1  # a timed-out request is not sent again
    assert elapsed < 1.0


def test_max_tokens_ceiling_caps_every_request():
    with FakeLLMServer(["{}", "{}", "{}"]) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake", max_tokens=64)
        llm.complete([{"role": "user", "content": "a"}], max_tokens=1024)
        llm.complete([{"role": "user", "content": "b"}], max_tokens=16)
        llm.complete([{"role": "user", "content": "c"}])
        assert [r.get("max_tokens") for r in srv.requests] == [64, 16, 64]
    with pytest.raises(ConfigError, match="max_tokens"):
        OpenAICompatLLM("http://127.0.0.1:9/v1", "m", max_tokens=0)


def test_make_llm_reads_timeout_and_ceiling_from_the_environment(monkeypatch):
    monkeypatch.setenv("ANCHORMEM_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANCHORMEM_LLM_MODEL", "smollm2")
    monkeypatch.setenv("ANCHORMEM_LLM_TIMEOUT", "240")
    monkeypatch.setenv("ANCHORMEM_LLM_MAX_TOKENS", "256")
    llm = make_llm()
    assert (llm.timeout, llm.max_tokens, llm.model) == (240.0, 256, "smollm2")
    assert make_llm(timeout=5).timeout == 5  # an argument wins over the environment
    monkeypatch.setenv("ANCHORMEM_LLM_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="ANCHORMEM_LLM_TIMEOUT must be a number, got 'soon'"):
        make_llm()
    monkeypatch.setenv("ANCHORMEM_LLM_TIMEOUT", "30")
    monkeypatch.setenv("ANCHORMEM_LLM_MAX_TOKENS", "-1")
    with pytest.raises(ConfigError, match="ANCHORMEM_LLM_MAX_TOKENS must be positive"):
        make_llm()


@pytest.mark.parametrize("failure", [FakeReply(content=NEVER_CLOSED, finish_reason="length"),
                                     FakeReply(status=500, content="model crashed"), "no JSON at all"])
def test_summary_failure_inside_add_falls_back_offline_and_the_add_stands(tmp_path, failure):
    # the extractor runs offline here; the summary written every turn (summary_every=1) asks the LLM, which fails
    with FakeLLMServer([failure]) as srv, Memory(str(tmp_path / "m.db"), embedder="hash", settings=Settings(
            fact_extractor="rules", labeller="offline", summary_every=1),
            llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0)) as m:
        evs = m.add("我上周三刚搬到杭州，月租4500元。", user_id="u", session_id="s",
                    timestamp="2024-05-06T21:00:00+08:00")
        assert len(srv.requests) == 1
        kinds = sorted(e.memory.kind for e in evs if e.event == "ADD")
        assert "summary" in kinds  # the offline summary, written in the same add
        summary = next(e.memory for e in evs if e.memory.kind == "summary")
        assert "4500" in summary.text and summary.confidence == 0.8
        stored = m.get_all(user_id="u")
        assert sorted(x.kind for x in stored) == kinds


def test_summarize_with_a_never_closing_reply_is_offline(tmp_path):
    with FakeLLMServer([FakeReply(content=NEVER_CLOSED, finish_reason="length")]) as srv, \
            Memory(str(tmp_path / "m.db"), embedder="hash", settings=Settings(
                fact_extractor="rules", labeller="offline", summary_every=0),
                llm=OpenAICompatLLM(srv.base_url, "fake", max_retries=0)) as m:
        m.add("我上周三刚搬到杭州，月租4500元。", user_id="u", session_id="s")
        item = m.summarize(user_id="u", session_id="s")
        assert item is not None and "月租4500元" in item.text  # offline lines are verbatim sentences


def test_labeller_reply_for_turns_not_given_is_an_echo_retried_then_offline():
    from anchormem.context.llm_labeller import LLMLabeller
    from anchormem.errors import LLMParseError

    echo = ('{"labels": [{"turn": 1, "domain": "finance", "topic": "finance", "intent": "report"}, '
            '{"turn": 2, "domain": "work", "topic": "work", "intent": "report"}]}')
    good = '{"labels": [{"turn": 1, "domain": "health", "topic": "support group", "intent": "report"}]}'
    turn = ["I went to a support group yesterday."]
    with FakeLLMServer([echo, echo]) as srv:
        with pytest.raises(LLMParseError, match=r"turn\(s\) \[2\] but only 1 turn"):
            LLMLabeller(OpenAICompatLLM(srv.base_url, "fake")).label(turn)
        assert len(srv.requests) == 2
    with FakeLLMServer([echo, good]) as srv:
        got = LLMLabeller(OpenAICompatLLM(srv.base_url, "fake")).label(turn)
    assert [(lb.domain, lb.topic) for lb in got[0]] == [("health", "support group")]


def test_a_verbatim_sentence_spanning_a_negated_clause_is_supported():
    # an offline summary line, copied from the message, was flagged "negation differs" (found by bench/llm_real.py)
    from anchormem.facts.grounding import check_support

    src = "Hey Gina! Good to see you too. Lost my job as a banker yesterday, so I'm gonna take a shot at starting " \
          "my own business."
    line = "Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business."
    assert check_support(line, src).ok
    assert not check_support("I'm gonna take a shot at starting my own business, not lost my job", src).ok
