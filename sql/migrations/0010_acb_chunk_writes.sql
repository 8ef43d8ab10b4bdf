-- 0010 (issue 35): the writing transaction of each chunk moves from a column of acb_chunks (0009) to a table of
-- its own. The column travelled in every tenant export (to_jsonb of the row), where a transaction id of the
-- exporting database means nothing; this table is derived, never exported, and filled by the database on every
-- insert into acb_chunks (the ORM, COPY, an import, rebuild_chunks). acb.ranking_pool reads it: a chunk is new to
-- a pool ranked under snapshot S exactly when written_xid >= pg_snapshot_xmin(S) and
-- NOT pg_visible_in_snapshot(written_xid, S). 0009's epochs (deletes, updates, truncate) stay.
DROP TRIGGER IF EXISTS trg_acb_chunks_written_xid ON acb_chunks;
DROP FUNCTION IF EXISTS acb_chunks_written_xid();
DROP INDEX IF EXISTS idx_acb_chunks_tenant_xid;
ALTER TABLE acb_chunks DROP COLUMN IF EXISTS written_xid;

CREATE TABLE IF NOT EXISTS acb_chunk_writes (
    chunk_id text PRIMARY KEY REFERENCES acb_chunks (chunk_id) ON DELETE CASCADE ON UPDATE CASCADE,
    tenant_id text NOT NULL,
    written_xid xid8 NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_acb_chunk_writes_tenant_xid ON acb_chunk_writes (tenant_id, written_xid);

-- The chunks there before this migration: written by this transaction, so every later snapshot sees them.
INSERT INTO acb_chunk_writes (chunk_id, tenant_id, written_xid)
    SELECT chunk_id, tenant_id, pg_current_xact_id() FROM acb_chunks
    ON CONFLICT (chunk_id) DO NOTHING;

CREATE OR REPLACE FUNCTION acb_chunks_record_writes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO acb_chunk_writes (chunk_id, tenant_id, written_xid)
        SELECT chunk_id, tenant_id, pg_current_xact_id() FROM added;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER trg_acb_chunks_record_writes
    AFTER INSERT ON acb_chunks REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION acb_chunks_record_writes();

-- An UPDATE bumps the epoch of the tenants the rows had and of those they have now (a row moved to another
-- tenant is new there too).
CREATE OR REPLACE FUNCTION acb_chunks_bump_epoch_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO acb_chunk_epochs (tenant_id, epoch)
        SELECT tenant_id, 1 FROM (SELECT tenant_id FROM old_rows UNION SELECT tenant_id FROM new_rows) t
        ON CONFLICT (tenant_id) DO UPDATE SET epoch = acb_chunk_epochs.epoch + 1;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS trg_acb_chunks_epoch_update ON acb_chunks;
CREATE TRIGGER trg_acb_chunks_epoch_update
    AFTER UPDATE ON acb_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION acb_chunks_bump_epoch_update();
