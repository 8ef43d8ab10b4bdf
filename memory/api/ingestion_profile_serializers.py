"""Request and response shapes of the ingestion profile admin endpoints (spec v2 section 15)."""

from __future__ import annotations

from rest_framework import serializers

from elf_domain.limits import MAX_PROFILE_ID_CHARS, MAX_PROFILE_VERSION
from elf_kernel.api.strict import StrictSerializer


class CreateProfileSerializer(StrictSerializer):
    profile_id = serializers.CharField(max_length=MAX_PROFILE_ID_CHARS)
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_PROFILE_VERSION, required=False,
        help_text="Omitted: the next version of profile_id (1 for a new id).",
    )
    profile = serializers.JSONField(
        help_text="schema_version 1 (optional); may set prompt_schema, prompt_system_template, "
        "prompt_user_template, model, temperature, timeout_ms. Templates must keep the placeholders "
        "<SCHEMA_JSON>, <MAX_NOTES>, <MAX_NOTE_CHARS>, <MESSAGES_JSON> between them."
    )
    created_by = serializers.CharField(
        max_length=MAX_PROFILE_ID_CHARS, required=False, help_text="Omitted: the X-ELF-Agent-Id header."
    )


class ProfileQuerySerializer(StrictSerializer):
    version = serializers.IntegerField(min_value=1, max_value=MAX_PROFILE_VERSION, required=False,
                                       help_text="Omitted: the latest version.")


class SetDefaultSerializer(StrictSerializer):
    profile_id = serializers.CharField(max_length=MAX_PROFILE_ID_CHARS)
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_PROFILE_VERSION, required=False, allow_null=True,
        help_text="Omitted or null: always the latest version.",
    )


class ProfileSummarySerializer(serializers.Serializer):
    profile_id = serializers.CharField()
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField()


class ProfileSerializer(ProfileSummarySerializer):
    profile = serializers.JSONField()


class ProfileListSerializer(serializers.Serializer):
    profiles = ProfileSummarySerializer(many=True)


class ProfileDefaultSerializer(serializers.Serializer):
    profile_id = serializers.CharField()
    version = serializers.IntegerField(allow_null=True, help_text="null: the latest version is used.")
    updated_at = serializers.DateTimeField()
