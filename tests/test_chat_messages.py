"""OpenAI-style chat messages as ``add``, ``import`` and the REST API take them (tool steps and text-less turns left
out, content parts joined, ``developer`` = ``system``), and the time of a turn that carries none (the turns around
it, not now)."""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone

import pytest

from anchormem import InvalidInputError, Memory
from anchormem.importers import parse

TOOL_CHAT = [
    {"role": "developer", "content": "You are a helpful travel assistant."},
    {"role": "user", "content": [{"type": "text", "text": "I live in Oslo now."},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "-3C, snow"},
    {"role": "assistant", "content": "It is -3C and snowing in Oslo.", "refusal": None},
]


@pytest.fixture
def m():
    mem = Memory(":memory:", embedder="hash", llm=None, cache=False)
    yield mem
    mem.close()


def test_a_chat_with_tool_steps_is_added_as_it_is(m):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the protocol's own keys are no unknown keys
        events = m.add(TOOL_CHAT, user_id="u", session_id="s", timestamp="2024-03-01T10:00:00Z")
    stored = sorted((e.memory.role, e.memory.text) for e in events)
    assert stored == [("assistant", "It is -3C and snowing in Oslo."), ("user", "I live in Oslo now.")]
    assert not any("-3C, snow" == x.text for x in m.get_all(user_id="u"))  # the tool's raw result is no memory
    skipped = m.add([{"role": "developer", "content": "Be brief."}], user_id="u")  # a system turn: nothing kept
    assert [(e.event, e.reason) for e in skipped] == [("SKIP", "system message: not remembered")]


@pytest.mark.parametrize("bad, msg", [
    ([{"role": "tool", "tool_call_id": "c1", "content": "42"}], "no message has conversation text"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
     "no message has conversation text"),
    ([{"role": "user", "content": ["hello"]}], r"message 0 content\[0\]: a content part must be an object"),
    ([{"role": "user", "content": []}], "message 0 content: empty list of content parts"),
    ([{"role": "user", "content": [{"type": "text", "text": "  "}]}], "message 0 content: empty text"),
    ([{"role": "user", "content": [{"type": "text", "text": None}]}], "'text' must be a string"),
    ([{"role": "user", "content": "ok"}, {"role": "user", "content": [{"text": "no type"}]}],
     r"message 1 content\[0\]"),
])
def test_chat_shapes_without_text_are_clear_errors_and_store_nothing(m, bad, msg):
    m.add("I keep bees.", user_id="u")
    with pytest.raises(InvalidInputError, match=msg):
        m.add(bad, user_id="u")
    assert [x.text for x in m.get_all(user_id="u")] == ["I keep bees."]


def test_an_untimed_turn_takes_the_time_of_the_turns_around_it(m):
    turns = [{"role": "user", "content": "I planted tomatoes in the garden."},  # leading: the next turn's time
             {"role": "user", "content": "I went hiking yesterday.", "timestamp": "2023-06-01T10:00:00Z"},
             {"role": "user", "content": "It was tiring but the view was great."},
             {"role": "user", "content": "Today I adopted a kitten.", "timestamp": "2023-06-03T09:00:00+02:00"},
             {"role": "user", "content": "She is called Miso."}]
    events = m.add(turns, user_id="u")
    when = {e.memory.text: e.memory.created_at for e in events}
    june1 = datetime(2023, 6, 1, 10, tzinfo=timezone.utc)
    june3 = datetime(2023, 6, 3, 7, tzinfo=timezone.utc)
    assert when["I planted tomatoes in the garden."] == june1
    assert when["It was tiring but the view was great."] == june1
    assert when["She is called Miso."] == june3
    # a time given for the call is the time of every untimed turn
    events = m.add([{"role": "user", "content": "I bought a red bike."},
                    {"role": "user", "content": "I ride it to work.", "timestamp": "2023-07-02T08:00:00Z"}],
                   user_id="v", timestamp="2023-07-01T12:00:00Z")
    when = {e.memory.text: e.memory.created_at for e in events}
    assert when["I bought a red bike."] == datetime(2023, 7, 1, 12, tzinfo=timezone.utc)


def test_import_takes_a_chat_as_it_is_and_untimed_turns_keep_the_session_date(tmp_path):
    doc = {"sessions": [
        {"session_id": "tools", "timestamp": "2024-03-01T10:00:00Z", "messages": TOOL_CHAT},
        {"session_id": "hike", "messages": [
            {"role": "user", "content": "I went hiking yesterday.", "timestamp": "2023-06-01T10:00:00Z"},
            {"role": "user", "content": "It was tiring."}]},
        {"session_id": "only-tools", "messages": [{"role": "tool", "tool_call_id": "x", "content": "1"}]}]}
    batches = parse(json.dumps(doc), "json", user_id="u")
    assert [b[0].get("session_id") for b in batches] == ["tools", "hike"]  # a session without text is none
    assert [x["content"] for x in batches[0][1]] == ["You are a helpful travel assistant.", "I live in Oslo now.",
                                                     "It is -3C and snowing in Oslo."]
    assert batches[0][1][0]["role"] == "system"
    m = Memory(str(tmp_path / "i.db"), embedder="hash", llm=None)
    try:
        for scope, msgs in batches:
            m.add(msgs, **scope)
        tiring = next(x for x in m.get_all(user_id="u") if x.text == "It was tiring.")
        assert tiring.created_at == datetime(2023, 6, 1, 10, tzinfo=timezone.utc)
    finally:
        m.close()
    lines = "\n".join(json.dumps({**t, "session_id": "s"}) for t in TOOL_CHAT)
    assert [x["content"] for x in parse(lines, "jsonl", user_id="u")[0][1]] == [
        "You are a helpful travel assistant.", "I live in Oslo now.", "It is -3C and snowing in Oslo."]


def test_unknown_keys_warn_once(m, caplog, recwarn):
    m.add([{"role": "user", "content": "I like tea.", "kind": "chat"}], user_id="u")
    assert [str(w.message) for w in recwarn if "unknown keys" in str(w.message)] == [
        "anchormem: message 0: ignoring unknown keys kind"]
    assert not [r for r in caplog.records if "unknown keys" in r.getMessage()]  # not logged a second time
