"""Review queue and commitments over real HTTP: list, approve, reject (409 when resolved), tenant isolation,
due and complete."""

from __future__ import annotations

import uuid


def _uid() -> str:
    return "u-" + uuid.uuid4().hex[:10]


def _hold(c, user: str) -> str:
    """Store a fact, then a hedged conflicting one: the second is held for review; returns its id."""
    c.post("/v1/memories", json={"messages": "My favourite tea is oolong.", "user_id": user,
                                 "timestamp": "2025-01-01T00:00:00Z"})
    r = c.post("/v1/memories", json={"messages": "Maybe my favourite tea is green tea.", "user_id": user,
                                     "timestamp": "2025-02-01T00:00:00Z"})
    events = r.json()["events"]
    assert [e["event"] for e in events] == ["REVIEW"], events
    return events[0]["review_id"]


def test_review_list_approve_reject_and_isolation(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        first = _hold(c, user)
        second = _hold(c, user + "-b")
        items = c.get("/v1/review", params={"user_id": user}).json()["items"]
        assert [(i["id"], i["status"], i["proposed"]["text"]) for i in items] == [
            (first, "pending", "Maybe my favourite tea is green tea.")]
        approved = c.post(f"/v1/review/{first}/approve")
        assert approved.status_code == 200, approved.text
        assert [(e["event"], e["memory"]["text"]) for e in approved.json()["events"]] == [
            ("ADD", "Maybe my favourite tea is green tea."), ("SUPERSEDE", "My favourite tea is oolong.")]
        current = c.get("/v1/memories", params={"user_id": user}).json()["memories"]
        assert [m["text"] for m in current] == ["Maybe my favourite tea is green tea."]
        again = c.post(f"/v1/review/{first}/approve")
        assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
        rejected = c.post(f"/v1/review/{second}/reject")
        assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
        every = c.get("/v1/review", params={"status": "all"}).json()["items"]
        assert {first, second} <= {i["id"] for i in every}
    with api.client("acme", "reader") as r:
        denied = r.post(f"/v1/review/{second}/approve")
        assert denied.status_code == 403
    with api.client("globex", "admin") as other:  # another tenant sees nothing and cannot act
        assert other.get("/v1/review", params={"status": "all"}).json()["items"] == []
        assert other.post(f"/v1/review/{second}/reject").status_code == 404


def test_due_and_complete(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        c.post("/v1/memories", json={"messages": [
            {"role": "user", "content": "We agreed to send the documents by Monday."},
            {"role": "assistant", "content": "I will call you tomorrow to confirm."}],
            "user_id": user, "timestamp": "2024-05-22T10:00:00+08:00"})
        due = c.get("/v1/due", params={"user_id": user}).json()["memories"]
        assert [(m["text"], m["event_time"][:10]) for m in due] == [
            ("I will call you tomorrow to confirm.", "2024-05-22"),
            ("We agreed to send the documents by Monday.", "2024-05-26")]
        soon = c.get("/v1/due", params={"user_id": user, "before": "2024-05-24T00:00:00Z"}).json()["memories"]
        assert [m["text"] for m in soon] == ["I will call you tomorrow to confirm."]
        done = c.post(f"/v1/memories/{due[0]['id']}/complete")
        assert done.status_code == 200 and done.json()["valid_to"] is not None
        assert c.post(f"/v1/memories/{due[0]['id']}/complete").status_code == 409
        left = c.get("/v1/due", params={"user_id": user}).json()["memories"]
        assert [m["text"] for m in left] == ["We agreed to send the documents by Monday."]


def test_list_filters_by_session_and_agent_separately(api):
    """Regression: session_id on GET /v1/memories was read as agent_id (a shared Query object)."""
    user = _uid()
    with api.client("acme", "writer") as c:
        for sess, agent, text in (("s1", "a1", "I repaired the bicycle chain."), ("s2", "a1", "I baked bread."),
                                  ("s1", "a2", "I planted tomatoes.")):
            c.post("/v1/memories", json={"messages": text, "user_id": user, "session_id": sess, "agent_id": agent})
        def texts(**params):
            return sorted(m["text"] for m in c.get("/v1/memories", params={"user_id": user, **params}
                                                   ).json()["memories"])
        assert texts(session_id="s1") == ["I planted tomatoes.", "I repaired the bicycle chain."]
        assert texts(agent_id="a1") == ["I baked bread.", "I repaired the bicycle chain."]
        assert texts(session_id="s1", agent_id="a2") == ["I planted tomatoes."]


def test_expired_listing_gc_and_summarize(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": [
            {"role": "user", "content": "My fund yielded 3.2% this week.", "metadata": {"expires_at": "2020-01-01T00:00:00Z"}},
            {"role": "user", "content": "I prefer low-risk investments. The budget is 5,000 euros."}],
            "user_id": user, "session_id": "s1", "timestamp": "2019-12-01T00:00:00Z"})
        assert r.status_code == 201, r.text
        shown = c.get("/v1/memories", params={"user_id": user}).json()["memories"]
        assert all("yielded" not in m["text"] for m in shown)
        every = c.get("/v1/memories", params={"user_id": user, "show_expired": "true"}).json()["memories"]
        assert any("yielded 3.2%" in m["text"] for m in every)
        s = c.post("/v1/sessions/s1/summarize", json={"user_id": user})
        assert s.status_code == 200, s.text
        assert s.json()["kind"] == "summary" and "5,000 euros" in s.json()["text"]
        assert c.post("/v1/sessions/nope/summarize", json={"user_id": user}).status_code == 404
        assert c.post("/v1/gc", json={"user_id": user}).status_code == 403  # admin only
    with api.client("acme", "admin") as a:
        dry = a.post("/v1/gc", json={"user_id": user, "dry_run": True}).json()["deleted"]
        assert dry == {"memories": 1, "users": 1}
        done = a.post("/v1/gc", json={"user_id": user, "purge": True}).json()["deleted"]
        assert done["memories"] == 1
        left = a.get("/v1/memories", params={"user_id": user, "show_expired": "true"}).json()["memories"]
        assert all("yielded" not in m["text"] for m in left)
