"""Polysemy dev set (baseline vs anchored, per group: en / en_heldout / zh / zh_heldout, per case and pooled) and
anchored-vs-plain search latency, on the polysemy history alone (396 memories) and with the turns of LoCoMo
conversations 1-2 added to the same user as distractors (when the dataset is found): with the query and
conversation embeddings cached (the ranking's own cost), and end to end for new questions (``fresh``); the pass
rates again on the raw CoarseWSD labels (``raw_labels``: without the audit of
``anchormem/data/coarsewsd20_audit.json``). Writes
bench/results/polysemy.json. Run: python bench/polysemy.py [--latency-only]"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.polysemy import format_table, load_cases, run_polysemy


LOCOMO = Path(__file__).resolve().parents[2] / "shared/datasets/locomo/locomo10.json"


def _locomo_turns(n_conversations: int) -> list[tuple[str, list[dict]]]:
    """(session key, turns) of the first LoCoMo conversations, or [] when the dataset is not found."""
    from anchormem.eval.locomo import _sessions, _turn_text, load_locomo

    if not LOCOMO.is_file():
        return []
    samples, _ = load_locomo(LOCOMO, conversations=n_conversations, use_audit=False)
    return [(f"locomo{i}/{n}", [{"role": "user", "name": t.get("speaker"), "content": _turn_text(t)}
                                for t in turns if _turn_text(t).strip()])
            for i, s in enumerate(samples) for n, _when, turns in _sessions(s["conversation"])]


def latency(n_queries: int = 40, filler: list[tuple[str, list[dict]]] = ()) -> dict:
    cases = load_cases()
    with Memory(":memory:", cache=False) as mem:  # the hot cache would answer repeated searches: time the search
        for c in cases:
            for key, turns in c.sessions.items():
                mem.add([{"role": "user", "content": t} for t in turns], user_id="u", session_id=key)
        for key, turns in filler:
            mem.add(turns, user_id="u", session_id=key)
        qs = cases[:n_queries]
        for c in qs:  # warm the query/context embedding caches and the label prototypes
            mem.search(c.query, user_id="u", context=c.context, recipe="anchored")
        out = {}
        variants = (("plain", "hybrid_rrf", False), ("plain_with_context", "hybrid_rrf", True),
                    ("anchored_no_context", "anchored", False), ("anchored_with_context", "anchored", True))
        times: dict[str, list[float]] = {name: [] for name, _, _ in variants}
        for _ in range(10):  # variants interleaved per query: machine drift hits all of them alike
            for c in qs:
                for name, recipe, use_ctx in variants:
                    t = time.perf_counter()
                    mem.search(c.query, user_id="u", context=c.context if use_ctx else None, recipe=recipe)
                    times[name].append(time.perf_counter() - t)
        for name, ts in times.items():
            out[name] = {"p50_ms": round(1000 * statistics.median(ts), 2),
                         "mean_ms": round(1000 * statistics.fmean(ts), 2)}
        base = out["plain"]["p50_ms"]
        for k in out:
            out[k]["overhead_vs_plain"] = round(out[k]["p50_ms"] / base - 1, 3)
            # paired: the median over (query, round) of this variant's time minus plain's for the same query in the
            # same round, less sensitive to the machine's drift than a ratio of two p50s
            diff = statistics.median(a - b for a, b in zip(times[k], times["plain"]))
            out[k]["paired_extra_ms"] = round(1000 * diff, 3)
            out[k]["paired_overhead_vs_plain"] = round(1000 * diff / base, 3)
        # the same call (query + conversation) with the default recipe: what switching the recipe costs
        out["anchored_with_context"]["overhead_vs_plain_with_context"] = round(
            out["anchored_with_context"]["p50_ms"] / out["plain_with_context"]["p50_ms"] - 1, 3)
        out["anchor_stages_ms"] = _stage_times(mem, qs)
        fresh = [f"{c.query} ({i})" for i, c in enumerate(qs[:10])]  # texts no cache has seen
        t_embed = []
        for text in fresh:
            t = time.perf_counter()
            mem.embedder.embed_query(text)
            t_embed.append(time.perf_counter() - t)
        out["query_embedding_p50_ms"] = round(1000 * statistics.median(t_embed), 2)
        out["fresh"] = _fresh(mem, qs)
        out["memories"] = len(mem.get_all(user_id="u"))
        out["note"] = "embeddings cached (a conversation's turns repeat across searches); cold context turns " \
                      "cost one embedding each (~15-60 ms)"
    return out


def _fresh(mem: Memory, qs: list, rounds: int = 2) -> dict:
    """End to end, as a user's new question costs: p50 ms of searches whose query no cache has seen (its
    embedding included), plain / anchored without a conversation / anchored with the case's conversation (turns
    seen before: cached) / anchored with one new turn appended to it (one more embedding, as when the assistant's
    last reply is part of the conversation) / anchored with one new turn that ``add`` stored just before, outside
    the timing (an agent loop: the reply is remembered, then the next question searched; its passage embedding is
    reused; stored for another user, so the searched history stays the same for every variant)."""
    variants = ("plain", "anchored_no_context", "anchored_with_context", "anchored_with_new_turn",
                "anchored_with_added_turn")
    times: dict[str, list[float]] = {v: [] for v in variants}
    for r in range(rounds):
        for i, c in enumerate(qs):
            for j, v in enumerate(variants):
                q = f"{c.query} ({j}.{r}.{i})"  # new text no cache holds, of one length for every variant
                ctx = None if v in ("plain", "anchored_no_context") else list(c.context)
                if v in ("anchored_with_new_turn", "anchored_with_added_turn"):
                    ctx.append(f"{c.context[-1] if c.context else c.query} ({j}.{r}.{i})")
                if v == "anchored_with_added_turn":
                    mem.add([{"role": "assistant", "content": ctx[-1]}], user_id="loop", session_id="loop")
                t = time.perf_counter()
                mem.search(q, user_id="u", context=ctx, recipe="hybrid_rrf" if v == "plain" else "anchored")
                times[v].append(time.perf_counter() - t)
    out = {v: {"p50_ms": round(1000 * statistics.median(ts), 2)} for v, ts in times.items()}
    for v in variants:
        out[v]["overhead_vs_plain"] = round(out[v]["p50_ms"] / out["plain"]["p50_ms"] - 1, 3)
    return out


def _stage_times(mem: Memory, qs: list) -> dict[str, float]:
    """p50 ms per anchoring stage over the anchored searches with a conversation, by wrapping each for one pass:
    ``candidates`` (Candidates.of: the hits' arrays), ``singled_out``, ``query_context``, ``context_match``,
    ``rerank`` (rank_candidates: factors and order), ``explain`` (explain["anchor"] of the returned hits), the
    whole ``anchor_hook`` (AnchorHook.__call__, explain excluded), and ``context_vectors`` (the store's read of
    the candidates' context vectors from its cache)."""
    from anchormem.context import anchor as A
    from anchormem.context.candidates import Candidates

    times: dict[str, list[float]] = {}
    saved = []

    def wrap(owner, name, label):
        fn = owner.__dict__[name]
        saved.append((owner, name, fn))
        inner = fn.__func__ if isinstance(fn, classmethod) else fn

        def timed(*a, **k):
            t = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                times.setdefault(label, []).append(time.perf_counter() - t)
        setattr(owner, name, classmethod(timed) if isinstance(fn, classmethod) else timed)

    wrap(Candidates, "of", "candidates")
    wrap(A.ContextAnchor, "singled_out", "singled_out")
    wrap(A.ContextAnchor, "query_context", "query_context")
    wrap(A.ContextAnchor, "context_match", "context_match")
    wrap(A, "rank_candidates", "rerank")
    wrap(A.AnchorHook, "explain", "explain")
    wrap(A.AnchorHook, "__call__", "anchor_hook")
    store_cls = type(mem.store)
    if hasattr(store_cls, "_cached_contexts"):
        wrap(next(c for c in store_cls.__mro__ if "_cached_contexts" in c.__dict__), "_cached_contexts",
             "context_vectors")
    try:
        for _ in range(3):
            for c in qs:
                mem.search(c.query, user_id="u", context=c.context, recipe="anchored")
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    return {k: round(1000 * statistics.median(v), 3) for k, v in times.items()}


if __name__ == "__main__" and "--latency-only" in sys.argv:  # refresh the latency keys of the results file
    path = Path(__file__).parent / "results" / "polysemy.json"
    res = json.loads(path.read_text())
    res["latency"] = latency()
    filler = _locomo_turns(2)
    if filler:
        res["latency_with_locomo_distractors"] = latency(filler=filler)
    print(json.dumps({k: res[k] for k in ("latency", "latency_with_locomo_distractors") if k in res}, indent=1))
    path.write_text(json.dumps(res, indent=1, ensure_ascii=False))
elif __name__ == "__main__":
    res = run_polysemy(progress=print)
    print(format_table(res))
    raw = run_polysemy(audit=False)  # the CoarseWSD labels as published, mislabelled sentences included
    res["raw_labels"] = {k: raw[k] for k in ("cases", "per_case", "pooled", "failures", "switch")}
    print("raw CoarseWSD labels:\n" + format_table(raw))
    res["latency"] = latency()
    print(json.dumps(res["latency"], indent=1))
    filler = _locomo_turns(2)
    if filler:
        res["latency_with_locomo_distractors"] = latency(filler=filler)
        print(json.dumps(res["latency_with_locomo_distractors"], indent=1))
    path = Path(__file__).parent / "results" / "polysemy.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1, ensure_ascii=False))
