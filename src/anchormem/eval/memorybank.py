"""MemoryBank retrieval evaluation (Zhong et al., AAAI 2024, "MemoryBank: Enhancing Large Language Models with
Long-Term Memory"; ``eval_data/`` of zhongwanjun/MemoryBank-SiliconFriend): evidence-turn recall@k of the probing
questions, in Chinese (``cn``) and English (``en``).

The dataset holds 15 users' chats with an AI companion over 10 days (the same chats in both languages) and 100
probing questions, without gold answers. The gold is ``bench/data/memorybank_gold.json`` (hand-labelled: the
(date, turn) of the chat turns that hold each answer, per language; see its ``about``).

Every user's chats are ingested through the public API, one store per language: one ``user_id`` per person (the
name as the dataset spells it, trimmed), one :meth:`Memory.add_many` call per day (``session_id`` =
``<user>-<date>``), each turn a ``user`` message (the user's ``query``) and an ``assistant`` message (the
``response``), timed at the day (09:00 UTC) plus two minutes per turn index, each carrying ``{"mb_date": date,
"mb_turn": index}`` in its metadata. Every answerable question is then searched as written, with each recipe (no
conversation, no abstention: retrieval only).

- **recall@k**: share of the question's evidence turns among the first k *distinct* (date, turn) of the ranked hits.
- **hit@k**: 1 when any evidence or ``also`` turn (a turn that repeats or supports the answer) is among them.

Split (fixed, by position in the dataset): users 0-9 = ``dev``, users 10-14 = ``heldout``; every table is reported
for ``all``, ``dev`` and ``heldout``, per language.

    >>> from anchormem.eval.memorybank import run_memorybank, format_table
    >>> result = run_memorybank("shared/datasets/memorybank", recipe=[None, "bm25", "dense", "hybrid_rrf"])
    >>> print(format_table(result))
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ..embedders import Embedder
from ..errors import InvalidInputError
from ..memory import Memory
from .embed_cache import eval_embedder
from .harness import (RecipeArg, Ticker, check_ks, latency_ms, read_only_configs, recipe_list, search_each,
                      unique_name)
from .tables import md_head, pct

__all__ = ["run_memorybank", "format_table", "load_memorybank", "default_root", "default_gold", "LANGS",
           "DEV_USERS"]

LANGS = ("en", "cn")
#: users 0..DEV_USERS-1 (dataset order) are the dev split, the rest are held out
DEV_USERS = 10
_FILES = {"en": ("en/memory_bank_en.json", "en/probing_questions_en.jsonl"),
          "cn": ("cn/memory_bank_cn.json", "cn/probing_questions_cn.jsonl")}
_GOLD = Path("bench") / "data" / "memorybank_gold.json"



def default_root() -> str | None:
    """``$ANCHORMEM_MEMORYBANK`` or ``shared/datasets/memorybank`` next to / above the working directory (None
    when neither exists)."""
    env = os.environ.get("ANCHORMEM_MEMORYBANK")
    if env:
        return env
    here = Path.cwd()
    for d in (here, *here.parents):
        for cand in (d / "shared" / "datasets" / "memorybank", d.parent / "shared" / "datasets" / "memorybank"):
            if cand.is_dir():
                return str(cand)
    return None


def default_gold() -> str | None:
    """``bench/data/memorybank_gold.json`` of the source checkout this module runs from, or in / above the working
    directory (None when not found)."""
    for d in (Path(__file__).resolve().parents[3], Path.cwd(), *Path.cwd().parents):
        if (d / _GOLD).is_file():
            return str(d / _GOLD)
    return None


def load_memorybank(root: str | Path, gold: str | Path, *, langs: Sequence[str] = LANGS,
                    users: Sequence[int] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Read the chats and the gold: ``{lang: [user]}``, each user a dict with ``index`` (dataset position),
    ``name`` (trimmed), ``split`` (``dev`` / ``heldout``), ``history`` ({date: [{query, response}]}) and
    ``questions`` (``id``, ``question``, ``evidence`` and ``also`` as [(date, turn)], ``answer``,
    ``unanswerable``, ``tags``: the gold's question kinds, e.g. ``dated``). ``users``: only these positions.
    Raises InvalidInputError for a missing file, an unknown language, or a gold file that does not match the
    questions."""
    root, gold = Path(root), Path(gold)
    bad = [lang for lang in langs if lang not in _FILES]
    if bad:
        raise InvalidInputError(f"unknown MemoryBank language(s) {bad}: use {list(LANGS)}")
    if not gold.is_file():
        raise InvalidInputError(f"{str(gold)!r} is not a file (bench/data/memorybank_gold.json)")
    g = json.loads(gold.read_text(encoding="utf-8"))
    by_user: dict[int, list[dict[str, Any]]] = {}
    for q in g["questions"]:
        by_user.setdefault(int(q["user"]), []).append(q)
    out: dict[str, list[dict[str, Any]]] = {}
    for lang in langs:
        chats_f, questions_f = (root / f for f in _FILES[lang])
        if not chats_f.is_file() or not questions_f.is_file():
            raise InvalidInputError(f"{str(root)!r} holds no MemoryBank {lang} files ({_FILES[lang][0]})")
        chats = json.loads(chats_f.read_text(encoding="utf-8"))
        probes = [json.loads(line) for line in questions_f.read_text(encoding="utf-8").splitlines() if line.strip()]
        people = []
        for i, (key, probe) in enumerate(zip(chats, probes)):
            if users is not None and i not in users:
                continue
            texts = next(iter(probe.values()))
            qs = sorted(by_user.get(i, []), key=lambda q: int(q["q"]))
            if len(qs) != len(texts) or any(q[f"question_{lang}"] != texts[int(q["q"])] for q in qs):
                raise InvalidInputError(f"gold {str(gold)!r} does not match the {lang} questions of user {i}")
            people.append({
                "index": i, "name": key.strip(), "split": "dev" if i < DEV_USERS else "heldout",
                "history": chats[key]["history"],
                "questions": [{"id": q["id"], "question": texts[int(q["q"])], "answer": q["answer"],
                               "evidence": [(d, int(t)) for d, t in q["evidence"][lang]],
                               "also": [(d, int(t)) for d, t in q["also"][lang]],
                               "unanswerable": bool(q["unanswerable"][lang]),
                               "tags": list(q.get("tags", []))} for q in qs]})
        if users is not None:
            people.sort(key=lambda p: list(users).index(p["index"]))
        out[lang] = people
    return out


def _day(date: str) -> datetime:
    return datetime.fromisoformat(date).replace(hour=9, tzinfo=timezone.utc)


def _ingest(mem: Memory, person: dict[str, Any]) -> tuple[int, int]:
    """One add_many per day; returns (messages, memories added)."""
    messages = memories = 0
    for date in sorted(person["history"]):
        when, msgs = _day(date), []
        for i, turn in enumerate(person["history"][date]):
            meta = {"mb_date": date, "mb_turn": i}
            t = when + timedelta(minutes=2 * i)
            for role, text, at in (("user", turn.get("query"), t), ("assistant", turn.get("response"),
                                                                      t + timedelta(minutes=1))):
                text = (text or "").strip()
                if text:
                    msgs.append({"role": role, "content": text, "timestamp": at, "metadata": meta})
        if msgs:
            r = mem.add_many(msgs, user_id=person["name"], session_id=f"{person['name']}-{date}", timestamp=when)
            messages += len(msgs)
            memories += int(r.get("ADD", 0)) + int(r.get("ADD_SUPERSEDED", 0))
    return messages, memories


def _ranked(hits: list[Any]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for h in hits:
        d, t = h.memory.metadata.get("mb_date"), h.memory.metadata.get("mb_turn")
        if d is not None and t is not None and (d, int(t)) not in out:
            out.append((d, int(t)))
    return out


def _score(q: dict[str, Any], ranked: list[tuple[str, int]], ks: Sequence[int]) -> dict[str, Any]:
    ev, any_ = set(q["evidence"]), set(q["evidence"]) | set(q["also"])
    first = {key: rank for rank, key in enumerate(ranked, 1)}
    return {"recall": {str(k): len(ev.intersection(ranked[:k])) / len(ev) for k in ks},
            "hit": {str(k): float(bool(any_.intersection(ranked[:k]))) for k in ks},
            "first_rank": min((first[e] for e in any_ if e in first), default=None),
            "ranked": [list(x) for x in ranked[:max(ks)]]}


def _table(records: list[dict[str, Any]], ks: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(records)}
    for k in ks:
        out[f"recall@{k}"] = statistics.fmean(r["recall"][str(k)] for r in records) if records else None
        out[f"hit@{k}"] = statistics.fmean(r["hit"][str(k)] for r in records) if records else None
    return out


def run_memorybank(data_root: str | Path, *, gold: str | Path | None = None, ks: Sequence[int] = (1, 5, 10),
                   embedder: Embedder | str | None = None, recipe: RecipeArg = None,
                   langs: Sequence[str] = LANGS, users: Sequence[int] | None = None, limit: int = 50,
                   progress: Callable[[int, int], None] | None = None, details: bool = False) -> dict[str, Any]:
    """Ingest MemoryBank (per language, a fresh in-memory store) and measure evidence-turn recall@k and hit@k.

    Args:
        data_root: the folder holding ``cn/`` and ``en/`` (``memory_bank_<lang>.json``,
            ``probing_questions_<lang>.jsonl``).
        gold: the gold file (default :func:`default_gold`).
        ks: cut-offs in distinct (date, turn); searches return ``max(limit, max(ks))`` hits.
        embedder: an Embedder or a name (default: anchormem's default embedder), through
            :func:`anchormem.eval.embed_cache.eval_embedder`.
        recipe: a recipe name or SearchConfig, None for the Memory's default, or a list of them (ingest once,
            evaluate each).
        langs: ``en`` and/or ``cn``.
        users: only these user positions (0-14; tests).
        progress: ``callable(done, total)`` after each user ingested and each search.
        details: per-question records under ``runs[name]["questions"]``.

    Returns a JSON-ready dict: counts per language, ``split`` (user names per part), ``unanswerable`` (question ids
    per language, left out), and ``runs``: per recipe name ``recipe`` (its settings), ``search_ms`` per language
    (mean / p50 / p95) and ``tables`` = {lang: {``all`` / ``dev`` / ``heldout``: {``n``, ``recall@k``,
    ``hit@k``}}} and ``by_tag`` = {lang: {tag: the same over all users}}, fractions in [0, 1]. Raises
    InvalidInputError (bad folder, gold, language or ks).
    """
    ks = check_ks(ks)
    gold = gold if gold is not None else default_gold()
    if gold is None:
        raise InvalidInputError("no gold file: pass gold= (bench/data/memorybank_gold.json)")
    data = load_memorybank(data_root, gold, langs=langs, users=users)
    recipes = recipe_list(recipe)
    n_q = {lang: sum(1 for p in people for q in p["questions"] if not q["unanswerable"])
           for lang, people in data.items()}
    tick = Ticker(sum(len(people) for people in data.values()) + sum(n_q.values()) * len(recipes), progress)

    emb = eval_embedder(embedder)
    runs: dict[str, Any] = {}
    counts: dict[str, Any] = {}
    embedder_name = None
    for lang, people in data.items():
        mem = Memory(":memory:", embedder=emb)
        try:
            embedder_name = mem.embedder.name
            t0 = time.perf_counter()
            messages = memories = 0
            for p in people:
                m, a = _ingest(mem, p)
                messages, memories = messages + m, memories + a
                tick()
            counts[lang] = {"users": len(people), "turns": sum(len(ts) for p in people for ts in
                                                               p["history"].values()),
                            "messages": messages, "memories": memories, "questions": n_q[lang],
                            "ingest_seconds": time.perf_counter() - t0}
            cfgs = read_only_configs(recipes, mem.search_config)
            names: list[str] = []
            for r, cfg in zip(recipes, cfgs):
                names.append(unique_name(cfg.name if r is not None else f"default ({cfg.name})", names))
            questions = [(p, q) for p in people for q in p["questions"] if not q["unanswerable"]]

            def score(pq: tuple[dict[str, Any], dict[str, Any]], hits: list[Any]) -> dict[str, Any]:
                p, q = pq
                return {"lang": lang, "id": q["id"], "user": p["index"], "split": p["split"], "tags": q["tags"],
                        "question": q["question"], "evidence": [list(e) for e in q["evidence"]],
                        **_score(q, _ranked(hits), ks)}

            results = search_each(mem, questions, cfgs, query=lambda pq: (pq[1]["question"], pq[0]["name"]),
                                  score=score, limit=max(limit, ks[-1]), tick=tick)
            for name, cfg, (recs, lat) in zip(names, cfgs, results):
                run = runs.setdefault(name, {"recipe": cfg.model_dump(), "search_ms": {}, "tables": {}})
                run["search_ms"][lang] = latency_ms(lat)
                run["tables"][lang] = {part: _table([r for r in recs if part == "all" or r["split"] == part], ks)
                                       for part in ("all", "dev", "heldout")}
                tags = sorted({t for r in recs for t in r["tags"]})
                run.setdefault("by_tag", {})[lang] = {t: _table([r for r in recs if t in r["tags"]], ks)
                                                      for t in tags}
                if details:
                    run.setdefault("questions", []).extend(recs)
        finally:
            mem.close()
    first = next(iter(data.values()), [])
    return {
        "benchmark": "memorybank-evidence-recall",
        "data_root": str(data_root),
        "gold": str(gold),
        "embedder": embedder_name,
        "ks": ks,
        "langs": list(data),
        "split": {"dev": [p["name"] for p in first if p["split"] == "dev"],
                  "heldout": [p["name"] for p in first if p["split"] == "heldout"]},
        "counts": counts,
        "unanswerable": {lang: [q["id"] for p in people for q in p["questions"] if q["unanswerable"]]
                         for lang, people in data.items()},
        "runs": runs,
    }


def format_table(result: dict[str, Any]) -> str:
    """Markdown: one row per recipe × language × split, recall@k and hit@k in percent."""
    ks = result["ks"]
    c = result["counts"]
    lines = ["MemoryBank evidence recall: " + "; ".join(
        f"{lang} {v['users']} users, {v['turns']} turns ({v['memories']} memories), {v['questions']} questions"
        for lang, v in c.items()) + f"; embedder {result['embedder']}",
        "", *md_head(["recipe", "lang", "split"], ["n", *(f"R@{k}" for k in ks), *(f"hit@{k}" for k in ks),
                                                    "search ms p50"])]
    for name, run in result["runs"].items():
        for lang, parts in run["tables"].items():
            p50 = run["search_ms"][lang]["p50"]
            for part, row in parts.items():
                if not row["n"]:
                    continue
                vals = [pct(row[f"recall@{k}"]) for k in ks] + [pct(row[f"hit@{k}"]) for k in ks]
                ms = f"{p50:.1f}" if part == "all" and p50 is not None else ""
                lines.append(f"| {name} | {lang} | {part} | {row['n']} | " + " | ".join(vals) + f" | {ms} |")
    lines += ["", "By question kind (all users; tags from the gold file):", "",
              *md_head(["recipe", "lang", "kind"], ["n", *(f"R@{k}" for k in ks)])]
    for name, run in result["runs"].items():
        for lang, tags in run.get("by_tag", {}).items():
            for tag, row in tags.items():
                lines.append(f"| {name} | {lang} | {tag} | {row['n']} | "
                             + " | ".join(pct(row[f"recall@{k}"]) for k in ks) + " |")
    return "\n".join(lines)
