"""Issue #25 over real HTTP: the inputs that were 500s (and their kin) are 4xx with the JSON error envelope, the
connection stays usable, and a canary user's memories are unchanged; plus hypothesis-generated metadata values
and filter values (bounded, derandomized)."""

from __future__ import annotations

import json
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def canary(api):
    """A user with memories that no refused request may change; returns (user, snapshot function)."""
    user = "canary-" + uuid.uuid4().hex[:8]
    with api.client("acme", "admin") as c:
        for text, meta in (("I moved to Lisbon last month.", {"n": 7}), ("我每天早上喝乌龙茶。", {"tag": "茶"})):
            assert c.post("/v1/memories", json={"messages": text, "user_id": user, "metadata": meta,
                                                "timestamp": "2025-03-04T10:00:00Z"}).status_code == 201

    def snapshot() -> str:
        with api.client("acme", "admin") as c:
            doc = c.get("/v1/export", params={"user_id": user}).json()
        doc.pop("exported_at", None)
        for it in doc["memories"]:
            it.pop("access_count"), it.pop("last_accessed_at")
        return json.dumps(doc, sort_keys=True)

    return user, snapshot


def raw(c, method: str, path: str, body: str):
    """Send a JSON body as written (lone surrogate escapes, NaN, 30-digit integers survive)."""
    return c.request(method, path, content=body.encode(), headers={"content-type": "application/json"})


def _err(r) -> dict:
    """A 4xx with the error envelope: 400 from anchormem's checks, 422 from the request schema."""
    assert r.status_code in (400, 422), (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    return body["error"]


CASES = [
    # the four 500s of the audit
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"metadata.n": 1' + "0" * 30 + '}}',
     "validation_error", "filter 'metadata.n' eq: integer 1000000000000000000000000000000 is outside the 64-bit"),
    ("POST", "/v1/memories", '{"messages": "I saw her yesterday", "user_id": "%(u)s", '
     '"timestamp": "0001-01-01T00:00:00Z"}', None, "timestamp"),
    ("POST", "/v1/memories", '{"messages": "next week", "user_id": "%(u)s", "timestamp": "9999-12-30T00:00:00Z"}',
     None, "timestamp"),
    ("POST", "/v1/memories", '{"messages": [{"content": "I will send it next month", "timestamp": '
     '"9999-12-01T00:00:00Z"}], "user_id": "%(u)s"}', None, "timestamp"),
    # kin: as_of, other filter paths, strings
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "as_of": "0001-01-01T00:00:00+05:00"}', None, "as_of"),
    ("POST", "/v1/ask", '{"query": "tea?", "user_id": "%(u)s", "filters": {"n": {"gt": -100000000000000000000}}}',
     "validation_error", "filters"),
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"metadata.tag": "\\ud800"}}',
     None, None),
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"metadata.tag": "a\\u0000"}}',
     "validation_error", "filter 'metadata.tag' eq: a NUL character (U+0000 at index 1) cannot be stored"),
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"metadata.n": NaN}}',
     None, None),
    ("POST", "/v1/search", '{"query": "tea\\udc00", "user_id": "%(u)s"}', None, None),  # the schema: 422
    ("POST", "/v1/memories", '{"messages": "hello there", "user_id": "%(u)s", "metadata": {"k": "\\ud800"}}',
     None, None),  # the request schema refuses it (422)
    ("POST", "/v1/memories", '{"messages": "hello there", "user_id": "%(u)s", "metadata": {"k": "a\\u0000b"}}',
     "validation_error", "NUL"),
    ("POST", "/v1/memories", '{"messages": "hello there", "user_id": "%(u)s", "metadata": {"k": Infinity}}',
     None, None),  # the request schema refuses it (422)
    ("POST", "/v1/memories", '{"messages": [{"content": "hi there", "name": "\\udfff"}], "user_id": "%(u)s"}',
     None, None),  # the request schema refuses it (422)
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"metadata.n": {"gt": true}}}',
     "validation_error", "range operator 'gt' on 'metadata.n' takes a number or a string, got True"),
    # an unknown key lists the fields and how metadata keys are written (no regex in the message)
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"colour": "red"}}',
     "validation_error", "body.filters: unknown filter key 'colour': not a field (agent_id, session_id"),
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"metadata.a b": 1}}',
     "validation_error", "body.filters: filters: 'metadata.a b' is not a filter key: metadata keys are written"),
    ("POST", "/v1/search", '{"query": "tea", "user_id": "%(u)s", "filters": {"created_at": {"gte": "yesterday"}}}',
     "validation_error", "body.filters: created_at: not an ISO-8601 timestamp: 'yesterday'"),
]


@pytest.mark.parametrize("method, path, body, code, message", CASES, ids=[f"{c[1]} {c[2][:60]}" for c in CASES])
def test_audit_inputs_are_4xx_with_the_error_envelope(api, canary, method, path, body, code, message):
    user, snapshot = canary
    before = snapshot()
    with api.client("acme", "admin") as c:
        err = _err(raw(c, method, path, body % {"u": user}))
        if code is not None:
            assert err["code"] == code, err
        if message is not None:
            assert message in err["message"], err
        assert c.get("/v1/health").status_code == 200  # the same keep-alive connection still serves
    assert snapshot() == before


def test_typed_filters_over_http(api):
    user = "typed-" + uuid.uuid4().hex[:8]
    with api.client("acme", "admin") as c:
        for name, value in (("text", "string"), ("yes", True), ("one", 1), ("twenty", 20)):
            assert c.post("/v1/memories", json={"messages": f"Note {name} in the garden.", "user_id": user,
                                                "metadata": {"a": value, "name": name}}).status_code == 201

        def names(filters):
            r = c.get("/v1/memories", params={"user_id": user, "filters": json.dumps(filters)})
            assert r.status_code == 200, r.text
            return sorted(m["metadata"]["name"] for m in r.json()["memories"])

        # over REST metadata keys are written metadata.<key> (the schema's filter language)
        assert names({"metadata.a": {"gt": 10}}) == ["twenty"]
        assert names({"metadata.a": 1}) == ["one"]
        assert names({"metadata.a": True}) == ["yes"]


def test_too_many_characters_in_one_add_is_400(api, canary):
    user, snapshot = canary
    before = snapshot()
    with api.client("acme", "admin") as c:
        body = {"messages": [{"content": "x" * 30_000} for _ in range(4)], "user_id": user}
        err = _err(c.post("/v1/memories", json=body))
        assert "over the limit of 100,000" in err["message"] and "max_add_chars" in err["message"]
    assert snapshot() == before


_chars = st.sampled_from(["\\ud800", "\\udfff", "\\u0000", "\\u001f", "é", "茶", "a", "Z", "\\\\", "\\\""])
json_strings = st.lists(_chars, max_size=6).map(lambda parts: '"' + "".join(parts) + '"')
json_numbers = st.one_of(st.integers(-2 ** 70, 2 ** 70).map(str), st.sampled_from(
    ["NaN", "Infinity", "-Infinity", "1e400", "-0.0", "1.5", "9223372036854775807", "9223372036854775808"]))
json_values = st.one_of(json_strings, json_numbers, st.sampled_from(["true", "false", "null"]))


@FUZZ
@given(value=json_values, op=st.sampled_from(["eq", "ne", "gt", "lte", "in", "contains"]))
def test_generated_values_are_never_a_server_error(api, canary, value, op):
    user, snapshot = canary
    before = snapshot()
    filt = '{"metadata.v": {"%s": %s}}' % (op, f"[{value}]" if op == "in" else value)
    with api.client("acme", "admin") as c:
        for method, path, body in (
                ("POST", "/v1/memories", '{"messages": "fuzz note", "user_id": "fz-http", "metadata": {"v": %s}}'
                 % value),
                ("POST", "/v1/search", '{"query": "fuzz", "user_id": "%s", "filters": %s}' % (user, filt)),
                ("POST", "/v1/memories", '{"messages": [{"content": "fuzz", "name": %s}], "user_id": "fz-http"}'
                 % value)):
            r = raw(c, method, path, body)
            assert r.status_code in (200, 201, 400, 422), (body, r.status_code, r.text)
            if r.status_code >= 400:
                _err(r)
        c.post("/v1/forget", json={"user_id": "fz-http", "purge": True})
    assert snapshot() == before
