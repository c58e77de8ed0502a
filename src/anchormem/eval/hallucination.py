"""Hallucination check of the write path: are there stored facts that their source turn does not support?

LoCoMo conversations are ingested twice, as :mod:`anchormem.eval.grounding` does (one ``add`` per session):

1. with the offline rule extractor;
2. with a scripted LLM (:class:`anchormem.testing.FakeLLMServer`, a real OpenAI-protocol HTTP server on
   127.0.0.1) that returns the rule facts of each turn and, on every ``invent_every``-th call, adds invented
   ones of four kinds: a value the user never said, an invented number, a flipped negation and a value copied
   from the extraction prompt's example.

Afterwards every stored ``kind="fact"`` memory is re-checked with
:func:`anchormem.facts.grounding.check_support` against its own verbatim source turn. The target is
``unsupported_stored == 0`` for both extractors, while the LLM run reports how many invented facts were
proposed and rejected.

    >>> from anchormem.eval.hallucination import run_hallucination
    >>> r = run_hallucination("locomo10.json", conversations=1, embedder="hash")
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from ..config import Settings
from ..facts.grounding import check_support
from ..facts.model import Fact
from ..facts.rules import extract_from_text
from ..memory import Memory
from .harness import Ticker
from .locomo import _sessions, ingest_locomo, load_locomo

__all__ = ["run_hallucination", "format_table", "scripted_extractor"]

_TURN = re.compile(r"^\[user\] (.*)$", re.M)


def _invented(text: str, n: int) -> list[dict[str, Any]]:
    quote = text.split(".")[0][:200]
    kind = n % 4
    if kind == 0:  # a value the user never said
        return [{"entity": "user", "attribute": "home_city", "value": "Atlantis", "polarity": 1, "confidence": 1.0,
                 "source_quote": quote}]
    if kind == 1:  # an invented number
        return [{"entity": "user", "attribute": "monthly_budget", "value": "7,450 dollars", "polarity": 1,
                 "confidence": 1.0, "source_quote": quote}]
    if kind == 2:  # a flipped negation of what was said (only when a rule fact exists to flip)
        facts = extract_from_text(text)
        if facts and facts[0].polarity > 0:
            f = facts[0]
            return [{"entity": "user", "attribute": f.attribute, "value": f.value, "polarity": -1,
                     "confidence": 1.0, "source_quote": f.source_span}]
        return [{"entity": "user", "attribute": "likes:opera", "value": "opera", "polarity": -1, "confidence": 1.0,
                 "source_quote": quote}]
    # the prompt's own example
    return [{"entity": "Ana", "attribute": "home_city", "value": "Porto", "polarity": 1, "confidence": 1.0,
             "source_quote": "My sister Ana moved to Porto"}]


def scripted_extractor(invent_every: int, counts: dict[str, int]) -> Callable[[dict], str]:
    """A FakeLLMServer script: the rule facts of the request's user turns, plus invented facts on every
    ``invent_every``-th call (``counts["invented"]`` counts them)."""
    calls = {"n": 0}

    def reply(body: dict) -> str:
        calls["n"] += 1
        convo = body["messages"][-1]["content"] if body.get("messages") else ""
        texts = _TURN.findall(convo)
        items = [{"entity": f.entity, "attribute": f.attribute, "value": f.value, "polarity": f.polarity,
                  "confidence": f.confidence, "source_quote": f.source_span}
                 for t in texts for f in extract_from_text(t)]
        if invent_every and calls["n"] % invent_every == 0 and texts:
            extra = _invented(texts[0], calls["n"] // invent_every)
            counts["invented"] += len(extra)
            items += extra
        return json.dumps({"facts": items}, ensure_ascii=False)

    return reply


def _audit(mem: Memory, users: list[str], embedder: Any) -> dict[str, Any]:
    stored = unsupported = 0
    examples: list[dict[str, Any]] = []
    for u in users:
        for item in mem.get_all(user_id=u, include_superseded=True, filters={"kind": "fact"}):
            if item.fact is None:
                continue
            stored += 1
            # the speaker states facts about themself: their name is the author, not part of the words
            entity = "user" if item.fact.entity == item.speaker else item.fact.entity
            f = Fact(entity=entity, attribute=item.fact.attribute, value=item.fact.value,
                     polarity=item.fact.polarity)
            sup = check_support(f, item.source_text, embedder=embedder)
            if not sup.ok:
                unsupported += 1
                if len(examples) < 10:
                    examples.append({"text": item.text, "fact": f.as_text(), "reasons": sup.reasons})
    return {"stored_facts": stored, "unsupported_stored": unsupported, "unsupported_examples": examples}


def run_hallucination(data_path: str, *, conversations: int | None = None, embedder: str | Any = "auto",
                      invent_every: int = 5, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Ingest with the rule extractor and with a scripted, sometimes-inventing LLM; count stored facts that their
    source does not support. Returns a JSON-ready dict (``runs.rules`` and ``runs.llm``)."""
    from ..llms import OpenAICompatLLM
    from ..testing.fake_llm import FakeLLMServer

    samples, _ = load_locomo(data_path, conversations=conversations, use_audit=False)
    users = [s["sample_id"] for s in samples]
    sessions = sum(len(_sessions(s["conversation"])) for s in samples)
    out: dict[str, Any] = {"benchmark": "write-path-hallucination", "data_path": data_path,
                           "conversations": len(samples), "sessions": sessions, "invent_every": invent_every,
                           "runs": {}}
    for mode in ("rules", "llm"):
        counts = {"invented": 0}
        t0 = time.perf_counter()
        with FakeLLMServer(scripted_extractor(invent_every, counts)) as srv:
            llm = OpenAICompatLLM(srv.base_url, "scripted", max_retries=0) if mode == "llm" else None
            with Memory(":memory:", embedder=embedder, llm=llm, settings=Settings(fact_extractor=mode)) as mem:
                out["embedder"] = mem.embedder.name
                turns, _added = ingest_locomo(mem, samples, tick=Ticker(sessions, progress))
                semantic = mem.embedder if getattr(mem.embedder, "semantic", True) else None
                run = {"turns": turns, "seconds": round(time.perf_counter() - t0, 1), **_audit(mem, users, semantic)}
                if mode == "llm":
                    run.update({"llm_calls": len(srv.requests), "invented_proposed": counts["invented"],
                                "facts_kept_by_grounding": mem.stats["facts_extracted"],
                                "facts_rejected_by_grounding": mem.stats["facts_rejected"]})
        out["runs"][mode] = run
    return out


def format_table(result: dict[str, Any]) -> str:
    """Markdown table of :func:`run_hallucination`'s result."""
    rows = ["| extractor | turns | stored facts | unsupported stored | invented proposed | rejected by grounding |",
            "|---|---|---|---|---|---|"]
    for mode, r in result["runs"].items():
        rows.append(f"| {mode} | {r['turns']} | {r['stored_facts']} | {r['unsupported_stored']} | "
                    f"{r.get('invented_proposed', '-')} | {r.get('facts_rejected_by_grounding', '-')} |")
    return "\n".join(rows)
