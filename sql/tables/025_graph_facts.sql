-- Temporal facts: open while valid_to IS NULL. The object is either an entity or a literal value,
-- so one partial unique index per object kind keeps one open fact per
-- (tenant, project, scope, subject, predicate_id, object).
CREATE TABLE IF NOT EXISTS graph_facts (
    fact_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    agent_id text NOT NULL,
    scope text NOT NULL,
    subject_entity_id uuid NOT NULL REFERENCES graph_entities (entity_id) ON DELETE CASCADE,
    predicate text NOT NULL,
    predicate_id uuid NOT NULL REFERENCES graph_predicates (predicate_id),
    object_entity_id uuid NULL REFERENCES graph_entities (entity_id) ON DELETE CASCADE,
    object_value text NULL,
    valid_from timestamptz NOT NULL,
    valid_to timestamptz NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_graph_facts_scope CHECK (scope IN ('agent_private', 'project_shared', 'org_shared')),
    CONSTRAINT ck_graph_facts_object_exactly_one
        CHECK ((object_entity_id IS NULL) <> (object_value IS NULL)),
    CONSTRAINT ck_graph_facts_valid_window CHECK (valid_to IS NULL OR valid_to > valid_from)
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_facts_open_object_entity
    ON graph_facts (tenant_id, project_id, scope, subject_entity_id, predicate_id, object_entity_id)
    WHERE valid_to IS NULL AND object_entity_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_facts_open_object_value
    ON graph_facts (tenant_id, project_id, scope, subject_entity_id, predicate_id, object_value)
    WHERE valid_to IS NULL AND object_value IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_graph_facts_subject_predicate
    ON graph_facts (tenant_id, project_id, subject_entity_id, predicate_id, valid_from);
CREATE INDEX IF NOT EXISTS idx_graph_facts_object_entity
    ON graph_facts (object_entity_id)
    WHERE object_entity_id IS NOT NULL;
