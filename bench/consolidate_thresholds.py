"""Measure the near-duplicate thresholds of ``anchormem.consolidate`` (MERGE_MIN_COSINE, MERGE_MIN_OVERLAP) on real
turns, with the default embedder. Writes bench/results/consolidate_thresholds.json.

Data: LoCoMo (English, ``--conversations`` conversations, every turn of each speaker) and MemoryBank (Chinese, the
user turns of ``--mb-users`` users). Per speaker, memories are embedded as ``add`` embeds them ("speaker: text").

- *distinct pairs*: every pair of two different turns of one speaker (different normalised text). Any of them
  passing both thresholds would be a false merge (the top pairs are listed so they can be read).
- *restatements* (positives): each real turn rewritten the way people repeat themselves: end punctuation and case
  changed, a filler word added ("really", "actually" / "真的"), a contraction expanded ("I'm" → "I am").
  Share merged = recall of the merge rule.
- *value changes* (must never merge): a number changed, a negation added. Reported with and without
  ``same_values`` (the value guard), to show what the guard blocks.

Run: python bench/consolidate_thresholds.py [--conversations 2] [--mb-users 5]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from itertools import combinations
from pathlib import Path


from anchormem.consolidate import MERGE_MIN_COSINE, MERGE_MIN_OVERLAP, same_values, text_overlap
from anchormem.embedders import make_embedder
from anchormem.ingest.classify import content_hash, is_chitchat
from anchormem.ingest.pipeline import embedding_text
from anchormem.types import MemoryItem

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "datasets"
OUT = ROOT / "bench" / "results" / "consolidate_thresholds.json"
COSINES = [0.90, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98]
OVERLAPS = [0.5, 0.6, 0.7, 0.75, 0.8, 0.9]
_T0 = "2024-01-01T00:00:00Z"


def locomo_speakers(n: int) -> dict[str, list[str]]:
    data = json.loads((DATA / "locomo" / "locomo10.json").read_text())
    out: dict[str, list[str]] = {}
    for sample in data[:n]:
        conv = sample["conversation"]
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                for t in turns:
                    out.setdefault(f"{sample['sample_id']}:{t['speaker']}", []).append(t["text"])
    return out


def memorybank_users(n: int) -> dict[str, list[str]]:
    data = json.loads((DATA / "memorybank" / "cn" / "memory_bank_cn.json").read_text())
    out: dict[str, list[str]] = {}
    for name, user in list(data.items())[:n]:
        for day, turns in (user.get("history") or {}).items():
            for t in turns:
                q = (t.get("query") or "").strip()
                if q:
                    out.setdefault(f"mb:{name}", []).append(q)
    return out


def restate(text: str, rng: random.Random) -> str:
    zh = re.search(r"[\u4e00-\u9fff]", text) is not None
    t = text.strip()
    choice = rng.randrange(3)
    if choice == 0:  # end punctuation and case
        t = t.rstrip(".!?。！？") + ("!" if not zh else "！")
        return t if zh else t[0].swapcase() + t[1:]
    if choice == 1:  # a filler word
        if zh:
            return t.replace("我", "我真的", 1) if "我" in t else "真的" + t
        words = t.split()
        words.insert(min(2, len(words)), rng.choice(["really", "actually"]))
        return " ".join(words)
    for a, b in (("I'm", "I am"), ("don't", "do not"), ("it's", "it is"), ("I've", "I have"), ("can't", "cannot"),
                 ("我们", "咱们")):
        if a in t:
            return t.replace(a, b, 1)
    return t + (" 哈哈" if zh else " haha")


def change_value(text: str) -> str | None:
    m = re.search(r"\d+", text)
    if m:
        return text[: m.start()] + str(int(m.group()) + 1) + text[m.end():]
    return None


def negate(text: str) -> str | None:
    for a, b in ((" is ", " is not "), (" am ", " am not "), (" are ", " are not "), (" was ", " was not "),
                 (" love ", " don't love "), (" like ", " don't like "), ("我喜欢", "我不喜欢"), ("我是", "我不是"),
                 ("我想", "我不想"), ("我有", "我没有")):
        if a in text:
            return text.replace(a, b, 1)
    return None


def item(text: str, i: int, speaker: str) -> MemoryItem:
    return MemoryItem(id=f"m{i}", text=text, user_id="u", speaker=speaker, created_at=_T0, valid_from=_T0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conversations", type=int, default=2)
    ap.add_argument("--mb-users", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    emb = make_embedder("auto")
    groups = {**locomo_speakers(args.conversations), **memorybank_users(args.mb_users)}
    t0 = time.perf_counter()
    distinct: list[tuple[float, float, str, str]] = []
    positives: list[tuple[float, float]] = []
    changed: list[tuple[float, float, bool]] = []
    n_turns = 0
    for speaker, texts in groups.items():
        seen: dict[str, str] = {}
        for t in texts:
            if not is_chitchat(t):
                seen.setdefault(content_hash(t, kind="u", source="user", speaker=None), t)
        uniq = list(seen.values())
        n_turns += len(uniq)
        who = speaker.split(":", 1)[1]
        vecs = emb.embed_documents([embedding_text(t, who) for t in uniq])
        sims = vecs @ vecs.T
        for i, j in combinations(range(len(uniq)), 2):
            if sims[i, j] >= 0.85:
                distinct.append((float(sims[i, j]), text_overlap(uniq[i], uniq[j]), uniq[i], uniq[j]))
        variants = [(k, restate(t, rng)) for k, t in enumerate(uniq)]
        vv = emb.embed_documents([embedding_text(v, who) for _, v in variants])
        positives += [(float(vecs[k] @ vv[x]), text_overlap(uniq[k], v)) for x, (k, v) in enumerate(variants)]
        bad = [(k, b) for k, t in enumerate(uniq) for b in (change_value(t), negate(t)) if b]
        if bad:
            bv = emb.embed_documents([embedding_text(b, who) for _, b in bad])
            changed += [(float(vecs[k] @ bv[x]), text_overlap(uniq[k], b),
                         same_values(item(uniq[k], 0, who), item(b, 1, who))) for x, (k, b) in enumerate(bad)]
    grid = []
    for c in COSINES:
        for o in OVERLAPS:
            grid.append({"cosine": c, "overlap": o,
                         "distinct_pairs_merged": sum(1 for s, ov, _, _ in distinct if s >= c and ov >= o),
                         "restatements_merged": round(sum(1 for s, ov in positives if s >= c and ov >= o)
                                                      / max(1, len(positives)), 4),
                         "value_changes_passing_thresholds": sum(1 for s, ov, _ in changed if s >= c and ov >= o),
                         "value_changes_merged_with_guard": sum(1 for s, ov, g in changed
                                                                if s >= c and ov >= o and g)})
    chosen = next(g for g in grid if g["cosine"] == MERGE_MIN_COSINE and g["overlap"] == MERGE_MIN_OVERLAP)
    top = sorted(distinct, reverse=True)[:15]
    result = {
        "embedder": emb.name, "locomo_conversations": args.conversations, "memorybank_users": args.mb_users,
        "speakers": len(groups), "distinct_turns": n_turns,
        "distinct_pairs_cos_ge_0_85": len(distinct), "restatements": len(positives), "value_changes": len(changed),
        "max_distinct_cosine": round(max((d[0] for d in distinct), default=0.0), 4),
        "chosen": chosen, "grid": grid,
        "top_distinct_pairs": [{"cosine": round(s, 4), "overlap": round(o, 3), "a": a, "b": b} for s, o, a, b in top],
        "seconds": round(time.perf_counter() - t0, 1),
    }
    OUT.write_text(json.dumps(result, ensure_ascii=False, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k not in ("grid", "top_distinct_pairs")}, indent=2,
                     ensure_ascii=False))
    for g in grid:
        print(g)
    for p in result["top_distinct_pairs"][:10]:
        print(p)


if __name__ == "__main__":
    main()
