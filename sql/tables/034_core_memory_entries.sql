-- The entries of the current version of each document, derived by parsing it (one row per entry line), so that
-- resolve is one indexed query. Rewritten with every version; never edited on their own.
CREATE TABLE IF NOT EXISTS core_memory_entries (
    doc_id uuid NOT NULL REFERENCES core_memory_documents (doc_id) ON DELETE CASCADE,
    line_no int NOT NULL,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    run_id text NOT NULL,
    key text NOT NULL,
    kind text NOT NULL,
    value text NOT NULL,
    priority int NOT NULL,
    ttl text NOT NULL,
    source text NOT NULL,
    updated_at timestamptz NOT NULL,
    expires_at timestamptz NULL,
    until_session_end boolean NOT NULL,
    PRIMARY KEY (doc_id, line_no),
    CONSTRAINT ck_core_memory_entries_kind CHECK (kind IN ('preference', 'constraint', 'fact', 'instruction')),
    CONSTRAINT ck_core_memory_entries_source
        CHECK (source IN ('user_explicit', 'user_inferred', 'system', 'admin'))
);

CREATE INDEX IF NOT EXISTS idx_core_memory_entries_lookup
    ON core_memory_entries (tenant_id, project_id, scope, run_id, key);
