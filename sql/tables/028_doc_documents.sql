-- Doc Extension v1: documents (source of truth). content_hash is the BLAKE3 hex of the UTF-8 content;
-- org_shared documents are stored under project_id '__org__'.
CREATE TABLE IF NOT EXISTS doc_documents (
    doc_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    title text NULL,
    source_ref jsonb NULL,
    content text NOT NULL,
    content_hash text NOT NULL,
    content_bytes int NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_doc_documents_scope CHECK (scope IN ('agent_private', 'project_shared', 'org_shared')),
    CONSTRAINT ck_doc_documents_status CHECK (status IN ('active', 'deleted')),
    CONSTRAINT ck_doc_documents_content_bytes CHECK (content_bytes = octet_length(content)),
    CONSTRAINT ck_doc_documents_content_hash CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT ck_doc_documents_source_ref_object
        CHECK (source_ref IS NULL OR jsonb_typeof(source_ref) = 'object')
);

CREATE INDEX IF NOT EXISTS idx_doc_documents_scope_status_updated
    ON doc_documents (tenant_id, project_id, scope, status, updated_at);
CREATE INDEX IF NOT EXISTS idx_doc_documents_agent
    ON doc_documents (tenant_id, project_id, agent_id);
