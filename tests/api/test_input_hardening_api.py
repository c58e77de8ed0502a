"""Over real HTTP: oversized filters are 400 invalid_filter (never a 503 from the database), bodies that are not
UTF-8 JSON get a message that says so, scope ids with control characters are 400 invalid_scope, and
summarize takes user_id from its JSON body."""

from __future__ import annotations

import json
import uuid


def _uid() -> str:
    return "u-" + uuid.uuid4().hex[:12]


def _nots(n: int) -> dict:
    f: dict = {"source": "user"}
    for _ in range(n):
        f = {"NOT": f}
    return f


def test_filter_limits_over_http(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        assert c.post("/v1/memories", json={"messages": "I drink oolong tea every morning.",
                                            "user_id": user}).status_code == 201
        ok = c.post("/v1/search", json={"query": "tea", "user_id": user, "filters": _nots(16)})
        assert ok.status_code == 200 and [h["memory"]["text"] for h in ok.json()["hits"]] == \
            ["I drink oolong tea every morning."]
        for filters, msg in ((_nots(50), "more than 16 levels"),
                             ({"OR": [{"source": "user"}] * 1000}, "more than 256 conditions")):
            for method, path, body in (("POST", "/v1/search", {"query": "tea", "user_id": user}),
                                       ("POST", "/v1/ask", {"query": "what do I drink?", "user_id": user}),
                                       ("POST", "/v1/context", {"query": "tea", "user_id": user,
                                                                "session_id": "s1"}),
                                       ("POST", "/v1/archive", {"user_id": user})):
                r = c.request(method, path, json={**body, "filters": filters})
                assert r.status_code == 400, (path, r.text)
                assert r.json()["error"]["code"] == "invalid_filter" and msg in r.json()["error"]["message"]
        r = c.get("/v1/memories", params={"user_id": user, "filters": json.dumps(_nots(20))})
        assert r.status_code == 400 and "more than 16 levels" in r.json()["error"]["message"]
        # nested past what the JSON parser takes: still a 400 with the error envelope
        deep = '{"query": "tea", "user_id": "%s", "filters": ' % user + '{"NOT": ' * 5000 + '{"source": "user"}' \
            + "}" * 5001
        r = c.post("/v1/search", content=deep.encode(), headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json() == {"error": {"code": "invalid_input",
                                                               "message": "request body JSON nests too deeply"}}
        assert len(c.get("/v1/memories", params={"user_id": user}).json()["memories"]) == 1  # nothing archived


def test_invalid_utf8_body_says_so(api):
    with api.client("acme", "writer") as c:
        body = b'{"query": "t\xffea", "user_id": "u"}'
        r = c.post("/v1/search", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and body.index(b"\xff") == 12
        assert r.json() == {"error": {"code": "invalid_input",
                                      "message": "request body is not valid UTF-8 JSON (bad byte at offset 12)"}}
        r = c.post("/v1/memories", content=b'{"messages": "caf\xe9", "user_id": "u"}',  # Latin-1, not UTF-8
                   headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["message"].startswith("request body is not valid UTF-8")


def test_scope_ids_with_control_characters_are_refused(api):
    with api.client("acme", "writer") as c:
        for bad in ("u\x00x", "u\x01", "tab\there", "line\nbreak", "del\x7f"):
            r = c.post("/v1/memories", json={"messages": "I like tea.", "user_id": bad})
            assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error", r.text
            assert "control character" in r.json()["error"]["message"]
            r = c.post("/v1/memories", json={"messages": "I like tea.", "user_id": "ok", "session_id": bad})
            assert r.status_code == 422 and r.json()["error"]["message"].startswith("body.session_id: must not")
            r = c.get("/v1/memories", params={"user_id": bad})
            assert r.status_code == 422 and r.json()["error"]["message"].startswith("query.user_id: must not")


def test_summarize_takes_user_id_from_the_body(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": [
            {"role": "user", "content": "I prefer low-risk investments. The budget is 5,000 euros."}],
            "user_id": user, "session_id": "s1"})
        assert r.status_code == 201, r.text
        by_body = c.post("/v1/sessions/s1/summarize", json={"user_id": user})
        assert by_body.status_code == 200, by_body.text
        assert by_body.json()["kind"] == "summary" and by_body.json()["user_id"] == user
        assert "5,000 euros" in by_body.json()["text"]
        # the JSON body is the one place for user_id (a query string copy could contradict it unseen by the schema)
        by_query = c.post("/v1/sessions/s1/summarize", params={"user_id": user})
        assert by_query.status_code == 422 and by_query.json()["error"]["details"][0]["loc"] == ["query", "user_id"]
        none = c.post("/v1/sessions/s1/summarize")
        assert none.status_code == 422 and none.json()["error"]["code"] == "validation_error"
        assert c.post("/v1/sessions/nope/summarize", json={"user_id": user}).status_code == 404
        assert c.post("/v1/sessions/s1/summarize", json={"user_id": user, "extra": 1}).status_code == 422


def test_an_openai_chat_is_added_as_it_is(api):
    user = _uid()
    chat = [{"role": "developer", "content": "You are a helpful travel assistant."},
            {"role": "user", "content": [{"type": "text", "text": "I live in Oslo now."},
                                         {"type": "image_url", "image_url": {"url": "data:,"}}]},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "-3C, snow"},
            {"role": "assistant", "content": "It is -3C and snowing in Oslo."}]
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": chat, "user_id": user, "session_id": "s"})
        assert r.status_code == 201, r.text
        assert sorted(e["memory"]["text"] for e in r.json()["events"]) == [
            "I live in Oslo now.", "It is -3C and snowing in Oslo."]
        r = c.post("/v1/memories", json={"messages": chat[3:4], "user_id": user})  # the schema says: contains a text turn
        assert r.status_code == 422 and "at least one message must have text" in r.text
        r = c.post("/v1/memories", json={"messages": [{"role": "robot", "content": "hi"}], "user_id": user})
        assert r.status_code == 422
