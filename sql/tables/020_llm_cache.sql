-- 5.13 llm_cache: expansion and rerank response cache (cache_key is a BLAKE3 hex digest).
CREATE TABLE IF NOT EXISTS llm_cache (
    cache_id uuid PRIMARY KEY,
    cache_kind text NOT NULL,
    cache_key text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_accessed_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    hit_count bigint NOT NULL DEFAULT 0,
    CONSTRAINT ck_llm_cache_hit_count CHECK (hit_count >= 0)
);

CREATE UNIQUE INDEX IF NOT EXISTS idx_llm_cache_key
    ON llm_cache (cache_kind, cache_key);
CREATE INDEX IF NOT EXISTS idx_llm_cache_expires
    ON llm_cache (expires_at);
