-- 5.9 search_trace_items: per-result explain data (item_id is the result_handle).
CREATE TABLE IF NOT EXISTS search_trace_items (
    item_id uuid PRIMARY KEY,
    trace_id uuid NOT NULL REFERENCES search_traces (trace_id) ON DELETE CASCADE,
    note_id uuid NOT NULL,
    chunk_id uuid NULL,
    rank int NOT NULL,
    final_score real NOT NULL,
    explain jsonb NOT NULL,
    CONSTRAINT ck_search_trace_items_rank CHECK (rank >= 0)
);

CREATE INDEX IF NOT EXISTS idx_search_trace_items_trace
    ON search_trace_items (trace_id, rank);
CREATE INDEX IF NOT EXISTS idx_search_trace_items_note
    ON search_trace_items (note_id);
