"""PostgreSQL schema migrations, versioned in the ``anchormem_schema`` table; each pending step runs in the
migration transaction under an advisory lock, so processes opening one database at once migrate it once.
Add a new step at the end; never edit a released one.

Every table but ``meta`` carries ``tenant`` and ``user_id`` and every primary key starts with them, so the
tables can be distributed (Citus) on ``user_id`` and co-located: a user's rows live on one shard. ``meta``
(embedder name and dimension, store id) is global: a reference table under Citus.

Timestamps are ``double precision`` epoch seconds (UTC), exactly as in the SQLite store, so filters compile
to the same comparisons. The ``embedding vector(dim)`` column and its HNSW index are added by
:meth:`PostgresStore.check_embedder` once the embedder's dimension is known (see :func:`embedding_ddl`).
"""

from __future__ import annotations

from .claims_sql import claims_backfill, claims_ddl, claims_words_ddl, past_entities_ddl
from .pending_sql import queue_ddl
from .schema import KIND_INDEX
from .sessions_sql import sessions_ddl

__all__ = ["MIGRATIONS", "LATEST", "VERSION_TABLE", "embedding_ddl", "HNSW_MAX_DIM", "MEMORIES_FILLFACTOR"]

VERSION_TABLE = "anchormem_schema"

HNSW_MAX_DIM = 2000  # pgvector indexes ``vector`` columns up to 2,000 dimensions

_V1 = [
    """CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)""",
    """CREATE TABLE messages (
        tenant text NOT NULL, user_id text NOT NULL, id text NOT NULL,
        agent_id text, session_id text,
        role text NOT NULL, name text, content text NOT NULL,
        ts double precision NOT NULL, created_at double precision NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (tenant, user_id, id))""",
    "CREATE INDEX ix_msg_scope ON messages (tenant, user_id, session_id, ts)",
    """CREATE TABLE memories (
        tenant text NOT NULL, user_id text NOT NULL, id text NOT NULL,
        agent_id text, session_id text,
        kind text NOT NULL, text text NOT NULL, content_hash text NOT NULL,
        role text NOT NULL, speaker text, source text NOT NULL,
        created_at double precision NOT NULL, updated_at double precision,
        event_time double precision, event_time_end double precision,
        valid_from double precision NOT NULL, valid_to double precision,
        confidence double precision NOT NULL DEFAULT 1.0,
        labels jsonb NOT NULL DEFAULT '[]'::jsonb, metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        source_message_ids jsonb NOT NULL DEFAULT '[]'::jsonb, source_text text NOT NULL DEFAULT '',
        superseded_by text, access_count integer NOT NULL DEFAULT 0,
        last_accessed_at double precision, expires_at double precision,
        tsv tsvector NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (tenant, user_id, id))""",
    "CREATE INDEX ix_mem_id ON memories (tenant, id)",
    "CREATE INDEX ix_mem_scope ON memories (tenant, user_id, valid_to)",
    "CREATE INDEX ix_mem_session ON memories (tenant, user_id, session_id)",
    "CREATE INDEX ix_mem_created ON memories (tenant, user_id, created_at)",
    """CREATE UNIQUE INDEX ux_mem_dedupe ON memories (tenant, user_id, coalesce(agent_id, ''), kind, source,
        content_hash) WHERE valid_to IS NULL""",
    "CREATE INDEX ix_mem_tsv ON memories USING gin (tsv)",
    """CREATE TABLE memory_entities (
        tenant text NOT NULL, user_id text NOT NULL, memory_id text NOT NULL,
        type text NOT NULL, value text NOT NULL, normalized text,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        FOREIGN KEY (tenant, user_id, memory_id) REFERENCES memories (tenant, user_id, id) ON DELETE CASCADE)""",
    "CREATE INDEX ix_ent_mem ON memory_entities (tenant, user_id, memory_id)",
    "CREATE INDEX ix_ent_scope ON memory_entities (tenant, user_id, type, value)",
    """CREATE TABLE memory_history (
        tenant text NOT NULL, user_id text NOT NULL, memory_id text NOT NULL,
        version integer NOT NULL, event text NOT NULL, old_text text, new_text text,
        actor text, reason text, created_at double precision NOT NULL,
        PRIMARY KEY (tenant, user_id, memory_id, version))""",
    "CREATE INDEX ix_hist_mem ON memory_history (tenant, memory_id, version)",
    """CREATE TABLE metadata_keys (tenant text NOT NULL, user_id text NOT NULL, key text NOT NULL,
        PRIMARY KEY (tenant, user_id, key))""",
    """CREATE TABLE scope_state (tenant text NOT NULL, user_id text NOT NULL, generation bigint NOT NULL,
        PRIMARY KEY (tenant, user_id))""",
]

# v2: fact slots (supersede by (entity, attribute)) and the review queue
_V2 = [
    "ALTER TABLE memories ADD COLUMN slot text",
    "ALTER TABLE memories ADD COLUMN fact jsonb",
    "CREATE INDEX ix_mem_slot ON memories (tenant, user_id, slot) WHERE slot IS NOT NULL AND valid_to IS NULL",
    """CREATE TABLE review_queue (
        tenant text NOT NULL, user_id text NOT NULL, id text NOT NULL,
        status text NOT NULL, reason text NOT NULL, proposed jsonb NOT NULL,
        targets jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at double precision NOT NULL, resolved_at double precision, resolved_by text,
        result_memory_id text,
        PRIMARY KEY (tenant, user_id, id))""",
    "CREATE INDEX ix_review_id ON review_queue (tenant, id)",
    "CREATE INDEX ix_review_scope ON review_queue (tenant, user_id, status, created_at)",
]

# v3: the PII token vault (``Memory(pii="tokenize")``): the encrypted original of each token, per user
_V3 = [
    """CREATE TABLE pii_vault (
        tenant text NOT NULL, user_id text NOT NULL, token text NOT NULL,
        ciphertext bytea NOT NULL, created_at double precision NOT NULL,
        PRIMARY KEY (tenant, user_id, token))""",
    "CREATE INDEX ix_vault_token ON pii_vault (tenant, token)",
]

# v4: storage tiers (``anchormem.consolidate``): "warm" (default: searched) or "cold" (archived: out of default
# search/get_all, kept for as_of reads, get, history and export), with the instant it was archived
_V4 = [
    "ALTER TABLE memories ADD COLUMN tier text NOT NULL DEFAULT 'warm'",
    "ALTER TABLE memories ADD COLUMN archived_at double precision",
    "CREATE INDEX ix_mem_cold ON memories (tenant, user_id) WHERE tier <> 'warm'",
]

# v5: the context vector of each memory (:mod:`anchormem.context.anchor`): the weighted mean embedding of the turns
# around it in its session, float32 little-endian; NULL for memories written before v5 (``anchormem relabel``
# fills them in)
_V5 = ["ALTER TABLE memories ADD COLUMN context_vec bytea"]

# v6: claims (:mod:`.claims_sql`): which memory carries which slot fact, each with its own validity; existing
# fact memories and the utterances they were drawn from are backfilled, and an utterance whose facts were all
# superseded is closed with them; memory_history.old_state keeps an edited memory's structured fields
_V6 = claims_ddl("postgres") + claims_backfill("postgres") + past_entities_ddl("postgres") + sessions_ddl("postgres") + [
    # an UPDATE version also keeps the structured fields the text had (fact, entities, labels: .past_text)
    "ALTER TABLE memory_history ADD COLUMN old_state jsonb"]

# v7: ``memories`` keeps 30% of each heap page free (fillfactor 70), so a search's access-count write
# (``touch``: ``access_count``, ``last_accessed_at``, columns no index covers) fits on the row's own page and is a
# HOT update: no new entry in any index, the HNSW graph included. At fillfactor 100 about half of these updates
# moved the row to another page and inserted it into every index (bench/results/pg_access_30k.json). A new store
# gets the setting on an empty table (every page); an existing one on the pages written from now on: rewrite it
# once (``PostgresStore.rewrite_tables(["memories"])``, ``VACUUM FULL``: a table lock) to apply it to old pages.
MEMORIES_FILLFACTOR = 70
_V7 = [f"ALTER TABLE memories SET (fillfactor = {MEMORIES_FILLFACTOR})"]

# v8: the user's rows by event time, as SQLite's ix_mem_event: a dated question's window (created_at or event_time in
# it, retrieval/dated.py) reads two index ranges (a BitmapOr of ix_mem_created and this one), not every row of the
# scope
_V8 = ["CREATE INDEX IF NOT EXISTS ix_mem_event ON memories (tenant, user_id, event_time)"]  # (a re-run: no-op)

# v9: what each claim's closing takes out of its memory, decided when the claim is written (``claims.words``,
# :func:`anchormem.facts.claims.decided_words`); NULL on older rows, whose read paths cut the span as before
_V9 = claims_words_ddl()

# v10: the deferred-enrichment queue (``add_many(enrich="later")``, :mod:`.pending_pg`; SQLite's v9)
_V10 = queue_ddl("postgres")

# v11: the user's current rows by kind, oldest first, as SQLite's v10 (:data:`.schema.KIND_INDEX`)
_V11 = [KIND_INDEX]

MIGRATIONS: list[tuple[int, list[str]]] = [(1, _V1), (2, _V2), (3, _V3), (4, _V4), (5, _V5), (6, _V6), (7, _V7),
                                           (8, _V8), (9, _V9), (10, _V10), (11, _V11)]
LATEST = MIGRATIONS[-1][0]


def embedding_ddl(dim: int) -> list[str]:
    """The statements that add the embedding column (and its HNSW index) for an embedder of ``dim``."""
    out = [f"ALTER TABLE memories ADD COLUMN embedding vector({int(dim)}) NOT NULL"]
    if dim <= HNSW_MAX_DIM:
        out.append("CREATE INDEX ix_mem_hnsw ON memories USING hnsw (embedding vector_ip_ops)")
    return out
