"""Scope generations: ``scope_state(tenant, user_id, generation)``, bumped in the transaction of every write that
changes what a user's reads return, and read (one indexed row) before serving a cached result.

Every write path of both stores bumps: ``write`` (add, summaries, approve), ``update``, ``delete``,
``delete_scope``, ``close_memory`` (complete), ``purge_expired`` (gc), ``import_rows``, ``replace_vectors``
(reindex: every scope), and, through the helpers here, the by-id metadata writes ``set_labels`` (relabel,
update), ``set_expiry`` and ``set_fact``. ``touch`` (access counts) deliberately does not: it runs after every
search and would make every cached search a miss. The generation only grows, so a value once seen never comes
back (the hot cache, :mod:`anchormem.hotcache`, and the SQLite vector cache rely on this).

The generation is also the version of optimistic concurrency for ``add`` (issue #22): ``Memory.add`` reads it before
planning (its fact reads, the relative reader, the duplicate and restatement reads all see the store as of then) and
passes it to ``write(expect_generation=...)``; inside the serialised write (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's
lock of the user's ``scope_state`` row) a generation that moved means another writer of the user committed since:
:class:`~anchormem.errors.StaleWriteError`, nothing written, and ``add`` plans again. So reading a slot's value,
deciding and writing is one serialised step per user across threads, processes and API workers.
"""

from __future__ import annotations

from typing import Any

from ..errors import StaleWriteError

__all__ = ["SQLiteGenerationMixin", "PostgresGenerationMixin"]


class SQLiteGenerationMixin:
    """``scope_generation`` and by-id bumps for the SQLite store (needs ``_read``, ``_bump``, ``vectors``)."""

    _read: Any
    _bump: Any
    vectors: Any

    def scope_generation(self, tenant: str, user_id: str) -> int:
        """The user's current generation (0 before the first write)."""
        row = self._read("SELECT generation FROM scope_state WHERE tenant=? AND user_id=?", (tenant, user_id))
        return row[0][0] if row else 0

    @staticmethod
    def _expect(c: Any, expect: dict[tuple[str, str], int] | None) -> None:
        """Inside the write's ``BEGIN IMMEDIATE``: raise StaleWriteError unless each (tenant, user) of ``expect``
        is still at its generation (another writer committed since the caller planned)."""
        for (tenant, user_id), gen in sorted((expect or {}).items()):
            row = c.execute("SELECT generation FROM scope_state WHERE tenant=? AND user_id=?", (tenant, user_id)
                            ).fetchone()
            if (row[0] if row else 0) != gen:
                raise StaleWriteError(f"user {user_id!r} changed since this write was planned (generation {gen})")

    def _bump_ids(self, c: Any, tenant: str, ids: list[str]) -> dict[tuple[str, str], int]:
        """Bump the generation of every user owning one of ``ids`` (inside the write's transaction)."""
        users: set[str] = set()
        for i in range(0, len(ids), 900):
            chunk = ids[i : i + 900]
            users |= {r[0] for r in c.execute(f"SELECT DISTINCT user_id FROM memories WHERE +tenant=? AND id IN "
                                              f"({','.join('?' * len(chunk))})", [tenant, *chunk])}
        return {(tenant, u): self._bump(c, tenant, u) for u in sorted(users)}

    def _advance(self, gens: dict[tuple[str, str], int]) -> None:
        """After the commit: move the cached vectors of those scopes to their new generation (no vector changed)."""
        if self.vectors:
            for key, gen in gens.items():
                self.vectors.apply(key, gen - 1, gen)


class PostgresGenerationMixin:
    """``scope_generation`` and by-id bumps for the PostgreSQL store (needs ``_read``, ``_bump``)."""

    _read: Any
    _bump: Any

    def scope_generation(self, tenant: str, user_id: str) -> int:
        """The user's current generation (0 before the first write)."""
        rows = self._read("SELECT generation FROM scope_state WHERE tenant = %s AND user_id = %s", (tenant, user_id))
        return int(rows[0][0]) if rows else 0

    def _bump_expecting(self, conn: Any, key: tuple[str, str], expect: dict[tuple[str, str], int] | None) -> None:
        """Bump ``key``'s generation (locking its ``scope_state`` row until the commit: writers of one user queue);
        raise StaleWriteError when ``expect`` holds ``key`` and another writer moved it since (the bump is not
        ``expect[key] + 1``). The transaction then rolls back: nothing written."""
        gen = self._bump(conn, *key)
        if expect and key in expect and gen != expect[key] + 1:
            raise StaleWriteError(f"user {key[1]!r} changed since this write was planned (generation {expect[key]})")

    def _bump_ids(self, conn: Any, tenant: str, ids: list[str]) -> None:
        """Bump the generation of every user owning one of ``ids``, in the writers' lock order (sorted users),
        before the caller's updates."""
        users = [r[0] for r in conn.execute("SELECT DISTINCT user_id FROM memories WHERE tenant = %s AND "
                                            "id = ANY(%s) ORDER BY 1", (tenant, list(ids))).fetchall()]
        for u in users:
            self._bump(conn, tenant, u)
