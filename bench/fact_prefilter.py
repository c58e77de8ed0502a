"""Offline fact reading, two source trees side by side: identical output, and its CPU cost per turn (issue #24).

    nice -n 10 python bench/fact_prefilter.py --src old=/path/to/old/src --src new=src --rounds 2 \
        --out bench/results/scale_fact_prefilter.json

Texts (>= 10k): every LoCoMo turn, the Memora user turns, MemoryBank user turns (Chinese and English), the turns of
the dev currency story files (``currency_stories.json``, gen3, gen4, gen6; never the held-out sets) and 3,000 of
``bench/load_1m.py``'s synthetic turns. For each text, each tree computes in a fresh process (``--worker``):

- the rule facts (:func:`anchormem.facts.rules.extract_from_text`: every field of every fact);
- the meaning fallback's units (:func:`anchormem.facts.meaning.clause_units`, with their typed values) and the
  relative reader's units (:func:`anchormem.facts.relative.units_of`, with their
  :func:`~anchormem.facts.relative.clause_values`);
- jieba's tags of Chinese texts (:func:`anchormem.text.tokenize.pos_tags`);
- the typed readers' facts, those the tree has (:func:`anchormem.facts.jobs.job_facts`,
  :func:`anchormem.facts.quantities.quantity_facts`).

Every output must be equal between the trees (the report counts the texts that differ, and shows the first few).
CPU time (``time.process_time``) of one pass over all texts is measured in each worker after a warm-up on other
texts; the trees alternate round by round (order rotated), and the medians are reported.
"""

from __future__ import annotations

import argparse
import functools
import glob
import hashlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "datasets"
DEV_STORIES = ("currency_stories.json", "currency_stories_gen3.json", "currency_stories_gen4.json",
               "currency_stories_gen6.json")


def texts() -> list[str]:
    out: list[str] = []
    d = json.loads((DATA / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    for conv in d:
        c = conv["conversation"]
        for k in sorted(c):
            if k.startswith("session_") and isinstance(c[k], list):
                out += [t["text"] for t in c[k] if t.get("text")]
    for f in sorted(glob.glob(str(DATA / "memora" / "weekly" / "*" / "conversations" / "session_*.json"))):
        s = json.loads(Path(f).read_text(encoding="utf-8"))
        out += [t["message"] for t in s["conversation"] if t.get("message") and t.get("speaker") == "user_agent"]
    for lang in ("cn", "en"):
        data = json.loads((DATA / "memorybank" / lang / f"memory_bank_{lang}.json").read_text(encoding="utf-8"))
        for user in data.values():
            for _, turns in sorted(user.get("history", {}).items()):
                out += [t["query"] for t in turns if t.get("query", "").strip()]
    for name in DEV_STORIES:
        d = json.loads((HERE / "data" / name).read_text(encoding="utf-8"))
        out += [t["text"] for s in (d["stories"] if isinstance(d, dict) else d) for t in s["turns"]]
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE / "peers"))
    from load_1m import text as synth_text

    out += [synth_text(i) for i in range(3000)]
    return out


def _read(t: str) -> dict[str, Any]:
    from anchormem.facts.meaning import clause_units
    from anchormem.facts.relative import clause_values, units_of
    from anchormem.facts.rules import extract_from_text
    from anchormem.text.tokenize import has_cjk, pos_tags

    facts = extract_from_text(t)
    out: dict[str, Any] = {"facts": [f.model_dump(mode="json") for f in facts]}
    out["meaning"] = [[u.text, u.sentence, u.lang, u.person, u.values, u.other, u.impersonal]
                      for u in clause_units(t, facts)]
    out["relative"] = [[u.text, u.sentence, u.lang, [repr(v) for v in clause_values(u.text)]]
                       for u in units_of(t, facts)]
    if has_cjk(t):
        out["tags"] = [list(x) for x in pos_tags(t)]
    for name, read in _typed_readers():  # the typed readers the add path runs beside the rules
        out[name] = [f.model_dump(mode="json") for f in read(t)]
    return out


@functools.lru_cache(maxsize=1)
def _typed_readers() -> tuple:
    """(name, reader) of the typed readers this tree has: ``jobs`` (facts.jobs.job_facts) and, where the tree has
    it, ``quantities`` (facts.quantities.quantity_facts), so a tree's CPU per text covers what its add path reads
    (each with no current claims: the readers alone)."""
    out = []
    for name, mod, fn in (("jobs", "anchormem.facts.jobs", "job_facts"),
                          ("quantities", "anchormem.facts.quantities", "quantity_facts")):
        try:
            out.append((name, getattr(importlib.import_module(mod), fn)))
        except (ImportError, AttributeError):
            pass
    return tuple(out)


def worker(args: argparse.Namespace) -> None:
    all_texts = texts()
    warm = [f"I moved to Lisbon and work at Acme {i}. 我搬到了杭州，在第{i}家公司上班。" for i in range(100)]
    for t in warm:
        _read(t)
    t0 = time.process_time()
    res = [_read(t) for t in all_texts]
    cpu = time.process_time() - t0
    with open(args.dump, "w", encoding="utf-8") as fh:
        json.dump({"cpu_s": cpu, "n": len(all_texts), "out": res}, fh, ensure_ascii=False)


def _run(label: str, src: str, dump: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()), OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, __file__, "--worker", "--dump", dump], env=env, check=True)
    with open(dump, encoding="utf-8") as fh:
        return json.load(fh)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", action="append", default=[], help="label=path of a source tree (src/), repeatable")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out")
    ap.add_argument("--work", default="/tmp/fact_prefilter")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return 0
    trees = [s.split("=", 1) for s in args.src]
    Path(args.work).mkdir(parents=True, exist_ok=True)
    cpu: dict[str, list[float]] = {label: [] for label, _ in trees}
    outs: dict[str, list[Any]] = {}
    n = 0
    for r in range(args.rounds):
        order = trees[r % len(trees):] + trees[: r % len(trees)]
        for label, src in order:
            got = _run(label, src, f"{args.work}/{label}_{r}.json")
            cpu[label].append(got["cpu_s"])
            n = got["n"]
            outs.setdefault(label, got["out"])
            print(time.strftime("%H:%M:%S"), f"round {r} {label}: {got['cpu_s']:.1f} CPU-s for {n} texts "
                  f"({got['cpu_s'] / n * 1000:.3f} ms/text), load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    base_label = trees[0][0]
    report: dict[str, Any] = {"texts": n, "rounds": args.rounds, "load_avg_end": os.getloadavg(),
                              "trees": {label: src for label, src in trees}, "cpu_s": cpu,
                              "ms_per_text_median": {k: statistics.median(v) / n * 1000 for k, v in cpu.items()}}
    all_texts = texts()
    for label, _ in trees[1:]:
        diff = [i for i, (a, b) in enumerate(zip(outs[base_label], outs[label])) if a != b]
        report[f"differ_{base_label}_vs_{label}"] = len(diff)
        report[f"examples_{label}"] = [{"text": all_texts[i], base_label: outs[base_label][i], label: outs[label][i]}
                                       for i in diff[:5]]
    kinds = {"facts": 0, "meaning": 0, "relative": 0, "tags": 0}
    for o in outs[base_label]:
        for k in kinds:
            kinds[k] += bool(o.get(k))
    report["texts_with"] = kinds
    report["digest"] = {k: hashlib.sha256(json.dumps(v, ensure_ascii=False).encode()).hexdigest()[:16]
                        for k, v in outs.items()}
    print(json.dumps({k: v for k, v in report.items() if not k.startswith("examples")}, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
