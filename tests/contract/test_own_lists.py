"""A person's own memories (anchormem.retrieval.speakers.own_lists) on every backend: the speaker filter of the
dense and keyword searches holds on SQLite and PostgreSQL alike, and a set question about one speaker is led by
that speaker's turn through Memory.search."""

from __future__ import annotations

from datetime import datetime, timezone

from anchormem.retrieval.config import SearchConfig
from anchormem.retrieval.speakers import own_lists
from anchormem.types import Scope

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)
TURNS = [("Bob", "I bet your kids like the beach, Ann. All kids like the beach."),
         ("Ann", "They are great! The kids love swimming and collecting shells."),
         ("Bob", "Nice, I went hiking in the hills last week."),
         ("Ann", "I am repainting the kitchen this month."),
         ("Bob", "My car needs new tyres before winter.")]


def test_own_lists_hold_the_named_speakers_memories_only(mem):
    mem.add([{"role": "user", "content": c, "name": n, "timestamp": T0} for n, c in TURNS], user_id="u")
    rows = mem.search("kids beach swimming hiking kitchen car", user_id="u", limit=10,
                      recipe=SearchConfig(name="p", track_access=False, query_rewrite="off"))
    speaker = {h.memory.id: h.memory.speaker for h in rows}
    assert sorted(speaker.values()) == ["Ann", "Ann", "Bob", "Bob", "Bob"]
    scope = Scope(tenant=mem.tenant, user_id="u")
    qv = mem.embedder.embed_query("What activities do Ann's kids like?")
    named, lists = own_lists("What activities do Ann's kids like?", store=mem.store, scope=scope, where=None,
                             as_of=None, n=10, peek=list(speaker), terms=["kids", "beach"],
                             query_vector=lambda: qv, dense=True, lexical=True)
    assert named == {"Ann"}
    assert {speaker[d] for d, _ in lists["dense_own"]} == {"Ann"} and len(lists["dense_own"]) == 2
    assert [speaker[d] for d, _ in lists["bm25_own"]] == ["Ann"]  # "kids": Ann's turn; Bob's is filtered out
    on = SearchConfig(name="own", track_access=False, query_rewrite="off", own_weight=1.0)
    off = SearchConfig(name="off", track_access=False, query_rewrite="off")
    q = "What activities do Ann's kids like at the beach?"
    assert mem.search(q, user_id="u", recipe=off, limit=1)[0].memory.speaker == "Bob"
    assert mem.search(q, user_id="u", recipe=on, limit=1)[0].memory.speaker == "Ann"
