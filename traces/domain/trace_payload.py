"""The search trace payload (schema ``elf.search_trace_payload/v1``): what a search enqueues in
search_trace_outbox and what the worker persists into search_traces, search_trace_items,
search_trace_stages, search_trace_stage_items and (when captured) search_trace_candidates.

Shape (JSON, every id a UUID string, every time RFC 3339):
{
  "schema": "elf.search_trace_payload/v1",
  "trace": {trace_id, tenant_id, project_id, agent_id, read_profile, query, expansion_mode,
            expanded_queries: [str], allowed_scopes: [str], candidate_count, top_k,
            config_snapshot: {...}, trace_version: 1, created_at, expires_at},
  "items": [{item_id, note_id, chunk_id, rank, final_score, explain: {...}}],      # returned results
  "stages": [{stage_order, stage_name, stage_payload: {...},
              items: [{item_id | null, note_id | null, chunk_id | null, metrics: {...}}]}],
  "candidates": [{rank, snapshot: {...}}] | null,   # present when search.explain.capture_candidates
  "candidate_expires_at": RFC 3339 | null
}
Stage names, in pipeline order: rewrite.expansion, recall.hybrid, fusion, prefilter,
validate.postgres, rerank, rank.score, aggregate.note, select.top_k. The recall stage's payload carries the
request filter's ``filter_impact`` (``search_filter_impact/v1``, null without a filter; supplement section 1).
"""

from __future__ import annotations

TRACE_PAYLOAD_SCHEMA = "elf.search_trace_payload/v1"
TRACE_VERSION = 1
STAGE_NAMES = (
    "rewrite.expansion",
    "recall.hybrid",
    "fusion",
    "prefilter",
    "validate.postgres",
    "rerank",
    "rank.score",
    "aggregate.note",
    "select.top_k",
)
