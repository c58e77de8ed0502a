"""Run a fixed currency scenario (changes, a restatement, an edit of a turn, questions, a summary) on a fresh
in-memory store and print every output as JSON. Ids (``uuid.uuid4``) are drawn from a seeded generator, so that two
runs differ only by what the hash seed changes (set iteration order leaking into results).

Used by tests/test_determinism.py: two subprocesses with different PYTHONHASHSEED must print the same JSON.

Run: PYTHONHASHSEED=1 python tests/currency_probe.py
"""

from __future__ import annotations

import json
import random
import sys
import uuid
from datetime import datetime, timedelta, timezone

from anchormem import Memory
from anchormem.testing import DeterministicEmbedder
from anchormem.timeutil import set_clock

T0 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
TURNS = [
    "Hi, I'm Sam. I live in Lisbon and I work as a nurse at Santa Maria hospital. I have two cats, Tom and Jerry.",
    "My rent is 1200 euros a month and I drive a Honda.",
    "Should I move to Berlin?",
    "I moved to Berlin last month. I still work as a nurse, now at the Charité.",
    "My rent went up, it's 1400 now. Jerry died last week, so now I only have Tom.",
    "我在学钢琴，每周上一节课。我女儿叫小雨。",
    "我不学钢琴了，改学吉他。",
]
QUESTIONS = ["Where do I live?", "Where did I live before?", "What is my job?", "How much is my rent?",
             "What are my cats called?", "Should I move to Berlin?", "What car do I drive?", "我在学什么乐器？",
             "我女儿叫什么？", "rent"]


def _item(m) -> list:
    return [m.id, m.kind, m.text, m.current, str(m.valid_to), m.superseded_by,
            [[c.fact_id, c.slot, c.value, str(c.valid_to)] for c in m.claims]]


def run() -> dict:
    set_clock(lambda: T0 + timedelta(days=400))
    out: dict = {"events": [], "asks": {}, "search": {}}
    with Memory(":memory:", embedder=DeterministicEmbedder(64), llm=None, cache=False) as mem:
        turns = []
        for i, t in enumerate(TURNS):
            ev = mem.add(t, user_id="u", session_id=f"s{i // 3}", timestamp=T0 + timedelta(days=30 * i))
            out["events"].append([[e.event, *_item(e.memory)] for e in ev])
            turns.append(next((e.memory for e in ev if e.memory.kind == "utterance"), ev[0].memory))
        mem.update(turns[1].id, "My rent is 1100 euros a month and I drive a Toyota.")
        for q in QUESTIONS:
            a = mem.ask(q, user_id="u")
            out["asks"][q] = [a.text, [_item(c) for c in a.citations], [[h.memory.id, repr(h.score)]
                                                                         for h in a.evidence]]
            out["search"][q] = [[h.memory.id, repr(h.score)] for h in mem.search(q, user_id="u")]
        out["all"] = [_item(m) for m in mem.get_all(user_id="u", include_superseded=True)]
        out["context"] = mem.context(user_id="u", session_id="probe", query="Where do I live and work?").model_dump(
            mode="json")
        out["history"] = [[[h.event, h.old_text, h.new_text, h.reason] for h in mem.history(m[0])]
                          for m in out["all"]]
        summary = mem.summarize(user_id="u", session_id="s0")
        out["summary"] = summary.text if summary is not None else None
        exported = mem.export(user_id="u")
        out["export"] = [[x["id"], x["text"], x.get("valid_to")] for x in exported["memories"]]
    return out


if __name__ == "__main__":
    ids = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    uuid.uuid4 = lambda: uuid.UUID(int=ids.getrandbits(128), version=4)  # type: ignore[assignment]
    print(json.dumps(run(), ensure_ascii=False, sort_keys=True, default=str))
