"""The current state of a slot answers for its earlier value: "How much do I weigh?" after "I weigh 150 pounds."
then "I'm up to 160 pounds now.", "What is my job?" after "I'm a nurse." then "I quit nursing.", "我抽烟吗？" after
"我抽烟。" then "我戒烟了。".

The question's words are those of the first statement; the change often says it in other words ("up to", "quit",
戒烟), or says that the value ended (polarity -1), which alone does not answer what the value is. When no current
memory passes the evidence test, the superseded memories are tested too; each that passes is replaced by the
current memory that superseded it (following ``superseded_by`` to the end of the chain, in the asker's scope), which
is cited first and only: the evidence says which slot is asked about, its current state is the answer.
"""

from __future__ import annotations

from typing import Any, Callable

from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem, Scope
from .evidence import EvidenceScorer, analyze_question, select
from .extractive import _distinct, annotate, quote

__all__ = ["successor_answer", "current_successor"]

MAX_CHAIN = 20  # superseded_by links followed at most (a chain of changes of one slot)


def current_successor(item: MemoryItem, store: Any, scope: Scope) -> MemoryItem | None:
    """The current memory at the end of ``item``'s ``superseded_by`` chain, when it is in ``scope`` (same user;
    the scope's agent and session when set) and warm; None otherwise (or when ``item`` is itself current)."""
    seen = {item.id}
    nxt: MemoryItem | None = item
    for _ in range(MAX_CHAIN):
        if nxt is None or nxt.superseded_by is None or nxt.superseded_by in seen:
            return None
        seen.add(nxt.superseded_by)
        nxt = store.get_many(scope.tenant, [nxt.superseded_by]).get(nxt.superseded_by)
        if nxt is not None and nxt.current:
            break
    else:
        return None
    if nxt is None or nxt.user_id != scope.user_id or nxt.tier != "warm" or nxt.kind == "summary" or \
            any(getattr(scope, k) not in (None, getattr(nxt, k)) for k in ("agent_id", "session_id")):
        return None
    return nxt


def successor_answer(question: str, past: list[Hit], *, store: Any, scope: Scope, scorer: EvidenceScorer,
                     prompts: Callable[[list[Hit]], list[str | None]] | None = None) -> tuple[Answer, list[Hit]] | None:
    """An answer citing the current successors of the superseded memories among ``past`` (hits of the question
    over superseded memories) that pass the evidence test; None when none does or none has a current successor in
    ``scope``. Returns (the answer, the cited successors as hits)."""
    past = [h for h in past if h.memory.valid_to is not None and h.memory.kind != "summary"]
    if not past:
        return None
    q = analyze_question(question)
    scored = scorer.score(q, past, prompts(past) if prompts else None)
    chosen = _distinct(select(scored, scorer.config, terms=q.terms), past)
    cites: list[MemoryItem] = []
    out: list[Hit] = []
    for s in chosen:
        h = past[s.index]
        nxt = current_successor(h.memory, store, scope)
        if nxt is None or any(m.id == nxt.id for m in cites):
            continue
        cites.append(nxt)
        out.append(Hit(memory=nxt, score=h.score, explain={**h.explain, "successor_of": h.memory.id}))
    if not cites:
        return None
    zh = has_cjk(question)
    text = ("" if zh else " ").join(quote(m, zh=zh) for m in cites)
    return Answer(text=text, citations=cites, abstained=False, evidence=annotate(past, scored, chosen) + out), out
