-- Captured retrieval candidates of a trace (search.explain.capture_candidates), kept for
-- search.explain.candidate_retention_days. candidate_snapshot decodes to TraceReplayCandidate.
CREATE TABLE IF NOT EXISTS search_trace_candidates (
    candidate_id uuid PRIMARY KEY,
    trace_id uuid NOT NULL REFERENCES search_traces (trace_id) ON DELETE CASCADE,
    rank int NOT NULL,
    candidate_snapshot jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    CONSTRAINT ck_search_trace_candidates_rank CHECK (rank >= 0),
    CONSTRAINT ck_search_trace_candidates_snapshot_object CHECK (jsonb_typeof(candidate_snapshot) = 'object')
);

CREATE INDEX IF NOT EXISTS idx_search_trace_candidates_trace
    ON search_trace_candidates (trace_id, rank);
CREATE INDEX IF NOT EXISTS idx_search_trace_candidates_expires
    ON search_trace_candidates (expires_at);
