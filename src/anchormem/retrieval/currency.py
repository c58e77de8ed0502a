"""Current first: how search orders memories whose claims were superseded (:mod:`anchormem.facts.claims`).

- A plain search reads current memories only. A memory still current for some claims but carrying a superseded
  one ("Hi, I'm Sam. I live in Lisbon and I work as a nurse…" after "I moved to Berlin.") can match on its
  superseded words; the memory that superseded them (its claim's ``superseded_by``), when current and in scope,
  is placed right before it, so the current value always comes first (``explain["successor_of"]``). Which closed
  claims move a memory depends on the slot the question asks about (:func:`order_by_currency`).
- The search returns each hit's rank-defining score (:func:`rank_scores`): scores never rise down the list.
- A question about the past ("Where did I live before?", "Did I ever live in Lisbon?", "我以前住哪里？":
  :func:`~anchormem.facts.claims.asks_past`), or a filter naming ``valid_to``, also reads superseded memories;
  for a past question they are weighted up by :data:`PAST_BOOST` and every hit that no longer holds is marked
  ``explain["past"] = "until 2024-03"``.
- A read as of an instant (``as_of``; a read without one while a value is scheduled ahead reads as of now) places a
  memory whose value is scheduled for a time still ahead of that instant ("My rent goes up to 1,450 from the 1st",
  state ``"scheduled"`` then: :func:`anchormem.types.validity_state`) after every hit that holds then, unless the
  question asks what is planned ("When am I moving?": :func:`anchormem.answering.tense.asks_plan`): as of then the
  value it replaces is the current one (:func:`not_yet_last`, ``explain["scheduled"]``).
"""

from __future__ import annotations

from typing import Any

from ..answering.slot_questions import asked_slots
from ..facts.claims import asks_past, closed_claims, corrected_note, current_view, past_note, without_past_words
from ..filters import ANY_VALIDITY, And, FilterNode, names_field, parse_filters
from ..types import Hit, Scope
from ..timeutil import to_utc

__all__ = ["PAST_BOOST", "past_where", "wants_past", "order_by_currency", "rank_scores", "evidence_hits", "shown_hits",
           "rolled_up", "not_yet_last"]

PAST_BOOST = 1.5  # a past question: superseded memories' scores times this


def wants_past(query: str, where: FilterNode | None, as_of: Any) -> bool:
    """The search is about the past: an explicit past question, without ``as_of`` (which already reads a past
    instant) and without a filter of its own on ``valid_to``."""
    return as_of is None and not names_field(where, "valid_to") and asks_past(query)


def past_where(where: FilterNode | None) -> FilterNode:
    """``where`` widened to superseded memories as well (a condition on ``valid_to`` that every row meets)."""
    return ANY_VALIDITY if where is None else And((where, ANY_VALIDITY))


def _attribute(slot: str) -> str:
    return slot.rpartition("|")[2]


def _current_successors(store: Any, tenant: str, ids: set[str], hops: int = 8) -> dict[str, Any]:
    """{closing memory id: the memory holding now at the end of its chain}: a successor closed in turn (Lisbon ->
    Berlin -> Paris) is followed through its own ``superseded_by``, at most ``hops`` steps."""
    out: dict[str, Any] = {}
    todo = {i: i for i in ids}  # start id -> id to read next
    for _ in range(hops):
        if not todo:
            break
        found = store.get_many(tenant, sorted(set(todo.values())))
        nxt: dict[str, str] = {}
        for start, cur in todo.items():
            item = found.get(cur)
            if item is None:
                continue
            if item.current:
                out[start] = item
            elif item.superseded_by and item.superseded_by != cur:
                nxt[start] = item.superseded_by
        todo = nxt
    return out


def rank_scores(hits: list[Hit]) -> list[Hit]:
    """``hits`` (in their final order) with each ``score`` the rank-defining one: a hit placed above a higher-scored
    one by an ordering rule (the current value before the memory it supersedes, a day recap's time order, a
    session's hits together) takes that score, so scores never rise down the list; its own score is kept in
    ``explain["own_score"]``."""
    floor = float("-inf")
    for h in reversed(hits):
        if h.score < floor:
            h.explain.setdefault("own_score", h.score)
            h.score = floor
        floor = h.score
    return hits


def order_by_currency(hits: list[Hit], *, store: Any, scope: Scope, past: bool, as_of: Any, limit: int,
                      where: FilterNode | None = None, query: str | None = None) -> list[Hit]:
    """``hits`` (best first) reordered as the module doc says; at most ``limit``. No successor is placed for an
    ``as_of`` read or a filter on ``valid_to`` (``where``): those ask for the past as it is.

    ``query``: the question; the slots it asks about (:func:`anchormem.answering.slot_questions.asked_slots`:
    "Where do I live?" -> home_city) decide which closed claims move a memory. A memory whose closed claim is of an
    asked slot is placed after the memory holding that slot now (followed through a chain of changes), or, when
    none is in scope, after every other hit: it never answers for that slot first. A closed claim of a slot the
    question does not ask about moves nothing ("What is my job?" keeps "I live in Lisbon and I'm a nurse" where it
    ranks after a move). A question that names no slot places each closed claim's successor before it."""
    if past:
        for h in hits:
            note = past_note(h.memory)
            if note is not None and corrected_note(h.memory) is None:  # (a value taken back was never a past one)
                h.explain["past"] = note
                h.score *= PAST_BOOST
                h.explain["final"] = h.score
        return sorted(hits, key=lambda h: -h.score)[:limit]
    if as_of is not None:
        return not_yet_last(hits, to_utc(as_of, field="as_of"), query)[:limit]
    if names_field(where, "valid_to"):
        return hits[:limit]
    if not any(c.superseded_by for h in hits[:limit] for c in closed_claims(h.memory)):
        return hits[:limit]  # nothing to place (the asked slots below only narrow what moves)
    asked = set(asked_slots(query)) if query else set()

    def moving(h: Hit) -> list[Any]:
        return [c for c in closed_claims(h.memory) if not asked or _attribute(c.slot) in asked]

    wanted = {c.superseded_by for h in hits[:limit] for c in moving(h) if c.superseded_by}
    if not wanted:
        return hits[:limit]
    found = _current_successors(store, scope.tenant, wanted)
    out: list[Hit] = []
    later: list[Hit] = []  # asked-slot memories whose current value is not in scope
    shown: set[str] = set()
    for h in hits:
        if len(out) >= limit:
            break
        placed = False
        for c in moving(h):
            nxt = found.get(c.superseded_by or "")
            if nxt is None or nxt.user_id != scope.user_id or nxt.tier != "warm" or \
                    any(getattr(scope, k) not in (None, getattr(nxt, k)) for k in ("agent_id", "session_id")):
                continue
            placed = True
            if nxt.id in shown:
                continue
            own = next((x for x in hits if x.memory.id == nxt.id), None)
            succ = own or Hit(memory=nxt, score=h.score, explain={"successor_of": h.memory.id, "final": h.score,
                                                                  "inserted": True})
            succ.explain.setdefault("successor_of", h.memory.id)
            out.append(succ)
            shown.add(nxt.id)
        if h.memory.id in shown:
            continue
        if asked and not placed and moving(h):
            later.append(h)
        else:
            out.append(h)
        shown.add(h.memory.id)
    return (out + later)[:limit]


def _scheduled_at(item: Any, when: Any, asked: set[str]) -> str | None:
    """When ``item`` (or one of its claims of an asked slot; any slot when none is asked) is scheduled for a time
    after ``when``: that time as ISO-8601; else None."""
    from ..types import validity_state

    if validity_state(item.valid_from, item.valid_to, item.created_at, when) == "scheduled":
        return item.valid_from.isoformat()
    for c in getattr(item, "claims", None) or ():
        if (not asked or _attribute(c.slot) in asked) and \
                validity_state(c.valid_from, c.valid_to, c.said_at, when) == "scheduled":
            return c.valid_from.isoformat()
    return None


def not_yet_last(hits: list[Hit], when: Any, query: str | None) -> list[Hit]:
    """``hits`` with those scheduled for a time after ``when`` (see the module doc) moved after every other hit, in
    their order; unchanged for a question asking what is planned."""
    from ..answering.tense import asks_plan

    if query and asks_plan(query):
        return hits
    asked = set(asked_slots(query)) if query else set()
    now: list[Hit] = []
    later: list[Hit] = []
    for h in hits:
        ahead = _scheduled_at(h.memory, when, asked)
        if ahead is None:
            now.append(h)
        else:
            h.explain["scheduled"] = ahead
            later.append(h)
    return now + later if later and now else hits


def rolled_up(hits: list[Hit], store: Any, tenant: str) -> list[Hit]:
    """``hits`` with each summary hit followed by the archived (cold) memories it rolled up (those citing a turn it
    quotes), scored as the summary was (``explain["via_summary"]``): an archived memory stays citable when it is
    the answer (:mod:`anchormem.consolidate`)."""
    if store is None or not any(h.memory.kind == "summary" for h in hits):
        return hits
    have = {h.memory.id for h in hits}
    cold: dict[str, list[Any]] = {}
    out: list[Hit] = []
    for h in hits:
        out.append(h)
        if h.memory.kind != "summary" or not h.memory.source_message_ids:
            continue
        uid = h.memory.user_id
        if uid not in cold:
            cold[uid] = store.list_memories(Scope(tenant=tenant, user_id=uid), parse_filters({"tier": "cold"}))
        turns = set(h.memory.source_message_ids)
        for m in cold[uid]:
            if m.id not in have and m.kind != "summary" and turns & set(m.source_message_ids):
                have.add(m.id)
                out.append(Hit(memory=m, score=h.score, explain={**h.explain, "via_summary": h.memory.id}))
    return out


def evidence_hits(query: str, hits: list[Hit], as_of: Any = None, store: Any = None,
                  tenant: str = "default", cosines: Any = None) -> tuple[str, list[Hit]]:
    """The question as the evidence test reads it (a past question without its past words:
    :func:`~anchormem.facts.claims.without_past_words`) and the hits ``ask`` may cite: archived memories reached
    through the summary that rolled them up (:func:`rolled_up`, with ``store``), no summaries (an answer quotes
    turns; a summary only repeats them) and, unless the question is about the past, each memory as it holds (at
    ``as_of``): a partly superseded one without the words of its closed claims
    (:func:`~anchormem.facts.claims.current_view`), left out when nothing else is left. A superseded memory
    reached by a past question or ``as_of`` is kept whole (quoted with its end date). ``cosines`` (optional:
    memories -> the query's cosine to each as embedded): a current view's cosine is that of its remaining words
    (its search cosine was to the words left out too); without it, None (judged by its words only)."""
    out: list[Hit] = []
    as_of = None if as_of is None else to_utc(as_of, field="as_of")  # a string as search takes it
    past = as_of is None and asks_past(query)
    for h in rolled_up(hits, store, tenant):
        if h.memory.kind == "summary":
            continue
        view = h.memory if past else current_view(h.memory, as_of)
        if view is None:
            continue
        if view is not h.memory:  # its cosine was to the words left out: judged by its remaining words only
            h = h.model_copy(update={"memory": view, "explain": {**h.explain, "dense": None, "view": "current"}})
        out.append(h)
    views = [i for i, h in enumerate(out) if h.explain.get("view") == "current" and h.explain.get("dense") is None]
    if cosines is not None and views:
        for i, c in zip(views, cosines([out[i].memory for i in views])):
            out[i] = out[i].model_copy(update={"explain": {**out[i].explain, "dense": float(c)}})
    return (without_past_words(query) if past else query), out


def shown_hits(hits: list[Hit]) -> list[Hit]:
    """The hits as ``context()`` shows them: a current memory as it holds now (without the words of its superseded
    claims; left out when nothing else is left); a memory that no longer holds (read by a past question) as it
    is, for the caller to mark with its end ("until 2024-03")."""
    out = []
    for h in hits:
        view = current_view(h.memory)
        if view is not None:
            out.append(h if view is h.memory else h.model_copy(update={"memory": view}))
    return out
