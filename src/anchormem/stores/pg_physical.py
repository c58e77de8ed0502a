"""Physical forgetting on PostgreSQL: after a purge, rewrite the tables a user's data lives in, so the purged
text leaves the data files (``Memory.delete_all(..., purge=True, physical=True)``, ``anchormem forget --purge
--physical``; docs/privacy.md).

A purge deletes and blanks rows, but PostgreSQL keeps a deleted row's bytes in its page until the space is reused,
and a plain ``VACUUM`` only marks it reusable (it does not zero it): the text stays in the table's file, its TOAST
file and its index files (the GIN index ``ix_mem_tsv`` keeps the words). ``VACUUM FULL`` copies the live rows into
new files and rebuilds every index from them; at commit the old files are truncated to zero length (and unlinked
at the next checkpoint). So after :meth:`PostgresPhysicalMixin.rewrite_tables` no data file of these tables, their
TOAST tables or their indexes holds a purged byte. ``ANALYZE`` runs with it, so the planner statistics
(``pg_statistic``: most common values, histogram bounds and most common words of these columns, which can quote
a purged text) are recomputed from the remaining rows; the replaced statistics rows stay as dead rows in
``pg_statistic``'s file until that space is reused, unless the store's role is a superuser: then
``pg_statistic`` is rewritten too (only a superuser may), and no file of the database holds a purged byte.

Why a rewrite and not per-user encryption keys (crypto-erase): the keyword index needs the words in clear (a
``tsvector`` of ciphertext finds nothing), and so do the duplicate check and the SQL filters, so a crypto-erase
would still leave the words in ``ix_mem_tsv``. A rewrite removes every copy the database itself keeps, with no
change to the schema or to search.

Cost: each table is rewritten whole (time and temporary disk space in proportion to its size, for every user),
under an ``ACCESS EXCLUSIVE`` lock: reads and writes of those tables wait until it ends. Batch the physical step
(purge many users, then one ``rewrite_tables``) on a large store. What it does not reach (the WAL, archives,
backups, replicas' own WAL) is stated in docs/privacy.md.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError

__all__ = ["USER_TABLES", "PostgresPhysicalMixin"]

# every table that holds a tenant's or user's data (all but ``meta`` and the migrations table)
USER_TABLES: tuple[str, ...] = ("memories", "messages", "memory_history", "memory_entities", "metadata_keys",
                                "review_queue", "pii_vault", "scope_state", "claims", "memory_sessions",
                                "memory_entities_past", "enrich_queue")


class PostgresPhysicalMixin:
    """``rewrite_tables()`` for :class:`~.postgres.PostgresStore`."""

    def rewrite_tables(self, tables: tuple[str, ...] | list[str] | None = None, *,
                       checkpoint: bool = True) -> list[str]:
        """``VACUUM (FULL, ANALYZE)`` each of ``tables`` (default :data:`USER_TABLES`; those absent are skipped):
        new data files for the table, its TOAST table and every index, the old ones truncated at commit (and, for
        a superuser, ``VACUUM FULL pg_statistic``: see the module docstring). Then,
        with ``checkpoint``, a ``CHECKPOINT`` when the role may run one (superuser or ``pg_checkpoint``; otherwise
        skipped: the server's next checkpoint does the same), so the truncated files are unlinked and the WAL
        written before it can be recycled. Returns the tables rewritten. Raises InvalidInputError (a table that
        is not anchormem's), StoreError (the server failing, e.g. a lock wait past ``lock_timeout``)."""
        names = list(USER_TABLES if tables is None else tables)
        unknown = sorted(set(names) - set(USER_TABLES))
        if unknown:
            raise InvalidInputError(f"tables: {unknown} are not anchormem tables holding user data "
                                    f"({', '.join(USER_TABLES)})")
        done: list[str] = []
        with self._conn() as conn:  # type: ignore[attr-defined]  # autocommit: VACUUM runs outside a transaction
            superuser = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
            for t in names:
                if conn.execute("SELECT to_regclass(%s)", (t,)).fetchone()[0] is None:
                    continue
                if superuser:  # ANALYZE of a table left empty keeps its old statistics rows: drop them first
                    conn.execute("DELETE FROM pg_catalog.pg_statistic WHERE starelid = %s::regclass", (t,))
                conn.execute(f"VACUUM (FULL, ANALYZE) {t}")
                done.append(t)
            if done and superuser:
                conn.execute("VACUUM FULL pg_catalog.pg_statistic")  # the replaced statistics rows (see above)
            if checkpoint:
                _try_checkpoint(conn)
        return done


def _try_checkpoint(conn: Any) -> bool:
    """``CHECKPOINT`` if this role may; False (nothing done) when it may not."""
    from psycopg import errors as pg_errors

    try:
        conn.execute("CHECKPOINT")
    except pg_errors.InsufficientPrivilege:
        return False
    return True
