-- 0001 baseline: the schema of the last release without schema versions, one file per table under sql/tables.
-- Every statement is idempotent (CREATE ... IF NOT EXISTS, CREATE OR REPLACE), so on a database that release
-- created it changes nothing and is only recorded. Released migrations never change: a schema change is a new
-- file sql/migrations/NNNN_name.sql (README "Upgrading").
CREATE EXTENSION IF NOT EXISTS vector;

\ir ../tables/001_memory_notes.sql
\ir ../tables/002_memory_note_chunks.sql
\ir ../tables/003_note_chunk_embeddings.sql
\ir ../tables/004_note_embeddings.sql
\ir ../tables/005_memory_note_versions.sql
\ir ../tables/006_memory_hits.sql
\ir ../tables/007_indexing_outbox.sql
\ir ../tables/008_memory_ingest_decisions.sql
\ir ../tables/009_memory_note_fields.sql
\ir ../tables/010_memory_space_grants.sql
\ir ../tables/011_memory_ingestion_profiles.sql
\ir ../tables/012_memory_ingestion_profile_defaults.sql
\ir ../tables/013_search_sessions.sql
\ir ../tables/014_search_traces.sql
\ir ../tables/015_search_trace_items.sql
\ir ../tables/016_search_trace_stages.sql
\ir ../tables/017_search_trace_stage_items.sql
\ir ../tables/018_search_trace_outbox.sql
\ir ../tables/019_search_trace_candidates.sql
\ir ../tables/020_llm_cache.sql
\ir ../tables/021_graph_entities.sql
\ir ../tables/022_graph_entity_aliases.sql
\ir ../tables/023_graph_predicates.sql
\ir ../tables/024_graph_predicate_aliases.sql
\ir ../tables/025_graph_facts.sql
\ir ../tables/026_graph_fact_evidence.sql
\ir ../tables/027_graph_fact_supersessions.sql
\ir ../tables/028_doc_documents.sql
\ir ../tables/029_doc_chunks.sql
\ir ../tables/030_doc_chunk_embeddings.sql
\ir ../tables/031_doc_indexing_outbox.sql
\ir ../tables/032_core_memory_documents.sql
\ir ../tables/033_core_memory_versions.sql
\ir ../tables/034_core_memory_entries.sql
\ir ../tables/035_core_memory_audit.sql
\ir ../tables/036_core_memory_pending.sql
\ir ../tables/037_acb_events.sql
\ir ../tables/038_acb_chunks.sql
\ir ../tables/039_acb_decisions.sql
\ir ../tables/040_acb_tasks.sql
\ir ../tables/041_acb_artifacts.sql
\ir ../tables/042_acb_sessions.sql
\ir ../tables/043_acb_bundles.sql
\ir ../tables/044_acb_note_text_search.sql
