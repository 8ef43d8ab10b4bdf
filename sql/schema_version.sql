-- The migrations applied to this database, one row per file of sql/migrations (elf_project.db_init.apply_schema
-- writes them; checksum is the SHA-256 of the file's text with its \ir includes expanded).
CREATE TABLE IF NOT EXISTS schema_version (
    version int PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_schema_version_version CHECK (version > 0),
    CONSTRAINT ck_schema_version_checksum CHECK (checksum ~ '^[0-9a-f]{64}$')
);
