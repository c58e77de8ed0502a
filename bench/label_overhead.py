"""Write-time labelling overhead: time ``Memory.add`` on ~200 LoCoMo turns with and without context labelling
(one process, same embedder, embedding cache cold for both runs). Run: python bench/label_overhead.py [N_TURNS]"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import anchormem.memory as memory_mod
from anchormem import Memory
from anchormem.eval.datasets import dataset_path

LOCOMO = dataset_path("locomo/locomo10.json")


def sessions(n_turns: int) -> list[tuple[str, list[dict]]]:
    data = json.loads(LOCOMO.read_text("utf-8"))
    out, total = [], 0
    for ci, conv in enumerate(data):
        c = conv["conversation"]
        k = 1
        while f"session_{k}" in c and total < n_turns:
            turns = [{"role": "user", "name": t["speaker"], "content": t["text"]} for t in c[f"session_{k}"]]
            turns = turns[: n_turns - total]
            out.append((f"c{ci}s{k}", turns))
            total += len(turns)
            k += 1
        if total >= n_turns:
            break
    return out


def run(sess, label: bool, embedder) -> tuple[float, int]:
    orig = memory_mod.label_drafts
    if not label:
        memory_mod.label_drafts = lambda *a, **k: None
    calls = {"n": 0}
    real = embedder.embed_documents

    def counting(texts):
        calls["n"] += len(texts)
        return real(texts)

    embedder.embed_documents = counting
    try:
        with Memory(":memory:", embedder=embedder, cache=False) as mem:  # time the search, not the hot cache
            mem.anchor.labeller.prototypes()  # load the (disk-cached) prototypes outside the timing
            calls["n"] = 0
            t = time.perf_counter()
            for sid, turns in sess:
                mem.add(turns, user_id="u", session_id=sid)
            return time.perf_counter() - t, calls["n"]
    finally:
        memory_mod.label_drafts = orig
        embedder.embed_documents = real


if __name__ == "__main__":
    from anchormem.embedders import make_embedder

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    sess = sessions(n)
    emb = make_embedder("auto")
    emb.embed_documents(["warm up"])
    res = {}
    for name, lab in (("no_labels", False), ("labels", True), ("no_labels_2", False), ("labels_2", True)):
        if hasattr(emb, "clear_cache"):
            emb.clear_cache()
        secs, n_emb = run(sess, lab, emb)
        res[name] = {"seconds": round(secs, 2), "texts_embedded": n_emb}
        print(name, res[name], flush=True)
    print(json.dumps({"turns": sum(len(t) for _, t in sess), **res}))
