"""Assemble a prompt-ready context block from session summary, long-term memories and recent turns.

The block has up to three sections, in this order (a section with nothing in it is left out)::

    ## Session summary
    <the session's summary, verbatim; when the session has none: "## User summary" and the user's rolled-up
     summary (``Memory.user_summary``, written by ``consolidate`` / ``summarize(user_id=...)``), not decayed>

    ## Relevant memories
    - [2024-05-06, about 2024-05-01] user (林晓): 我上周三刚搬到杭州，月租4500元。 (id 45998b7c…)
    (a memory shown from the past, read by a past question, ends "(until 2024-03)"; a memory partly superseded is
     shown without the superseded words: :func:`anchormem.retrieval.currency.shown_hits`; one line per source
     turn, a fact that is no statement of its own shown as its turn: :mod:`anchormem.session.turn_lines`)

    ## Recent conversation
    assistant: …
    user: <the current message>

Without a session (``session_id=None``) the block is the user's: no session summary (the user summary stands in),
memories searched without a conversation, and the current message alone under "## Recent conversation".

Budget (tokens by the working buffer's counter, :func:`~anchormem.session.buffer.count_tokens` by default):
the newest user message and its section title come first and must fit (else InvalidInputError); then the
summary if it fits within ``summary_share`` of the budget; the rest is split between recent turns (newest first,
contiguous, decayed turns left out) and long-term memories (best first, ``memory_share`` of what is left), and
whatever one side leaves unused goes to the other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import InvalidInputError
from ..ingest.normalize import check_text
from ..timeutil import day_of, month_of, to_utc, utcnow
from ..answering.extractive import plan_note
from ..facts.claims import corrected_note
from ..answering.pending import asked_for, pending_changes, pending_note
from ..facts.claims import current_view, said_on, schedule_note
from ..retrieval.currency import shown_hits
from ..text.tokenize import has_cjk
from ..types import Hit
from .buffer import MAX_TURN_CHARS, Turn, WorkingBuffer, decay_weight, make_turn
from .store import SessionKey, SessionStore
from .turn_lines import one_per_turn, store_turn_of

__all__ = ["ContextBlock", "ContextSection", "build_context", "TITLES"]

SectionName = Literal["summary", "memories", "recent_turns"]
TITLES: dict[str, str] = {
    "summary": "## Session summary",
    "user_summary": "## User summary",
    "memories": "## Relevant memories",
    "recent_turns": "## Recent conversation",
}


class ContextSection(BaseModel):
    """One section of a :class:`ContextBlock`.

    ``text``: the title line and the section's lines; ``tokens``: its token count; ``items``: one dict per line —
    summary ``{"text", "timestamp", "weight", "tokens"}``; memory ``{"id", "text", "speaker", "role", "date",
    "event_date", "score", "tokens"}``; turn ``{"role", "content", "timestamp", "name"?, "weight", "tokens"}``
    (turns oldest first, ``weight`` = :func:`~anchormem.session.buffer.decay_weight` of the item's age).
    """

    name: SectionName
    title: str
    text: str
    tokens: int
    items: list[dict[str, Any]] = Field(default_factory=list)


class ContextBlock(BaseModel):
    """A prompt-ready context. ``text``: the sections joined by blank lines; ``used_tokens`` (≤ ``budget_tokens``)
    is its token count; ``memory_ids``: the long-term memories included, in the order shown; ``dropped``: how many
    stored turns, retrieved memories and summaries did not fit (or were stale / duplicates of a shown turn)."""

    text: str
    sections: list[ContextSection]
    used_tokens: int
    budget_tokens: int
    memory_ids: list[str] = Field(default_factory=list)
    dropped: dict[str, int] = Field(default_factory=dict)

    def section(self, name: str) -> ContextSection | None:
        """The section called ``name`` (summary, memories, recent_turns), or None if it was left out."""
        return next((s for s in self.sections if s.name == name), None)


def _date(dt: datetime) -> str:
    return day_of(dt)  # the users' calendar day (Config.timezone; UTC when unset)


def _event_date(start: datetime | None, end: datetime | None) -> str | None:
    """A resolved event time as a calendar day or a day range. Stored bounds are UTC instants of the speaker's
    local day(s); moving 12 h inwards from each bound lands on the speaker's day for any offset under 12 h."""
    if start is None:
        return None
    end = end or start
    if end - start <= timedelta(days=1, hours=1):
        return _date(start + (end - start) / 2)
    first, last = _date(start + timedelta(hours=12)), _date(end - timedelta(hours=12))
    return first if first == last else f"{first}..{last}"


def _memory_line(hit: Hit, show_ids: bool, note: str | None = None) -> tuple[str, dict[str, Any]]:
    """A memory's line; ``note``: a change of it pending review (:mod:`anchormem.answering.pending`)."""
    m = hit.memory
    said, event = _date(said_on(m)), _event_date(m.event_time, m.event_time_end)
    when = f"{said}, about {event}" if event and event != said else said
    who = f"{m.role} ({m.speaker})" if m.speaker else m.role
    planned = schedule_note(m, zh=has_cjk(m.text))  # a change scheduled ahead: "planned: from 2024-04-01", or
    fixed = corrected_note(m, zh=has_cjk(m.text))  # a value the user took back: never held, no "until"
    until = f" ({planned})" if planned else f" ({fixed})" if fixed else (  # what holds until then; else a memory
        f" (until {month_of(m.valid_to)})" if m.valid_to is not None else "")  # shown from the past
    until += f" ({note})" if note else ""
    plan = plan_note(m, zh=has_cjk(m.text))  # "Done moving!" / "the move is off": the plan it realised or ended
    until += f" ({plan})" if plan else ""
    line = f"- [{when}] {who}: {m.text}{until}" + (f" (id {m.id})" if show_ids else "")
    return line, {"id": m.id, "text": m.text, "speaker": m.speaker, "role": m.role, "date": said,
                  "event_date": event, "score": hit.score}


def summary_lines(hit: Hit, said: set[str]) -> Hit | None:
    """A summary hit with only its ``- `` lines not in ``said`` (the lines already in the block, which it then
    holds too), under their section heads; None when it has none left: no line is repeated within one block."""
    keep: list[str] = []
    head: str | None = None
    for line in hit.memory.text.splitlines():
        if not line.startswith("- "):
            head = line
            continue
        if line in said:
            continue
        said.add(line)
        if head is not None:
            keep.append(head)
            head = None
        keep.append(line)
    if not keep:
        return None
    return hit.model_copy(update={"memory": hit.memory.model_copy(update={"text": "\n".join(keep)})})


def _latest_said(memory: Any, query: str, hits: list[Hit]) -> tuple[list[Hit], dict[str, str]]:
    """``hits`` with the user's later statement that answers ``query`` (a question about their own present state or
    a person's of theirs: :func:`~anchormem.answering.recency.asked_person`) above the earlier one, and the notes of
    the earlier ones ({id: "an earlier statement, before …"}): :func:`~anchormem.answering.recency.latest_said_hits`,
    by meaning too with a calibrated embedder. Whatever the query, a hit another hit answers later with a new value
    of one of its slots is noted the same way (:func:`~anchormem.answering.recency.later_by_slot`). Off with
    ``AnswerConfig.latest_said``."""
    from ..answering.evidence import profile_for
    from ..answering.recency import asked_person, earlier_note, later_by_slot, latest_said_hits

    config = getattr(memory, "answer_config", None)
    if len(hits) < 2 or (config is not None and not config.latest_said):
        return hits, {}
    notes: dict[str, str] = {}
    if asked_person(query) is not None:
        emb = getattr(memory, "embedder", None)
        calibrated = emb is not None and profile_for(getattr(emb, "name", None), emb)[1] is not None
        searcher = getattr(memory, "_searcher", None)
        qv = (lambda: searcher.embed_query(query)) if searcher is not None else \
            (lambda: emb.embed_query(query)) if emb is not None else None
        hits, notes = latest_said_hits(query, hits, embedder=emb if calibrated else None,
                                       question_vector=qv if calibrated else None)
    by_id = {h.memory.id: h.memory for h in hits}
    for oid, n in later_by_slot(list(by_id.values())).items():
        notes.setdefault(oid, earlier_note(n, zh=has_cjk(by_id[oid].text)))
    return hits, notes


def _share(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidInputError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)


def build_context(memory: Any, *, user_id: str, session_id: str | None, query: str, budget_tokens: int,
                  session_store: SessionStore, agent_id: str | None = None, buffer: WorkingBuffer | None = None,
                  memory_limit: int = 10, memory_share: float = 0.4, summary_share: float = 0.25,
                  context_turns: int = 6, filters: dict[str, Any] | None = None,
                  show_ids: bool = True) -> ContextBlock:
    """Build a :class:`ContextBlock` for the current user message ``query`` within ``budget_tokens``.

    memory: a :class:`~anchormem.Memory` (its ``tenant`` scopes the session; its ``search`` finds long-term
    memories with ``context`` = the last ``context_turns`` session turns, ``limit=memory_limit``, ``filters``,
    ``agent_id``). session_store: where the session's turns and summary are (read only; nothing is written).
    session_id: the session, or None for a user-level block: no stored turns and no session summary (the user's
    rolled-up summary stands in when there is one), memories searched without a conversation, and the current
    message alone under "## Recent conversation".
    query: the current user message; when the session's last user turn has the same text it is not repeated,
    otherwise it is shown as the newest turn. buffer: the :class:`WorkingBuffer` (max turns, decay half-life and
    cut-off, token counter; its counter must be additive over newlines, as the default is).
    memory_share: share of the free budget (after the newest message and summary) offered first to memories;
    summary_share: the summary is shown only if it costs at most this share of the budget and has not decayed
    below ``buffer.min_weight``. memory_limit=0 skips long-term search. show_ids: put memory ids in the text.

    Raises InvalidInputError (budget too small for the newest user message — the message gives both sizes —,
    bad arguments, empty query), ScopeError (bad user_id / session_id), and whatever ``memory.search`` or the
    session store raise (FilterError, StoreError, ...).
    """
    buffer = buffer or WorkingBuffer()
    count = buffer.counter
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
        raise InvalidInputError(f"budget_tokens must be a positive integer, got {budget_tokens!r}")
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or not 0 <= memory_limit <= 1000:
        raise InvalidInputError(f"memory_limit must be an integer from 0 to 1000, got {memory_limit!r}")
    if isinstance(context_turns, bool) or not isinstance(context_turns, int) or context_turns < 0:
        raise InvalidInputError(f"context_turns must be a non-negative integer, got {context_turns!r}")
    memory_share, summary_share = _share(memory_share, "memory_share"), _share(summary_share, "summary_share")
    settings = getattr(memory, "settings", None)
    query = check_text(query, what="query", max_chars=getattr(settings, "max_query_chars", MAX_TURN_CHARS),
                       hint="shorten the query, or raise max_query_chars")
    tenant = getattr(memory, "tenant", "default")
    key = SessionKey(user_id=user_id, session_id=session_id, tenant=tenant) if session_id is not None else None
    now = utcnow()

    stored: list[Turn] = session_store.turns(key) if key is not None else []
    turns: list[Mapping[str, Any]] = list(stored)
    last_user = next((t for t in reversed(turns) if t["role"] == "user"), None)
    if last_user is None or last_user["content"].strip() != query.strip():
        turns.append(make_turn({"role": "user", "content": query}, now=now))
    newest = next(t for t in reversed(turns) if t["role"] == "user")

    # 1. the newest user message and its section title: mandatory
    turn_title = count(TITLES["recent_turns"])
    newest_cost = buffer.cost(newest)
    if turn_title + newest_cost > budget_tokens:
        raise InvalidInputError(
            f"budget_tokens={budget_tokens} is too small for the newest user message: it needs "
            f"{turn_title + newest_cost} tokens ({newest_cost} for the message, {turn_title} for the section title)")
    left = budget_tokens - turn_title  # still includes the newest message's cost
    dropped = {"turns": 0, "memories": 0, "summary": 0}

    # 2. the session summary, if it fits its share and is not stale
    sections: dict[str, ContextSection] = {}
    summary = session_store.get_summary(key) if key is not None else None
    if summary is not None:
        weight = decay_weight((now - to_utc(summary["timestamp"])).total_seconds(), buffer.half_life_seconds)
        cost = count(TITLES["summary"]) + count(summary["text"])
        if weight >= buffer.min_weight and cost <= min(math.floor(summary_share * budget_tokens),
                                                       left - newest_cost):
            sections["summary"] = ContextSection(
                name="summary", title=TITLES["summary"], text=f"{TITLES['summary']}\n{summary['text']}", tokens=cost,
                items=[{**summary, "weight": weight, "tokens": count(summary["text"])}])
            left -= cost
        else:
            dropped["summary"] = 1
    elif getattr(memory, "user_summary", None) is not None:  # no session summary: the user's rolled-up one
        us = memory.user_summary(user_id=user_id, agent_id=agent_id)
        if us is not None:
            cost = count(TITLES["user_summary"]) + count(us.text)
            if cost <= min(math.floor(summary_share * budget_tokens), left - newest_cost):
                sections["summary"] = ContextSection(
                    name="summary", title=TITLES["user_summary"], text=f"{TITLES['user_summary']}\n{us.text}",
                    tokens=cost, items=[{"text": us.text, "timestamp": us.created_at.isoformat(), "weight": 1.0,
                                         "tokens": count(us.text), "id": us.id, "level": "user"}])
                left -= cost
            else:
                dropped["summary"] = 1

    # 3. recent turns, first pass: what is not offered to memories
    free = left - newest_cost
    first = buffer.window(turns, left - math.floor(free * memory_share), now=now)

    # 4. long-term memories, best first, skipping those that repeat a shown turn
    mem_lines: list[str] = []
    mem_items: list[dict[str, Any]] = []
    mem_room = left - first.used_tokens
    if memory_limit > 0:
        ctx = [dict(t) for t in turns if t is not newest][-context_turns:] if context_turns else []
        hits = memory.search(query, user_id=user_id, agent_id=agent_id, context=ctx or None, limit=memory_limit,
                             filters=filters)
        # the sense the conversation rejects (listed by search after the rest, SearchConfig.anchor_demote) is not
        # put in the prompt, as before demotion
        hits = [h for h in hits if not (h.explain.get("anchor") or {}).get("demoted")]
        hits, earlier = _latest_said(memory, query, hits)  # the asker's later statement above the earlier one
        shown = [t["content"] for t in first.turns]
        title_cost = count(TITLES["memories"])
        said = set(sections["summary"].text.splitlines()) if "summary" in sections else set()
        pend = pending_changes(memory.store, tenant, user_id) if hits and hasattr(memory, "store") else []
        asked = asked_for(query) if pend and query else ()  # a pending change is noted where its slot is read
        store = getattr(memory, "store", None)
        lines, merged = one_per_turn(shown_hits(hits), store_turn_of(store, tenant) if store is not None else None,
                                     view=current_view)  # as they hold now, one line per source turn
        dropped["memories"] += merged
        for hit in lines:
            if hit.memory.kind == "summary":  # a summary's lines once in the block (summary_lines)
                hit = summary_lines(hit, said)
            text = hit.memory.text.strip() if hit is not None else ""
            if not text or any(text in c for c in shown):
                dropped["memories"] += 1
                continue
            notes = [pending_note(hit.memory, pend, zh=has_cjk(hit.memory.text), asked=asked)
                     if pend and hit.memory.valid_to is None else None,
                     earlier.get(hit.memory.id) or earlier.get(hit.explain.get("turn_of", ""))]  # (a fact's, shown
            # as its turn: :mod:`.turn_lines`)
            line, item = _memory_line(hit, show_ids, "; ".join(n for n in notes if n) or None)
            cost = count(line) + (0 if mem_lines else title_cost)
            if cost > mem_room:
                dropped["memories"] += 1
                continue
            mem_lines.append(line)
            mem_items.append({**item, "tokens": count(line)})
            mem_room -= cost
    if mem_lines:
        body = "\n".join(mem_lines)
        sections["memories"] = ContextSection(
            name="memories", title=TITLES["memories"], text=f"{TITLES['memories']}\n{body}",
            tokens=count(TITLES["memories"]) + sum(i["tokens"] for i in mem_items), items=mem_items)

    # 5. recent turns, second pass: everything the memories left unused (a superset of the first pass)
    mem_used = sections["memories"].tokens if "memories" in sections else 0
    win = buffer.window(turns, left - mem_used, now=now)
    dropped["turns"] = win.dropped  # the current message is always kept, so these are all stored turns
    lines = [buffer.render(t) for t in win.turns]
    sections["recent_turns"] = ContextSection(
        name="recent_turns", title=TITLES["recent_turns"],
        text=TITLES["recent_turns"] + "\n" + "\n".join(lines), tokens=turn_title + win.used_tokens,
        items=[{**t, "weight": w, "tokens": c} for t, w, c in zip(win.turns, win.weights, win.tokens)])

    ordered = [sections[n] for n in ("summary", "memories", "recent_turns") if n in sections]
    text = "\n\n".join(s.text for s in ordered)
    return ContextBlock(text=text, sections=ordered, used_tokens=count(text), budget_tokens=budget_tokens,
                        memory_ids=[i["id"] for i in mem_items], dropped=dropped)
