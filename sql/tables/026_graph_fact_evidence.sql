CREATE TABLE IF NOT EXISTS graph_fact_evidence (
    evidence_id uuid PRIMARY KEY,
    fact_id uuid NOT NULL REFERENCES graph_facts (fact_id) ON DELETE CASCADE,
    note_id uuid NOT NULL REFERENCES memory_notes (note_id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_fact_evidence_fact_note
    ON graph_fact_evidence (fact_id, note_id);
CREATE INDEX IF NOT EXISTS idx_graph_fact_evidence_note
    ON graph_fact_evidence (note_id);

-- A fact lives as long as some note is its evidence: when its last evidence row goes (its note was purged),
-- the fact goes too (its supersession rows cascade). Entities and predicates stay.
CREATE OR REPLACE FUNCTION graph_delete_unevidenced_fact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM graph_facts f
     WHERE f.fact_id = OLD.fact_id
       AND NOT EXISTS (SELECT 1 FROM graph_fact_evidence e WHERE e.fact_id = OLD.fact_id);
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER trg_graph_fact_evidence_gc
    AFTER DELETE ON graph_fact_evidence
    FOR EACH ROW EXECUTE FUNCTION graph_delete_unevidenced_fact();
