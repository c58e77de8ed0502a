"""Where pooled polysemy failures come from (issue #23): per recipe, pass/fail counts by the anchoring gate of the
top hit and by whether the conversation's session signal points at the target (its mean passage embedding's
cosine with each of the case's sessions, centered on the mean of all sessions; the case's own sessions only, so an
upper bound for a search that must find them), and offline the accuracy of lexicon-free session signals (the
conversation's and the query's centered cosines with each of the case's sessions, mean or best turn, and their
sums) per kind (neutral / sense). Aggregates only; ``--cases`` also prints each failed case with its top hits (never
on a held-out set you may only read aggregates of).
Run: PYTHONPATH=src python bench/anchor_sessions_diag.py --files polysemy_en_heldout2.json,polysemy_zh_heldout2.json
[--recipes anchored,anchored+anchor_sessions_decide=true] [--cases] [--out FILE.json]; ``--files dev``: the dev set."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from anchormem import Memory
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import file_cases, load_cases, passes, pooled_history, sense_of
from anchormem.retrieval.config import parse_recipe_spec, recipe


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    return m / np.maximum(np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)


def signals(cases: list, emb) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """(per case id: the conversation's centered mean-cosine with each of its sessions; per kind:signal: [right,
    total]) for the offline signals of the module doc."""
    sess = dict((k, t) for c in cases for k, t in c.sessions.items())
    tv = {k: _unit(emb.embed_documents(v)) for k, v in sess.items()}
    center = _unit(np.vstack(list(tv.values())).mean(0))
    per_case: dict[str, dict[str, float]] = {}
    acc: dict[str, list[int]] = {}
    for c in cases:
        conv = _unit(_unit(emb.embed_documents(c.context)).mean(0))
        q = _unit(np.asarray(emb.embed_query(c.query)))
        keys = [c.target] + c.wrong

        def cos(vec: np.ndarray, k: str, how: str) -> float:
            t, v = tv[k] - center, vec - center
            s = t @ v / (np.linalg.norm(t, axis=1) * np.linalg.norm(v))
            return float(s.mean() if how == "mean" else s.max())
        sig = {f"{who}_{how}": {k: cos(vec, k, how) for k in keys}
               for who, vec in (("conv", conv), ("query", q)) for how in ("mean", "max")}
        for how in ("mean", "max"):
            sig[f"conv+query_{how}"] = {k: sig[f"conv_{how}"][k] + sig[f"query_{how}"][k] for k in keys}
        per_case[c.id] = sig["conv_mean"]
        for name, d in sig.items():
            r = acc.setdefault(f"{c.kind}:{name}", [0, 0])
            r[0] += max(d, key=d.get) == c.target
            r[1] += 1
    return per_case, {k: {"right": a, "total": b} for k, (a, b) in sorted(acc.items())}


def main(argv: list[str]) -> dict:
    files = [f for f in _arg(argv, "--files", "dev").split(",") if f]
    cases = load_cases(sets="dev") if files == ["dev"] else file_cases(files)
    emb = eval_embedder()
    per_case, offline = signals(cases, emb)
    out: dict = {"files": files, "cases": len(cases), "offline_signals": offline, "recipes": {}}
    with Memory(":memory:", embedder=emb) as mem:
        owner = pooled_history(mem, cases, user="diag")
        for name in _arg(argv, "--recipes", "anchored").split(","):
            cfg = recipe(parse_recipe_spec(name)).model_copy(update={"track_access": False})
            by: dict[str, int] = {}
            for c in cases:
                hits = mem.search(c.query, user_id="diag", context=c.context, limit=3, recipe=cfg)
                keys = [owner.get(h.memory.id) for h in hits]
                ok = passes(c, keys)
                a0 = hits[0].explain.get("anchor", {}) if hits else {}
                gate = a0.get("gate")
                if a0.get("sessions_decided"):
                    gate = f"{gate}+sessions"  # as the result files name it
                sims = per_case[c.id]
                right = max(sims, key=sims.get) == c.target
                top = "top_sense_ok" if keys and sense_of(keys[0]) == sense_of(c.target) else "top_sense_wrong"
                key = f"{'pass' if ok else 'fail'}/{c.kind}/gate={gate}/session_signal_{'right' if right else 'wrong'}"
                if not ok:
                    key += "/" + top
                by[key] = by.get(key, 0) + 1
                if not ok and "--cases" in argv:
                    print("FAIL", c.id, "|", c.query, "|", {k.rsplit("/", 2)[-2]: round(v, 3) for k, v in sims.items()})
                    for h, k in zip(hits, keys):
                        a = h.explain.get("anchor", {})
                        print("   ", k, round(h.score, 4), a.get("gate"), a.get("context_sim"), h.memory.text[:70])
            out["recipes"][name] = dict(sorted(by.items()))
    return out


if __name__ == "__main__":
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__)
        sys.exit(0)
    res = main(sys.argv[1:])
    print(json.dumps(res, ensure_ascii=False, indent=1))
    if "--out" in sys.argv:
        Path(_arg(sys.argv, "--out", "")).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n")
