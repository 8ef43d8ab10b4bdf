"""POLICY.md on the admin bind only (core-memory-markdown section 8): the tenant's raw policy, and upsert/delete
of its entries. No public route reads or writes it; resolve reports a policy-decided value and nothing else. Thin:
validate the shape, call the route's use case (services.raw_documents, services.policy_entries), render."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import InvalidRequest

from ..domain.vocabulary import MemoryScope
from ..services.policy_entries import policy_delete, policy_upsert
from . import serializers as s
from .document_views import DOCUMENT_GET, DOCUMENT_PUT, IF_MATCH, PUT_BODY, DocumentView
from .entry_views import KEY_PATH, check_key, entry_of, scope_path, write_out


class PolicyView(DocumentView):
    scope = MemoryScope.POLICY

    @extend_schema(summary="The tenant's POLICY.md as text/markdown (admin bind only)",
                   operation_id="elf_admin_core_memory_policy_get", parameters=CONTEXT_HEADERS + [s.DocumentQuery],
                   responses=DOCUMENT_GET)
    def get(self, request):
        return self.read(request)

    @extend_schema(summary="Replace the tenant's POLICY.md (admin bind only)", request=PUT_BODY,
                   operation_id="elf_admin_core_memory_policy_put", parameters=CONTEXT_HEADERS + [IF_MATCH],
                   responses=DOCUMENT_PUT)
    def put(self, request):
        return self.replace(request)


class PolicyEntriesView(APIView):
    @extend_schema(summary="Upsert a POLICY.md entry (admin bind only)", operation_id="elf_admin_core_memory_upsert",
                   parameters=CONTEXT_HEADERS, request=s.PolicyUpsertBody,
                   responses={200: s.WriteOut, **ERROR_RESPONSES})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.PolicyUpsertBody, request.data)
        return Response(write_out(policy_upsert(ctx=ctx, entry=entry_of(data), reason=data.get("reason"))))


class PolicyEntryDetailView(APIView):
    @extend_schema(summary="Delete a POLICY.md entry (admin bind only)", operation_id="elf_admin_core_memory_delete",
                   parameters=CONTEXT_HEADERS + [scope_path(["policy"]), KEY_PATH],
                   responses={200: s.DeleteOut, **ERROR_RESPONSES})
    def delete(self, request, scope, key):
        ctx = context_from_request(request)
        if scope != "policy":
            raise InvalidRequest("The admin route deletes policy entries: scope is policy.", ["$.path.scope"])
        check_key(key)
        result = policy_delete(ctx=ctx, key=key)
        return Response(s.DeleteOut({"scope": scope, "key": key, "doc_version": result.doc.version,
                                     "audit_id": result.audit_ids[0]}).data)
