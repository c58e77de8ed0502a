"""Access-count bumps kept in this process and written in batches (the SQLite store's ``touch``).

A search bumps ``access_count`` and ``last_accessed_at`` of the hits it returns. Written one transaction per search,
that write (its ``BEGIN IMMEDIATE`` and ``COMMIT`` most of it) was a twentieth of a search's CPU at 100k memories and
a tenth at 1k. :class:`PendingTouches` keeps the bumps instead (per tenant: bumps and latest time per memory), written
by :meth:`SQLiteTouchMixin._flush_touches` in one transaction (``UPDATE ... SET access_count = access_count + n``)
when :data:`PendingTouches.MAX_IDS` memories are pending or the oldest bump is :data:`PendingTouches.MAX_AGE`
seconds old (checked at the next bump), and before anything else could see the columns without them:

- every transaction of the store (``_tx``: every write, a purge included) writes them first;
- every read through ``_read`` whose SQL names ``access_count`` or ``last_accessed_at`` (a whole memory row, a
  filter on the count) writes them first, except the search's own reads of its candidates (``overlay=True``:
  ``rank_rows``/``whole_rows`` add the pending bumps to what they read, :meth:`SQLiteTouchMixin._pending_counts`,
  ``_pending_times``);
- closing the store writes them.

The pending bumps are kept per database (:func:`pending_for`: every store object of this process opened on the same
file shares them), so every read in this process sees exact counts. Another process sees them once written: at most
``MAX_AGE`` seconds of a busy process's bumps later, or at the next write, read or close of this one (an idle process
keeps them until then; a forked child starts without its parent's). A failed write is logged and the batch
dropped, as a failed per-search write was (access tracking never fails a search nor a write).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from typing import Any

__all__ = ["PendingTouches", "SQLiteTouchMixin", "pending_for"]

log = logging.getLogger("anchormem")



class PendingTouches:
    """The access-count bumps not written yet, per tenant: {id: bumps} and {id: latest epoch seconds} (plain values:
    no container per memory for the garbage collector to track while they wait). Thread-safe."""

    MAX_IDS = 1024  # memories pending before a bump writes them all
    MAX_AGE = 1.0  # seconds the oldest pending bump may wait (checked at the next bump)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, dict[str, int]] = {}
        self._times: dict[str, dict[str, float]] = {}
        self._n = 0
        self._since = 0.0

    def __bool__(self) -> bool:
        return self._n > 0

    def add(self, tenant: str, ids: list[str], when: float) -> bool:
        """Bump each of ``ids`` once (a repeated id twice, as one ``UPDATE`` per id would) at ``when``; True when
        the pending bumps are due to be written (:data:`MAX_IDS`, :data:`MAX_AGE`)."""
        now = time.monotonic()
        with self._lock:
            if not self._n:
                self._since = now
            counts = self._counts.get(tenant)
            if counts is None:
                counts = self._counts[tenant] = {}
                self._times[tenant] = {}
            times = self._times[tenant]
            for mid in ids:
                counts[mid] = counts.get(mid, 0) + 1
                times[mid] = when
            self._n = sum(len(c) for c in self._counts.values())
            return self._n >= self.MAX_IDS or now - self._since >= self.MAX_AGE

    def take(self) -> list[tuple[int, float, str, str]]:
        """Every pending bump as ``(bumps, latest time, id, tenant)`` (the ``UPDATE``'s parameters), cleared."""
        with self._lock:
            counts, times = self._counts, self._times
            self._counts, self._times, self._n = {}, {}, 0
        return [(n, times[tenant][mid], mid, tenant) for tenant, c in counts.items() for mid, n in c.items()]

    def counts(self, tenant: str, ids: Any) -> dict[str, int]:
        """{id: bumps} of those of ``ids`` with bumps pending."""
        got = self._counts.get(tenant)  # a snapshot: take() swaps the dicts, add() only grows them
        return {mid: n for mid in ids if (n := got.get(mid)) is not None} if got else {}

    def times(self, tenant: str, ids: Any) -> dict[str, float]:
        """{id: latest bump's time} of those of ``ids`` with bumps pending."""
        got = self._times.get(tenant)
        return {mid: t for mid in ids if (t := got.get(mid)) is not None} if got else {}

    def get(self, tenant: str, mid: str) -> tuple[int, float] | None:
        """(bumps, latest time) pending for the memory, or None."""
        with self._lock:
            n = self._counts.get(tenant, {}).get(mid)
            return None if n is None else (n, self._times[tenant][mid])


_SHARED: weakref.WeakValueDictionary[str, PendingTouches] = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()


def _forget_in_child() -> None:
    """A forked child starts with no pending bumps (its parent writes its own: never counted twice) and free
    locks."""
    global _SHARED_LOCK
    _SHARED_LOCK = threading.Lock()
    for pending in list(_SHARED.values()):
        pending._lock = threading.Lock()  # noqa: SLF001
        pending._counts, pending._times, pending._n = {}, {}, 0  # noqa: SLF001


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def pending_for(database: str) -> PendingTouches:
    """The pending bumps of the database ``database`` (its connection URI): one object per database in this process,
    shared by the stores open on it (while one is open)."""
    with _SHARED_LOCK:
        got = _SHARED.get(database)
        if got is None:
            got = _SHARED[database] = PendingTouches()
        return got


class SQLiteTouchMixin:
    """``touch``, ``_flush_touches``, ``_pending_counts`` and ``_pending_times`` of :class:`~.sqlite.SQLiteStore`.
    Needs ``_touches`` (a :class:`PendingTouches`), ``_conn``, ``_tx`` (which calls :meth:`_flush_touches` before
    it begins) and ``_sync`` (the store's ``synchronous`` setting)."""

    _touches: PendingTouches
    _conn: Any
    _tx: Any
    _sync: str

    def touch(self, tenant: str, ids: list[str], when: Any) -> None:
        """Bump access counts (kept, written in a batch: :mod:`.touches`)."""
        if ids and self._touches.add(tenant, ids, when.timestamp()):
            self._flush_touches()

    def _flush_touches(self) -> None:
        """Write every pending bump in one transaction, committed without a WAL fsync (``synchronous = NORMAL``
        for this transaction only): a power cut may lose the last bumps, never corrupt the file; the next durable
        commit syncs them too. A failure is logged, the batch dropped."""
        if not self._touches:
            return
        conn = self._conn()
        if conn.in_transaction:  # a read inside this thread's own transaction: left for the next flush
            return
        rows = self._touches.take()
        if not rows:
            return
        try:
            conn.execute("PRAGMA synchronous = NORMAL")
            try:
                with self._tx() as c:
                    c.executemany("UPDATE memories SET access_count = access_count + ?, last_accessed_at = ? "
                                  "WHERE id=? AND tenant=?", rows)
            finally:
                conn.execute(f"PRAGMA synchronous = {self._sync}")
        except Exception as exc:  # noqa: BLE001 - access tracking must never fail a search or a write
            log.warning("could not record access of %d memories: %s", len(rows), exc)

    def _flush_for(self, sql: str) -> None:
        """Write the pending bumps before a read whose SQL names the access columns."""
        if self._touches and ("access_count" in sql or "last_accessed_at" in sql):
            self._flush_touches()

    def _pending_counts(self, tenant: str, ids: Any) -> dict[str, int]:
        """{id: bumps} of those of the memories ``ids`` not written yet (a read with ``overlay=True`` adds them)."""
        return self._touches.counts(tenant, ids) if self._touches else {}

    def _pending_times(self, tenant: str, ids: Any) -> dict[str, float]:
        """{id: the latest bump's time} of those of the memories ``ids`` not written yet."""
        return self._touches.times(tenant, ids) if self._touches else {}
