"""Request and response shapes of the notes endpoints (spec v2 section 15)."""

from __future__ import annotations

from datetime import UTC, datetime

from rest_framework import serializers

from elf_domain.limits import MAX_NOTE_KEY_CHARS, MAX_NOTES_PER_REQUEST, MAX_SOURCE_REF_BYTES, MAX_TTL_DAYS
from elf_domain.spaces import SCOPE_ALIASES
from elf_domain.vocabulary import NOTE_OPS  # settings pins the OpenAPI enum OpEnum to it (by this module's name)
from elf_kernel.api.fraction import FractionField
from elf_kernel.api.json_object import JSONObjectField
from elf_kernel.api.schema_docs import error_responses
from elf_kernel.api.strict import StrictSerializer

from ..domain.note_context import MAX_CONTEXT_CHARS

# Error statuses of the operations that change one owned note, beyond ERROR_RESPONSES.
NOTE_CHANGE_ERRORS = error_responses({409: "The note is not active (NOTE_NOT_ACTIVE)"})
NOTE_MOVE_ERRORS = error_responses({409: "The note is not active (NOTE_NOT_ACTIVE), or the owner already has an active "
                                         "note with its key in the target space (NOTE_KEY_CONFLICT)"})


class EntitySerializer(StrictSerializer):
    canonical = serializers.CharField(allow_null=True, required=False)
    kind = serializers.CharField(allow_null=True, required=False)
    aliases = serializers.ListField(child=serializers.CharField(), allow_null=True, required=False)


class RelationObjectSerializer(StrictSerializer):
    entity = EntitySerializer(allow_null=True, required=False)
    value = serializers.CharField(allow_null=True, required=False)

    def validate(self, attrs):
        if (attrs.get("entity") is None) == (attrs.get("value") is None):
            raise serializers.ValidationError("Exactly one of object.entity and object.value must be non-null.")
        return attrs


class RelationSerializer(StrictSerializer):
    subject = EntitySerializer()
    predicate = serializers.CharField()
    object = RelationObjectSerializer()
    valid_from = serializers.DateTimeField(allow_null=True, required=False)
    valid_to = serializers.DateTimeField(allow_null=True, required=False)

    def validate(self, attrs):
        # to_internal_value has turned both into ISO strings (with the same offset); compare them as times.
        start, end = (attrs.get(name) for name in ("valid_from", "valid_to"))
        if start is not None and end is not None and datetime.fromisoformat(end) <= datetime.fromisoformat(start):
            raise serializers.ValidationError({"valid_to": "Must be later than valid_from."})
        return attrs

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        for name in ("valid_from", "valid_to"):  # keep JSON-serialisable for storage
            if value.get(name) is not None:
                value[name] = value[name].isoformat()
        return value


class StructuredSerializer(StrictSerializer):
    summary = serializers.CharField(allow_null=True, required=False, allow_blank=True)
    facts = serializers.ListField(child=serializers.CharField(), allow_null=True, required=False)
    concepts = serializers.ListField(child=serializers.CharField(), allow_null=True, required=False)
    entities = serializers.ListField(child=EntitySerializer(), allow_null=True, required=False)
    relations = serializers.ListField(child=RelationSerializer(), allow_null=True, required=False)


class NoteInSerializer(StrictSerializer):
    type = serializers.CharField(help_text="preference|constraint|decision|profile|fact|plan")
    key = serializers.CharField(allow_null=True, required=False, max_length=MAX_NOTE_KEY_CHARS)
    text = serializers.CharField(allow_blank=True, trim_whitespace=False)
    importance = FractionField()
    confidence = FractionField()
    ttl_days = serializers.IntegerField(allow_null=True, required=False, min_value=0, max_value=MAX_TTL_DAYS)
    structured = StructuredSerializer(allow_null=True, required=False)
    source_ref = JSONObjectField(max_bytes=MAX_SOURCE_REF_BYTES, required=False,
                                 help_text="Opaque JSON object, stored and returned as is.")
    write_policy = serializers.JSONField(
        required=False, help_text="supplement section 5: applied to text before the gates"
    )
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


class IngestNotesSerializer(StrictSerializer):
    scope = serializers.CharField(help_text="agent_private|project_shared (alias team_shared)|org_shared")
    notes = NoteInSerializer(many=True, allow_empty=False, max_length=MAX_NOTES_PER_REQUEST)

    def validate_scope(self, value):
        return SCOPE_ALIASES.get(value, value)


class NoteResultSerializer(serializers.Serializer):
    note_id = serializers.UUIDField(allow_null=True)
    op = serializers.ChoiceField(choices=NOTE_OPS)
    policy_decision = serializers.ChoiceField(choices=["remember", "update", "ignore", "reject"])
    reason_code = serializers.CharField(allow_null=True)
    field_path = serializers.CharField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField(), required=False)
    write_policy_audits = serializers.JSONField(
        required=False, help_text="add_note: the audit of the note's write_policy (present only when one was applied)"
    )


class IngestNotesResponseSerializer(serializers.Serializer):
    results = NoteResultSerializer(many=True)


class NoteOutSerializer(serializers.Serializer):
    note_id = serializers.UUIDField()
    tenant_id = serializers.CharField()
    project_id = serializers.CharField()
    agent_id = serializers.CharField()
    scope = serializers.CharField()
    type = serializers.CharField()
    key = serializers.CharField(allow_null=True)
    text = serializers.CharField()
    importance = serializers.FloatField()
    confidence = serializers.FloatField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    embedding_version = serializers.CharField()
    source_ref = serializers.JSONField()
    context = serializers.CharField(allow_blank=True, help_text="embedded with the text; '' when none")
    observed_at = serializers.DateTimeField(allow_null=True, help_text="when the statement was made, as written")
    hit_count = serializers.IntegerField()
    last_hit_at = serializers.DateTimeField(allow_null=True)
    structured = serializers.JSONField(allow_null=True)


class NoteListResponseSerializer(serializers.Serializer):
    notes = NoteOutSerializer(many=True)
    next_cursor = serializers.CharField(allow_null=True)


class PatchNoteSerializer(StrictSerializer):
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    importance = FractionField(required=False)
    confidence = FractionField(required=False)
    ttl_days = serializers.IntegerField(
        required=False, allow_null=True, min_value=-MAX_TTL_DAYS, max_value=MAX_TTL_DAYS
    )


class NoteOpResponseSerializer(serializers.Serializer):
    note_id = serializers.UUIDField()
    op = serializers.ChoiceField(choices=NOTE_OPS)
    reason_code = serializers.CharField(allow_null=True, required=False)
    field_path = serializers.CharField(allow_null=True, required=False)


class ListNotesQuerySerializer(StrictSerializer):
    scope = serializers.ChoiceField(
        choices=["agent_private", "project_shared", "team_shared", "org_shared"], required=False
    )
    status = serializers.ChoiceField(choices=["active", "deprecated", "deleted"], required=False, default="active")
    type = serializers.ChoiceField(
        choices=["preference", "constraint", "decision", "profile", "fact", "plan"], required=False
    )
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)
    cursor = serializers.CharField(required=False)

    def validate_scope(self, value):
        return SCOPE_ALIASES.get(value, value)


DEPRECATE_OPS = ("DEPRECATE", "NONE")


class DeprecateNoteSerializer(StrictSerializer):
    superseded_by = serializers.UUIDField(
        required=False, help_text="the active note that replaces this one (recorded in the version row)"
    )


class DeprecateResponseSerializer(serializers.Serializer):
    note_id = serializers.UUIDField()
    op = serializers.ChoiceField(choices=DEPRECATE_OPS, help_text="NONE: the note was deprecated already")
    status = serializers.CharField()
