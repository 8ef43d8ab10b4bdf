-- Search sessions created by POST /v2/searches: the ranked note index (items) is kept so that
-- GET /v2/searches/{id}, /timeline and /notes can page through it; touching extends expires_at.
-- trace_id has no foreign key: the trace is persisted asynchronously through search_trace_outbox.
CREATE TABLE IF NOT EXISTS search_sessions (
    search_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    read_profile text NOT NULL,
    query text NOT NULL,
    trace_id uuid NOT NULL,
    items jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    CONSTRAINT ck_search_sessions_items_array CHECK (jsonb_typeof(items) = 'array'),
    CONSTRAINT ck_search_sessions_expiry CHECK (expires_at >= created_at)
);

CREATE INDEX IF NOT EXISTS idx_search_sessions_expires
    ON search_sessions (expires_at);
CREATE INDEX IF NOT EXISTS idx_search_sessions_context
    ON search_sessions (tenant_id, project_id, agent_id, created_at);
