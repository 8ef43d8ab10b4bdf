-- Built bundles, kept for the operators (sections and provenance) for acb.bundle_retention_days (default 7).
CREATE TABLE IF NOT EXISTS acb_bundles (
    acb_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    channel text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    budget_tokens int NOT NULL,
    token_used_est int NOT NULL,
    bundle_hash text NOT NULL,
    body jsonb NOT NULL,
    CONSTRAINT ck_acb_bundles_budget CHECK (token_used_est <= budget_tokens)
);

CREATE INDEX IF NOT EXISTS idx_acb_bundles_created ON acb_bundles (created_at);
CREATE INDEX IF NOT EXISTS idx_acb_bundles_session ON acb_bundles (tenant_id, session_id, created_at DESC);
