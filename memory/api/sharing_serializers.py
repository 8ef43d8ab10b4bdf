"""Request and response shapes of publish/unpublish and space grants (spec v2 section 15)."""

from __future__ import annotations

from rest_framework import serializers

from elf_kernel.api.strict import StrictSerializer

SPACES = ("team_shared", "org_shared")  # public names; team_shared is the alias of project_shared
GRANTEE_KINDS = ("project", "agent")


class PublishSerializer(StrictSerializer):
    space = serializers.ChoiceField(choices=SPACES, help_text="team_shared|org_shared")


class PublishResponseSerializer(serializers.Serializer):
    note_id = serializers.UUIDField()
    space = serializers.CharField(help_text="team_shared|org_shared after publish; agent_private after unpublish")


class GranteeSerializer(StrictSerializer):
    grantee_kind = serializers.ChoiceField(choices=GRANTEE_KINDS, help_text="project|agent")
    grantee_agent_id = serializers.CharField(
        required=False, allow_null=True, max_length=128,
        help_text="Required for grantee_kind=agent (never the caller itself); absent or null for project.",
    )

    def validate(self, attrs):
        agent = attrs.get("grantee_agent_id")
        if attrs["grantee_kind"] == "agent" and not agent:
            raise serializers.ValidationError({"grantee_agent_id": ["Required when grantee_kind is agent."]})
        if attrs["grantee_kind"] == "project" and agent is not None:
            raise serializers.ValidationError({"grantee_agent_id": ["Must be absent when grantee_kind is project."]})
        return attrs


class GrantSerializer(serializers.Serializer):
    space = serializers.CharField()
    grantee_kind = serializers.CharField()
    grantee_agent_id = serializers.CharField(allow_null=True)
    granted_by_agent_id = serializers.CharField()
    granted_at = serializers.DateTimeField()
    revoked_by_agent_id = serializers.CharField(allow_null=True, required=False)
    revoked_at = serializers.DateTimeField(allow_null=True, required=False)


class GrantListResponseSerializer(serializers.Serializer):
    grants = GrantSerializer(many=True)


class GrantCreatedResponseSerializer(serializers.Serializer):
    space = serializers.CharField()
    grantee_kind = serializers.CharField()
    grantee_agent_id = serializers.CharField(allow_null=True)
    granted = serializers.BooleanField()


class GrantRevokedResponseSerializer(serializers.Serializer):
    revoked = serializers.BooleanField(help_text="false when there was no active grant to revoke")
