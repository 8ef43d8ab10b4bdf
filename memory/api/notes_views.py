"""Notes endpoints (spec v2 section 15): ingest (add_note), list, get, patch, delete."""

from __future__ import annotations


from django.db.models import Q
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_infra.providers.factory import build_embedding
from elf_kernel.api.pagination import decode_cursor, encode_cursor
from elf_kernel.api.schema_docs import CONTEXT_HEADERS
from elf_kernel.api.schema_docs import ERROR_RESPONSES
from elf_kernel.context import RequestContext, context_from_request
from elf_kernel.api.validation import validated
from elf_kernel.errors import InvalidRequest, NotFound
from elf_kernel.runtime import get_config

from elf_domain.write_policy import WritePolicyError, apply_write_policy, parse_write_policy
from ..selectors import list_notes, readable_notes
from ..services.ingest import NoteInput, NoteResult, ingest_notes
from ..services.note_changes import UNSET, delete_note, patch_note
from ..services.note_fields import fields_of
from . import note_serializers as s
from elf_kernel.api.english_fields import IDENTIFIER, NATURAL, note_fields, require_english


def _apply_policy(note: dict, index: int) -> tuple[str, dict | None]:
    """The note's text after its write_policy, and the audit (None without a policy)."""
    if "write_policy" not in note:
        return note["text"], None
    try:
        policy = parse_write_policy(note["write_policy"], note["text"], f"$.notes[{index}].write_policy")
    except WritePolicyError as exc:
        raise InvalidRequest(exc.message, [exc.path]) from None
    return apply_write_policy(note["text"], policy)


def note_to_dict(note, structured: dict | None) -> dict:
    return {
        "note_id": str(note.note_id), "tenant_id": note.tenant_id, "project_id": note.project_id,
        "agent_id": note.agent_id, "scope": note.scope, "type": note.type, "key": note.key, "text": note.text,
        "importance": note.importance, "confidence": note.confidence, "status": note.status,
        "created_at": note.created_at.isoformat(), "updated_at": note.updated_at.isoformat(),
        "expires_at": note.expires_at.isoformat() if note.expires_at else None,
        "embedding_version": note.embedding_version, "source_ref": note.source_ref, "context": note.context,
        "observed_at": note.observed_at.isoformat() if note.observed_at else None,
        "hit_count": note.hit_count,
        "last_hit_at": note.last_hit_at.isoformat() if note.last_hit_at else None, "structured": structured,
    }


def ingest_body(ctx: RequestContext, data: dict) -> list[NoteResult]:
    """add_note from a validated body (scope, notes): write policies, the English gate, then the one ingest
    service. Shared by POST /v2/notes/ingest and the deprecated POST /v1/memory/add_note."""
    raw_notes = data["notes"]
    # write_policy first: nothing else, the English gate included, sees excluded or redacted text
    transformed = [_apply_policy(n, i) for i, n in enumerate(raw_notes)]
    require_english(
        [("$.scope", data["scope"], IDENTIFIER)]
        + [f for i, (n, (text, _)) in enumerate(zip(raw_notes, transformed))
           for f in note_fields({**n, "text": text}, f"$.notes[{i}]")]
    )
    cfg = get_config()
    notes = []
    for i, (n, (text, audit)) in enumerate(zip(raw_notes, transformed)):
        extra = {"write_policy_audits": audit} if audit is not None else {}
        notes.append(NoteInput(
            type=n["type"], key=n.get("key"), text=text, importance=n["importance"],
            confidence=n["confidence"], ttl_days=n.get("ttl_days"), source_ref=n.get("source_ref") or {},
            structured=n.get("structured"), context=n.get("context") or "", observed_at=n.get("observed_at"),
            field_path=f"$.notes[{i}]",
            decision_extra=extra,
        ))
    return ingest_notes(cfg=cfg, ctx=ctx, scope=data["scope"], notes=notes, embedder=build_embedding(cfg))


def list_page(ctx: RequestContext, q: dict) -> dict:
    """One page of readable notes from validated list query fields (scope, status, type, limit, cursor).
    Shared by GET /v2/notes and the deprecated GET /v1/memory/list."""
    qs = list_notes(ctx, scope=q.get("scope"), status=q["status"], note_type=q.get("type"))
    if q.get("cursor"):
        updated, note_id = decode_cursor(q["cursor"])
        qs = qs.filter(Q(updated_at__lt=updated) | Q(updated_at=updated, note_id__lt=note_id))
    page = list(qs[: q["limit"] + 1])
    more = len(page) > q["limit"]
    page = page[: q["limit"]]
    structured = fields_of(n.note_id for n in page)
    return {
        "notes": [note_to_dict(n, structured.get(n.note_id)) for n in page],
        "next_cursor": encode_cursor(page[-1].updated_at, page[-1].note_id) if more else None,
    }


def patch_body(ctx: RequestContext, note_id, data: dict) -> dict:
    """Change an owned note from validated fields (text, importance, confidence, ttl_days; omitted ones stay):
    the English gate, then the one patch service. Shared by PATCH /v2/notes/{note_id} and the deprecated
    POST /v1/memory/update."""
    if "text" in data:
        require_english([("$.text", data["text"], NATURAL)])
    return patch_note(
        cfg=get_config(), ctx=ctx, note_id=note_id, text=data.get("text", UNSET),
        importance=data.get("importance", UNSET), confidence=data.get("confidence", UNSET),
        ttl_days=data.get("ttl_days", UNSET),
    )


class NotesIngestView(APIView):
    @extend_schema(
        summary="add_note: deterministic ingest (never calls an LLM)", operation_id="elf_notes_ingest",
        parameters=CONTEXT_HEADERS, request=s.IngestNotesSerializer,
        responses={200: s.IngestNotesResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request):
        ctx = context_from_request(request)
        results = ingest_body(ctx, validated(s.IngestNotesSerializer, request.data))
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
        return Response(list_page(ctx, q))


class NoteDetailView(APIView):
    @extend_schema(summary="Get one readable note", operation_id="elf_notes_get", parameters=CONTEXT_HEADERS,
                   responses={200: s.NoteOutSerializer, **ERROR_RESPONSES})
    def get(self, request, note_id):
        ctx = context_from_request(request)
        note = readable_notes(ctx).filter(note_id=note_id).first()
        if note is None:
            raise NotFound("Note not found.", ["$.note_id"])
        return Response(note_to_dict(note, fields_of([note.note_id]).get(note.note_id)))

    @extend_schema(summary="Update text, importance, confidence or ttl_days of an owned note", operation_id="elf_notes_patch",
                   parameters=CONTEXT_HEADERS, request=s.PatchNoteSerializer,
                   responses={200: s.NoteOpResponseSerializer, **s.NOTE_CHANGE_ERRORS})
    def patch(self, request, note_id):
        ctx = context_from_request(request)
        data = validated(s.PatchNoteSerializer, request.data)
        if not data:
            raise InvalidRequest("Nothing to update: give text, importance, confidence or ttl_days.", ["$"])
        return Response(patch_body(ctx, note_id, data))

    @extend_schema(summary="Delete an owned note (soft delete; points removed by the worker)", operation_id="elf_notes_delete",
                   parameters=CONTEXT_HEADERS, responses={200: s.NoteOpResponseSerializer, **ERROR_RESPONSES})
    def delete(self, request, note_id):
        ctx = context_from_request(request)
        return Response(delete_note(cfg=get_config(), ctx=ctx, note_id=note_id))

