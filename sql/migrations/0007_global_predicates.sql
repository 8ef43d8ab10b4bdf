-- 0007: the global predicate registry ELF ships (issue 32; graph.domain.predicate_seed holds the list). Common
-- single-valued relations (an employer, a home, a role, the team one leads ...) are active/single and common
-- multi-valued ones active/multi, so "X now leads B" supersedes "X leads A" without an operator. Rows that exist
-- are left as they are (ON CONFLICT DO NOTHING); start-up seeds the same list again and also only adds.
INSERT INTO graph_predicates (predicate_id, scope_key, tenant_id, project_id, canonical, canonical_norm, cardinality,
                              status)
SELECT gen_random_uuid(), '__global__', NULL, NULL, v.canonical, v.canonical, v.cardinality, 'active'
  FROM (VALUES
    ('name', 'single'),
    ('works at', 'single'),
    ('lives in', 'single'),
    ('role', 'single'),
    ('leads', 'single'),
    ('reports to', 'single'),
    ('located in', 'single'),
    ('born in', 'single'),
    ('born on', 'single'),
    ('married to', 'single'),
    ('timezone', 'single'),
    ('uses', 'multi'),
    ('likes', 'multi'),
    ('dislikes', 'multi'),
    ('knows', 'multi'),
    ('member of', 'multi'),
    ('manages', 'multi'),
    ('owns', 'multi'),
    ('maintains', 'multi'),
    ('works with', 'multi'),
    ('works on', 'multi'),
    ('speaks', 'multi'),
    ('depends on', 'multi'),
    ('friend of', 'multi'),
    ('interested in', 'multi'),
    ('allergic to', 'multi'),
    ('has skill', 'multi')
  ) AS v (canonical, cardinality)
ON CONFLICT (scope_key, canonical_norm) DO NOTHING;

INSERT INTO graph_predicate_aliases (alias_id, predicate_id, scope_key, alias, alias_norm)
SELECT gen_random_uuid(), p.predicate_id, '__global__', v.alias, v.alias
  FROM (VALUES
    ('name', 'full name'),
    ('name', 'full_name'),
    ('name', 'is named'),
    ('name', 'is_named'),
    ('works at', 'works_at'),
    ('works at', 'works for'),
    ('works at', 'works_for'),
    ('works at', 'employed by'),
    ('works at', 'employed_by'),
    ('works at', 'employer'),
    ('lives in', 'lives_in'),
    ('lives in', 'resides in'),
    ('lives in', 'resides_in'),
    ('lives in', 'home city'),
    ('lives in', 'home_city'),
    ('role', 'job title'),
    ('role', 'job_title'),
    ('role', 'title'),
    ('role', 'position'),
    ('leads', 'heads'),
    ('leads', 'lead of'),
    ('leads', 'lead_of'),
    ('leads', 'head of'),
    ('leads', 'head_of'),
    ('leads', 'team lead of'),
    ('reports to', 'reports_to'),
    ('reports to', 'managed by'),
    ('reports to', 'managed_by'),
    ('located in', 'located_in'),
    ('located in', 'is located in'),
    ('located in', 'headquartered in'),
    ('located in', 'headquartered_in'),
    ('born in', 'born_in'),
    ('born in', 'birthplace'),
    ('born on', 'born_on'),
    ('born on', 'birthday'),
    ('born on', 'date of birth'),
    ('born on', 'date_of_birth'),
    ('married to', 'married_to'),
    ('married to', 'spouse'),
    ('married to', 'spouse of'),
    ('married to', 'spouse_of'),
    ('timezone', 'time zone'),
    ('timezone', 'time_zone'),
    ('uses', 'uses tool'),
    ('uses', 'uses_tool'),
    ('likes', 'enjoys'),
    ('dislikes', 'does not like'),
    ('dislikes', 'does_not_like'),
    ('knows', 'acquainted with'),
    ('knows', 'acquainted_with'),
    ('member of', 'member_of'),
    ('member of', 'belongs to'),
    ('member of', 'belongs_to'),
    ('member of', 'part of'),
    ('member of', 'part_of'),
    ('manages', 'manager of'),
    ('manages', 'manager_of'),
    ('owns', 'owner of'),
    ('owns', 'owner_of'),
    ('maintains', 'maintainer of'),
    ('maintains', 'maintainer_of'),
    ('works with', 'works_with'),
    ('works with', 'collaborates with'),
    ('works with', 'collaborates_with'),
    ('works on', 'works_on'),
    ('works on', 'contributes to'),
    ('works on', 'contributes_to'),
    ('speaks', 'speaks language'),
    ('speaks', 'speaks_language'),
    ('depends on', 'depends_on'),
    ('depends on', 'requires'),
    ('friend of', 'friend_of'),
    ('friend of', 'friends with'),
    ('friend of', 'friends_with'),
    ('interested in', 'interested_in'),
    ('allergic to', 'allergic_to'),
    ('has skill', 'has_skill'),
    ('has skill', 'skilled in'),
    ('has skill', 'skilled_in')
  ) AS v (canonical, alias)
  JOIN graph_predicates p ON p.scope_key = '__global__' AND p.canonical_norm = v.canonical
ON CONFLICT (scope_key, alias_norm) DO NOTHING;

-- Before this release every predicate a note used was registered in its tenant:project scope as pending/multi,
-- and that row would shadow the global one (tenant:project resolves first), so an upgraded project would never
-- get the shipped behaviour. A row no operator touched (still pending/multi, updated_at = created_at, no alias
-- of its own) whose name the global registry has hands its facts to the global predicate and goes. Two such rows
-- of one project naming the same global predicate ("leads" and "heads") are left alone: their open facts could
-- collide. Open facts that now share a single-valued predicate stay open until the next statement about their
-- subject supersedes them.
WITH candidates AS (
    SELECT t.predicate_id AS shadow_id, t.scope_key, t.tenant_id, t.project_id, g.predicate_id AS global_id
      FROM graph_predicates t
      JOIN (SELECT predicate_id, canonical_norm AS name_norm FROM graph_predicates WHERE scope_key = '__global__'
            UNION
            SELECT predicate_id, alias_norm FROM graph_predicate_aliases WHERE scope_key = '__global__') g
        ON g.name_norm = t.canonical_norm
     WHERE t.tenant_id IS NOT NULL AND t.status = 'pending' AND t.cardinality = 'multi'
       AND t.updated_at = t.created_at
       AND NOT EXISTS (SELECT 1 FROM graph_predicate_aliases a WHERE a.predicate_id = t.predicate_id)
), shadows AS (
    SELECT c.shadow_id, c.global_id
      FROM candidates c
     WHERE NOT EXISTS (SELECT 1 FROM candidates o
                        WHERE o.global_id = c.global_id AND o.scope_key = c.scope_key AND o.shadow_id <> c.shadow_id)
       AND NOT EXISTS (SELECT 1 FROM graph_facts f
                        WHERE f.predicate_id = c.global_id AND f.tenant_id = c.tenant_id
                          AND f.project_id = c.project_id)
), moved AS (
    UPDATE graph_facts f SET predicate_id = s.global_id FROM shadows s WHERE f.predicate_id = s.shadow_id
    RETURNING f.fact_id
)
DELETE FROM graph_predicates p USING shadows s WHERE p.predicate_id = s.shadow_id;
