"""The REST API over real HTTP: CRUD round trip, search/ask, export/forget, probes and the error envelope."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid

import httpx
import pytest


def _uid() -> str:
    return "u-" + uuid.uuid4().hex[:10]


def _envelope(r: httpx.Response, status: int, code: str | None = None) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"]["code"], str) and isinstance(body["error"]["message"], str)
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]


def test_probes_need_no_key(api):
    assert httpx.get(api.url + "/v1/health").json() == {"status": "ok"}
    r = httpx.get(api.url + "/v1/ready")
    assert r.status_code == 200 and r.json() == {"status": "ready"}


def test_openapi_served(api):
    spec = httpx.get(api.url + "/openapi.json").json()
    paths = spec["paths"]
    for p in ("/v1/memories", "/v1/memories/{memory_id}", "/v1/memories/{memory_id}/history", "/v1/search",
              "/v1/ask", "/v1/export", "/v1/forget", "/v1/health", "/v1/ready"):
        assert p in paths, p
    assert "HTTPBearer" in spec["components"]["securitySchemes"]


def test_crud_round_trip(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": [
            {"role": "user", "content": "I moved to Lisbon last month.", "timestamp": "2025-03-10T09:00:00Z"},
            {"role": "user", "content": "我最喜欢的茶是龙井。"}], "user_id": user, "session_id": "s1",
            "metadata": {"channel": "chat", "n": 3}})
        assert r.status_code == 201, r.text
        events = r.json()["events"]
        assert [e["event"] for e in events] == ["ADD", "ADD"]
        mid = events[0]["memory"]["id"]
        assert events[0]["memory"]["tenant"] == "acme"
        assert events[0]["memory"]["metadata"]["channel"] == "chat"

        # the same text again is a NOOP with the same id
        again = c.post("/v1/memories", json={"messages": "I moved to Lisbon last month.", "user_id": user,
                                             "session_id": "s1", "timestamp": "2025-03-10T09:00:00Z",
                                             "metadata": {"channel": "chat", "n": 3}}).json()["events"]
        assert [e["event"] for e in again] in (["NOOP"], ["ADD"])

        got = c.get(f"/v1/memories/{mid}")
        assert got.status_code == 200 and got.json()["text"] == "I moved to Lisbon last month."

        listed = c.get("/v1/memories", params={"user_id": user}).json()["memories"]
        assert mid in [m["id"] for m in listed]
        only = c.get("/v1/memories", params={"user_id": user, "filters": json.dumps({"metadata.channel": "chat"}),
                                             "limit": 1}).json()["memories"]
        assert len(only) == 1

        r = c.patch(f"/v1/memories/{mid}", json={"text": "I moved to Porto last month.", "reason": "typo"})
        assert r.status_code == 200, r.text
        assert r.json()["text"] == "I moved to Porto last month."
        hist = c.get(f"/v1/memories/{mid}/history").json()["history"]
        restated = [e["memory"]["source_message_ids"][-1] for e in again if e["event"] == "NOOP"]
        assert [(h["event"], h["reason"]) for h in hist][:-1] == [("ADD", None)] + [
            ("NOOP", f"restated in message {t}") for t in restated]  # a NOOP cites the repeated turn
        assert hist[-1]["event"] == "UPDATE"
        assert hist[-1]["old_text"] == "I moved to Lisbon last month." and hist[-1]["reason"] == "typo"

        r = c.delete(f"/v1/memories/{mid}")
        assert r.status_code == 200 and r.json()["deleted"]["memories"] == 1
        _envelope(c.get(f"/v1/memories/{mid}"), 404, "not_found")
        _envelope(c.delete(f"/v1/memories/{mid}"), 404, "not_found")
        _envelope(c.patch(f"/v1/memories/{mid}", json={"text": "x y z"}), 404, "not_found")


def test_search_and_ask(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        c.post("/v1/memories", json={"messages": "My sister Ana lives in Berlin and works as a nurse.",
                                     "user_id": user}).raise_for_status()
        c.post("/v1/memories", json={"messages": "I bought a red bicycle for commuting.",
                                     "user_id": user}).raise_for_status()
        hits = c.post("/v1/search", json={"query": "red bicycle", "user_id": user, "limit": 3}).json()["hits"]
        assert hits and "bicycle" in hits[0]["memory"]["text"]
        assert hits[0]["score"] >= hits[-1]["score"] and "final" in hits[0]["explain"] or hits[0]["explain"]
        r = c.post("/v1/search", json={"query": "bicycle", "user_id": user, "recipe": "bm25",
                                       "filters": {"source": "user"}, "context": ["we talked about bikes"]})
        assert r.status_code == 200, r.text
        bare = c.post("/v1/search", json={"query": "bicycle", "user_id": user, "context": "we talked about bikes"})
        assert bare.status_code == 422 and bare.json()["error"]["message"] == \
            "body.context: Input should be a valid list", bare.text
        blank = c.post("/v1/search", json={"query": "bicycle", "user_id": user, "context": ["bikes", " "]})
        assert blank.status_code == 422 and blank.json()["error"]["code"] == "validation_error"
        assert blank.json()["error"]["details"][0]["loc"][:3] == ["body", "context", "1"], blank.text
        ans = c.post("/v1/ask", json={"query": "What did I buy for commuting?", "user_id": user})
        assert ans.status_code == 200, ans.text
        body = ans.json()
        assert set(body) >= {"text", "citations", "abstained"}
        if not body["abstained"]:
            assert all(m["tenant"] == "acme" and m["user_id"] == user for m in body["citations"])
        nothing = c.post("/v1/search", json={"query": "bicycle", "user_id": _uid()}).json()
        assert nothing == {"hits": []}


def test_export_and_forget(api):
    user = _uid()
    with api.client("acme", "admin") as c:
        c.post("/v1/memories", json={"messages": "I am allergic to peanuts.", "user_id": user}).raise_for_status()
        exp = c.get("/v1/export", params={"user_id": user}).json()
        assert exp["format"] == "anchormem.export/1" and exp["tenant"] == "acme"
        assert [m["text"] for m in exp["memories"]] == ["I am allergic to peanuts."]
        r = c.post("/v1/forget", json={"user_id": user, "purge": True})
        assert r.status_code == 200 and r.json()["deleted"]["memories"] == 1
        assert c.get("/v1/memories", params={"user_id": user}).json() == {"memories": []}
        assert c.get("/v1/export", params={"user_id": user}).json()["memories"] == []


@pytest.mark.parametrize("method,path,body,status,code", [
    ("post", "/v1/memories", {"messages": "", "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/memories", {"messages": "   ", "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/memories", {"messages": "x" * 1_000_000, "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/memories", {"messages": [], "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/memories", {"messages": "hello there friend", "user_id": "u", "metadata": {"bad key!": 1}},
     422, "validation_error"),
    ("post", "/v1/memories", {"messages": "hello", "user_id": " "}, 422, "validation_error"),
    ("post", "/v1/memories", {"messages": "hello"}, 422, "validation_error"),
    ("post", "/v1/memories", {"messages": "hi", "user_id": "u", "timestamp": "yesterday-ish"}, 422,
     "validation_error"),
    ("post", "/v1/search", {"query": "q", "user_id": "u", "filters": {"nope": {"eq": 1}}}, 422, "validation_error"),
    ("post", "/v1/search", {"query": "q", "user_id": "u", "filters": {"created_at": {"between": 1}}}, 422,
     "validation_error"),
    ("post", "/v1/search", {"query": "q", "user_id": "u", "limit": 0}, 422, "validation_error"),
    ("post", "/v1/search", {"query": "q", "user_id": "u", "recipe": "magic"}, 422, "validation_error"),
    ("post", "/v1/search", {"query": "q" * 10_000, "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/ask", {"query": "", "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/ask", {"query": "   ", "user_id": "u"}, 422, "validation_error"),  # blank: as search and context
    ("post", "/v1/search", {"query": " \n ", "user_id": "u"}, 422, "validation_error"),
    ("post", "/v1/context", {"query": "  ", "user_id": "u", "session_id": "s"}, 422, "validation_error"),
    ("get", "/v1/memories?user_id=u&filters=%7Bnot%20json", None, 422, "validation_error"),
    ("get", "/v1/memories?user_id=u&filters=%5B1%5D", None, 422, "validation_error"),
    ("get", "/v1/memories?user_id=u&filters=%7B%22OR%22%3A%205%7D", None, 422, "validation_error"),
    ("get", "/v1/memories", None, 422, "validation_error"),
    ("get", "/v1/memories/does-not-exist", None, 404, "not_found"),
    ("get", "/v1/memories/does-not-exist/history", None, 404, "not_found"),
    ("post", "/v1/forget", {}, 422, "validation_error"),
    ("get", "/v1/nowhere", None, 404, "not_found"),
    ("put", "/v1/memories", {}, 405, "method_not_allowed"),
])
def test_bad_input_gets_4xx_envelope(api, method, path, body, status, code):
    with api.client("acme", "admin") as c:
        r = c.request(method.upper(), path, json=body)
    _envelope(r, status, code)


def test_malformed_json_body(api):
    with api.client("acme", "admin") as c:
        r = c.post("/v1/memories", content=b'{"messages": "hi", ', headers={"content-type": "application/json"})
        _envelope(r, 422, "validation_error")
        r = c.post("/v1/search", content=b'{"query": "\\ud800", "user_id": "u"}',
                   headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500


def test_body_too_large(limited_api):
    with limited_api.client("acme", "admin") as c:
        r = c.post("/v1/memories", content=b'{"messages": "' + b"a" * 100_000 + b'", "user_id": "u"}',
                   headers={"content-type": "application/json"})
    _envelope(r, 413, "payload_too_large")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_keys_and_serve(tmp_path):
    """`anchormem keys create` then `anchormem serve` in a subprocess, used over HTTP with that key."""
    db = tmp_path / "served.db"
    env = {**os.environ, "ANCHORMEM_EMBEDDER": "hash", "ANCHORMEM_RATE_LIMIT": "off"}
    env.pop("ANCHORMEM_URL", None)
    env.pop("ANCHORMEM_KEYS_PATH", None)
    cli = [sys.executable, "-c", "from anchormem.cli import main; main()"]
    out = subprocess.run(cli + ["--db", str(db), "--json", "keys", "create", "--tenant", "t1", "--role", "writer"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    created = json.loads(out.stdout)
    key = created["key"]
    assert key.startswith("amk_") and (tmp_path / "served.db.keys.db").exists()
    assert key.encode() not in (tmp_path / "served.db.keys.db").read_bytes()  # stored hashed only
    listed = json.loads(subprocess.run(cli + ["--db", str(db), "--json", "keys", "list"], env=env,
                                       capture_output=True, text=True, timeout=60).stdout)
    assert [k["id"] for k in listed] == [created["id"]] and "key" not in listed[0]

    port = _free_port()
    proc = subprocess.Popen(cli + ["serve", "--host", "127.0.0.1", "--port", str(port), "--url", f"sqlite:///{db}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        h = {"Authorization": f"Bearer {key}"}
        r = httpx.post(base + "/v1/memories", json={"messages": "I play the cello on Sundays.", "user_id": "bo"},
                       headers=h, timeout=30)
        assert r.status_code == 201, r.text
        assert r.json()["events"][0]["memory"]["tenant"] == "t1"
        _envelope(httpx.post(base + "/v1/forget", json={"user_id": "bo"}, headers=h), 403, "forbidden")
        rv = subprocess.run(cli + ["--db", str(db), "keys", "revoke", created["id"]], env=env, capture_output=True,
                            text=True, timeout=60)
        assert rv.returncode == 0, rv.stderr
        _envelope(httpx.get(base + "/v1/memories", params={"user_id": "bo"}, headers=h), 401, "unauthorized")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_rest_add_of_chitchat_says_it_was_skipped(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": "hi", "user_id": user})
        assert r.status_code == 201  # the call succeeded (the turn is in the session); it kept no memory
        assert [(e["event"], e["reason"], e["memory"]["text"]) for e in r.json()["events"]] == \
            [("SKIP", "chit-chat: nothing to remember", "hi")]
        assert c.get("/v1/memories", params={"user_id": user}).json()["memories"] == []


def test_rest_delete_of_the_superseding_memory_keeps_the_old_value_superseded(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        first = c.post("/v1/memories", json={"messages": "I live in Lisbon.", "user_id": user,
                                             "timestamp": "2024-01-01T09:00:00Z"}).json()["events"]
        lisbon = first[0]["memory"]["id"]
        moved = c.post("/v1/memories", json={"messages": "I moved to Berlin.", "user_id": user,
                                             "timestamp": "2024-02-01T09:00:00Z"}).json()["events"]
        assert sorted(e["event"] for e in moved) == ["ADD", "SUPERSEDE"]
        berlin = next(e["memory"]["id"] for e in moved if e["event"] == "ADD")
        assert c.delete(f"/v1/memories/{berlin}").status_code == 200
        assert c.get(f"/v1/memories/{lisbon}").json()["valid_to"] == "2024-02-01T09:00:00Z"
        ans = c.post("/v1/ask", json={"query": "Where do I live?", "user_id": user}).json()
        assert ans["abstained"] is True
        hist = c.get(f"/v1/memories/{lisbon}/history").json()["history"]
        assert [h["event"] for h in hist] == ["ADD", "SUPERSEDE", "SUCCESSOR_DELETED"]


def test_rest_list_by_turn_folds_the_facts_of_an_utterance(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        c.post("/v1/memories", json={"messages": "I have a dog named Rex. I like to walk him in the park.",
                                     "user_id": user}).raise_for_status()
        plain = c.get("/v1/memories", params={"user_id": user}).json()["memories"]
        rows = c.get("/v1/memories", params={"user_id": user, "by_turn": "true"}).json()["memories"]
        assert len(plain) == 3 and [m["kind"] for m in rows] == ["utterance"]
        assert {cl["fact_id"] for cl in rows[0]["claims"]} == {m["id"] for m in plain if m["kind"] == "fact"}


def test_validation_errors_name_fields_not_validators(api):
    """A bad role names body.messages.0.role (not pydantic's list[union[function-after[...]]] tags); a body that
    is not JSON says so and where."""
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": [{"role": "boss", "content": "I live in Paris"}],
                                         "user_id": _uid()})
        err = r.json()["error"]
        assert r.status_code == 422 and err["code"] == "validation_error", r.text
        assert err["message"].startswith("body.messages.0.role: "), err["message"]
        assert all("[" not in part for d in err["details"] for part in d["loc"]), err["details"]
        r = c.post("/v1/memories", content=b'{"messages": [1,}', headers={"content-type": "application/json"})
        err = r.json()["error"]
        assert r.status_code == 422 and err["message"].startswith("body: request body is not valid JSON ("), r.text
        assert "at character 16" in err["message"], err["message"]
