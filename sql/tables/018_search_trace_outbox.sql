-- 5.12 search_trace_outbox: async trace persistence. trace_id has no foreign key: the trace row is
-- created by the worker from payload.
CREATE TABLE IF NOT EXISTS search_trace_outbox (
    outbox_id uuid PRIMARY KEY,
    trace_id uuid NOT NULL,
    status text NOT NULL,
    attempts int NOT NULL DEFAULT 0,
    last_error text NULL,
    available_at timestamptz NOT NULL DEFAULT now(),
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_search_trace_outbox_status CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
    CONSTRAINT ck_search_trace_outbox_attempts CHECK (attempts >= 0)
);

CREATE INDEX IF NOT EXISTS idx_trace_outbox_status_available
    ON search_trace_outbox (status, available_at);
CREATE INDEX IF NOT EXISTS idx_trace_outbox_trace_status
    ON search_trace_outbox (trace_id, status);
