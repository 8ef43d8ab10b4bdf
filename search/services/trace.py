"""Step 19: the trace payload of one search (schema in traces.domain.trace_payload), built from the outcome."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from elf_config import ElfConfig
from elf_kernel.context import RequestContext
from traces.domain.trace_payload import TRACE_PAYLOAD_SCHEMA, TRACE_VERSION

from .pipeline import SearchOutcome, SearchRequest


def trace_payload(*, cfg: ElfConfig, ctx: RequestContext, req: SearchRequest, out: SearchOutcome) -> dict:
    now = timezone.now()
    explain_cfg = cfg.search.explain
    return {
        "schema": TRACE_PAYLOAD_SCHEMA,
        "trace": {
            "trace_id": str(out.trace_id), "tenant_id": ctx.tenant_id, "project_id": ctx.project_id,
            "agent_id": ctx.agent_id, "read_profile": req.read_profile, "query": req.query,
            "expansion_mode": out.expansion_mode, "expanded_queries": out.expanded_queries,
            "allowed_scopes": list(cfg.scopes.read_profiles[req.read_profile]), "candidate_count": out.candidate_count,
            "top_k": req.top_k, "trace_version": TRACE_VERSION, "created_at": now.isoformat(),
            "expires_at": (now + timedelta(days=explain_cfg.retention_days)).isoformat(),
            "config_snapshot": {"mode": req.mode, "candidate_k": req.candidate_k, "filter": req.filter_raw,
                                "server_ms": round(out.server_ms, 3), "embedding_version": cfg.embedding_version},
        },
        "items": [{"item_id": str(i.result_handle), "note_id": str(i.note.note_id), "chunk_id": str(i.chunk.chunk_id),
                   "rank": n + 1, "final_score": i.ranked.final_score, "explain": i.explain()}
                  for n, i in enumerate(out.items)],
        "stages": out.stages,
        **_candidates(explain_cfg, out, now),
    }


def _candidates(explain_cfg, out: SearchOutcome, now) -> dict:
    """The fused candidate list, kept only when search.explain.capture_candidates is true."""
    if not explain_cfg.capture_candidates:
        return {"candidates": None, "candidate_expires_at": None}
    days = explain_cfg.candidate_retention_days or explain_cfg.retention_days
    return {
        "candidates": [{"rank": n + 1, "snapshot": {"chunk_id": cid, "fusion_score": score}}
                       for n, (cid, score) in enumerate(out.fused)],
        "candidate_expires_at": (now + timedelta(days=days)).isoformat(),
    }
