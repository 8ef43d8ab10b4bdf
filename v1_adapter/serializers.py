"""Request and response shapes of the deprecated v1 API (elf-memory-service-v1.md section 15).

The request bodies are v2's with the caller's ids added (v1 takes tenant_id, project_id and agent_id in the
body, or the query string for the list) and without the v2-only fields (structured, write_policy,
ingestion_profile, filter, mode, as_of). They are spelled out here rather than derived from the v2 serializers:
this adapter calls the use cases, never another API layer, and a field added to a v2 body does not join the
frozen v1 contract unnoticed. The limits are the shared ones (elf_domain.limits). The responses keep only v1's
fields; the list answers v2's page, the NoteListResponse component GET /v2/notes documents.
"""

from __future__ import annotations

from datetime import UTC

from rest_framework import serializers

from elf_domain.limits import (
    MAX_CANDIDATE_K,
    MAX_CONTEXT_CHARS,
    MAX_EVENT_MESSAGES,
    MAX_MESSAGE_CHARS,
    MAX_NOTE_KEY_CHARS,
    MAX_NOTES_PER_REQUEST,
    MAX_QUERY_CHARS,
    MAX_SOURCE_REF_BYTES,
    MAX_TOP_K,
    MAX_TTL_DAYS,
)
from elf_domain.spaces import SCOPE_ALIASES
from elf_domain.vocabulary import NOTE_OPS
from elf_kernel.api.fraction import FractionField
from elf_kernel.api.json_object import JSONObjectField
from elf_kernel.api.strict import StrictSerializer

# The v2 components these v1 responses are, by name: this adapter imports no API layer, so it names them (the
# routes of their serializers, GET /v2/notes and POST /v2/admin/qdrant/rebuild, put them in the documents).
NOTE_LIST_PAGE = {"$ref": "#/components/schemas/NoteListResponse"}
REBUILD_REPORT = {"$ref": "#/components/schemas/QdrantRebuildReport"}


def _id(what: str, **kw) -> serializers.CharField:
    return serializers.CharField(trim_whitespace=False, help_text=f"The caller's {what} (the X-ELF-* header of v2).",
                                 **kw)


class _AliasedScope:
    def validate_scope(self, value):
        return SCOPE_ALIASES.get(value, value)


class V1Caller(StrictSerializer):
    """The caller's ids, checked with the context headers' rules; with static API keys they must be the key's."""

    tenant_id = _id("tenant")
    project_id = _id("project")
    agent_id = _id("agent")


class V1NoteIn(StrictSerializer):
    type = serializers.CharField(help_text="preference|constraint|decision|profile|fact|plan")
    key = serializers.CharField(allow_null=True, required=False, max_length=MAX_NOTE_KEY_CHARS)
    text = serializers.CharField(allow_blank=True, trim_whitespace=False)
    importance = FractionField()
    confidence = FractionField()
    ttl_days = serializers.IntegerField(allow_null=True, required=False, min_value=-MAX_TTL_DAYS,
                                        max_value=MAX_TTL_DAYS,
                                        help_text="> 0: expires after that many days; <= 0 or null: the type's default")
    source_ref = JSONObjectField(max_bytes=MAX_SOURCE_REF_BYTES, required=False,
                                 help_text="Opaque JSON object, stored and returned as is.")
    context = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text=f"Optional, at most {MAX_CONTEXT_CHARS} characters: embedded with the text (not part of it), "
        "e.g. the "
        "conversation turns around a turn stored as a note. Judged like the text (English, no secret).",
    )
    observed_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default_timezone=UTC,
        help_text="Optional RFC 3339 time the statement was made (e.g. its conversation session); a time without "
        "an offset is UTC. A search whose query names a date also looks among the notes observed then.",
    )


class V1AddNoteBody(_AliasedScope, V1Caller):
    scope = serializers.CharField(help_text="agent_private|project_shared (alias team_shared)|org_shared")
    notes = V1NoteIn(many=True, allow_empty=False, max_length=MAX_NOTES_PER_REQUEST)


class V1EventMessage(StrictSerializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "tool"])
    content = serializers.CharField(max_length=MAX_MESSAGE_CHARS, allow_blank=True, trim_whitespace=False)
    ts = serializers.CharField(required=False, max_length=64)
    msg_id = serializers.CharField(required=False, max_length=128)


class V1AddEventBody(_AliasedScope, V1Caller):
    scope = serializers.CharField(required=False)
    dry_run = serializers.BooleanField(required=False, default=False)
    messages = V1EventMessage(many=True, allow_empty=False, max_length=MAX_EVENT_MESSAGES)


class V1SearchBody(V1Caller):
    query = serializers.CharField(max_length=MAX_QUERY_CHARS)
    top_k = serializers.IntegerField(required=False, min_value=1, max_value=MAX_TOP_K)
    candidate_k = serializers.IntegerField(required=False, min_value=1, max_value=MAX_CANDIDATE_K)
    read_profile = serializers.CharField(
        help_text="private_only|private_plus_project|all_scopes (scopes.read_profiles)"
    )


class V1ListQuery(_AliasedScope, StrictSerializer):
    scope = serializers.ChoiceField(
        choices=["agent_private", "project_shared", "team_shared", "org_shared"], required=False
    )
    status = serializers.ChoiceField(choices=["active", "deprecated", "deleted"], required=False, default="active")
    type = serializers.ChoiceField(
        choices=["preference", "constraint", "decision", "profile", "fact", "plan"], required=False
    )
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False)
    tenant_id = _id("tenant")
    project_id = _id("project")
    agent_id = _id("agent", required=False)

    def validate(self, attrs):
        if attrs.get("scope") == "agent_private" and not attrs.get("agent_id"):
            raise serializers.ValidationError({"agent_id": "agent_id is required when scope is agent_private."})
        return attrs


class V1UpdateBody(V1Caller):
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    importance = FractionField(required=False)
    confidence = FractionField(required=False)
    ttl_days = serializers.IntegerField(
        required=False, allow_null=True, min_value=-MAX_TTL_DAYS, max_value=MAX_TTL_DAYS
    )
    note_id = serializers.UUIDField()


class V1DeleteBody(V1Caller):
    note_id = serializers.UUIDField()


# v1 section 9's names: REJECT_CJK where v2 says REJECT_NON_ENGLISH for a field that holds CJK (.english)
V1_REASON_CODE = (
    "Why: v1's WriteGate codes (REJECT_CJK, REJECT_TOO_LONG, REJECT_SECRET, REJECT_INVALID_TYPE, "
    "REJECT_SCOPE_DENIED, REJECT_EMPTY; REJECT_CJK where v2 says REJECT_NON_ENGLISH for CJK text), "
    "REJECT_EVIDENCE_MISMATCH, v2's codes otherwise (REJECT_NON_ENGLISH for another language), or null"
)


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
    extracted = serializers.ListField(
        child=serializers.JSONField(), help_text="The extractor's candidate notes (its output's notes array)."
    )
    results = V1EventResult(many=True)


class V1SearchItem(serializers.Serializer):
    """The note fields every search result carries."""

    note_id = serializers.UUIDField()
    type = serializers.CharField()
    key = serializers.CharField(allow_null=True)
    scope = serializers.CharField()
    importance = serializers.FloatField()
    confidence = serializers.FloatField()
    updated_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    final_score = serializers.FloatField()
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
