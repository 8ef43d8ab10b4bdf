-- 0002: indexes for the per-tenant reads of manage.py export_tenant and import_tenant (its check that the target
-- tenant is empty) on the tables where no index led by the tenant covered them: supersessions, tenant-scoped
-- predicates, grants (the existing grant indexes only hold active grants) and note versions, whose tenant is in
-- the snapshot (the version rows outlive a purged note, so they cannot be found through memory_notes).
CREATE INDEX IF NOT EXISTS idx_graph_fact_supersessions_tenant
    ON graph_fact_supersessions (tenant_id, project_id);
CREATE INDEX IF NOT EXISTS idx_graph_predicates_tenant
    ON graph_predicates (tenant_id, project_id)
    WHERE tenant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_memory_space_grants_tenant
    ON memory_space_grants (tenant_id, project_id);
CREATE INDEX IF NOT EXISTS idx_note_versions_tenant
    ON memory_note_versions ((new_snapshot ->> 'tenant_id'));
