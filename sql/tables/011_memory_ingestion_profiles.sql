-- add_event ingestion profiles (supplement section 6). Versions are immutable once created.
CREATE TABLE IF NOT EXISTS memory_ingestion_profiles (
    id uuid PRIMARY KEY,
    tenant_id text NOT NULL,
    project_id text NOT NULL,
    pipeline text NOT NULL,
    profile_id text NOT NULL,
    version int NOT NULL,
    profile jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    CONSTRAINT ck_memory_ingestion_profiles_pipeline CHECK (pipeline IN ('add_event')),
    CONSTRAINT ck_memory_ingestion_profiles_version CHECK (version > 0),
    CONSTRAINT ck_memory_ingestion_profiles_profile_object CHECK (jsonb_typeof(profile) = 'object')
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_memory_ingestion_profiles_version
    ON memory_ingestion_profiles (tenant_id, project_id, pipeline, profile_id, version);
