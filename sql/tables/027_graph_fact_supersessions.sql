-- Write-time supersession log: from_fact_id was closed at effective_at by to_fact_id, caused by note_id.
-- note_id has no foreign key: the log outlives a purged note.
CREATE TABLE IF NOT EXISTS graph_fact_supersessions (
    supersession_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    from_fact_id uuid NOT NULL REFERENCES graph_facts (fact_id) ON DELETE CASCADE,
    to_fact_id uuid NOT NULL REFERENCES graph_facts (fact_id) ON DELETE CASCADE,
    note_id uuid NOT NULL,
    effective_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_graph_fact_supersessions_distinct CHECK (from_fact_id <> to_fact_id)
);

CREATE INDEX IF NOT EXISTS idx_graph_fact_supersessions_from
    ON graph_fact_supersessions (from_fact_id);
CREATE INDEX IF NOT EXISTS idx_graph_fact_supersessions_to
    ON graph_fact_supersessions (to_fact_id);
