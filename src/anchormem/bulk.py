"""Bulk import: many users' conversations into one store, in parallel worker processes.

    from anchormem.bulk import import_batches
    counts = import_batches(batches, path="memories.db", workers=2)

``batches`` come from :func:`anchormem.importers.parse`: ``(scope_kwargs, messages)``, one ``add_many`` each. Batches
are grouped by user and each user's batches run in order in one worker (each through
:meth:`~anchormem.Memory.add_many`: one transaction per 500 messages), so facts supersede in the order they
were said; different users are independent and run side by side.

Why processes: embedding dominates import time and the default engine runs OpenMP threads. A process per core
with one engine thread each keeps both cores busy while the other process does its Python work (segmentation,
labels, SQLite writes), which one process with two engine threads cannot (measured in ``bench/ingest.py``).
Workers open their own :class:`~anchormem.Memory` on the same SQLite file (WAL; writers take turns) or
PostgreSQL URL. An in-memory store cannot be shared: it is imported in-process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from .errors import AnchormemError, InvalidInputError

__all__ = ["enrich_users", "import_batches", "plan_workers"]

Batch = tuple[dict[str, Any], list[dict[str, Any]]]

_worker_mem: Any = None
_worker_queue: Any = None


def plan_workers(batches: Sequence[Batch], workers: int) -> list[list[Batch]]:
    """Group batches by user (order kept within a user), then spread users over ``workers`` lists, largest
    first (longest-processing-time rule, by message count)."""
    by_user: dict[str, list[Batch]] = {}
    for b in batches:
        by_user.setdefault(str(b[0].get("user_id")), []).append(b)
    lanes: list[list[Batch]] = [[] for _ in range(max(1, workers))]
    load = [0] * len(lanes)
    for group in sorted(by_user.values(), key=lambda g: -sum(len(m) for _, m in g)):
        i = load.index(min(load))
        lanes[i].extend(group)
        load[i] += sum(len(m) for _, m in group)
    return [lane for lane in lanes if lane]


def _count(counts: dict[str, Any], got: dict[str, Any], n_messages: int) -> None:
    counts["messages"] += n_messages
    for k, v in got.items():
        if k not in ("messages", "batches", "skipped"):
            counts[k] = counts.get(k, 0) + v


def _run_lane(mem: Any, lane: list[Batch], tick: Callable[[int], None], enrich: str = "now",
              on_conflict: str = "add") -> dict[str, Any]:
    """Each batch through :meth:`Memory.add_many` (its own transactions of at most 500 messages); ``tick(n)`` with
    the messages of each transaction (tool steps it left out included)."""
    counts: dict[str, Any] = {"batches": 0, "messages": 0, "ADD": 0, "NOOP": 0}
    for scope, msgs in lane:
        seen = [0]

        def step(done: int, total: int, seen: list[int] = seen) -> None:  # add_many reports cumulative counts
            tick(done - seen[0])
            seen[0] = done

        got = mem.add_many(msgs, **scope, on_progress=step, enrich=enrich, on_conflict=on_conflict)
        _count(counts, got, len(msgs))
        counts["batches"] += 1
        if seen[0] < len(msgs):
            tick(len(msgs) - seen[0])
    return counts


def _init_worker(threads: int, queue: Any, path: str | None, url: str | None, embedder: str | None,
                 tenant: str | None) -> None:
    global _worker_mem, _worker_queue
    os.environ["OMP_NUM_THREADS"] = str(threads)  # before the embedding engine loads in this process
    from .memory import Memory

    _worker_mem = Memory(path, url=url, embedder=embedder, tenant=tenant)
    _worker_queue = queue


def _worker_lane(lane: list[Batch], enrich: str = "now", on_conflict: str = "add") -> dict[str, Any]:
    try:
        return _run_lane(_worker_mem, lane, lambda n: _worker_queue.put(n), enrich, on_conflict)
    except AnchormemError as exc:  # re-raised in the parent with its type and message
        return {"error": type(exc).__name__, "message": str(exc)}


def import_batches(batches: Sequence[Batch], *, memory: Any = None, path: str | None = None,
                   url: str | None = None, embedder: str | None = None, tenant: str | None = None,
                   workers: int = 1, on_progress: Callable[[int], None] | None = None,
                   enrich: str = "now", on_conflict: str = "add") -> dict[str, Any]:
    """Import ``batches``; returns counts: ``batches``, ``messages`` and one key per event type (ADD, NOOP,
    SUPERSEDE, REVIEW...), plus ``users`` and ``workers`` used. ``enrich``, ``on_conflict`` (``"skip"``: the turns
    already stored are left out, counted in ``duplicates``): as :meth:`Memory.add_many` takes them.

    ``workers=1`` (or an in-memory store, or a single user) runs in this process with ``memory`` (or a Memory
    opened on ``path``/``url``). ``workers>1`` starts that many processes (``spawn``), each with
    ``os.cpu_count() // workers`` engine threads and its own Memory built from ``embedder`` (a name) or the
    ``ANCHORMEM_*`` settings; a worker whose embedder differs from the store's fails with EmbedderMismatchError.
    ``on_progress(n)`` is called with the number of messages of each finished batch.
    Raises InvalidInputError (bad ``workers``), and the first worker's AnchormemError if one fails.
    """
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InvalidInputError(f"workers must be a positive integer, got {workers!r}")
    tick = on_progress or (lambda n: None)
    users = sorted({str(s.get("user_id")) for s, _ in batches})
    target = url or path or (getattr(memory, "path", None) if memory is not None else None)
    lanes = plan_workers(batches, workers)
    if len(lanes) <= 1 or target in (None, ":memory:"):
        own = memory
        if own is None:
            from .memory import Memory

            own = Memory(path, url=url, embedder=embedder, tenant=tenant)
        try:
            counts = _run_lane(own, [b for lane in lanes for b in lane], tick, enrich, on_conflict)
        finally:
            if memory is None:
                own.close()
        return {**counts, "users": users, "workers": 1}

    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    threads = max(1, (os.cpu_count() or 1) // len(lanes))
    if memory is not None:  # workers read the same ANCHORMEM_* settings; another embedder fails loudly there
        tenant = tenant or memory.tenant
    is_url = bool(url) or str(target).startswith(("postgresql:", "postgres:", "sqlite:"))
    args = (threads, queue, None if is_url else target, target if is_url else None, embedder, tenant)
    total: dict[str, Any] = {"batches": 0, "messages": 0, "ADD": 0, "NOOP": 0}
    with ProcessPoolExecutor(max_workers=len(lanes), mp_context=ctx, initializer=_init_worker,
                             initargs=args) as pool:
        futures = [pool.submit(_worker_lane, lane, enrich, on_conflict) for lane in lanes]
        pending = set(futures)
        while pending:
            while not queue.empty():
                tick(queue.get())
            done = [f for f in pending if f.done()]
            for f in done:
                pending.discard(f)
            if pending:
                try:
                    tick(queue.get(timeout=0.2))
                except Exception:  # noqa: BLE001 - queue.Empty: nothing finished in this interval
                    pass
        while not queue.empty():
            tick(queue.get())
        for f in as_completed(futures):
            res = f.result()
            if "error" in res:
                from . import errors

                raise getattr(errors, res["error"], AnchormemError)(res["message"])
            for k, v in res.items():
                total[k] = total.get(k, 0) + v
    return {**total, "users": users, "workers": len(lanes)}


def _enrich_lane(users: list[str]) -> dict[str, Any]:
    try:
        total: dict[str, Any] = {}
        for u in users:
            got = _worker_mem.enrich(u)
            got.pop("pending", None)
            for k, v in got.items():
                total[k] = total.get(k, 0) + v
            _worker_queue.put(got.get("enriched", 0))
        return total
    except AnchormemError as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


def enrich_users(*, memory: Any = None, path: str | None = None, embedder: str | None = None,
                 tenant: str | None = None, workers: int = 1,
                 on_progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Drain the deferred-enrichment queue (``add_many(enrich="later")``) of every user of the tenant, users spread
    over ``workers`` processes (largest queue first; one user's rows stay in one process, in said order: users
    are independent, so the result is the one :meth:`Memory.enrich` gives). ``workers=1`` or one user: in this
    process. Returns the summed counts of :meth:`Memory.enrich` plus ``users`` and ``workers``; ``on_progress(n)``
    with each user's enriched rows. Raises InvalidInputError (bad ``workers``), the first worker's AnchormemError."""
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InvalidInputError(f"workers must be a positive integer, got {workers!r}")
    from .memory import Memory

    own = memory if memory is not None else Memory(path, embedder=embedder, tenant=tenant)
    tick = on_progress or (lambda n: None)
    try:
        counts = own.store.pending_counts(own.tenant) if hasattr(own.store, "pending_counts") else {}
        target, tenant = getattr(own, "path", None), own.tenant
        lanes: list[list[str]] = [[] for _ in range(max(1, min(workers, len(counts))))]
        load = [0] * len(lanes)
        for u, n in sorted(counts.items(), key=lambda kv: -kv[1]):
            i = load.index(min(load))
            lanes[i].append(u)
            load[i] += n
        if len(lanes) <= 1 or target in (None, ":memory:"):
            total: dict[str, Any] = {"enriched": 0}
            for u in sorted(counts):
                got = own.enrich(u)
                got.pop("pending", None)
                tick(got.get("enriched", 0))
                for k, v in got.items():
                    total[k] = total.get(k, 0) + v
            return {**total, "users": len(counts), "workers": 1}
    finally:
        if memory is None:
            own.close()
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    threads = max(1, (os.cpu_count() or 1) // len(lanes))
    total = {"enriched": 0}
    is_url = str(target).startswith(("postgresql:", "postgres:"))  # (a Memory's path: a file, or its PG URL)
    with ProcessPoolExecutor(max_workers=len(lanes), mp_context=ctx, initializer=_init_worker,
                             initargs=(threads, queue, None if is_url else target, target if is_url else None,
                                       embedder, tenant)) as pool:
        futures = [pool.submit(_enrich_lane, lane) for lane in lanes]
        for f in as_completed(futures):
            while not queue.empty():
                tick(queue.get())
            res = f.result()
            if "error" in res:
                from . import errors

                raise getattr(errors, res["error"], AnchormemError)(res["message"])
            for k, v in res.items():
                total[k] = total.get(k, 0) + v
        while not queue.empty():
            tick(queue.get())
    return {**total, "users": len(counts), "workers": len(lanes)}
