-- Predicate registry. scope_key is '<tenant_id>:<project_id>', '__project__:<project_id>' or '__global__';
-- resolution precedence is in that order. No global predicate is seeded: the spec defines none.
CREATE TABLE IF NOT EXISTS graph_predicates (
    predicate_id uuid PRIMARY KEY,
    scope_key text NOT NULL,
    tenant_id text NULL,
    project_id text NULL,
    canonical text NOT NULL,
    canonical_norm text NOT NULL,
    cardinality text NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_graph_predicates_cardinality CHECK (cardinality IN ('single', 'multi')),
    CONSTRAINT ck_graph_predicates_status CHECK (status IN ('pending', 'active', 'deprecated')),
    CONSTRAINT ck_graph_predicates_canonical_norm CHECK (canonical_norm <> ''),
    CONSTRAINT ck_graph_predicates_scope_key CHECK (
        (scope_key = '__global__' AND tenant_id IS NULL AND project_id IS NULL)
        OR (tenant_id IS NULL AND project_id IS NOT NULL AND scope_key = '__project__:' || project_id)
        OR (tenant_id IS NOT NULL AND project_id IS NOT NULL AND scope_key = tenant_id || ':' || project_id)
    )
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_predicates_scope_canonical_norm
    ON graph_predicates (scope_key, canonical_norm);
