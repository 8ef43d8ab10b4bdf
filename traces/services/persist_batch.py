"""Persisting a sweep's claimed trace outbox rows in one statement, inside Postgres.

The payloads are already in ``search_trace_outbox.payload`` (jsonb): one statement expands the claimed rows'
payloads into search_traces, search_trace_items, search_trace_stages, search_trace_stage_items and
search_trace_candidates, and marks those rows DONE. No payload travels to the worker and back: persisting one
trace row by row from Python (``persist.persist_trace``, about 150 rows per quick_find) cost the worker about
10 ms of CPU per search and made the sweep the largest consumer of CPU after the API under search load.

The rows are the ones ``persist_trace`` writes for the same payload (tests/traces/test_trace_batch.py compares them):
the same ``ON CONFLICT (trace_id) DO NOTHING`` idempotency (a trace already persisted gets no second copy,
its row is still DONE), stage ids with the trace id's timestamp (``persist.new_stage_id``: its first 48 bits,
then random ones, version 7's layout; the subquery keeps the random part one per stage), stage item ids that
sort in payload order (``persist.stage_item_id``: the stage id's first 12 bytes and the 4-byte position). Only rows
whose lease still holds (the token) are taken. A row whose
payload names another schema or carries a timestamp without a time zone is left out; the caller persists
those one by one, where ``persist_trace`` rejects them with the reason. A payload that breaks a cast or a
constraint fails the whole statement: nothing of it is written and the caller falls back to one row at a time.

The transaction does not wait for its WAL flush (``synchronous_commit = off``): the trace rows and the DONE
marks commit or vanish together, and a row whose DONE mark is lost in a crash is simply persisted again.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, transaction

from ..domain.trace_payload import TRACE_PAYLOAD_SCHEMA

# An RFC 3339 time with its offset (Z or +hh:mm): a naive one is for persist_trace to reject.
_WITH_ZONE = r"(Z|z|[+-]\d{2}(:?\d{2})?)$"

_PERSIST_CLAIMED = """
WITH src AS MATERIALIZED (
  SELECT o.outbox_id, o.payload AS p
    FROM search_trace_outbox o
    JOIN unnest(%(ids)s::uuid[], %(tokens)s::timestamptz[]) AS l(outbox_id, token)
      ON o.outbox_id = l.outbox_id AND o.available_at = l.token
   WHERE o.status <> 'DONE' AND o.payload->>'schema' = %(schema)s
     AND o.payload->'trace'->>'created_at' ~ %(zone)s AND o.payload->'trace'->>'expires_at' ~ %(zone)s
     AND (jsonb_typeof(o.payload->'candidates') IS DISTINCT FROM 'array'
          OR o.payload->>'candidate_expires_at' ~ %(zone)s)
     FOR UPDATE OF o
), traces AS (
  INSERT INTO search_traces (trace_id, tenant_id, project_id, agent_id, read_profile, query, expansion_mode,
                             expanded_queries, allowed_scopes, candidate_count, top_k, config_snapshot,
                             trace_version, created_at, expires_at)
  SELECT (t->>'trace_id')::uuid, t->>'tenant_id', t->>'project_id', t->>'agent_id', t->>'read_profile',
         t->>'query', t->>'expansion_mode', t->'expanded_queries', t->'allowed_scopes',
         (t->>'candidate_count')::int, (t->>'top_k')::int, t->'config_snapshot', (t->>'trace_version')::int,
         (t->>'created_at')::timestamptz, (t->>'expires_at')::timestamptz
    FROM (SELECT p->'trace' AS t FROM src) AS s
  ON CONFLICT (trace_id) DO NOTHING
  RETURNING trace_id, created_at
), new AS MATERIALIZED (
  SELECT DISTINCT ON (traces.trace_id) traces.trace_id, traces.created_at, src.p
    FROM traces JOIN src ON (src.p->'trace'->>'trace_id')::uuid = traces.trace_id
), items AS (
  INSERT INTO search_trace_items (item_id, trace_id, note_id, chunk_id, rank, final_score, explain)
  SELECT (i->>'item_id')::uuid, new.trace_id, (i->>'note_id')::uuid, (i->>'chunk_id')::uuid, (i->>'rank')::int,
         (i->>'final_score')::real, i->'explain'
    FROM new, jsonb_array_elements(new.p->'items') AS i
), stages AS MATERIALIZED (
  SELECT encode(substring(uuid_send(trace_id) FROM 1 FOR 6) || set_byte(r, 0, (get_byte(r, 0) & 15) | 112),
                'hex')::uuid AS stage_id, trace_id, created_at, s
    FROM (SELECT new.trace_id, new.created_at, s, substring(uuid_send(gen_random_uuid()) FROM 7 FOR 10) AS r
            FROM new, jsonb_array_elements(new.p->'stages') AS s) AS random_tail
), stage_rows AS (
  INSERT INTO search_trace_stages (stage_id, trace_id, stage_order, stage_name, stage_payload, created_at)
  SELECT stage_id, trace_id, (s->>'stage_order')::int, s->>'stage_name', s->'stage_payload', created_at
    FROM stages
), stage_items AS (
  INSERT INTO search_trace_stage_items (id, stage_id, item_id, note_id, chunk_id, metrics)
  SELECT encode(substring(uuid_send(stages.stage_id) FROM 1 FOR 12) || int4send((si.ord - 1)::int), 'hex')::uuid,
         stages.stage_id, (si.v->>'item_id')::uuid, (si.v->>'note_id')::uuid, (si.v->>'chunk_id')::uuid,
         si.v->'metrics'
    FROM stages, jsonb_array_elements(stages.s->'items') WITH ORDINALITY AS si(v, ord)
), candidates AS (
  INSERT INTO search_trace_candidates (candidate_id, trace_id, rank, candidate_snapshot, expires_at)
  SELECT gen_random_uuid(), new.trace_id, (c->>'rank')::int, c->'snapshot',
         (new.p->>'candidate_expires_at')::timestamptz
    FROM new, jsonb_array_elements(CASE jsonb_typeof(new.p->'candidates') WHEN 'array' THEN new.p->'candidates'
                                        ELSE '[]'::jsonb END) AS c
)
UPDATE search_trace_outbox o SET status = 'DONE', updated_at = now()
  FROM src
 WHERE o.outbox_id = src.outbox_id
RETURNING o.outbox_id
"""


def persist_claimed(leases: Sequence) -> set:
    """Persist the payloads of the claimed rows ``leases`` (``outbox.TraceLease``) whose lease still holds and
    mark them DONE, in one transaction; returns the outbox ids now DONE. Raises ``DatabaseError`` when a
    payload breaks a cast or a constraint (nothing is written then)."""
    if not leases:
        return set()
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL synchronous_commit = off")
        cur.execute(
            _PERSIST_CLAIMED,
            {
                "ids": [lease.outbox_id for lease in leases],
                "tokens": [lease.leased_until for lease in leases],
                "schema": TRACE_PAYLOAD_SCHEMA,
                "zone": _WITH_ZONE,
            },
        )
        return {row[0] for row in cur.fetchall()}
