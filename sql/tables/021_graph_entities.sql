-- Graph memory (supplement section 2). canonical_norm = canonical trimmed, whitespace collapsed, lowercased.
CREATE TABLE IF NOT EXISTS graph_entities (
    entity_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    canonical text NOT NULL,
    canonical_norm text NOT NULL,
    kind text NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_graph_entities_canonical_norm CHECK (canonical_norm <> '')
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_entities_canonical_norm
    ON graph_entities (tenant_id, project_id, canonical_norm);
