"""The deprecated v1 memory routes on the public bind (elf-memory-service-v1.md section 15).

Each is a v2 route with the caller's ids in the body (the query string for the list) and v1's response shape,
served by the very use cases the v2 views call (no second write or read path), each as the caller's context
(``identity.v1_context``):

- add_note   -> memory.services.add_note.add_note (POST /v2/notes/ingest)
- add_event  -> memory.services.events.add_event (POST /v2/events/ingest)
- search     -> search.services.search.search in planned_search mode (v1 section 13: expansion as configured,
                one rerank), recording hits as v1 step 13 does; the full note comes with each item
- list       -> memory.selectors.notes.notes_page (GET /v2/notes; the same page and body)
- update     -> memory.services.note_changes.patch_note (PATCH /v2/notes/{note_id}; v1's ttl_days rules are
                patch's)
- delete     -> memory.services.note_changes.delete_note (DELETE /v2/notes/{note_id})
"""

from __future__ import annotations

from rest_framework.response import Response

from elf_domain.vocabulary import SEARCH_MODES
from elf_kernel.api.schema_docs import error_responses
from elf_kernel.api.validation import validated
from elf_kernel.runtime import get_config
from memory.selectors.notes import note_to_dict, notes_page
from memory.services.add_note import add_note
from memory.services.events import add_event
from memory.services.note_changes import PATCHABLE, delete_note, patch_note
from search.services.search import search

from . import serializers as s
from .deprecation import DeprecatedV1View, v1_schema
from .english import v1_result
from .identity import v1_context

# The successors' own error statuses, beyond ERROR_RESPONSES (as POST /v2/events/ingest and PATCH
# /v2/notes/{note_id} document them).
EVENT_ERRORS = error_responses({502: "The extractor provider failed or answered nothing usable (EXTRACTOR_FAILED)"})
NOTE_CHANGE_ERRORS = error_responses({409: "The note is not active (NOTE_NOT_ACTIVE)"})
PLANNED_SEARCH = SEARCH_MODES[1]


class V1AddNoteView(DeprecatedV1View):
    successor = "/v2/notes/ingest"

    @v1_schema(operation_id="elf_v1_memory_add_note", summary="add_note (v1): deterministic ingest",
               successor="POST /v2/notes/ingest", request=s.V1AddNoteBody, response=s.V1AddNoteResponse)
    def post(self, request):
        data = validated(s.V1AddNoteBody, request.data)
        ctx = v1_context(request, data)
        results = add_note(cfg=get_config(), ctx=ctx, scope=data["scope"], notes=data["notes"])
        return Response(s.V1AddNoteResponse({"results": [v1_result(r.as_dict(), data) for r in results]}).data)


class V1AddEventView(DeprecatedV1View):
    successor = "/v2/events/ingest"

    @v1_schema(operation_id="elf_v1_memory_add_event", summary="add_event (v1): one extractor call, evidence bound",
               successor="POST /v2/events/ingest", request=s.V1AddEventBody, response=s.V1AddEventResponse,
               errors=EVENT_ERRORS)
    def post(self, request):
        data = validated(s.V1AddEventBody, request.data)
        ctx = v1_context(request, data)
        outcome = add_event(cfg=get_config(), ctx=ctx, scope=data.get("scope"), messages=data["messages"],
                            dry_run=data["dry_run"], ingestion_profile=None)  # the project's default, else built-in
        notes = outcome.extracted.get("notes") if isinstance(outcome.extracted, dict) else None
        # the results' field paths point into the extractor's output ($.extracted.notes[0].text)
        results = [v1_result(r, {"extracted": outcome.extracted}) for r in outcome.results]
        return Response(s.V1AddEventResponse({"extracted": notes if isinstance(notes, list) else [],
                                              "results": results}).data)


class V1SearchView(DeprecatedV1View):
    successor = "/v2/searches"

    @v1_schema(operation_id="elf_v1_memory_search", summary="search (v1): planned_search, full notes, hits recorded",
               successor="POST /v2/searches", request=s.V1SearchBody, response=s.V1SearchResponse)
    def post(self, request):
        data = validated(s.V1SearchBody, request.data)
        ctx = v1_context(request, data, with_read_profile=True)
        out = search(cfg=get_config(), ctx=ctx, query=data["query"], top_k=data.get("top_k"),
                     candidate_k=data.get("candidate_k"), mode=PLANNED_SEARCH, record_hits=True)
        items = [{**note_to_dict(i.note, None), "final_score": i.ranked.final_score} for i in out.items]
        return Response(s.V1SearchResponse({"items": items}).data)


class V1ListView(DeprecatedV1View):
    successor = "/v2/notes"

    @v1_schema(operation_id="elf_v1_memory_list", summary="list (v1): readable notes, newest first",
               successor="GET /v2/notes", parameters=[s.V1ListQuery], response=s.NOTE_LIST_PAGE)
    def get(self, request):
        q = validated(s.V1ListQuery, request.query_params.dict(), "$.query")
        ctx = v1_context(request, q, prefix="$.query")
        return Response(notes_page(ctx, scope=q.get("scope"), status=q["status"], note_type=q.get("type"),
                                   limit=q["limit"], cursor=q.get("cursor")))


class _OneNoteView(DeprecatedV1View):
    """The successor is the note's own v2 route once the body has named a valid note_id."""

    successor = "/v2/notes"
    note_id = None

    def successor_path(self) -> str:
        return f"{self.successor}/{self.note_id}" if self.note_id else self.successor


class V1UpdateView(_OneNoteView):
    @v1_schema(operation_id="elf_v1_memory_update", summary="update (v1): text, importance, confidence, ttl_days",
               successor="PATCH /v2/notes/{note_id}", request=s.V1UpdateBody, response=s.V1UpdateResponse,
               errors=NOTE_CHANGE_ERRORS)
    def post(self, request):
        data = validated(s.V1UpdateBody, request.data)
        self.note_id = data["note_id"]
        result = patch_note(cfg=get_config(), ctx=v1_context(request, data), note_id=data["note_id"],
                            **{name: data[name] for name in PATCHABLE if name in data})
        return Response(s.V1UpdateResponse(v1_result({"reason_code": None, **result}, data)).data)


class V1DeleteView(_OneNoteView):
    @v1_schema(operation_id="elf_v1_memory_delete", summary="delete (v1): soft delete of an owned note",
               successor="DELETE /v2/notes/{note_id}", request=s.V1DeleteBody, response=s.V1DeleteResponse)
    def post(self, request):
        data = validated(s.V1DeleteBody, request.data)
        self.note_id = data["note_id"]
        result = delete_note(cfg=get_config(), ctx=v1_context(request, data), note_id=data["note_id"])
        return Response(s.V1DeleteResponse(result).data)
