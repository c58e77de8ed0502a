"""Why multi-hop and open-domain evidence misses the top 10 on LoCoMo (tuning conversations 0-5 only).

    python bench/locomo_misses.py --out bench/results/hop13_misses.json [--db /tmp/hop13_dev.db] [--recipe anchored]

Every multi-hop (category 1) and open-domain (category 3) question of conversations 0-5 is searched with the
recipe (``limit=100``); each evidence turn not among the first 10 distinct turns gets one primary class (the first
that applies, in this order) and every flag that holds:

- ``near_miss_crowded``: ranked 11-30 while one session holds >= 4 of the top 10 (near-duplicates crowd it out);
- ``near_miss``: ranked 11-30 otherwise;
- ``same_session_far``: below 30 (or not in the 100) but a turn of its session is in the top 10 (evidence spread
  inside a session already found);
- ``category_members``: shares no content word with the question, which asks for a set of things
  (:func:`anchormem.retrieval.sets.asks_set`: "What activities...", "how many") — the turn names a member
  ("pottery");
- ``caption_only``: the turn carries a photo caption and shares no word with the question outside it;
- ``pronoun``: shares no content word, and refers with a pronoun (it/that/she/...) to what an earlier turn named;
- ``other_speaker``: the question names one speaker and the turn is said by the other, no shared word;
- ``bridge``: shares no content word and none of the above (needs a bridge entity or inference);
- ``shared_word_far``: shares a content word and still ranks below 30.

Flags (not exclusive): ``shared_word``, ``has_caption``, ``pronoun``, ``other_speaker``, ``category_q``,
``session_in_top10``, ``dense_cos`` (question vs turn cosine, for the distribution), rank.
The word lists here describe the questions for the analysis only; nothing here is used by the library.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

import numpy as np

from anchormem.eval.datasets import dataset_path
from anchormem.eval.embed_cache import eval_embedder
from anchormem.eval.locomo import _sessions, _turn_text, ingest_locomo, load_locomo, normalize_evidence
from anchormem.memory import Memory
from anchormem.retrieval.config import parse_recipe_spec
from anchormem.retrieval.sets import asks_set
from anchormem.text.tokenize import query_terms

DATA = str(dataset_path("locomo/locomo10.json"))
CATS = {1: "multi-hop", 3: "open-domain"}
_PRONOUN = re.compile(r"\b(it|its|that|this|those|these|them|they|she|he|her|him|there)\b", re.I)
_STOP = {"what", "which", "who", "when", "where", "why", "how", "does", "did", "do", "is", "are", "was", "were",
         "has", "have", "had", "the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "with", "would",
         "likely", "might", "could", "be", "been", "her", "his", "their", "they", "she", "he", "i", "you", "s"}


def _stem(w: str) -> str:
    w = w.casefold()
    for suf in ("ing", "ies", "es", "ed", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def _words(text: str) -> set[str]:
    return {_stem(w) for w in query_terms(text) if w.casefold() not in _STOP and not w.isdigit()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--db", default=":memory:")
    ap.add_argument("--recipe", default="anchored")
    ap.add_argument("--conversations", type=int, default=6)
    args = ap.parse_args()
    samples, _ = load_locomo(DATA, conversations=args.conversations)
    cfg = parse_recipe_spec(args.recipe)
    emb = eval_embedder(None)
    reuse = args.db != ":memory:" and Path(args.db).exists()
    turns: dict[tuple[str, str], dict] = {}
    for s in samples:
        names = {s["conversation"].get("speaker_a"), s["conversation"].get("speaker_b")}
        for n, _when, sess in _sessions(s["conversation"]):
            for t in sess:
                turns[(s["sample_id"], t["dia_id"])] = {"text": _turn_text(t) or "", "speaker": t.get("speaker"),
                                                         "session": n, "caption": t.get("blip_caption") or "",
                                                         "own": t.get("text") or "", "names": names}
    rows, counts = [], collections.Counter()
    per_cat: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    with Memory(args.db, embedder=emb) as mem:
        if not reuse:
            ingest_locomo(mem, samples)
        for s in samples:
            sid = s["sample_id"]
            for qi, qa in enumerate(s["qa"]):
                cat = int(qa["category"])
                if cat not in CATS:
                    continue
                ev = normalize_evidence(qa.get("evidence"))
                if not ev:
                    continue
                q = qa["question"]
                hits = mem.search(q, user_id=sid, limit=100, recipe=cfg)
                ranked: list[str] = []
                for h in hits:
                    d = h.memory.metadata.get("dia_id")
                    if d is not None and d not in ranked:
                        ranked.append(d)
                top10 = ranked[:10]
                sess10 = collections.Counter(turns[(sid, d)]["session"] for d in top10 if (sid, d) in turns)
                qwords = _words(q)
                qv = np.asarray(emb.embed_query(q), dtype=np.float32)
                named = {n for n in turns[(sid, ev[0])]["names"] if n and re.search(rf"\b{re.escape(n)}\b", q)} \
                    if (sid, ev[0]) in turns else set()
                for d in ev:
                    if d in top10 or (sid, d) not in turns:
                        continue
                    t = turns[(sid, d)]
                    rank = ranked.index(d) + 1 if d in ranked else None
                    tv = np.asarray(emb.embed_documents([t["text"]])[0], dtype=np.float32)
                    cos = float(qv @ tv / ((np.linalg.norm(qv) * np.linalg.norm(tv)) or 1.0))
                    shared = bool(qwords & _words(t["text"]))
                    shared_own = bool(qwords & _words(t["own"]))
                    flags = {
                        "shared_word": shared,
                        "has_caption": bool(t["caption"]),
                        "pronoun": bool(_PRONOUN.search(t["own"])),
                        "other_speaker": bool(named) and len(named) == 1 and t["speaker"] not in named,
                        "category_q": asks_set(q),
                        "session_in_top10": t["session"] in sess10,
                    }
                    if rank is not None and rank <= 30:
                        cls = "near_miss_crowded" if sess10 and max(sess10.values()) >= 4 else "near_miss"
                    elif flags["session_in_top10"]:
                        cls = "same_session_far"
                    elif shared and not (t["caption"] and not shared_own):
                        cls = "shared_word_far"
                    elif flags["category_q"]:
                        cls = "category_members"
                    elif t["caption"] and shared and not shared_own:
                        cls = "caption_only"
                    elif flags["pronoun"]:
                        cls = "pronoun"
                    elif flags["other_speaker"]:
                        cls = "other_speaker"
                    else:
                        cls = "bridge"
                    counts[cls] += 1
                    per_cat[CATS[cat]][cls] += 1
                    for f, v in flags.items():
                        if v:
                            per_cat[CATS[cat]]["flag:" + f] += 1
                    rows.append({"sample_id": sid, "qa_index": qi, "category": CATS[cat], "question": q,
                                 "evidence": d, "turn": t["text"], "rank": rank, "class": cls,
                                 "dense_cos": round(cos, 3), **flags})
                per_cat[CATS[cat]]["questions"] += 1
                per_cat[CATS[cat]]["evidence_turns"] += len(ev)
    out = {"recipe": args.recipe, "conversations": args.conversations, "missed_evidence_turns": len(rows),
           "classes": dict(counts.most_common()), "per_category": {k: dict(v) for k, v in per_cat.items()},
           "dense_cos_median": float(np.median([r["dense_cos"] for r in rows])) if rows else None,
           "misses": rows}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: out[k] for k in ("missed_evidence_turns", "classes", "per_category", "dense_cos_median")},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
