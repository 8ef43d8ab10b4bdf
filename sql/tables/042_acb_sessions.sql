-- One row per session (tenant, session_id), kept by record_event: which agents wrote it and when, for the
-- handoff packet and the operators' session list.
CREATE TABLE IF NOT EXISTS acb_sessions (
    sid uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id text NOT NULL,
    session_id text NOT NULL,
    project_id text NOT NULL,
    agents text[] NOT NULL DEFAULT '{}',
    event_count int NOT NULL DEFAULT 0,
    first_ts timestamptz NOT NULL,
    last_ts timestamptz NOT NULL
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_acb_sessions_session ON acb_sessions (tenant_id, session_id);
CREATE INDEX IF NOT EXISTS idx_acb_sessions_last ON acb_sessions (tenant_id, last_ts DESC);
