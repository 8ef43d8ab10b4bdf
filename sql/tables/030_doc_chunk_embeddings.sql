-- Doc chunk vectors: source of truth for rebuilding the doc Qdrant collection.
CREATE TABLE IF NOT EXISTS doc_chunk_embeddings (
    chunk_id uuid NOT NULL REFERENCES doc_chunks (chunk_id) ON DELETE CASCADE,
    embedding_version text NOT NULL,
    embedding_dim int NOT NULL,
    vec vector(:vector_dim) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (chunk_id, embedding_version),
    CONSTRAINT ck_doc_chunk_embeddings_dim CHECK (embedding_dim = vector_dims(vec))
);
