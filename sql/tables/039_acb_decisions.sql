-- The decision ledger (PRD 6.1): one row per decision; a superseding decision marks the old one superseded and
-- both stay (history). refs name the evidence events and chunks.
CREATE TABLE IF NOT EXISTS acb_decisions (
    decision_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    event_id text NOT NULL REFERENCES acb_events (event_id),
    channel text NOT NULL,
    sensitivity text NOT NULL,
    ts timestamptz NOT NULL DEFAULT clock_timestamp(),
    status text NOT NULL,
    scope text NOT NULL,
    decision text NOT NULL,
    rationale text[] NOT NULL DEFAULT '{}',
    constraints text[] NOT NULL DEFAULT '{}',
    alternatives text[] NOT NULL DEFAULT '{}',
    consequences text[] NOT NULL DEFAULT '{}',
    refs text[] NOT NULL DEFAULT '{}',
    supersedes text NULL REFERENCES acb_decisions (decision_id),
    superseded_by text NULL REFERENCES acb_decisions (decision_id),
    search_text text NOT NULL,  -- the decision and its rationale, as one text (written by the service)
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', search_text)) STORED,
    CONSTRAINT ck_acb_decisions_status CHECK (status IN ('active', 'superseded')),
    CONSTRAINT ck_acb_decisions_scope CHECK (scope IN ('project', 'user', 'global')),
    CONSTRAINT ck_acb_decisions_superseded CHECK ((status = 'superseded') = (superseded_by IS NOT NULL))
);

CREATE INDEX IF NOT EXISTS idx_acb_decisions_tenant_status_ts ON acb_decisions (tenant_id, status, ts DESC);
CREATE INDEX IF NOT EXISTS idx_acb_decisions_tsv_gin ON acb_decisions USING GIN (tsv);
