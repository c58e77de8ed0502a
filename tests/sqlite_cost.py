"""Helpers of the tests that count SQLite virtual-machine instructions of a read (``set_progress_handler``:
deterministic, unlike time): a scope of ``n`` plain notes written through the store layer, and the instructions
one call costs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from anchormem import Memory
from anchormem.ingest.normalize import normalize_messages
from anchormem.ingest.pipeline import draft_memories
from anchormem.stores.protocol import NewMemory
from anchormem.types import Scope

STEP = 100  # the progress handler runs every STEP instructions


def load_notes(mem: Memory, n: int, text: Callable[[int], str], t0: datetime) -> None:
    """``n`` utterance memories ``text(i)`` (said ``t0`` + i seconds) in user ``u``'s scope, in batches of 1,500."""
    scope = Scope(tenant=mem.tenant, user_id="u")
    for s in range(0, n, 1500):
        msgs = normalize_messages([{"role": "user", "content": text(i), "timestamp": t0 + timedelta(seconds=i)}
                                   for i in range(s, min(n, s + 1500))], default_time=t0,
                                  max_chars=mem.settings.max_message_chars)
        prep = draft_memories(msgs, scope=scope, metadata=None, now=t0, chunk_chars=mem.settings.chunk_chars)
        vecs = mem.embedder.embed_documents([d.item.text for d in prep.drafts])
        mem.store.write(prep.messages, [NewMemory(d.item, np.asarray(v, dtype=np.float32), d.content_hash,
                                                  d.index_text) for d, v in zip(prep.drafts, vecs)], actor="test")


def vm_steps(mem: Memory, call: Callable[[], Any]) -> tuple[int, Any]:
    """(SQLite instructions of ``call()`` on this thread's connection, rounded to :data:`STEP`, its result), after
    one warm call (caches, the vector and keyword indexes)."""
    call()
    count = [0]
    conn = mem.store._conn()  # noqa: SLF001 - the thread's connection: every read of this thread uses it

    def tick() -> int:
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, STEP)
    try:
        result = call()
    finally:
        conn.set_progress_handler(None, STEP)
    return count[0] * STEP, result
