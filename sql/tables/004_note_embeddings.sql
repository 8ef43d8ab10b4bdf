-- 5.4 note_embeddings: pooled note vectors (mean of the note's chunk vectors), used by the update resolver.
CREATE TABLE IF NOT EXISTS note_embeddings (
    note_id uuid NOT NULL REFERENCES memory_notes (note_id) ON DELETE CASCADE,
    embedding_version text NOT NULL,
    embedding_dim int NOT NULL,
    vec vector(:vector_dim) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (note_id, embedding_version),
    CONSTRAINT ck_note_embeddings_dim CHECK (embedding_dim = vector_dims(vec))
);
