-- 5.11 search_trace_stage_items: per-stage item metrics.
CREATE TABLE IF NOT EXISTS search_trace_stage_items (
    id uuid PRIMARY KEY,
    stage_id uuid NOT NULL REFERENCES search_trace_stages (stage_id) ON DELETE CASCADE,
    item_id uuid NULL,
    note_id uuid NULL,
    chunk_id uuid NULL,
    metrics jsonb NOT NULL
);

CREATE INDEX IF NOT EXISTS idx_search_trace_stage_items_stage_item
    ON search_trace_stage_items (stage_id, item_id);
