-- Task state (PRD 6.1): the latest state of each task, updated by task_update events (their history is the log).
CREATE TABLE IF NOT EXISTS acb_tasks (
    task_id text PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    session_id text NOT NULL,
    agent_id text NOT NULL,
    ts timestamptz NOT NULL DEFAULT clock_timestamp(),
    status text NOT NULL,
    title text NOT NULL,
    details text NOT NULL DEFAULT '',
    refs text[] NOT NULL DEFAULT '{}',
    CONSTRAINT ck_acb_tasks_status CHECK (status IN ('open', 'doing', 'done'))
);

CREATE INDEX IF NOT EXISTS idx_acb_tasks_tenant_status_ts ON acb_tasks (tenant_id, status, ts DESC);
