"""The PII token vault of the SQL stores: table ``pii_vault(tenant, user_id, token, ciphertext, created_at)``
(migration step 3 in both stores), mixed into :class:`.sqlite.SQLiteStore` and :class:`.postgres.PostgresStore`.

Each row is the AES-GCM ciphertext of one tokenised value (``"[PHONE:3f9a1c2b]"``; see
:mod:`anchormem.privacy.vault`) held for one user; the same token may be held by several users of a tenant
(one value under one key has one token), each with their own row, so forgetting one user deletes only theirs.
``created_at`` is epoch seconds (UTC), like every other timestamp of these stores.
"""

from __future__ import annotations

from typing import Any

from ..timeutil import utcnow

__all__ = ["SQLiteVaultMixin", "PostgresVaultMixin"]

# a token is still in use while any text of the user contains it (memories, source turns, history, the review queue)
_IN_USE = """
    EXISTS (SELECT 1 FROM memories m WHERE m.tenant = {v}.tenant AND m.user_id = {v}.user_id
            AND ({pos}(m.text, {v}.token) > 0 OR {pos}(m.source_text, {v}.token) > 0))
    OR EXISTS (SELECT 1 FROM messages x WHERE x.tenant = {v}.tenant AND x.user_id = {v}.user_id
            AND {pos}(x.content, {v}.token) > 0)
    OR EXISTS (SELECT 1 FROM memory_history h WHERE h.tenant = {v}.tenant AND h.user_id = {v}.user_id
            AND ({pos}(coalesce(h.old_text, ''), {v}.token) > 0 OR {pos}(coalesce(h.new_text, ''), {v}.token) > 0))
    OR EXISTS (SELECT 1 FROM review_queue r WHERE r.tenant = {v}.tenant AND r.user_id = {v}.user_id
            AND {pos}(r.proposed{cast}, {v}.token) > 0)"""


class SQLiteVaultMixin:
    """``vault_put`` / ``vault_get`` / ``vault_delete`` for the SQLite store (needs ``_tx``, ``_read``,
    ``checkpoint``)."""

    _tx: Any
    _read: Any
    checkpoint: Any

    def vault_put(self, tenant: str, user_id: str, rows: dict[str, bytes]) -> int:
        """Keep ``rows`` (token → ciphertext) for a user; a token the user already holds keeps its first
        ciphertext. Returns rows inserted."""
        if not rows:
            return 0
        now = utcnow().timestamp()
        with self._tx() as c:
            return sum(c.execute("INSERT OR IGNORE INTO pii_vault VALUES (?,?,?,?,?)",
                                 (tenant, user_id, t, bytes(b), now)).rowcount for t, b in rows.items())

    def vault_get(self, tenant: str, tokens: list[str]) -> dict[str, bytes]:
        """Ciphertexts by token from any user of the tenant (the oldest row when several hold it)."""
        out: dict[str, bytes] = {}
        tokens = list(dict.fromkeys(tokens))
        for i in range(0, len(tokens), 900):
            chunk = tokens[i : i + 900]
            for t, b in self._read(f"SELECT token, ciphertext FROM pii_vault WHERE tenant=? AND token IN "
                                   f"({','.join('?' * len(chunk))}) ORDER BY created_at DESC", [tenant, *chunk]):
                out[t] = bytes(b)
        return out

    def vault_delete(self, tenant: str, user_id: str, tokens: list[str] | None) -> int:
        """Delete all of a user's vault rows (``tokens=None``) or those of ``tokens`` that no remaining text of
        the user contains. Deleted rows are zeroed and the WAL is checkpointed (see the store's docstring).
        Returns rows deleted."""
        if tokens is not None and not tokens:
            return 0
        with self._tx() as c:
            if tokens is None:
                n = c.execute("DELETE FROM pii_vault WHERE tenant=? AND user_id=?", (tenant, user_id)).rowcount
            else:
                sql = ("DELETE FROM pii_vault WHERE tenant=? AND user_id=? AND token=? AND NOT ("
                       + _IN_USE.format(v="pii_vault", pos="instr", cast="") + ")")
                n = sum(c.execute(sql, (tenant, user_id, t)).rowcount for t in set(tokens))
        if n:
            self.checkpoint()
        return n


class PostgresVaultMixin:
    """``vault_put`` / ``vault_get`` / ``vault_delete`` for the PostgreSQL store (needs ``_run``, ``_read``)."""

    _run: Any
    _read: Any

    def vault_put(self, tenant: str, user_id: str, rows: dict[str, bytes]) -> int:
        """Keep ``rows`` (token → ciphertext) for a user; a token the user already holds keeps its first
        ciphertext. Returns rows inserted."""
        if not rows:
            return 0
        now = utcnow().timestamp()

        def run(conn: Any) -> int:
            return sum(conn.execute("INSERT INTO pii_vault VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                                    (tenant, user_id, t, bytes(b), now)).rowcount for t, b in rows.items())

        return self._run(run)

    def vault_get(self, tenant: str, tokens: list[str]) -> dict[str, bytes]:
        """Ciphertexts by token from any user of the tenant (the oldest row when several hold it)."""
        if not tokens:
            return {}
        rows = self._read("SELECT DISTINCT ON (token) token, ciphertext FROM pii_vault WHERE tenant = %s AND "
                          "token = ANY(%s) ORDER BY token, created_at", (tenant, list(dict.fromkeys(tokens))))
        return {t: bytes(b) for t, b in rows}

    def vault_delete(self, tenant: str, user_id: str, tokens: list[str] | None) -> int:
        """Delete all of a user's vault rows (``tokens=None``) or those of ``tokens`` that no remaining text of
        the user contains. Returns rows deleted. (PostgreSQL keeps dead row versions until VACUUM.)"""
        if tokens is not None and not tokens:
            return 0
        if tokens is None:
            return self._run(lambda conn: conn.execute("DELETE FROM pii_vault WHERE tenant = %s AND user_id = %s",
                                                       (tenant, user_id)).rowcount)
        sql = ("DELETE FROM pii_vault v WHERE v.tenant = %s AND v.user_id = %s AND v.token = ANY(%s) AND NOT ("
               + _IN_USE.format(v="v", pos="strpos", cast="::text") + ")")
        return self._run(lambda conn: conn.execute(sql, (tenant, user_id, sorted(set(tokens)))).rowcount)
