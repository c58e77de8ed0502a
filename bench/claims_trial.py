"""Fresh-user findings of issue #22 (the claim record and its read paths), replayed: each prints whether the
library now does what a user expects. A diagnostic beside ``bench/currency.py`` (no held-out data).

    nice -n 10 python bench/claims_trial.py [--out bench/results/claims_trial.json]
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

T1 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
T2 = T1 + timedelta(days=60)


def _ctx(m: Memory, user: str, q: str) -> str:
    return m.context(user_id=user, session_id="probe", query=q).sections[0].text


def run(m: Memory) -> dict[str, bool]:
    out: dict[str, bool] = {}
    ev = m.add("hi", user_id="a")
    out["add('hi') says why nothing was kept"] = bool(ev) and all(getattr(e, "reason", None) for e in ev)

    ev = m.add("Hi, I'm Sam. I live in Lisbon and I work as a nurse.", user_id="b", timestamp=T1)
    home = next(e.memory for e in ev if e.memory.fact and e.memory.fact.attribute == "home_city")
    m.update(home.id, "I live in Porto.")
    out["update of a fact: the old words leave context"] = "Lisbon" not in _ctx(m, "b", "Where do I live?")

    m.add("I live in Lisbon.", user_id="c", timestamp=T1)
    berlin = next(e.memory for e in m.add("I moved to Berlin.", user_id="c", timestamp=T2) if e.event == "ADD")
    m.delete(berlin.id)
    ans = m.ask("Where do I live?", user_id="c")
    out["delete of the successor resurrects nothing"] = not any("Lisbon" in c.text for c in ans.citations)

    m.add([{"role": "user", "content": "I live in Lisbon and work as a nurse."},
           {"role": "assistant", "content": "Nice! So you live in Lisbon and you're a nurse. Lisbon is lovely."}],
          user_id="d", session_id="s1", timestamp=T1)
    m.add([{"role": "user", "content": "I moved to Berlin last month."},
           {"role": "assistant", "content": "Got it, you now live in Berlin."}], user_id="d", session_id="s2",
          timestamp=T2)
    ans = m.ask("Do I live in Lisbon?", user_id="d")
    out["no assistant turn cited for a user fact"] = bool(ans.citations) and \
        all(c.id not in {x.id for x in m.get_all(user_id="d") if x.source == "assistant"} for c in ans.citations)

    m.add("I have two hamsters, 叫 Peanut 和 Mochi。", user_id="e", timestamp=T1)
    m.add("又买了一只, so three hamsters now.", user_id="e", timestamp=T2)
    ans = m.ask("What are my hamsters called?", user_id="e")
    out["a count change keeps the names said beside the count"] = any("Peanut" in c.text for c in ans.citations)

    m.add("我住北京回龙观，天天挤13号线，人都挤扁了。", user_id="f", timestamp=T1)
    m.add("终于逃离回龙观了！现在在望京租了个一居，骑车十分钟到公司。", user_id="f", timestamp=T2)
    ans = m.ask("之前天天挤13号线那会儿住哪？", user_id="f")
    out["a past question naming the old turn's other words"] = any("回龙观" in c.text for c in ans.citations)

    m.add("我是开出租车的，每天晚上都要喝两杯啤酒。", user_id="g", timestamp=T1)
    m.add("酒我戒了，快半年没碰了。", user_id="g", timestamp=T2)
    out["an ending keeps the job said before it (酒我戒了)"] = "开出租车" in _ctx(m, "g", "我是做什么的？")

    m.add("I have three dogs.", user_id="h", timestamp=T1)
    m.add("My oldest dog died last week... two of them now.", user_id="h", timestamp=T2)
    ans = m.ask("How many dogs do I have?", user_id="h")
    out["a count said as an event ('two of them now')"] = bool(ans.citations) and "three" not in ans.citations[0].text
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    m = Memory(":memory:", embedder=eval_embedder())
    res = run(m)
    for k, v in res.items():
        print(f"{'ok  ' if v else 'FAIL'}  {k}")
    print(f"{sum(res.values())}/{len(res)}")
    if args.out:
        Path(args.out).write_text(json.dumps({"results": res, "passed": sum(res.values()), "of": len(res)},
                                             ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
