-- 5.6 memory_hits: optional hit log. No foreign key: a log row outlives a purged note.
CREATE TABLE IF NOT EXISTS memory_hits (
    hit_id uuid PRIMARY KEY,
    note_id uuid NOT NULL,
    chunk_id uuid NULL,
    query_hash text NOT NULL,
    rank int NOT NULL,
    final_score real NOT NULL,
    ts timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_memory_hits_rank CHECK (rank >= 0)
);

CREATE INDEX IF NOT EXISTS idx_memory_hits_note_ts
    ON memory_hits (note_id, ts);
