-- 5.3 note_chunk_embeddings: source-of-truth chunk vectors (Qdrant is rebuilt from these).
CREATE TABLE IF NOT EXISTS note_chunk_embeddings (
    chunk_id uuid NOT NULL REFERENCES memory_note_chunks (chunk_id) ON DELETE CASCADE,
    embedding_version text NOT NULL,
    embedding_dim int NOT NULL,
    vec vector(:vector_dim) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (chunk_id, embedding_version),
    CONSTRAINT ck_note_chunk_embeddings_dim CHECK (embedding_dim = vector_dims(vec))
);
