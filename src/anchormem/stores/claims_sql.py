"""The ``claims`` table: which memory carries which slot fact, and while each fact held (both SQL stores).

A claim is one slot fact (``"<entity>|<attribute>"`` = value, polarity) carried by one memory. Its identity is the
``kind="fact"`` memory that states it (``fact_id``): that memory carries it, and so does the utterance the fact was
drawn from (a turn of several sentences is kept verbatim beside its fact memories). When a fact memory is
superseded, every claim with its ``fact_id`` is closed (``valid_to``, ``superseded_by``), and a carrier whose
claims are then all closed is closed too (it is no longer current); a carrier with other current claims stays
current, and the read paths know from its claims which of its words no longer hold (:mod:`anchormem.facts.claims`).

One schema description for SQLite and PostgreSQL (:func:`claims_ddl`, :func:`claims_backfill`), one set of
statements parametrised by the driver's placeholder (:class:`ClaimsSQL`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import json

from ..errors import NotFoundError
from ..timeutil import from_epoch
from ..types import Claim, FactSlot, MemoryItem

__all__ = ["claims_ddl", "claims_backfill", "claims_words_ddl", "past_entities_ddl", "ClaimsSQL", "own_claims",
           "CLAIM_COLUMNS"]

CLAIM_COLUMNS = ("memory_id, fact_id, slot, value, polarity, said_at, valid_from, valid_to, superseded_by, span, "
                 "words")

_TYPES = {
    "sqlite": {"text": "TEXT", "int": "INTEGER", "time": "REAL"},
    "postgres": {"text": "text", "int": "integer", "time": "double precision"},
}


def claims_ddl(dialect: str) -> list[str]:
    """The ``claims`` table and its indexes for ``dialect`` (``"sqlite"`` or ``"postgres"``). Rows go with their
    memory (``ON DELETE CASCADE``)."""
    t = _TYPES[dialect]
    fk = ("FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE" if dialect == "sqlite" else
          "FOREIGN KEY (tenant, user_id, memory_id) REFERENCES memories (tenant, user_id, id) ON DELETE CASCADE")
    return [
        f"""CREATE TABLE claims (
            tenant {t['text']} NOT NULL, user_id {t['text']} NOT NULL, memory_id {t['text']} NOT NULL,
            fact_id {t['text']} NOT NULL, slot {t['text']} NOT NULL, value {t['text']} NOT NULL,
            polarity {t['int']} NOT NULL DEFAULT 1, said_at {t['time']} NOT NULL,
            valid_from {t['time']} NOT NULL, valid_to {t['time']}, superseded_by {t['text']},
            span {t['text']} NOT NULL DEFAULT '',
            PRIMARY KEY (tenant, user_id, memory_id, fact_id),
            {fk})""",
        "CREATE INDEX ix_claim_mem ON claims (tenant, memory_id)",
        "CREATE INDEX ix_claim_fact ON claims (tenant, user_id, fact_id)",
        "CREATE INDEX ix_claim_slot ON claims (tenant, user_id, slot) WHERE valid_to IS NULL",
    ]


def past_entities_ddl(dialect: str) -> list[str]:
    """``memory_entities_past``: the entities an edited memory had before each edit, valid from the previous edit
    (NULL: since it was written) to the edit (:mod:`.past_text`), so that an entity filter ``as_of`` an earlier
    instant matches that instant's values. Rows go with their memory."""
    t = _TYPES[dialect]
    fk = ("FOREIGN KEY (memory_id) REFERENCES memories(id) ON DELETE CASCADE" if dialect == "sqlite" else
          "FOREIGN KEY (tenant, user_id, memory_id) REFERENCES memories (tenant, user_id, id) ON DELETE CASCADE")
    return [f"""CREATE TABLE memory_entities_past (
            tenant {t['text']} NOT NULL, user_id {t['text']} NOT NULL, memory_id {t['text']} NOT NULL,
            type {t['text']} NOT NULL, value {t['text']} NOT NULL, normalized {t['text']},
            valid_from {t['time']}, valid_to {t['time']} NOT NULL, {fk})""",
            "CREATE INDEX ix_ent_past_mem ON memory_entities_past (tenant, memory_id)"]


def claims_backfill(dialect: str) -> list[str]:
    """Statements that fill ``claims`` for memories written before the table existed: each fact memory carries its
    own claim; an utterance carries the claims of the fact memories drawn from its turn (same first source turn,
    the fact's text within the utterance's); an utterance whose claims are all closed is closed with them."""
    if dialect == "sqlite":
        val, pol, first_f, first_u = ("json_extract(f.fact, '$.value')", "coalesce(json_extract(f.fact, "
                                      "'$.polarity'), 1)", "json_extract(f.source_message_ids, '$[0]')",
                                      "json_extract(u.source_message_ids, '$[0]')")
        inside, ins = "instr(u.text, f.text) > 0", "INSERT OR IGNORE INTO"
        tail = ""
    else:
        val, pol, first_f, first_u = ("f.fact->>'value'", "coalesce((f.fact->>'polarity')::integer, 1)",
                                      "f.source_message_ids->>0", "u.source_message_ids->>0")
        inside, ins = "strpos(u.text, f.text) > 0", "INSERT INTO"
        tail = " ON CONFLICT DO NOTHING"
    cols = "tenant, user_id, " + CLAIM_COLUMNS.rpartition(",")[0]  # (v6: before the ``words`` column of v8)
    facts = "f.fact IS NOT NULL AND f.slot IS NOT NULL"
    return [
        f"{ins} claims ({cols}) SELECT f.tenant, f.user_id, f.id, f.id, f.slot, {val}, {pol}, f.created_at, "
        f"f.valid_from, f.valid_to, f.superseded_by, f.text FROM memories f WHERE {facts}{tail}",
        f"{ins} claims ({cols}) SELECT u.tenant, u.user_id, u.id, f.id, f.slot, {val}, {pol}, f.created_at, "
        f"f.valid_from, f.valid_to, f.superseded_by, f.text FROM memories f JOIN memories u ON u.tenant = f.tenant "
        f"AND u.user_id = f.user_id AND u.kind = 'utterance' AND {first_u} = {first_f} AND {inside} "
        f"WHERE {facts}{tail}",
        "UPDATE memories SET valid_to = (SELECT max(c.valid_to) FROM claims c WHERE c.tenant = memories.tenant AND "
        "c.memory_id = memories.id), superseded_by = (SELECT c.superseded_by FROM claims c WHERE c.tenant = "
        "memories.tenant AND c.memory_id = memories.id ORDER BY c.valid_to DESC LIMIT 1) "
        "WHERE kind = 'utterance' AND valid_to IS NULL AND EXISTS (SELECT 1 FROM claims c WHERE c.tenant = "
        "memories.tenant AND c.memory_id = memories.id) AND NOT EXISTS (SELECT 1 FROM claims c WHERE "
        "c.tenant = memories.tenant AND c.memory_id = memories.id AND c.valid_to IS NULL)",
        "UPDATE scope_state SET generation = generation + 1",  # cached vector sets of every scope reload
    ]


def claims_words_ddl() -> list[str]:
    """The ``words`` column of ``claims`` (both engines): what a claim's closing takes out of its memory, decided
    when the claim is written (:func:`anchormem.facts.claims.decided_words`). NULL on the rows of an older store:
    their read paths cut ``span`` by ``value`` as before."""
    return ["ALTER TABLE claims ADD COLUMN words TEXT"]


def own_claims(item: MemoryItem) -> list[Claim]:
    """The claims ``item`` carries: those it names, else, for a fact memory, its own fact (with its closing words
    decided: :func:`anchormem.facts.claims.decided_words`)."""
    if item.claims or item.fact is None:
        return list(item.claims)
    from ..facts.claims import decided_words

    f = item.fact
    return [Claim(fact_id=item.id, slot=f.slot, value=f.value, polarity=f.polarity, said_at=item.created_at,
                  valid_from=item.valid_from, valid_to=item.valid_to, superseded_by=item.superseded_by,
                  span=item.text, words=decided_words(item.text, f.value, f.extractor))]


def _ep(dt: Any) -> float | None:
    return None if dt is None else dt.timestamp()


class ClaimsSQL:
    """The claims statements for a driver whose placeholder is ``ph`` (``"?"`` sqlite3, ``"%s"`` psycopg). Each
    method takes an open connection (``conn.execute(sql, params)``) inside the caller's transaction."""

    def __init__(self, ph: str) -> None:
        self.ph = ph

    def insert(self, conn: Any, item: MemoryItem, carried_by: Iterable[str] = ()) -> None:
        """Store the claims ``item`` carries (:func:`own_claims`; set on ``item``, which the write returns); a fact
        memory's own claim is also carried by each current memory of ``carried_by`` of its user (an open claim made
        for an older memory's words, :mod:`anchormem.facts.relative`; a memory gone or closed is skipped)."""
        p = self.ph
        item.claims = own_claims(item)
        for cl in item.claims:
            conn.execute(
                f"INSERT INTO claims (tenant, user_id, {CLAIM_COLUMNS}) VALUES ({', '.join([p] * 13)}) "
                "ON CONFLICT DO NOTHING",
                (item.tenant, item.user_id, item.id, cl.fact_id, cl.slot, cl.value, int(cl.polarity),
                 cl.said_at.timestamp(), cl.valid_from.timestamp(), _ep(cl.valid_to), cl.superseded_by, cl.span,
                 cl.words or None))
        own = [cl for cl in item.claims if cl.fact_id == item.id]
        for carrier in [c for c in carried_by if c != item.id]:
            for cl in own:
                conn.execute(
                    f"INSERT INTO claims (tenant, user_id, {CLAIM_COLUMNS}) SELECT {', '.join([p] * 13)} "
                    f"WHERE EXISTS (SELECT 1 FROM memories WHERE tenant = {p} AND user_id = {p} AND id = {p} AND "
                    "valid_to IS NULL) ON CONFLICT DO NOTHING",
                    (item.tenant, item.user_id, carrier, cl.fact_id, cl.slot, cl.value, int(cl.polarity),
                     cl.said_at.timestamp(), cl.valid_from.timestamp(), _ep(cl.valid_to), cl.superseded_by, cl.span,
                     cl.words or None, item.tenant, item.user_id, carrier))

    def edited(self, store: Any, conn: Any, tenant: str, user_id: str, memory_id: str, text: str, when: float,
               actor: str) -> int:
        """Fact memory ``memory_id`` got the new ``text`` (``update``): its own claim now has the new words
        (``span``, ``words``), and every other memory carrying that claim in its *old* words (the utterance the fact
        was drawn from: "Hi, I'm Sam. I live in Lisbon…" after the fact was edited to "I live in Porto.") no longer
        states it: the claim is closed there (``valid_to`` = ``when``, ``superseded_by`` = ``memory_id``), so read
        paths leave those words out and cite the edited memory; a carrier with nothing else left is closed (history
        ``SUPERSEDE``). Returns how many carriers changed (the caller reloads cached vectors when any)."""
        from ..facts.claims import closing_words, decided_words, remainder

        p = self.ph
        row = conn.execute(f"SELECT value FROM claims WHERE tenant = {p} AND memory_id = {p} AND fact_id = {p}",
                           (tenant, memory_id, memory_id)).fetchone()
        if row is None:
            return 0
        conn.execute(f"UPDATE claims SET span = {p}, words = {p} WHERE tenant = {p} AND memory_id = {p} AND "
                     f"fact_id = {p}", (text, decided_words(text, row[0]), tenant, memory_id, memory_id))
        carriers = [r[0] for r in conn.execute(
            f"SELECT memory_id FROM claims WHERE tenant = {p} AND user_id = {p} AND fact_id = {p} AND "
            f"memory_id <> {p} AND valid_to IS NULL ORDER BY memory_id",
            (tenant, user_id, memory_id, memory_id)).fetchall()]
        for mid in carriers:
            conn.execute(f"UPDATE claims SET valid_to = {p}, superseded_by = {p} WHERE tenant = {p} AND "
                         f"memory_id = {p} AND fact_id = {p}", (when, memory_id, tenant, mid, memory_id))
            got = conn.execute(f"SELECT text, valid_to FROM memories WHERE tenant = {p} AND id = {p}",
                               (tenant, mid)).fetchone()
            rows = conn.execute(f"SELECT span, value, words, valid_to FROM claims WHERE tenant = {p} AND "
                                f"memory_id = {p}", (tenant, mid)).fetchall()
            if got is None or got[1] is not None or any(r[3] is None for r in rows):
                continue
            if remainder(got[0], [closing_words(r[0], r[1], r[2]) for r in rows], values=[r[1] for r in rows]) is None:
                conn.execute(f"UPDATE memories SET valid_to = {p}, superseded_by = {p} WHERE tenant = {p} AND id = {p}",
                             (when, memory_id, tenant, mid))
                store._history(conn, mid, tenant, user_id, "SUPERSEDE", None, None, actor,
                               f"superseded by {memory_id} (its fact was edited)")
        return len(carriers)

    def close(self, conn: Any, tenant: str, user_id: str, fact_id: str, when: float, by: str | None) -> list[str]:
        """Close every current claim of fact ``fact_id`` (``valid_to=when``, ``superseded_by=by``). Returns the ids
        of the other current memories that carried it and now carry no current claim (to close with it), except
        those whose text says something else as well (:func:`anchormem.facts.claims.remainder`: "我住在成都，在一家
        银行做柜员。" stays current for its job once the home moved; "The light there is lovely." refers back)."""
        from ..facts.claims import closing_words, remainder

        p = self.ph
        conn.execute(f"UPDATE claims SET valid_to = {p}, superseded_by = {p} WHERE tenant = {p} AND user_id = {p} "
                     f"AND fact_id = {p} AND valid_to IS NULL", (when, by, tenant, user_id, fact_id))
        rows = conn.execute(
            f"SELECT m.id FROM memories m WHERE m.tenant = {p} AND m.user_id = {p} AND m.valid_to IS NULL AND "
            f"m.id <> {p} AND m.id IN (SELECT memory_id FROM claims WHERE tenant = {p} AND user_id = {p} AND "
            f"fact_id = {p}) AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.tenant = m.tenant AND "
            "c.memory_id = m.id AND c.valid_to IS NULL) ORDER BY m.id",
            (tenant, user_id, fact_id, tenant, user_id, fact_id)).fetchall()
        out = []
        for (mid,) in rows:
            text = conn.execute(f"SELECT text FROM memories WHERE tenant = {p} AND id = {p}",
                                (tenant, mid)).fetchone()
            rows = conn.execute(f"SELECT span, value, words FROM claims WHERE tenant = {p} AND memory_id = {p}",
                                (tenant, mid)).fetchall()
            if text is None or remainder(text[0], [closing_words(r[0], r[1], r[2]) for r in rows],
                                         values=[r[1] for r in rows]) is None:
                out.append(mid)
        return out

    def recheck(self, conn: Any, item: MemoryItem, supersedes: list[str],
                conflicts: Callable[[FactSlot, FactSlot], bool]) -> tuple[list[str], tuple[Any, str] | None]:
        """Reconcile a new current fact memory again inside the write transaction (its slot serialised by the
        caller): the current memories of its slot written since it was planned that ``conflicts`` with it.
        Returns (ids to supersede as well, None) or, when one of them was said after it (or at the same instant
        and reads as a change while the new one does not: :func:`~anchormem.facts.aspect.reads_as_change`), ([],
        (that one's ``valid_from``, its id)): the new one is to be stored already closed by it."""
        f = item.fact
        if f is None or item.valid_to is not None:
            return [], None
        p = self.ph
        from ..facts.aspect import reads_as_change

        said = "CASE WHEN created_at < valid_from THEN created_at ELSE valid_from END"  # (a scheduled one: when said)
        rows = conn.execute(f"SELECT id, {said}, fact, text FROM memories WHERE tenant = {p} AND user_id = {p} "
                            f"AND slot = {p} AND valid_to IS NULL AND id <> {p} ORDER BY valid_from, id",
                            (item.tenant, item.user_id, f.slot, item.id)).fetchall()
        clash = []
        for mid, vf, raw, text in rows:
            old = FactSlot.model_validate(raw if isinstance(raw, dict) else json.loads(raw)) if raw else None
            if mid not in supersedes and old is not None and conflicts(old, f):
                clash.append((mid, vf, text))
        t = item.valid_from.timestamp()  # (said at the same instant: the one that reads as a change goes after)
        later = [(vf, mid) for mid, vf, text in clash if vf > t or (
            vf == t and reads_as_change(text) and not reads_as_change(item.text))]
        if later:
            vf, mid = min(later)
            return [], (from_epoch(vf), mid)
        return [mid for mid, _, _ in clash], None

    def recheck_into(self, conn: Any, nm: Any) -> tuple[float, str] | None:
        """:meth:`recheck` for a :class:`~.protocol.NewMemory` with ``conflicts``, applied to it: conflicting current
        facts join ``nm.supersedes``; when one was said later, ``nm.item`` is closed by it, returned as
        ``(valid_to epoch, superseded_by)`` (its carriers are to be closed with it). None otherwise."""
        if nm.conflicts is None:
            return None
        extra, late = self.recheck(conn, nm.item, nm.supersedes, nm.conflicts)
        nm.supersedes = list(nm.supersedes) + extra
        if late is None:
            return None
        nm.item.valid_to, nm.item.superseded_by = late
        return late[0].timestamp(), late[1]

    def supersede(self, conn: Any, item: MemoryItem, supersedes: list[str], late: tuple[float, str] | None,
                  close_one: Callable[[str, float, str], bool]) -> None:
        """Close what a new memory ``item`` ends: each id of ``supersedes`` (at its ``valid_from``, by it), then
        every carrier left with no current claim; with ``late`` (``item`` stored already closed), the carriers of
        its own claim. ``close_one(id, valid_to epoch, superseded_by)`` closes one memory in the store (True when
        it was current)."""
        queue = [(x, item.valid_from.timestamp(), item.id) for x in supersedes]
        if late is not None:
            queue += [(x, *late) for x in self.close(conn, item.tenant, item.user_id, item.id, *late)]
        while queue:
            old_id, when, by = queue.pop(0)
            if close_one(old_id, when, by):
                self._never_held(conn, item.tenant, item.user_id, old_id, when, by)
                queue += [(x, when, by) for x in self.close(conn, item.tenant, item.user_id, old_id, when, by)]

    def _never_held(self, conn: Any, tenant: str, user_id: str, old_id: str, when: float, by: str) -> None:
        """``old_id`` was just closed at ``when`` by ``by``: when it was scheduled (its ``valid_from`` after ``when``:
        it never held), what it was to close at its start holds until ``when`` instead and is closed by ``by``, so
        that exactly one value of the slot holds at every instant (Leeds, then Vancouver scheduled for March, then
        Seattle said in February: Leeds ends when Seattle was said, not in March)."""
        p = self.ph
        row = conn.execute(f"SELECT valid_from FROM memories WHERE tenant = {p} AND user_id = {p} AND id = {p}",
                           (tenant, user_id, old_id)).fetchone()
        if row is None or row[0] <= when:
            return
        for table in ("memories", "claims"):
            conn.execute(f"UPDATE {table} SET valid_to = {p}, superseded_by = {p} WHERE tenant = {p} AND user_id = "
                         f"{p} AND superseded_by = {p} AND valid_to > {p} AND valid_from <= {p}",
                         (when, by, tenant, user_id, old_id, when, when))

    def reopen(self, conn: Any, tenant: str, user_id: str, gone: list[str],
               history: Callable[[str, str, str], None], keep_closed: bool = False) -> int:
        """Before the memories ``gone`` are deleted (``delete``, ``delete_all``, a purge, an expiry, a fact that
        ``update`` took away): what each of them superseded no longer has that successor. When a later memory
        superseded it as well (``gone``'s own successor, followed past other ``gone`` ids), it is closed by that
        one from its ``valid_from`` (history ``SUPERSEDE``). Else, with ``keep_closed`` (``delete``,
        ``delete_all``: deleting a statement is no statement that the older value holds again), it stays
        superseded as it was (history ``SUCCESSOR_DELETED``); without (an expiry, an ``update`` that took the slot
        away), it holds again: the memory and its claims are reopened (``valid_to``/``superseded_by`` cleared;
        history ``REOPEN``), unless a current memory of the same text, kind and source already holds (then it
        stays closed). ``history(memory_id, event, reason)`` writes a history row. Returns how many memories were
        reopened or re-pointed (the caller reloads the scope's cached vectors when any)."""
        if not gone:
            return 0
        p = self.ph
        skip = set(gone)
        state: dict[str, str | None] = {}
        for i in range(0, len(gone), 900):
            chunk = gone[i:i + 900]
            cond, params = ((f"id IN ({','.join('?' * len(chunk))})", [*chunk]) if p == "?" else
                            ("id = ANY(%s)", [chunk]))
            for mid, by in conn.execute(f"SELECT id, superseded_by FROM memories WHERE tenant = {p} AND "
                                        f"user_id = {p} AND {cond}", [tenant, user_id, *params]).fetchall():
                state[mid] = by
        n = 0
        for d in gone:
            nxt, seen = state.get(d), {d}
            while nxt in skip and nxt not in seen:
                seen.add(nxt)
                nxt = state.get(nxt)
            nxt = None if nxt in skip else nxt
            rows = [r for r in conn.execute(
                f"SELECT id, agent_id, kind, source, content_hash FROM memories WHERE tenant = {p} AND user_id = {p} "
                f"AND superseded_by = {p}", (tenant, user_id, d)).fetchall() if r[0] not in skip]
            if not rows:
                continue
            vf = None if nxt is None else conn.execute(
                f"SELECT valid_from FROM memories WHERE tenant = {p} AND id = {p}", (tenant, nxt)).fetchone()
            if nxt is not None and vf is not None:
                for r in rows:
                    conn.execute(f"UPDATE memories SET valid_to = {p}, superseded_by = {p} WHERE tenant = {p} AND "
                                 f"id = {p}", (vf[0], nxt, tenant, r[0]))
                    history(r[0], "SUPERSEDE", f"superseded by {nxt} (its successor {d} was deleted)")
                conn.execute(f"UPDATE claims SET valid_to = {p}, superseded_by = {p} WHERE tenant = {p} AND "
                             f"user_id = {p} AND superseded_by = {p}", (vf[0], nxt, tenant, user_id, d))
                n += len(rows)
                continue
            if keep_closed:
                for r in rows:
                    history(r[0], "SUCCESSOR_DELETED", f"stays superseded: its successor {d} was deleted")
                continue
            for mid, agent, kind, source, chash in rows:
                dup = conn.execute(
                    f"SELECT 1 FROM memories WHERE tenant = {p} AND user_id = {p} AND coalesce(agent_id, '') = {p} "
                    f"AND kind = {p} AND source = {p} AND content_hash = {p} AND valid_to IS NULL",
                    (tenant, user_id, agent or "", kind, source, chash)).fetchone()
                if dup is not None:
                    continue
                conn.execute(  # updated_at: its last edit of the text (closing it was none)
                    f"UPDATE memories SET valid_to = NULL, superseded_by = NULL, updated_at = (SELECT "
                    f"max(h.created_at) FROM memory_history h WHERE h.tenant = {p} AND h.memory_id = {p} AND "
                    "h.event = 'UPDATE') "
                    f"WHERE tenant = {p} AND id = {p}", (tenant, mid, tenant, mid))
                history(mid, "REOPEN", f"its successor {d} was deleted")
                n += 1
            conn.execute(f"UPDATE claims SET valid_to = NULL, superseded_by = NULL WHERE tenant = {p} AND "
                         f"user_id = {p} AND superseded_by = {p}", (tenant, user_id, d))
        return n

    def reopen_for(self, store: Any, conn: Any, tenant: str, user_id: str, gone: list[str], actor: str,
                   keep_closed: bool = False) -> int:
        """:meth:`reopen` writing ``store``'s history rows (by ``actor``); when anything reopened, the scope's
        generation moves once more (its cached vectors reload: reopened rows are current again)."""
        n = self.reopen(conn, tenant, user_id, gone, lambda m, e, r: store._history(
            conn, m, tenant, user_id, e, None, None, actor, r), keep_closed)
        if n:
            store._bump(conn, tenant, user_id)
        return n

    def reopen_unstated(self, store: Any, conn: Any, tenant: str, memory_id: str, fact: FactSlot | None) -> int:
        """``update`` gave fact memory ``memory_id`` the fact ``fact``: when it no longer states its slot, what it
        superseded holds again (:meth:`reopen_for`). Call before the memory's slot is rewritten."""
        p = self.ph
        was = conn.execute(f"SELECT user_id, slot FROM memories WHERE tenant = {p} AND id = {p}",
                           (tenant, memory_id)).fetchone()
        if not was or not was[1] or (fact is not None and fact.slot == was[1]):
            return 0
        return self.reopen_for(store, conn, tenant, was[0], [memory_id], "update")

    def retract(self, store: Any, conn: Any, tenant: str, user_id: str, fact_id: str, when: float, by: str | None,
                turn: str, actor: str, reason: str) -> list[str]:
        """The store's ``close_fact``: what fact memory ``fact_id`` superseded holds again (:meth:`reopen_for`), then it
        is closed (``valid_to`` = ``when``, ``superseded_by`` = ``by``, None when nothing replaced it) with its claim
        on every carrier, and each carrier left with nothing current closes too, never ``turn`` (the edited turn that
        no longer says it: it stops carrying the claim); history ``SUPERSEDE`` with ``reason`` for each. Returns the
        ids closed."""
        from ..timeutil import utcnow

        p, now = self.ph, utcnow().timestamp()
        self.reopen_for(store, conn, tenant, user_id, [fact_id], actor)
        closed: list[str] = []
        queue = [fact_id]
        while queue:
            mid = queue.pop(0)
            if conn.execute(f"UPDATE memories SET valid_to = {p}, superseded_by = {p}, updated_at = {p} WHERE "
                            f"tenant = {p} AND id = {p} AND valid_to IS NULL", (when, by, now, tenant, mid)).rowcount:
                store._history(conn, mid, tenant, user_id, "SUPERSEDE", None, None, actor, reason)
                closed.append(mid)
                queue += [x for x in self.close(conn, tenant, user_id, mid, when, by) if x != turn]
        conn.execute(f"DELETE FROM claims WHERE tenant = {p} AND memory_id = {p} AND fact_id = {p}",
                     (tenant, turn, fact_id))
        return closed

    def carry(self, conn: Any, tenant: str, memory_id: str, fact_ids: list[str]) -> None:
        """Memory ``memory_id`` carries the claims of the facts ``fact_ids`` too (each fact's own claim row, as it
        is now, copied for it; one it carries already is left as it is)."""
        p = self.ph
        cols = CLAIM_COLUMNS.replace("memory_id, ", "")
        for fid in fact_ids:
            conn.execute(f"INSERT INTO claims (tenant, user_id, memory_id, {cols}) SELECT tenant, user_id, {p}, {cols} "
                         f"FROM claims WHERE tenant = {p} AND memory_id = {p} AND fact_id = {p} ON CONFLICT DO NOTHING",
                         (memory_id, tenant, fid, fid))

    def lock_slots(self, conn: Any, memories: list[Any]) -> None:
        """PostgreSQL: take the transaction's advisory lock of each (tenant, user, slot) the new fact memories
        reconcile (sorted: writers queue, never deadlock), so read-decide-write is one step across workers."""
        for key in sorted({f"{m.item.tenant}|{m.item.user_id}|{m.item.fact.slot}" for m in memories
                           if m.conflicts is not None and m.item.fact is not None}):
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))

    def set_fact(self, conn: Any, tenant: str, memory_id: str, slot: str | None, value: str | None,
                 polarity: int | None) -> None:
        """A fact memory's fact changed (``update``): its claim follows (or goes, when it states none now)."""
        p = self.ph
        if slot is None:
            conn.execute(f"DELETE FROM claims WHERE tenant = {p} AND fact_id = {p}", (tenant, memory_id))
            return
        conn.execute(f"UPDATE claims SET slot = {p}, value = {p}, polarity = {p} WHERE tenant = {p} AND "
                     f"fact_id = {p} AND (memory_id = fact_id OR valid_to IS NULL)",  # (not the old words'
                     (slot, value, polarity, tenant, memory_id))  # claim an edit closed on its carriers: .edited)

    def load(self, read: Callable[[str, Any], Iterable[tuple]], tenant_ids: dict[str, list[str]]
             ) -> dict[tuple[str, str], list[Claim]]:
        """{(tenant, memory id): its claims, oldest said first (then by slot and value: an order of what they say, never
        of their random ids)} for ``tenant_ids`` ({tenant: memory ids}).
        ``read(sql, params)``: rows."""
        p = self.ph
        out: dict[tuple[str, str], list[Claim]] = {}
        for tenant, ids in tenant_ids.items():
            for i in range(0, len(ids), 900):
                chunk = ids[i:i + 900]
                if p == "?":
                    sql = f"memory_id IN ({','.join('?' * len(chunk))})"
                    params: list[Any] = [tenant, *chunk]
                else:
                    sql, params = "memory_id = ANY(%s)", [tenant, chunk]
                for r in read(f"SELECT {CLAIM_COLUMNS} FROM claims WHERE tenant = {p} AND {sql} "
                              "ORDER BY said_at, slot, value, fact_id", params):
                    out.setdefault((tenant, r[0]), []).append(Claim.model_construct(  # rows as written: no validation
                        fact_id=r[1], slot=r[2], value=r[3], polarity=1 if r[4] >= 0 else -1,
                        said_at=from_epoch(r[5]), valid_from=from_epoch(r[6]), valid_to=from_epoch(r[7]),
                        superseded_by=r[8], span=r[9], words=r[10] or ""))
        return out


class SQLiteRetractMixin:
    """The SQLite store's ``close_fact`` (:meth:`ClaimsSQL.retract`, then its cached vectors drop the rows closed)
    and ``carry_claims`` (:meth:`ClaimsSQL.carry`)."""

    _claims: ClaimsSQL
    _tx: Any
    _bump: Any
    vectors: Any

    def close_fact(self, tenant: str, memory_id: str, *, when: Any, by: str | None, turn: str, actor: str,
                   reason: str) -> list[str]:
        with self._tx() as c:
            row = c.execute("SELECT user_id FROM memories WHERE id=? AND tenant=?", (memory_id, tenant)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            closed = self._claims.retract(self, c, tenant, row[0], memory_id, when.timestamp(), by, turn, actor,
                                          reason)
            rowids = [r[0] for r in c.execute(f"SELECT rowid FROM memories WHERE tenant=? AND id IN "
                                              f"({','.join('?' * len(closed))})", [tenant, *closed])]
            gen = self._bump(c, tenant, row[0])
        if self.vectors and rowids:
            self.vectors.apply((tenant, row[0]), gen - 1, gen, removed=rowids)
        return closed

    def carry_claims(self, tenant: str, memory_id: str, fact_ids: list[str]) -> None:
        with self._tx() as c:
            row = c.execute("SELECT user_id FROM memories WHERE id=? AND tenant=?", (memory_id, tenant)).fetchone()
            if row is None:
                raise NotFoundError(f"no memory {memory_id!r}")
            self._claims.carry(c, tenant, memory_id, fact_ids)
            gen = self._bump(c, tenant, row[0])
        if self.vectors:
            self.vectors.apply((tenant, row[0]), gen - 1, gen)
