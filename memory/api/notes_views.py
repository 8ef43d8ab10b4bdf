"""Notes endpoints (spec v2 section 15): ingest (add_note), list, get, patch, delete. Each validates its shapes,
calls its use case (memory.services, memory.selectors.notes) and renders."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import InvalidRequest
from elf_kernel.runtime import get_config

from ..selectors.notes import notes_page, readable_note
from ..services.add_note import add_note
from ..services.note_changes import PATCHABLE, delete_note, patch_note
from . import note_serializers as s


class NotesIngestView(APIView):
    @extend_schema(
        summary="add_note: deterministic ingest (never calls an LLM)", operation_id="elf_notes_ingest",
        parameters=CONTEXT_HEADERS, request=s.IngestNotesSerializer,
        responses={200: s.IngestNotesResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.IngestNotesSerializer, request.data)
        results = add_note(cfg=get_config(), ctx=ctx, scope=data["scope"], notes=data["notes"])
        return Response({"results": [r.as_dict() for r in results]})


class NotesListView(APIView):
    @extend_schema(
        summary="List readable notes (omitted scope excludes agent_private)", operation_id="elf_notes_list",
        parameters=CONTEXT_HEADERS + [s.ListNotesQuerySerializer],
        responses={200: s.NoteListResponseSerializer, **ERROR_RESPONSES},
    )
    def get(self, request):
        ctx = context_from_request(request)
        q = validated(s.ListNotesQuerySerializer, request.query_params.dict(), "$.query")
        return Response(notes_page(ctx, scope=q.get("scope"), status=q["status"], note_type=q.get("type"),
                                   limit=q["limit"], cursor=q.get("cursor")))


class NoteDetailView(APIView):
    @extend_schema(summary="Get one readable note", operation_id="elf_notes_get", parameters=CONTEXT_HEADERS,
                   responses={200: s.NoteOutSerializer, **ERROR_RESPONSES})
    def get(self, request, note_id):
        ctx = context_from_request(request)
        return Response(readable_note(ctx, note_id))

    @extend_schema(
        summary="Update text, importance, confidence or ttl_days of an owned note",
        operation_id="elf_notes_patch",
        parameters=CONTEXT_HEADERS,
        request=s.PatchNoteSerializer,
        responses={200: s.NoteOpResponseSerializer, **s.NOTE_CHANGE_ERRORS},
    )
    def patch(self, request, note_id):
        ctx = context_from_request(request)
        data = validated(s.PatchNoteSerializer, request.data)
        if not data:
            raise InvalidRequest("Nothing to update: give text, importance, confidence or ttl_days.", ["$"])
        return Response(
            patch_note(
                cfg=get_config(), ctx=ctx, note_id=note_id, **{name: data[name] for name in PATCHABLE if name in data}
            )
        )

    @extend_schema(
        summary="Delete an owned note (soft delete; points removed by the worker)",
        operation_id="elf_notes_delete",
        parameters=CONTEXT_HEADERS,
        responses={200: s.NoteOpResponseSerializer, **ERROR_RESPONSES},
    )
    def delete(self, request, note_id):
        ctx = context_from_request(request)
        return Response(delete_note(cfg=get_config(), ctx=ctx, note_id=note_id))
