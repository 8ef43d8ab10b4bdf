"""The event log and bundle endpoints (agent-memory-acb-prd section 7) on the public bind. Thin: validate, gate,
call one service, render with an output serializer. The caller's tenant, session and agent come in the body
(PRD 9.3); with static API keys the body's tenant must be the key's (403 otherwise)."""

from __future__ import annotations

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_config.identifiers import ORG_PROJECT_ID, identifier_problem
from elf_domain.english_gate import FieldKind
from elf_kernel.api.english_fields import require_english
from elf_kernel.api.schema_docs import ERROR_RESPONSES, error_responses
from elf_kernel.api.validation import validated
from elf_kernel.auth import Forbidden, matched_key
from elf_kernel.errors import InvalidRequest, NotFound

from .. import selectors as sel
from ..services.bundle import build
from ..services.ledger import AlreadySuperseded
from ..domain.vocabulary import WRITTEN_KINDS
from ..services.record import Scope, record_event
from . import serializers as s

DEFAULT_PROJECT = "default"
NATURAL = FieldKind.NATURAL


def check_key_tenant(request, tenant_id: str, path: str):
    """With static keys the caller's tenant must be its key's (403 naming ``path``); returns the key or None."""
    key = matched_key(request)
    if key is not None and key.tenant_id != tenant_id:
        raise Forbidden("tenant_id differs from the tenant of this API key.", [path])
    return key


def scope_of(request, data: dict) -> Scope:
    key = check_key_tenant(request, data["tenant_id"], "$.tenant_id")
    project = data.get("project_id") or (key.project_id if key else None) or request.headers.get(
        "X-ELF-Project-Id") or DEFAULT_PROJECT
    scope = Scope(data["tenant_id"], project, data["session_id"], data["agent_id"])
    bad = [f"$.{name}" for name in ("tenant_id", "project_id", "session_id", "agent_id")
           if identifier_problem(getattr(scope, name))]
    if scope.project_id == ORG_PROJECT_ID:
        bad.append("$.project_id")
    if bad:
        raise InvalidRequest("tenant_id, project_id, session_id and agent_id are English identifiers of at most "
                             "128 characters.", bad)
    return scope


def _written_fields(kind: str, content: dict) -> list[tuple[str, str, FieldKind]]:
    """What people and agents wrote (the English gate's business); tool calls and results are data."""
    fields = []
    for name, value in content.items():
        if kind in WRITTEN_KINDS and isinstance(value, str) and name not in (
                "task_id", "supersedes", "scope", "status"):
            fields.append((f"$.content.{name}", value, NATURAL))
        elif isinstance(value, list) and kind == "decision":
            fields += [(f"$.content.{name}[{i}]", v, NATURAL) for i, v in enumerate(value)]
    return fields


def _record(request, data: dict, kind: str, content: dict, channel: str, sensitivity: str, actor: dict | None = None,
            *, content_path: str = "$.content"):
    """``content_path``: where the content's fields sit in the request ($.content, or $ for the flat bodies of
    POST /api/v1/decisions and /api/v1/tasks)."""
    scope = scope_of(request, data)
    content = validated(s.CONTENT_SHAPES[kind], content, content_path)
    if sensitivity != "secret":
        require_english([(path.replace("$.content", content_path, 1), v, k)
                         for path, v, k in _written_fields(kind, content)])
    missing = sel.unknown_refs(scope.tenant_id, data.get("refs", []))
    if missing:
        raise InvalidRequest(f"Unknown refs in this tenant: {', '.join(missing[:5])}.",
                             [f"$.refs[{data['refs'].index(m)}]" for m in missing])
    if kind == "task_update" and not content.get("title") and not (
            content.get("task_id") and sel.task_exists(scope.tenant_id, content["task_id"])):
        raise InvalidRequest("A new task needs a title.", [content_path + ".title"])
    if kind == "task_update" and content.get("task_id") and sel.task_id_taken(scope.tenant_id, content["task_id"]):
        raise InvalidRequest("This task_id is taken: omit it to create a new task.", [content_path + ".task_id"])
    if kind == "decision" and content.get("supersedes"):
        status = sel.decision_status(scope.tenant_id, content["supersedes"])
        if status is None:
            raise NotFound("No such decision to supersede in this tenant.", [content_path + ".supersedes"])
        if status != "active":
            raise AlreadySuperseded(f"{content['supersedes']} was already superseded.", [content_path + ".supersedes"])
    actor = actor or {"type": "agent", "id": scope.agent_id}
    r = record_event(scope=scope, channel=channel, actor_type=actor["type"], actor_id=actor["id"], kind=kind,
                     sensitivity=sensitivity, tags=data.get("tags", []), content=content, refs=data.get("refs", []))
    return Response(s.EventOut({
        "event_id": r.event.event_id, "chunk_ids": r.chunk_ids, "created_at": r.event.ts, "redactions": r.redactions,
        "withheld": sensitivity == "secret", "artifact_id": r.artifact_id, "decision_id": r.decision_id,
        "task_id": r.task_id}).data)


# Recording a decision that supersedes one already superseded (POST /api/v1/events of kind decision too).
DECISION_ERRORS = error_responses({409: "The decision named in supersedes was already superseded (DECISION_SUPERSEDED)"})


class EventsView(APIView):
    @extend_schema(summary="record_event: append one event (message, tool call/result, decision, task update) to "
                   "the log", operation_id="elf_acb_record_event", request=s.EventBody,
                   responses={200: s.EventOut, **DECISION_ERRORS})
    def post(self, request):
        data = validated(s.EventBody, request.data)
        return _record(request, data, data["kind"], data["content"], data["channel"], data["sensitivity"],
                       data["actor"])


class BuildView(APIView):
    @extend_schema(summary="build_acb: an Active Context Bundle for the next LLM call, within max_tokens",
                   operation_id="elf_acb_build", request=s.BuildBody, responses={200: s.BundleOut, **ERROR_RESPONSES})
    def post(self, request):
        started = time.perf_counter()
        data = validated(s.BuildBody, request.data)
        scope = scope_of(request, data)
        if data.get("query_text"):
            require_english([("$.query_text", data["query_text"], NATURAL)])
        view = sel.View(scope.tenant_id, scope.project_id, scope.session_id, scope.agent_id, data["channel"])
        bundle = build(view=view, intent=data.get("intent"), query_text=data.get("query_text"),
                       max_tokens=data["max_tokens"])
        response = Response(s.BundleOut(bundle).data)
        response["Server-Timing"] = f"acb;dur={(time.perf_counter() - started) * 1000:.2f}"
        return response


class ArtifactView(APIView):
    @extend_schema(summary="A tool output's full text (the artifact of a truncated tool_result)",
                   operation_id="elf_acb_get_artifact",
                   parameters=[OpenApiParameter("artifact_id", str, OpenApiParameter.PATH), s.ArtifactQuery],
                   responses={200: s.ArtifactOut, **ERROR_RESPONSES})
    def get(self, request, artifact_id):
        q = validated(s.ArtifactQuery, request.query_params.dict(), "$.query")
        check_key_tenant(request, q["tenant_id"], "$.query.tenant_id")
        require_english([("$.path.artifact_id", artifact_id, FieldKind.IDENTIFIER)])  # ids are art_<ulid>
        a = sel.artifact(q["tenant_id"], artifact_id)
        if a is None:
            raise NotFound("No such artifact in this tenant.", ["$.path.artifact_id"])
        return Response(s.ArtifactOut({**a.__dict__, "text": bytes(a.bytes or b"").decode("utf-8", "replace")}).data)


class DecisionsView(APIView):
    @extend_schema(summary="Record a decision (an event of kind decision; supersedes marks the old one)",
                   operation_id="elf_acb_record_decision", request=s.DecisionBody,
                   responses={200: s.EventOut, **DECISION_ERRORS})
    def post(self, request):
        data = validated(s.DecisionBody, request.data)
        content = {k: data[k] for k in s.DecisionContent().fields if k in data}
        return _record(request, data, "decision", content, data["channel"], data["sensitivity"], content_path="$")


class DecisionsQueryView(APIView):
    @extend_schema(summary="Query the decision ledger (full text, status, session)", operation_id="elf_acb_query_decisions",
                   parameters=[s.DecisionsQuery], responses={200: s.DecisionsOut, **ERROR_RESPONSES})
    def get(self, request):
        q = validated(s.DecisionsQuery, request.query_params.dict(), "$.query")
        check_key_tenant(request, q["tenant_id"], "$.query.tenant_id")
        if q.get("q"):
            require_english([("$.query.q", q["q"], NATURAL)])
        rows = sel.query_decisions(q["tenant_id"], text=q.get("q"), status=q["status"], session_id=q.get("session_id"),
                                   limit=q["limit"])
        return Response(s.DecisionsOut({"decisions": rows}).data)


class TasksView(APIView):
    @extend_schema(summary="Create or update a task (an event of kind task_update)", operation_id="elf_acb_task",
                   request=s.TaskBody, responses={200: s.EventOut, **ERROR_RESPONSES})
    def post(self, request):
        data = validated(s.TaskBody, request.data)
        content = {k: data[k] for k in s.TaskContent().fields if k in data}
        return _record(request, data, "task_update", content, data["channel"], "none", content_path="$")

