"""The SQL of a bundle's ranking pool (acb.ranking_pool), as text: the full ranking and the delta since a kept
snapshot. Here, beside the pool's pure rules, so that `elf-bench acb` measures its floor with the statements the
service runs, not a copy that can drift from them."""

# What both statements answer: the statement's snapshot, whether its transaction has written, the epoch (the
# database's oid and the tenant's chunk epochs), and the ranked chunks as three arrays from one aggregation, so
# they are aligned; their order does not matter (domain.pool sorts). {ranked} yields (chunk_id, ts, rank) rows.
_ANSWER = """
SELECT pg_current_snapshot()::text, pg_current_xact_id_if_assigned() IS NULL,
       (SELECT oid FROM pg_database WHERE datname = current_database())::text || ':'
           || (SELECT coalesce(sum(epoch), 0) FROM acb_chunk_epochs WHERE tenant_id IN (%(t)s, '*'))::text,
       r.ids, r.tss, r.ranks
  FROM (SELECT array_agg(chunk_id) AS ids, array_agg(ts) AS tss, array_agg(rank) AS ranks
          FROM ({ranked}) ranked) r"""

# The pool as the full query ranks it: the newest n matches (ts DESC, chunk_id DESC in byte order), each with its
# ts_rank_cd (computed after the LIMIT: only the pool is ranked).
FULL_SQL = _ANSWER.format(ranked="""SELECT chunk_id, ts, ts_rank_cd(tsv, %(q)s::tsquery) AS rank
                  FROM (SELECT c.chunk_id, c.ts, c.tsv FROM acb_chunks c
                         WHERE c.tenant_id = %(t)s AND c.project_id = %(p)s
                           AND c.tsv @@ %(q)s::tsquery
                           AND c.channel = ANY(%(ch)s) AND c.sensitivity = ANY(%(sens)s)
                         ORDER BY c.ts DESC, c.chunk_id COLLATE "C" DESC LIMIT %(n)s) pool""")

# The chunks a pool ranked under snapshot %(snap)s has not seen that match and may be read, ranked.
DELTA_SQL = _ANSWER.format(ranked="""SELECT c.chunk_id, c.ts, ts_rank_cd(c.tsv, %(q)s::tsquery) AS rank
                  FROM acb_chunk_writes w JOIN acb_chunks c ON c.chunk_id = w.chunk_id
                 WHERE w.tenant_id = %(t)s
                   AND w.written_xid >= pg_snapshot_xmin(%(snap)s::pg_snapshot)
                   AND NOT pg_visible_in_snapshot(w.written_xid, %(snap)s::pg_snapshot)
                   AND c.tenant_id = %(t)s AND c.project_id = %(p)s AND c.tsv @@ %(q)s::tsquery
                   AND c.channel = ANY(%(ch)s) AND c.sensitivity = ANY(%(sens)s)""")
