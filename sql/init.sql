-- ELF schema for psql: the schema_version table, then every migration of sql/migrations in order (each one
-- idempotent). Run with psql: psql -v ON_ERROR_STOP=1 -v vector_dim=384 -f sql/init.sql
-- Start-up does not read this file: elf_project.db_init.apply_schema applies the migrations a database lacks,
-- under an advisory lock, and records each in schema_version. tests/test_schema_migrations.py keeps the two equal.
CREATE EXTENSION IF NOT EXISTS vector;

\ir schema_version.sql
\ir migrations/0001_baseline.sql
\ir migrations/0002_tenant_indexes.sql
\ir migrations/0003_trace_payload_storage.sql
\ir migrations/0004_acb_project_scope.sql
\ir migrations/0005_graph_private_fact_agent.sql
\ir migrations/0006_note_context.sql
\ir migrations/0007_global_predicates.sql
\ir migrations/0008_note_observed_at.sql
\ir migrations/0009_acb_chunk_log_position.sql
\ir migrations/0010_acb_chunk_writes.sql
\ir migrations/0011_outbox_due_indexes.sql
