-- Core memory (core-memory-markdown): PROFILE.md of a workspace (tenant, project), SESSION.md of one run of it,
-- POLICY.md of a tenant (project_id '', admin only). content is the document's exact text, the source of truth;
-- version counts its changes (core_memory_versions keeps each one).
CREATE TABLE IF NOT EXISTS core_memory_documents (
    doc_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    run_id text NOT NULL,
    version int NOT NULL,
    content text NOT NULL,
    run_ended_at timestamptz NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_core_memory_documents_scope CHECK (scope IN ('policy', 'profile', 'session')),
    CONSTRAINT ck_core_memory_documents_run CHECK ((scope = 'session') = (run_id <> '')),
    CONSTRAINT ck_core_memory_documents_policy_tenant CHECK (scope <> 'policy' OR project_id = ''),
    CONSTRAINT ck_core_memory_documents_ended CHECK (run_ended_at IS NULL OR scope = 'session'),
    CONSTRAINT ck_core_memory_documents_version CHECK (version >= 0)
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_core_memory_documents_workspace
    ON core_memory_documents (tenant_id, project_id, scope, run_id);
