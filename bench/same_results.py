"""Do two results files of one bench script say the same, memory ids and timings aside?

    python bench/same_results.py BEFORE.json AFTER.json [BEFORE2.json AFTER2.json ...] [--out FILE.json]

For checking that a refactor changes no measured behaviour (bench/precision.py, bench/pooled_supersedes.py,
bench/currency.py results before and after). Random ids (32 or 12 hex digits: memory ids, slots keyed by one) are
replaced by "#", and the timing and command fields (``wall_s``, ``cpu_s``, ``max_rss_mb``, ``command``,
``seconds``) are dropped. A file with ``stores`` (precision) is compared store by store; one with ``results``
(currency) story by story, listing the stories that differ (of a ``concurrent`` story only its checks: its two
writers may land either way round, and its notes name the winner). Prints one line per pair; exit status 1 when any
pair differs.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

_ID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{12}")
_TIMING = {"wall_s", "cpu_s", "max_rss_mb", "command", "seconds"}


def _norm(x: Any) -> Any:
    if isinstance(x, dict):
        x = {k: v for k, v in x.items() if k not in _TIMING}
    return json.loads(_ID.sub("#", json.dumps(x, ensure_ascii=False, sort_keys=True)))


def _story(result: dict) -> dict:
    """A currency story's result; of a ``concurrent`` one (two writers at once, either may win) its checks only."""
    return {k: v for k, v in result.items() if k != "notes"} if result.get("kind") == "concurrent" else result


def compare(before: dict, after: dict) -> dict:
    """{"identical": bool, "differs": [what differs]} for two results dicts."""
    differs: list[str] = []
    if "stores" in before:
        differs += [f"store {n}" for n in before["stores"]
                    if _norm(before["stores"][n]) != _norm(after.get("stores", {}).get(n))]
    elif "results" in before:
        rb, ra = before["results"], after.get("results", [])
        differs += [f"story {x.get('id')}" for x, y in zip(rb, ra) if _norm(_story(x)) != _norm(_story(y))]
        if len(rb) != len(ra):
            differs.append(f"{len(rb)} stories before, {len(ra)} after")
        differs += [f"key {k}" for k in before if k not in _TIMING and k != "results" and
                    _norm(before[k]) != _norm(after.get(k))]
    elif _norm(before) != _norm(after):
        differs.append("file")
    return {"identical": not differs, "differs": differs}


def main(argv: list[str]) -> int:
    out = None
    if "--out" in argv:
        i = argv.index("--out")
        out, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    report = {}
    for b, a in zip(argv[::2], argv[1::2]):
        got = compare(json.loads(Path(b).read_text(encoding="utf-8")), json.loads(Path(a).read_text(encoding="utf-8")))
        report[f"{b} -> {a}"] = got
        print(f"{b} -> {a}: {'identical' if got['identical'] else 'differs: ' + ', '.join(got['differs'])}")
    if out:
        Path(out).write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0 if all(r["identical"] for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
