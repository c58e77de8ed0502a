"""Subjects for ``ask``: the subject a question asks about is the subject its answer cites (subj13).

    python bench/ask_subjects.py [--split tune|check|all] [--out bench/results/ask_subjects.json] [--details]

Data: ``bench/data/ask_subjects.json`` (written for this benchmark): each case a fresh user, its turns added one a day
(the default offline path: ``Memory(":memory:")`` with the cached eval embedder), a question about the asker or
about another person (a relation: 我老婆, "my wife", 我妈, "my brother"; a name: Tom, 小美; a pet; a colleague) on a
slot (job, home, age, diet, pets, phone), and ``expect``: a substring the first citation must hold, or
``"abstain"`` (only someone else's value is on record). Both directions: a question about another person must not
cite the asker's value, one about the asker must not cite another person's. Split: ``tune`` = odd ids, ``check`` =
even ids. Reports passes per language and split.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

ROOT = Path(__file__).resolve().parent
T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


def run(split: str, details: bool = False) -> dict:
    cases = json.loads((ROOT / "data" / "ask_subjects.json").read_text(encoding="utf-8"))["cases"]
    cases = [c for c in cases if split == "all" or (c["id"] % 2 == 1) == (split == "tune")]
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    rows = []
    m = Memory(":memory:", embedder=eval_embedder())
    try:
        for c in cases:
            user = f"subj-{c['id']}"
            for i, text in enumerate(c["turns"]):
                m.add(text, user_id=user, timestamp=T0 + timedelta(days=i))
            ans = m.ask(c["q"], user_id=user)
            first = ans.citations[0].text if ans.citations else None
            ok = ans.abstained if c["expect"] == "abstain" else (not ans.abstained and first is not None
                                                                 and c["expect"] in first)
            half = "tune" if c["id"] % 2 else "check"
            for key in (c["lang"], half, f"{half}/{c['lang']}", "all"):
                per[key][0] += ok
                per[key][1] += 1
            rows.append({"id": c["id"], "lang": c["lang"], "q": c["q"], "expect": c["expect"], "ok": bool(ok),
                         "cited": [x.text for x in ans.citations], **({"text": ans.text} if details else {})})
    finally:
        m.close()
    return {"split": split, "pass": {k: f"{v[0]}/{v[1]}" for k, v in sorted(per.items())}, "cases": rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="all", choices=["tune", "check", "all"])
    ap.add_argument("--out", default=str(ROOT / "results" / "ask_subjects.json"))
    ap.add_argument("--details", action="store_true")
    a = ap.parse_args()
    t = time.time()
    res = run(a.split, a.details)
    res["seconds"] = round(time.time() - t, 1)
    Path(a.out).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(res["pass"], ensure_ascii=False))
    for r in res["cases"]:
        if not r["ok"]:
            print("FAIL", r["id"], r["q"], "expect", r["expect"], "cited", r["cited"][:2])


if __name__ == "__main__":
    main()
