"""POST /v2/notes/{note_id}/deprecate: the documented way a note becomes ``deprecated`` (spec v2 section 11's
purge rule for deprecated notes reads it). Thin: validate, call memory.services.note_changes."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.runtime import get_config

from ..services.note_changes import deprecate_note
from . import note_serializers as s


class NoteDeprecateView(APIView):
    @extend_schema(
        summary="Deprecate an owned note (kept and readable by id, no longer searched; purged after "
                "lifecycle.purge_deprecated_after_days without a hit)",
        operation_id="elf_notes_deprecate", parameters=CONTEXT_HEADERS, request=s.DeprecateNoteSerializer,
        responses={200: s.DeprecateResponseSerializer, **s.NOTE_CHANGE_ERRORS},
    )
    def post(self, request, note_id):
        data = validated(s.DeprecateNoteSerializer, request.data)
        return Response(deprecate_note(cfg=get_config(), ctx=context_from_request(request), note_id=note_id,
                                       superseded_by=data.get("superseded_by")))
