"""Pooled polysemy pass rates (the pooled mode of :func:`anchormem.eval.polysemy.run_polysemy`: every case's
sessions in one user's history, the same pass test) of several recipes, on the dev cases (``--sets dev``: groups en,
en_heldout, zh, zh_heldout) or on the second held-out set (``--sets heldout2``: en_heldout2, zh_heldout2, written for
issue #23 before tuning and never tuned on; pooled on its own). Per group, per kind (neutral / sense) and per language
(the groups of one language pooled). ``anchored:conversation_query_weight=0.0``: the query as given only (no
conversation query, :mod:`anchormem.retrieval.conversation`), to compare.
Run: nice -n 10 python bench/anchor_heldout.py --sets heldout2 [--recipes hybrid_rrf,anchored]
[--out bench/results/FILE.json]; a recipe may carry settings: ``anchored:anchor_gate_near=0.5``.
``--files polysemy_en_heldout3.json,polysemy_zh_heldout3.json``: instead of ``--sets``, the cases of the given files
of ``anchormem/data`` (same shape as polysemy_zh.json), pooled on their own; group = the file name without
``polysemy_`` and ``.json``, language = the file's ``lang``. ``--help``: this text."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import _zh_cases, load_cases
from anchormem.retrieval.config import recipe


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def _value(v: str):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(v.lower(), v)


def main(argv: list[str]) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    sets = _arg(argv, "--sets", "heldout2")
    names = _arg(argv, "--recipes", "hybrid_rrf,anchored").split(",")
    files = [f for f in _arg(argv, "--files", "").split(",") if f]
    if files:  # hand-written set files of anchormem/data, pooled on their own
        sets = ",".join(files)
        cases = [c for f in files for c in _zh_cases(
            f, f.removeprefix("polysemy_").removesuffix(".json"),
            json.loads(resources.files("anchormem.data").joinpath(f).read_text("utf-8"))["lang"])]
    else:
        cases = load_cases(sets=sets)
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    owner: dict[str, str] = {}
    out: dict = {"sets": sets, "cases": len(cases), "recipes": {}}
    with Memory(":memory:", embedder=eval_embedder()) as mem:
        for day, key, turns in ((d, k, t) for d, (k, t) in enumerate(
                dict((k, t) for c in cases for k, t in c.sessions.items()).items(), start=1)):
            for e in mem.add([{"role": "user", "content": t} for t in turns], user_id="pooled", session_id=key,
                             timestamp=base + timedelta(days=day)):
                owner.setdefault(e.memory.id, key)

        def sense(k):
            return k.rsplit("/", 1)[0] if k else None

        def word(k):
            return k.rsplit("/", 2)[0] if k else None
        for name in names:  # "anchored" or "anchored:anchor_gate_near=0.5:anchor_gate_top=5" (a variant of it)
            base, *upd = name.split(":")
            cfg = recipe(base)
            if upd:
                cfg = recipe(cfg.model_copy(update={k: _value(v) for k, v in (u.split("=") for u in upd)}))
            groups: dict[str, dict[str, int]] = {}
            fails = []
            for c in cases:
                hits = mem.search(c.query, user_id="pooled", context=c.context, limit=3, recipe=cfg)
                keys = [owner.get(h.memory.id) for h in hits]
                top_ok = bool(keys) and (keys[0] == c.target if c.kind == "sense"
                                         else sense(keys[0]) == sense(c.target))
                wrong = any(k in c.wrong or (word(k) == word(c.target) and sense(k) != sense(c.target))
                            for k in keys[:3] if k)
                ok = top_ok and not wrong
                for g in (c.group, f"{c.group}/{c.kind}", f"lang:{c.lang}"):
                    s = groups.setdefault(g, {"pass": 0, "total": 0})
                    s["pass"] += ok
                    s["total"] += 1
                if not ok:
                    fails.append(c.id)
            for s in groups.values():
                s["rate"] = round(s["pass"] / s["total"], 4)
            out["recipes"][name] = {"groups": dict(sorted(groups.items())), "failures": fails}
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    out["cpu_s"] = round(time.process_time() - c0, 1)
    return out


if __name__ == "__main__":
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__)
        sys.exit(0)
    res = main(sys.argv[1:])
    print(json.dumps({n: {g: f"{s['pass']}/{s['total']}" for g, s in r["groups"].items()}
                      for n, r in res["recipes"].items()}, ensure_ascii=False, indent=1))
    if "--out" in sys.argv:
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
