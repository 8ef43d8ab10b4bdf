"""Raw PROFILE.md and SESSION.md for people to read and edit, the end of a run, a run's audit as JSON lines, and
its pending (inferred) entries. Public bind; POLICY.md has no route here. Thin: validate the shape (the run id, the
body and If-Match), call the route's use case (services.raw_documents, services.pending, the selectors' reads),
render."""

from __future__ import annotations

import json

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES, error_responses
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request

from ..domain.vocabulary import MemoryScope
from ..selectors import pending_entries, run_audit
from ..services.pending import confirm, reject
from ..services.raw_documents import end_session_run, read_document, replace_document
from . import serializers as s
from .markdown_io import (
    DOCUMENT_PARSERS,
    JSON_LINES,
    MARKDOWN,
    FirstRenderer,
    body_text,
    if_match,
    markdown_response,
    run_id_or_400,
)

RUN_PATH = OpenApiParameter("run_id", str, OpenApiParameter.PATH, description=s.RUN_ID_HELP)
ENTRY_PATH = OpenApiParameter("entry_id", OpenApiTypes.UUID, OpenApiParameter.PATH,
                              description="a pending entry's id (from the pending list or the staging answer)")
IF_MATCH = OpenApiParameter("If-Match", str, OpenApiParameter.HEADER, required=False,
                            description="the version (ETag) you edited; 412 VERSION_CONFLICT when it moved on")
PUT_BODY = {MARKDOWN: OpenApiTypes.STR, "application/json": s.MarkdownBody}
# GET answers the raw text, or with ?format=json the text and its version (what an MCP client can read).
DOCUMENT_GET = {(200, MARKDOWN): OpenApiTypes.STR, (200, "application/json"): s.DocumentOut, **ERROR_RESPONSES}
RUN_ENDED = "The run was ended: its SESSION.md is closed to writes (RUN_ENDED)"
VERSION_CONFLICT = "If-Match names a version the document has moved on from (VERSION_CONFLICT)"
DOCUMENT_PUT = {200: s.DocumentWriteOut, **error_responses({412: VERSION_CONFLICT})}
SESSION_PUT = {200: s.DocumentWriteOut, **error_responses({409: RUN_ENDED, 412: VERSION_CONFLICT})}
DECIDE = {200: s.DecisionOut, **error_responses({409: "The entry was already confirmed or rejected (ALREADY_DECIDED), "
                                                        "or its run was ended (RUN_ENDED)"})}


class DocumentView(APIView):
    # GET and PUT of one markdown document; subclasses name the scope (a comment, not a docstring: drf-spectacular
    # would publish a docstring as every operation's description).

    parser_classes = DOCUMENT_PARSERS
    content_negotiation_class = FirstRenderer
    scope: MemoryScope

    def read(self, request, run_id: str | None = None) -> HttpResponse:
        ctx = context_from_request(request)
        run_id = run_id_or_400(run_id, "$.path.run_id")
        as_json = validated(s.DocumentQuery, request.query_params.dict(), "$.query")["format"] == "json"
        doc = read_document(ctx=ctx, scope=self.scope, run_id=run_id)
        if as_json:
            return Response(s.DocumentOut({"scope": self.scope, "run_id": run_id, "markdown": doc.text,
                                           "version": doc.version, "run_ended": doc.run_ended}).data)
        return markdown_response(doc.text, doc.version)

    def replace(self, request, run_id: str | None = None) -> Response:
        ctx = context_from_request(request)
        run_id = run_id_or_400(run_id, "$.path.run_id")
        text, body_version = body_text(request)
        expected = if_match(request)  # the version edited: If-Match, else the JSON body's if_version
        if expected is None:
            expected = body_version
        result = replace_document(ctx=ctx, scope=self.scope, run_id=run_id, text=text, if_version=expected)
        return Response(s.DocumentWriteOut({
            "scope": self.scope, "run_id": run_id, "doc_version": result.doc.version,
            "changed": result.changed, "entries": result.doc.entries.count(), "audit_ids": result.audit_ids}).data)


class ProfileView(DocumentView):
    scope = MemoryScope.PROFILE

    @extend_schema(
        summary="PROFILE.md as text/markdown (ETag: its version)",
        operation_id="elf_core_memory_profile_get",
        parameters=CONTEXT_HEADERS + [s.DocumentQuery],
        responses=DOCUMENT_GET,
    )
    def get(self, request):
        return self.read(request)

    @extend_schema(
        summary="Replace PROFILE.md (text/markdown, or JSON {markdown}); every line validated, the text stored exactly",
        operation_id="elf_core_memory_profile_put",
        parameters=CONTEXT_HEADERS + [IF_MATCH],
        request=PUT_BODY,
        responses=DOCUMENT_PUT,
    )
    def put(self, request):
        return self.replace(request)


class SessionView(DocumentView):
    scope = MemoryScope.SESSION

    @extend_schema(
        summary="A run's SESSION.md as text/markdown (ETag: its version)",
        operation_id="elf_core_memory_session_get",
        parameters=CONTEXT_HEADERS + [RUN_PATH, s.DocumentQuery],
        responses=DOCUMENT_GET,
    )
    def get(self, request, run_id):
        return self.read(request, run_id)

    @extend_schema(
        summary="Replace a run's SESSION.md (text/markdown, or JSON {markdown})",
        operation_id="elf_core_memory_session_put",
        parameters=CONTEXT_HEADERS + [RUN_PATH, IF_MATCH],
        request=PUT_BODY,
        responses=SESSION_PUT,
    )
    def put(self, request, run_id):
        return self.replace(request, run_id)


class EndRunView(APIView):
    @extend_schema(
        summary="End a run: its session_end entries expire, its SESSION.md closes to writes",
        operation_id="elf_core_memory_run_end",
        parameters=CONTEXT_HEADERS + [RUN_PATH],
        request=None,
        responses={200: s.EndRunOut, **ERROR_RESPONSES},
    )
    def post(self, request, run_id):
        ctx = context_from_request(request)
        run_id = run_id_or_400(run_id, "$.path.run_id")
        result, expired = end_session_run(ctx=ctx, run_id=run_id)
        return Response(
            s.EndRunOut(
                {
                    "run_id": run_id,
                    "already_ended": result is None,
                    "expired": expired,
                    "doc_version": result.doc.version if result else None,
                    "audit_ids": result.audit_ids if result else [],
                }
            ).data
        )


class AuditView(APIView):
    content_negotiation_class = FirstRenderer

    @extend_schema(
        summary="A run's audit trail as JSON lines (ts, op, scope, key, old, new, actor, reason, run_id)",
        operation_id="elf_core_memory_audit",
        parameters=CONTEXT_HEADERS + [RUN_PATH],
        responses={(200, JSON_LINES): OpenApiTypes.STR, **ERROR_RESPONSES},
    )
    def get(self, request, run_id):
        ctx = context_from_request(request)
        run_id = run_id_or_400(run_id, "$.path.run_id")
        lines = (json.dumps(a.as_line(), ensure_ascii=False) + "\n" for a in run_audit(ctx, run_id))
        return HttpResponse("".join(lines), content_type=f"{JSON_LINES}; charset=utf-8")


class PendingView(APIView):
    @extend_schema(
        summary="A run's inferred entries waiting for confirmation",
        operation_id="elf_core_memory_pending_list",
        parameters=CONTEXT_HEADERS + [RUN_PATH],
        responses={200: s.PendingListOut, **ERROR_RESPONSES},
    )
    def get(self, request, run_id):
        ctx = context_from_request(request)
        run_id = run_id_or_400(run_id, "$.path.run_id")
        return Response(s.PendingListOut({"items": list(pending_entries(ctx, run_id))}).data)


class PendingConfirmView(APIView):
    @extend_schema(
        summary="Confirm a pending entry: it is written into its document",
        request=None,
        operation_id="elf_core_memory_pending_confirm",
        parameters=CONTEXT_HEADERS + [RUN_PATH, ENTRY_PATH],
        responses=DECIDE,
    )
    def post(self, request, run_id, entry_id):
        ctx = context_from_request(request)
        row, result = confirm(ctx=ctx, run_id=run_id_or_400(run_id, "$.path.run_id"), entry_id=entry_id)
        return Response(
            s.DecisionOut(
                {
                    "entry_id": row.entry_id,
                    "status": row.status,
                    "doc_version": result.doc.version,
                    "audit_id": result.audit_ids[0],
                }
            ).data
        )


class PendingRejectView(APIView):
    @extend_schema(
        summary="Reject a pending entry: nothing is written",
        request=None,
        operation_id="elf_core_memory_pending_reject",
        parameters=CONTEXT_HEADERS + [RUN_PATH, ENTRY_PATH],
        responses=DECIDE,
    )
    def post(self, request, run_id, entry_id):
        ctx = context_from_request(request)
        row, audit_id = reject(ctx=ctx, run_id=run_id_or_400(run_id, "$.path.run_id"), entry_id=entry_id)
        return Response(
            s.DecisionOut(
                {"entry_id": row.entry_id, "status": row.status, "doc_version": None, "audit_id": audit_id}
            ).data
        )
