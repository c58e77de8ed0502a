"""Run a fixed set of searches and asks over one store and print every output as JSON (one process, one
PYTHONHASHSEED).

Used by tests/test_determinism.py: one subprocess builds the store file from the bundled demo conversations
(``--build``: nothing else), the file is copied, and two subprocesses with different hash seeds run the same
calls, each on its own copy (searches record access, which later searches read: each copy sees the same
history); the outputs are compared exactly (hit ids, texts, scores as ``repr`` of the float, answer texts,
citations). The clock is frozen so that recency weighting is the same in both.

Run: PYTHONHASHSEED=1 python tests/determinism_probe.py DB [--build] [--quick]
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone

from anchormem import Memory
from anchormem.cli.demo import DEMO_FILES, load_demo
from anchormem.importers import parse_json
from anchormem.timeutil import set_clock

NOW = datetime(2024, 7, 1, 12, 0, tzinfo=timezone.utc)

# (language, query, conversation) beyond the demo's own questions: ambiguous words, ties, short queries
EXTRA = {
    "en": [
        ("What did I say about the cat?", None),
        ("rent", None),
        ("What did I say about it?", ["My sister is coming to visit soon.", "We want to see the city together."]),
        ("How much does it cost?", ["The cat had her first vet visit.", "She hides under the sofa."]),
        ("When is she coming?", ["Lena lives in Toronto."]),
        ("What do I eat?", None),
    ],
    "zh": [
        ("我女儿叫什么？", None),
        ("多少钱？", ["我上周末买了一辆电动自行车。"]),
        ("咖啡", None),
        ("那个怎么样了？", ["我最近在学游泳。", "每周二和周四晚上去。"]),
        ("我住在哪里？", None),
        ("我对什么过敏？", ["帮我点个外卖吧。"]),
    ],
}


def _hit(h) -> list:
    return [h.memory.id, h.memory.text, repr(h.score)]


def _answer(a) -> dict:
    return {"text": a.text, "abstained": a.abstained, "citations": [m.id for m in a.citations],
            "evidence": [_hit(h) for h in a.evidence]}


def run(db: str, *, build: bool = False, quick: bool = False) -> dict:
    set_clock(lambda: NOW)
    out: dict = {}
    demos = [load_demo(n) for n in DEMO_FILES]
    with Memory(db, cache=False, llm=None) as mem:
        if build:
            for d in demos:
                for scope, msgs in parse_json(d["sessions"], user_id=d["user_id"]):
                    mem.add(msgs, **scope)
            return {"memories": len(mem.get_all(user_id=demos[0]["user_id"]))}
        for d in demos:
            user, lang = d["user_id"], d["language"]
            asks = [(q["question"], None) for q in d["questions"]] + EXTRA[lang]
            if quick:
                asks = asks[:4]
            for i, (q, ctx) in enumerate(asks):
                key = f"{lang}/{i}/{q}"
                for recipe in ("anchored", "hybrid_rrf"):
                    hits = mem.search(q, user_id=user, context=ctx, recipe=recipe, limit=8)
                    out[f"{key}/search/{recipe}"] = [_hit(h) for h in hits]
                out[f"{key}/ask"] = _answer(mem.ask(q, user_id=user, context=ctx))
                # the same question inside a conversation taken from the user's own first session
                convo = [m["content"] for m in d["sessions"][0]["messages"][:2]]
                out[f"{key}/ask+convo"] = _answer(mem.ask(q, user_id=user, context=convo))
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    json.dump(run(args[0], build="--build" in sys.argv, quick="--quick" in sys.argv), sys.stdout, ensure_ascii=False, sort_keys=True, indent=0)
