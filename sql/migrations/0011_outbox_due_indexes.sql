-- 0011 (issue 35): each outbox's claim (elf_kernel.outbox_lease: the rows with status PENDING or FAILED that are
-- due, oldest available_at then created_at first, LIMIT n) reads a partial index in that order and stops after n
-- rows. With only (status, available_at) Postgres read and sorted every due row: after a million-note import, 988k
-- rows and about 250-400 ms per claim of 32, so the worker spent more time claiming than indexing. The index
-- holds only the rows still to do, so it stays small once the outbox drains.
CREATE INDEX IF NOT EXISTS idx_outbox_due
    ON indexing_outbox (available_at, created_at) WHERE status IN ('PENDING', 'FAILED');
CREATE INDEX IF NOT EXISTS idx_doc_outbox_due
    ON doc_indexing_outbox (available_at, created_at) WHERE status IN ('PENDING', 'FAILED');
CREATE INDEX IF NOT EXISTS idx_trace_outbox_due
    ON search_trace_outbox (available_at, created_at) WHERE status IN ('PENDING', 'FAILED');
