"""Search trace payloads of the ``elf.search_trace_payload/v1`` contract (``traces.domain.trace_payload``),
for the trace persistence tests."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from traces.domain.trace_payload import STAGE_NAMES, TRACE_PAYLOAD_SCHEMA, TRACE_VERSION


def ranking_explain(final_score: float) -> dict[str, Any]:
    terms = [("blend.retrieval", final_score - 0.05), ("blend.rerank", 0.04), ("tie_breaker", 0.01)]
    return {
        "match": {"matched_terms": ["deploy"], "matched_fields": ["text"]},
        "ranking": {"schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:test", "final_score": final_score,
                    "terms": [{"name": n, "value": v} for n, v in terms]},
    }


def make_payload(
    *,
    tenant: str = "t1",
    project: str = "p1",
    agent: str = "a1",
    read_profile: str = "private_plus_project",
    query: str = "When is the deploy window?",
    created_at: datetime | None = None,
    expires_at: datetime | None = None,
    n_items: int = 2,
    stage_items: int = 3,
    candidates: int | None = None,
    candidate_expires_at: datetime | None = None,
) -> dict[str, Any]:
    """A payload of the elf.search_trace_payload/v1 contract: every stage lists ``stage_items`` rows (the
    result items first, by item_id), the items carry a ranking explain."""
    created_at = created_at or timezone.now()
    expires_at = expires_at or created_at + timedelta(days=7)
    items = [
        {"item_id": str(uuid.uuid4()), "note_id": str(uuid.uuid4()), "chunk_id": str(uuid.uuid4()), "rank": r,
         "final_score": round(0.9 - 0.1 * r, 4), "explain": ranking_explain(round(0.9 - 0.1 * r, 4))}
        for r in range(1, n_items + 1)
    ]
    stages = []
    for order, name in enumerate(STAGE_NAMES, start=1):
        rows = [{"item_id": i["item_id"], "note_id": i["note_id"], "chunk_id": i["chunk_id"],
                 "metrics": {"position": p, "score": i["final_score"]}} for p, i in enumerate(items)]
        rows += [{"item_id": None, "note_id": str(uuid.uuid4()), "chunk_id": None, "metrics": {"position": p}}
                 for p in range(len(rows), stage_items)]
        stages.append({"stage_order": order, "stage_name": name, "stage_payload": {"stage": name, "in": stage_items},
                       "items": rows})
    return {
        "schema": TRACE_PAYLOAD_SCHEMA,
        "trace": {
            "trace_id": str(uuid.uuid4()), "tenant_id": tenant, "project_id": project, "agent_id": agent,
            "read_profile": read_profile, "query": query, "expansion_mode": "off", "expanded_queries": [query],
            "allowed_scopes": ["agent_private", "project_shared"], "candidate_count": stage_items, "top_k": 12,
            "config_snapshot": {"top_k": 12}, "trace_version": TRACE_VERSION,
            "created_at": created_at.isoformat(), "expires_at": expires_at.isoformat(),
        },
        "items": items,
        "stages": stages,
        "candidates": None if candidates is None else [
            {"rank": r, "snapshot": {"note_id": str(uuid.uuid4()), "rank": r, "retrieval_score": 1.0 / r}}
            for r in range(1, candidates + 1)
        ],
        "candidate_expires_at": None if candidates is None else
        (candidate_expires_at or created_at + timedelta(days=2)).isoformat(),
    }
