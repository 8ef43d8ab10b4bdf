"""Request and response shapes of the deprecated v1 API (elf-memory-service-v1.md section 15).

The request bodies are the v2 ones with the caller's ids added (v1 takes tenant_id, project_id and agent_id in
the body, or the query string for the list) and the v2-only fields taken out (structured, write_policy,
ingestion_profile, filter, mode). The responses keep only v1's fields.
"""

from __future__ import annotations

from rest_framework import serializers

from elf_kernel.api.strict import StrictSerializer
from memory.api.events_views import MAX_MESSAGES, EventIngestSerializer, EventMessageSerializer
from memory.api.note_serializers import (
    MAX_TTL_DAYS,
    NOTE_OPS,
    IngestNotesSerializer,
    ListNotesQuerySerializer,
    NoteInSerializer,
    PatchNoteSerializer,
)
from elf_domain.limits import MAX_NOTES_PER_REQUEST
from search.api.serializers import ScoredNoteFields, SearchBodySerializer


def _id(what: str, **kw) -> serializers.CharField:
    return serializers.CharField(trim_whitespace=False, help_text=f"The caller's {what} (the X-ELF-* header of v2).",
                                 **kw)


class V1Caller(StrictSerializer):
    """The caller's ids, checked with the context headers' rules; with static API keys they must be the key's."""

    tenant_id = _id("tenant")
    project_id = _id("project")
    agent_id = _id("agent")


class V1NoteIn(NoteInSerializer):
    structured = None
    write_policy = None
    ttl_days = serializers.IntegerField(allow_null=True, required=False, min_value=-MAX_TTL_DAYS,
                                        max_value=MAX_TTL_DAYS,
                                        help_text="> 0: expires after that many days; <= 0 or null: the type's default")


class V1AddNoteBody(V1Caller, IngestNotesSerializer):
    notes = V1NoteIn(many=True, allow_empty=False, max_length=MAX_NOTES_PER_REQUEST)


class V1EventMessage(EventMessageSerializer):
    write_policy = None


class V1AddEventBody(V1Caller, EventIngestSerializer):
    ingestion_profile = None  # the project's default profile, else the built-in one
    messages = V1EventMessage(many=True, allow_empty=False, max_length=MAX_MESSAGES)


class V1SearchBody(V1Caller, SearchBodySerializer):
    read_profile = serializers.CharField(help_text="private_only|private_plus_project|all_scopes (scopes.read_profiles)")
    filter = None
    mode = None
    as_of = None


class V1ListQuery(ListNotesQuerySerializer):
    tenant_id = _id("tenant")
    project_id = _id("project")
    agent_id = _id("agent", required=False)

    def validate(self, attrs):
        if attrs.get("scope") == "agent_private" and not attrs.get("agent_id"):
            raise serializers.ValidationError({"agent_id": "agent_id is required when scope is agent_private."})
        return attrs


class V1UpdateBody(V1Caller, PatchNoteSerializer):
    note_id = serializers.UUIDField()


class V1DeleteBody(V1Caller):
    note_id = serializers.UUIDField()


# v1 section 9's names: REJECT_CJK where v2 says REJECT_NON_ENGLISH for a field that holds CJK (v1_english)
V1_REASON_CODE = ("Why: v1's WriteGate codes (REJECT_CJK, REJECT_TOO_LONG, REJECT_SECRET, REJECT_INVALID_TYPE, "
                  "REJECT_SCOPE_DENIED, REJECT_EMPTY; REJECT_CJK where v2 says REJECT_NON_ENGLISH for CJK text), "
                  "REJECT_EVIDENCE_MISMATCH, v2's codes otherwise (REJECT_NON_ENGLISH for another language), or null")


def _reason_code() -> serializers.CharField:
    return serializers.CharField(allow_null=True, help_text=V1_REASON_CODE)


class V1NoteResult(serializers.Serializer):
    note_id = serializers.UUIDField(allow_null=True)
    op = serializers.ChoiceField(choices=NOTE_OPS, help_text="ADD|UPDATE|NONE|REJECTED")
    reason_code = _reason_code()


class V1AddNoteResponse(serializers.Serializer):
    results = V1NoteResult(many=True)


class V1EventResult(V1NoteResult):
    reason = serializers.CharField(allow_null=True)


class V1AddEventResponse(serializers.Serializer):
    extracted = serializers.ListField(child=serializers.JSONField(),
                                      help_text="The extractor's candidate notes (its output's notes array).")
    results = V1EventResult(many=True)


class V1SearchItem(ScoredNoteFields):
    text = serializers.CharField()
    source_ref = serializers.JSONField()


class V1SearchResponse(serializers.Serializer):
    items = V1SearchItem(many=True)


class V1UpdateResponse(serializers.Serializer):
    note_id = serializers.UUIDField()
    op = serializers.ChoiceField(choices=NOTE_OPS, help_text="UPDATE|NONE|REJECTED")
    reason_code = _reason_code()


class V1DeleteResponse(serializers.Serializer):
    note_id = serializers.UUIDField()
    op = serializers.ChoiceField(choices=NOTE_OPS, help_text="DELETE|NONE")
