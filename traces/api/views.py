"""Admin trace endpoints (admin bind, spec v2 section 14): recent traces, one trace, its bundle, its
trajectory, one trace item. Context headers are required; access is by tenant_id + project_id only."""

from __future__ import annotations

import uuid

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request

from .. import selectors
from ..models import SearchTrace
from . import serializers as s


def _query(serializer_cls, request) -> dict:
    return validated(serializer_cls, request.query_params.dict(), "$.query")


def _summary(stages: list[selectors.StageView]) -> dict:
    return {
        "schema": s.TRAJECTORY_SCHEMA,
        "stages": [
            {"stage_order": v.stage.stage_order, "stage_name": v.stage.stage_name, "item_count": v.item_count,
             "stats": v.stage.stage_payload}
            for v in stages
        ],
    }


def _stages(stages: list[selectors.StageView]) -> list[dict]:
    return [
        {"stage_order": v.stage.stage_order, "stage_name": v.stage.stage_name, "stage_payload": v.stage.stage_payload,
         "items": v.items}
        for v in stages
    ]


def _trace_and_summary(ctx, trace: SearchTrace) -> dict:
    return {"trace": trace, "items": selectors.trace_items(ctx, trace),
            "trajectory_summary": _summary(selectors.trace_stages(ctx, trace, items_limit=0))}


class RecentTracesView(APIView):
    @extend_schema(
        summary="Recent search traces of the tenant and project, newest first",
        description="Ordered by created_at DESC, trace_id DESC; pass next_cursor's created_at and trace_id as "
        "cursor_created_at and cursor_trace_id (together) for the next page.",
        parameters=CONTEXT_HEADERS + [s.RecentTracesQuery],
        responses={200: s.RecentTracesResponse, **ERROR_RESPONSES},
    )
    def get(self, request):
        ctx = context_from_request(request)
        q = _query(s.RecentTracesQuery, request)
        cursor = None
        if "cursor_created_at" in q:
            cursor = selectors.RecentCursor(q["cursor_created_at"], q["cursor_trace_id"])
        traces, next_cursor = selectors.recent_traces(
            ctx, limit=q["limit"], cursor=cursor, agent_id=q.get("agent_id"), read_profile=q.get("read_profile"),
            created_after=q.get("created_after"), created_before=q.get("created_before"),
        )
        return Response(s.RecentTracesResponse(
            {"schema": s.RECENT_TRACES_SCHEMA, "traces": traces, "next_cursor": next_cursor}
        ).data)


class TraceView(APIView):
    @extend_schema(
        summary="One search trace: its header, result items (explain as stored) and trajectory summary",
        parameters=CONTEXT_HEADERS, responses={200: s.TraceResponse, **ERROR_RESPONSES},
    )
    def get(self, request, trace_id: uuid.UUID):
        ctx = context_from_request(request)
        trace = selectors.get_trace(ctx, trace_id)
        return Response(s.TraceResponse(_trace_and_summary(ctx, trace)).data)


class TraceBundleView(APIView):
    @extend_schema(
        summary="A trace with its stages (and, on request, candidates) in one bundle",
        description="mode=bounded (default): 64 items per stage (cap 256), no candidates. mode=full: 256 items "
        "per stage, 200 candidates. stage_items_limit and candidates_limit (max 1000) override the mode's "
        "defaults; candidates is null when the limit is 0.",
        parameters=CONTEXT_HEADERS + [s.TraceBundleQuery],
        responses={200: s.TraceBundleResponse, **ERROR_RESPONSES},
    )
    def get(self, request, trace_id: uuid.UUID):
        ctx = context_from_request(request)
        q = _query(s.TraceBundleQuery, request)
        trace = selectors.get_trace(ctx, trace_id)
        mode = q["mode"]
        stages = selectors.trace_stages(ctx, trace, items_limit=q.get("stage_items_limit", s.BUNDLE_STAGE_ITEMS[mode]))
        candidates_limit = q.get("candidates_limit", s.BUNDLE_CANDIDATES[mode])
        candidates = None
        if candidates_limit > 0:
            candidates = [c.candidate_snapshot for c in selectors.trace_candidates(ctx, trace, limit=candidates_limit)]
        return Response(s.TraceBundleResponse({
            "schema": s.TRACE_BUNDLE_SCHEMA, "generated_at": timezone.now(), "trace": trace,
            "items": selectors.trace_items(ctx, trace), "trajectory_summary": _summary(stages) if stages else None,
            "stages": _stages(stages), "candidates": candidates,
        }).data)


class TrajectoryView(APIView):
    @extend_schema(
        summary="The retrieval trajectory of a trace: every stage with its payload and item metrics",
        parameters=CONTEXT_HEADERS, responses={200: s.TrajectoryResponse, **ERROR_RESPONSES},
    )
    def get(self, request, trace_id: uuid.UUID):
        ctx = context_from_request(request)
        trace = selectors.get_trace(ctx, trace_id)
        stages = selectors.trace_stages(ctx, trace, items_limit=None)
        return Response(s.TrajectoryResponse(
            {"trace": trace, "trajectory": _summary(stages), "stages": _stages(stages)}
        ).data)


class TraceItemView(APIView):
    @extend_schema(
        summary="One result item of a trace (by result_handle = item_id) and its path through the stages",
        parameters=CONTEXT_HEADERS, responses={200: s.TraceItemResponse, **ERROR_RESPONSES},
    )
    def get(self, request, item_id: uuid.UUID):
        item = selectors.get_trace_item(context_from_request(request), item_id)
        path = [
            {"stage_order": stage.stage_order, "stage_name": stage.stage_name, "stage_payload": stage.stage_payload,
             "metrics": row.metrics}
            for stage, row in selectors.item_trajectory(item)
        ]
        return Response(s.TraceItemResponse(
            {"trace": item.trace, "item": item, "trajectory": {"schema": s.TRAJECTORY_SCHEMA, "stages": path}}
        ).data)
