"""Polysemy dev set: does retrieval keep the senses of an ambiguous word apart?

A case: a user's history holds one ambiguous word in two (or more) senses, each in its own session (3 turns);
a current conversation (``context``, 2 turns) and a query point at one session. A case **passes** when the top
hit is from the right session and no memory of the case's wrong-sense session(s) is in the top 3. Two modes:
each case alone (its own user), and ``pooled`` (all cases in one user's history: every other case is a
distractor).

Design (realism): in the target use case the query is usually short and ambiguous ("what did I say about the
bank?", "苹果怎么样了？") and the *conversation* disambiguates. So most cases are **neutral**: the query is a
template holding only the ambiguous word, and the sense must come from the context. A minority are **sense**
cases, where the query carries sense words itself (English: a window of the target session's own sentence;
Chinese: a hand-written question such as "我的苹果升级后出了什么问题？"). Case ids end in ``/neutral`` or ``/sense``.

- Chinese (group ``zh``): ``anchormem/data/polysemy_zh.json``, written by hand: 8 words × 2 senses × 2 probes,
  each probe used with its own (sense) query and with a neutral template query = 64 cases. Group
  ``zh_heldout``: ``anchormem/data/polysemy_zh_heldout.json``, 6 more words in the same format (48 cases), written
  before the labeller was tuned and never used for tuning; none of its words appears in the taxonomy.
- English: built at run time from CoarseWSD-20 (train split, CC BY-NC 4.0, not shipped with the package). For
  each word, two senses lying in different domains; per sense 2 slots, each with a session of 3 sentences and a
  context of 2 *other* sentences of the same sense. Slot 0 → a neutral case; slot 1 → a neutral and a sense
  case (6 cases per word). Words are split before any tuning: group ``en`` = the 12 dev words of
  :data:`EN_WORDS` (72 cases; the ones the labeller was developed on), group ``en_heldout`` = the 7 words of
  :data:`EN_HELDOUT` (42 cases; a check that nothing was tuned per word). Found via ``$ANCHORMEM_COARSEWSD`` or
  ``shared/datasets/coarsewsd20`` next to / above the working directory. CoarseWSD's labels come from Wikipedia
  links and are noisy (e.g. an "apple's iOS 5" sentence filed under the fruit): sentences whose label a blind
  audit found wrong or undecidable (``anchormem/data/coarsewsd20_audit.json``: 15 of the 590 sentences the
  builder can draw, each with its reason) are left out, and the next sentence of the shuffled pool takes their
  place; ``audit=False`` builds the cases from the raw labels (reported beside the audited figure).

Lexicons and prototypes must stay general domain vocabulary: never add a case's own words to pass it. A test
checks (:func:`benchmark_words`) that no prototype phrase contains an ambiguous word of this set, that no lexicon
entry is one (English in any inflection; unambiguous Chinese compounds such as 苹果手机 "iPhone" or 手表
"wristwatch" are ordinary vocabulary and stay), and that the Chinese held-out words appear nowhere.

Variants: ``dense`` (pure vector, no anchoring: the baseline), ``hybrid`` (dense + BM25, no anchoring),
``anchored`` (the ``anchored`` recipe: hybrid + context anchoring with the query's conversation).

A robustness check rides along (``switch``, pooled history): every *sense* query asked inside a conversation
about the word's *other* sense (the user switched topics); its own words should still find its session.
"""

from __future__ import annotations

import json
import os
import random
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from .datasets import dataset_path

__all__ = ["run_polysemy", "format_table", "load_cases", "file_cases", "benchmark_words", "Case", "EN_WORDS",
           "EN_HELDOUT", "passes", "pooled_history", "pooled_pass_rates", "sense_of", "word_of"]

EN_WORDS: dict[str, tuple[str, str]] = {  # word -> (sense A, sense B) class ids, senses in different domains
    "apple": ("0", "1"), "bank": ("0", "1"), "crane": ("0", "1"), "java": ("0", "1"), "pitcher": ("0", "1"),
    "pound": ("0", "1"), "seal": ("0", "2"), "chair": ("0", "1"), "club": ("0", "1"), "mole": ("0", "1"),
    "trunk": ("0", "1"), "hood": ("0", "1"),
}
EN_HELDOUT: dict[str, tuple[str, str]] = {  # the other CoarseWSD-20 words with two senses in different domains
    "arm": ("0", "1"), "bow": ("0", "1"), "deck": ("0", "1"), "digit": ("0", "1"), "spring": ("1", "2"),
    "square": ("2", "3"), "yard": ("0", "1"),
}

NEUTRAL_EN = ("What did I say about the {w}?", "Anything new about the {w}?",
              "Remind me what I told you about the {w}.", "What was that about the {w} again?")
NEUTRAL_ZH = ("我之前说的{w}怎么样了？", "{w}的事后来怎么样了？", "我跟你提过的{w}是什么情况？", "关于{w}我说过什么？")


def _neutral(templates: tuple[str, ...], word: str, key: str) -> str:
    return templates[zlib.crc32(key.encode("utf-8")) % len(templates)].format(w=word)


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
    group: str = ""  # en / en_heldout / zh (rates are reported per group)
    kind: str = "sense"  # neutral (template query: the context decides) / sense (the query carries sense words)

    def __post_init__(self) -> None:
        self.group = self.group or self.lang


def _zh_cases(file: str = "polysemy_zh.json", group: str = "zh", lang: str = "zh") -> list[Case]:
    """Cases of a hand-written file (word → senses → ``sessions`` and ``probes``, probe i asked against session i
    of every sense): per probe a sense case (its own query) and a neutral case (a template query)."""
    data = json.loads(resources.files("anchormem.data").joinpath(file).read_text("utf-8"))
    templates = NEUTRAL_ZH if lang == "zh" else NEUTRAL_EN
    out: list[Case] = []
    for w in data["words"]:
        word, senses = w["word"], w["senses"]
        for sname, sense in senses.items():
            for i, probe in enumerate(sense["probes"]):
                key = f"{group}/{word}/{sname}/{i}"
                hist = {f"{group}/{word}/{s}/{i}": senses[s]["sessions"][i] for s in senses}
                wrong = [k for k in hist if k != key]
                for kind, q in (("sense", probe["query"]), ("neutral", _neutral(templates, word, key))):
                    out.append(Case(id=f"{key}/{kind}", lang=lang, word=word, target=key, wrong=wrong,
                                    context=probe["context"], query=q, sessions=hist, group=group, kind=kind))
    return out


#: the second held-out set (issue #23): hand-written English and Chinese cases whose words and senses are in no other
#: set, written before the anchoring changes of that issue were tuned and never used for tuning
HELDOUT2_FILES = {"en_heldout2": ("polysemy_en_heldout2.json", "en"), "zh_heldout2": ("polysemy_zh_heldout2.json", "zh")}


def heldout2_cases() -> list[Case]:
    """The cases of the second held-out set (groups ``en_heldout2``, ``zh_heldout2``; 28 + 16 cases)."""
    return [c for group, (file, lang) in HELDOUT2_FILES.items() for c in _zh_cases(file, group, lang)]


def _coarsewsd_dir() -> Path | None:
    env = os.environ.get("ANCHORMEM_COARSEWSD")
    cands = [Path(env)] if env else []
    here = Path.cwd().resolve()
    for base in [here, *here.parents][:4]:
        cands += [base / "shared/datasets/coarsewsd20", base.parent / "shared/datasets/coarsewsd20"]
    cands.append(dataset_path("coarsewsd20"))
    for c in cands:
        if (c / "bank" / "train.data.txt").is_file():
            return c
    return None


def _detok(s: str) -> str:
    s = re.sub(r" ([,.;:!?%)'])", r"\1", s)
    s = re.sub(r"([($]) ", r"\1", s).replace(" n't", "n't").replace(" 's", "'s")
    return s[:1].upper() + s[1:]


def _audited_out() -> dict[str, set[int]]:
    """{word: 0-based line numbers of CoarseWSD sentences left out by the audit} (module doc)."""
    data = json.loads(resources.files("anchormem.data").joinpath("coarsewsd20_audit.json").read_text("utf-8"))
    return {w: {int(n) for n in lines} for w, lines in data["excluded"].items()}


def _en_cases(seed: int = 7, *, audit: bool = True) -> list[Case]:
    root = _coarsewsd_dir()
    if root is None:
        return []
    skip = _audited_out() if audit else {}
    out: list[Case] = []
    for group, words in (("en", EN_WORDS), ("en_heldout", EN_HELDOUT)):
        for word, senses in words.items():
            out.extend(_en_word_cases(root, word, senses, group, random.Random(f"{seed}/{word}"),
                                      skip.get(word, set())))
    return out


def _en_word_cases(root: Path, word: str, senses: tuple[str, str], group: str, rng: random.Random,
                   skip: set[int] = frozenset()) -> list[Case]:
    sa, sb = senses
    lines = (root / word / "train.data.txt").read_text("utf-8").splitlines()
    gold = (root / word / "train.gold.txt").read_text("utf-8").splitlines()
    pools: dict[str, list[tuple[int, int, list[str]]]] = {sa: [], sb: []}
    for n, (ln, g) in enumerate(zip(lines, gold)):
        g = g.strip()
        if g in pools:
            idx, sent = ln.split("\t", 1)
            toks = sent.split()
            if 8 <= len(toks) <= 32:
                pools[g].append((n, int(idx), toks))
    by: dict[str, list[tuple[int, list[str]]]] = {}
    for g, pool in pools.items():
        rng.shuffle(pool)  # before the audit's cut: a left-out sentence changes only the cases that drew it
        by[g] = [(idx, toks) for n, idx, toks in pool if n not in skip]
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
    out: list[Case] = []
    name = "Java" if word == "java" else word
    for g, o in ((sa, sb), (sb, sa)):
        for i in range(2):
            key, wkey = f"en/{word}/{g}/{i}", f"en/{word}/{o}/{i}"
            ctx, sense_q = probes[g][i]
            queries = [("neutral", _neutral(NEUTRAL_EN, name, key).replace("the Java", "Java"))]
            if i == 1:
                queries.append(("sense", sense_q))
            for kind, q in queries:
                out.append(Case(id=f"{key}/{kind}", lang="en", word=word, target=key, wrong=[wkey], context=ctx,
                                query=q, sessions={key: sess[g][i], wkey: sess[o][i]}, group=group, kind=kind))
    return out


def benchmark_words() -> set[str]:
    """Every ambiguous word of the set: the English CoarseWSD words and the Chinese words of both files."""
    out = set(EN_WORDS) | set(EN_HELDOUT)
    for file in ("polysemy_zh.json", "polysemy_zh_heldout.json", *(f for f, _ in HELDOUT2_FILES.values())):
        data = json.loads(resources.files("anchormem.data").joinpath(file).read_text("utf-8"))
        out |= {w["word"] for w in data["words"]}
    return out


def load_cases(*, audit: bool = True, sets: str = "dev") -> list[Case]:
    """``sets="dev"``: English (if CoarseWSD-20 is found) and Chinese cases (dev ``zh`` and held-out ``zh_heldout``);
    ``"heldout2"``: the second held-out set only (:func:`heldout2_cases`), pooled on its own; ``"all"``: both.
    ``audit``: leave out the CoarseWSD sentences the audit found mislabelled (module doc). Raises ValueError for
    another ``sets``."""
    if sets not in ("dev", "heldout2", "all"):
        raise ValueError(f"sets must be dev, heldout2 or all, not {sets!r}")
    dev = _en_cases(audit=audit) + _zh_cases() + _zh_cases("polysemy_zh_heldout.json", "zh_heldout") \
        if sets != "heldout2" else []
    return dev + (heldout2_cases() if sets != "dev" else [])


VARIANTS = ("dense", "hybrid", "anchored")


def _recipes() -> dict[str, Any]:
    from ..retrieval.config import RECIPES

    return {"dense": RECIPES["dense"], "hybrid": RECIPES["hybrid_rrf"], "anchored": RECIPES["anchored"]}


def sense_of(key: str | None) -> str | None:
    """The sense part of a session key: ``"en/bank/0/1"`` → ``"en/bank/0"`` (None stays None)."""
    return key.rsplit("/", 1)[0] if key else None


def word_of(key: str | None) -> str | None:
    """The word part of a session key: ``"en/bank/0/1"`` → ``"en/bank"`` (None stays None)."""
    return key.rsplit("/", 2)[0] if key else None


def passes(case: Case, keys: list[str | None]) -> bool:
    """The pass test of a case, given the session keys of its ranked hits (None: a memory of no known session): the
    top hit is from the target session (a neutral case: from any session of the target sense, since a template
    query cannot tell two same-sense sessions apart), and no hit of the first 3 is from a wrong session or from a
    session of the same word in another sense."""
    top_ok = bool(keys) and (keys[0] == case.target if case.kind == "sense"
                             else sense_of(keys[0]) == sense_of(case.target))
    wrong = any(k in case.wrong or (word_of(k) == word_of(case.target) and sense_of(k) != sense_of(case.target))
                for k in keys[:3] if k)
    return top_ok and not wrong


def file_cases(files: list[str]) -> list[Case]:
    """The cases of hand-written set files of ``anchormem/data`` (the shape of ``polysemy_zh.json``, with a
    ``lang``): group = the file name without ``polysemy_`` and ``.json``."""
    out: list[Case] = []
    for f in files:
        lang = json.loads(resources.files("anchormem.data").joinpath(f).read_text("utf-8"))["lang"]
        out += _zh_cases(f, f.removeprefix("polysemy_").removesuffix(".json"), lang)
    return out


def pooled_history(mem: Any, cases: list[Case], *, user: str = "pooled") -> dict[str, str]:
    """Write every session of ``cases`` once into one user's history (one :meth:`Memory.add` per session, session
    ``i`` dated 2024-01-01 + ``i`` days, in the order the cases name them). Returns memory id → session key."""
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    sessions = dict((k, t) for c in cases for k, t in c.sessions.items())
    owner: dict[str, str] = {}
    for day, (key, turns) in enumerate(sessions.items(), start=1):
        for e in mem.add([{"role": "user", "content": t} for t in turns], user_id=user, session_id=key,
                         timestamp=base + timedelta(days=day)):
            owner.setdefault(e.memory.id, key)
    return owner


def pooled_pass_rates(mem: Any, cases: list[Case], owner: dict[str, str], config: Any, *, user: str = "pooled"
                      ) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Search every case's query (with its conversation, 3 hits) in the pooled history of :func:`pooled_history`
    with ``config`` (a recipe name or SearchConfig; read-only: access tracking off, so one recipe's searches do not
    move the next one's importance) and apply :func:`passes`. Returns ({group: {pass, total, rate}} for every
    ``group``, ``group/kind`` and ``lang:<lang>``, sorted; the ids of the failed cases)."""
    from ..retrieval.config import recipe

    cfg = recipe(config).model_copy(update={"track_access": False})
    groups: dict[str, dict[str, float]] = {}
    fails: list[str] = []
    for c in cases:
        hits = mem.search(c.query, user_id=user, context=c.context, limit=3, recipe=cfg)
        ok = passes(c, [owner.get(h.memory.id) for h in hits])
        for g in (c.group, f"{c.group}/{c.kind}", f"lang:{c.lang}"):
            s = groups.setdefault(g, {"pass": 0, "total": 0})
            s["pass"] += ok
            s["total"] += 1
        if not ok:
            fails.append(c.id)
    for s in groups.values():
        s["rate"] = round(s["pass"] / s["total"], 4)
    return dict(sorted(groups.items())), fails


def run_polysemy(*, embedder: Any = None, pooled: bool = True, audit: bool = True,
                 progress: Callable[[str], None] | None = None, sets: str = "dev",
                 recipes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the dev set. Returns ``{"cases": {group: n}, "per_case": {variant: {group: {pass, total, rate}}},
    "pooled": {...}, "kinds": {mode: {variant: {"group/kind": {...}}}}, "failures": {mode: {variant: [ids]}},
    "switch": {variant: {group: {...}}}, "audit": bool}`` (``switch``: see :func:`_topic_switch`; with ``pooled``
    only; ``audit`` and ``sets``: see :func:`load_cases`; ``recipes``: {variant name: recipe}, default dense, hybrid
    and anchored).

    Pass: the top hit is from the target session (neutral queries: from any session of the target sense of the
    word, since a template query cannot tell two same-sense sessions apart) and no memory of a session of the
    same word in another sense is in the top 3."""
    from ..memory import Memory
    from .embed_cache import eval_embedder

    cases = load_cases(audit=audit, sets=sets)
    say = progress or (lambda _m: None)
    mem = Memory(":memory:", embedder=eval_embedder(embedder))
    recipes = recipes or _recipes()
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    result: dict[str, Any] = {"cases": {}, "per_case": {}, "pooled": {}, "kinds": {}, "failures": {},
                              "audit": audit}
    for c in cases:
        result["cases"][c.group] = result["cases"].get(c.group, 0) + 1

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
            kinds: dict[str, dict[str, dict[str, float]]] = {}
            fails: dict[str, list[str]] = {}
            for v, cfg in recipes.items():
                st = stats.setdefault(v, {})
                kt = kinds.setdefault(v, {})
                for n, c in enumerate(cases):
                    user = "pooled" if mode == "pooled" else f"case{n}"
                    hits = mem.search(c.query, user_id=user, context=c.context, limit=3, recipe=cfg)
                    ok = passes(c, [owner.get(h.memory.id) for h in hits])
                    for s in (st.setdefault(c.group, {"pass": 0, "total": 0}),
                              kt.setdefault(f"{c.group}/{c.kind}", {"pass": 0, "total": 0})):
                        s["pass"] += ok
                        s["total"] += 1
                    if not ok:
                        fails.setdefault(v, []).append(c.id)
                for s in [*st.values(), *kt.values()]:
                    s["rate"] = round(s["pass"] / s["total"], 4) if s["total"] else 0.0
                say(f"{mode}/{v}: " + ", ".join(f"{k} {s['pass']}/{s['total']}" for k, s in st.items()))
            result[mode] = stats
            result["kinds"][mode] = kinds
            result["failures"][mode] = fails
            if mode == "pooled":
                result["switch"] = _topic_switch(mem, cases, owner, recipes)
                say("switch: " + json.dumps(result["switch"].get("anchored")))
    finally:
        mem.close()
    return result


def _topic_switch(mem: Any, cases: list[Case], owner: dict[str, str], recipes: dict[str, Any]
                  ) -> dict[str, dict[str, dict[str, float]]]:
    """Topic switch (pooled history): each *sense* query asked inside the conversation of the word's *other*
    sense. Its own words should still win: pass = top hit from its target session and no memory of the word's
    other sense in the top 3. Anchoring must not lose much here against the plain recipes."""
    ctx_of = {c.target: c.context for c in cases if c.kind == "neutral"}
    out: dict[str, dict[str, dict[str, float]]] = {}
    for v, cfg in recipes.items():
        st = out.setdefault(v, {})
        for c in cases:
            if c.kind != "sense" or c.wrong[0] not in ctx_of:
                continue
            hits = mem.search(c.query, user_id="pooled", context=ctx_of[c.wrong[0]], limit=3, recipe=cfg)
            keys = [owner.get(h.memory.id) for h in hits]
            ok = bool(keys) and keys[0] == c.target and not any(
                k and word_of(k) == word_of(c.target) and sense_of(k) != sense_of(c.target) for k in keys)
            s = st.setdefault(c.group, {"pass": 0, "total": 0})
            s["pass"] += ok
            s["total"] += 1
        for s in st.values():
            s["rate"] = round(s["pass"] / s["total"], 4) if s["total"] else 0.0
    return out


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table: pass rate per mode, variant and group (en, en_heldout, zh)."""
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
    for v, st in result.get("switch", {}).items():
        cells = [f"{st[g]['pass']:>3}/{st[g]['total']:<3} {100 * st[g]['rate']:5.1f}%" if g in st else f"{'-':>16}"
                 for g in langs]
        rows.append(f"{'switch':<9} {v:<9} " + " ".join(f"{c:>16}" for c in cells))
    return "\n".join(rows)
