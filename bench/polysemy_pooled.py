"""Pooled polysemy pass rates of the ``anchored`` recipe only: the pooled mode of
:func:`anchormem.eval.polysemy.run_polysemy` (every case's sessions in one user's history, the same pass test), a
quicker check than bench/polysemy.py (no per-case mode, no other recipes, no latency) for label changes.
``--abstain-ratio R``: label with ``ContextAnchor(abstain_ratio=R)``. Prints and writes JSON (``--out``).
Run: nice -n 10 python bench/polysemy_pooled.py [--abstain-ratio 0.95] [--out FILE]"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import _recipes, load_cases


def main(argv: list[str]) -> dict:
    if "--abstain-ratio" in argv:
        from anchormem.context.anchor import ContextAnchor

        ContextAnchor.__init__.__kwdefaults__["abstain_ratio"] = float(argv[argv.index("--abstain-ratio") + 1])
    t0, c0 = time.perf_counter(), time.process_time()
    cases = load_cases()
    cfg = _recipes()["anchored"]
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    owner: dict[str, str] = {}
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        for day, key, turns in ((d, k, t) for d, (k, t) in enumerate(
                dict((k, t) for c in cases for k, t in c.sessions.items()).items(), start=1)):
            for e in mem.add([{"role": "user", "content": t} for t in turns], user_id="pooled", session_id=key,
                             timestamp=base + timedelta(days=day)):
                owner.setdefault(e.memory.id, key)

        def sense(k):
            return k.rsplit("/", 1)[0] if k else None

        def word(k):
            return k.rsplit("/", 2)[0] if k else None
        stats: dict[str, dict[str, int]] = {}
        fails = []
        for c in cases:
            keys = [owner.get(h.memory.id) for h in mem.search(c.query, user_id="pooled", context=c.context, limit=3,
                                                                recipe=cfg)]
            top_ok = bool(keys) and (keys[0] == c.target if c.kind == "sense" else sense(keys[0]) == sense(c.target))
            wrong = any(k in c.wrong or (word(k) == word(c.target) and sense(k) != sense(c.target))
                        for k in keys[:3] if k)
            s = stats.setdefault(c.group, {"pass": 0, "total": 0})
            s["pass"] += top_ok and not wrong
            s["total"] += 1
            if not (top_ok and not wrong):
                fails.append(c.id)
        unlabelled = sum(1 for it in mem.get_all(user_id="pooled") if not it.labels)
    return {"pooled_anchored": stats, "failures": fails, "unlabelled_memories": unlabelled,
            "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}


if __name__ == "__main__":
    res = main(sys.argv[1:])
    print(json.dumps(res, ensure_ascii=False))
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
