-- Doc indexing outbox, same contract as indexing_outbox. A job targets a whole document
-- (chunk_id NULL) or one chunk. No foreign keys: a DELETE job must survive the rows it removes.
CREATE TABLE IF NOT EXISTS doc_indexing_outbox (
    outbox_id uuid PRIMARY KEY,
    doc_id uuid NOT NULL,
    chunk_id uuid NULL,
    op text NOT NULL,
    embedding_version text NOT NULL,
    status text NOT NULL,
    attempts int NOT NULL DEFAULT 0,
    last_error text NULL,
    available_at timestamptz NOT NULL DEFAULT now(),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_doc_indexing_outbox_op CHECK (op IN ('UPSERT', 'DELETE')),
    CONSTRAINT ck_doc_indexing_outbox_status CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
    CONSTRAINT ck_doc_indexing_outbox_attempts CHECK (attempts >= 0)
);

CREATE INDEX IF NOT EXISTS idx_doc_outbox_status_available
    ON doc_indexing_outbox (status, available_at);
CREATE INDEX IF NOT EXISTS idx_doc_outbox_doc_op_status
    ON doc_indexing_outbox (doc_id, op, status);
