-- 5.8 search_traces: search explainability.
CREATE TABLE IF NOT EXISTS search_traces (
    trace_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    read_profile text NOT NULL,
    query text NOT NULL,
    expansion_mode text NOT NULL,
    expanded_queries jsonb NOT NULL,
    allowed_scopes jsonb NOT NULL,
    candidate_count int NOT NULL,
    top_k int NOT NULL,
    config_snapshot jsonb NOT NULL,
    trace_version int NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    CONSTRAINT ck_search_traces_expansion_mode CHECK (expansion_mode IN ('off', 'always', 'dynamic')),
    CONSTRAINT ck_search_traces_expanded_queries_array CHECK (jsonb_typeof(expanded_queries) = 'array'),
    CONSTRAINT ck_search_traces_allowed_scopes_array CHECK (jsonb_typeof(allowed_scopes) = 'array'),
    CONSTRAINT ck_search_traces_candidate_count CHECK (candidate_count >= 0),
    CONSTRAINT ck_search_traces_top_k CHECK (top_k > 0),
    CONSTRAINT ck_search_traces_trace_version CHECK (trace_version > 0)
);

CREATE INDEX IF NOT EXISTS idx_search_traces_expires
    ON search_traces (expires_at);
CREATE INDEX IF NOT EXISTS idx_search_traces_context
    ON search_traces (tenant_id, project_id, created_at);
