"""``Memory.add_many``: many messages of one scope in batches, optionally with precomputed vectors.

Every message is checked before the first batch is written (text, role, name, timestamp, metadata, the vectors'
shape and values), so a bad message or vector fails the call with nothing stored. The messages are then written
in batches of at most ``batch_size`` messages and ``max_add_chars`` characters; each batch is one ``add`` (the
same pipeline: chit-chat skipped, facts extracted and reconciled, labels, dedupe, supersede) and one store
transaction. A failure inside a batch rolls that batch back whole; the batches before it stay written (the
exception says how many messages they held).

Untimed messages take their neighbours' times across the whole input as one ``add`` call would (the previous
timed message's, the first timed one's before it), ``timestamp`` when given, else now.

One reconciliation order (issue #22): the turns are taken in the order they were said (their times; turns said at
one instant keep their input order), batches cut in that order, and each turn's facts, plans and changes are planned
against the user's memories as the earlier turns of the call leave them (:func:`anchormem.facts.reconcile.plan_facts`
reads through :class:`anchormem.facts.store_reads.PlanReads`), so the call stores what the same turns added one by
one in time order store: the same current values, the same superseded rows and ``valid_to``, the same plan states.
``on_conflict="skip"`` leaves out a turn already stored (a re-import of the same log): the user's message of the
same session, agent, role, speaker, text and time; nothing is drawn from it again (no utterance, fact or summary).

With ``vectors``, every memory drawn from a message (its chunks when longer than ``chunk_chars``, the sentences
split out as commitments, its fact memories) takes that message's vector; ``add`` embeds a chunk or a split
sentence on its own. For the vectors ``add`` would compute, embed ``embedding_text(content, name)``
(:func:`anchormem.ingest.pipeline.embedding_text`) with the store's embedder.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from ..errors import AnchormemError, InvalidInputError
from ..text.tokenize import segment_once
from ..timeutil import on_calendar, said_time, utcnow
from ..types import Message
from ..validate import check_metadata
from .classify import is_chitchat
from .normalize import chat_turn, normalize_messages

__all__ = ["add_many", "check_vectors", "message_vectors", "DEFAULT_BATCH", "ON_CONFLICT"]

ON_CONFLICT = ("add", "skip")  # add_many's answers to a turn already stored: store it again (as add does), skip it

DEFAULT_BATCH = 500  # messages per batch: one transaction each; ~0.5 s of CPU at the measured write rate


def check_vectors(vectors: Any, n: int, dim: int) -> np.ndarray:
    """``vectors`` as an (n, dim) float32 array of unit rows. Accepts any real array-like of that shape (float64,
    float16, ints...). Raises InvalidInputError naming the problem: not an array of numbers, wrong shape, a value
    that is NaN or infinite, a row of zeros (no direction to normalise)."""
    try:
        arr = np.asarray(vectors)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"vectors: not an array of numbers ({exc})") from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise InvalidInputError(f"vectors: dtype {arr.dtype} is not a real number type (float32 expected)")
    if arr.ndim != 2 or arr.shape != (n, dim):
        raise InvalidInputError(f"vectors: shape {arr.shape} does not match ({n}, {dim}): one row per message, "
                                f"of the store's embedder dimension {dim}")
    arr = arr.astype(np.float32, copy=True)
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        raise InvalidInputError(f"vectors: row {int(np.argmax(bad))} holds NaN or infinite values")
    norms = np.linalg.norm(arr, axis=1)
    if (norms == 0).any():
        raise InvalidInputError(f"vectors: row {int(np.argmax(norms == 0))} is all zeros")
    arr /= norms[:, None]
    return arr


def message_vectors(drafts: Sequence[Any], msgs: Sequence[Message], stored: Sequence[Any], given: np.ndarray,
                    embed: Callable[[list[Any]], np.ndarray] | None = None) -> np.ndarray:
    """(len(drafts), dim) rows of ``given`` (one per message of ``msgs``): each draft takes its source message's.
    ``stored``: the StoredMessages :func:`~.pipeline.draft_memories` made, in order, for the non-system ones.
    A draft whose source message is not in this batch (a fact memory the reconciler opens for older words of the
    user: :func:`anchormem.facts.reconcile.plan_facts`) has no given row: ``embed(drafts)`` gives its vector (as
    ``add`` does); without ``embed`` that raises InvalidInputError."""
    ids = iter(stored)
    row = {next(ids).id: i for i, m in enumerate(msgs) if m.role != "system"}
    if not drafts:
        return given[:0]
    at = [row.get(d.item.source_message_ids[0], -1) if d.item.source_message_ids else -1 for d in drafts]
    out = given[np.maximum(np.asarray(at, dtype=np.int64), 0)]
    other = [i for i, r in enumerate(at) if r < 0]
    if other:
        if embed is None:
            raise InvalidInputError("a memory drafted from an earlier message has no given vector")
        out[other] = np.asarray(embed([drafts[i] for i in other]), dtype=np.float32)
    return out


_WHERE = re.compile(r"message (\d+)")


def _renumber(exc: InvalidInputError, index: Sequence[int]) -> InvalidInputError:
    """The error of a slice, its ``message j`` named by the caller's own index."""
    text = _WHERE.sub(lambda m: f"message {index[int(m.group(1))]}" if int(m.group(1)) < len(index) else m.group(0),
                      str(exc), count=1)
    return InvalidInputError(text)


def _turns(messages: Any) -> tuple[list[dict[str, Any]], list[int]]:
    """The conversation turns of ``messages`` (a str is one user turn; tool steps left out, as ``add`` does) and
    each one's index in ``messages``."""
    if isinstance(messages, (str, bytes, bytearray, dict)) or not isinstance(messages, Sequence) or not messages:
        raise InvalidInputError("messages must be a non-empty list of messages (str or dict each)")
    turns, index = [], []
    for i, raw in enumerate(messages):
        if isinstance(raw, str):
            raw = {"role": "user", "content": raw}
        elif isinstance(raw, Message):
            raw = raw.model_dump()
        if not isinstance(raw, dict):
            raise InvalidInputError(f"message {i}: expected a str or a dict with role and content, got "
                                    f"{type(raw).__name__}")
        turn = chat_turn(raw, f"message {i}")
        if turn is not None:
            turns.append(turn)
            index.append(i)
    if not turns:
        raise InvalidInputError("no message has conversation text: every one is a tool step or has no text part")
    return turns, index


def _check_all(turns: list[dict[str, Any]], index: list[int], *, default_time: datetime, max_chars: int,
               step: int) -> tuple[list[datetime | None], list[int], list[Message]]:
    """Validate every turn (as ``add`` does) in slices of ``step``; returns each one's timestamp (None: untimed),
    length in characters and normalised message (the batches' own: normalised once per call)."""
    times: list[datetime | None] = []
    sizes: list[int] = []
    normed: list[Message] = []
    for start in range(0, len(turns), step):
        part = turns[start:start + step]
        try:
            msgs = normalize_messages(part, default_time=default_time, max_chars=max_chars)
            for j, m in enumerate(msgs):
                if m.metadata is not None:
                    try:
                        check_metadata(m.metadata)
                    except InvalidInputError as exc:
                        raise InvalidInputError(f"message {j}: {exc}") from None
        except InvalidInputError as exc:
            raise _renumber(exc, index[start:start + step]) from None
        times += [m.timestamp if t.get("timestamp") is not None else None for t, m in zip(part, msgs)]
        sizes += [len(m.content) for m in msgs]
        normed += msgs
    return times, sizes, normed


def _fill(times: list[datetime | None], default: datetime, given: bool) -> list[datetime]:
    """Untimed turns: ``default`` when the call gave a timestamp or no turn has one; else the previous timed
    turn's time, the first timed one's before it (``normalize_messages``'s ``neighbour_times``)."""
    first = next((t for t in times if t is not None), None)
    if given or first is None:
        return [t if t is not None else default for t in times]
    out, last = [], first
    for t in times:
        last = t if t is not None else last
        out.append(last)
    return out


def _batches(sizes: list[int], batch_size: int, max_chars: int) -> list[tuple[int, int]]:
    """[start, end) ranges of at most ``batch_size`` turns and ``max_chars`` characters each (a turn over
    ``max_chars`` alone is its own batch; ``add``'s check then names the setting)."""
    out, start, chars = [], 0, 0
    for i, n in enumerate(sizes):
        if i > start and (i - start >= batch_size or chars + n > max_chars):
            out.append((start, i))
            start, chars = i, 0
        chars += n
    out.append((start, len(sizes)))
    return out


def said_order(times: list[datetime]) -> list[int]:
    """The positions of ``times`` in the order said: by time, ties in input order (a stable sort)."""
    return sorted(range(len(times)), key=lambda i: times[i])


def _stored(mem: Any, scope: Any, msgs: list[Message], times: list[datetime]) -> list[bool]:
    """For each turn, whether the scope already holds it: a stored message of the scope's user, session and agent
    with the same role, speaker, text and time (to the millisecond). One read of the session's messages.
    ``msgs``: the turns normalised, ``times``: their times said."""
    have = {(m["agent_id"], m["session_id"], m["role"], m["name"], m["content"],
             round(datetime.fromisoformat(m["timestamp"]).timestamp(), 3))
            for m in mem.store.messages(scope, session_id=scope.session_id)}
    if not have:
        return [False] * len(msgs)
    return [(scope.agent_id, scope.session_id, m.role, m.name, m.content, round(ts.timestamp(), 3)) in have
            for m, ts in zip(msgs, times)]


def add_many(mem: Any, messages: Any, *, user_id: str, agent_id: str | None = None, session_id: str | None = None,
             timestamp: datetime | str | None = None, metadata: dict[str, Any] | None = None,
             vectors: Any = None, batch_size: int = DEFAULT_BATCH,
             on_progress: Callable[[int, int], None] | None = None, return_events: bool = False,
             defer: bool = False, on_conflict: str = "add") -> dict[str, Any]:
    """:meth:`anchormem.Memory.add_many` (its docstring is the contract)."""
    from .limits import check_total_chars

    s = mem.settings
    if on_conflict not in ON_CONFLICT:
        raise InvalidInputError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}, got {on_conflict!r}")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or not 1 <= batch_size <= s.max_add_messages:
        raise InvalidInputError(f"batch_size must be an integer from 1 to max_add_messages "
                                f"({s.max_add_messages:,}), got {batch_size!r}")
    scope = mem._scope(user_id, agent_id, session_id)
    meta = check_metadata(metadata)
    default_time = on_calendar(said_time(timestamp) if timestamp is not None else utcnow())
    turns, index = _turns(messages)
    given = None
    if vectors is not None:
        dim = mem.embedder.dim
        given = check_vectors(vectors, len(messages), dim)[index]
    times, sizes, normed = _check_all(turns, index, default_time=default_time, max_chars=s.max_message_chars,
                                      step=batch_size)
    times = _fill(times, default_time, timestamp is not None)
    n_turns = len(turns)
    keep = said_order(times)  # one reconciliation order: the turns as said (ties: input order)
    if on_conflict == "skip":  # a re-import: the turns already stored are left out with all they would draw
        known = _stored(mem, scope, normed, times)
        keep = [i for i in keep if not known[i]]
    reordered = keep != list(range(n_turns))
    turns, index, times, sizes, normed = ([xs[i] for i in keep] for xs in (turns, index, times, sizes, normed))
    if given is not None:
        given = given[keep]
    counts: dict[str, Any] = {"messages": 0, "batches": 0, "ADD": 0, "NOOP": 0, "chitchat": 0}
    if on_conflict == "skip":
        counts["duplicates"] = n_turns - len(keep)  # turns already stored, left out
    events: list[Any] = []
    if hasattr(mem.store, "warm_vectors"):  # the import keeps the vector index (no search need load it)
        mem.store.warm_vectors(scope.tenant, scope.user_id)
    for start, end in _batches(sizes, batch_size, s.max_add_chars) if turns else []:
        msgs = normed[start:end]  # (normalised by the check: each takes its time said, as add would give it)
        for m, ts in zip(msgs, times[start:end]):
            m.timestamp = ts
        try:
            check_total_chars([m.content for m in msgs], s.max_add_chars)
            with segment_once():
                # turns that say nothing to remember ("ok thanks", 你好) are counted, not silently dropped
                counts["chitchat"] += sum(m.role != "system" and is_chitchat(m.content) for m in msgs)
                got = mem._add_checked(msgs, scope, meta, default_time,
                                       None if given is None else given[start:end], defer=defer)
        except AnchormemError as exc:
            exc.add_note(f"add_many: the {counts['batches']} batch(es) before this one stay written "
                         f"({counts['messages']} of {len(messages)} messages); the failing batch is messages "
                         f"{min(index[start:end])}-{max(index[start:end])} (in the order said; its write is one "
                         "transaction: rolled back whole)")
            raise
        got = [e for e in got if e.event != "SKIP"]  # (counted above as chitchat; a system turn as nothing)
        for e in got:
            counts[e.event] = counts.get(e.event, 0) + 1
        if return_events:
            events += got
        counts["messages"] += end - start
        counts["batches"] += 1
        if on_progress is not None:  # cumulative: input messages handled so far (skipped ones included), of all
            on_progress(len(messages) if end == len(turns) else index[end - 1] + 1 if not reordered else
                        end + (len(messages) - len(turns)) * end // max(1, len(turns)), len(messages))
    if hasattr(mem.store, "index_vectors"):  # the index holds every row on return (the indexer's backlog)
        mem.store.index_vectors(scope.tenant, scope.user_id)
    if hasattr(mem.store, "keep_keywords"):  # and the keyword index too: no search after the call applies them
        mem.store.keep_keywords()
    counts["skipped"] = len(messages) - n_turns  # tool steps and text-less turns
    if return_events:
        counts["events"] = events
    return counts
