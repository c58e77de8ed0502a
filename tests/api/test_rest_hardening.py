"""REST hardening (issue 25/26): strict boolean flags, a schema that states the server's constraints, /docs off by
default with a CSP, logs without user ids / filter values / memory text, /v1/ask without candidates unless asked."""

from __future__ import annotations

import json
import logging
import re
import uuid

import httpx
import pytest
from fastapi.testclient import TestClient

from anchormem.server.app import create_app
from anchormem.server.keys import KeyStore

from .conftest import LiveServer


def _uid() -> str:
    return "hr-" + uuid.uuid4().hex[:10]


@pytest.fixture(scope="module")
def local():
    """An in-process app (TestClient) with one admin key."""
    keys = KeyStore(":memory:")
    key = keys.create("acme", "admin", name="t")[1]
    app = create_app(":memory:", embedder="hash", keys=keys, rate_limit=None)
    with TestClient(app, headers={"Authorization": f"Bearer {key}"}, raise_server_exceptions=False) as c:
        yield c


# ----------------------------------------------------------------------------------------------- strict flags
@pytest.mark.parametrize("value", ["yes", 1, 0, "false", "true", None, "1", [True]])
def test_purge_and_other_body_flags_are_strict_booleans(local, value):
    user = _uid()
    local.post("/v1/memories", json={"messages": "I keep bees.", "user_id": user}).raise_for_status()
    for path, body in (("/v1/forget", {"user_id": user, "purge": value}),
                       ("/v1/gc", {"user_id": user, "purge": value}),
                       ("/v1/gc", {"user_id": user, "dry_run": value}),
                       ("/v1/search", {"query": "bees", "user_id": user, "show_expired": value}),
                       ("/v1/consolidate", {"user_id": user, "merge": value})):
        r = local.post(path, json=body)
        assert r.status_code == 422, (path, value, r.text)
        err = r.json()["error"]
        assert err["code"] == "validation_error" and err["details"][0]["loc"][0] == "body", r.text
    # nothing was forgotten
    assert len(local.get("/v1/memories", params={"user_id": user}).json()["memories"]) == 1
    ok = local.post("/v1/forget", json={"user_id": user, "purge": True})
    assert ok.status_code == 200 and ok.json()["deleted"]["memories"] == 1


def test_forget_physical_needs_purge_and_the_schema_says_so(local):
    user = _uid()
    local.post("/v1/memories", json={"messages": "I keep bees.", "user_id": user}).raise_for_status()
    schema = local.get("/openapi.json").json()["components"]["schemas"]["ForgetRequest"]
    assert schema["properties"]["physical"]["type"] == "boolean"
    assert {"required": ["purge"], "properties": {"purge": {"const": True}}} in schema["anyOf"]
    for body in ({"user_id": user, "physical": True}, {"user_id": user, "physical": True, "purge": False},
                 {"user_id": user, "physical": "yes", "purge": True}):
        r = local.post("/v1/forget", json=body)
        assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error", r.text
    assert len(local.get("/v1/memories", params={"user_id": user}).json()["memories"]) == 1  # nothing forgotten
    ok = local.post("/v1/forget", json={"user_id": user, "purge": True, "physical": True})
    assert ok.status_code == 200 and ok.json()["deleted"]["memories"] == 1  # SQLite: the purge is physical already


@pytest.mark.parametrize("value", ["yes", "1", "0", "on", "True", "FALSE", ""])
def test_query_flags_are_exactly_true_or_false(local, value):
    user = _uid()
    local.post("/v1/memories", json={"messages": "I keep bees.", "user_id": user}).raise_for_status()
    mid = local.get("/v1/memories", params={"user_id": user}).json()["memories"][0]["id"]
    for method, path, params in (("GET", "/v1/memories", {"user_id": user, "include_superseded": value}),
                                 ("GET", "/v1/memories", {"user_id": user, "show_expired": value}),
                                 ("GET", "/v1/due", {"user_id": user, "include_undated": value}),
                                 ("DELETE", f"/v1/memories/{mid}", {"purge": value})):
        r = local.request(method, path, params=params)
        assert r.status_code == 422, (path, value, r.text)
        assert "must be true or false" in r.json()["error"]["message"]
    assert local.get(f"/v1/memories/{mid}").status_code == 200  # not deleted
    for value in ("true", "false"):
        assert local.get("/v1/memories", params={"user_id": user, "include_superseded": value}).status_code == 200


# ----------------------------------------------------------------------------------------------- the schema
def test_schema_states_the_constraints_the_server_enforces(local):
    spec = local.get("/openapi.json").json()
    comp = spec["components"]["schemas"]
    add = comp["AddRequest"]["properties"]
    assert add["user_id"]["pattern"].startswith("^[^\\u0000-\\u001f\\u007f-\\u009f]")
    assert add["user_id"]["maxLength"] == 256
    meta = comp["AddRequest"]["properties"]["metadata"]["anyOf"][0]
    assert meta["propertyNames"]["pattern"] == "^[\\w\\-]{1,64}$" and meta["maxProperties"] == 256
    number = next(s for s in meta["additionalProperties"]["anyOf"] if s["type"] == "number")
    assert number == {"type": "number", "minimum": -(2 ** 63), "maximum": 2 ** 63 - 1024}
    assert add["timestamp"]["anyOf"][0]["pattern"].endswith("(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?$")
    from anchormem.context.taxonomy import DOMAIN_NAMES

    assert comp["LabelIn"]["properties"]["domain"]["enum"] == list(DOMAIN_NAMES)
    assert comp["ForgetRequest"]["properties"]["purge"]["type"] == "boolean"
    assert set(comp["Filter"]["properties"]) >= {"source", "label.domain", "created_at", "AND", "OR", "NOT"}
    assert comp["SearchRequest"]["properties"]["query"]["maxLength"] == 4000
    filters = next(p for p in spec["paths"]["/v1/memories"]["get"]["parameters"] if p["name"] == "filters")
    assert filters["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Filter"}
    assert "/docs" not in spec["paths"]


@pytest.mark.parametrize("body,where", [
    ({"messages": "hi", "user_id": "a\x85b"}, "user_id"),                        # a C1 control character
    ({"messages": "hi", "user_id": "\u3000"}, "user_id"),                        # blank (ideographic space)
    ({"messages": "\u2003 ", "user_id": "u"}, "messages"),                       # blank text
    ({"messages": "hi", "user_id": "u", "metadata": {"a b": 1}}, "metadata"),     # key pattern
    ({"messages": "hi", "user_id": "u", "metadata": {"n": 10 ** 30}}, "metadata"),  # beyond 64-bit
    ({"messages": "hi", "user_id": "u", "metadata": {"s": "a\x00b"}}, "metadata"),  # NUL in a value
    ({"messages": "hi", "user_id": "u", "timestamp": 0}, "timestamp"),           # a number, not a timestamp
    ({"messages": "hi", "user_id": "u", "timestamp": "0001-01-01T00:00:00Z"}, "timestamp"),  # out of range
    ({"messages": [{"role": "user", "content": None}], "user_id": "u"}, "messages"),
    ({"messages": [{"role": "tool", "content": "42"}], "user_id": "u"}, "messages"),  # no text turn at all
])
def test_what_the_schema_refuses_is_a_422_naming_the_field(local, body, where):
    r = local.post("/v1/memories", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["details"][0]["loc"][:2] == ["body", where], r.text


@pytest.mark.parametrize("body", [
    {"messages": "I keep bees.", "timestamp": "2099-01-01T00:00:00Z"},
    {"messages": [{"role": "user", "content": "I keep bees.", "timestamp": "2099-01-01T00:00:00Z"}]},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "I keep bees."}],
                   "timestamp": "2099-01-01T00:00:00Z"}]},
], ids=["body", "text-turn", "content-parts"])
def test_a_message_said_in_the_future_is_one_400_whatever_its_shape(local, body):
    user = _uid()
    r = local.post("/v1/memories", json={**body, "user_id": user})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "invalid_input"
    assert "timestamp: 2099-01-01T00:00:00+00:00 is in the future" in err["message"]
    assert local.get("/v1/memories", params={"user_id": user}).json()["memories"] == []  # nothing stored


def test_label_and_filter_rules_are_schema_errors(local):
    user = _uid()
    mid = local.post("/v1/memories", json={"messages": "I moved to Berlin.", "user_id": user}).json()[
        "events"][0]["memory"]["id"]
    for labels in ([{"domain": "nope"}], [{"domain": "travel", "primary": True}, {"domain": "home", "primary": True}]):
        r = local.patch(f"/v1/memories/{mid}", json={"labels": labels})
        assert r.status_code == 422, (labels, r.text)
    # the same label twice (after the library's normalisation) is one label with the higher score
    same = local.patch(f"/v1/memories/{mid}", json={"labels": [{"domain": "travel", "topic": "Move", "score": 0.4},
                                                              {"domain": "travel", "topic": " move ", "score": 0.9}]})
    assert same.status_code == 200, same.text
    assert [(lab["domain"], lab["topic"], lab["score"]) for lab in same.json()["labels"]] == [("travel", "move", 0.9)]
    assert local.patch(f"/v1/memories/{mid}", json={}).status_code == 422
    ok = local.patch(f"/v1/memories/{mid}", json={"labels": [{"domain": "home", "topic": "move"}]})
    assert ok.status_code == 200 and ok.json()["labels"][0]["domain"] == "home"
    for filters in ({"label.domain": "nope"}, {"confidence": "high"}, {"channel": "x"}, {"kind": {"between": 1}},
                    {"created_at": {"gt": 5}}, {"OR": []}):
        r = local.post("/v1/search", json={"query": "Berlin", "user_id": user, "filters": filters})
        assert r.status_code == 422 and r.json()["error"]["details"][0]["loc"] == ["body", "filters"], r.text
    bare = local.post("/v1/search", json={"query": "Berlin", "user_id": user, "filters": {"channel": "x"}})
    assert "metadata.<key>" in bare.json()["error"]["message"]
    r = local.post("/v1/search", json={"query": "Berlin", "user_id": user,
                                       "filters": {"OR": [{"label.domain": "home"}, {"metadata.x": {"gt": 1}}]}})
    assert r.status_code == 200 and [h["memory"]["id"] for h in r.json()["hits"]] == [mid]
    # a new text equal to another current memory's: 409, nothing changed (was a 503 from the unique index)
    other = local.post("/v1/memories", json={"messages": "I play the cello.", "user_id": user}).json()[
        "events"][0]["memory"]
    clash = local.patch(f"/v1/memories/{mid}", json={"text": "I play the cello."})
    assert clash.status_code == 409 and other["id"] in clash.json()["error"]["message"], clash.text
    assert local.get(f"/v1/memories/{mid}").json()["text"] == "I moved to Berlin."
    done = local.post(f"/v1/memories/{mid}/complete")
    assert done.status_code == 409 and "not a commitment" in done.json()["error"]["message"]


# ----------------------------------------------------------------------------------------------- /v1/ask
def test_ask_returns_candidates_only_when_asked(local):
    user = _uid()
    for text in ("I moved to Lisbon last month.", "My sister lives in Berlin.", "I drink oolong tea.",
                 "I bought a red bicycle for commuting.", "My dentist appointment is on Friday."):
        local.post("/v1/memories", json={"messages": text, "user_id": user}).raise_for_status()
    body = {"query": "Where did I move?", "user_id": user}
    plain = local.post("/v1/ask", json=body)
    full = local.post("/v1/ask", params={"include": "candidates"}, json=body)
    assert plain.status_code == full.status_code == 200
    assert set(plain.json()) == {"text", "citations", "abstained"}
    assert set(full.json()) == {"text", "citations", "abstained", "candidates"}
    assert plain.json()["text"] == full.json()["text"] and "Lisbon" in plain.json()["text"]
    assert [c["id"] for c in plain.json()["citations"]] == [c["id"] for c in full.json()["citations"]]
    assert len(full.json()["candidates"]) >= 2
    assert len(plain.content) < len(full.content) / 2, (len(plain.content), len(full.content))
    assert local.post("/v1/ask", params={"include": "everything"}, json=body).status_code == 422


# ----------------------------------------------------------------------------------------------- docs, CSP
def test_docs_are_off_by_default_and_every_response_has_a_csp(local):
    assert local.get("/docs").status_code == 404 and local.get("/redoc").status_code == 404
    for path in ("/v1/health", "/openapi.json", "/v1/nowhere"):
        r = local.get(path)
        assert r.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'", path
        assert r.headers["x-content-type-options"] == "nosniff"
    ui = local.get("/ui/")
    assert "script-src 'self'" in ui.headers["content-security-policy"]  # the inspector keeps its own policy


def test_docs_when_enabled_admit_only_the_cdn_and_the_inline_script_by_hash():
    app = create_app(":memory:", embedder="hash", keys=KeyStore(":memory:"), rate_limit=None, docs=True)
    with TestClient(app) as c:
        r = c.get("/docs")
    assert r.status_code == 200 and "swagger-ui" in r.text
    csp = r.headers["content-security-policy"]
    assert "'unsafe-inline'" not in csp and "'sha256-" in csp and "frame-ancestors 'none'" in csp
    scripts = re.findall(r"<script src=\"([^\"]+)\"", r.text)
    assert scripts and all(s.startswith("https://cdn.jsdelivr.net/") for s in scripts)
    assert re.search(r"script-src https://cdn\.jsdelivr\.net '", csp)


# ----------------------------------------------------------------------------------------------- logs
SECRET_TEXT = "my passport number is X1234567 and I love oolong"


def _traffic(url: str, key: str, user: str) -> None:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30) as c:
        r = c.post("/v1/memories", json={"messages": SECRET_TEXT, "user_id": user, "session_id": user + "-s"})
        assert r.status_code == 201, r.text
        mid = r.json()["events"][0]["memory"]["id"]
        c.get("/v1/memories", params={"user_id": user, "filters": json.dumps({"metadata.colour": "vermilion"})})
        c.get(f"/v1/memories/{mid}")
        c.post("/v1/search", json={"query": "oolong", "user_id": user})
        c.post(f"/v1/sessions/{user}-s/summarize", json={"user_id": user})
        c.get("/v1/export", params={"user_id": user})


@pytest.mark.parametrize("debug", [False, True])
def test_access_log_has_no_user_ids_filters_or_text(tmp_path, debug):
    keys = KeyStore(str(tmp_path / "k.db"))
    key = keys.create("acme", "admin", name="log")[1]
    env = {"ANCHORMEM_PATH": str(tmp_path / "m.db"), "ANCHORMEM_KEYS_PATH": keys.path,
           "ANCHORMEM_EMBEDDER": "hash", "ANCHORMEM_RATE_LIMIT": "off"}
    if debug:
        env["ANCHORMEM_DEBUG_LOGS"] = "true"
    server = LiveServer(env, access_log=True)
    user = "alice-" + uuid.uuid4().hex[:6]
    try:
        _traffic(server.url, key, user)
    finally:
        server.stop()
        keys.close()
    log = server.log()
    assert "GET /v1/memories" in log and "POST /v1/search" in log  # the access log is on
    leaks = [s for s in (user, "vermilion", "colour", "oolong", "X1234567") if s in log]
    if debug:
        assert user in log and "vermilion" in log  # debug logging keeps the query string and the path ids
    else:
        assert leaks == [], log
        assert "/v1/memories/{id}" in log and "/v1/sessions/{id}/summarize" in log


def test_error_logs_name_the_route_and_type_not_the_message(caplog):
    keys = KeyStore(":memory:")
    key = keys.create("acme", "admin", name="t")[1]
    app = create_app(":memory:", embedder="hash", keys=keys, rate_limit=None)

    @app.get("/v1/boom/{user_id}")
    def boom(user_id: str) -> None:
        raise RuntimeError(f"failed on {SECRET_TEXT} for {user_id}")

    with TestClient(app, headers={"Authorization": f"Bearer {key}"}, raise_server_exceptions=False) as c, \
            caplog.at_level(logging.INFO, logger="anchormem"):
        r = c.get("/v1/boom/alice-secret")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
    text = caplog.text
    assert "GET /v1/boom/{user_id} failed: RuntimeError at" in text, text
    assert "X1234567" not in text and "alice-secret" not in text


def test_unknown_query_parameters_are_refused(local):
    """A misspelt filter must not widen a read: ?user=alice on GET /v1/review would list every user's items."""
    r = local.get("/v1/review", params={"user": "alice"})
    assert r.status_code == 422 and r.json()["error"]["details"][0]["loc"] == ["query", "user"], r.text
    assert local.get("/v1/review", params={"user_id": "alice"}).status_code == 200
    r = local.delete("/v1/memories/nope", params={"purge": "true", "force": "1"})
    assert r.status_code == 422 and "force" in r.text


def test_metadata_values_keep_their_json_type(local):
    """A string that reads as a number stays a string ("02139", "12e45678" is not infinity), a bool a bool."""
    meta = {"zip": "02139", "run": "12e45678", "n": 3, "x": 2.5, "ok": True, "none": None}
    r = local.post("/v1/memories", json={"messages": "I live near the river.", "user_id": _uid(), "metadata": meta})
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["memory"]["metadata"] == meta
