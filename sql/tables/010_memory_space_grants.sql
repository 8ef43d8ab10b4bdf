-- Shared-space grants (supplement section 7). project_id is '__org__' for org_shared spaces.
-- Revoking sets revoked_at/revoked_by_agent_id; rows are never deleted (history).
CREATE TABLE IF NOT EXISTS memory_space_grants (
    grant_id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    scope text NOT NULL,
    space_owner_agent_id text NOT NULL,
    grantee_kind text NOT NULL,
    grantee_agent_id text NULL,
    granted_by_agent_id text NOT NULL,
    granted_at timestamptz NOT NULL DEFAULT now(),
    revoked_by_agent_id text NULL,
    revoked_at timestamptz NULL,
    CONSTRAINT ck_memory_space_grants_scope CHECK (scope IN ('project_shared', 'org_shared')),
    CONSTRAINT ck_memory_space_grants_grantee_kind CHECK (grantee_kind IN ('agent', 'project')),
    CONSTRAINT ck_memory_space_grants_grantee_agent CHECK (
        (grantee_kind = 'agent' AND grantee_agent_id IS NOT NULL)
        OR (grantee_kind = 'project' AND grantee_agent_id IS NULL)
    ),
    CONSTRAINT ck_memory_space_grants_grantee_not_owner
        CHECK (grantee_agent_id IS NULL OR grantee_agent_id <> space_owner_agent_id),
    CONSTRAINT ck_memory_space_grants_revocation
        CHECK ((revoked_at IS NULL) = (revoked_by_agent_id IS NULL))
);

-- One active grant per (tenant, project, scope, owner, grantee); NULLS NOT DISTINCT makes the project
-- grant (grantee_agent_id NULL) unique too.
CREATE UNIQUE INDEX IF NOT EXISTS uq_memory_space_grants_active
    ON memory_space_grants (tenant_id, project_id, scope, space_owner_agent_id, grantee_kind, grantee_agent_id)
    NULLS NOT DISTINCT
    WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS idx_memory_space_grants_grantee
    ON memory_space_grants (tenant_id, project_id, scope, grantee_kind, grantee_agent_id)
    WHERE revoked_at IS NULL;
