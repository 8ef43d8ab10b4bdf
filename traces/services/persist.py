"""Persisting one search trace payload (``traces.domain.trace_payload``) into the trace tables.

One transaction: search_traces, search_trace_items, search_trace_stages, search_trace_stage_items and, when
the payload carries them, search_trace_candidates. Idempotent on trace_id: the trace row is inserted with
``ON CONFLICT DO NOTHING`` and, when it already existed, nothing else is written, so an outbox row
processed twice (a lost lease, a retry after DONE could not be recorded) leaves one copy of the trace.

Stage item ids keep the payload's order: the first 12 bytes of the stage's random id followed by the
item's 4-byte position, so ``ORDER BY id`` within a stage returns the items as the search listed them
(the table has no position column).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from django.db import connection, transaction

from elf_domain.time_ids import same_time_uuid

from ..domain.trace_payload import TRACE_PAYLOAD_SCHEMA
from ..models import SearchTraceCandidate, SearchTraceItem, SearchTraceStage, SearchTraceStageItem

_INSERT_TRACE = """
INSERT INTO search_traces (trace_id, tenant_id, project_id, agent_id, read_profile, query, expansion_mode,
                           expanded_queries, allowed_scopes, candidate_count, top_k, config_snapshot,
                           trace_version, created_at, expires_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s::jsonb, %s, %s, %s)
ON CONFLICT (trace_id) DO NOTHING
"""


def _uuid(value: Any) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))


def _opt_uuid(value: Any) -> uuid.UUID | None:
    return None if value is None else _uuid(value)


def _time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {value!r}")
    return parsed


def new_stage_id(trace_id: uuid.UUID) -> uuid.UUID:
    """A stage's id: the trace id's timestamp, then random bits (``elf_domain.time_ids``), so the stage and
    stage item indexes grow in time order as the trace indexes do (``persist_batch`` builds the same in SQL)."""
    return same_time_uuid(trace_id)


def stage_item_id(stage_id: uuid.UUID, position: int) -> uuid.UUID:
    """The id of the stage's ``position``-th item: sorts in payload order within the stage."""
    return uuid.UUID(bytes=stage_id.bytes[:12] + position.to_bytes(4, "big"))


@transaction.atomic
def persist_trace(payload: dict[str, Any]) -> bool:
    """Write the trace and its rows; True when written now, False when the trace_id was already persisted.

    Raises (ValueError, KeyError, TypeError, DatabaseError) on a payload that breaks the contract; nothing is
    written then.
    """
    if payload.get("schema") != TRACE_PAYLOAD_SCHEMA:
        raise ValueError(f"payload schema must be {TRACE_PAYLOAD_SCHEMA!r}, got {payload.get('schema')!r}")
    t = payload["trace"]
    trace_id = _uuid(t["trace_id"])
    created_at = _time(t["created_at"])
    with connection.cursor() as cur:
        cur.execute(
            _INSERT_TRACE,
            [trace_id, t["tenant_id"], t["project_id"], t["agent_id"], t["read_profile"], t["query"],
             t["expansion_mode"], json.dumps(t["expanded_queries"]), json.dumps(t["allowed_scopes"]),
             int(t["candidate_count"]), int(t["top_k"]), json.dumps(t["config_snapshot"]), int(t["trace_version"]),
             created_at, _time(t["expires_at"])],
        )
        if cur.rowcount == 0:
            return False
    SearchTraceItem.objects.bulk_create(
        SearchTraceItem(item_id=_uuid(i["item_id"]), trace_id=trace_id, note_id=_uuid(i["note_id"]),
                        chunk_id=_opt_uuid(i.get("chunk_id")), rank=int(i["rank"]),
                        final_score=float(i["final_score"]), explain=i["explain"])
        for i in payload["items"]
    )
    stage_items: list[SearchTraceStageItem] = []
    stages: list[SearchTraceStage] = []
    for s in payload["stages"]:
        stage = SearchTraceStage(stage_id=new_stage_id(trace_id), trace_id=trace_id, stage_order=int(s["stage_order"]),
                                 stage_name=s["stage_name"], stage_payload=s["stage_payload"], created_at=created_at)
        stages.append(stage)
        stage_items.extend(
            SearchTraceStageItem(id=stage_item_id(stage.stage_id, position), stage_id=stage.stage_id,
                                 item_id=_opt_uuid(si.get("item_id")), note_id=_opt_uuid(si.get("note_id")),
                                 chunk_id=_opt_uuid(si.get("chunk_id")), metrics=si["metrics"])
            for position, si in enumerate(s["items"])
        )
    SearchTraceStage.objects.bulk_create(stages)
    SearchTraceStageItem.objects.bulk_create(stage_items)
    candidates = payload.get("candidates")
    if candidates is not None:
        if not payload.get("candidate_expires_at"):
            raise ValueError("candidates present without candidate_expires_at")
        expires_at = _time(payload["candidate_expires_at"])
        SearchTraceCandidate.objects.bulk_create(
            SearchTraceCandidate(candidate_id=uuid.uuid4(), trace_id=trace_id, rank=int(c["rank"]),
                                 candidate_snapshot=c["snapshot"], expires_at=expires_at)
            for c in candidates
        )
    return True
