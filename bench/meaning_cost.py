"""Cost of change detection by meaning (anchormem.facts.meaning) on the add path: CPU time and extra embedding.

    nice -n 10 python bench/meaning_cost.py [--conversations 1] [--max-turns 300] [--embedder e5-small] [--out bench/results/meaning_cost.json]

LoCoMo sessions (the first ``--conversations``), one ``add`` per turn (a user turn each, as a chat app adds them), on
a fresh ``Memory(":memory:")`` with a real semantic embedder (not the eval cache: the extra embedding is real work),
twice: the fallback off (the offline rules alone: ``_fact_extractor`` returns ``extract_from_text``) and on (the
default). Reports, per run: CPU seconds of this process (``time.process_time``: what the path costs whatever else
runs on the machine), adds per CPU-second, the embedding calls and texts, and for the fallback the calls and texts
it embedded itself (the exemplar bank's first embedding is counted separately: once per process and embedder).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from anchormem import Memory, Settings
from anchormem.embedders import make_embedder
from anchormem.eval.locomo import _sessions, _turn_text, load_locomo
from anchormem.facts import meaning
from anchormem.facts.rules import extract_from_text
from anchormem.eval.datasets import dataset_path

ROOT = Path(__file__).parent
DATA = dataset_path("locomo/locomo10.json")


class Counting:
    """Wraps an embedder, counting ``embed_documents`` calls and texts (``fallback``: those from facts.meaning)."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.semantic = getattr(inner, "semantic", True)
        self.calls = self.texts = self.fb_calls = self.fb_texts = 0

    def embed_documents(self, texts):
        self.calls += 1
        self.texts += len(texts)
        if any(f.f_code.co_filename.endswith("meaning.py") for f in _frames()):
            self.fb_calls += 1
            self.fb_texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def __getattr__(self, k):
        return getattr(self.inner, k)


def _frames():
    f = sys._getframe(2)
    while f is not None:
        yield f
        f = f.f_back


def run(turns: list[tuple[str, str]], emb: Counting, on: bool) -> dict:
    emb.calls = emb.texts = emb.fb_calls = emb.fb_texts = 0
    m = Memory(":memory:", embedder=emb, settings=Settings(labeller="offline"))
    if not on:
        m._fact_extractor = lambda: extract_from_text  # the rules alone
    c0, t0 = time.process_time(), time.time()
    facts = 0
    for user, text in turns:
        evs = m.add(text, user_id=user)
        facts += sum(1 for e in evs if e.memory.fact is not None and e.event in ("ADD", "SUPERSEDE"))
    cpu, wall = time.process_time() - c0, time.time() - t0
    m.close()
    return {"fallback": on, "adds": len(turns), "cpu_s": round(cpu, 2), "wall_s": round(wall, 1),
            "adds_per_cpu_s": round(len(turns) / cpu, 1), "embed_calls": emb.calls, "embed_texts": emb.texts,
            "fallback_embed_calls": emb.fb_calls, "fallback_embed_texts": emb.fb_texts, "fact_events": facts}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--conversations", type=int, default=1)
    ap.add_argument("--embedder", default="e5-small")
    ap.add_argument("--max-turns", type=int, default=300)
    ap.add_argument("--out", default=str(ROOT / "results" / "meaning_cost.json"))
    args = ap.parse_args()
    samples, _ = load_locomo(args.data, conversations=args.conversations)
    turns = [(s["sample_id"], _turn_text(t)) for s in samples for _, _, ts in _sessions(s["conversation"])
             for t in ts if _turn_text(t)][:args.max_turns]
    emb = Counting(make_embedder(args.embedder))
    emb.embed_documents(["warm-up"])
    c0 = time.process_time()
    for lang in ("en", "zh"):
        meaning._bank(emb, lang)
    bank_cpu = time.process_time() - c0
    runs = [run(turns, emb, on) for on in (False, True, False, True)]  # twice each, interleaved: load drifts
    best = {on: min((r for r in runs if r["fallback"] is on), key=lambda r: r["cpu_s"]) for on in (False, True)}
    out = {"command": "python bench/" + Path(__file__).name + " " + " ".join(sys.argv[1:]),
           "embedder": emb.name, "turns": len(turns), "bank_first_embedding_cpu_s": round(bank_cpu, 2),
           "runs": runs, "off": best[False], "on": best[True],
           "cpu_overhead": round(best[True]["cpu_s"] / best[False]["cpu_s"] - 1, 4)}
    Path(args.out).write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in out.items() if k != "runs"}, indent=1))


if __name__ == "__main__":
    main()
