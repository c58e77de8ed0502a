"""Fingerprint of what the offline write path reads and stores, to prove a refactor of the fact readers changes nothing.

    nice -n 10 python bench/facts_fingerprint.py --out bench/results/rulesdata_before.json
    nice -n 10 python bench/facts_fingerprint.py --out bench/results/rulesdata_after.json \\
        --compare bench/results/rulesdata_before.json

Four parts:

- ``patterns``: the compiled patterns of the clause rules (:mod:`anchormem.facts.rules`: every rule, the negation
  and "used to" patterns, the clause split, the subject patterns) and of the commitment reader
  (:mod:`anchormem.facts.commitments`), pattern text and flags;
- ``extract``: :func:`anchormem.facts.offline.extract_facts_rules` on every turn of the dev story files
  (bench/data/currency_stories{,_gen3,_gen4,_people}.json), of the polysemy dev cases and the older held-out files
  2, 3, 4 and 6 (the sessions bench/pooled_supersedes.py pools) and of LoCoMo (every turn, when the file is there):
  each fact as (entity, attribute, value, polarity, confidence, clause); per source its count and a sha256.
- ``readers`` (``--readers``): the typed readers on every LoCoMo turn and every MemoryBank turn (Chinese and English,
  user and assistant): the job reader's readings and facts, the home reader's facts, the quantity reader's facts
  and each open clause's relative count readings (the readers with a trigger prefilter, issue #24);
- ``store``: every story of the four dev story files (``--tune``: of every currency tune set, dev, gen3, gen4, gen6
  and the topic files; never a held-out one) added turn by turn into a fresh ``Memory(":memory:")`` (the
  offline path, as bench/currency.py adds them; concurrent stories sequentially, so the result is deterministic):
  each add's events (event, text, previous text) and at the end every memory's kind, text, validity, fact
  metadata and claims (slot, value, polarity, closed or not; a slot keyed by a stored memory's random id by
  its order of first appearance).

It runs with ``PYTHONHASHSEED=0`` (it re-executes itself so): the store reads some values in a set's order, which
otherwise varies from run to run (seen: gen4-ending-zh-04 keeps 网易 or 会员 as the ended habit's value).

With ``--compare`` the new fingerprint is checked against an old one: the sources whose hash differs are listed (with
the first differing items when both were written with ``--items``), and the exit status is 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import file_cases, load_cases
from anchormem.facts.offline import extract_facts_rules

ROOT = Path(__file__).parent
STORY_FILES = ["currency_stories.json", "currency_stories_gen3.json", "currency_stories_gen4.json",
               "currency_stories_people.json"]
POLY_FILES = [f"polysemy_{lang}_heldout{n}.json" for n in (2, 3, 4, 6) for lang in ("en", "zh")]
LOCOMO = ROOT.resolve().parents[1] / "shared/datasets/locomo/locomo10.json"
MEMORYBANK = {lang: ROOT.resolve().parents[1] / f"shared/datasets/memorybank/{lang}/memory_bank_{lang}.json"
              for lang in ("cn", "en")}
TUNE_FILES = ["currency_stories.json", "currency_stories_gen3.json", "currency_stories_gen4.json",
              "currency_stories_gen6.json"] + [f"currency_stories_{t}.json" for t in (
                  "people", "plans", "habits", "prefs", "gates", "scheduled", "events", "dates")]
T0 = datetime(2024, 1, 1, 9, 0, tzinfo=timezone.utc)
_ID = re.compile(r":[0-9a-f]{12}(?=\.\d+$)")


def _facts(text: str) -> list[list]:
    return [[f.entity, f.attribute, f.value, f.polarity, round(f.confidence, 4), f.clause]
            for f in extract_facts_rules(text)]


def _stories(name: str) -> list[dict]:
    return json.loads((ROOT / "data" / name).read_text(encoding="utf-8"))["stories"]


def _sources() -> dict[str, list[str]]:
    out = {name: [t["text"] for s in _stories(name) for t in s["turns"]] for name in STORY_FILES}
    cases = load_cases(sets="dev") + file_cases(POLY_FILES)
    out["polysemy_pooled"] = [t for k, ts in dict((k, t) for c in cases for k, t in c.sessions.items()).items()
                              for t in ts]
    if LOCOMO.exists():
        samples = json.loads(LOCOMO.read_text(encoding="utf-8"))
        out["locomo"] = [t["text"] for s in samples for k, v in s["conversation"].items()
                         if k.startswith("session_") and isinstance(v, list) for t in v if t.get("text")]
    return out


def _reader_texts() -> dict[str, list[str]]:
    """The texts the typed readers are checked on: every LoCoMo turn and every MemoryBank turn (user and assistant,
    Chinese and English), when the files are there."""
    out = {}
    if LOCOMO.exists():
        out["locomo"] = _sources()["locomo"]
    for lang, path in MEMORYBANK.items():
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            out[f"memorybank_{lang}"] = [str(t[k]) for user in data.values() for _, turns in sorted(
                user.get("history", {}).items()) for t in turns for k in ("query", "response")
                if str(t.get(k) or "").strip()]
    return out


def _readers(text: str) -> list:
    """What the typed readers read from one turn: the job reader's readings and facts, the home reader's facts, the
    quantity reader's facts and each open clause's relative count readings."""
    from anchormem.facts import counts, jobs, places, quantities

    def fs(facts: list) -> list:
        return [[f.entity, f.attribute, f.value, f.polarity, round(f.confidence, 4), f.clause, f.ends] for f in facts]

    return [[[r.aspect, r.title, r.org, r.cue, r.clause] for r in jobs.read_clauses(text)], fs(jobs.job_facts(text)),
            fs(places.home_facts(text)), fs(quantities.quantity_facts(text, claims=lambda: [])),
            [[c, counts._readings(c)] for c, *_ in jobs.open_clauses(text)]]


def _digest(items: list) -> str:
    return hashlib.sha256(json.dumps(items, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _store(story: dict, mem: Memory, user: str) -> dict:
    events = []
    for i, turn in enumerate(story["turns"]):
        evs = mem.add(turn["text"], user_id=user, session_id=f"s{i}", timestamp=T0 + timedelta(days=turn["day"]))
        events.append([[e.event, e.memory.text, e.previous_text] for e in evs])
    rows, ids = [], {}

    def slot(s: str) -> str:  # a slot keyed by a stored memory's id ("habit:cbe57e5f7a53.0"): by first appearance
        return _ID.sub(lambda m: ids.setdefault(m.group(0), f":#{len(ids)}"), s)

    for m in sorted(mem.get_all(user_id=user, limit=1000, include_superseded=True),
                    key=lambda m: (m.kind, m.text, m.valid_from)):
        claims = sorted(m.claims, key=lambda c: (_ID.sub("", c.slot), c.value, c.polarity, c.valid_to is not None))
        rows.append([m.kind, m.text, m.valid_to is not None, m.metadata.get("fact"),
                     [[slot(c.slot), c.value, c.polarity, c.valid_to is not None] for c in claims]])
    return {"events": events, "memories": rows}


def _patterns() -> dict:
    """The compiled patterns of the clause rules (the gates: every rule and the negation patterns; the clause split;
    the subject patterns), as (pattern, flags)."""
    from anchormem.facts import rules

    from anchormem.facts import commitments as cm

    items = [[p.pattern, int(p.flags)] for p in rules._gates() + [rules._clause_split(), *rules._subject_patterns()]]
    if hasattr(cm, "_rx"):
        said = [cm._rx("commitment", ("en",)), cm._rx("commitment", ("zh",)), cm._rx("not_commitment"),
                cm._rx("promise"), cm._weekdays()[1]]
    else:  # before its move to data/lang/*/commitments.json: the module's constants
        said = [cm._EN, cm._ZH, cm._NOT, cm._PROMISE, cm._BARE_WEEKDAY]
    promised = [[p.pattern, int(p.flags)] for p in said]
    return {"rules": {"patterns": len(items), "sha256": _digest(items), "items": items},
            "commitments": {"patterns": len(promised), "sha256": _digest(promised), "items": promised}}


def fingerprint(stories: list[str] = STORY_FILES, with_readers: bool = False) -> dict:
    extract = {}
    for name, texts in _sources().items():
        items = [[t, _facts(t)] for t in texts]
        extract[name] = {"turns": len(items), "facts": sum(len(f) for _, f in items), "sha256": _digest(items),
                         "items": items if name in STORY_FILES else None}
    readers = {}
    for name, texts in (_reader_texts() if with_readers else {}).items():
        items = [[t, _readers(t)] for t in texts]
        readers[name] = {"turns": len(items), "sha256": _digest(items), "items": items}
    store = {}
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        for name in stories:
            got = {s["id"]: _store(s, mem, f"{name}/{s['id']}") for s in _stories(name)}
            store[name] = {"stories": len(got), "sha256": _digest(got), "items": got}
    return {"patterns": _patterns(), "extract": extract, "readers": readers, "store": store}


def compare(new: dict, old: dict) -> list[str]:
    diffs = []
    for part in ("patterns", "extract", "readers", "store"):
        for name, got in new[part].items():
            was = old.get(part, {}).get(name)
            if was is None or was["sha256"] != got["sha256"]:
                diffs.append(f"{part}/{name}: sha256 differs")
                a, b = (was or {}).get("items"), got.get("items")
                if isinstance(a, list) and isinstance(b, list):
                    diffs += [f"  {x!r}\n  -> {y!r}" for x, y in zip(a, b) if x != y][:10]
                elif isinstance(a, dict) and isinstance(b, dict):
                    diffs += [f"  {k}: {a.get(k)!r}\n  -> {b[k]!r}" for k in b if a.get(k) != b[k]][:10]
    return diffs


def main(argv: list[str]) -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":  # a set's order decides some readings (a value among two): fix it
        os.execve(sys.executable, [sys.executable, __file__, *argv], {**os.environ, "PYTHONHASHSEED": "0"})
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results/rulesdata_fingerprint.json")
    ap.add_argument("--compare", default=None)
    ap.add_argument("--items", action="store_true", help="keep every item in --out (for reading a difference)")
    ap.add_argument("--tune", action="store_true", help="store every currency tune set (dev, gen3, gen4, gen6 and "
                                                           "the topic files), not only the four dev files")
    ap.add_argument("--readers", action="store_true", help="the typed readers (jobs, places, quantities, counts) on "
                                                           "every LoCoMo and MemoryBank turn too")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    fp = fingerprint(TUNE_FILES if args.tune else STORY_FILES, args.readers)
    fp["seconds"] = round(time.perf_counter() - t0, 1)
    summary = {p: {n: {k: v for k, v in r.items() if k != "items"} for n, r in fp[p].items()} for p in fp
               if p != "seconds"}
    status = 0
    if args.compare:
        diffs = compare(fp, json.loads(Path(args.compare).read_text(encoding="utf-8")))
        fp["compared_with"] = args.compare
        fp["identical"] = not diffs
        fp["differences"] = diffs
        status = 1 if diffs else 0
    if not args.items:
        fp.update(summary)
    Path(args.out).write_text(json.dumps(fp, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    if args.compare:
        print("identical" if not fp["differences"] else "\n".join(fp["differences"]))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
