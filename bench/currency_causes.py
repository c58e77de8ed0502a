"""Group the ``data_model`` failures of a ``bench/currency.py`` result by cause (a diagnostic for issue #22).

    nice -n 10 python bench/currency_causes.py --stories bench/data/currency_stories_gen3.json \
        --results bench/results/currency_gen3.json [--out bench/results/causes_gen3.json]

For each failed check classed ``data_model`` it replays the story into a fresh ``Memory(":memory:")`` (the cached
eval embedder, as the benchmark) in a *control* where nothing changed, to tell a currency fault from a recall
fault of the answering side that would fail without any change:

- ``current``: only the change turn(s) (every turn but the first) are added; does ``ask(question)`` cite the
  current value? No: ``recall: the change turn does not answer the question``; yes: ``currency: ...``.
- ``past``: only the turns up to the one that said the old value; does ``ask(past_question)`` cite it (or, when the
  past question passed, ``search(question)`` rank it first)? No: ``recall``; yes: ``currency``.
- ``kept``: only the first turn; does ``ask(keep question)`` (a non-change: ``ask(question)``) cite the kept value?
  No: ``recall``; yes: ``currency`` (the change closed, hid or outranked the other fact).
- ``context``: always ``currency``.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.facts.claims import without_past_words

import currency as bench


def _story(story: dict, keep: list[int]) -> dict:
    return {**story, "kind": "replay", "turns": [t for i, t in enumerate(story["turns"]) if i in keep]}


def _cites(ans, value: str) -> bool:
    return not ans.abstained and any(bench._has(c.text, value) for c in ans.citations)


def cause(story: dict, check: str, res: dict, n: int) -> str:
    m = Memory(":memory:", embedder=eval_embedder())
    user = f"c{n}"
    turns = story["turns"]
    if check == "context":
        return "currency: context shows a superseded line as current"
    if check == "current":
        bench._add_all(m, _story(story, list(range(1, len(turns)))), user)
        ok = any(_cites(m.ask(story["question"], user_id=user), v) for v in story["current"])
        return ("currency: the change turn answers alone, not beside the old one" if ok else
                "recall: the change turn does not answer the question even alone")
    if check == "past":
        old = story["superseded"]
        said = next(i for i, t in enumerate(turns) if bench._has(t["text"], old))
        bench._add_all(m, _story(story, list(range(said + 1))), user)
        if res["notes"]["past"]["past_question"]:
            hits = m.search(story["question"], user_id=user)
            ok = bool(hits) and bench._has(hits[0].memory.text, old)
            return "currency: as_of search ranks another first" if ok else "recall: search ranks another first even before the change"
        ok = _cites(m.ask(without_past_words(story["past_question"]), user_id=user), old)
        return ("currency: the past question misses the superseded value" if ok else
                "recall: the past question (its past words off) is not answered even before the change")
    if check == "kept":
        if story["kind"] == "nonchange":
            bench._add_all(m, _story(story, [0]), user)
            ok = any(_cites(m.ask(story["question"], user_id=user), v) for v in story["current"])
            return ("currency: a non-change hides the kept fact" if ok else
                    "recall: the kept fact does not answer the question even alone")
        bench._add_all(m, _story(story, [0]), user)
        ok = _cites(m.ask(story["keep"]["question"], user_id=user), story["keep"]["value"])
        return ("currency: the change closed or outranked the kept fact" if ok else
                "recall: the keep question is not answered even before the change")
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stories", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    stories = {s["id"]: s for s in json.loads(Path(args.stories).read_text(encoding="utf-8"))["stories"]}
    results = json.loads(Path(args.results).read_text(encoding="utf-8"))["results"]
    groups: dict[str, list[str]] = collections.defaultdict(list)
    n = 0
    for r in results:
        for check, cls in r.get("failures", {}).items():
            if cls != "data_model":
                continue
            n += 1
            groups[f"{check} | {cause(stories[r['id']], check, r, n)}"].append(r["id"])
    out = {"stories": Path(args.stories).name, "results": Path(args.results).name, "data_model": n,
           "causes": {k: {"n": len(v), "ids": v} for k, v in sorted(groups.items(), key=lambda kv: -len(kv[1]))}}
    for k, v in out["causes"].items():
        print(f"{v['n']:3d}  {k}")
    if args.out:
        Path(args.out).write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
