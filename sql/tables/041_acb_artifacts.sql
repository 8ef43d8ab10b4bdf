-- Artifacts (PRD 6.1, 7.4): the full bytes of a tool output whose excerpt was truncated at 64 KB.
CREATE TABLE IF NOT EXISTS acb_artifacts (
    artifact_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    session_id text NOT NULL,
    ts timestamptz NOT NULL DEFAULT clock_timestamp(),
    kind text NOT NULL,
    bytes bytea NULL,
    meta jsonb NOT NULL DEFAULT '{}'::jsonb,
    refs text[] NOT NULL DEFAULT '{}',
    CONSTRAINT ck_acb_artifacts_kind CHECK (kind IN ('tool_output', 'blob'))
);

CREATE INDEX IF NOT EXISTS idx_acb_artifacts_tenant_ts ON acb_artifacts (tenant_id, ts DESC);
