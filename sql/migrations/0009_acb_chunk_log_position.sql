-- 0009 (issue 35): what a bundle's incremental ranking pool (acb.ranking_pool) needs to tell which chunks a pool
-- it ranked earlier has not seen, by the database's own visibility rules rather than by timestamps (a chunk's ts
-- is taken before its transaction commits, so chunks become visible out of ts order).
--
-- written_xid: the transaction that wrote the row, set by a trigger on every INSERT and UPDATE whatever the
-- writer sends (COPY, an import carrying an exported value, the ORM). A chunk is new to a pool ranked under
-- snapshot S exactly when written_xid >= pg_snapshot_xmin(S) and NOT pg_visible_in_snapshot(written_xid, S).
ALTER TABLE acb_chunks ADD COLUMN IF NOT EXISTS written_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS idx_acb_chunks_tenant_xid ON acb_chunks (tenant_id, written_xid);

CREATE OR REPLACE FUNCTION acb_chunks_written_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.written_xid := pg_current_xact_id();
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER trg_acb_chunks_written_xid
    BEFORE INSERT OR UPDATE ON acb_chunks
    FOR EACH ROW EXECUTE FUNCTION acb_chunks_written_xid();

-- Chunks are appended; deleting or changing one (rebuild_chunks, a tenant's deletion, an edit in the admin) bumps
-- its tenant's epoch in the same transaction, and TRUNCATE bumps the row '*'. A pool ranked at another epoch is
-- ranked again in full.
CREATE TABLE IF NOT EXISTS acb_chunk_epochs (
    tenant_id text PRIMARY KEY,
    epoch bigint NOT NULL DEFAULT 0
);

CREATE OR REPLACE FUNCTION acb_chunks_bump_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO acb_chunk_epochs (tenant_id, epoch) VALUES ('*', 1)
            ON CONFLICT (tenant_id) DO UPDATE SET epoch = acb_chunk_epochs.epoch + 1;
    ELSE
        INSERT INTO acb_chunk_epochs (tenant_id, epoch) SELECT DISTINCT tenant_id, 1 FROM changed
            ON CONFLICT (tenant_id) DO UPDATE SET epoch = acb_chunk_epochs.epoch + 1;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER trg_acb_chunks_epoch_delete
    AFTER DELETE ON acb_chunks REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION acb_chunks_bump_epoch();
CREATE OR REPLACE TRIGGER trg_acb_chunks_epoch_update
    AFTER UPDATE ON acb_chunks REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION acb_chunks_bump_epoch();
CREATE OR REPLACE TRIGGER trg_acb_chunks_epoch_truncate
    AFTER TRUNCATE ON acb_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION acb_chunks_bump_epoch();
