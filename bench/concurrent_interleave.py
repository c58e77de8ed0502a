"""Forced interleave of two writers (issue #22): does a race end as if the two adds were made one after the other?

    nice -n 10 python bench/concurrent_interleave.py --stories bench/data/currency_stories_gen4.json [--all]
        [--out bench/results/concurrent_interleave.json]

For each ``concurrent`` story of the currency sets (``--all``: every story of three turns or more, its last two turns
raced), the earlier turns are added, then the last two from two threads, each made to finish planning before either
writes (a barrier in ``store.write``), the first-named writer's write first: the worst interleave, where each plan
read the store before the other's write. The final current facts ((attribute head, value) of every current fact
memory) are compared with the two turns added one after the other in that order. Reports how many stories end the
same, and how many writes were refused as planned against a moved generation (``StaleWriteError``: the add then
plans again). Offline path: ``Memory(":memory:")`` with the cached eval embedder.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

T0 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)


def _when(story: dict, i: int) -> datetime:
    return T0 + timedelta(days=story["turns"][i]["day"])


def _state(m: Memory) -> list[list[str]]:
    return sorted([it.fact.attribute.split(":")[0], it.fact.value] for it in m.get_all(user_id="u", limit=500)
                  if it.valid_to is None and it.fact is not None)


def run(story: dict, emb, forced: bool, stale: list[int]) -> list[list[str]]:
    m = Memory(":memory:", embedder=emb)
    t, n = story["turns"], len(story["turns"])
    for i in range(n - 2):
        m.add(t[i]["text"], user_id="u", session_id=f"s{i}", timestamp=_when(story, i))
    if not forced:
        for i in (n - 2, n - 1):
            m.add(t[i]["text"], user_id="u", session_id=f"s{i}", timestamp=_when(story, i))
        return _state(m)
    write, barrier, first_done, seen = m.store.write, threading.Barrier(2), threading.Event(), set()

    def ordered_write(*args, **kwargs):
        me = threading.current_thread().name
        if me not in seen:  # each writer's first write: both have planned; A writes first
            seen.add(me)
            try:
                barrier.wait(timeout=60)
            except threading.BrokenBarrierError:
                pass
            if me == "B":
                first_done.wait(timeout=60)
        try:
            return write(*args, **kwargs)
        except Exception as exc:
            stale[0] += type(exc).__name__ == "StaleWriteError"
            raise
        finally:
            if me == "A":
                first_done.set()
    m.store.write = ordered_write
    threads = [threading.Thread(target=lambda i=i: m.add(t[i]["text"], user_id="u", session_id=f"s{i}",
                                                        timestamp=_when(story, i)), name=name)
               for name, i in (("A", n - 2), ("B", n - 1))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return _state(m)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stories", nargs="+", required=True)
    ap.add_argument("--all", action="store_true", help="every story of 3+ turns, not only the concurrent ones")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "concurrent_interleave.json"))
    args = ap.parse_args()
    emb, stale, rows = eval_embedder(), [0], []
    for f in args.stories:
        for s in json.loads(Path(f).read_text(encoding="utf-8"))["stories"]:
            if len(s["turns"]) < 3 or (s["kind"] != "concurrent" and not args.all):
                continue
            serial, raced = run(s, emb, False, stale), run(s, emb, True, stale)
            rows.append({"id": s["id"], "same": serial == raced, "serial": serial, "raced": raced})
    same = sum(r["same"] for r in rows)
    report = {"command": "python bench/concurrent_interleave.py " + " ".join(sys.argv[1:]), "stories": len(rows),
              "same_as_serial": same, "stale_writes_refused": stale[0], "results": rows}
    Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    for r in rows:
        if not r["same"]:
            print(f"{r['id']}: serial {r['serial']} / raced {r['raced']}")
    print(f"{same}/{len(rows)} races end as the serial order; {stale[0]} stale writes refused and re-planned")


if __name__ == "__main__":
    main()
