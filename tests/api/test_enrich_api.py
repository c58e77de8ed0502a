"""The deferred-enrichment queue over REST: GET /v1/enrich (reader: rows pending), POST /v1/enrich (admin)."""

from __future__ import annotations

import uuid

from anchormem import Memory


def test_pending_rows_are_counted_and_drained_over_http(api):
    user = "enrich-" + uuid.uuid4().hex[:10]
    db = api.keys.path[: -len(".keys.db")]
    mem = Memory(db, embedder="hash", tenant="acme", llm=None, cache=False)
    mem.add_many([{"role": "user", "content": "I live in Lisbon.", "timestamp": "2025-01-06T09:00:00Z"},
                  {"role": "user", "content": "I moved to Porto.", "timestamp": "2025-02-06T09:00:00Z"}],
                 user_id=user, enrich="later")
    mem.close()
    with api.client("acme", "reader") as c:
        r = c.get("/v1/enrich", params={"user_id": user})
        assert r.status_code == 200, r.text
        assert r.json() == {"enriched": 0, "pending": 2, "counts": {}}
        assert c.post("/v1/enrich", json={"user_id": user}).status_code == 403  # admin only
    with api.client("acme", "admin") as c:
        r = c.post("/v1/enrich", json={"user_id": user, "limit": 1})
        assert r.status_code == 200, r.text
        assert (r.json()["enriched"], r.json()["pending"]) == (1, 1)
        r = c.post("/v1/enrich", json={"user_id": user})
        assert (r.json()["enriched"], r.json()["pending"]) == (1, 0)
        assert r.json()["counts"]["SUPERSEDE"] == 1
        assert c.post("/v1/enrich", json={"user_id": user, "limit": 0}).status_code == 422
        facts = [m["text"] for m in c.get("/v1/memories", params={"user_id": user}).json()["memories"]]
        assert facts == ["I moved to Porto."]
