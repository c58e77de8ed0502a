"""The LLM layer: reply parsing (C9, C12), the OpenAI-compatible client against a real loopback server."""

from __future__ import annotations

import httpx
import pytest

from anchormem.errors import AnchormemError, ConfigError, LLMError, LLMParseError, ProviderError
from anchormem.llms import LLM, OpenAICompatLLM, make_llm, parse_json_reply
from anchormem.testing import FakeLLMServer, FakeReply

FACT = '{"entity": "user", "attribute": "cat_name", "value": "<PET>", "polarity": 1, "confidence": 1.0, ' \
       '"source_quote": "My cat is called <PET>."}'


# -- parse_json_reply: C12 ---------------------------------------------------------------------------------------
def test_c12a_prose_then_json():
    r = parse_json_reply('Here are the facts I extracted:\n{"facts": [' + FACT + ']}')
    assert r.value["facts"][0]["value"] == "<PET>"
    assert len(r.value["facts"]) == 1 and not r.truncated


def test_c12b_fence_then_commentary():
    r = parse_json_reply('```json\n{"facts": [' + FACT + ']}\n```\nLet me know if you need anything {else}!')
    assert [f["attribute"] for f in r.value["facts"]] == ["cat_name"]
    assert not r.truncated


def test_c12c_truncated_salvages_complete_items_only():
    text = '```json\n{"facts": [' + FACT + ', {"entity": "user", "attribute": "home_city", "val'
    r = parse_json_reply(text)
    assert r.truncated is True
    assert [f["attribute"] for f in r.value["facts"]] == ["cat_name"]  # the partial item is not kept


def test_c12c_truncated_before_any_item_is_a_typed_error():
    with pytest.raises(LLMParseError) as ei:
        parse_json_reply('```json\n{"facts": [{"entity": "user", "attri')
    assert "cut off" in str(ei.value)
    assert isinstance(ei.value, LLMError) and isinstance(ei.value, ProviderError)


def test_c12d_empty_facts_then_note_with_braces():
    r = parse_json_reply('{"facts": []}\nNote: I found nothing to extract in {braces} {"x": 1}.')
    assert r.value == {"facts": []}


def test_c9_lone_surrogate_escape_is_dropped():
    r = parse_json_reply('{"facts": [{"value": "City C \\ud83d"}, {"value": "ok \\ud83d\\ude00"}]}')
    assert r.value["facts"][0]["value"] == "City C "
    assert r.value["facts"][1]["value"] == "ok \U0001F600"  # a valid pair is kept
    assert r.repaired and any("surrogate" in n for n in r.notes)
    r.value["facts"][0]["value"].encode("utf-8")  # storable


def test_invalid_escapes_and_trailing_commas_are_repaired():
    assert parse_json_reply('{"a": "x\\qy \\u12z"}').value == {"a": "xqy 12z"}
    assert parse_json_reply('{"facts": [{"value": "x",},]}').value == {"facts": [{"value": "x"}]}
    assert parse_json_reply("{'facts': [{'value': 'x'}]}").value == {"facts": [{"value": "x"}]}


def test_think_block_and_prose_braces_are_skipped():
    assert parse_json_reply('<think>maybe {"facts": [1]}</think>{"facts": [2]}').value == {"facts": [2]}
    assert parse_json_reply('I put it in {braces}: {"facts": []}').value == {"facts": []}


def test_expect_array_and_type_mismatch():
    assert parse_json_reply('result: [1, 2, 3] done', expect="array").value == [1, 2, 3]
    assert parse_json_reply('[1, 2] then {"a": 1}', expect="object").value == {"a": 1}
    with pytest.raises(LLMParseError):
        parse_json_reply("[1, 2]", expect="object")


@pytest.mark.parametrize("text", ["I am sorry, I cannot help with that.", "", "{braces} only", "[see above]"])
def test_garbage_raises_typed_error(text):
    with pytest.raises(LLMParseError):
        parse_json_reply(text)


# -- OpenAICompatLLM + FakeLLMServer -----------------------------------------------------------------------------
def test_fake_server_round_trip():
    with FakeLLMServer(["hello 你好", lambda req: "echo " + req["messages"][-1]["content"]]) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake", api_key="k-123")
        assert isinstance(llm, LLM)
        assert llm.complete([{"role": "user", "content": "hi"}], max_tokens=5) == "hello 你好"
        assert llm.complete([{"role": "user", "content": "ping"}]) == "echo ping"
        assert len(srv.requests) == 2
        assert srv.requests[0]["model"] == "fake" and srv.requests[0]["max_tokens"] == 5
        assert srv.requests[0]["temperature"] == 0.0
        assert srv.headers[0]["Authorization"] == "Bearer k-123"
        assert "response_format" not in srv.requests[0]
        assert llm.last_finish_reason == "stop"
        with pytest.raises(LLMError) as ei:  # script exhausted -> HTTP 500 -> LLMError
            OpenAICompatLLM(srv.base_url, "fake", max_retries=0).complete([{"role": "user", "content": "x"}])
        assert ei.value.status_code == 500 and "no scripted reply left" in str(ei.value)


def test_json_schema_then_fallback_when_rejected():
    schema = {"title": "facts", "type": "object", "properties": {"facts": {"type": "array"}}}
    with FakeLLMServer(['{"facts": []}', '{"facts": []}'], reject_json_schema=True) as srv:
        llm = OpenAICompatLLM(srv.base_url, "fake")
        assert llm.complete([{"role": "user", "content": "json please"}], json_schema=schema) == '{"facts": []}'
        kinds = [r.get("response_format", {}).get("type") for r in srv.requests]
        assert kinds == ["json_schema", "json_object"]
        assert srv.requests[0]["response_format"]["json_schema"]["schema"] == schema
        llm.complete([{"role": "user", "content": "again"}], json_schema=schema)  # remembers the level
        assert srv.requests[-1]["response_format"] == {"type": "json_object"}
        assert len(srv.requests) == 3


def test_http_errors_become_llmerror_with_status_and_excerpt():
    with FakeLLMServer([FakeReply(status=401, content="invalid api key sk-xxx")]) as srv:
        with pytest.raises(LLMError) as ei:
            OpenAICompatLLM(srv.base_url, "fake").complete([{"role": "user", "content": "x"}])
    assert ei.value.status_code == 401 and "invalid api key" in str(ei.value)
    with FakeLLMServer([FakeReply(body="not json at all")]) as srv:
        with pytest.raises(LLMError, match="unexpected response"):
            OpenAICompatLLM(srv.base_url, "fake").complete([{"role": "user", "content": "x"}])


def test_retry_on_503_then_success():
    with FakeLLMServer([FakeReply(status=503, content="busy"), "ok"]) as srv:
        assert OpenAICompatLLM(srv.base_url, "fake", max_retries=1).complete([{"role": "user", "content": "x"}]) == "ok"
        assert len(srv.requests) == 2


def test_connection_error_is_llmerror():
    def boom(request):
        raise httpx.ConnectError("refused", request=request)

    llm = OpenAICompatLLM("http://127.0.0.1:9/v1", "m", transport=httpx.MockTransport(boom), max_retries=0)
    with pytest.raises(LLMError, match="unreachable"):
        llm.complete([{"role": "user", "content": "x"}])
    assert issubclass(LLMParseError, AnchormemError)


def test_make_llm_from_env(monkeypatch):
    for k in ("ANCHORMEM_LLM_BASE_URL", "ANCHORMEM_LLM_MODEL", "ANCHORMEM_LLM_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    assert make_llm() is None
    monkeypatch.setenv("ANCHORMEM_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(ConfigError, match="ANCHORMEM_LLM_MODEL"):
        make_llm()
    monkeypatch.setenv("ANCHORMEM_LLM_MODEL", "qwen2.5:7b")
    llm = make_llm()
    assert isinstance(llm, OpenAICompatLLM) and llm.model == "qwen2.5:7b" and llm.name == "openai-compat:qwen2.5:7b"
    assert make_llm("http://x/v1", "other").model == "other"
