"""Cost of a search with a 5-turn conversation whose turns were never stored, against a bare search (issue #23: goal
≤ 1.5x at p50). Default search (``anchored`` recipe) over the polysemy history (~400 memories); every query is new
text (no query-embedding cache hit), as are the turns:

- ``bare``: the query alone;
- ``conv_rolling``: a conversation that grows by one new turn per search (the last 5 turns; the 4 earlier ones were
  embedded by the previous search and are cached): the steady state of an agent loop;
- ``conv_cold``: 5 turns none of which was ever seen (one batched ``embed_documents`` call for all 5).

Variants interleaved per round; p50 of wall and of CPU time (``time.process_time``) per variant, and their ratios.
Run: nice -n 10 python bench/conv_latency.py [--rounds 30] [--out bench/results/conv_latency.json]"""

from __future__ import annotations

import statistics
import sys
import time

from anchormem import Memory
from anchormem.eval.polysemy import load_cases
from timing import emit  # bench/timing.py (bench/ is on sys.path when a script runs)


def main(argv: list[str]) -> dict:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 30
    cases = load_cases()
    out: dict = {"rounds": rounds}
    with Memory(":memory:", cache=False) as mem:
        for c in cases:
            for key, turns in c.sessions.items():
                mem.add([{"role": "user", "content": t} for t in turns], user_id="u", session_id=key)
        out["memories"] = len(mem.get_all(user_id="u", limit=10_000))
        pool = [c for c in cases if c.context]
        mem.search(pool[0].query, user_id="u", context=pool[0].context)  # warm prototypes and models
        wall: dict[str, list[float]] = {"bare": [], "conv_rolling": [], "conv_cold": []}
        cpu: dict[str, list[float]] = {k: [] for k in wall}
        rolling: list[str] = []
        for r in range(rounds):
            c = pool[r % len(pool)]
            tag = f" (#{r})"
            rolling.append(f"{c.context[0]} [{r}]")
            cold = [f"{t} <{r}.{i}>" for i, t in enumerate((c.context * 3)[:5])]
            for name, ctx in (("bare", None), ("conv_rolling", rolling[-5:]), ("conv_cold", cold)):
                q = f"{c.query}{tag} {name}"
                t, p = time.perf_counter(), time.process_time()
                mem.search(q, user_id="u", context=ctx)
                wall[name].append(time.perf_counter() - t)
                cpu[name].append(time.process_time() - p)
    for name in wall:
        out[name] = {"p50_ms": round(1000 * statistics.median(wall[name]), 2),
                     "cpu_p50_ms": round(1000 * statistics.median(cpu[name]), 2)}
    for name in ("conv_rolling", "conv_cold"):
        out[name]["ratio_wall"] = round(out[name]["p50_ms"] / out["bare"]["p50_ms"], 3)
        out[name]["ratio_cpu"] = round(out[name]["cpu_p50_ms"] / out["bare"]["cpu_p50_ms"], 3)
    return out


if __name__ == "__main__":
    emit(main(sys.argv[1:]), sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None)
