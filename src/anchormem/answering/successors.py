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

from ..facts.claims import closed_claims, current_view, own_claims
from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem, Scope
from .evidence import EvidenceScorer, analyze_question, select
from .extractive import _distinct, annotate, quote

__all__ = ["successor_answer", "current_successor", "held_answer"]

MAX_CHAIN = 20  # superseded_by links followed at most (a chain of changes of one slot)


def current_successor(memory_id: str, store: Any, scope: Scope) -> MemoryItem | None:
    """The current memory at the end of the ``superseded_by`` chain starting at ``memory_id``, when it is in
    ``scope`` (same user; the scope's agent and session when set) and warm; None otherwise."""
    seen: set[str] = set()
    nid: str | None = memory_id
    nxt: MemoryItem | None = None
    for _ in range(MAX_CHAIN):
        if nid is None or nid in seen:
            return None
        seen.add(nid)
        nxt = store.get_many(scope.tenant, [nid]).get(nid)
        if nxt is None or nxt.current:
            break
        nid = nxt.superseded_by
    else:
        return None
    if nxt is None or not nxt.current or nxt.user_id != scope.user_id or nxt.tier != "warm" or \
            nxt.kind == "summary" or any(getattr(scope, k) not in (None, getattr(nxt, k))
                                         for k in ("agent_id", "session_id")):
        return None
    return nxt


def _superseded_part(h: Hit) -> tuple[Hit, str] | None:
    """The hit as the words of its superseded claims only (what a change replaced: not what else the turn said,
    "喜欢爬山" beside "我住在昆明"), with the id that superseded the last of them; None without such a claim."""
    closed = [c for c in own_claims(h.memory) if c.valid_to is not None and c.superseded_by]
    if not closed:
        return None
    last = max(closed, key=lambda c: c.valid_to)  # type: ignore[arg-type,return-value]
    text = " ".join(dict.fromkeys(c.span.strip() or h.memory.text for c in closed))
    if text == h.memory.text:
        return h, last.superseded_by  # type: ignore[return-value]
    view = h.memory.model_copy(update={"text": text})
    return h.model_copy(update={"memory": view, "explain": {**h.explain, "dense": None, "view": "superseded"}}), \
        last.superseded_by  # type: ignore[return-value]


def successor_answer(question: str, past: list[Hit], *, store: Any, scope: Scope, scorer: EvidenceScorer,
                     prompts: Callable[[list[Hit]], list[str | None]] | None = None) -> tuple[Answer, list[Hit]] | None:
    """An answer citing the current successors of the superseded memories among ``past`` (hits of the question
    over superseded memories) whose superseded words pass the evidence test; None when none does or none has a
    current successor in ``scope``. Returns (the answer, the cited successors as hits)."""
    parts = [p for h in past if h.memory.valid_to is not None and h.memory.kind != "summary"
             and (p := _superseded_part(h)) is not None]
    if not parts:
        return None
    tested = [h for h, _ in parts]
    q = analyze_question(question)
    scored = scorer.score(q, tested, prompts(tested) if prompts else None)
    chosen = _distinct(select(scored, scorer.config, terms=q.terms), tested)
    cites: list[MemoryItem] = []
    out: list[Hit] = []
    for s in chosen:
        h, by = parts[s.index]
        nxt = current_successor(by, store, scope)
        if nxt is None or any(m.id == nxt.id for m in cites):
            continue
        cites.append(nxt)
        out.append(Hit(memory=nxt, score=h.score, explain={**h.explain, "successor_of": h.memory.id}))
    if not cites:
        return None
    zh = has_cjk(question)
    text = ("" if zh else " ").join(quote(m, zh=zh) for m in cites)
    return Answer(text=text, citations=cites, abstained=False, evidence=annotate(tested, scored, chosen) + out), out


def held_answer(question: str, searched: list[Hit], *, scorer: EvidenceScorer,
                prompts: Callable[[list[Hit]], list[str | None]] | None = None) -> tuple[Answer, list[Hit]] | None:
    """An answer citing partly superseded memories for what they still hold, when their remaining words alone are
    too few to pass the evidence test: "我的猫叫什么？" against "我有两只猫，叫咪咪和花花。" after the count changed (shown
    as "叫咪咪和花花。"). Such a memory is cited (as it holds now: :func:`~anchormem.facts.claims.current_view`) when
    its whole text passes and the words of its superseded claims alone do not reach ``min_coverage`` (the held
    words are what answers; "我有几只猫？" is answered by the superseded words, so not by it). ``searched``: the
    search hits before their current view. None when none qualifies."""
    cand: list[tuple[Hit, MemoryItem, str]] = []
    for h in searched:
        m = h.memory
        if m.kind == "summary" or m.valid_to is not None:
            continue
        view = current_view(m)
        closed = " ".join(dict.fromkeys(c.span.strip() for c in closed_claims(m) if c.span.strip()))
        if view is not None and view is not m and closed:
            cand.append((h, view, closed))
    if not cand:
        return None
    whole = [h for h, _, _ in cand]
    part = [h.model_copy(update={"memory": h.memory.model_copy(update={"text": t}),
                                 "explain": {**h.explain, "dense": None}}) for h, _, t in cand]
    q = analyze_question(question)
    tau = scorer.config.min_coverage
    by_whole = scorer.score(q, whole, prompts(whole) if prompts else None)
    by_part = scorer.score(q, part, None)
    keep = [s for s, p in zip(by_whole, by_part) if p.coverage < tau - 1e-9]
    chosen = _distinct(select(keep, scorer.config), whole) if keep else []
    if not chosen:
        return None
    out = [cand[s.index][0].model_copy(update={"memory": cand[s.index][1],
                                               "explain": {**cand[s.index][0].explain, "view": "current"}})
           for s in chosen]
    cites = [h.memory for h in out]
    zh = has_cjk(question)
    text = ("" if zh else " ").join(quote(m, zh=zh) for m in cites)
    ann = annotate(out, [by_whole[s.index] for s in chosen], chosen)
    return Answer(text=text, citations=cites, abstained=False, evidence=ann), out
