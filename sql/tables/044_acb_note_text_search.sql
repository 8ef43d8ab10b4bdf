-- Full-text search over ELF notes for a bundle's retrieved_evidence (context.services.bundle): an expression
-- index on the notes table, matching the expression the bundle query uses.
CREATE INDEX IF NOT EXISTS idx_acb_note_text_fts ON memory_notes USING GIN (to_tsvector('english', text));
