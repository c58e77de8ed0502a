"""Issue #25, library side: every bad input the audit found, and its kin, is an AnchormemError subclass naming the
field and the limit, and nothing stored earlier changes (a canary set of memories is compared after each one).
The same inputs reach the CLI as exit code 2 and the MCP server as tool errors."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import pytest

from anchormem import FilterError, InvalidInputError, Memory, ScopeError
from anchormem.context.smoothing import SMOOTH_WINDOW, _smooth
from anchormem.ingest.limits import session_turns
from anchormem.text.dates import resolve_dates
from anchormem.timeutil import MAX_TIME, MIN_TIME, in_range, shift, to_utc
from anchormem.validate import INT64_MAX, INT64_MIN, check_json

CANARY = [("I moved to Lisbon last month.", {"n": 7, "tag": "home"}),
          ("My sister's name is Ana.", {"n": 1.5, "flag": True}),
          ("我每天早上喝乌龙茶。", {"tag": "茶"})]


def snapshot(mem: Memory, user: str = "canary") -> list[tuple]:
    """Everything a bad call could have changed: every memory (superseded too), its history and the messages."""
    items = mem.get_all(user_id=user, include_superseded=True, show_expired=True)
    doc = mem.export(user_id=user)
    doc.pop("exported_at")
    return [json.dumps(doc, sort_keys=True, ensure_ascii=False), [(m.id, m.text, m.metadata) for m in items]]


@pytest.fixture
def mem():
    m = Memory(":memory:", embedder="hash", llm=None, cache=False)
    for text, meta in CANARY:
        m.add(text, user_id="canary", session_id="s0", metadata=meta, timestamp="2025-03-04T10:00:00Z")
    yield m
    m.close()


# ------------------------------------------------------------------------------------------ the four 500s
OVERFLOWS = [
    ("filter int over 2^63", lambda m: m.get_all(user_id="canary", filters={"metadata.n": 10 ** 30}),
     FilterError, "64-bit range"),
    ("filter int under -2^63", lambda m: m.search("tea", user_id="canary", filters={"n": {"gt": -2 ** 64}}),
     FilterError, "64-bit range"),
    ("yesterday at year 1", lambda m: m.add("I saw her yesterday", user_id="canary",
                                            timestamp="0001-01-01T00:00:00Z"),
     InvalidInputError, "timestamp: 0001-01-01T00:00:00+00:00 is outside the supported time range"),
    ("next week at year 9999", lambda m: m.add("Let's meet next week", user_id="canary",
                                               timestamp="9999-12-30T00:00:00Z"),
     InvalidInputError, "timestamp: 9999-12-30"),
    ("a message timestamp at year 9999", lambda m: m.add(
        [{"role": "user", "content": "I will send it by next month", "timestamp": "9999-12-01T00:00:00Z"}],
        user_id="canary"), InvalidInputError, "message 0 timestamp"),
    ("an epoch far past the range", lambda m: m.add("hello there", user_id="canary", timestamp=1e13),
     InvalidInputError, "timestamp: epoch number 10000000000000.0 is beyond any supported date; an epoch number (seconds since 1970) must lie between 1990-01-01"),
    ("as_of at year 1 with an offset", lambda m: m.search("tea", user_id="canary",
                                                          as_of="0001-01-01T00:00:00+05:00"),
     InvalidInputError, "as_of"),
    ("due before 9999", lambda m: m.due(user_id="canary", before="9999-12-31T23:59:59-05:00"),
     InvalidInputError, "before"),
    ("gc now at 9999", lambda m: m.gc(user_id="canary", now="9999-01-01T00:00:00Z"), InvalidInputError, "now"),
    ("time filter at year 1", lambda m: m.get_all(user_id="canary", filters={"created_at": {"gte": "0001-01-01"}}),
     FilterError, "created_at"),
    ("expires_at past the range", lambda m: m.add("hello there", user_id="canary",
                                                  metadata={"expires_at": "9500-01-01T00:00:00Z"}),
     InvalidInputError, "expires_at"),
]


@pytest.mark.parametrize("name, call, error, message", OVERFLOWS, ids=[c[0] for c in OVERFLOWS])
def test_overflows_are_errors_naming_the_field_and_the_limit(mem, name, call, error, message):
    before = snapshot(mem)
    with pytest.raises(error) as info:
        call(mem)
    assert message in str(info.value)
    assert snapshot(mem) == before


def test_the_supported_range_is_documented_and_exact():
    assert (MIN_TIME.isoformat(), MAX_TIME.isoformat()) == ("1000-01-01T00:00:00+00:00", "9000-01-01T00:00:00+00:00")
    assert to_utc("1000-01-01T00:00:00Z") == MIN_TIME
    assert to_utc("8999-12-31T23:59:59.999999Z").year == 8999
    for bad in ("0999-12-31T23:59:59Z", "9000-01-01T00:00:00Z", "1000-01-01T00:00:00+00:01",
                "8999-12-31T23:00:00-01:00"):
        with pytest.raises(InvalidInputError, match="1000-01-01T00:00:00Z to 8999-12-31T23:59:59Z"):
            to_utc(bad, field="t")
    # Python's own limits with an offset that would overflow: still a plain False, never OverflowError
    assert not in_range(datetime.max.replace(tzinfo=timezone(timedelta(hours=-5))))
    assert not in_range(datetime.min.replace(tzinfo=timezone(timedelta(hours=5))))
    assert shift(to_utc("8999-06-01T00:00:00Z"), timedelta(days=400)) is None
    assert shift(to_utc("2025-01-01T00:00:00Z"), timedelta(days=1)) == to_utc("2025-01-02T00:00:00Z")


@pytest.fixture
def clock_at_range_end():
    """The library clock at the end of the supported range: a message may not be dated after tomorrow."""
    from anchormem.timeutil import set_clock

    set_clock(lambda: datetime(8999, 12, 31, tzinfo=timezone.utc))
    yield
    set_clock(None)


@pytest.mark.parametrize("text", ["I will pay you back in 99999999 days", "see you in 9000 years",
                                  "the deadline is 9999-12-31", "I will finish it by 31 December 9999",
                                  "我会在9999年12月31日前交"])
def test_dates_in_text_beyond_the_range_stay_unresolved_never_overflow(mem, text, clock_at_range_end):
    near_end = datetime(8999, 12, 30, 12, tzinfo=timezone(timedelta(hours=-5)))
    for anchor in (datetime(2025, 3, 4, tzinfo=timezone.utc), near_end):
        assert all(in_range(s.start) and in_range(s.end) for s in resolve_dates(text, anchor))
    events = mem.add(text, user_id="u2", timestamp=near_end)
    assert events and all(e.memory.event_time is None or in_range(e.memory.event_time) for e in events)


def test_relative_dates_at_the_edges_of_the_range_resolve_inside_it(mem, clock_at_range_end):
    ev = mem.add("I saw her yesterday", user_id="u2", timestamp="1000-01-01T12:00:00Z")
    assert ev[0].memory.event_time is None  # 0999-12-31: outside, left as text
    ev = mem.add("Let's meet next week", user_id="u2", timestamp="8999-12-20T12:00:00Z")  # a Friday
    assert (ev[0].memory.event_time.isoformat(), ev[0].memory.event_time_end.isoformat()) == \
        ("8999-12-23T00:00:00+00:00", "8999-12-29T23:59:59+00:00")
    assert mem.add("I will pay it next month", user_id="u2", timestamp="8999-12-20T12:00:00Z")[0].memory.event_time \
        is None  # January 9000: outside, left as text
    ev = mem.add("I will renew it next week", user_id="u2", timestamp="8999-12-30T12:00:00Z",
                 metadata={"expire_strategy": "30d"})
    assert ev[0].memory.event_time is None and ev[0].memory.expires_at is None  # beyond the range: never


# ------------------------------------------------------------------------------------------ strings and numbers
BAD_VALUES = [
    ("surrogate in a metadata value", lambda m: m.add("hello there", user_id="canary", metadata={"k": "a\ud800"}),
     InvalidInputError, "metadata.k: not valid Unicode text (a lone surrogate U+D800 at index 1)"),
    ("surrogate in a message name", lambda m: m.add([{"role": "user", "content": "hi there", "name": "\udfff"}],
                                                    user_id="canary"),
     InvalidInputError, "message 0 name: not valid Unicode text"),
    ("surrogate in a message's metadata", lambda m: m.add([{"content": "hi there", "metadata": {"k": "\ud800"}}],
                                                          user_id="canary"),
     InvalidInputError, "message 0: metadata.k"),
    ("surrogate in a filter value", lambda m: m.get_all(user_id="canary", filters={"metadata.tag": "\ud800"}),
     FilterError, "filter 'metadata.tag' eq: not valid Unicode text"),
    ("surrogate in an in list", lambda m: m.search("tea", user_id="canary",
                                                   filters={"tag": {"in": ["home", "x\ud800"]}}),
     FilterError, "lone surrogate"),
    ("surrogate in a text field filter", lambda m: m.get_all(user_id="canary", filters={"speaker": "\ud800"}),
     FilterError, "filter 'speaker' eq"),
    ("surrogate in a label filter", lambda m: m.get_all(user_id="canary", filters={"label.topic": "\ud800"}),
     FilterError, "label.topic"),
    ("surrogate in a filter key", lambda m: m.get_all(user_id="canary", filters={"metadata.\ud800": 1}),
     FilterError, "cannot be filtered on"),
    ("surrogate in the query", lambda m: m.search("tea\ud800", user_id="canary"), InvalidInputError, "query"),
    ("surrogate in a context turn", lambda m: m.search("tea", user_id="canary", context=["a\ud800"]),
     InvalidInputError, "context[0]"),
    ("surrogate in user_id", lambda m: m.add("hello there", user_id="u\ud800"), ScopeError, "user_id"),
    ("surrogate in session_id", lambda m: m.get_all(user_id="canary", session_id="\ud800"), ScopeError,
     "session_id"),
    ("surrogate in agent_id", lambda m: m.search("tea", user_id="canary", agent_id="\ud800"), ScopeError,
     "agent_id"),
    ("surrogate in a memory id", lambda m: m.get("\ud800"), InvalidInputError, "memory_id"),
    ("surrogate in delete's id", lambda m: m.delete("\ud800"), InvalidInputError, "memory_id"),
    ("surrogate in history's id", lambda m: m.history("a\ud800"), InvalidInputError, "memory_id"),
    ("surrogate in a review id", lambda m: m.approve("\ud800"), InvalidInputError, "review_id"),
    ("NUL in a review id", lambda m: m.reject("r\x00"), InvalidInputError, "review_id: a NUL character"),
    ("surrogate in archive ids", lambda m: m.archive(["ok", "\udc00"]), InvalidInputError, "ids[1]"),
    ("NaN in metadata", lambda m: m.add("hello there", user_id="canary", metadata={"x": math.nan}),
     InvalidInputError, "metadata.x: nan is not a finite number"),
    ("inf in metadata", lambda m: m.add("hello there", user_id="canary", metadata={"x": -math.inf}),
     InvalidInputError, "metadata.x: -inf"),
    ("NaN in a message's metadata", lambda m: m.add([{"content": "hi there", "metadata": {"x": math.inf}}],
                                                    user_id="canary"), InvalidInputError, "message 0: metadata.x"),
    ("nested metadata", lambda m: m.add("hello there", user_id="canary", metadata={"x": {"y": math.nan}}),
     InvalidInputError, "metadata value for 'x' must be a string, number, boolean or null"),
    ("int over 64 bits in metadata", lambda m: m.add("hello there", user_id="canary", metadata={"x": 2 ** 63}),
     InvalidInputError, "metadata.x: integer 9223372036854775808 is outside the 64-bit range"),
    ("NaN in a filter", lambda m: m.get_all(user_id="canary", filters={"n": math.nan}), FilterError, "finite"),
    ("inf in a confidence filter", lambda m: m.get_all(user_id="canary", filters={"confidence": {"gt": math.inf}}),
     FilterError, "finite"),
    ("a huge int in a confidence filter", lambda m: m.get_all(user_id="canary",
                                                              filters={"confidence": {"gt": 10 ** 400}}),
     FilterError, "64-bit range"),
    ("NUL in a metadata value", lambda m: m.add("hello there", user_id="canary", metadata={"k": "a\x00b"}),
     InvalidInputError, "metadata.k: a NUL character (U+0000 at index 1) cannot be stored"),
    ("NUL in a metadata key", lambda m: m.add("hello there", user_id="canary", metadata={"k\x00": "a"}),
     InvalidInputError, "metadata key"),
    ("NUL in a filter value", lambda m: m.get_all(user_id="canary", filters={"metadata.tag": "home\x00"}),
     FilterError, "NUL"),
    ("NUL in a message name", lambda m: m.add([{"content": "hi there", "name": "a\x00"}], user_id="canary"),
     InvalidInputError, "message 0 name: a NUL character"),
    ("a message name over 256 characters", lambda m: m.add([{"content": "hi there", "name": "n" * 257}],
                                                           user_id="canary"),
     InvalidInputError, "over the limit of 256"),
    ("range operator with a boolean", lambda m: m.get_all(user_id="canary", filters={"flag": {"gt": True}}),
     FilterError, "takes a number or a string"),
    ("contains with a number", lambda m: m.get_all(user_id="canary", filters={"tag": {"contains": 5}}),
     FilterError, "takes a string"),
]


@pytest.mark.parametrize("name, call, error, message", BAD_VALUES, ids=[c[0] for c in BAD_VALUES])
def test_bad_values_are_errors_naming_the_field(mem, name, call, error, message):
    before = snapshot(mem)
    with pytest.raises(error) as info:
        call(mem)
    assert message in str(info.value), str(info.value)
    assert snapshot(mem) == before


def test_update_and_labels_are_checked_by_the_same_validator(mem):
    mid = mem.get_all(user_id="canary")[0].id
    before = snapshot(mem)
    with pytest.raises(InvalidInputError, match="text: not valid Unicode text"):
        mem.update(mid, "I moved to Porto\ud800")
    with pytest.raises(InvalidInputError, match="label topic: not valid Unicode text"):
        mem.update(mid, labels=[{"domain": "travel", "topic": "trip\ud800"}])
    with pytest.raises(InvalidInputError, match="label topic: a NUL character"):
        mem.update(mid, labels=[{"domain": "travel", "topic": "a\x00b"}])
    with pytest.raises(InvalidInputError, match="memory_id"):
        mem.update("x\ud800", "new text")
    assert snapshot(mem) == before


def test_import_data_is_checked_by_the_same_validator(mem):
    doc = mem.export(user_id="canary")
    other = Memory(":memory:", embedder="hash", llm=None, cache=False)
    for path, value, message in ((("memories", 0, "metadata", "n"), math.nan, "import data.memories[0].metadata.n"),
                                 (("memories", 0, "metadata", "n"), 10 ** 20, "64-bit range"),
                                 (("memories", 0, "text"), "a\ud800", "import data.memories[0].text"),
                                 (("messages", 0, "name"), "\x00", "import data.messages[0].name"),
                                 (("memories", 0, "created_at"), "0005-01-01T00:00:00Z", "created_at")):
        bad = json.loads(json.dumps(doc))
        node = bad
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value
        with pytest.raises(InvalidInputError) as info:
            other.import_memories(bad)
        assert message in str(info.value)
    assert other.get_all(user_id="canary") == []
    mem0 = [{"id": "m1", "memory": "likes tea", "user_id": "canary", "metadata": {"x": [1, math.inf]}}]
    with pytest.raises(InvalidInputError, match=r"import data\[0\].metadata.x\[1\]: inf"):
        other.import_memories(mem0)
    assert other.import_memories(doc)["memories"] == len(CANARY)  # the valid export still goes in
    other.close()


def test_check_json_names_the_path_and_stops_at_the_depth_limit():
    with pytest.raises(InvalidInputError, match=r"d.a\[1\].b: integer"):
        check_json({"a": [1, {"b": INT64_MAX + 1}]}, "d")
    assert check_json({"a": [INT64_MIN, INT64_MAX, 1.5, None, True, "x"]}, "d")
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(InvalidInputError, match="nested more than 32 levels"):
        check_json(deep, "d")


# ------------------------------------------------------------------------------------------ bounds of one add
def test_add_is_bounded_before_anything_is_stored(mem):
    before = snapshot(mem)
    with pytest.raises(InvalidInputError, match=r"1,001 messages in one add is over the limit of 1,000 .*"
                                                r"max_add_messages"):
        mem.add([{"content": "hello there"}] * 1001, user_id="canary", session_id="s0")
    with pytest.raises(InvalidInputError, match=r"100,001 characters in one add is over the limit of 100,000 .*"
                                                r"max_add_chars"):
        mem.add([{"content": "x" * 30_000}] * 3 + [{"content": "y" * 10_001}], user_id="canary", session_id="s0")
    assert snapshot(mem) == before
    turns = mem.sessions.turns(_key("canary", "s0"))  # the session buffer is unchanged too
    assert [t["content"] for t in turns] == [text for text, _ in CANARY]


def _key(user, session):
    from anchormem.session.store import SessionKey

    return SessionKey(user, session, "default")


def test_limits_are_settings_a_caller_can_raise(monkeypatch):
    monkeypatch.setenv("ANCHORMEM_MAX_ADD_MESSAGES", "3")
    m = Memory(":memory:", embedder="hash", llm=None, cache=False, max_add_chars=40)
    assert (m.settings.max_add_messages, m.settings.max_add_chars) == (3, 40)
    with pytest.raises(InvalidInputError, match="4 messages in one add is over the limit of 3"):
        m.add([{"content": t} for t in ("one a", "two b", "three c", "four d")], user_id="u")
    with pytest.raises(InvalidInputError, match="41 characters"):
        m.add([{"content": "a" * 20}, {"content": "b" * 21}], user_id="u")
    assert m.get_all(user_id="u") == []
    m.close()
    m = Memory(":memory:", embedder="hash", llm=None, cache=False, max_add_messages=2_000)
    events = m.add([{"content": f"I visited city number {i}."} for i in range(1_500)], user_id="u", session_id="s")
    assert len([e for e in events if e.memory.kind != "summary"]) == 1_500
    m.close()


def test_a_raised_max_message_chars_reaches_the_session_buffer():
    """A turn longer than the session buffer's default (32,000) used to be stored and then refused by the buffer:
    the call failed half-written. Now the buffer takes what the Memory takes, checked before the write."""
    m = Memory(":memory:", embedder="hash", llm=None, cache=False, max_message_chars=60_000)
    text = "I like long walks by the river. " * 1500  # 48,000 characters
    events = m.add(text, user_id="u", session_id="s")
    assert len(events) > 1 and [t["content"] for t in m.sessions.turns(_key("u", "s"))] == [text]
    m.close()


def test_session_turns_are_validated_as_the_buffer_validates_them():
    from anchormem.stores.protocol import StoredMessage

    from anchormem.types import Scope

    msg = StoredMessage(id="m", scope=Scope(user_id="u", session_id="s"), role="user", content="x" * 50,
                        ts=to_utc("2025-01-01T00:00:00Z"))
    assert session_turns([msg], max_chars=50)[0]["content"] == "x" * 50
    with pytest.raises(InvalidInputError, match="message 0 content: 50 characters is over the limit of 49"):
        session_turns([msg], max_chars=49)


def test_session_smoothing_is_linear_past_its_window_and_exact_within_it():
    import numpy as np

    rng = np.random.default_rng(7)
    own, prior = rng.normal(size=(SMOOTH_WINDOW - 5, 4)), rng.normal(size=(6, 4))
    n, m = len(own), len(prior)
    pos = np.arange(-m, n)
    w = 1.0 / (1.0 + np.abs(np.arange(n)[:, None] - pos[None, :]) / 3.0)
    w[np.arange(n), m + np.arange(n)] = 1.0
    dense = (w @ np.vstack([prior, own])) / w.sum(axis=1, keepdims=True)
    assert np.array_equal(_smooth(own, prior, 1.0, 3.0), dense)  # the dense product within the window
    long_own = rng.normal(size=(3 * SMOOTH_WINDOW + 17, 4))
    out = _smooth(long_own, prior, 1.0, 3.0)
    n = len(long_own)
    pos = np.arange(-m, n)
    dist = np.abs(np.arange(n)[:, None] - pos[None, :])
    w = 1.0 / (1.0 + dist / 3.0)
    w[dist > SMOOTH_WINDOW] = 0.0
    w[np.arange(n), m + np.arange(n)] = 1.0
    assert np.allclose(out, (w @ np.vstack([prior, long_own])) / w.sum(axis=1, keepdims=True), atol=1e-12)


# ------------------------------------------------------------------------------------------ CLI and MCP
def test_cli_exit_code_2_for_the_bad_inputs(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from anchormem.cli import app

    monkeypatch.setenv("ANCHORMEM_EMBEDDER", "hash")
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    assert runner.invoke(app, ["--db", db, "add", "I like tea.", "--user", "u", "--meta", "n=5"]).exit_code == 0
    cases = [(["add", "I saw her yesterday", "--user", "u", "--timestamp", "0001-01-01T00:00:00Z"],
              "supported time range"),
             (["list", "--user", "u", "--filter", json.dumps({"metadata.n": 10 ** 30})], "64-bit range"),
             (["search", "tea", "--user", "u", "--filter", '{"metadata.n": NaN}'], "finite")]
    for argv, message in cases:
        res = runner.invoke(app, ["--db", db] + argv)
        assert res.exit_code == 2, res.output
        assert message in res.output
    out = runner.invoke(app, ["--db", db, "--json", "list", "--user", "u"])
    assert [m["text"] for m in json.loads(out.output)] == ["I like tea."]


def test_mcp_tool_errors_for_the_bad_inputs(tmp_path):
    pytest.importorskip("mcp.server.mcpserver")
    import anyio
    from mcp import Client

    from anchormem.mcp_server import create_mcp_server

    m = Memory(str(tmp_path / "mcp.db"), embedder="hash", llm=None)
    m.add("I like tea.", user_id="u", metadata={"n": 5})

    async def main() -> None:
        async with Client(create_mcp_server(m)) as client:
            for tool, args, message in (
                    ("add_memory", {"user_id": "u", "text": "I saw her yesterday",
                                    "timestamp": "0001-01-01T00:00:00Z"}, "supported time range"),
                    ("search_memories", {"user_id": "u", "query": "tea", "filters": {"metadata.n": 10 ** 30}},
                     "64-bit range"),
                    ("add_memory", {"user_id": "u", "text": "hello there", "metadata": {"k": "a\x00b"}}, "NUL")):
                res = await client.call_tool(tool, args)
                assert res.is_error, res.structured_content
                assert message in res.content[0].text
    anyio.run(main)
    assert [x.text for x in m.get_all(user_id="u")] == ["I like tea."]
    m.close()


def test_a_message_without_content_names_what_is_missing():
    from anchormem import Memory
    from anchormem.errors import InvalidInputError

    with Memory(":memory:", embedder="hash") as mem:
        with pytest.warns(UserWarning, match="ignoring unknown keys text"):
            with pytest.raises(InvalidInputError, match=r"message 0: missing 'content' .*got keys text"):
                mem.add([{"role": "user", "text": "I live in Paris"}], user_id="u")
        assert mem.get_all(user_id="u") == []
