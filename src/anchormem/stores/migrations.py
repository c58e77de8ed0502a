"""SQLite schema migrations. ``PRAGMA user_version`` holds the applied version; each step runs in one
transaction. Add a new step at the end; never edit a released one."""

from __future__ import annotations

from .claims_sql import claims_backfill, claims_ddl, claims_words_ddl, past_entities_ddl
from .keyword_index import LOG_DDL
from .pending_sql import QUEUE_DDL
from .schema import KIND_INDEX
from .sessions_sql import sessions_ddl

__all__ = ["MIGRATIONS", "LATEST"]

_V1 = [
    """CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE messages (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tenant TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT, session_id TEXT,
        role TEXT NOT NULL, name TEXT, content TEXT NOT NULL,
        ts REAL NOT NULL, created_at REAL NOT NULL, metadata TEXT NOT NULL DEFAULT '{}')""",
    "CREATE INDEX ix_msg_scope ON messages(tenant, user_id, session_id, ts)",
    """CREATE TABLE memories (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tenant TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT, session_id TEXT,
        kind TEXT NOT NULL, text TEXT NOT NULL, content_hash TEXT NOT NULL,
        role TEXT NOT NULL, speaker TEXT, source TEXT NOT NULL,
        created_at REAL NOT NULL, updated_at REAL,
        event_time REAL, event_time_end REAL,
        valid_from REAL NOT NULL, valid_to REAL,
        confidence REAL NOT NULL DEFAULT 1.0,
        labels TEXT NOT NULL DEFAULT '[]', metadata TEXT NOT NULL DEFAULT '{}',
        source_message_ids TEXT NOT NULL DEFAULT '[]', source_text TEXT NOT NULL DEFAULT '',
        superseded_by TEXT, access_count INTEGER NOT NULL DEFAULT 0, last_accessed_at REAL, expires_at REAL,
        embedding BLOB NOT NULL)""",
    "CREATE INDEX ix_mem_scope ON memories(tenant, user_id, valid_to)",
    "CREATE INDEX ix_mem_session ON memories(tenant, user_id, session_id)",
    "CREATE INDEX ix_mem_created ON memories(tenant, user_id, created_at)",
    """CREATE UNIQUE INDEX ux_mem_dedupe ON memories(tenant, user_id, ifnull(agent_id, ''), kind, source,
        content_hash) WHERE valid_to IS NULL""",
    """CREATE VIRTUAL TABLE memories_fts USING fts5(scope, body, tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TABLE memory_entities (
        memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
        tenant TEXT NOT NULL, user_id TEXT NOT NULL,
        type TEXT NOT NULL, value TEXT NOT NULL, normalized TEXT)""",
    "CREATE INDEX ix_ent_mem ON memory_entities(memory_rowid)",
    "CREATE INDEX ix_ent_scope ON memory_entities(tenant, user_id, type, value)",
    """CREATE TABLE memory_history (
        rowid INTEGER PRIMARY KEY,
        memory_id TEXT NOT NULL, tenant TEXT NOT NULL, user_id TEXT NOT NULL,
        version INTEGER NOT NULL, event TEXT NOT NULL, old_text TEXT, new_text TEXT,
        actor TEXT, reason TEXT, created_at REAL NOT NULL)""",
    "CREATE INDEX ix_hist_mem ON memory_history(memory_id, version)",
    "CREATE INDEX ix_hist_scope ON memory_history(tenant, user_id)",
    """CREATE TABLE metadata_keys (tenant TEXT NOT NULL, user_id TEXT NOT NULL, key TEXT NOT NULL,
        PRIMARY KEY (tenant, user_id, key)) WITHOUT ROWID""",
    """CREATE TABLE scope_state (tenant TEXT NOT NULL, user_id TEXT NOT NULL, generation INTEGER NOT NULL,
        PRIMARY KEY (tenant, user_id)) WITHOUT ROWID""",
]

# v2: fact slots (supersede by (entity, attribute)) and the review queue
_V2 = [
    "ALTER TABLE memories ADD COLUMN slot TEXT",
    "ALTER TABLE memories ADD COLUMN fact TEXT",
    "CREATE INDEX ix_mem_slot ON memories(tenant, user_id, slot) WHERE slot IS NOT NULL AND valid_to IS NULL",
    """CREATE TABLE review_queue (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tenant TEXT NOT NULL, user_id TEXT NOT NULL,
        status TEXT NOT NULL, reason TEXT NOT NULL, proposed TEXT NOT NULL, targets TEXT NOT NULL DEFAULT '[]',
        created_at REAL NOT NULL, resolved_at REAL, resolved_by TEXT, result_memory_id TEXT)""",
    "CREATE INDEX ix_review_scope ON review_queue(tenant, user_id, status, created_at)",
]

# v3: the PII token vault (``Memory(pii="tokenize")``): the encrypted original of each token, per user, so that
# forgetting a user deletes their rows; looked up by token across the tenant
_V3 = [
    """CREATE TABLE pii_vault (
        tenant TEXT NOT NULL, user_id TEXT NOT NULL, token TEXT NOT NULL,
        ciphertext BLOB NOT NULL, created_at REAL NOT NULL,
        PRIMARY KEY (tenant, user_id, token)) WITHOUT ROWID""",
    "CREATE INDEX ix_vault_token ON pii_vault(tenant, token)",
]

# v4: storage tiers (``anchormem.consolidate``): "warm" (default: searched) or "cold" (archived: out of default
# search/get_all, kept for as_of reads, get, history and export), with the instant it was archived
_V4 = [
    "ALTER TABLE memories ADD COLUMN tier TEXT NOT NULL DEFAULT 'warm'",
    "ALTER TABLE memories ADD COLUMN archived_at REAL",
    "CREATE INDEX ix_mem_cold ON memories(tenant, user_id) WHERE tier <> 'warm'",
]

# v5: the context vector of each memory (:mod:`anchormem.context.anchor`): the weighted mean embedding of the turns
# around it in its session, float32 little-endian; NULL for memories written before v5 (``anchormem relabel``
# fills them in)
_V5 = ["ALTER TABLE memories ADD COLUMN context_vec BLOB"]

# v6: claims (:mod:`.claims_sql`): which memory carries which slot fact, each with its own validity; existing
# fact memories and the utterances they were drawn from are backfilled, and an utterance whose facts were all
# superseded is closed with them; memory_history.old_state keeps an edited memory's structured fields
_V6 = claims_ddl("sqlite") + claims_backfill("sqlite") + past_entities_ddl("sqlite") + sessions_ddl("sqlite") + [
    # an UPDATE version also keeps the structured fields the text had (fact, entities, labels: .past_text)
    "ALTER TABLE memory_history ADD COLUMN old_state TEXT"]

# v7: the change log of the in-process keyword index (:mod:`.keyword_index`): the rowid of every memory inserted,
# deleted or re-texted, appended by triggers in the writer's transaction; the index catches up from it. And the
# user's rows by event time: a dated question's window filter (created_at or event_time in the window,
# retrieval/dated.py) is then two index range scans (SQLite's multi-index OR), not a read of every row of the scope
# (60 ms CPU at 100k memories, bench/search_stages.py)
_V7 = LOG_DDL + ["CREATE INDEX ix_mem_event ON memories(tenant, user_id, event_time)"]

# v8: what each claim's closing takes out of its memory, decided when the claim is written (``claims.words``,
# :func:`anchormem.facts.claims.decided_words`); NULL on older rows, whose read paths cut the span as before
_V8 = claims_words_ddl()

# v9: the deferred-enrichment queue (``add_many(enrich="later")``, :mod:`.pending_sql`)
_V9 = QUEUE_DDL

# v10: the user's current rows by kind, oldest first (:data:`.schema.KIND_INDEX`): a listing of one kind
# (``get_all(filters={"kind": "fact"})``, ``Memory.due``: the open commitments) reads that kind's current rows in
# order, not every row of the scope (31 ms CPU at 100k memories; bench/results/scale15_kind_reads.json)
_V10 = [KIND_INDEX]

MIGRATIONS: list[tuple[int, list[str]]] = [(1, _V1), (2, _V2), (3, _V3), (4, _V4), (5, _V5), (6, _V6), (7, _V7),
                                           (8, _V8), (9, _V9), (10, _V10)]
LATEST = MIGRATIONS[-1][0]
