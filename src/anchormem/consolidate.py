"""Storage tiers and consolidation: archive/restore, near-duplicate merges, episode roll-ups, per-user summaries.

**Tiers.** Every memory is ``"warm"`` (the default) or ``"cold"`` (archived). Warm memories are what ``search``,
``ask``, ``context`` and ``get_all`` see. Cold memories are left out of those unless the filter names ``tier``
(``filters={"tier": "cold"}`` shows only archived ones, ``{"tier": {"in": ["warm", "cold"]}}`` both); they stay
in the store with their vectors, keyword index, entities and provenance, and are returned by ``get(id)``,
``history``, ``export`` and every ``as_of`` read (an archived memory was still true then). A tier move is a
history version (``ARCHIVE`` / ``RESTORE``: who, when, why). ``Memory.archive`` / ``Memory.restore`` move
memories by id or by ``user_id`` + filters; a restatement of an archived memory (``add`` returns ``NOOP`` on it)
restores it at once. The hot tier (an in-process cache of frequent reads) is separate and follows writes.

**Consolidation** (:func:`consolidate`, ``Memory.consolidate``, ``anchormem consolidate``; one user per call,
scheduled by you or on demand), in this order:

1. *Promote*: a cold memory that was retrieved after it was archived (``last_accessed_at > archived_at``: a
   search with a tier filter or ``as_of`` returned it) goes back to warm.
2. *Merge near-duplicates*: current warm memories of one user with the same kind, source, agent and speaker
   whose vectors have cosine ≥ :data:`MERGE_MIN_COSINE` **and** whose word sets (CJK: characters) have Jaccard
   overlap ≥ :data:`MERGE_MIN_OVERLAP`, and which say the same values (:func:`same_values`: equal numbers, equal
   negation, equal fact slot/value/polarity, event dates within a day). The oldest is kept; the others are closed
   (``valid_to`` = now, ``superseded_by`` = the kept id, ``MERGE`` history rows) and their source message ids
   and access counts go to the kept one. Summaries are never merged.
3. *Roll up old episodes*: current warm episodes (kinds :data:`EPISODE_KINDS`) said more than
   ``episode_age_days`` (:data:`EPISODE_AGE_DAYS`, 30) before the user's latest activity (:func:`user_clock`, not the
   wall clock) are clustered by session (episodes without a session:
   by ISO week of when they were said). Each cluster gets a summary (the session's summary, rebuilt so it covers
   every turn; for a week, a new one; verbatim lines from :mod:`anchormem.summaries`, so numbers and negations
   are kept) and its episodes are archived. A cluster with nothing worth a summary line stays warm.
4. *Demote idle memories*: current warm memories (summaries excepted) with
   :func:`anchormem.lifecycle.importance` ≤ :data:`DEMOTE_MAX_IMPORTANCE` (0.6: an utterance, question or
   assistant turn that no search ever returned; facts score ≥ 0.8 and commitments ≥ 0.75, so they never qualify)
   and no access for ``idle_days`` (:data:`IDLE_DAYS`, 90; the last access, or when it was said) are archived.
5. *Per-user summary*: the user's session and cluster summaries are rolled up into one ``kind="summary"`` memory
   with ``metadata["summary_level"] == "user"`` (:func:`user_summary_memory`), superseding the previous one.

Thresholds were measured with ``python bench/consolidate_thresholds.py`` (``bench/results/consolidate_thresholds.json``)
on LoCoMo conversations with the default embedder (multilingual-e5-small): see that file and docs/api.md.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field, computed_field

from .errors import InvalidInputError
from .facts.grounding import negation_count
from .filters import And, Cond, parse_filters
from .ingest.classify import content_hash
from .lifecycle import importance, not_expired
from .stores.protocol import NewMemory
from .summary_currency import closed_facts, current_lines, held_now
from .summaries import SECTIONS, Summary, SummaryLine, datetime_of, session_summary_memory, summarize_messages, \
    summary_metadata
from .text.tokenize import index_text, query_terms
from .timeutil import to_utc, utcnow
from .validate import check_id
from .types import MemoryItem, Scope

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["ConsolidateReport", "MergeGroup", "EpisodeCluster", "consolidate", "near_duplicates", "same_values",
           "text_overlap", "user_summary_memory", "archive", "restore", "MERGE_MIN_COSINE", "MERGE_MIN_OVERLAP",
           "EPISODE_KINDS", "EPISODE_AGE_DAYS", "IDLE_DAYS", "DEMOTE_MAX_IMPORTANCE", "USER_SUMMARY_MAX_LINES",
           "USER_LEVEL"]

# Measured on LoCoMo (bench/consolidate_thresholds.py): see the module docstring.
MERGE_MIN_COSINE = 0.95
MERGE_MIN_OVERLAP = 0.75
EPISODE_KINDS = ("utterance", "question", "assistant")
EPISODE_AGE_DAYS = 30
IDLE_DAYS = 90
DEMOTE_MAX_IMPORTANCE = 0.6
USER_SUMMARY_MAX_LINES = 60
USER_LEVEL = "user"  # metadata["summary_level"] of the per-user summary ("session" / "cluster" for the others)

_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_END = re.compile(r"[\s.!?。！？…~]+$")
_NUMS = re.compile(r"\d+(?:[.,:/]\d+)*|[零〇一二两三四五六七八九十百千万亿]+")


# ------------------------------------------------------------------------------------------------ report
class MergeGroup(BaseModel):
    """Near-duplicates merged into ``kept`` (``merged``: the closed ids)."""

    kept: str
    merged: list[str]


class EpisodeCluster(BaseModel):
    """Old episodes rolled up: ``key`` is ``"session:<id>"`` or ``"week:<YYYY-Www>"``; ``summary_id`` is the
    summary that covers them (None in a dry run, or when nothing was worth a line: then they stay warm)."""

    key: str
    summary_id: str | None = None
    episodes: list[str] = Field(default_factory=list)


class ConsolidateReport(BaseModel):
    """What :func:`consolidate` did (or, with ``dry_run``, would do) for one user. ``archived`` = episodes rolled up
    plus idle memories demoted (``demoted``); ``promoted``: cold memories back to warm; ``user_summary_id``: the
    per-user summary written (None in a dry run or when the user has no session summary)."""

    user_id: str
    dry_run: bool
    now: datetime
    promoted: list[str] = Field(default_factory=list)
    merged: list[MergeGroup] = Field(default_factory=list)
    clusters: list[EpisodeCluster] = Field(default_factory=list)
    archived: list[str] = Field(default_factory=list)
    demoted: list[str] = Field(default_factory=list)
    user_summary_id: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def counts(self) -> dict[str, int]:
        """``{"promoted", "merged" (closed duplicates), "clusters", "archived", "demoted", "user_summary"}``."""
        return {"promoted": len(self.promoted), "merged": sum(len(g.merged) for g in self.merged),
                "clusters": len([c for c in self.clusters if c.summary_id or self.dry_run]),
                "archived": len(self.archived), "demoted": len(self.demoted),
                "user_summary": int(self.user_summary_id is not None)}


# ------------------------------------------------------------------------------------------------ duplicates
def _tokens(text: str) -> set[str]:
    low = text.casefold()
    return {w for w in _WORDS.findall(_CJK.sub(" ", low))} | set(_CJK.findall(low))


def text_overlap(a: str, b: str) -> float:
    """Jaccard overlap of two texts' word sets (every word, stopwords and negations included; CJK characters count
    one by one), in [0, 1]."""
    ta, tb = _tokens(a), _tokens(b)
    return len(ta & tb) / len(ta | tb) if ta or tb else 1.0


def _negations(text: str) -> int:
    return negation_count(text)


def same_values(a: MemoryItem, b: MemoryItem) -> bool:
    """True when two memories state the same values: the same numbers (digits and Chinese numerals), as many
    negation words ("not", "never", "no longer", "不", "没"…: a second negation flips a sentence too), the same
    fact (slot, value, polarity) and event dates at most a day apart. Near-duplicates that differ here are never
    merged ("I paid 4500" vs "I paid 4800", "I eat meat" vs "I don't eat meat")."""
    if sorted(_NUMS.findall(a.text)) != sorted(_NUMS.findall(b.text)):
        return False
    if _negations(a.text) != _negations(b.text):
        return False
    if (a.fact is None) != (b.fact is None) or (a.fact is not None and b.fact is not None and (
            a.fact.slot, a.fact.value.casefold(), a.fact.polarity) != (b.fact.slot, b.fact.value.casefold(),
                                                                      b.fact.polarity)):
        return False
    if (a.event_time is None) != (b.event_time is None):
        return False
    return a.event_time is None or b.event_time is None or abs(a.event_time - b.event_time) <= timedelta(days=1)


def near_duplicates(items: list[MemoryItem], vectors: dict[str, np.ndarray], *,
                    min_cosine: float = MERGE_MIN_COSINE, min_overlap: float = MERGE_MIN_OVERLAP
                    ) -> list[tuple[MemoryItem, list[MemoryItem]]]:
    """Groups ``(kept, duplicates)`` among ``items`` (oldest kept): same kind, source, agent and speaker, cosine of
    the stored ``vectors`` (id → unit vector) ≥ ``min_cosine``, :func:`text_overlap` ≥ ``min_overlap`` and
    :func:`same_values` with the kept memory. Summaries are skipped. Pure; O(n²) dot products per group, in
    blocks of 512 rows."""
    groups: dict[tuple, list[MemoryItem]] = {}
    for it in sorted(items, key=lambda m: (m.created_at, m.id)):
        if it.kind != "summary" and it.id in vectors:
            groups.setdefault((it.kind, it.source, it.agent_id, (it.speaker or "").casefold()), []).append(it)
    out: list[tuple[MemoryItem, list[MemoryItem]]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        mat = np.vstack([vectors[m.id] for m in members]).astype(np.float32)
        cands: dict[int, list[tuple[float, int]]] = {}
        for start in range(0, len(members), 512):
            sims = mat[start : start + 512] @ mat.T
            rows, cols = np.nonzero(sims >= min_cosine)
            for r, c in zip(rows.tolist(), cols.tolist()):
                if c < start + r:  # an earlier memory
                    cands.setdefault(start + r, []).append((float(sims[r, c]), c))
        keeper_of: dict[int, int] = {}
        dups: dict[int, list[MemoryItem]] = {}
        for i, m in enumerate(members):
            for _, j in sorted(cands.get(i, []), reverse=True):
                k = keeper_of.get(j, j)
                if text_overlap(members[k].text, m.text) >= min_overlap and same_values(members[k], m):
                    keeper_of[i] = k
                    dups.setdefault(k, []).append(m)
                    break
        out += [(members[k], ds) for k, ds in sorted(dups.items())]
    return out


# ------------------------------------------------------------------------------------------------ summaries
def _summary_vector(store: Any, tenant: str, ids: list[str], embedder: Any, text: str) -> np.ndarray:
    vecs = list(store.get_vectors(tenant, ids).values()) if ids else []
    if vecs:
        v = np.mean(np.vstack(vecs), axis=0)
        return (v / (np.linalg.norm(v) or 1.0)).astype(np.float32)
    return np.asarray(embedder.embed_documents([text[:600]])[0], dtype=np.float32)


def _summary_new(store: Any, scope: Scope, summary: Summary, text: str, *, when: datetime, meta: dict[str, Any],
                 near: list[str], old: list[str], embedder: Any, hash_key: str) -> NewMemory:
    item = MemoryItem(id=uuid.uuid4().hex, text=text, tenant=scope.tenant, user_id=scope.user_id,
                      agent_id=scope.agent_id, session_id=scope.session_id, kind="summary", role="system",
                      source="inferred", created_at=when, valid_from=when, confidence=1.0,
                      metadata={**summary_metadata(summary), **meta}, source_message_ids=summary.message_ids,
                      source_text="\n".join(ln.text for ln in summary.lines))
    vec = _summary_vector(store, scope.tenant, near, embedder, text)
    return NewMemory(item, vec, content_hash(hash_key + "\x00" + text, kind="summary", source="inferred",
                                             speaker=None), index_text(text), old)


def _alive_messages(items: list[MemoryItem], now: datetime) -> set[str]:
    """Source message ids that a current, unexpired, non-summary memory (any tier) still stands for."""
    return {mid for m in items if m.kind != "summary" and not (m.expires_at is not None and m.expires_at <= now)
            for mid in m.source_message_ids}


def _level(m: MemoryItem) -> str:
    return str((m.metadata or {}).get("summary_level") or "session")


def user_summary_memory(store: Any, scope: Scope, *, embedder: Any, now: datetime | None = None,
                        max_lines: int = USER_SUMMARY_MAX_LINES) -> NewMemory | None:
    """The ``NewMemory`` of a user's rolled-up summary (``scope``: tenant + user, optionally agent), superseding
    the current one, or None when the user has no session/cluster summary with a line still backed by a memory.

    Lines are the session and cluster summaries' lines (verbatim sentences quoting stored messages), kept only
    while a current memory still stands for the quoted message (deleted, superseded or expired memories drop out),
    without repeats (case-folded), at most ``max_lines``: facts, agreements and to-dos before details, newer
    sessions before older ones; shown oldest first within each section. The text starts with
    ``User summary: N sessions, <first day>..<last day>``; ``metadata["summary_level"] == "user"``; the vector is
    the normalised mean of the rolled-up summaries' vectors (no extra embedding)."""
    when = now or utcnow()
    user_scope = Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id)
    items = held_now(store, user_scope, when)  # (what a value scheduled ahead replaces holds until its date)
    parts = sorted([m for m in items if m.kind == "summary" and _level(m) != USER_LEVEL],
                   key=lambda m: (m.created_at, m.id))
    old = [m.id for m in items if m.kind == "summary" and _level(m) == USER_LEVEL]
    alive = _alive_messages(items, when)
    ranked: list[tuple[int, int, int, SummaryLine, MemoryItem]] = []
    seen: set[str] = set()
    for pi, part in enumerate(reversed(parts)):  # newest summary first: its lines win a repeat
        try:
            raw = json.loads((part.metadata or {}).get("summary_lines") or "[]")
        except (TypeError, ValueError):
            continue
        for li, ln in enumerate(raw):
            try:
                line = SummaryLine(str(ln["section"]), str(ln["text"]), str(ln["message_id"]), ln.get("speaker"))
            except (KeyError, TypeError):
                continue
            key = _END.sub("", " ".join(line.text.casefold().split()))
            if line.section not in SECTIONS or line.message_id not in alive or key in seen:
                continue
            seen.add(key)
            ranked.append((int(line.section == "details"), pi, li, line, part))
    if not ranked:
        return None
    chosen = sorted(ranked, key=lambda r: (r[0], r[1], r[2]))[:max_lines]
    chosen.sort(key=lambda r: (-r[1], r[2]))  # oldest summary first, then line order
    used = list(dict.fromkeys(r[4].id for r in chosen))
    by_id = {p.id: p for p in parts}
    summary = Summary(session_id=None, lines=current_lines([r[3] for r in chosen], items, closed_facts(store, scope)),
                      messages=sum(int((by_id[u].metadata or {}).get("summary_messages") or 0) for u in used))
    words: Counter[str] = Counter(w for ln in summary.lines for w in query_terms(ln.text) if len(w) > 1)
    summary.topic = [w for w, _ in words.most_common(5)]
    first, last = min(by_id[u].created_at for u in used), max(by_id[u].created_at for u in used)
    sessions = {by_id[u].session_id or (by_id[u].metadata or {}).get("summary_cluster") for u in used}
    text = (f"User summary: {len(sessions)} session{'s' if len(sessions) != 1 else ''}, "
            f"{first.date().isoformat()}..{last.date().isoformat()}\n" + summary.render())
    stamp = max([last] + [m.valid_from for m in items if m.id in old])
    return _summary_new(store, user_scope, summary, text, when=stamp, embedder=embedder, near=used, old=old,
                        hash_key="user", meta={"summary_level": USER_LEVEL, "summary_sessions": len(sessions)})


def _cluster_summary(store: Any, scope: Scope, key: str, episodes: list[MemoryItem], *, embedder: Any,
                     old: list[str]) -> NewMemory | None:
    """A summary of sessionless episodes (one ISO week), verbatim lines from :func:`summarize_messages`."""
    cited = list(dict.fromkeys(mid for m in episodes for mid in m.source_message_ids))
    msgs = store.messages(Scope(tenant=scope.tenant, user_id=scope.user_id), cited) if cited else []
    summary = summarize_messages(msgs)
    if not summary.lines:
        return None
    last = max(datetime_of(m["timestamp"]) for m in msgs)
    text = f"Week {key.split(':', 1)[1]}\n" + summary.render()
    lines = set(summary.message_ids)
    near = [m.id for m in episodes if lines & set(m.source_message_ids)]
    return _summary_new(store, Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id),
                        summary, text, when=last, embedder=embedder, near=near, old=old, hash_key=key,
                        meta={"summary_level": "cluster", "summary_cluster": key})


def build_user_summary(mem: "Memory", scope: Scope, *, now: datetime | None = None,
                       build_sessions: bool = True) -> MemoryItem | None:
    """Write the user's rolled-up summary (first building a summary for every session that has none, with
    ``build_sessions``). Returns the stored summary (or the identical current one), or None."""
    when = now or utcnow()
    if build_sessions:
        items = mem.store.list_memories(scope, None)
        have = {m.session_id for m in items if m.kind == "summary" and _level(m) == "session"}
        for sid in sorted({m.session_id for m in items if m.session_id and m.kind != "summary"} - have):
            new = session_summary_memory(mem.store, Scope(tenant=scope.tenant, user_id=scope.user_id,
                                                          agent_id=scope.agent_id, session_id=sid),
                                         llm=mem.llm, embedder=mem.embedder, now=when)
            if new is not None:
                mem.store.write([], [new], actor="summarize")
    new = user_summary_memory(mem.store, scope, embedder=mem.embedder, now=when)
    if new is None:
        return None
    results = mem.store.write([], [new], actor="summarize")
    return next((r.item for r in results if r.event in ("ADD", "NOOP")), None)


def current_user_summary(store: Any, scope: Scope) -> MemoryItem | None:
    """The user's current rolled-up summary (``metadata["summary_level"] == "user"``), or None."""
    items = store.list_memories(Scope(tenant=scope.tenant, user_id=scope.user_id, agent_id=scope.agent_id),
                                parse_filters({"kind": "summary", "metadata.summary_level": USER_LEVEL}))
    return items[-1] if items else None


# ------------------------------------------------------------------------------------------------ archive / restore
def _targets(mem: "Memory", ids: list[str] | None, user_id: str | None, filters: dict[str, Any] | None,
             tier_from: str) -> list[str]:
    if (ids is None) == (user_id is None):
        raise InvalidInputError("give either ids or user_id (with optional filters), not both or neither")
    if ids is not None:
        if isinstance(ids, str):
            ids = [ids]
        if not isinstance(ids, (list, tuple)) or not ids or not all(isinstance(i, str) and i for i in ids):
            raise InvalidInputError("ids must be a non-empty list of memory ids")
        if filters is not None:
            raise InvalidInputError("filters apply to user_id, not to ids")
        return list(dict.fromkeys(check_id(i, f"ids[{n}]") for n, i in enumerate(ids)))
    scope = mem._scope(user_id)
    where = parse_filters(filters, metadata_keys=lambda: mem.store.metadata_keys(scope))
    tier = Cond("tier", "eq", tier_from)
    return [m.id for m in mem.store.list_memories(scope, tier if where is None else And((where, tier)))]


def archive(mem: "Memory", ids: list[str] | None = None, *, user_id: str | None = None,
            filters: dict[str, Any] | None = None, reason: str | None = None, actor: str = "archive",
            now: datetime | str | None = None) -> list[MemoryItem]:
    """Move memories to the cold tier: by ``ids`` (any tenant memory), or every current warm memory of
    ``user_id`` matching ``filters``. Returns the memories moved (already-cold ones are left out). Raises
    InvalidInputError, NotFoundError (an unknown id: nothing moved), FilterError, ScopeError."""
    when = to_utc(now, field="now") if now is not None else utcnow()
    targets = _targets(mem, ids, user_id, filters, "warm")
    return mem.store.set_tier(mem.tenant, targets, "cold", when=when, actor=actor, reason=reason) if targets else []


def restore(mem: "Memory", ids: list[str] | None = None, *, user_id: str | None = None,
            filters: dict[str, Any] | None = None, reason: str | None = None, actor: str = "restore",
            now: datetime | str | None = None) -> list[MemoryItem]:
    """Move memories back to the warm tier: by ``ids``, or every current cold memory of ``user_id`` matching
    ``filters``. Returns the memories moved. Raises like :func:`archive`."""
    when = to_utc(now, field="now") if now is not None else utcnow()
    targets = _targets(mem, ids, user_id, filters, "cold")
    return mem.store.set_tier(mem.tenant, targets, "warm", when=when, actor=actor, reason=reason) if targets else []


# ------------------------------------------------------------------------------------------------ consolidate
def user_clock(items: list[MemoryItem], now: datetime) -> datetime:
    """The instant ages are measured from for archiving: the user's latest activity (the newest time a memory of
    theirs was said, ``created_at``), or ``now`` if earlier. A user whose conversations were imported from the past,
    or who has been away, does not see everything they said archived at once for being old on the wall clock."""
    said = [m.created_at for m in items if m.kind != "summary"]
    return min(now, max(said)) if said else now


def _week(dt: datetime) -> str:
    y, w, _ = dt.isocalendar()
    return f"week:{y}-W{w:02d}"


def consolidate(mem: "Memory", *, user_id: str, agent_id: str | None = None, now: datetime | str | None = None,
                dry_run: bool = False, episode_age_days: float = EPISODE_AGE_DAYS, idle_days: float = IDLE_DAYS,
                merge: bool = True, progress: Callable[[int, int, str], None] | None = None) -> ConsolidateReport:
    """Consolidate one user's memories (module docstring: promote, merge, roll up old episodes, demote idle ones,
    per-user summary). ``now``: the reference instant (default the clock); ``dry_run``: change nothing and report
    what would change (no summary is written, so ``clusters`` list candidates); ``merge=False`` skips step 2.
    ``progress(done, total, stage)`` is called after each of the 5 steps. Returns a :class:`ConsolidateReport`.
    Raises InvalidInputError (bad ``now`` or day counts), ScopeError."""
    scope = mem._scope(user_id, agent_id)
    when = to_utc(now, field="now") if now is not None else utcnow()
    for name, v in (("episode_age_days", episode_age_days), ("idle_days", idle_days)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise InvalidInputError(f"{name} must be a non-negative number of days, got {v!r}")
    report = ConsolidateReport(user_id=scope.user_id, dry_run=dry_run, now=when)
    store, tenant, actor = mem.store, mem.tenant, "consolidate"
    step = progress or (lambda done, total, stage: None)

    def current() -> list[MemoryItem]:
        return store.list_memories(scope, not_expired(None, when))

    # 1. promote cold memories retrieved since they were archived
    back = [m.id for m in current() if m.tier == "cold" and m.last_accessed_at is not None
            and m.archived_at is not None and m.last_accessed_at > m.archived_at]
    report.promoted = back
    if back and not dry_run:
        store.set_tier(tenant, back, "warm", when=when, actor=actor, reason="accessed since archived")
    step(1, 5, "promote")

    # 2. merge near-duplicates
    if merge:
        warm = [m for m in current() if m.tier == "warm" and m.kind != "summary"]
        vecs = store.get_vectors(tenant, [m.id for m in warm])
        for kept, dups in near_duplicates(warm, vecs):
            report.merged.append(MergeGroup(kept=kept.id, merged=[d.id for d in dups]))
            if not dry_run:
                store.merge_memories(tenant, kept.id, [d.id for d in dups], when=when, actor=actor,
                                     reason="near-duplicate")
    step(2, 5, "merge")

    # 3. roll up old episodes into summaries, archive them; ages on the user's own timeline (user_clock)
    closed = {d for g in report.merged for d in g.merged}
    items = [m for m in current() if m.id not in closed]
    clock = user_clock(items, when)
    cutoff = clock - timedelta(days=episode_age_days)
    clusters: dict[str, list[MemoryItem]] = {}
    for m in items:
        if m.tier == "warm" and m.kind in EPISODE_KINDS and m.created_at < cutoff:
            clusters.setdefault(f"session:{m.session_id}" if m.session_id else _week(m.created_at), []).append(m)
    summaries = [m for m in items if m.kind == "summary"]
    for key, eps in sorted(clusters.items()):
        cl = EpisodeCluster(key=key, episodes=[m.id for m in eps])
        report.clusters.append(cl)
        if dry_run:
            report.archived += cl.episodes
            continue
        if key.startswith("session:"):  # (re)built so it covers every turn; unchanged text → the same summary
            new = session_summary_memory(store, Scope(tenant=tenant, user_id=scope.user_id, agent_id=scope.agent_id,
                                                      session_id=key.split(":", 1)[1]),
                                         llm=mem.llm, embedder=mem.embedder, now=when)
            res = store.write([], [new], actor=actor) if new is not None else []
            cl.summary_id = next((r.item.id for r in res if r.event in ("ADD", "NOOP")), None)
        else:
            old = [s.id for s in summaries if (s.metadata or {}).get("summary_cluster") == key]
            new = _cluster_summary(store, scope, key, eps, embedder=mem.embedder, old=old)
            res = store.write([], [new], actor=actor) if new is not None else []
            cl.summary_id = next((r.item.id for r in res if r.event in ("ADD", "NOOP")), None)
        if cl.summary_id is not None:
            store.set_tier(tenant, cl.episodes, "cold", when=when, actor=actor,
                           reason=f"rolled up into summary {cl.summary_id}")
            report.archived += cl.episodes
    step(3, 5, "roll up episodes")

    # 4. demote idle, unimportant memories
    rolled = set(report.archived)
    idle_cut = clock - timedelta(days=idle_days)
    idle = [m.id for m in current() if m.tier == "warm" and m.kind != "summary" and m.id not in closed
            and m.id not in rolled and importance(m) <= DEMOTE_MAX_IMPORTANCE + 1e-9
            and (m.last_accessed_at or m.created_at) < idle_cut]
    report.demoted = idle
    report.archived += idle
    if idle and not dry_run:
        store.set_tier(tenant, idle, "cold", when=when, actor=actor,
                       reason=f"idle {idle_days:g} days, importance <= {DEMOTE_MAX_IMPORTANCE}")
    step(4, 5, "demote idle")

    # 5. the per-user summary
    if not dry_run:
        new = user_summary_memory(store, scope, embedder=mem.embedder, now=when)
        res = store.write([], [new], actor=actor) if new is not None else []
        report.user_summary_id = next((r.item.id for r in res if r.event in ("ADD", "NOOP")), None)
    step(5, 5, "user summary")
    return report
