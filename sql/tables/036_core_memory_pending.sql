-- Inferred memory staged for confirmation (core-memory-markdown section 6, rules 2 and 4): written into its
-- document only when confirmed.
CREATE TABLE IF NOT EXISTS core_memory_pending (
    entry_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    run_id text NOT NULL,
    scope text NOT NULL,
    kind text NOT NULL,
    key text NOT NULL,
    value text NOT NULL,
    priority int NOT NULL,
    ttl text NOT NULL,
    source text NOT NULL,
    confidence real NULL,
    reason text NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    decided_at timestamptz NULL,
    CONSTRAINT ck_core_memory_pending_scope CHECK (scope IN ('profile', 'session')),
    CONSTRAINT ck_core_memory_pending_status CHECK (status IN ('pending', 'confirmed', 'rejected')),
    CONSTRAINT ck_core_memory_pending_decided CHECK ((status = 'pending') = (decided_at IS NULL))
);

CREATE INDEX IF NOT EXISTS idx_core_memory_pending_run
    ON core_memory_pending (tenant_id, project_id, run_id, status, created_at);
