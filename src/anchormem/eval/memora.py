"""Memora retrieval evaluation (weekly split; "From Recall to Forgetting: Benchmarking Long-Term Memory for
Personalized Agents", ACL 2026): session and turn recall@k per question type, and how often a retired value comes
back as current.

Every persona's week is ingested through the public API: one user per persona, one :meth:`Memory.add` call per
session (``session_id`` = ``<persona>-<NNNN>``), user turns as ``user`` messages (and, with
``assistant_turns=True``, assistant turns as ``assistant`` messages: off by default, since every gold turn is a user
turn and they double the embedding cost), each carrying ``{"memora_session": n, "memora_turn": t}`` in its
metadata; a session's time
is its ``date`` plus ``session_id`` minutes (the data has no time of day; this keeps the order within a day). The
answer key (``operation_details``, ``session_type``, ``share_memory``) is never indexed. Every question is then
searched as written (``limit`` hits), with each recipe.

- **session recall@k**: share of the question's gold sessions among the first k *distinct* sessions of the ranked
  hits (every ``session_id`` in ``memory_evidence``, and every ``session_history`` list: the dataset README's
  mapping). **turn recall@k**: the same over distinct (session, turn) pairs, gold = the ``share_memory`` turns of
  the gold sessions.
- **retired as current**: a question's retired values are the ``forgetting_evidence`` values that are not also a
  current value of its ``memory_evidence``. A hit *carries* a value when every content word of the value (lower
  case, digits without thousands separators) is among the hit's words; it carries it *as current* when it carries
  a retired value and no current value (an update turn that names the old and the new value is not counted).
  Reported per recipe: ``retired@1`` (the top hit carries a retired value as current) and ``retired@10`` (one of
  the first 10 hits does), over the questions that have retired values; with ``ask=True`` also ``ask_retired``:
  :meth:`Memory.ask` (the Memory's default recipe) cites a memory carrying a retired value as current.

    >>> from anchormem.eval.memora import run_memora, format_table
    >>> result = run_memora("shared/datasets/memora/weekly", recipe=["bm25", "dense", "hybrid_rrf", "anchored"])
    >>> print(format_table(result))

Split: personas are sorted by name; ``tune`` = the first :data:`TUNE_PERSONAS` (0-6), ``heldout`` = the rest
(7-9: sales_manager, software_engineer, startup_founder). Every table is reported for ``all``, ``tune`` and
``heldout``.
"""

from __future__ import annotations

import glob
import json
import os
import re
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
from .harness import RecipeArg, Ticker, check_ks, collect_runs, read_only_configs, recipe_list, search_each
from .tables import md_head, pct

__all__ = ["run_memora", "format_table", "load_memora", "carries", "TASKS", "TUNE_PERSONAS"]

TASKS = ("remembering", "reasoning", "recommending")
#: personas 0..TUNE_PERSONAS-1 (sorted by name) are the tuning split, the rest are held out
TUNE_PERSONAS = 7
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_STOP = frozenset("a an the of to for and or in on at my with by from is are be".split())

def _session_ids(o: Any) -> list[int]:
    """Every ``session_id`` value and ``session_history`` list inside an evidence block (the README's mapping)."""
    if isinstance(o, list):
        return [s for x in o for s in _session_ids(x)]
    if not isinstance(o, dict):
        return []
    out: list[int] = []
    for k, v in o.items():
        if k == "session_id":
            out.append(int(v))
        elif k == "session_history":
            out.extend(int(x) for x in v)
        else:
            out.extend(_session_ids(v))
    return out


def _values(o: Any) -> list[str]:
    """The stated values of an evidence block: ``value``, ``item``, ``description`` leaves (strings or numbers)."""
    if isinstance(o, list):
        return [s for x in o for s in _values(x)]
    if not isinstance(o, dict):
        return []
    out: list[str] = []
    for k, v in o.items():
        if k in ("value", "item", "description") and isinstance(v, (str, int, float)) and not isinstance(v, bool):
            out.append(str(v))
        else:
            out.extend(_values(v))
    return out


def _words(text: str) -> set[str]:
    return set(_WORD.findall(_THOUSANDS.sub("", text.lower())))


def carries(text: str, value: str) -> bool:
    """True when every content word of ``value`` is a word of ``text`` (lower case; "8,000" = "8000"; a value of
    stop words only never matches)."""
    need = _words(value) - _STOP
    return bool(need) and need <= _words(text)


def load_memora(root: str | Path, *, personas: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Read the weekly split: one dict per persona (sorted by name) with ``persona``, ``index`` (its position),
    ``sessions`` (the session files, by ``session_id``) and ``questions`` (``question_id``, ``task``,
    ``question``, ``gold`` sessions, ``gold_turns`` [(session, turn)], ``retired`` sessions, ``retired_values``,
    ``current_values``). Raises InvalidInputError when ``root`` has no persona folders."""
    root = Path(root)
    names = sorted(p.name for p in root.iterdir() if (p / "conversations").is_dir()) if root.is_dir() else []
    if not names:
        raise InvalidInputError(f"{str(root)!r} holds no Memora persona folders (<persona>/conversations/)")
    out = []
    for index, persona in enumerate(names):
        if personas is not None and persona not in personas:
            continue
        sessions = {}
        for f in sorted(glob.glob(str(root / persona / "conversations" / "session_*.json"))):
            s = json.loads(Path(f).read_text(encoding="utf-8"))
            sessions[int(s["session_id"])] = s
        qfile = root / persona / f"evaluation_questions_{persona}.json"
        questions = []
        for task, qs in json.loads(qfile.read_text(encoding="utf-8"))["questions"].items():
            for q in qs:
                gold = sorted(set(_session_ids(q["memory_evidence"])))
                fe = q.get("forgetting_evidence") or {}
                current = {v for v in _values(q["memory_evidence"])}
                retired_values = sorted({v for v in _values(fe) if v not in current and not
                                         any(_words(v) - _STOP == _words(c) - _STOP for c in current)})
                questions.append({
                    "question_id": q["question_id"], "task": task, "question": q["question"], "gold": gold,
                    "gold_turns": sorted((s, t["turn"]) for s in gold for t in sessions[s]["conversation"]
                                         if t.get("share_memory")),
                    "retired": sorted(set(_session_ids(fe))), "retired_values": retired_values,
                    "current_values": sorted(current)})
        out.append({"persona": persona, "index": index, "sessions": sessions, "questions": questions})
    if personas is not None:  # in the order asked
        out.sort(key=lambda p: list(personas).index(p["persona"]))
    return out


def _session_time(date: str, session_id: int) -> datetime:
    return datetime.fromisoformat(date).replace(tzinfo=timezone.utc) + timedelta(minutes=session_id)


def _ingest(mem: Memory, persona: dict[str, Any], progress: Callable[[], None] | None,
            assistant_turns: bool) -> tuple[int, int]:
    turns = memories = 0
    name = persona["persona"]
    for sid in sorted(persona["sessions"]):
        s = persona["sessions"][sid]
        when = _session_time(s["date"], sid)
        msgs = []
        for t in s["conversation"]:
            text = (t.get("message") or "").strip()
            if not text or (t["speaker"] != "user_agent" and not assistant_turns):
                continue
            msgs.append({"role": "user" if t["speaker"] == "user_agent" else "assistant", "content": text,
                         "timestamp": when + timedelta(seconds=int(t["turn"])),
                         "metadata": {"memora_session": sid, "memora_turn": int(t["turn"])}})
        turns += len(msgs)
        if msgs:
            memories += sum(e.event == "ADD" for e in mem.add(msgs, user_id=name, session_id=f"{name}-{sid:04d}",
                                                             timestamp=when))
        if progress:
            progress()
    return turns, memories


def _hit_session(h: Any) -> int | None:
    s = h.memory.metadata.get("memora_session")
    if s is not None:
        return int(s)
    sid = h.memory.session_id or ""
    tail = sid.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _firsts(seq: list[Any], k: int) -> list[Any]:
    out: list[Any] = []
    for x in seq:
        if x is not None and x not in out:
            out.append(x)
            if len(out) == k:
                break
    return out


def _as_current(text: str, q: dict[str, Any]) -> bool:
    return any(carries(text, v) for v in q["retired_values"]) and not any(carries(text, v)
                                                                           for v in q["current_values"])


def _score(q: dict[str, Any], hits: list[Any], ks: Sequence[int]) -> dict[str, Any]:
    sessions = [_hit_session(h) for h in hits]
    turns = [(s, h.memory.metadata.get("memora_turn")) if s is not None and h.memory.metadata.get("memora_turn")
             is not None else None for s, h in zip(sessions, hits)]
    gold, gold_turns = set(q["gold"]), {tuple(t) for t in q["gold_turns"]}
    rec: dict[str, Any] = {"session": {}, "turn": {}, "ranked_sessions": _firsts(sessions, max(ks))}
    for k in ks:
        rec["session"][str(k)] = len(gold.intersection(_firsts(sessions, k))) / len(gold) if gold else None
        rec["turn"][str(k)] = (len(gold_turns.intersection(_firsts(turns, k))) / len(gold_turns)
                               if gold_turns else None)
    if q["retired_values"]:
        flags = [_as_current(h.memory.text, q) for h in hits[:10]]
        rec["retired@1"] = bool(flags[:1] and flags[0])
        rec["retired@10"] = any(flags)
    return rec


def _table(records: list[dict[str, Any]], ks: Sequence[int], key: str = "") -> dict[str, Any]:
    def agg(rs: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(rs)}
        for level in ("session", "turn"):
            for k in ks:
                vals = [r[level][str(k)] for r in rs if r[level][str(k)] is not None]
                out[f"{level}_recall@{k}"] = statistics.fmean(vals) if vals else None
        ret = [r for r in rs if "retired@1" in r]
        out["n_retired"] = len(ret)
        for m in ("retired@1", "retired@10", "ask_retired"):
            vals = [r[m] for r in ret if m in r]
            out[m] = (sum(vals) / len(vals)) if vals else None
        return out

    return {"overall": agg(records), "by_task": {t: agg([r for r in records if r["task"] == t]) for t in TASKS}}


def run_memora(data_root: str | Path, *, ks: Sequence[int] = (1, 5, 10, 20), db_path: str = ":memory:",
               embedder: Embedder | str | None = None, recipe: RecipeArg = None,
               personas: Sequence[str] | None = None, limit: int = 100, ask: bool = True,
               assistant_turns: bool = False,
               progress: Callable[[int, int], None] | None = None, details: bool = False) -> dict[str, Any]:
    """Ingest Memora's weekly split and measure session/turn recall@k and retired-value returns.

    Args:
        data_root: the ``weekly`` folder (``<persona>/conversations/session_NNNN.json`` and
            ``<persona>/evaluation_questions_<persona>.json``).
        ks: cut-offs in distinct sessions / turns.
        db_path: store path (default a throwaway in-memory store). A file that already holds a complete ingest
            holds the personas its ``<db_path>.memora.json`` marker lists as complete (same embedder and data); only
            the others are ingested (a persona is marked after its last session).
        embedder: an Embedder or a name (default: anchormem's default embedder), through
            :func:`anchormem.eval.embed_cache.eval_embedder`.
        recipe: a recipe name or SearchConfig, or a list (ingest once, evaluate each); default: the Memory's.
        personas: only these personas (tests).
        limit: hits per search (distinct sessions are counted within them).
        assistant_turns: also ingest the assistant's turns (role ``assistant``).
        ask: also call :meth:`Memory.ask` per question (the default recipe) for ``ask_retired``.
        progress: ``callable(done, total)``.
        details: per-question records under ``runs[*]["questions"]``.

    Returns a JSON-ready dict: counts, ``ingest_seconds``, ``split`` (persona names per part) and ``runs``: per
    recipe ``search_ms`` and ``tables`` = {``all``, ``tune``, ``heldout``} → {``overall``, ``by_task``} with
    ``session_recall@k``, ``turn_recall@k``, ``retired@1``, ``retired@10`` (and ``ask_retired``), fractions in
    [0, 1]. Raises InvalidInputError for a bad folder or ks.
    """
    ks = check_ks(ks)
    data = load_memora(data_root, personas=personas)
    recipes = recipe_list(recipe)
    n_sessions = sum(len(p["sessions"]) for p in data)
    n_questions = sum(len(p["questions"]) for p in data)
    tick = Ticker(n_sessions + n_questions * (len(recipes) + (1 if ask else 0)), progress)

    emb = eval_embedder(embedder)
    mem = Memory(db_path, embedder=emb)
    marker = Path(f"{db_path}.memora.json") if db_path != ":memory:" else None
    key = {"embedder": mem.embedder.name, "root": str(data_root), "assistant_turns": assistant_turns}
    state = json.loads(marker.read_text()) if marker is not None and marker.exists() else {}
    done_personas: dict[str, list[int]] = state.get("done", {}) if state.get("key") == key else {}
    try:
        t0 = time.perf_counter()
        turns = memories = 0
        reused = []
        for p in data:
            if p["persona"] in done_personas:
                t, m = done_personas[p["persona"]]
                reused.append(p["persona"])
                tick(len(p["sessions"]))  # stored by an earlier run
            else:
                t, m = _ingest(mem, p, tick, assistant_turns)
                done_personas[p["persona"]] = [t, m]
                if marker is not None:  # a persona counts as stored once its last session is
                    marker.write_text(json.dumps({"key": key, "done": done_personas}))
            turns, memories = turns + t, memories + m
        ingest_seconds = time.perf_counter() - t0

        questions = [(p, q) for p in data for q in p["questions"]]

        def score(pq: tuple[dict[str, Any], dict[str, Any]], hits: list[Any]) -> dict[str, Any]:
            p, q = pq
            return {"persona": p["persona"], "split": "tune" if p["index"] < TUNE_PERSONAS else "heldout",
                    "question_id": q["question_id"], "task": q["task"], "question": q["question"],
                    **_score(q, hits, ks)}

        def asked(pq: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
            p, q = pq
            if not q["retired_values"]:
                return {}
            ans = mem.ask(q["question"], user_id=p["persona"])
            return {"ask_retired": any(_as_current(c.text, q) for c in ans.citations)}

        def tables(recs: list[dict[str, Any]]) -> dict[str, Any]:
            return {"tables": {part: _table([r for r in recs if part == "all" or r["split"] == part], ks)
                               for part in ("all", "tune", "heldout")}}

        cfgs = read_only_configs(recipes, mem.search_config)
        results = search_each(mem, questions, cfgs, query=lambda pq: (pq[1]["question"], pq[0]["persona"]),
                              score=score, limit=limit, prepare=asked if ask else None, tick=tick)
        runs = collect_runs(cfgs, results, tables, details=details)
        embedder_name = mem.embedder.name
    finally:
        mem.close()
    return {
        "benchmark": "memora-weekly-retrieval",
        "data_root": str(data_root),
        "embedder": embedder_name,
        "ks": ks,
        "personas": len(data),
        "split": {"tune": [p["persona"] for p in data if p["index"] < TUNE_PERSONAS],
                  "heldout": [p["persona"] for p in data if p["index"] >= TUNE_PERSONAS]},
        "sessions": n_sessions,
        "turns": turns,
        "memories": memories,
        "questions": n_questions,
        "assistant_turns": assistant_turns,
        "ingest_reused": reused,  # personas read from a complete earlier ingest of db_path
        "ingest_seconds": ingest_seconds,
        "runs": runs,
    }


def format_table(result: dict[str, Any]) -> str:
    """Markdown: per recipe × split × task, session and turn recall@k (percent) and retired-as-current rates."""
    ks = result["ks"]
    lines = [f"Memora weekly: {result['personas']} personas, {result['sessions']} sessions, {result['turns']} turns "
             f"({result['memories']} memories), {result['questions']} questions, embedder {result['embedder']}",
             "", *md_head(["recipe", "split", "task"], ["n", *(f"S@{k}" for k in ks), *(f"T@{k}" for k in ks),
                                                       "retired@1", "retired@10", "ask retired"])]
    for name, run in result["runs"].items():
        for part, table in run["tables"].items():
            for task, row in [("overall", table["overall"])] + list(table["by_task"].items()):
                if not row["n"]:
                    continue
                vals = [pct(row[f"session_recall@{k}"]) for k in ks] + [pct(row[f"turn_recall@{k}"]) for k in ks]
                vals += [pct(row["retired@1"]), pct(row["retired@10"]), pct(row["ask_retired"])]
                b = "**" if task == "overall" else ""
                lines.append(f"| {name} | {part} | {b}{task}{b} | {row['n']} | " + " | ".join(vals) + " |")
    return "\n".join(lines)


def default_root() -> str | None:
    """``$ANCHORMEM_MEMORA`` or ``shared/datasets/memora/weekly`` next to / above the working directory."""
    env = os.environ.get("ANCHORMEM_MEMORA")
    if env:
        return env
    here = Path.cwd()
    for d in (here, *here.parents):
        for cand in (d / "shared" / "datasets" / "memora" / "weekly", d.parent / "shared" / "datasets" / "memora" /
                     "weekly"):
            if cand.is_dir():
                return str(cand)
    return None
