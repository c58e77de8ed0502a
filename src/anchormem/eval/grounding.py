"""LoCoMo abstention / grounded-answer evaluation of :meth:`anchormem.Memory.ask`.

Conversations are ingested exactly as :mod:`anchormem.eval.locomo` does (its session/turn helpers). Then every
question is asked once:

- category 5 (adversarial: the answer is not in the conversation) is correct when ``ask`` abstains;
- categories 1-4 are correct when ``ask`` answers AND cites at least one gold evidence turn (raw evidence, or
  the audit's corrected evidence when ``audit_errors.json`` is next to the data file).

The evidence features of every hit are recorded once, and the main threshold (``min_coverage``) is swept in
memory with :func:`anchormem.answering.evidence.select`, giving a trade-off curve from one run.

    >>> from anchormem.eval.grounding import run_abstention, format_table
    >>> print(format_table(run_abstention("locomo10.json", conversations=2)))
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ..answering.evidence import AnswerConfig, Scored, analyze_question, select
from ..embedders import Embedder
from ..errors import InvalidInputError
from ..memory import Memory
from .harness import Ticker
from .locomo import CATEGORY_NAMES, _sessions, ingest_locomo, load_locomo, normalize_evidence
from .embed_cache import eval_embedder

__all__ = ["run_abstention", "format_table", "DEFAULT_THRESHOLDS"]

DEFAULT_THRESHOLDS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 1.0)
_ORDER = (4, 1, 2, 3, 5)


def _scored(hit_explain: dict[str, Any], index: int) -> Scored:
    ev = hit_explain["evidence"]
    return Scored(index, ev["coverage"], ev["subject_ok"], ev["heavy_ok"], hit_explain.get("dense"), ev["dense_ok"],
                  dict(ev.get("covered", {})), ev.get("group"), ev.get("other_coverage"))


def _rates(records: list[dict[str, Any]], key: str) -> dict[str, Any]:
    by_cat: dict[str, Any] = {}
    for c in _ORDER:
        rs = [r for r in records if r["category"] == c]
        if not rs:
            continue
        if c == 5:
            by_cat[CATEGORY_NAMES[c]] = {"n": len(rs), "abstained": sum(r[key]["abstained"] for r in rs) / len(rs)}
        else:
            by_cat[CATEGORY_NAMES[c]] = {
                "n": len(rs),
                "answered": sum(not r[key]["abstained"] for r in rs) / len(rs),
                "answered_citing_gold": sum(r[key]["cites_gold"] for r in rs) / len(rs),
                "answered_citing_gold_audited": sum(r[key]["cites_gold_audited"] for r in rs) / len(rs),
            }
    ans = [r for r in records if r["category"] != 5]
    adv = [r for r in records if r["category"] == 5]
    return {
        "answerable_n": len(ans),
        "answerable_cited_gold": sum(r[key]["cites_gold"] for r in ans) / len(ans) if ans else None,
        "answerable_cited_gold_audited": sum(r[key]["cites_gold_audited"] for r in ans) / len(ans) if ans else None,
        "answerable_answered": sum(not r[key]["abstained"] for r in ans) / len(ans) if ans else None,
        "adversarial_n": len(adv),
        "adversarial_abstained": sum(r[key]["abstained"] for r in adv) / len(adv) if adv else None,
        "by_category": by_cat,
    }


def _outcome(cited: list[str], q: dict[str, Any]) -> dict[str, Any]:
    return {"abstained": not cited, "cited": cited,
            "cites_gold": bool(set(cited) & set(q["evidence"])),
            "cites_gold_audited": bool(set(cited) & set(q["audited_evidence"]))}


def run_abstention(data_path: str, *, conversations: int | None = None, thresholds: Sequence[float] | None = None,
                   progress: Callable[[int, int], None] | None = None, embedder: Embedder | str | None = None,
                   answer: AnswerConfig | None = None, limit: int = 10, db_path: str = ":memory:",
                   details: bool = False, only: Sequence[int] | None = None,
                   recipe: str | None = None) -> dict[str, Any]:
    """Ingest LoCoMo, ask every question once, and report abstention (category 5) and answered-citing-gold
    (categories 1-4) rates per category, at the configured threshold and swept over ``thresholds``
    (values of ``AnswerConfig.min_coverage``). Offline (extractive) answers: no LLM is used.

    Returns a JSON-ready dict: counts, ``config``, ``at_default`` (rates at the configured threshold),
    ``curve`` (one entry per threshold: ``threshold`` and the same rates), and ``questions`` when ``details``.
    ``only``: 1-based conversation numbers to run instead of the first ``conversations`` (a held-out split, e.g.
    ``(3, 4)``); raises InvalidInputError for a number outside the file. ``recipe``: the search recipe ``ask``
    retrieves with (default: the Memory's default, ``anchored``); recorded as ``recipe`` in the result.
    """
    if only:
        samples, fixes = load_locomo(data_path, conversations=max(only))
        if min(only) < 1 or max(only) > len(samples):
            raise InvalidInputError(f"conversation numbers must be in 1..{len(samples)}, got {sorted(only)}")
        picked = [(i - 1, samples[i - 1]) for i in sorted(set(only))]
    else:
        samples, fixes = load_locomo(data_path, conversations=conversations)
        picked = list(enumerate(samples))
    samples = [s for _, s in picked]
    cfg = answer or AnswerConfig()
    taus = sorted({float(t) for t in (thresholds if thresholds is not None else DEFAULT_THRESHOLDS)})
    questions = []
    for si, s in picked:
        for qi, qa in enumerate(s["qa"]):
            ev = normalize_evidence(qa.get("evidence"))
            cat = int(qa["category"])
            if cat != 5 and not ev:
                continue  # answerable without gold evidence: cannot be scored
            questions.append({"sample_id": s["sample_id"], "qa_index": qi, "category": cat,
                              "question": qa["question"], "evidence": ev, "audited_evidence": fixes.get((si, qi), ev)})
    n_sessions = sum(len(_sessions(s["conversation"])) for s in samples)
    mem = Memory(db_path, embedder=eval_embedder(embedder), answer=cfg, llm=None, search=recipe)
    try:
        t0 = time.perf_counter()
        tick = Ticker(n_sessions + len(questions), progress)
        turns, _added = ingest_locomo(mem, samples, tick=tick)
        ingest_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        records = []
        for q in questions:
            ans = mem.ask(q["question"], user_id=q["sample_id"], limit=limit)
            dia = [h.memory.metadata.get("dia_id") for h in ans.evidence]
            # (a current successor ask cites instead of a superseded hit is appended unscored: no "evidence" features)
            scored = [_scored(h.explain, i) for i, h in enumerate(ans.evidence) if "evidence" in h.explain]
            rec = {**q, "dia": dia, "scored": scored, "terms": analyze_question(q["question"]).terms,
                   "default": _outcome([c.metadata.get("dia_id") for c in ans.citations], q)}
            records.append(rec)
            tick()
        ask_s = time.perf_counter() - t1
        embedder_name = mem.embedder.name
        recipe_name = mem.search_config.name
    finally:
        mem.close()

    curve = []
    for tau in taus:
        key = f"tau={tau}"
        for r in records:
            chosen = select(r["scored"], cfg, min_coverage=tau, terms=r["terms"])
            r[key] = _outcome([r["dia"][s.index] for s in chosen], r)
        curve.append({"threshold": tau, **_rates(records, key)})
    result: dict[str, Any] = {
        "benchmark": "locomo-abstention",
        "data_path": str(data_path),
        "embedder": embedder_name,
        "recipe": recipe_name,
        "conversations": len(samples),
        "conversation_numbers": [si + 1 for si, _ in picked],
        "turns": turns,
        "questions": len(questions),
        "ingest_seconds": ingest_s,
        "ask_ms_mean": 1000 * ask_s / max(1, len(records)),
        "config": cfg.model_dump(),
        "main_threshold": "min_coverage",
        "at_default": _rates(records, "default"),
        "curve": curve,
    }
    if details:
        result["questions_detail"] = [
            {k: v for k, v in r.items() if k in ("sample_id", "qa_index", "category", "question", "evidence",
                                                  "default")} | {"evidence_features": [s.as_dict() | {"dia_id": d}
                                                                  for s, d in zip(r["scored"], r["dia"])]}
            for r in records]
    return result


def format_table(result: dict[str, Any]) -> str:
    """Markdown: per-category rates at the configured threshold, then the trade-off curve."""
    d = result["at_default"]
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}"  # noqa: E731
    lines = [f"LoCoMo grounded ask: {result['conversations']} conversations, {result['questions']} questions, "
             f"embedder {result['embedder']}, min_coverage {result['config']['min_coverage']}, "
             f"ingest {result['ingest_seconds']:.0f} s, ask {result['ask_ms_mean']:.0f} ms/question", "",
             "| category | n | abstained | answered | answered citing gold (raw) | (audited) |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, row in d["by_category"].items():
        if "abstained" in row:
            lines.append(f"| {name} (should abstain) | {row['n']} | **{pct(row['abstained'])}** | "
                         f"{pct(1 - row['abstained'])} | - | - |")
        else:
            lines.append(f"| {name} | {row['n']} | {pct(1 - row['answered'])} | {pct(row['answered'])} | "
                         f"{pct(row['answered_citing_gold'])} | {pct(row['answered_citing_gold_audited'])} |")
    lines.append(f"| **answerable (1-4)** | {d['answerable_n']} | {pct(1 - d['answerable_answered'])} | "
                 f"{pct(d['answerable_answered'])} | **{pct(d['answerable_cited_gold'])}** | "
                 f"{pct(d['answerable_cited_gold_audited'])} |")
    lines += ["", "Trade-off over min_coverage (same run):", "",
              "| min_coverage | adversarial abstained | answerable answered | answerable citing gold (raw) | "
              "(audited) |", "|---:|---:|---:|---:|---:|"]
    for c in result["curve"]:
        lines.append(f"| {c['threshold']:.2f} | {pct(c['adversarial_abstained'])} | {pct(c['answerable_answered'])} "
                     f"| {pct(c['answerable_cited_gold'])} | {pct(c['answerable_cited_gold_audited'])} |")
    return "\n".join(lines)
