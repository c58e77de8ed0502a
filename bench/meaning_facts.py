"""Every fact the change-by-meaning fallback (anchormem.facts.meaning) writes on a set of stories, for a precision read.

    nice -n 10 python bench/meaning_facts.py [--stories a.json b.json ...] [--out bench/results/meaning_facts.json]

Each story is added turn by turn (as ``bench/currency.py`` does: one user per story, a session and timestamp per
turn) to one ``Memory(":memory:")`` with the cached eval embedder and the offline labeller; the ADD / SUPERSEDE events
whose fact has ``extractor == "meaning"`` are listed with the story, its kind and the turn. Judging them is by eye
(is the slot right, is the value the turn's?); the file lists the story's expected current value beside each.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import timedelta
from pathlib import Path

from anchormem import Memory, Settings
from anchormem.eval.embed_cache import eval_embedder

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT))
from currency import T0  # noqa: E402

SETS = [ROOT / "data" / f for f in ("currency_stories.json", "currency_stories_gen.json", "currency_stories_gen2.json")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stories", nargs="+", default=[str(p) for p in SETS])
    ap.add_argument("--out", default=str(ROOT / "results" / "meaning_facts.json"))
    args = ap.parse_args()
    m = Memory(":memory:", embedder=eval_embedder(), settings=Settings(labeller="offline"))
    rows, n = [], 0
    for f in args.stories:
        for s in json.loads(Path(f).read_text(encoding="utf-8"))["stories"]:
            n += 1
            for i, t in enumerate(s["turns"]):
                evs = m.add(t["text"], user_id=f"u{n}", session_id=f"s{i}", timestamp=T0 + timedelta(days=t["day"]))
                for e in evs:
                    fa = e.memory.fact
                    if fa is not None and fa.extractor == "meaning" and e.event in ("ADD", "SUPERSEDE"):
                        rows.append({"story": s["id"], "kind": s["kind"], "turn": i, "event": e.event,
                                     "attribute": fa.attribute, "value": fa.value, "polarity": fa.polarity,
                                     "text": t["text"], "expected_current": s["current"]})
    out = {"command": "python bench/" + Path(__file__).name + " " + " ".join(sys.argv[1:]), "stories": n,
           "facts": len(rows), "on_nonchange_stories": sum(r["kind"] == "nonchange" and r["turn"] > 0 for r in rows),
           "rows": rows}
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    for r in rows:
        print(r["story"], r["turn"], r["attribute"], repr(r["value"]), r["polarity"], "|", r["text"])
    print(f"{len(rows)} facts by meaning over {n} stories; on a non-change turn: {out['on_nonchange_stories']}")


if __name__ == "__main__":
    main()
