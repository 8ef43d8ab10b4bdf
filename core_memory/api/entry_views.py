"""memory_upsert, memory_delete, memory_resolve, memory_compact and the natural-language utterances, on the public
bind. Thin: validate the shape, call the route's use case (services.public_entries, services.utterances: the
English gate, defaults, who writes, staging), render with an output serializer. The one check before the shape is
the bind's own: POLICY.md is not written here (403 SCOPE_DENIED, not a 400 for a scope the public shape lacks)."""

from __future__ import annotations

import time

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES, error_responses
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import InvalidRequest, ScopeDenied
from elf_kernel.runtime import get_config

from ..domain.markdown import KEY_RE
from ..domain.vocabulary import MemoryScope
from ..services.entries import EntryInput
from ..services.public_entries import Written, memory_compact, memory_delete, memory_resolve, memory_upsert
from ..services.utterances import handle
from . import serializers as s
from .markdown_io import run_id_or_400

KEY_PATH = OpenApiParameter("key", str, OpenApiParameter.PATH, description="the entry's key, e.g. response.tone")


def scope_path(choices) -> OpenApiParameter:
    return OpenApiParameter("scope", str, OpenApiParameter.PATH, enum=list(choices))


def write_out(w: Written) -> dict:
    return s.WriteOut({"status": w.status, "scope": w.scope, "key": w.key, "value": w.value,
                       "doc_version": w.doc_version, "audit_id": w.audit_id,
                       "pending_entry_id": w.pending_entry_id}).data


# Writes to a run's SESSION.md after the run was ended.
SESSION_WRITE_ERRORS = error_responses({409: "The run was ended: its SESSION.md is closed to writes (RUN_ENDED)"})


def entry_of(data: dict) -> EntryInput:
    return EntryInput(kind=data["kind"], key=data["key"], value=data["value"], priority=data["priority"],
                      ttl=data["ttl"].strip(), source=data["source"])


class EntriesView(APIView):
    @extend_schema(summary="memory_upsert: write one entry into PROFILE.md or a run's SESSION.md (user_inferred is "
                   "staged as pending)", operation_id="elf_core_memory_upsert", parameters=CONTEXT_HEADERS,
                   request=s.UpsertBody, responses={200: s.WriteOut, 202: s.WriteOut, **SESSION_WRITE_ERRORS})
    def post(self, request):
        ctx = context_from_request(request)
        if isinstance(request.data, dict) and request.data.get("scope") == "policy":
            raise ScopeDenied("POLICY.md is written only on the admin bind.", ["$.scope"])
        data = validated(s.UpsertBody, request.data)
        run_id = run_id_or_400(data.get("run_id"), "$.run_id")
        w = memory_upsert(ctx=ctx, scope=MemoryScope(data["scope"]), entry=entry_of(data), run_id=run_id,
                          reason=data.get("reason"))
        return Response(write_out(w), status=202 if w.pending_entry_id is not None else 200)


def check_key(key: str) -> None:
    if not KEY_RE.match(key) or len(key) > 128:
        raise InvalidRequest("Not a core memory key (A-Z a-z 0-9 _ . -).", ["$.path.key"])


class EntryDetailView(APIView):
    @extend_schema(summary="memory_delete: remove a key from PROFILE.md or a run's SESSION.md",
                   operation_id="elf_core_memory_delete",
                   parameters=CONTEXT_HEADERS + [scope_path(s.PUBLIC_SCOPES), KEY_PATH, s.RunQuery],
                   responses={200: s.DeleteOut, **SESSION_WRITE_ERRORS})
    def delete(self, request, scope, key):
        ctx = context_from_request(request)
        if scope == "policy":
            raise ScopeDenied("POLICY.md is written only on the admin bind.", ["$.path.scope"])
        if scope not in s.PUBLIC_SCOPES:
            raise InvalidRequest("scope is profile or session.", ["$.path.scope"])
        check_key(key)
        run_id = run_id_or_400(validated(s.RunQuery, request.query_params.dict(), "$.query").get("run_id"),
                               "$.query.run_id")
        result = memory_delete(ctx=ctx, scope=MemoryScope(scope), key=key, run_id=run_id)
        return Response(s.DeleteOut({"scope": scope, "key": key, "doc_version": result.doc.version,
                                     "audit_id": result.audit_ids[0]}).data)


class ResolveView(APIView):
    @extend_schema(summary="memory_resolve: effective values (Policy > Profile > Session) with provenance",
                   operation_id="elf_core_memory_resolve", parameters=CONTEXT_HEADERS, request=s.ResolveBody,
                   responses={200: s.ResolveOut, **ERROR_RESPONSES})
    def post(self, request):
        started = time.perf_counter()
        ctx = context_from_request(request)
        data = validated(s.ResolveBody, request.data)
        run_id = run_id_or_400(data.get("run_id"), "$.run_id")
        got = memory_resolve(ctx=ctx, keys=data.get("keys"), run_id=run_id)
        response = Response(s.ResolveOut({"resolved_at": got.resolved_at, "items": [
            {"key": r.key, "found": r.provenance is not None, "value": r.value, "provenance": r.provenance}
            for r in got.items]}).data)
        response["Server-Timing"] = f"resolve;dur={(time.perf_counter() - started) * 1000:.2f}"
        return response


class CompactView(APIView):
    @extend_schema(summary="memory_compact: remove expired lines and the losing lines of duplicate keys",
                   operation_id="elf_core_memory_compact", parameters=CONTEXT_HEADERS, request=s.CompactBody,
                   responses={200: s.CompactOut, **ERROR_RESPONSES})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.CompactBody, request.data)
        run_id = run_id_or_400(data.get("run_id"), "$.run_id")
        result, removed = memory_compact(ctx=ctx, scope=MemoryScope(data["scope"]), run_id=run_id)
        return Response(s.CompactOut({"scope": data["scope"], "doc_version": result.doc.version if result else None,
                                      "removed": removed, "audit_ids": result.audit_ids if result else []}).data)


class UtterancesView(APIView):
    @extend_schema(summary="Natural-language memory: 'remember that ...', 'from now on ...', 'set the reply tone "
                   "to ...', 'change my preference to ...', 'forget ...'", operation_id="elf_core_memory_utterance",
                   parameters=CONTEXT_HEADERS, request=s.UtteranceBody,
                   responses={200: s.UtteranceOut, **SESSION_WRITE_ERRORS})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.UtteranceBody, request.data)
        run_id = run_id_or_400(data["run_id"], "$.run_id")
        out = handle(cfg=get_config(), ctx=ctx, run_id=run_id, text=data["text"])
        return Response(s.UtteranceOut(out.__dict__).data)
