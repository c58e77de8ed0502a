"""A listing of one kind does not walk the user's scope: ``get_all(filters={"kind": ...})`` and ``Memory.due`` cost
about the same SQLite work in a scope of 1,500 memories and in one of 6,000 holding the same facts and commitments.

Without an index on the kind (the index ``ix_mem_kind``, :data:`anchormem.stores.schema.KIND_INDEX`) both read every
current row of the scope in listing order (``ix_mem_created``) and keep the few of that kind: 31 ms CPU at 100k
memories. As tests/test_read_cost_bounded.py does, this counts SQLite virtual-machine instructions
(``set_progress_handler``: deterministic), not time; speed is measured in bench/ (bench/kind_reads.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from anchormem import Memory
from anchormem.ingest.normalize import normalize_messages
from anchormem.ingest.pipeline import draft_memories
from anchormem.stores.protocol import NewMemory
from anchormem.types import Scope

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
_STEP = 100
_WORDS = "coffee tea rent Berlin Lisbon nurse teacher cat dog gym bike train salary flat garden piano".split()


def _load(mem: Memory, n: int) -> None:
    """``n`` utterance memories (no fact, no commitment) in user ``u``'s scope, written in batches."""
    scope = Scope(tenant=mem.tenant, user_id="u")
    w = _WORDS
    for s in range(0, n, 1500):
        msgs = normalize_messages([{"role": "user", "content": f"Note {i}: the {w[i % len(w)]} and the "
                                    f"{w[(i * 7) % len(w)]} came up again.", "timestamp": T0 + timedelta(seconds=i)}
                                   for i in range(s, min(n, s + 1500))], default_time=T0,
                                  max_chars=mem.settings.max_message_chars)
        prep = draft_memories(msgs, scope=scope, metadata=None, now=T0, chunk_chars=mem.settings.chunk_chars)
        vecs = mem.embedder.embed_documents([d.item.text for d in prep.drafts])
        mem.store.write(prep.messages, [NewMemory(d.item, np.asarray(v, dtype=np.float32), d.content_hash,
                                                  d.index_text) for d, v in zip(prep.drafts, vecs)], actor="test")


def _run(n: int) -> tuple[dict[str, int], dict[str, list[str]]]:
    steps: dict[str, int] = {}
    got: dict[str, list[str]] = {}
    with Memory(":memory:", embedder="hash", cache=False) as mem:
        _load(mem, n)
        day = T0 + timedelta(days=30)
        mem.add("My rent is 1200 euros a month.", user_id="u", timestamp=day)
        mem.add("I live in Berlin now.", user_id="u", timestamp=day + timedelta(minutes=1))
        for i in range(6):
            mem.add(f"I promise to send report {i} to Anna by Monday.", user_id="u",
                    timestamp=day + timedelta(minutes=2 + i))
        calls = [
            ("facts", lambda: mem.get_all(user_id="u", filters={"kind": "fact"})),
            ("facts_page", lambda: mem.get_all(user_id="u", filters={"kind": "fact"}, limit=1)),
            ("due", lambda: mem.due(user_id="u")),
        ]
        for name, call in calls:
            call()  # warm
            count = [0]
            conn = mem.store._conn()  # noqa: SLF001 - the thread's connection: every read of this thread uses it

            def tick() -> int:
                count[0] += 1
                return 0

            conn.set_progress_handler(tick, _STEP)
            try:
                rows = call()
            finally:
                conn.set_progress_handler(None, _STEP)
            steps[name] = count[0] * _STEP
            got[name] = [m.text for m in rows]
    return steps, got


@pytest.mark.slow
def test_a_listing_of_one_kind_costs_the_same_in_a_scope_four_times_larger():
    (small, got_small), (large, got_large) = _run(1500), _run(6000)
    assert got_small == got_large  # the same rows, in the same order
    assert got_small["facts"] == ["My rent is 1200 euros a month.", "I live in Berlin now."]
    assert got_small["facts_page"] == ["My rent is 1200 euros a month."]
    assert len(got_small["due"]) == 6 and got_small["due"][0] == "I promise to send report 0 to Anna by Monday."
    for name in small:
        # reading every row of the scope made it ~4x; the index keeps it within a few hundred instructions
        assert large[name] <= small[name] + 1_000, (name, small[name], large[name])
