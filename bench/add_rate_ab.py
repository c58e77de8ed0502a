"""bench/add_rate.py on two source trees, interleaved: messages per CPU-second before / after a change (issue #24).

    nice -n 10 python bench/add_rate_ab.py --tree before=/path/to/old/src --tree after=src --rounds 3 \\
        --messages 2000 --modes add_many_vectors,add_each_vectors --out bench/results/x_add_rate_ab.json

Each round runs ``bench/add_rate.py`` (this tree's script) once per source tree, in a fresh process with that tree on
``PYTHONPATH``; the trees' order is rotated round by round, so a change of machine load falls on both. Per corpus and
mode the report lists every run's msg/CPU-s and msg/wall-s, the medians and the change of the median CPU figure
(CPU time: ``time.process_time`` of the measuring process; wall time beside it, which other jobs on the machine
inflate). ``--keep DIR`` keeps each tree's last stores as ``DIR/<tree>/<corpus>/<mode>.db`` (for
``bench/write_identity.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", required=True, help="NAME=SRC_DIR (twice or more)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--modes", default="add_many_vectors,add_each_vectors")
    ap.add_argument("--corpora", default="locomo_en,memorybank_zh")
    ap.add_argument("--enrich", choices=("now", "later"), default="now")
    ap.add_argument("--keep", help="keep each tree's stores under KEEP/<tree>/ (the last round's)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    trees = [tuple(t.split("=", 1)) for t in args.tree]
    runs: dict[str, dict[str, list[dict]]] = {}
    loads = []
    for r in range(args.rounds):
        order = trees[r % len(trees):] + trees[:r % len(trees)]
        for name, src in order:
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
                out = f.name
            cmd = [sys.executable, str(HERE / "add_rate.py"), "--messages", str(args.messages), "--modes", args.modes,
                   "--corpora", args.corpora, "--enrich", args.enrich, "--out", out]
            if args.keep:
                cmd += ["--keep", os.path.join(args.keep, name)]
            env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "OMP_NUM_THREADS": "1"}
            subprocess.run(cmd, env=env, check=True)
            res = json.loads(Path(out).read_text(encoding="utf-8"))
            os.unlink(out)
            loads.append({"round": r + 1, "tree": name, "loadavg": res["loadavg"]})
            for row in res["results"]:
                runs.setdefault(f"{row['corpus']}/{row['mode']}", {}).setdefault(name, []).append(
                    {k: row[k] for k in ("cpu_s", "wall_s", "msg_per_cpu_s", "msg_per_wall_s", "memories_added")})
            print(f"round {r + 1} {name}: " + ", ".join(f"{row['corpus']}/{row['mode']} {row['msg_per_cpu_s']}"
                                                        for row in res["results"]), file=sys.stderr, flush=True)
    summary = {}
    first, last = trees[0][0], trees[-1][0]
    for key, by_tree in runs.items():
        med = {name: {"msg_per_cpu_s": statistics.median(x["msg_per_cpu_s"] for x in xs),
                      "msg_per_wall_s": statistics.median(x["msg_per_wall_s"] for x in xs),
                      "memories_added": sorted({x["memories_added"] for x in xs})} for name, xs in by_tree.items()}
        summary[key] = {"median": med, "cpu_change_pct": round(
            100 * (med[last]["msg_per_cpu_s"] / med[first]["msg_per_cpu_s"] - 1), 1)}
    res = {"command": "python bench/add_rate_ab.py " + " ".join(sys.argv[1:]), "trees": dict(trees),
           "summary": summary, "runs": runs, "loadavg_per_run": loads}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
