"""Opt-in OpenTelemetry tracing (anchormem.tracing): spans per call and stage, no content in attributes."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from anchormem import InvalidInputError, Memory  # noqa: E402
from anchormem.testing import HashEmbedder  # noqa: E402

_EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def provider():
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(_EXPORTER))
    trace.set_tracer_provider(tp)  # once per process; later calls are ignored by the API
    yield


@pytest.fixture()
def spans():
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


SECRET = "Zanzibarquux"


def _all_attr_values(finished) -> list[str]:
    return [str(v) for s in finished for v in s.attributes.values()]


def test_spans_per_call_and_stage_without_content(spans):
    with Memory(":memory:", embedder=HashEmbedder(), tracing=True) as mem:
        mem.add(f"I live in Lisbon and my codeword is {SECRET}.", user_id="u1", session_id="s1")
        mem.search(f"Where do I live? {SECRET}", user_id="u1", limit=3)
        ans = mem.ask("Where do I live?", user_id="u1")
    finished = spans.get_finished_spans()
    names = [s.name for s in finished]
    for call in ("anchormem.add", "anchormem.search", "anchormem.ask"):
        assert call in names
    for st in ("anchormem.extract", "anchormem.embed", "anchormem.label", "anchormem.write",
               "anchormem.candidates", "anchormem.fuse", "anchormem.evidence"):
        assert st in names, st
    by_name = {s.name: s for s in finished}
    add = by_name["anchormem.add"]
    assert add.attributes["anchormem.messages"] == 1
    assert add.attributes["anchormem.events.add"] >= 1
    # stages of add are its children
    write = by_name["anchormem.write"]
    assert write.parent is not None and write.context.trace_id == add.context.trace_id
    # ask runs a search: the search span is a child of the ask span
    ask = [s for s in finished if s.name == "anchormem.ask"][0]
    child_searches = [s for s in finished if s.name == "anchormem.search" and s.parent is not None
                      and s.parent.span_id == ask.context.span_id]
    assert len(child_searches) == 1
    assert ask.attributes["anchormem.abstained"] is ans.abstained
    assert ask.attributes["anchormem.citations"] == len(ans.citations)
    search = [s for s in finished if s.name == "anchormem.search" and s.parent is None][0]
    assert search.attributes["anchormem.limit"] == 3
    assert search.attributes["anchormem.query_chars"] == len(f"Where do I live? {SECRET}")
    # no memory text, query text or user id in any attribute
    values = _all_attr_values(finished)
    assert not any(SECRET in v or "Lisbon" in v or v == "u1" for v in values)


def test_tracing_off_by_default_records_nothing(spans):
    with Memory(":memory:", embedder=HashEmbedder()) as mem:
        mem.add("I live in Lisbon.", user_id="u1")
        mem.search("Where do I live?", user_id="u1")
    assert spans.get_finished_spans() == ()


def test_a_failing_call_has_error_status_and_type_only(spans):
    with Memory(":memory:", embedder=HashEmbedder(), tracing=True) as mem:
        with pytest.raises(InvalidInputError):
            mem.search("", user_id="u1")
    (span,) = [s for s in spans.get_finished_spans() if s.name == "anchormem.search"]
    assert span.status.status_code == trace.StatusCode.ERROR
    assert span.attributes["error.type"] == "InvalidInputError"
    assert not span.events  # no exception event carrying the message


def test_llm_call_span_has_token_counts(spans):
    import json

    from anchormem.llms import OpenAICompatLLM
    from anchormem.testing.fake_llm import FakeLLMServer, FakeReply

    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 42, "completion_tokens": 7}})
    with FakeLLMServer([FakeReply(body=body)]) as server:
        llm = OpenAICompatLLM(server.base_url, "fake-model")
        with Memory(":memory:", embedder=HashEmbedder(), tracing=True, llm=None) as mem:
            mem.llm = llm
            from anchormem.tracing import traced

            @traced("probe")
            def probe(self):
                return self.llm.complete([{"role": "user", "content": "hi"}])
            probe(mem)
    (llm_span,) = [s for s in spans.get_finished_spans() if s.name == "anchormem.llm"]
    assert llm_span.attributes["gen_ai.request.model"] == "fake-model"
    assert llm_span.attributes["gen_ai.usage.input_tokens"] == 42
    assert llm_span.attributes["gen_ai.usage.output_tokens"] == 7
