"""Wall-clock time to ingest all 10 LoCoMo conversations with the default embedder, as a user runs it:

    anchormem --db <tmp>/ingest.db import locomo10.json --format locomo --workers N

for each N in ``--workers`` (default 1 and 2), each run in a fresh process on a fresh database, with peak RSS
from ``/usr/bin/time -v`` when present. Writes ``bench/results/ingest.json``. Run on a quiet machine.

    python bench/ingest.py [--data ../shared/datasets/locomo/locomo10.json] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run(data: str, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "ingest.db")
        cmd = [sys.executable, "-m", "anchormem", "--db", db, "--json", "import", data, "--format", "locomo",
               "--workers", str(workers)]
        timer = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
        if timer:
            cmd = [timer, "-v", *cmd]
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if out.returncode != 0:
            raise SystemExit(f"import failed ({out.returncode}): {out.stderr[-2000:]}")
        counts = json.loads(out.stdout)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr)
        return {"workers": workers, "seconds": round(wall, 1), "messages": counts["messages"],
                "memories_added": counts["ADD"], "messages_per_s": round(counts["messages"] / wall, 1),
                "peak_rss_mb_largest_process": round(int(rss.group(1)) / 1024) if rss else None,
                "db_mb": round(os.path.getsize(db) / 2**20, 1)}


def _cpu_model() -> str:
    """The CPU's model name (machines differ between runs; the number means little without it)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as fh:
            return next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), "")
    except OSError:
        return platform.processor()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared/datasets/locomo/locomo10.json"))
    ap.add_argument("--workers", default="1,2")
    a = ap.parse_args()
    runs = []
    for w in [int(x) for x in a.workers.split(",")]:
        r = _run(a.data, w)
        runs.append(r)
        print(f"workers {w}: {r['seconds']} s, {r['messages_per_s']} messages/s, {r['memories_added']} memories, "
              f"peak RSS {r['peak_rss_mb_largest_process']} MB", flush=True)
    res = {"benchmark": "locomo-ingest", "data": a.data, "cpus": os.cpu_count(), "cpu_model": _cpu_model(),
           "machine": platform.machine(),
           "python": platform.python_version(), "runs": runs}
    out = HERE / "results" / "ingest.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(res, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
