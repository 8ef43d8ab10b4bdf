-- The default ingestion profile of a (tenant, project, pipeline); version NULL means the latest version.
CREATE TABLE IF NOT EXISTS memory_ingestion_profile_defaults (
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    pipeline text NOT NULL,
    profile_id text NOT NULL,
    version int NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, project_id, pipeline),
    CONSTRAINT ck_memory_ingestion_profile_defaults_pipeline CHECK (pipeline IN ('add_event')),
    CONSTRAINT ck_memory_ingestion_profile_defaults_version CHECK (version IS NULL OR version > 0)
);
