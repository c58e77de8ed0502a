"""Domain labels of short turns (issue #26): accuracy of the offline labeller on bench/data/short_turns_labelled.jsonl.

Each line is one short user turn (English or Chinese: everyday facts, numbers, plans) with the domains that
are right for it (``domains``; empty: no domain fits, e.g. "My phone number is …", and the right answer is no
label). Every turn is added on its own (its own session, no conversation around it) to a fresh in-memory store
with the default embedder and no LLM, as a user's one-line ``add`` is, and the primary label of the memory it
makes is read. Figures:

- ``accuracy``: of the turns that got a label, how many got a right one (a label on a turn whose ``domains`` is
  empty is wrong);
- ``coverage``: how many turns got a label at all (the rest were left empty: the labeller abstained).

``split``: ``dev`` lines were used to choose the abstention threshold; ``heldout`` lines were written after that
and never used to tune anything. ``--sweep`` also prints accuracy and coverage for other thresholds (ratio of the
runner-up domain's probability to the best one's above which the label is left empty), from the same run.
Writes bench/results/short_turn_labels.json (or ``--out``). Run: nice -n 10 python bench/short_turn_labels.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder

DATA = Path(__file__).parent / "data" / "short_turns_labelled.jsonl"
OUT = Path(__file__).parent / "results" / "short_turn_labels.json"


def _score(rows: list[dict]) -> dict:
    given = [r for r in rows if r["label"] is not None]
    right = sum(1 for r in given if r["label"] in r["domains"])
    return {"turns": len(rows), "labelled": len(given), "right": right,
            "accuracy": round(right / len(given), 4) if given else None,
            "coverage": round(len(given) / len(rows), 4) if rows else None}


def run(rows: list[dict], abstain_ratio: float | None = None) -> list[dict]:
    out = []
    with Memory(":memory:", cache=False, llm=None, embedder=eval_embedder()) as mem:
        if abstain_ratio is not None:
            mem.anchor.abstain_ratio = abstain_ratio
        for i, r in enumerate(rows):
            events = mem.add([{"role": "user", "content": r["text"]}], user_id="u", session_id=f"s{i}")
            labs = events[0].memory.labels if events else []
            ratio = max((lab.score for lab in labs if not lab.primary), default=0.0)
            out.append({**r, "label": labs[0].domain if labs else None, "runner_up_ratio": ratio,
                        "labels": {lab.domain: lab.score for lab in labs}})
    return out


def report(done: list[dict]) -> dict:
    lang = {"zh": [r for r in done if any("\u4e00" <= c <= "\u9fff" for c in r["text"])]}
    lang["en"] = [r for r in done if r not in lang["zh"]]
    return {"overall": _score(done), "per_split": {s: _score([r for r in done if r["split"] == s])
                                                    for s in sorted({r["split"] for r in done})},
            "per_language": {k: _score(v) for k, v in lang.items()}}


if __name__ == "__main__":
    rows = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    args = sys.argv[1:]
    ratio = float(args[args.index("--ratio") + 1]) if "--ratio" in args else None
    out_path = Path(args[args.index("--out") + 1]) if "--out" in args else OUT
    t0, c0 = time.perf_counter(), time.process_time()
    done = run(rows, ratio)
    res = {"dataset": "bench/data/short_turns_labelled.jsonl", "abstain_ratio": ratio, **report(done),
           "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}
    if "--sweep" in args:  # what a lower threshold would leave: the same run, labels dropped afterwards
        res["sweep"] = {}
        for th in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01):
            cut = [{**r, "label": r["label"] if r["runner_up_ratio"] < th else None} for r in done]
            res["sweep"][str(th)] = report(cut)
            print(th, res["sweep"][str(th)]["overall"], res["sweep"][str(th)]["per_split"])
    res["errors"] = [{k: r[k] for k in ("text", "domains", "label", "labels", "split")} for r in done
                     if r["label"] is not None and r["label"] not in r["domains"]]
    print(json.dumps({k: res[k] for k in ("overall", "per_split", "per_language")}, indent=1))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
