-- 5.5 memory_note_versions: append-only audit. No foreign key: history outlives a purged note.
CREATE TABLE IF NOT EXISTS memory_note_versions (
    version_id uuid PRIMARY KEY,
    note_id uuid NOT NULL,
    op text NOT NULL,
    prev_snapshot jsonb NULL,
    new_snapshot jsonb NULL,
    reason text NOT NULL,
    actor text NOT NULL,
    ts timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_memory_note_versions_op CHECK (op IN ('ADD', 'UPDATE', 'DEPRECATE', 'DELETE'))
);

CREATE INDEX IF NOT EXISTS idx_note_versions_note_ts
    ON memory_note_versions (note_id, ts);
