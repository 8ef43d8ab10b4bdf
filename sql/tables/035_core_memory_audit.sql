-- Every core memory mutation (core-memory-markdown section 9): append-only, in the database itself.
CREATE TABLE IF NOT EXISTS core_memory_audit (
    audit_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ts timestamptz NOT NULL DEFAULT clock_timestamp(),
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    run_id text NULL,
    op text NOT NULL,
    key text NULL,
    old_value text NULL,
    new_value text NULL,
    actor text NOT NULL,
    reason text NOT NULL,
    doc_version int NULL,
    CONSTRAINT ck_core_memory_audit_scope CHECK (scope IN ('policy', 'profile', 'session'))
);

CREATE INDEX IF NOT EXISTS idx_core_memory_audit_run
    ON core_memory_audit (tenant_id, project_id, run_id, audit_id);

CREATE OR REPLACE FUNCTION core_memory_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'core_memory_audit is append-only (% refused)', TG_OP;
END
$$;

CREATE OR REPLACE TRIGGER trg_core_memory_audit_append_only
    BEFORE UPDATE OR DELETE ON core_memory_audit
    FOR EACH ROW EXECUTE FUNCTION core_memory_audit_append_only();
