-- Retrieval units derived from events (PRD 6.1 "chunks"): disposable, rebuilt from acb_events on demand (P2).
-- agent_id, actor_type, actor_id and artifact_id repeat the event's, so the recent window and the handoff packet
-- need no join.
-- btree_gin lets one GIN index hold (tenant_id, tsv): a tenant's search never reads other tenants' matches.
CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE TABLE IF NOT EXISTS acb_chunks (
    chunk_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    event_id text NOT NULL REFERENCES acb_events (event_id),
    ord int NOT NULL,
    ts timestamptz NOT NULL,
    kind text NOT NULL,
    agent_id text NOT NULL DEFAULT '',
    actor_type text NOT NULL DEFAULT 'agent',
    actor_id text NOT NULL DEFAULT '',
    artifact_id text NULL,
    channel text NOT NULL,
    sensitivity text NOT NULL DEFAULT 'none',
    tags text[] NOT NULL DEFAULT '{}',
    token_est int NOT NULL,
    importance real NOT NULL DEFAULT 0.0,
    text text NOT NULL,
    text_hash text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    CONSTRAINT ck_acb_chunks_token_est CHECK (token_est >= 1)
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_acb_chunks_event_ord ON acb_chunks (event_id, ord);
CREATE INDEX IF NOT EXISTS idx_acb_chunks_tenant_ts ON acb_chunks (tenant_id, ts DESC);
CREATE INDEX IF NOT EXISTS idx_acb_chunks_session_recent
    ON acb_chunks (tenant_id, session_id, ts DESC, chunk_id DESC);
CREATE INDEX IF NOT EXISTS idx_acb_chunks_tenant_tsv_gin ON acb_chunks USING GIN (tenant_id, tsv);
