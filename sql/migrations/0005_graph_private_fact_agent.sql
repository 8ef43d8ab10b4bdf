-- 0005: an agent_private fact is its agent's (issue 31, graph). Two agents' private notes that state the same
-- relation in one project are two facts, so neither agent's writes (supersession, re-derivation) change the
-- other's fact. The open-fact unique indexes gain the agent for that scope; a shared fact stays one open fact per
-- object, whoever states it. Facts recorded before this change keep the evidence they have.
DROP INDEX IF EXISTS uq_graph_facts_open_object_entity;
CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_facts_open_object_entity
    ON graph_facts (tenant_id, project_id, scope, (CASE WHEN scope = 'agent_private' THEN agent_id ELSE '' END),
                    subject_entity_id, predicate_id, object_entity_id)
    WHERE valid_to IS NULL AND object_entity_id IS NOT NULL;
DROP INDEX IF EXISTS uq_graph_facts_open_object_value;
CREATE UNIQUE INDEX IF NOT EXISTS uq_graph_facts_open_object_value
    ON graph_facts (tenant_id, project_id, scope, (CASE WHEN scope = 'agent_private' THEN agent_id ELSE '' END),
                    subject_entity_id, predicate_id, object_value)
    WHERE valid_to IS NULL AND object_value IS NOT NULL;
