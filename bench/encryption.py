"""Encryption at rest: the cost of SQLCipher on add and search, plaintext vs encrypted (raw key and passphrase).

The storage path is isolated: a deterministic hash embedder (384 dimensions, no model time), the hot cache off,
the same LoCoMo turns and questions for each configuration. Measured: ``add`` (one turn per call, one
transaction each), ``search`` (hybrid, limit 10, the configurations interleaved query by query), and ``open``
(a new connection: a passphrase pays SQLCipher's PBKDF2 key derivation, a raw 64-hex key does not).

    python bench/encryption.py [--turns 300] [--queries 200] [--out bench/results/encryption.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import summary  # noqa: E402 - bench/timing.py
from anchormem.eval.datasets import dataset_path

DATA = str(dataset_path("locomo/locomo10.json"))
RAW_KEY = "3c" * 32
PASSPHRASE = "a long passphrase for the benchmark"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--turns", type=int, default=300)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "encryption.json"))
    args = ap.parse_args()

    from anchormem import Memory
    from anchormem.testing import DeterministicEmbedder

    convs = json.loads(Path(args.data).read_text(encoding="utf-8"))
    turns, questions = [], []
    for conv in convs:
        c = conv["conversation"]
        for i in range(1, 100):
            for t in c.get(f"session_{i}", []) or []:
                if t.get("text"):
                    turns.append(t["text"])
        questions += [q["question"] for q in conv["qa"] if q.get("question")]
    turns, questions = turns[: args.turns], questions[: args.queries]
    tmp = tempfile.mkdtemp(prefix="anchormem-enc-")
    configs = {"plaintext": None, "raw_key": RAW_KEY, "passphrase": PASSPHRASE}
    mems = {name: Memory(os.path.join(tmp, f"{name}.db"), embedder=DeterministicEmbedder(384), cache=False,
                         encryption_key=key) for name, key in configs.items()}
    adds: dict[str, list[float]] = {n: [] for n in mems}
    searches: dict[str, list[float]] = {n: [] for n in mems}
    try:
        for text in turns:  # interleaved, so machine load hits every configuration alike
            for name, mem in mems.items():
                t = time.perf_counter()
                mem.add(text, user_id="u", session_id="s")
                adds[name].append((time.perf_counter() - t) * 1000)
        for q in questions:
            for name, mem in mems.items():
                t = time.perf_counter()
                mem.search(q, user_id="u", limit=10)
                searches[name].append((time.perf_counter() - t) * 1000)
        stored = {n: len(m.get_all(user_id="u")) for n, m in mems.items()}
    finally:
        for m in mems.values():
            m.close()
    opens: dict[str, list[float]] = {n: [] for n in configs}
    for _ in range(3):
        for name, key in configs.items():
            t = time.perf_counter()
            with Memory(os.path.join(tmp, f"{name}.db"), embedder=DeterministicEmbedder(384), cache=False,
                        encryption_key=key) as mem:
                mem.get_all(user_id="u", limit=1)
            opens[name].append((time.perf_counter() - t) * 1000)
    sizes = {n: os.path.getsize(os.path.join(tmp, f"{n}.db")) for n in configs}
    res = {"turns": len(turns), "queries": len(questions), "memories": stored, "embedder": "hash-384 (no model time)",
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "load_avg_1m_at_end": round(os.getloadavg()[0], 2)},
           "add": {n: summary(v) for n, v in adds.items()}, "search": {n: summary(v) for n, v in searches.items()},
           "open": {n: summary(v) for n, v in opens.items()}, "file_bytes": sizes}
    base_add, base_search = res["add"]["plaintext"]["p50_ms"], res["search"]["plaintext"]["p50_ms"]
    res["overhead_p50_pct"] = {n: {"add": round(100 * (res["add"][n]["p50_ms"] / base_add - 1), 1),
                                   "search": round(100 * (res["search"][n]["p50_ms"] / base_search - 1), 1)}
                               for n in ("raw_key", "passphrase")}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1), encoding="utf-8")
    for n in configs:
        print(f"{n:10s} add p50 {res['add'][n]['p50_ms']:7.2f} ms  search p50 {res['search'][n]['p50_ms']:7.2f} ms"
              f"  open p50 {res['open'][n]['p50_ms']:7.1f} ms", file=sys.stderr)
    print(json.dumps(res["overhead_p50_pct"]), f"written {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
