-- Every version of a core memory document, for the admin's diff and for recovery.
CREATE TABLE IF NOT EXISTS core_memory_versions (
    version_id uuid PRIMARY KEY,
    doc_id uuid NOT NULL REFERENCES core_memory_documents (doc_id) ON DELETE CASCADE,
    version int NOT NULL,
    content text NOT NULL,
    actor text NOT NULL,
    reason text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_core_memory_versions_doc_version
    ON core_memory_versions (doc_id, version);
