"""Assistant-turn policy check: how many phatic assistant turns an ``add`` stores, how many contentful ones it keeps.

    PYTHONPATH=src python bench/assistant_turns.py [--data bench/data/assistant_turns.json] [--out bench/results/...]

Each conversation of the data file is added in one ``Memory(":memory:").add`` call (its own user). An assistant
turn labelled ``phatic`` (an acknowledgement, courtesy, the user's words echoed) should store nothing and be reported
by a NOOP event with a reason; one labelled ``content`` (an answer, a booking number, a recommendation) should be
stored with ``source="assistant"`` and no user fact. Also reported: whether ``search`` for the user's first turn ranks
an assistant memory first. Only the public API is used.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from anchormem import Memory

ROOT = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=str(ROOT / "data" / "assistant_turns.json"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    convs = json.loads(Path(args.data).read_text(encoding="utf-8"))["conversations"]
    m = Memory(":memory:")
    t0 = time.time()
    counts = {lang: {"phatic": 0, "phatic_stored": 0, "phatic_reported": 0, "content": 0, "content_kept": 0,
                     "assistant_first": 0, "conversations": 0} for lang in ("en", "zh")}
    wrong: list[dict] = []
    for c in convs:
        user = f"u-{c['id']}"
        turns = [{"role": t["role"], "content": t["content"]} for t in c["turns"]]
        events = m.add(turns, user_id=user)
        stored = {e.memory.text for e in events if e.event == "ADD" and e.memory.source == "assistant"}
        reported = {e.memory.text for e in events if e.event == "NOOP" and e.reason}
        facts = [e for e in events if e.memory.source == "assistant" and e.memory.fact is not None]
        k = counts[c["lang"]]
        k["conversations"] += 1
        for t in c["turns"]:
            if t["role"] != "assistant":
                continue
            k[t["label"]] += 1
            held = any(t["content"].startswith(s) or s in t["content"] for s in stored)
            if t["label"] == "phatic":
                k["phatic_stored"] += held
                k["phatic_reported"] += t["content"] in reported
            else:
                k["content_kept"] += held
            if held != (t["label"] == "content"):
                wrong.append({"id": c["id"], "label": t["label"], "text": t["content"]})
        if facts:
            wrong.append({"id": c["id"], "label": "assistant fact", "text": facts[0].memory.text})
        hits = m.search(c["turns"][0]["content"], user_id=user, limit=3)
        k["assistant_first"] += bool(hits) and hits[0].memory.source == "assistant"
    out = {"data": args.data, "counts": counts, "wrong": wrong, "wall_s": round(time.time() - t0, 1)}
    for lang, k in counts.items():
        print(f"{lang}: phatic stored {k['phatic_stored']}/{k['phatic']} (reported as NOOP with a reason "
              f"{k['phatic_reported']}/{k['phatic']}), contentful kept {k['content_kept']}/{k['content']}, "
              f"an assistant memory first in search for the user's turn {k['assistant_first']}/{k['conversations']}")
    for w in wrong:
        print("  wrong:", w)
    if args.out:
        Path(args.out).write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
