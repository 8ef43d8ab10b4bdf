-- 5.10 search_trace_stages: stage-level retrieval trajectory.
CREATE TABLE IF NOT EXISTS search_trace_stages (
    stage_id uuid PRIMARY KEY,
    trace_id uuid NOT NULL REFERENCES search_traces (trace_id) ON DELETE CASCADE,
    stage_order int NOT NULL,
    stage_name text NOT NULL,
    stage_payload jsonb NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS idx_search_trace_stages_trace_order
    ON search_trace_stages (trace_id, stage_order);
CREATE INDEX IF NOT EXISTS idx_search_trace_stages_trace_name
    ON search_trace_stages (trace_id, stage_name);
