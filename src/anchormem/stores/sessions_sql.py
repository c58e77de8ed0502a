"""A memory restated in several sessions belongs to each of them (both SQL stores).

Saying the same thing again in another session is one memory (``add`` returns NOOP) that cites the new turn too
(``source_message_ids``). Its own ``session_id`` is the session that first said it; citing a turn records the turn's
session in ``memory_sessions`` (:func:`link_session`), and the session scope of reads
(:meth:`.sqlfilter.SQLiteFilterCompiler.scope_sql`) also matches a memory linked to the session (one index lookup
per row), so ``get_all(session_id="s2")`` finds it. Deleting one session (``delete_all(session_id="s1")``) keeps a memory that
turns of other sessions still cite: it stops citing the deleted session's turns (an ``UNCITE`` history version)
and, when it was s1's own, moves to the session of its first remaining turn (:func:`shared_with_other_sessions`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["shared_with_other_sessions", "keep_restated", "sessions_ddl", "link_session"]

_TEXT = {"sqlite": "TEXT", "postgres": "text"}


def sessions_ddl(dialect: str) -> list[str]:
    """``memory_sessions``: the sessions whose turns a memory cites besides its own, and a backfill from the
    memories' source turns. Rows go with their memory."""
    t = _TEXT[dialect]
    fk = ("FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE" if dialect == "sqlite" else
          "FOREIGN KEY (tenant, user_id, memory_id) REFERENCES memories (tenant, user_id, id) ON DELETE CASCADE")
    cited = ("json_each(m.source_message_ids) j JOIN messages g ON g.id = j.value" if dialect == "sqlite" else
             "jsonb_array_elements_text(m.source_message_ids) j(value) JOIN messages g ON g.id = j.value")
    return [
        f"""CREATE TABLE memory_sessions (tenant {t} NOT NULL, user_id {t} NOT NULL, session_id {t} NOT NULL,
            memory_id {t} NOT NULL, PRIMARY KEY (tenant, user_id, session_id, memory_id), {fk})""",
        f"INSERT INTO memory_sessions (tenant, user_id, session_id, memory_id) SELECT DISTINCT m.tenant, m.user_id, "
        f"g.session_id, m.id FROM memories m, {cited} WHERE g.tenant = m.tenant AND g.user_id = m.user_id AND "
        "g.session_id IS NOT NULL AND (m.session_id IS NULL OR g.session_id <> m.session_id)",
    ]


def link_session(c: Any, ph: str, tenant: str, user_id: str, memory_id: str, message_id: str) -> None:
    """Record that the memory cites turn ``message_id``'s session (inside the citing write)."""
    c.execute(f"INSERT INTO memory_sessions (tenant, user_id, session_id, memory_id) SELECT tenant, user_id, "
              f"session_id, {ph} FROM messages WHERE tenant = {ph} AND user_id = {ph} AND id = {ph} AND session_id IS "
              "NOT NULL ON CONFLICT DO NOTHING", (memory_id, tenant, user_id, message_id))


def shared_with_other_sessions(conn: Any, ph: str, tenant: str, user_id: str, session_id: str,
                               rows: list[tuple[str, list[str]]]) -> dict[str, tuple[list[str], str | None]]:
    """Of ``rows`` ((memory id, its source message ids)) in session ``session_id`` being deleted, those that cite a
    turn of another session: {memory id: (the source ids it keeps, the session it now belongs to)}."""
    cited = sorted({m for _, ids in rows for m in ids})
    sessions: dict[str, str | None] = {}
    for i in range(0, len(cited), 900):
        chunk = cited[i:i + 900]
        if ph == "?":
            sql, params = f"id IN ({','.join('?' * len(chunk))})", [tenant, user_id, *chunk]
        else:
            sql, params = "id = ANY(%s)", [tenant, user_id, chunk]
        for mid, sid in conn.execute(f"SELECT id, session_id FROM messages WHERE tenant = {ph} AND user_id = {ph} "
                                     f"AND {sql}", params).fetchall():
            sessions[mid] = sid
    out: dict[str, tuple[list[str], str | None]] = {}
    for memory_id, ids in rows:
        keep = [m for m in ids if m in sessions and sessions[m] != session_id]
        if keep:
            out[memory_id] = (keep, sessions[keep[0]])
    return out


def keep_restated(conn: Any, ph: str, scope: Any, rows: list[tuple[str, list[str]]], history: Any, actor: str,
                  as_json: Any) -> set[str]:
    """Before deleting session ``scope.session_id``: the memories of ``rows`` ((id, source message ids)) that other
    sessions' turns cite stay, citing only those turns, in the session of the first (an ``UNCITE`` history version
    by ``history(conn, id, tenant, user_id, event, old, new, actor, reason)``). Returns their ids (not to delete).
    ``as_json``: how the driver takes a JSON list."""
    if scope.session_id is None:
        return set()
    shared = shared_with_other_sessions(conn, ph, scope.tenant, scope.user_id, scope.session_id, rows)
    for mid, (keep, sid) in shared.items():
        conn.execute(f"UPDATE memories SET source_message_ids = {ph}, session_id = {ph} WHERE tenant = {ph} AND "
                     f"user_id = {ph} AND id = {ph}", (as_json(keep), sid, scope.tenant, scope.user_id, mid))
        history(conn, mid, scope.tenant, scope.user_id, "UNCITE", None, None, actor,
                f"session {scope.session_id} deleted")
    conn.execute(f"DELETE FROM memory_sessions WHERE tenant = {ph} AND user_id = {ph} AND session_id = {ph}",
                 (scope.tenant, scope.user_id, scope.session_id))
    return set(shared)
