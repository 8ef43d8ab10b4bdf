-- Doc chunks: [start_offset, end_offset) are UTF-8 byte offsets into doc_documents.content.
CREATE TABLE IF NOT EXISTS doc_chunks (
    chunk_id uuid PRIMARY KEY,
    doc_id uuid NOT NULL REFERENCES doc_documents (doc_id) ON DELETE CASCADE,
    chunk_index int NOT NULL,
    start_offset int NOT NULL,
    end_offset int NOT NULL,
    chunk_text text NOT NULL,
    chunk_hash text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_doc_chunks_index CHECK (chunk_index >= 0),
    CONSTRAINT ck_doc_chunks_offsets CHECK (start_offset >= 0 AND end_offset >= start_offset),
    CONSTRAINT ck_doc_chunks_chunk_hash CHECK (chunk_hash ~ '^[0-9a-f]{64}$')
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_doc_chunks_doc_index
    ON doc_chunks (doc_id, chunk_index);
