"""False changes across unrelated sessions: the polysemy sets pooled as one user's history, every SUPERSEDE counted.

    nice -n 10 python bench/pooled_supersedes.py [--out bench/results/FILE.json]

The sessions of the polysemy dev cases (``load_cases(sets="dev")``: English CoarseWSD when found, ``polysemy_zh``,
``polysemy_zh_heldout``) and of the older held-out files 2, 3, 4 and 6 (both languages) are added as one user's
history (:func:`anchormem.eval.polysemy.pooled_history`'s order and dates). The sessions are unrelated (a word's
senses, written independently), so any SUPERSEDE an ``add`` reports is a false change (issue #22). Prints the count
and each retired text with the text that retired it.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import file_cases, load_cases

FILES = [f"polysemy_{lang}_heldout{n}.json" for n in (2, 3, 4, 6) for lang in ("en", "zh")]


def main(argv: list[str]) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    cases = load_cases(sets="dev") + file_cases(FILES)
    sessions = dict((k, t) for c in cases for k, t in c.sessions.items())
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    events: list[dict] = []
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        for day, (key, turns) in enumerate(sessions.items(), start=1):
            evs = list(mem.add([{"role": "user", "content": t} for t in turns], user_id="pooled", session_id=key,
                               timestamp=base + timedelta(days=day)))
            new = " / ".join(e.memory.text for e in evs if e.event == "ADD")
            for e in evs:
                if e.event == "SUPERSEDE":
                    events.append({"session": key, "retired": e.memory.text,
                                   "slot": e.memory.fact.attribute if e.memory.fact else None, "by": new[:300]})
    out = {"command": "python bench/pooled_supersedes.py " + " ".join(argv), "sessions": len(sessions),
           "supersedes": len(events), "events": events,
           "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}
    return out


if __name__ == "__main__":
    res = main(sys.argv[1:])
    for e in res["events"]:
        print(json.dumps(e, ensure_ascii=False))
    print(f"sessions {res['sessions']}, SUPERSEDE events {res['supersedes']}, cpu {res['cpu_s']} s")
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
