-- 0004: the event log is read within the caller's (tenant, project) (issue 31, README "Security model").
-- A session id is named within its project: the same id in two projects of a tenant is two sessions, so the
-- session row's key gains the project. Artifacts gain the project of the event that produced them, so that a read
-- of an artifact can be scoped like every other event-log read (backfilled from that event, refs[1]).
DROP INDEX IF EXISTS uq_acb_sessions_session;
CREATE UNIQUE INDEX IF NOT EXISTS uq_acb_sessions_project_session ON acb_sessions (tenant_id, project_id, session_id);

ALTER TABLE acb_artifacts ADD COLUMN IF NOT EXISTS project_id text;
UPDATE acb_artifacts a SET project_id = e.project_id
  FROM acb_events e WHERE a.project_id IS NULL AND e.event_id = a.refs[1];
UPDATE acb_artifacts SET project_id = 'default' WHERE project_id IS NULL;
ALTER TABLE acb_artifacts ALTER COLUMN project_id SET NOT NULL;
CREATE INDEX IF NOT EXISTS idx_acb_artifacts_project ON acb_artifacts (tenant_id, project_id, artifact_id);

-- An artifact row that arrives without its project (an import of an export made before this migration) takes
-- the project of the event that produced it.
CREATE OR REPLACE FUNCTION acb_artifacts_project_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.project_id IS NULL THEN
        SELECT e.project_id INTO NEW.project_id FROM acb_events e
         WHERE e.tenant_id = NEW.tenant_id AND e.event_id = NEW.refs[1];
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER trg_acb_artifacts_project_of_event
    BEFORE INSERT ON acb_artifacts
    FOR EACH ROW EXECUTE FUNCTION acb_artifacts_project_of_event();
