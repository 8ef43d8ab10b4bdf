"""The event log and bundle endpoints (agent-memory-acb-prd section 7) on the public bind. Thin: validate the
shape, call one use case (services.use_cases: identity, rules, then the write or read), render with an output
serializer. The caller's tenant, project and agent are the API key's when keys are on (a body or query id may only
repeat them: 403 otherwise); without keys they come in the body (PRD 9.3)."""

from __future__ import annotations

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import ERROR_RESPONSES, error_responses
from elf_kernel.api.validation import validated
from elf_kernel.identity import StatedIds, caller_of

from ..services import use_cases
from ..services.event_log import Recorded
from . import serializers as s


def _recorded(r: Recorded) -> Response:
    return Response(s.EventOut({
        "event_id": r.event.event_id, "chunk_ids": r.chunk_ids, "created_at": r.event.ts, "redactions": r.redactions,
        "withheld": r.withheld, "artifact_id": r.artifact_id, "decision_id": r.decision_id,
        "task_id": r.task_id}).data)


def _flat_content(data: dict, content_shape) -> dict:
    """POST /api/v1/decisions and /api/v1/tasks: the content's fields sit at the top of the body ($)."""
    return {k: data[k] for k in content_shape().fields if k in data}


# Recording a decision that supersedes one already superseded (POST /api/v1/events of kind decision too).
DECISION_ERRORS = error_responses(
    {409: "The decision named in supersedes was already superseded (DECISION_SUPERSEDED)"}
)


class EventLogView(APIView):
    @extend_schema(
        summary="record_event: append one event (message, tool call/result, decision, task update) to the log",
        operation_id="elf_acb_record_event",
        request=s.EventBody,
        responses={200: s.EventOut, **DECISION_ERRORS},
    )
    def post(self, request):
        data = validated(s.EventBody, request.data)
        content = validated(s.CONTENT_SHAPES[data["kind"]], data["content"], "$.content")
        r = use_cases.record(
            caller=caller_of(request),
            stated=StatedIds.of(data),
            session_id=data["session_id"],
            channel=data["channel"],
            actor=data["actor"],
            kind=data["kind"],
            sensitivity=data["sensitivity"],
            tags=data["tags"],
            content=content,
            refs=data["refs"],
        )
        return _recorded(r)


class BuildView(APIView):
    @extend_schema(
        summary="build_acb: an Active Context Bundle for the next LLM call, within max_tokens",
        operation_id="elf_acb_build",
        request=s.BuildBody,
        responses={200: s.BundleOut, **ERROR_RESPONSES},
    )
    def post(self, request):
        started = time.perf_counter()
        data = validated(s.BuildBody, request.data)
        bundle = use_cases.build_bundle(
            caller=caller_of(request),
            stated=StatedIds.of(data),
            session_id=data["session_id"],
            channel=data["channel"],
            intent=data.get("intent"),
            query_text=data.get("query_text"),
            max_tokens=data["max_tokens"],
        )
        response = Response(s.BundleOut(bundle).data)
        response["Server-Timing"] = f"acb;dur={(time.perf_counter() - started) * 1000:.2f}"
        return response


class ArtifactView(APIView):
    @extend_schema(
        summary="A tool output's full text (the artifact of a truncated tool_result)",
        operation_id="elf_acb_get_artifact",
        parameters=[OpenApiParameter("artifact_id", str, OpenApiParameter.PATH), s.ArtifactQuery],
        responses={200: s.ArtifactOut, **ERROR_RESPONSES},
    )
    def get(self, request, artifact_id):
        q = validated(s.ArtifactQuery, request.query_params.dict(), "$.query")
        a = use_cases.artifact(
            caller=caller_of(request), stated=StatedIds.of(q, "$.query"), artifact_id=artifact_id, channel=q["channel"]
        )
        return Response(s.ArtifactOut({**a.__dict__, "text": bytes(a.bytes or b"").decode("utf-8", "replace")}).data)


class DecisionsView(APIView):
    @extend_schema(
        summary="Record a decision (an event of kind decision; supersedes marks the old one)",
        operation_id="elf_acb_record_decision",
        request=s.DecisionBody,
        responses={200: s.EventOut, **DECISION_ERRORS},
    )
    def post(self, request):
        data = validated(s.DecisionBody, request.data)
        r = use_cases.record_decision(
            caller=caller_of(request),
            stated=StatedIds.of(data),
            session_id=data["session_id"],
            channel=data["channel"],
            sensitivity=data["sensitivity"],
            content=_flat_content(data, s.DecisionContent),
            refs=data["refs"],
        )
        return _recorded(r)


class DecisionsQueryView(APIView):
    @extend_schema(
        summary="Query the decision ledger (full text, status, session)",
        operation_id="elf_acb_query_decisions",
        parameters=[s.DecisionsQuery],
        responses={200: s.DecisionsOut, **ERROR_RESPONSES},
    )
    def get(self, request):
        q = validated(s.DecisionsQuery, request.query_params.dict(), "$.query")
        rows = use_cases.decisions(
            caller=caller_of(request),
            stated=StatedIds.of(q, "$.query"),
            channel=q["channel"],
            text=q.get("q"),
            status=q["status"],
            session_id=q.get("session_id"),
            limit=q["limit"],
        )
        return Response(s.DecisionsOut({"decisions": rows}).data)


class TasksView(APIView):
    @extend_schema(
        summary="Create or update a task (an event of kind task_update)",
        operation_id="elf_acb_task",
        request=s.TaskBody,
        responses={200: s.EventOut, **ERROR_RESPONSES},
    )
    def post(self, request):
        data = validated(s.TaskBody, request.data)
        r = use_cases.record_task(
            caller=caller_of(request),
            stated=StatedIds.of(data),
            session_id=data["session_id"],
            channel=data["channel"],
            content=_flat_content(data, s.TaskContent),
            refs=data["refs"],
        )
        return _recorded(r)
