"""CPU of a listing of one kind (``get_all(filters={"kind": "fact"})``, with and without ``limit``) and of
``Memory.due``, two source trees side by side, interleaved, on copies of the same store: the before/after of the
kind index (``ix_mem_kind``, :data:`anchormem.stores.schema.KIND_INDEX`).

    python bench/kind_reads.py --work /work/wt/ks --sizes 10000,100000 \
        --src base=/work/main/src --src new=src [--rounds 20] [--out bench/results/kind_reads.json]

Each worker (one per ``--src`` and size; ``PYTHONPATH`` set to that tree, one BLAS thread) copies the snapshot
``<work>/sqlite_<n>`` (one user's ``n`` utterances, as ``bench/keyword_scale.py`` leaves them), opens it (a tree
with the index migrates the copy: that one-time cost is reported as ``open_s``), adds two facts and 40 open
commitments, then answers the driver's rounds: each call is timed (``time.process_time``) ``--rounds`` times, the
workers' order rotated round by round. Reported per call: CPU ms p50 and mean, the rows returned (the same in
both trees: checked)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def worker(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE / "peers"))
    import keyword_scale
    from anchormem import Memory

    tmp = Path(tempfile.mkdtemp(prefix=f"kind_reads_{args.n}_"))
    shutil.copytree(Path(args.work) / f"sqlite_{args.n}", tmp / "db")
    t0 = time.perf_counter()
    mem = Memory(str(tmp / "db" / "anchormem.db"), embedder=keyword_scale._Lookup(), llm=None, cache=False)  # noqa: SLF001
    open_s = time.perf_counter() - t0
    mem.add("My rent is 1200 euros a month.", user_id="u0")
    mem.add("I live in Berlin now.", user_id="u0")
    for i in range(40):
        mem.add(f"I promise to send report {i} to Anna by Monday.", user_id="u0")
    calls = {"get_all_fact": lambda: mem.get_all(user_id="u0", filters={"kind": "fact"}),
             "get_all_fact_limit1": lambda: mem.get_all(user_id="u0", filters={"kind": "fact"}, limit=1),
             "due": lambda: mem.due(user_id="u0")}
    for f in calls.values():
        f()
    print(json.dumps({"ready": True, "open_s": open_s}), flush=True)
    for line in sys.stdin:
        if json.loads(line).get("stop"):
            break
        out = {}
        for name, f in calls.items():
            t = time.process_time()
            rows = f()
            out[name] = {"cpu": time.process_time() - t, "n": len(rows), "texts": [m.text for m in rows]}
        print(json.dumps(out), flush=True)
    mem.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--src", action="append", required=True)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    srcs = [tuple(s.split("=", 1)) for s in args.src]
    result = {"command": " ".join(sys.argv), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "srcs": dict(srcs), "rounds": args.rounds, "load_avg_start": os.getloadavg(), "sizes": {}}
    for n in [int(x) for x in args.sizes.split(",")]:
        procs, opened = {}, {}
        for label, path in srcs:
            env = {**os.environ, "PYTHONPATH": str(Path(path).resolve()), "OMP_NUM_THREADS": "1",
                   "OPENBLAS_NUM_THREADS": "1"}
            p = subprocess.Popen([sys.executable, __file__, "--worker", "--n", str(n), "--work", args.work,
                                  "--src", "x=x"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            opened[label] = json.loads(p.stdout.readline())["open_s"]
            procs[label] = p
        recs = {label: [] for label, _ in srcs}
        labels = [lab for lab, _ in srcs]
        for r in range(args.rounds):
            for lab in labels[r % len(labels):] + labels[:r % len(labels)]:
                procs[lab].stdin.write("{}\n")
                procs[lab].stdin.flush()
                recs[lab].append(json.loads(procs[lab].stdout.readline()))
        for p in procs.values():
            p.stdin.write(json.dumps({"stop": True}) + "\n")
            p.stdin.flush()
            p.wait()
        size = {}
        for lab in labels:
            size[lab] = {"open_s": round(opened[lab], 3)}
            for name in recs[lab][0]:
                xs = [x[name]["cpu"] * 1000 for x in recs[lab]]
                size[lab][name] = {"cpu_ms_p50": round(statistics.median(xs), 3),
                                   "cpu_ms_mean": round(statistics.fmean(xs), 3), "rows": recs[lab][0][name]["n"]}
        first = recs[labels[0]][0]
        size["same_rows"] = all(recs[lab][0][k]["texts"] == first[k]["texts"] for lab in labels for k in first)
        result["sizes"][str(n)] = size
        print(json.dumps({n: size}, indent=1), flush=True)
    result["load_avg_end"] = os.getloadavg()
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
