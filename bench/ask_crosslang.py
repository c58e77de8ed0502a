"""Cross-language and category questions for ``ask``: a question in one language about a memory said in the other
("我住在哪里？" with "I live in Bristol." stored), a category word asking for an instance ("What pets do I have?" with
"I have two cats, Miso and Tofu."), and as many questions nothing recorded answers (each must abstain).

    python bench/ask_crosslang.py [--split dev|heldout|changes_dev] [--out bench/results/ask_crosslang_<split>.json]
        [--details] [--separate]

Data: tests/data/ask_crosslang_{dev,heldout}.json (the held-out half was written before the code it measures and is
not tuned on; changes_dev: a person's change said in the other language, amounts asked across languages, tuned
on). ``--separate`` keeps each persona in a store of its own. Default offline path: ``Memory(":memory:")`` with
the cached eval embedder (multilingual-e5-small), each persona its own user, one memory a day. A question passes
when it abstains and nothing answers it, or when it answers and its first citation is a gold memory. Reports the pass rate per kind (zh->en, en->zh, category, none),
answered / citing gold (first) over the answerable questions, and abstained over the no-answer ones.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


def run(split: str, details: bool = False, separate: bool = False) -> dict:
    data = json.loads((ROOT / "tests" / "data" / f"ask_crosslang_{split}.json").read_text(encoding="utf-8"))
    m = Memory(":memory:", embedder=eval_embedder())
    stores = {}  # --separate: each persona in a store of its own (a store holding one user's few memories)
    try:
        for user, texts in data["personas"].items():
            if separate:
                stores[user] = m = Memory(":memory:", embedder=eval_embedder())
            for i, text in enumerate(texts):
                m.add(text, user_id=user, timestamp=T0 + timedelta(days=i))
        per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        answered = gold = answerable = abstained = none = 0
        rows = []
        for case in data["questions"]:
            ans = stores.get(case["user"], m).ask(case["q"], user_id=case["user"])
            texts = data["personas"][case["user"]]
            first = ans.citations[0].text if ans.citations else None
            if case["gold"] is None:
                none += 1
                ok = ans.abstained
                abstained += ok
            else:
                answerable += 1
                answered += not ans.abstained
                ok = not ans.abstained and first in {texts[g] for g in case["gold"]}
                gold += ok
            per[case["kind"]][0] += ok
            per[case["kind"]][1] += 1
            rows.append({"q": case["q"], "user": case["user"], "kind": case["kind"], "ok": bool(ok),
                         "cited": [c.text for c in ans.citations], **({"text": ans.text} if details else {})})
    finally:
        for x in {id(v): v for v in [m, *stores.values()]}.values():
            x.close()
    pct = lambda a, b: round(100.0 * a / b, 1) if b else None  # noqa: E731
    return {"split": split, "questions": len(rows),
            "passed": pct(sum(r["ok"] for r in rows), len(rows)),
            "per_kind": {k: {"passed": v[0], "of": v[1], "pct": pct(*v)} for k, v in sorted(per.items())},
            "answerable": {"of": answerable, "answered": pct(answered, answerable), "citing_gold": pct(gold, answerable)},
            "no_answer": {"of": none, "abstained": pct(abstained, none)},
            "failures": [r for r in rows if not r["ok"]]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev", choices=["dev", "heldout", "changes_dev"])
    ap.add_argument("--out", default=None)
    ap.add_argument("--details", action="store_true", help="store each answer's text")
    ap.add_argument("--separate", action="store_true", help="each persona in a store of its own")
    args = ap.parse_args()
    t, c = time.time(), time.process_time()
    res = run(args.split, args.details, args.separate)
    res["wall_s"], res["cpu_s"] = round(time.time() - t, 1), round(time.process_time() - c, 1)
    res["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out = Path(args.out or ROOT / "bench" / "results" / f"ask_crosslang_{args.split}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in res.items() if k != "failures"}, ensure_ascii=False, indent=1))
    for f in res["failures"]:
        print(f"  FAIL [{f['kind']}] {f['user']}: {f['q']} -> {f['cited'][:1]}")


if __name__ == "__main__":
    main()
