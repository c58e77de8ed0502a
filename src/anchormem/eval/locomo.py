"""LoCoMo evidence-recall evaluation (Maharana et al., ACL 2024, "Evaluating Very Long-Term Conversational
Memory of LLM Agents").

Every conversation of ``locomo10.json`` is ingested through the public API (one :meth:`Memory.add` call per
session; each turn is a message carrying its ``dia_id`` in per-message metadata; shared photos add their
caption as `` [photo: caption]``). Every question that cites evidence (all five categories, as in the
paper) is then searched with ``limit=max(ks)``, and recall@k is the share of the question's evidence dia_ids
found among the first k *distinct* dia_ids of the ranked hits. Recall is reported overall and per category, on
the raw file and with the evidence corrections of ``audit_errors.json`` (read from next to the data file).

    >>> from anchormem.eval.locomo import run_locomo, format_table
    >>> result = run_locomo("locomo10.json", recipe=["bm25", "dense", "hybrid_rrf"])
    >>> print(format_table(result))

Reference (LoCoMo paper, Table 3, DRAGON over dialog turns): R@5 56.7, R@10 66.2, R@25 76.7, R@50 82.7.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..embedders import Embedder
from ..errors import InvalidInputError
from ..importers import locomo_turn_text
from ..memory import Memory
from .embed_cache import eval_embedder
from .harness import RecipeArg, Ticker, check_ks, collect_runs, read_only_configs, recipe_list, search_each

__all__ = ["run_locomo", "format_table", "load_locomo", "ingest_locomo", "normalize_evidence", "parse_select",
           "CATEGORY_NAMES"]

#: LoCoMo category numbers → names (the paper's order differs from the numbers).
CATEGORY_NAMES: dict[int, str] = {4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain",
                                  5: "adversarial"}
_CATEGORY_ORDER = (4, 1, 2, 3, 5)
_DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_QID = re.compile(r"^locomo_(\d+)_qa(\d+)$")

def normalize_evidence(evidence: Any) -> list[str]:
    """Clean a LoCoMo evidence list: split entries on spaces/';', normalise leading zeros ("D30:05" → "D30:5",
    "D:11:26" → "D11:26"), drop what is not a dia_id, keep order, drop duplicates."""
    out: dict[str, None] = {}
    for raw in evidence or []:
        for m in _DIA_ID.finditer(str(raw)):
            out.setdefault(f"D{int(m.group(1))}:{int(m.group(2))}", None)
    return list(out)


def _session_time(value: str) -> datetime:
    """"1:56 pm on 8 May, 2023" → aware UTC datetime."""
    v = " ".join(value.split())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(v, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo session date {value!r}")


def _sessions(conv: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    out = []
    for key, turns in conv.items():
        m = _SESSION_KEY.match(key)
        if not m or not isinstance(turns, list) or not turns:
            continue  # conv-26 has date keys for sessions without turns
        n = int(m.group(1))
        out.append((n, _session_time(conv[f"session_{n}_date_time"]), turns))
    out.sort(key=lambda s: s[0])
    return out


_turn_text = locomo_turn_text  # one formatting of LoCoMo turns for the importer and the evals


def ingest_locomo(mem: Memory, samples: list[dict[str, Any]], *, tick: Callable[[], None] | None = None
                  ) -> tuple[int, int]:
    """Store the sessions of LoCoMo ``samples`` (from :func:`load_locomo`) the way every LoCoMo eval does: one
    :meth:`Memory.add` per session (``user_id`` = the sample id, ``timestamp`` = the session's date), each turn with
    text a ``user`` message named by its speaker carrying ``{"dia_id": ...}`` in its metadata (turns without text are
    skipped). ``tick()`` is called after each session. Returns (turns stored, ADD events)."""
    turns = memories = 0
    for s in samples:
        for _n, when, session_turns in _sessions(s["conversation"]):
            msgs = [{"role": "user", "content": text, "name": t.get("speaker"), "timestamp": when,
                     "metadata": {"dia_id": t["dia_id"]}} for t in session_turns if (text := _turn_text(t))]
            turns += len(msgs)
            if msgs:
                memories += sum(e.event == "ADD" for e in mem.add(msgs, user_id=s["sample_id"], timestamp=when))
            if tick:
                tick()
    return turns, memories


def load_locomo(data_path: str | Path, *, conversations: int | None = None, use_audit: bool = True,
                select: Sequence[int] | None = None) -> tuple[list[dict[str, Any]], dict[tuple[int, int], list[str]]]:
    """Read the samples (first ``conversations`` only, if given; or the samples at the 0-based indexes ``select``,
    in that order) and the audit's evidence corrections ``{(sample_index, qa_index): correct_evidence}`` (sample
    index: the position in the returned list; empty when ``use_audit`` is False or no audit file). Raises
    InvalidInputError for a ``select`` index outside the file or given with ``conversations``."""
    path = Path(data_path)
    samples = json.loads(path.read_text(encoding="utf-8"))
    positions = list(range(len(samples)))
    if select is not None:
        if conversations is not None:
            raise InvalidInputError("give conversations (the first N) or select (indexes), not both")
        bad = [i for i in select if not 0 <= i < len(samples)]
        if bad or not select:
            raise InvalidInputError(f"select: conversation indexes in 0-{len(samples) - 1}, got {list(select)}")
        positions = list(dict.fromkeys(select))
        samples = [samples[i] for i in positions]
    elif conversations is not None:
        samples = samples[:conversations]
        positions = positions[:conversations]
    where = {p: i for i, p in enumerate(positions)}
    fixes: dict[tuple[int, int], list[str]] = {}
    audit = path.with_name("audit_errors.json")
    if use_audit and audit.exists():
        for entry in json.loads(audit.read_text(encoding="utf-8")):
            m = _QID.match(str(entry.get("question_id", "")))
            if not m or "correct_evidence" not in entry:
                continue
            si, qi = where.get(int(m.group(1)), -1), int(m.group(2))
            if si < 0 or qi >= len(samples[si]["qa"]):
                continue
            if samples[si]["qa"][qi].get("question") != entry.get("question"):
                continue  # audit written against another version of the file
            ev = normalize_evidence(entry["correct_evidence"])
            if ev:
                fixes[(si, qi)] = ev
    return samples, fixes


def _recall_table(records: list[dict[str, Any]], key: str, ks: Sequence[int]) -> dict[str, Any]:
    def agg(rs: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(rs)}
        for k in ks:
            out[f"recall@{k}"] = (sum(r[key][str(k)] for r in rs) / len(rs)) if rs else None
        return out

    by_cat = {}
    for c in _CATEGORY_ORDER:
        rs = [r for r in records if r["category"] == c]
        if rs:
            by_cat[CATEGORY_NAMES[c]] = agg(rs)
    return {"overall": agg(records), "by_category": by_cat}


def _recalls(ranked: list[str], evidence: list[str], ks: Sequence[int]) -> dict[str, float]:
    ev = set(evidence)
    return {str(k): len(ev.intersection(ranked[:k])) / len(ev) for k in ks}


def run_locomo(data_path: str, *, ks: Sequence[int] = (1, 5, 10, 25, 50), db_path: str = ":memory:",
               embedder: Embedder | str | None = None, recipe: RecipeArg = None, conversations: int | None = None,
               select: Sequence[int] | None = None, use_audit: bool = True, progress: Callable[[int, int], None] | None = None,
               details: bool = False, ingest: bool = True) -> dict[str, Any]:
    """Ingest LoCoMo and measure evidence recall@k.

    Args:
        data_path: ``locomo10.json``; ``audit_errors.json`` is looked for in the same directory.
        ks: cut-offs; the search limit is ``max(ks)``.
        db_path: store path (default a throwaway in-memory store).
        embedder: an Embedder or a name (default: anchormem's default embedder).
        recipe: a search recipe name or SearchConfig, or a list of them (ingest once, evaluate each);
            default: the Memory's default recipe.
        conversations: only the first N samples (tests).
        select: only the samples at these 0-based indexes (a dev / held-out split: ``range(5, 10)``).
        use_audit: also report recall with the audit's corrected evidence.
        progress: ``callable(done, total)`` called after each session ingested and each search.
        details: include per-question records (ranked dia_ids, evidence, recall) under ``runs[*]["questions"]``.
        ingest: False when ``db_path`` already holds this selection's ingest (a store file kept from an earlier
            run with the same data and settings): the searches run on it, ``turns``/``memories`` are then 0.

    Returns a JSON-ready dict: ``ingest_seconds``, counts, and ``runs``: one entry per recipe with
    ``search_ms`` (mean/p50/p95/max latency; with several recipes, queries are embedded once, by the first
    recipe that uses dense search) and ``raw`` / ``audited`` recall tables (``overall`` and
    ``by_category``, recall as fractions in [0, 1]). Searches are read-only (access tracking off,
    :mod:`anchormem.eval.harness`). Raises InvalidInputError for bad ``ks``, ConfigError for an unknown recipe.
    """
    ks = check_ks(ks)
    limit = ks[-1]
    samples, fixes = load_locomo(data_path, conversations=conversations, use_audit=use_audit, select=select)
    recipes = recipe_list(recipe)

    questions = []
    skipped = 0
    for si, s in enumerate(samples):
        for qi, qa in enumerate(s["qa"]):
            ev = normalize_evidence(qa.get("evidence"))
            if not ev:
                skipped += 1
                continue
            questions.append({"sample_id": s["sample_id"], "qa_index": qi, "category": int(qa["category"]),
                              "question": qa["question"], "evidence": ev,
                              "audited_evidence": fixes.get((si, qi), ev)})
    n_sessions = sum(len(_sessions(s["conversation"])) for s in samples)
    tick = Ticker(n_sessions + len(questions) * len(recipes), progress)

    mem = Memory(db_path, embedder=eval_embedder(embedder))
    try:
        t0 = time.perf_counter()
        turns, memories = ingest_locomo(mem, samples, tick=tick) if ingest else (0, 0)
        ingest_seconds = time.perf_counter() - t0

        def score(q: dict[str, Any], hits: list[Any]) -> dict[str, Any]:
            ranked: list[str] = []
            for h in hits:
                d = h.memory.metadata.get("dia_id")
                if d is not None and d not in ranked:
                    ranked.append(d)
            return {**q, "ranked": ranked, "raw": _recalls(ranked, q["evidence"], ks),
                    "audited": _recalls(ranked, q["audited_evidence"], ks)}

        def tables(recs: list[dict[str, Any]]) -> dict[str, Any]:
            out = {"raw": _recall_table(recs, "raw", ks)}
            if use_audit:
                out["audited"] = _recall_table(recs, "audited", ks)
            return out

        cfgs = read_only_configs(recipes, mem.search_config)
        results = search_each(mem, questions, cfgs, query=lambda q: (q["question"], q["sample_id"]), score=score,
                              limit=limit, tick=tick)
        runs = collect_runs(cfgs, results, tables, details=details)
        embedder_name = mem.embedder.name
    finally:
        mem.close()

    return {
        "benchmark": "locomo-evidence-recall",
        "data_path": str(data_path),
        "embedder": embedder_name,
        "ks": ks,
        "conversations": len(samples),
        "sessions": n_sessions,
        "turns": turns,
        "memories": memories,
        "questions": len(questions),
        "skipped_no_evidence": skipped,
        "audited_corrections": sum(1 for q in questions if q["audited_evidence"] != q["evidence"]),
        "ingest_seconds": ingest_seconds,
        "runs": runs,
    }


def format_table(result: dict[str, Any]) -> str:
    """Markdown tables of a :func:`run_locomo` result: one row per recipe × evidence (raw/audited) × category,
    recall in percent, plus a header line with ingest time and counts."""
    ks = result["ks"]
    lines = [
        f"LoCoMo evidence recall: {result['conversations']} conversations, {result['turns']} turns "
        f"({result['memories']} memories), {result['questions']} questions "
        f"({result['skipped_no_evidence']} without evidence skipped), embedder {result['embedder']}, "
        f"ingest {result['ingest_seconds']:.1f} s",
        "",
        "| recipe | evidence | category | n | " + " | ".join(f"R@{k}" for k in ks) + " | search ms (p50/p95) |",
        "|---|---|---|---:|" + "---:|" * len(ks) + "---:|",
    ]
    for name, run in result["runs"].items():
        ms = run["search_ms"]
        lat = f"{ms['p50']:.1f} / {ms['p95']:.1f}" if ms["p50"] is not None else "-"
        for which in ("raw", "audited"):
            table = run.get(which)
            if not table:
                continue
            rows = [("overall", table["overall"])] + list(table["by_category"].items())
            for cat, row in rows:
                vals = " | ".join("-" if row[f"recall@{k}"] is None else f"{100 * row[f'recall@{k}']:.1f}"
                                  for k in ks)
                bold = "**" if cat == "overall" else ""
                lines.append(f"| {name} | {which} | {bold}{cat}{bold} | {row['n']} | {vals} | "
                             f"{lat if cat == 'overall' else ''} |")
    return "\n".join(lines)


def parse_select(spec: str) -> list[int]:
    """Conversation indexes of a split spec, in order: ``"0-4"`` -> [0, 1, 2, 3, 4], ``"0,2,7-9"`` -> [0, 2, 7, 8, 9]
    (the ``select`` of :func:`load_locomo` / :func:`run_locomo`). Raises InvalidInputError on a malformed spec."""
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.strip().partition("-")
        if not a:
            continue
        if not a.isdigit() or (b and not b.isdigit()):
            raise InvalidInputError(f"select: conversation indexes such as 0-4 or 0,2,7-9, got {spec!r}")
        out += list(range(int(a), int(b or a) + 1))
    return out
