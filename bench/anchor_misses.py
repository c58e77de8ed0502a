"""Why pooled polysemy cases fail (issue #23, anchor13): every case the ``anchored`` recipe fails, with its class.

Per failed case (pooled history, the default recipe, read-only searches): the top 3 with their session keys and the
explain of the top hit (gate, sessions decided, query label source, factor), whether ``hybrid_rrf`` passes it (then
anchoring cost it), the best rank of the target session's memories in the hybrid order (40 hits) and which of
dense/BM25 ranks them, how many sessions hold the query's word among hybrid's 10 best (the holder-session decision
runs for 2-3), and the offline session signal: the conversation's centered mean cosine with each of the case's own
sessions (the query's added for sense cases), as in ``bench/anchor_sessions_diag.py``. Classes (first that applies):

- ``target_absent``: no memory of the target session among hybrid's 40 best (nothing to reorder);
- ``anchoring_cost``: hybrid passes, anchored fails;
- ``sense_read_wrong``: the session signal points at a wrong-sense session;
- ``too_many_holders``: signal right, more than ``anchor_sessions_decide_max`` sessions hold the word (the
  decision does not run) - the word is also said in other cases' sessions;
- ``template_gate``: signal right, gate ``template`` (the decision is off there by default);
- ``decided_wrong_or_weak``: signal right, the holder-session decision ran (or could) and the top is still wrong
  or a wrong-sense memory stays in the top 3;
- ``other``.

Tune sets only: ``--files dev`` or hand-written files; never a held-out set beyond 4 and 6 (check sets: with
``--aggregate``, which keeps only each failure's class, kind, gate and holder count, no case id or text).
Run: PYTHONPATH=src python bench/anchor_misses.py --files polysemy_en_heldout2.json,... [--recipe anchored]
[--out bench/results/anchor13_misses.json] (several ``--files`` groups joined by ``;``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from anchormem import Memory
from anchormem.context.wording import holder_terms
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.polysemy import file_cases, load_cases, passes, pooled_history, sense_of, word_of
from anchormem.retrieval.config import parse_recipe_spec, recipe
from anchormem.text.tokenize import term_coverage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchor_sessions_diag import signals  # noqa: E402


def _arg(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


def _rank(v) -> int | None:
    return None if v is None else int(v)


def analyse(cases: list, recipe_name: str, emb) -> dict:
    per_sig = _signals(cases, emb)
    cfg = recipe(parse_recipe_spec(recipe_name)).model_copy(update={"track_access": False})
    hyb = recipe("hybrid_rrf").model_copy(update={"track_access": False})
    max_sessions = cfg.anchor_sessions_decide_max
    rows, counts = [], {}
    with Memory(":memory:", embedder=emb) as mem:
        owner = pooled_history(mem, cases, user="miss")
        for c in cases:
            hits = mem.search(c.query, user_id="miss", context=c.context, limit=3, recipe=cfg)
            keys = [owner.get(h.memory.id) for h in hits]
            if passes(c, keys):
                continue
            wide = mem.search(c.query, user_id="miss", limit=40, recipe=hyb)
            wkeys = [owner.get(h.memory.id) for h in wide]
            hyb_ok = passes(c, wkeys[:3])
            tgt = [i for i, k in enumerate(wkeys) if (k == c.target if c.kind == "sense" else
                                                      k and word_of(k) == word_of(c.target)
                                                      and sense_of(k) == sense_of(c.target))]
            first = tgt[0] if tgt else None
            ex = wide[first].explain if first is not None else {}
            terms = holder_terms(c.query)
            found = term_coverage(list(terms), [h.memory.text for h in wide[:10]]) if terms else []
            holder_sessions = {wkeys[i] for i, f in enumerate(found) if f}
            sig = per_sig[c.id]
            right = max(sig, key=sig.get) == c.target
            a0 = hits[0].explain.get("anchor", {}) if hits else {}
            gate = a0.get("gate")
            decided = bool(a0.get("sessions_decided"))
            top_ok = bool(keys) and keys[0] is not None and word_of(keys[0]) == word_of(c.target) \
                and sense_of(keys[0]) == sense_of(c.target)
            if first is None:
                cls = "target_absent"
            elif hyb_ok:
                cls = "anchoring_cost"
            elif not right:
                cls = "sense_read_wrong"
            elif len(holder_sessions) > max_sessions:
                cls = "too_many_holders"
            elif gate == "template":
                cls = "template_gate"
            elif len(holder_sessions) >= 2:
                cls = "decided_wrong_or_weak"
            else:
                cls = "other"
            counts.setdefault(c.lang, {}).setdefault(cls, 0)
            counts[c.lang][cls] += 1
            rows.append({
                "id": c.id, "kind": c.kind, "lang": c.lang, "class": cls, "query": c.query,
                "top3": keys, "top_sense_ok": top_ok, "gate": gate, "sessions_decided": decided,
                "query_label_source": a0.get("query_label_source"),
                "query_labels": {k: round(v, 3) for k, v in sorted((a0.get("query_labels") or {}).items(),
                                                                    key=lambda kv: -kv[1])[:3]},
                "top_memory_labels": a0.get("memory_labels"), "top_factor": a0.get("factor"),
                "top_text": hits[0].memory.text[:90] if hits else None,
                "hybrid_pass": hyb_ok, "hybrid_top3": wkeys[:3], "target_hybrid_rank": first,
                "target_dense_rank": _rank(ex.get("dense_rank")), "target_bm25_rank": _rank(ex.get("bm25_rank")),
                "holder_sessions_top10": len(holder_sessions),
                "session_signal": {k.rsplit("/", 2)[-2]: round(v, 3) for k, v in sig.items()},
                "session_signal_right": right,
            })
    return {"failures": len(rows), "classes": counts, "cases": rows}


def _signals(cases: list, emb) -> dict[str, dict[str, float]]:
    """Per case: the conversation's centered session cosines (plus the query's for sense cases)."""
    sess = dict((k, t) for c in cases for k, t in c.sessions.items())
    unit = lambda m: (m := np.asarray(m, dtype=np.float64)) / np.maximum(  # noqa: E731
        np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)
    tv = {k: unit(emb.embed_documents(v)) for k, v in sess.items()}
    center = unit(np.vstack(list(tv.values())).mean(0))
    out = {}
    for c in cases:
        conv = unit(unit(emb.embed_documents(c.context)).mean(0)) - center
        q = unit(np.asarray(emb.embed_query(c.query))) - center
        d = {}
        for k in [c.target, *c.wrong]:
            t = tv[k] - center
            s = float((t @ conv / (np.linalg.norm(t, axis=1) * np.linalg.norm(conv))).mean())
            if c.kind == "sense":
                s += float((t @ q / (np.linalg.norm(t, axis=1) * np.linalg.norm(q))).mean())
            d[k] = s
        out[c.id] = d
    return out


def main(argv: list[str]) -> dict:
    emb = eval_embedder()
    out: dict = {"recipe": _arg(argv, "--recipe", "anchored"), "sets": {}}
    for group in _arg(argv, "--files", "dev").split(";"):
        files = [f for f in group.split(",") if f]
        cases = load_cases(sets="dev") if files == ["dev"] else file_cases(files)
        out["sets"][group] = res = analyse(cases, out["recipe"], emb)
        if "--aggregate" in argv:  # a check set: class counts only, no case is written or printed
            res["cases"] = [{"class": r["class"], "kind": r["kind"], "lang": r["lang"], "gate": r["gate"],
                             "holder_sessions_top10": r["holder_sessions_top10"]} for r in res["cases"]]
        print(group, json.dumps(out["sets"][group]["classes"]), file=sys.stderr)
    total: dict = {}
    for s in out["sets"].values():
        for lang, d in s["classes"].items():
            for k, v in d.items():
                total.setdefault(lang, {}).setdefault(k, 0)
                total[lang][k] += v
    out["classes_total"] = total
    return out


if __name__ == "__main__":
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__)
        sys.exit(0)
    res = main(sys.argv[1:])
    print(json.dumps(res["classes_total"], indent=1))
    if "--out" in sys.argv:
        Path(_arg(sys.argv, "--out", "")).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n")
