-- Event log (agent-memory-acb-prd section 6): every message, tool call, tool result, decision and task update an
-- agent records. Append-only in the database itself: a trigger refuses UPDATE and DELETE (PRD principle P1).
-- Tables carry an acb_ prefix: the PRD's bare names (events, chunks, ...) would be ambiguous in ELF's database.
CREATE TABLE IF NOT EXISTS acb_events (
    event_id text PRIMARY KEY,
    ts timestamptz NOT NULL DEFAULT clock_timestamp(),
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    channel text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    kind text NOT NULL,
    sensitivity text NOT NULL DEFAULT 'none',
    tags text[] NOT NULL DEFAULT '{}',
    content jsonb NOT NULL,
    refs text[] NOT NULL DEFAULT '{}',
    CONSTRAINT ck_acb_events_channel CHECK (channel IN ('private', 'public', 'team', 'agent')),
    CONSTRAINT ck_acb_events_actor CHECK (actor_type IN ('human', 'agent', 'tool')),
    CONSTRAINT ck_acb_events_kind
        CHECK (kind IN ('message', 'tool_call', 'tool_result', 'decision', 'task_update', 'artifact')),
    CONSTRAINT ck_acb_events_sensitivity CHECK (sensitivity IN ('none', 'low', 'high', 'secret'))
);

CREATE INDEX IF NOT EXISTS idx_acb_events_tenant_ts ON acb_events (tenant_id, ts DESC);
CREATE INDEX IF NOT EXISTS idx_acb_events_tenant_session_ts ON acb_events (tenant_id, session_id, ts DESC);
CREATE INDEX IF NOT EXISTS idx_acb_events_tags_gin ON acb_events USING GIN (tags);

CREATE OR REPLACE FUNCTION acb_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'acb_events is append-only (% refused)', TG_OP;
END
$$;

CREATE OR REPLACE TRIGGER trg_acb_events_append_only
    BEFORE UPDATE OR DELETE ON acb_events
    FOR EACH ROW EXECUTE FUNCTION acb_events_append_only();
