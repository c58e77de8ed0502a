"""LoCoMo evidence recall of search variants, paired, with and without a conversation (issue #23).

LoCoMo's questions carry no conversation. One is built for each question from the session *preceding* the session of
its first evidence turn: that session's last 4 turns (speaker-named), the talk a user would have had just before
asking; a question whose evidence is in session 1 gets none (it is asked bare in every variant). Such a conversation is
related to the question only by the people and the time: it measures that a conversation does not cost recall (the
issue's MemoryBank finding), not that it helps.

Variants (``--variants``, comma separated; each with ``track_access`` off so the variants do not move each other's
importance):
- ``hybrid``, ``anchored``: the question alone (no conversation);
- ``hybrid+conv``, ``anchored+conv``: the question with its conversation (``conversation_query_weight`` as the recipe
  sets it: the conversation also forms a query, :mod:`anchormem.retrieval.conversation`);
- ``hybrid+conv-noq``, ``anchored+conv-noq``: with its conversation, the conversation query off (weight 0);
  ``…-q``: the conversation query on (weight 0.25); ``anchored+conv-nogate``: the anchoring gate off;
  ``anchored+conv-tell``: ``anchor_spread_tell`` 0.05 or ``--tell`` (a "spread" reorder decided by the conversation
  when it sits by one sense's memories). Any variant may carry settings after ``@``:
  ``anchored+conv@anchor_context_delta=0.1@anchor_context_first=false``.

The store is ingested once into ``--db`` (reused when it exists). Paired bootstrap intervals (95%,
:func:`anchormem.eval.paired.paired_bootstrap`) of R@1/5/10 for the pairs in ``PAIRS``, on all questions and on those
of conversations 4-10 (held out: the anchoring gate's ``anchor_spread_weight`` was chosen on a sample of 1-3).
Run: nice -n 10 python bench/conv_locomo.py [--conversations N] [--skip K] [--db /tmp/locomo.db] [--variants ...]
[--tell X]
[--out bench/results/conv_locomo.json]; ``--skip 6``: only the questions of conversations 6-9 (held out)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.locomo import _recalls, _sessions, _turn_text, ingest_locomo, load_locomo, normalize_evidence
from anchormem.eval.paired import paired_bootstrap
from anchormem.retrieval.config import RECIPES

LOCOMO = Path(__file__).resolve().parents[2] / "shared/datasets/locomo/locomo10.json"
KS = (1, 5, 10)
TELL = 0.05  # anchor_spread_tell of the "-tell" variants (--tell)
SW = "anchored+conv@anchor_spread_weight=0.1"  # a "spread" reorder weighed as without a conversation
PAIRS = [("anchored", "hybrid"), ("anchored+conv", "hybrid"), ("anchored+conv", "hybrid+conv"),
         ("anchored+conv", SW), (SW, "hybrid+conv"), (SW, "anchored"), ("anchored+conv-q", "anchored+conv"),
         ("anchored+conv-nogate", "hybrid"), ("hybrid+conv-q", "hybrid"), ("anchored+conv", "anchored"),
         ("anchored+conv-tell", "anchored+conv")]


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def _value(v: str):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(v.lower(), v)


def _config(name: str):
    base = RECIPES["anchored" if name.startswith("anchored") else "hybrid_rrf"]
    name, *settings = name.split("@")  # "anchored+conv@anchor_context_delta=0.1": a variant with settings
    upd = {"track_access": False, **{k: _value(v) for k, v in (x.split("=", 1) for x in settings)}}
    if name.endswith("-noq"):
        upd["conversation_query_weight"] = 0.0
    if name.endswith("-q"):  # the conversation query on (off by default)
        upd["conversation_query_weight"] = 0.25
    if name.endswith("-nogate"):  # every anchored search reorders (before issue #23)
        upd["anchor_gate"] = False
    if name.endswith("-tell"):  # a "spread" reorder decided by a conversation that sits by one sense's memories
        upd["anchor_spread_tell"] = TELL
    return base.model_copy(update=upd)


def main(argv: list[str]) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    global TELL
    TELL = float(_arg(argv, "--tell", str(TELL)))
    n_conv = int(_arg(argv, "--conversations", "10"))
    db = _arg(argv, "--db", f"/tmp/locomo_conv{n_conv}.db")
    variants = _arg(argv, "--variants", "hybrid,anchored,hybrid+conv,anchored+conv,anchored+conv-noq").split(",")
    samples, _fixes = load_locomo(LOCOMO, conversations=n_conv, use_audit=False)
    fresh = not Path(db).exists()
    mem = Memory(db, embedder=eval_embedder(), cache=False)
    try:
        if fresh:
            ingest_locomo(mem, samples)
        ingest_s = time.perf_counter() - t0
        questions = []
        skip = int(_arg(argv, "--skip", "0"))  # ask only the questions of conversations skip.. (e.g. 6: held-out 6-9)
        for s in samples[skip:]:
            sess = {n: turns for n, _w, turns in _sessions(s["conversation"])}
            for qa in s["qa"]:
                ev = normalize_evidence(qa.get("evidence"))
                if not ev:
                    continue
                first = int(ev[0][1:].split(":")[0])
                prev = sess.get(first - 1, [])
                conv = [{"role": "user", "name": t.get("speaker"), "content": _turn_text(t)}
                        for t in prev if _turn_text(t)][-4:]
                questions.append({"user": s["sample_id"], "q": qa["question"], "ev": ev, "cat": int(qa["category"]),
                                  "conv": conv})
        recs: dict[str, list[dict[str, float]]] = {v: [] for v in variants}
        cpu: dict[str, float] = {v: 0.0 for v in variants}
        for qn, q in enumerate(questions):
            if qn and qn % 250 == 0:
                print(f"{qn}/{len(questions)}", {v: round(100 * sum(r["5"] for r in recs[v]) / qn, 2) for v in variants},
                      flush=True)
            for v in variants:
                ctx = q["conv"] if "+conv" in v else None
                c1 = time.process_time()
                hits = mem.search(q["q"], user_id=q["user"], context=ctx or None, limit=max(KS), recipe=_config(v))
                cpu[v] += time.process_time() - c1
                ranked: list[str] = []
                for h in hits:
                    d = h.memory.metadata.get("dia_id")
                    if d is not None and d not in ranked:
                        ranked.append(d)
                recs[v].append(_recalls(ranked, q["ev"], KS))
    finally:
        mem.close()
    out: dict = {"conversations": n_conv, "questions": len(questions),
                 "with_conversation": sum(1 for q in questions if q["conv"]), "ingest_s": round(ingest_s, 1),
                 "recall": {}, "paired": {}, "cpu_ms_per_search": {}}
    for v in variants:
        out["recall"][v] = {f"R@{k}": round(100 * sum(r[str(k)] for r in recs[v]) / len(recs[v]), 2) for k in KS}
        out["cpu_ms_per_search"][v] = round(1000 * cpu[v] / max(len(questions), 1), 2)
    # the anchoring gate's settings were tuned on a sample of conversations 1-3: 4-10 are held out
    users = [q["user"] for q in questions]
    tuned = {s["sample_id"] for s in samples[:3]}
    order = [s["sample_id"] for s in samples]  # the LoCoMo dev / held-out split of bench/locomo_paired.py
    splits = {"all": [True] * len(questions), "heldout_conv4-10": [u not in tuned for u in users],
              "dev_conv0-5": [order.index(u) < 6 for u in users],
              "heldout_conv6-9": [order.index(u) >= 6 for u in users]}
    # and every variant against the first one named and against hybrid+conv (variants with settings: "@...")
    pairs = list(dict.fromkeys([*PAIRS, *((v, variants[0]) for v in variants[1:]),
                                *((v, "hybrid+conv") for v in variants if v != "hybrid+conv")]))
    for split, keep in splits.items():
        for a, b in pairs:
            if a in recs and b in recs and any(keep):
                out["paired"][f"{a} vs {b} [{split}]"] = {
                    f"R@{k}": {key: (round(100 * val, 2) if key not in ("n", "wins", "losses") else val)
                               for key, val in paired_bootstrap(
                                   [r[str(k)] for r, f in zip(recs[a], keep) if f],
                                   [r[str(k)] for r, f in zip(recs[b], keep) if f]).items()}
                    for k in KS}
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    out["cpu_s"] = round(time.process_time() - c0, 1)
    return out


if __name__ == "__main__":
    res = main(sys.argv[1:])
    print(json.dumps({k: v for k, v in res.items() if k != "paired"}, indent=1))
    for pair, ks in res["paired"].items():
        print(pair, {k: f"{d['diff']:+.2f} [{d['low']:+.2f}, {d['high']:+.2f}]" for k, d in ks.items()})
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1) + "\n")
