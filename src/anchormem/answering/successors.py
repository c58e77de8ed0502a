"""The current state of a slot answers for its earlier value: "How much do I weigh?" after "I weigh 150 pounds."
then "I'm up to 160 pounds now.", "What is my job?" after "I'm a nurse." then "I quit nursing.", "我抽烟吗？" after
"我抽烟。" then "我戒烟了。".

The other way round (:func:`predecessor_answer`): a question about the past whose evidence is the change itself
("What was I earning before the raise?" against "Raise came through — eighty-one thousand now", "领养Kinako之前有几只
狗？" against "又领养了一只…现在三只狗了。") is answered by what the change replaced: the memories carrying the claims
the cited memory closed (the ``claims`` table's ``superseded_by``, :meth:`~anchormem.stores.protocol.Store.
predecessors`), quoted with their end ("true until 2024-03"). A past question naming one of the asker's slots that
no memory answers by its words ("我以前工资多少？" after "我月薪一万五。" then "我月薪已经涨到一万八了。") reads the
slot's chain the same way from its current value (:func:`past_slot_answer`, the past side of
:func:`~anchormem.answering.slot_questions.slot_answer`).

And a partly superseded memory still answers for what else it said (:func:`held_answer`, :func:`with_held`): "我的狗
叫什么名字？" after "家里有两只dog，Mochi和Latte。" then "…现在三只狗了。" cites both dogs' memories, the count's words
left out of the first.

The question's words are those of the first statement; the change often says it in other words ("up to", "quit",
戒烟), or says that the value ended (polarity -1), which alone does not answer what the value is. When no current
memory passes the evidence test, the superseded memories are tested too; each that passes is replaced by the
current memory that superseded it (following ``superseded_by`` to the end of the chain, in the asker's scope), which
is cited first and only: the evidence says which slot is asked about, its current state is the answer. A plan
called off as a whole (:mod:`anchormem.facts.called_off`: "We're planning a trip to Chengdu" then 成都的旅行取消了)
holds no claim: the turn that superseded it is its successor ("When is the Chengdu trip?" cites the cancellation).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..facts.claims import closed_claims, closing_words, current_view, own_claims
from ..text.tokenize import has_cjk
from ..types import Answer, Hit, MemoryItem, Scope
from .evidence import EvidenceScorer, analyze_question, select
from .extractive import _distinct, annotate, quoted
from .slot_questions import about_user, asked_slots
from .claim_reading import nearest_claim_slots

__all__ = ["successor_answer", "current_successor", "held_answer", "predecessor_answer", "past_slot_answer",
           "with_held", "closed_by"]

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


def _bare(text: str) -> str:
    return text.strip().rstrip(".。!！?？ ")


def _superseded_part(h: Hit) -> tuple[Hit, str] | None:
    """The hit as the words of its superseded claims only (what a change replaced: not what else the turn said,
    "喜欢爬山" beside "我住在昆明"), with the id that superseded the last of them; None without such a claim."""
    closed = [c for c in own_claims(h.memory) if c.valid_to is not None and c.superseded_by]
    if not closed:  # a plan called off (facts.called_off): the whole turn was superseded by the turn saying so
        off = h.memory.superseded_by
        return (h, off) if off and h.memory.kind in ("utterance", "commitment") else None
    last = max(closed, key=lambda c: c.valid_to)  # type: ignore[arg-type,return-value]
    text = " ".join(dict.fromkeys(closing_words(c).strip() or h.memory.text for c in closed))
    if _bare(text) == _bare(h.memory.text):  # (the claim's words are the whole text: its dense score holds)
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
    text, cites = quoted(cites, zh=zh)
    return Answer(text=text, citations=cites, abstained=False, evidence=annotate(tested, scored, chosen) + out), out


def held_answer(question: str, searched: list[Hit], *, scorer: EvidenceScorer,
                prompts: Callable[[list[Hit]], list[str | None]] | None = None) -> tuple[Answer, list[Hit]] | None:
    """An answer citing partly superseded memories for what they still hold, when their remaining words alone are
    too few to pass the evidence test: "我的猫叫什么？" against "我有两只猫，叫咪咪和花花。" after the count changed (shown
    as "叫咪咪和花花。"). Such a memory is cited (as it holds now: :func:`~anchormem.facts.claims.current_view`) when
    its whole text passes and the words of its superseded claims alone do not answer: below ``min_coverage``,
    without a number for "how much" (the heavy-term gate), or, for a question asking a name ("我的狗叫什么名字？"),
    no closed claim is a name (:func:`_names_closed`: "家里有两只dog" is a count) (the held words are what answers;
    "我有几只猫？" is answered by the superseded words, so not by it). ``searched``: the
    search hits before their current view. None when none qualifies."""
    cand: list[tuple[Hit, MemoryItem, str]] = []
    for h in searched:
        m = h.memory
        if m.kind == "summary" or m.valid_to is not None:
            continue
        view = current_view(m)
        closed = " ".join(dict.fromkeys(w for c in closed_claims(m) if (w := closing_words(c).strip())))
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
    keep = [s for s, p, (h, _, _) in zip(by_whole, by_part, cand)
            if p.coverage < tau - 1e-9 or not p.heavy_ok or (q.wants_name and not _names_closed(h.memory))]
    chosen = _distinct(select(keep, scorer.config), whole) if keep else []
    if not chosen:
        return None
    out = [cand[s.index][0].model_copy(update={"memory": cand[s.index][1],
                                               "explain": {**cand[s.index][0].explain, "view": "current"}})
           for s in chosen]
    cites = [h.memory for h in out]
    zh = has_cjk(question)
    text, cites = quoted(cites, zh=zh)
    ann = annotate(out, [by_whole[s.index] for s in chosen], chosen)
    return Answer(text=text, citations=cites, abstained=False, evidence=ann), out


def _names_closed(m: MemoryItem) -> bool:
    """One of ``m``'s closed claims is a name ("dog_names", "wife_name"): its superseded words can answer a question
    for a name; a count's or a home's cannot ("家里有两只dog" does not name the dogs)."""
    return any(re.search(r"(?:^|_)names?$", c.slot.partition("|")[2]) for c in closed_claims(m))


def _past_view(m: MemoryItem, closed_by: str) -> MemoryItem | None:
    """``m`` as the value it held before ``closed_by`` replaced it: itself when it no longer holds, ending when the
    claims ``closed_by`` closed did (the asked slot's end, not a later one's: the home's, not the rent's); a partly
    superseded memory as the words of those claims, ending when they did; None without such words."""
    mine = [c for c in own_claims(m) if c.superseded_by == closed_by and c.valid_to is not None]
    if m.valid_to is not None:
        end = max((c.valid_to for c in mine), default=m.valid_to)  # type: ignore[type-var]
        return m if end == m.valid_to else m.model_copy(update={"valid_to": end})
    words = " ".join(dict.fromkeys(w for c in mine if (w := closing_words(c).strip())))
    if not words:
        return None
    return m.model_copy(update={"text": words, "valid_to": max(c.valid_to for c in mine),  # type: ignore[type-var]
                                "superseded_by": closed_by})


def predecessor_answer(question: str, ans: Answer, *, store: Any, scope: Scope) -> tuple[Answer, list[Hit]] | None:
    """For a question about the past: each citation that holds now and closed earlier claims is replaced by the
    memories that held them (:func:`_past_view`: a memory the change closed whole, else the words of the claims it
    closed), in ``scope`` (same user; its agent and session when set; warm). The past comes first: the citations
    that no longer hold, then those replacements, then current citations that replaced nothing; a quote whose words
    another quote of the same instant holds goes (the fact clause of a turn quoted whole); at most
    ``len(ans.citations)`` + 1, each quoted with its end. None when no citation replaced anything (the answer
    stands). Returns (the answer, the past memories as hits: ``explain["predecessor_of"]``)."""
    if ans.abstained or not ans.citations:
        return None
    past = [m for m in ans.citations if m.valid_to is not None]
    now = [m for m in ans.citations if m.valid_to is None]
    out = closed_by(now, store=store, scope=scope)
    replaced = {h.explain["predecessor_of"] for h in out}
    if not out:
        return None
    cites = past + [h.memory for h in out if all(h.memory.id != m.id for m in past)] + \
        [m for m in now if m.id not in replaced]
    # one quote per value: a memory whose words another one said at the same instant holds goes
    cites = [v for v in cites if not any(w is not v and v.text in w.text and w.created_at == v.created_at and
                                         (len(w.text) > len(v.text) or w.id < v.id) for w in cites)]
    cites = cites[: len(ans.citations) + 1]
    zh = has_cjk(question)
    text, cites = quoted(cites, zh=zh)
    kept = {m.id for m in cites}
    out = [h for h in out if h.memory.id in kept]
    return Answer(text=text, citations=cites, abstained=False, evidence=list(ans.evidence) + out), out


def closed_by(cites: list[MemoryItem], *, store: Any, scope: Scope) -> list[Hit]:
    """The memories that held the claims the current memories of ``cites`` closed (``claims.superseded_by``), each
    as the value it held then (:func:`_past_view`, ending when it was closed), in ``scope`` (same user; its agent and
    session when set; warm), in citation order, oldest said first per citation: "My boyfriend Marcus is a chef."
    for "Marcus and I called it off." As hits (score 1.0) with ``explain["predecessor_of"]`` (the closing memory's
    id) and ``explain["past"]`` ("until 2024-03"); [] when they closed nothing."""
    closing = {c.fact_id: m for m in cites if m.valid_to is None for c in own_claims(m) if c.valid_to is None}
    if not closing:
        return []
    before = store.predecessors(scope.tenant, scope.user_id, sorted(closing))
    ids = sorted({i for v in before.values() for i in v})
    found = store.get_many(scope.tenant, ids) if ids else {}
    out: list[Hit] = []
    for fid, cited in closing.items():
        for mid in before.get(fid, []):
            m = found.get(mid)
            if m is None or m.user_id != scope.user_id or m.tier != "warm" or m.kind == "summary" or \
                    any(getattr(scope, k) not in (None, getattr(m, k)) for k in ("agent_id", "session_id")):
                continue
            v = _past_view(m, fid)
            if v is not None and all(h.memory.id != v.id for h in out):
                out.append(Hit(memory=v, score=1.0, explain={"predecessor_of": cited.id,
                                                             "past": f"until {v.valid_to:%Y-%m}"}))
    return out


def with_held(ans: Answer, held: Answer, max_citations: int, question: str) -> Answer:
    """``ans`` (an answer citing current memories) with the citations of ``held`` (:func:`held_answer`: partly
    superseded memories, for what they still say) after its own, at most ``max_citations`` in all."""
    have = {m.id for m in ans.citations}
    extra = [m for m in held.citations if m.id not in have][: max(0, max_citations - len(ans.citations))]
    if not extra:
        return ans
    cites = list(ans.citations) + extra
    zh = has_cjk(question)
    text, cites = quoted(cites, zh=zh)
    return Answer(text=text, citations=cites, abstained=False,
                  evidence=list(ans.evidence) + [h for h in held.evidence if h.memory.id in {m.id for m in extra}])


def past_slot_answer(question: str, store: Any, scope: Scope, filters: Any = None,
                     question_vector: Callable[[], Any] | None = None, embedder: Any = None
                     ) -> tuple[Answer, list[Hit]] | None:
    """For a question about the asker's past naming a slot (:func:`~anchormem.answering.slot_questions.
    asked_slots`: "我以前工资多少？" -> salary): what the slot's current value replaced (:func:`predecessor_answer`
    from the slot's current fact memories in ``scope``), for the first named slot that has such a value. When no
    named slot has one and ``question_vector`` is given (a callable returning the query embedding of the question
    without its past words, by ``embedder``), the slot of the user's claim nearest in meaning is read the same way
    (:func:`~anchormem.answering.claim_reading.nearest_claim_slots`, superseded facts included: "我以前通勤多久？").
    None for a read with ``filters`` (the caller narrowed what may answer), a question about someone else, or no
    past value."""
    if filters or not about_user(question):
        return None
    for attr in _past_slots(question, store, scope, question_vector, embedder):
        now = [m for m in store.current_facts(scope.tenant, scope.user_id, [f"user|{attr}"])
               if all(getattr(scope, k) in (None, getattr(m, k)) for k in ("agent_id", "session_id"))]
        if not now:
            continue
        got = predecessor_answer(question, Answer(text="", citations=now[-1:], abstained=False), store=store,
                                 scope=scope)
        if got is not None:
            return got
    return None


def _past_slots(question: str, store: Any, scope: Scope, question_vector: Callable[[], Any] | None, embedder: Any):
    """The attributes a past question asks about: those its words name, then (computed only when those give no
    answer) the slot of the nearest claim."""
    named = asked_slots(question)
    yield from named
    if question_vector is not None and embedder is not None:
        for slot in nearest_claim_slots(question_vector(), store, scope, embedder):
            attr = slot.partition("|")[2]
            if attr not in named:
                yield attr
