"""Polysemy dev set: does retrieval keep the senses of an ambiguous word apart?

Each case: a user's history holds one ambiguous word in two senses, each in its own session (a few turns); the
current conversation (``context``) and the query point at one session. A case **passes** when the top hit is
from the right session and no memory of the case's wrong-sense session is in the top 3. Two modes: each case
alone (its own user), and ``pooled`` (all cases in one user's history: every other case is a distractor).

- Chinese: ``anchormem/data/polysemy_zh.json`` (written by hand, 8 words × 2 senses × 2 probes = 32 cases).
- English: built at run time from CoarseWSD-20 (train split, CC BY-NC 4.0, not shipped with the package):
  for 12 words whose two senses lie in different domains, 2 sessions of 3 sentences per sense, a context of
  2 other sentences of the target sense, and a query quoting the target session's use of the word.
  Found via ``$ANCHORMEM_COARSEWSD`` or ``shared/datasets/coarsewsd20`` next to / above the working directory.

Variants: ``dense`` (pure vector, no anchoring: the baseline), ``hybrid`` (dense + BM25, no anchoring),
``anchored`` (the ``anchored`` recipe: hybrid + context anchoring with the query's conversation).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["run_polysemy", "format_table", "load_cases", "Case"]

EN_WORDS: dict[str, tuple[str, str]] = {  # word -> (sense A, sense B) class ids, senses in different domains
    "apple": ("0", "1"), "bank": ("0", "1"), "crane": ("0", "1"), "java": ("0", "1"), "pitcher": ("0", "1"),
    "pound": ("0", "1"), "seal": ("0", "2"), "chair": ("0", "1"), "club": ("0", "1"), "mole": ("0", "1"),
    "trunk": ("0", "1"), "hood": ("0", "1"),
}


@dataclass
class Case:
    id: str
    lang: str
    word: str
    target: str  # session key
    wrong: list[str]  # session keys of the other senses
    context: list[str]
    query: str
    sessions: dict[str, list[str]] = field(default_factory=dict)  # the case's own history


def _zh_cases() -> list[Case]:
    data = json.loads(resources.files("anchormem.data").joinpath("polysemy_zh.json").read_text("utf-8"))
    out: list[Case] = []
    for w in data["words"]:
        word, senses = w["word"], w["senses"]
        for sname, sense in senses.items():
            for i, probe in enumerate(sense["probes"]):
                hist = {f"zh/{word}/{s}/{i}": senses[s]["sessions"][i] for s in senses}
                out.append(Case(id=f"zh/{word}/{sname}/{i}", lang="zh", word=word, target=f"zh/{word}/{sname}/{i}",
                                wrong=[k for k in hist if k != f"zh/{word}/{sname}/{i}"], context=probe["context"],
                                query=probe["query"], sessions=hist))
    return out


def _coarsewsd_dir() -> Path | None:
    env = os.environ.get("ANCHORMEM_COARSEWSD")
    cands = [Path(env)] if env else []
    here = Path.cwd().resolve()
    for base in [here, *here.parents][:4]:
        cands += [base / "shared/datasets/coarsewsd20", base.parent / "shared/datasets/coarsewsd20"]
    cands.append(Path("/work/shared/datasets/coarsewsd20"))
    for c in cands:
        if (c / "bank" / "train.data.txt").is_file():
            return c
    return None


def _detok(s: str) -> str:
    s = re.sub(r" ([,.;:!?%)'])", r"\1", s)
    s = re.sub(r"([($]) ", r"\1", s).replace(" n't", "n't").replace(" 's", "'s")
    return s[:1].upper() + s[1:]


def _en_cases(seed: int = 7) -> list[Case]:
    root = _coarsewsd_dir()
    if root is None:
        return []
    rng = random.Random(seed)
    out: list[Case] = []
    for word, (sa, sb) in EN_WORDS.items():
        lines = (root / word / "train.data.txt").read_text("utf-8").splitlines()
        gold = (root / word / "train.gold.txt").read_text("utf-8").splitlines()
        by: dict[str, list[tuple[int, list[str]]]] = {sa: [], sb: []}
        for ln, g in zip(lines, gold):
            g = g.strip()
            if g in by:
                idx, sent = ln.split("\t", 1)
                toks = sent.split()
                if 8 <= len(toks) <= 32:
                    by[g].append((int(idx), toks))
        for g in by:
            rng.shuffle(by[g])
        sess: dict[str, list[list[str]]] = {}
        probes: dict[str, list[tuple[list[str], str]]] = {}
        for g in (sa, sb):
            pool = by[g]
            sess[g], probes[g] = [], []
            for i in range(2):
                chunk = pool[i * 5 : i * 5 + 5]
                turns = [_detok(" ".join(t)) for _, t in chunk[:3]]
                idx, toks = chunk[0]
                window = " ".join(toks[max(0, idx - 3) : idx + 4])
                sess[g].append(turns)
                probes[g].append(([_detok(" ".join(t)) for _, t in chunk[3:5]],
                                  f"What did I say about \"{_detok(window)}\"?"))
        for g, o in ((sa, sb), (sb, sa)):
            for i in range(2):
                key, wkey = f"en/{word}/{g}/{i}", f"en/{word}/{o}/{i}"
                ctx, q = probes[g][i]
                out.append(Case(id=key, lang="en", word=word, target=key, wrong=[wkey], context=ctx, query=q,
                                sessions={key: sess[g][i], wkey: sess[o][i]}))
    return out


def load_cases() -> list[Case]:
    """English (if CoarseWSD-20 is found) and Chinese cases."""
    return _en_cases() + _zh_cases()


VARIANTS = ("dense", "hybrid", "anchored")


def _recipes() -> dict[str, Any]:
    from ..retrieval.config import RECIPES

    return {"dense": RECIPES["dense"], "hybrid": RECIPES["hybrid_rrf"], "anchored": RECIPES["anchored"]}


def run_polysemy(*, embedder: Any = None, pooled: bool = True,
                 progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the dev set. Returns ``{"cases": {lang: n}, "per_case": {variant: {lang: {pass, total, rate}}},
    "pooled": {...}, "failures": {mode: {variant: [case ids]}}}``."""
    from ..memory import Memory

    cases = load_cases()
    say = progress or (lambda _m: None)
    mem = Memory(":memory:", embedder=embedder)
    recipes = _recipes()
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    result: dict[str, Any] = {"cases": {}, "per_case": {}, "pooled": {}, "failures": {}}
    for c in cases:
        result["cases"][c.lang] = result["cases"].get(c.lang, 0) + 1
    try:
        modes = ["per_case"] + (["pooled"] if pooled else [])
        for mode in modes:
            owner: dict[str, str] = {}  # memory id -> session key
            added: set[tuple[str, str]] = set()
            day = 0
            for n, c in enumerate(cases):
                user = "pooled" if mode == "pooled" else f"case{n}"
                for key, turns in c.sessions.items():
                    if (user, key) in added:
                        continue
                    added.add((user, key))
                    day += 1
                    evs = mem.add([{"role": "user", "content": t} for t in turns], user_id=user,
                                  session_id=key, timestamp=base + timedelta(days=day))
                    for e in evs:
                        owner.setdefault(e.memory.id, key)
            say(f"{mode}: history written")
            stats: dict[str, dict[str, dict[str, float]]] = {}
            fails: dict[str, list[str]] = {}
            for v, cfg in recipes.items():
                st = stats.setdefault(v, {})
                for n, c in enumerate(cases):
                    user = "pooled" if mode == "pooled" else f"case{n}"
                    hits = mem.search(c.query, user_id=user, context=c.context, limit=3, recipe=cfg)
                    keys = [owner.get(h.memory.id) for h in hits]
                    ok = bool(keys) and keys[0] == c.target and not any(k in c.wrong for k in keys[:3])
                    s = st.setdefault(c.lang, {"pass": 0, "total": 0})
                    s["pass"] += ok
                    s["total"] += 1
                    if not ok:
                        fails.setdefault(v, []).append(c.id)
                for s in st.values():
                    s["rate"] = round(s["pass"] / s["total"], 4) if s["total"] else 0.0
                say(f"{mode}/{v}: " + ", ".join(f"{k} {s['pass']}/{s['total']}" for k, s in st.items()))
            result[mode] = stats
            result["failures"][mode] = fails
    finally:
        mem.close()
    return result


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table: pass rate per mode, variant and language."""
    langs = sorted(result.get("cases", {}))
    head = f"{'mode':<9} {'variant':<9} " + " ".join(f"{lang + ' pass':>16}" for lang in langs)
    rows = [head, "-" * len(head)]
    for mode in ("per_case", "pooled"):
        for v, st in result.get(mode, {}).items():
            cells = []
            for lang in langs:
                s = st.get(lang)
                cells.append(f"{s['pass']:>3}/{s['total']:<3} {100 * s['rate']:5.1f}%" if s else f"{'-':>16}")
            rows.append(f"{mode:<9} {v:<9} " + " ".join(f"{c:>16}" for c in cells))
    return "\n".join(rows)
