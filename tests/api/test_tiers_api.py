"""Storage tiers over REST: POST /v1/archive and /v1/restore (writer), POST /v1/consolidate (admin)."""

from __future__ import annotations

import uuid


def _uid() -> str:
    return "tiers-" + uuid.uuid4().hex[:10]


def test_archive_restore_and_consolidate_over_http(api):
    user = _uid()
    with api.client("acme", "writer") as c:
        r = c.post("/v1/memories", json={"messages": "Chess club meets on Thursday evenings near the library.",
                                         "user_id": user, "timestamp": "2025-01-06T09:00:00Z"})
        mid = r.json()["events"][0]["memory"]["id"]
        r = c.post("/v1/archive", json={"ids": [mid], "reason": "season over"})
        assert r.status_code == 200, r.text
        assert [(m["id"], m["tier"]) for m in r.json()["memories"]] == [(mid, "cold")]
        assert c.get("/v1/memories", params={"user_id": user}).json()["memories"] == []
        hits = c.post("/v1/search", json={"query": "chess club Thursday", "user_id": user,
                                          "filters": {"tier": "cold"}}).json()["hits"]
        assert [h["memory"]["id"] for h in hits] == [mid]
        hist = c.get(f"/v1/memories/{mid}/history").json()["history"]
        assert (hist[-1]["event"], hist[-1]["reason"]) == ("ARCHIVE", "season over")
        r = c.post("/v1/restore", json={"user_id": user})
        assert [(m["id"], m["tier"]) for m in r.json()["memories"]] == [(mid, "warm")]
        assert c.post("/v1/archive", json={"ids": ["no-such-memory"]}).status_code == 404
        assert c.post("/v1/archive", json={}).status_code == 422  # neither ids nor user_id (the schema says so)
        assert c.post("/v1/consolidate", json={"user_id": user}).status_code == 403  # admin only
        r = c.post("/v1/memories", json={"messages": "The bakery on Rua Augusta opens at 7am.", "user_id": user,
                                         "timestamp": "2025-03-10T09:00:00Z"})  # the user's latest activity
        assert r.status_code == 201, r.text
    with api.client("acme", "reader") as c:
        assert c.post("/v1/archive", json={"ids": [mid]}).status_code == 403
    with api.client("acme", "admin") as c:
        r = c.post("/v1/consolidate", json={"user_id": user, "dry_run": True})
        assert r.status_code == 200, r.text
        body = r.json()  # said in January 2025, no session: an old episode of ISO week 2025-W02 (on the user's
        # timeline: 63 days before their latest turn)
        assert body["dry_run"] is True and body["clusters"] == [{"key": "week:2025-W02", "summary_id": None,
                                                                 "episodes": [mid]}]
        assert body["archived"] == [mid] and body["counts"]["archived"] == 1
        assert c.get(f"/v1/memories/{mid}").json()["tier"] == "warm"  # a dry run changes nothing
    with api.client("globex", "admin") as c:  # another tenant cannot reach the memory
        assert c.post("/v1/archive", json={"ids": [mid]}).status_code == 404
