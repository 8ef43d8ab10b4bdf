-- 5.1 memory_notes: authoritative notes.
CREATE TABLE IF NOT EXISTS memory_notes (
    note_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    type text NOT NULL,
    key text NULL,
    text text NOT NULL,
    importance real NOT NULL,
    confidence real NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NULL,
    embedding_version text NOT NULL,
    source_ref jsonb NOT NULL DEFAULT '{}'::jsonb,
    hit_count bigint NOT NULL DEFAULT 0,
    last_hit_at timestamptz NULL,
    CONSTRAINT ck_memory_notes_scope
        CHECK (scope IN ('agent_private', 'project_shared', 'org_shared')),
    CONSTRAINT ck_memory_notes_type
        CHECK (type IN ('preference', 'constraint', 'decision', 'profile', 'fact', 'plan')),
    CONSTRAINT ck_memory_notes_status
        CHECK (status IN ('active', 'deprecated', 'deleted')),
    CONSTRAINT ck_memory_notes_importance CHECK (importance >= 0 AND importance <= 1),
    CONSTRAINT ck_memory_notes_confidence CHECK (confidence >= 0 AND confidence <= 1),
    CONSTRAINT ck_memory_notes_source_ref_object CHECK (jsonb_typeof(source_ref) = 'object'),
    CONSTRAINT ck_memory_notes_hit_count CHECK (hit_count >= 0)
);

CREATE INDEX IF NOT EXISTS idx_notes_scope_status
    ON memory_notes (tenant_id, project_id, scope, status);
CREATE INDEX IF NOT EXISTS idx_notes_key
    ON memory_notes (tenant_id, project_id, agent_id, scope, type, key)
    WHERE key IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_notes_expires
    ON memory_notes (expires_at);
-- UpdateResolver group (tenant, project, agent, scope, type) of active notes: the key-less duplicate and
-- similarity lookups of add_note, without reading every agent's notes of the project.
CREATE INDEX IF NOT EXISTS idx_notes_resolver_group
    ON memory_notes (tenant_id, project_id, agent_id, scope, type)
    WHERE status = 'active';
